package dev.remora.verbs;

/**
 * Work request opcodes, mirroring the subset of {@code enum ibv_wr_opcode} and {@code enum ibv_wc_opcode} that
 * Remora uses.
 *
 * <pre>
 *   IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND
 *   (ibv_post_recv posts receive requests, completed as IBV_WC_RECV)
 * </pre>
 */
public enum Opcode {
    /** One-sided RDMA READ: remote memory into a local buffer. */
    READ,
    /** One-sided RDMA WRITE: a local buffer (or inline data) into remote memory. */
    WRITE,
    /** 8-byte compare-and-swap on an 8-byte-aligned remote word; the old value lands in a local buffer. */
    CAS,
    /** 8-byte fetch-and-add on an 8-byte-aligned remote word; the old value lands in a local buffer. */
    FETCH_ADD,
    /** Two-sided SEND: consumes a RECV posted at the peer queue pair. */
    SEND,
    /** A receive buffer, posted with {@link QueuePair#postRecv(WorkRequest)}. */
    RECV;

    /**
     * Whether the operation has a remote address and key.
     *
     * @return true for READ, WRITE, CAS and FETCH_ADD
     */
    public boolean isOneSided() {
        return this == READ || this == WRITE || this == CAS || this == FETCH_ADD;
    }

    /**
     * Whether the operation is a remote atomic (R14: atomic only against other remote atomics).
     *
     * @return true for CAS and FETCH_ADD
     */
    public boolean isAtomic() {
        return this == CAS || this == FETCH_ADD;
    }
}
