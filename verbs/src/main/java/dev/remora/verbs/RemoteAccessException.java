package dev.remora.verbs;

/**
 * Thrown by the blocking helpers when a request completes with an error status: a dead or unreachable peer
 * ({@link WcStatus#RETRY_EXC_ERR}), a bad remote address ({@link WcStatus#REM_ACCESS_ERR}), and so on. The status is
 * the one the provider reported, as hardware would.
 *
 * <p>Whether the request took effect depends on the status ({@link #isIndeterminate()}): a request the NIC refused
 * (REM_ACCESS_ERR, REM_INV_REQ_ERR, LOC_PROT_ERR) changed nothing; a request whose peer never answered
 * (RETRY_EXC_ERR), or that was flushed (WR_FLUSH_ERR: a blocking helper's request is flushed only when its queue pair
 * broke), may have executed at the target, and may still land after this exception. Record such an operation as
 * {@code info} (outcome unknown) in a history, never as failed.
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

    /**
     * Whether the request may have taken effect at the target despite this exception.
     *
     * @return true for RETRY_EXC_ERR and WR_FLUSH_ERR (and any status the provider cannot vouch for); false for a
     *     request refused before it had any effect (REM_ACCESS_ERR, REM_INV_REQ_ERR, LOC_PROT_ERR, LOC_LEN_ERR,
     *     RNR_RETRY_EXC_ERR)
     */
    public boolean isIndeterminate() {
        return indeterminate(status);
    }

    /**
     * Whether a request that completed with {@code status} may have taken effect at the target.
     *
     * @param status a completion status
     * @return false for SUCCESS and for the refusals that happen before any effect; true otherwise
     */
    public static boolean indeterminate(WcStatus status) {
        return switch (status) {
            case SUCCESS, REM_ACCESS_ERR, REM_INV_REQ_ERR, LOC_PROT_ERR, LOC_LEN_ERR, RNR_RETRY_EXC_ERR -> false;
            default -> true;
        };
    }
}
