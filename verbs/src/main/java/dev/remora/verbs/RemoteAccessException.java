package dev.remora.verbs;

/**
 * Thrown by the blocking helpers when a request completes with an error status: a dead or unreachable peer
 * ({@link WcStatus#RETRY_EXC_ERR}), a bad remote address ({@link WcStatus#REM_ACCESS_ERR}), and so on. The status is
 * the one the provider reported, as hardware would.
 */
public class RemoteAccessException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The completion status that caused this exception. */
    private final WcStatus status;

    /**
     * Creates the exception.
     *
     * @param status the failing completion's status
     * @param message what was being done
     */
    public RemoteAccessException(WcStatus status, String message) {
        super(message + ": " + status);
        this.status = status;
    }

    /** @return the failing completion's status */
    public WcStatus status() {
        return status;
    }
}
