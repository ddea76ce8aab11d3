package dev.remora.locks;

/**
 * Named outcomes of acquiring a {@link RemoteLock}: what happened and what the caller should do next.
 */
public enum LockResult {
    /** The caller holds the lock now. Do the critical section, then {@link RemoteLock#unlock()}. */
    ACQUIRED,
    /** Someone else holds the lock (or is ahead in line). Retry later, or use {@link RemoteLock#lock()}. */
    CONTENDED,
    /** The timeout passed before the lock was acquired. The caller does not hold it. */
    TIMED_OUT,
    /**
     * The lock was held by someone whose lease has expired, and the caller took it over: it holds the lock now, but the
     * previous holder may still be running and must be fenced off (see {@link LeaseLock#fencingToken()}).
     */
    LEASE_EXPIRED;

    /** @return whether the caller holds the lock after this outcome */
    public boolean acquired() {
        return this == ACQUIRED || this == LEASE_EXPIRED;
    }
}
