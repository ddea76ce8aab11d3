package dev.remora.verbs;

import java.util.Objects;

/**
 * A reusable, mutable work request: the Java mirror of {@code struct ibv_send_wr} (and of {@code ibv_recv_wr} for
 * {@link Opcode#RECV}) with one scatter/gather element.
 *
 * <pre>
 * struct ibv_send_wr {
 *     uint64_t            wr_id;
 *     struct ibv_send_wr *next;        // a list: QueuePair#post(WorkRequest[], int)
 *     struct ibv_sge     *sg_list;     // one element: localAddress, length, lkey
 *     int                 num_sge;
 *     enum ibv_wr_opcode  opcode;
 *     unsigned int        send_flags;  // SIGNALED, FENCE, INLINE
 *     union {
 *         struct { uint64_t remote_addr; uint32_t rkey; } rdma;
 *         struct { uint64_t remote_addr; uint64_t compare_add; uint64_t swap; uint32_t rkey; } atomic;
 *     } wr;
 * };
 * </pre>
 *
 * <p>Posting copies the request into the send queue, so a request may be changed and posted again as soon as
 * {@code post} returns: the hot path allocates nothing. The local buffer named by an ordinary (not
 * {@link #INLINE}) WRITE or SEND, however, is read by the NIC at some later time (docs/memory-model.md R3), and the local
 * buffer of a READ or atomic is written at some time before completion (R4): only the completion makes them safe to
 * reuse or read.
 *
 * <p>Instances are not thread-safe; give each thread its own.
 */
public final class WorkRequest {
    /** Ask for a completion on success ({@code IBV_SEND_SIGNALED}). Failures always produce a completion. */
    public static final int SIGNALED = 1;
    /**
     * {@code IBV_SEND_FENCE}: do not start this request until every earlier READ and atomic on the same queue pair has
     * completed (R13). Per queue pair only.
     */
    public static final int FENCE = 1 << 1;
    /** {@code IBV_SEND_INLINE}: copy a WRITE's or SEND's source at post time (R3 does not apply). */
    public static final int INLINE = 1 << 2;

    private static final int KNOWN_FLAGS = SIGNALED | FENCE | INLINE;

    private Opcode opcode;
    private long wrId;
    private int flags;
    private long localAddress;
    private int length;
    private int lkey;
    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;

    /** Creates an empty request; set it with one of the opcode methods before posting. */
    public WorkRequest() {
    }

    /**
     * RDMA READ of {@code length} bytes at {@code remote} into {@code local} at {@code localOffset}.
     *
     * @param local destination region on the posting node (needs LOCAL_WRITE)
     * @param localOffset byte offset in {@code local}
     * @param length bytes to read
     * @param remote source address; the region needs REMOTE_READ
     * @return this
     */
    public WorkRequest read(MemoryRegion local, long localOffset, int length, RemoteAddress remote) {
        return set(Opcode.READ, local, localOffset, length, remote);
    }

    /**
     * RDMA WRITE of {@code length} bytes from {@code local} at {@code localOffset} to {@code remote}.
     *
     * @param local source region on the posting node
     * @param localOffset byte offset in {@code local}
     * @param length bytes to write
     * @param remote destination address; the region needs REMOTE_WRITE
     * @return this
     */
    public WorkRequest write(MemoryRegion local, long localOffset, int length, RemoteAddress remote) {
        return set(Opcode.WRITE, local, localOffset, length, remote);
    }

    /**
     * 8-byte compare-and-swap: if the remote word equals {@code expected} it becomes {@code desired}. The old value is
     * written to {@code result} at {@code resultOffset} (8 bytes, LOCAL_WRITE).
     *
     * @param result region receiving the old value
     * @param resultOffset byte offset of the old value in {@code result}, 8-byte aligned (posting rejects others)
     * @param remote an 8-byte-aligned word; the region needs REMOTE_ATOMIC
     * @param expected compared value
     * @param desired swapped-in value
     * @return this
     */
    public WorkRequest cas(MemoryRegion result, long resultOffset, RemoteAddress remote, long expected, long desired) {
        set(Opcode.CAS, result, resultOffset, Long.BYTES, remote);
        this.compareAdd = expected;
        this.swap = desired;
        return this;
    }

    /**
     * 8-byte fetch-and-add of {@code delta} to the remote word. The old value is written to {@code result} at
     * {@code resultOffset} (8 bytes, LOCAL_WRITE).
     *
     * @param result region receiving the old value
     * @param resultOffset byte offset of the old value in {@code result}, 8-byte aligned (posting rejects others)
     * @param remote an 8-byte-aligned word; the region needs REMOTE_ATOMIC
     * @param delta the addend (two's complement wrap-around)
     * @return this
     */
    public WorkRequest faa(MemoryRegion result, long resultOffset, RemoteAddress remote, long delta) {
        set(Opcode.FETCH_ADD, result, resultOffset, Long.BYTES, remote);
        this.compareAdd = delta;
        this.swap = 0;
        return this;
    }

