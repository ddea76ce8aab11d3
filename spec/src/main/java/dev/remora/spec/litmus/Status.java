package dev.remora.spec.litmus;

/**
 * A completion status as a litmus test sees it: {@code s := poll(N2)} stores the status code of the retired
 * completion in register {@code s}, and the final predicate names the codes ({@code s = REM_ACCESS_ERR}). The codes
 * are the ones {@code StatusCode} in {@code spec/rdma/RDMA.tla} assigns.
 */
public enum Status {
    /** The request completed successfully. */
    SUCCESS(0),
    /** Flushed: its queue pair was, or went, into ERROR before it completed. */
    WR_FLUSH_ERR(1),
    /** Refused by the responder: bad rkey, out of bounds, or missing access right. */
    REM_ACCESS_ERR(2),
    /** Refused by the responder: a misaligned atomic. */
    REM_INV_REQ_ERR(3),
    /** Refused by the requester: a bad local key or buffer. */
    LOC_PROT_ERR(4),
    /** No answer from the peer: crashed, unreachable, or its answer was lost; the outcome is unknown. */
    RETRY_EXC_ERR(5);

    private final int code;

    Status(final int code) {
        this.code = code;
    }

    /**
     * The number a poll stores in a register.
     *
     * @return the status code
     */
    public int code() {
        return code;
    }

    /**
     * Whether the NIC can refuse a request with this status before it has any effect (the statuses a litmus verb
     * flag asks for: {@code !K}, {@code !A}, {@code !L}).
     *
     * @return true for REM_ACCESS_ERR, REM_INV_REQ_ERR and LOC_PROT_ERR
     */
    public boolean isRefusal() {
        return this == REM_ACCESS_ERR || this == REM_INV_REQ_ERR || this == LOC_PROT_ERR;
    }

    /**
     * The status of a code.
     *
     * @param code a status code
     * @return the status
     * @throws IllegalArgumentException for an unknown code
     */
    public static Status ofCode(final long code) {
        for (final Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("no status has code " + code);
    }
}
