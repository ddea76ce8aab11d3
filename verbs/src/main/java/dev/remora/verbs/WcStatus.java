package dev.remora.verbs;

/**
 * Completion status, mirroring {@code enum ibv_wc_status}. Only {@code wr_id}, the status and the
 * queue pair number of a failed completion are meaningful, as {@code ibv_poll_cq(3)} says.
 *
 * <p>After any status other than {@link #SUCCESS} on a send queue the queue pair is in
 * {@link QpState#ERROR}: every request still outstanding and every request posted later completes with
 * {@link #WR_FLUSH_ERR} (docs/memory-model.md R17).
 */
public enum WcStatus {
    /** The operation completed successfully. */
    SUCCESS,
    /** Local length error: a receive buffer too small for the incoming message. */
    LOC_LEN_ERR,
    /** Local protection error: the local buffer's key is not valid on this node, out of bounds, or lacks LOCAL_WRITE. */
    LOC_PROT_ERR,
    /** The request was flushed because the queue pair was, or went, into the error state. */
    WR_FLUSH_ERR,
    /** Remote invalid request: e.g. a misaligned atomic, or a SEND larger than the peer's receive buffer. */
    REM_INV_REQ_ERR,
    /** Remote access error: bad rkey, out of bounds, or the region lacks the needed remote access flag. */
    REM_ACCESS_ERR,
    /** Remote operation error: the responder could not complete the operation. */
    REM_OP_ERR,
    /** Transport retry counter exceeded: the peer did not answer within the retry timeout (dead or unreachable). */
    RETRY_EXC_ERR,
    /** Receiver-not-ready retry counter exceeded: the peer had no RECV posted for a SEND in time. */
    RNR_RETRY_EXC_ERR,
    /** Any other error. */
    GENERAL_ERR;

    /**
     * Whether this status is a success.
     *
     * @return true only for {@link #SUCCESS}
     */
    public boolean isSuccess() {
        return this == SUCCESS;
    }
}
