package dev.remora.verbs;

/**
 * A work completion: the Java mirror of the fields of {@code struct ibv_wc} that Remora reports.
 *
 * <pre>
 * struct ibv_wc {
 *     uint64_t            wr_id;
 *     enum ibv_wc_status  status;
 *     enum ibv_wc_opcode  opcode;      // valid only when status == IBV_WC_SUCCESS
 *     uint32_t            vendor_err;
 *     uint32_t            byte_len;    // valid only when status == IBV_WC_SUCCESS
 *     uint32_t            qp_num;
 *     ...
 * };
 * </pre>
 *
 * <p>Completions are mutable so that {@link CompletionQueue#poll(Completion[])} fills a caller's array without
 * allocating. For a failed completion only {@link #wrId()}, {@link #status()}, {@link #qpNumber()} and
 * {@link #vendorError()} are meaningful, as {@code ibv_poll_cq(3)} says; this implementation still fills the opcode
 * to help debugging.
 */
public final class Completion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private Opcode opcode;
    private int byteLength;
    private int qpNumber;
    private int vendorError;

    /** Creates an empty completion slot. */
    public Completion() {
    }

    /**
     * Overwrites every field (used by providers).
     *
     * @param id the request's wr_id
     * @param st the status
     * @param op the opcode
     * @param bytes byte_len
     * @param qpn the queue pair number
     * @param vendor a provider-specific error detail, 0 if none
     * @return this
     */
    public Completion set(long id, WcStatus st, Opcode op, int bytes, int qpn, int vendor) {
        this.wrId = id;
        this.status = st;
        this.opcode = op;
        this.byteLength = bytes;
        this.qpNumber = qpn;
        this.vendorError = vendor;
        return this;
    }

    /**
     * Copies another completion into this one.
     *
     * @param other source
     * @return this
     */
    public Completion copyFrom(Completion other) {
        return set(other.wrId, other.status, other.opcode, other.byteLength, other.qpNumber, other.vendorError);
    }

    /** @return the request's wr_id */
    public long wrId() {
        return wrId;
    }

    /** @return the status */
    public WcStatus status() {
        return status;
    }

    /** @return the opcode */
    public Opcode opcode() {
        return opcode;
    }

    /** @return bytes transferred (READ, SEND/RECV) */
    public int byteLength() {
        return byteLength;
    }

    /** @return the number of the queue pair the request was posted on */
    public int qpNumber() {
        return qpNumber;
    }

    /** @return a provider-specific error detail, 0 if none (see the provider's documentation) */
    public int vendorError() {
        return vendorError;
    }

    @Override
    public String toString() {
        return "Completion{wrId=" + wrId + ", " + status + ", " + opcode + ", bytes=" + byteLength + ", qp="
            + qpNumber + (vendorError != 0 ? ", vendorErr=" + vendorError : "") + '}';
    }
}
