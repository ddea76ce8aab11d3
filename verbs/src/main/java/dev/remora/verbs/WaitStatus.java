package dev.remora.verbs;

/**
 * Outcome of {@link WaitTag#await(long)}.
 */
public enum WaitStatus {
    /** Every earlier operation of the tag completed successfully. */
    COMPLETED,
    /** Every earlier operation completed, at least one with an error: see {@link WaitTag#lastError()}. */
    FAILED,
    /** The timeout passed first; operations are still outstanding. */
    TIMED_OUT
}
