package dev.remora.verbs;

/**
 * Thrown by the blocking helpers when no completion arrived within the endpoint's operation timeout or before its
 * {@link Endpoint#deadline(long) deadline}.
 *
 * <p>If the request was posted ({@link #request()} is not null), its outcome is unknown: it may still complete later,
 * and may already have taken effect (record it as {@code info} in a history). The endpoint keeps its queue pair, so
 * {@link UnsettledRequest#settle(long)} can still learn the outcome. If it was not posted (the deadline had passed,
 * or the send queue stayed full), nothing happened.
 */
public class VerbsTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The request that timed out, or null if nothing was posted. */
    private final transient UnsettledRequest request;

    /**
     * Creates the exception for a request that was not posted.
     *
     * @param message what timed out
     */
    public VerbsTimeoutException(String message) {
        this(message, null);
    }

    /**
     * Creates the exception.
     *
     * @param message what timed out
     * @param request the posted request whose completion did not arrive in time, or null
     */
    public VerbsTimeoutException(String message, UnsettledRequest request) {
        super(message);
        this.request = request;
    }

    /** @return the request whose completion is still outstanding, or null if nothing was posted */
    public UnsettledRequest request() {
        return request;
    }

    /** @return whether the operation may have taken effect (it was posted) */
    public boolean isIndeterminate() {
        return request != null;
    }
}
