package dev.remora.verbs;

/**
 * Queue pair states, mirroring the subset of {@code enum ibv_qp_state} a Remora program observes.
 */
public enum QpState {
    /** Created, not connected: posting throws. */
    RESET,
    /** Connected and ready to send (RTS): requests execute. */
    RTS,
    /** A request failed: every outstanding and later request completes with {@link WcStatus#WR_FLUSH_ERR}. */
    ERROR,
    /** Destroyed: posting throws. */
    CLOSED
}
