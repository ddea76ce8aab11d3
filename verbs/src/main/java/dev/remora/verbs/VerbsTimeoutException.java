package dev.remora.verbs;

/**
 * Thrown by the blocking helpers when no completion arrived within the endpoint's operation timeout. The request may
 * still complete later, and may already have taken effect: its outcome is unknown (record it as {@code info}); its
 * queue pair is abandoned and a fresh one is used for the next request to that node.
 */
public class VerbsTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what timed out
     */
    public VerbsTimeoutException(String message) {
        super(message);
    }
}