    /**
     * Two-sided SEND of {@code length} bytes from {@code local}; it consumes the next RECV posted at the peer.
     *
     * @param local source region
     * @param localOffset byte offset in {@code local}
     * @param length bytes to send
     * @return this
     */
    public WorkRequest send(MemoryRegion local, long localOffset, int length) {
        return set(Opcode.SEND, local, localOffset, length, null);
    }

    /**
     * A receive buffer of {@code length} bytes, for {@link QueuePair#postRecv(WorkRequest)}.
     *
     * @param local destination region (needs LOCAL_WRITE)
     * @param localOffset byte offset in {@code local}
     * @param length capacity in bytes
     * @return this
     */
    public WorkRequest recv(MemoryRegion local, long localOffset, int length) {
        return set(Opcode.RECV, local, localOffset, length, null);
    }

    private WorkRequest set(Opcode op, MemoryRegion local, long localOffset, int len, RemoteAddress remote) {
        Objects.requireNonNull(local, "local memory region");
        if (len < 0) {
            throw new IllegalArgumentException("negative length " + len);
        }
        if (localOffset < 0) {
            throw new IllegalArgumentException("negative local offset " + localOffset);
        }
        if (op.isOneSided()) {
            Objects.requireNonNull(remote, "remote address");
            this.remoteAddress = remote.address();
            this.rkey = remote.rkey();
        } else {
            this.remoteAddress = 0;
            this.rkey = 0;
        }
        this.opcode = op;
        this.localAddress = local.address() + localOffset;
        this.lkey = local.lkey();
        this.length = len;
        return this;
    }

    /**
     * Sets the scatter/gather element by raw address and key, as {@code struct ibv_sge} does. Checked by the NIC:
     * a key not valid on the posting node or an out-of-range address completes with {@link WcStatus#LOC_PROT_ERR}.
     *
     * @param address local virtual address
     * @param len length in bytes
     * @param key local key
     * @return this
     */
    public WorkRequest localSge(long address, int len, int key) {
        if (len < 0) {
            throw new IllegalArgumentException("negative length " + len);
        }
        this.localAddress = address;
        this.length = len;
        this.lkey = key;
        return this;
    }

    /**
     * Sets the remote address and key by raw values, as {@code wr.rdma} does.
     *
     * @param address remote virtual address
     * @param key remote key
     * @return this
     */
    public WorkRequest remote(long address, int key) {
        this.remoteAddress = address;
        this.rkey = key;
        return this;
    }

    /**
     * Sets the caller's identifier, returned in the completion.
     *
     * @param id any value (the wait layer encodes its tag here)
     * @return this
     */
    public WorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /**
     * Sets the send flags.
     *
     * @param sendFlags a combination of {@link #SIGNALED}, {@link #FENCE}, {@link #INLINE}
     * @return this
     */
    public WorkRequest flags(int sendFlags) {
        if ((sendFlags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown send flag bits 0x" + Integer.toHexString(sendFlags & ~KNOWN_FLAGS));
        }
        this.flags = sendFlags;
        return this;
    }

    /** @return the opcode, or null if none was set */
    public Opcode opcode() {
        return opcode;
    }

    /** @return the caller's identifier */
    public long wrId() {
        return wrId;
    }

    /** @return the send flags */
    public int flags() {
        return flags;
    }

    /** @return the local virtual address of the scatter/gather element */
    public long localAddress() {
        return localAddress;
    }

    /** @return the length in bytes */
    public int length() {
        return length;
    }

    /** @return the local key */
    public int lkey() {
        return lkey;
    }

    /** @return the remote virtual address */
    public long remoteAddress() {
        return remoteAddress;
    }

    /** @return the remote key */
    public int rkey() {
        return rkey;
    }

    /** @return the compare operand of a CAS, or the addend of a FETCH_ADD */
    public long compareAdd() {
        return compareAdd;
    }

    /** @return the swap operand of a CAS */
    public long swap() {
        return swap;
    }

    /**
     * Whether a flag is set.
     *
     * @param flag one of {@link #SIGNALED}, {@link #FENCE}, {@link #INLINE}
     * @return true when set
     */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    @Override
    public String toString() {
        return "WorkRequest{" + opcode + ", wrId=" + wrId + ", flags=" + flags + ", local=0x"
            + Long.toHexString(localAddress) + "/" + length + "/lkey=" + lkey + ", remote=0x"
            + Long.toHexString(remoteAddress) + "/rkey=" + rkey + ", compareAdd=" + compareAdd + ", swap=" + swap + '}';
    }
}
