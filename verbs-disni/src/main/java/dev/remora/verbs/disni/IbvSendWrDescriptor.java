package dev.remora.verbs.disni;

/**
 * The native image of {@code struct ibv_send_wr} ({@code <infiniband/verbs.h>} of rdma-core, LP64), the request
 * {@code ibv_post_send} reads. libdisni's {@code _postSend(qp, wr_list)} hands the address of the first image to
 * {@code ibv_post_send} unchanged, so every byte the NIC driver may read must be right:
 *
 * <pre>
 * struct ibv_send_wr {
 *     uint64_t             wr_id;            //   0
 *     struct ibv_send_wr  *next;             //   8  absolute address of the next image, or NULL
 *     struct ibv_sge      *sg_list;          //  16  absolute address of the scatter/gather list
 *     int                  num_sge;          //  24
 *     enum ibv_wr_opcode   opcode;           //  28
 *     unsigned int         send_flags;       //  32
 *     union { __be32 imm_data; uint32_t invalidate_rkey; };                  //  36
 *     union {
 *         struct { uint64_t remote_addr; uint32_t rkey; } rdma;               //  40, 48
 *         struct { uint64_t remote_addr; uint64_t compare_add;
 *                  uint64_t swap; uint32_t rkey; } atomic;                    //  40, 48, 56, 64
 *         struct { struct ibv_ah *ah; uint32_t remote_qpn; uint32_t remote_qkey; } ud;
 *     } wr;                                  //  40 .. 72
 *     union { struct { uint32_t remote_srqn; } xrc; } qp_type;               //  72
 *     union {
 *         struct { struct ibv_mw *mw; uint32_t rkey; struct ibv_mw_bind_info bind_info; } bind_mw;
 *         struct { void *hdr; uint16_t hdr_sz; uint16_t mss; } tso;
 *     };                                     //  80 .. 128
 * };                                         // sizeof 128
 *
 *   0        8        16       24   28   32   36   40       48       56       64   68   72   80             128
 *   +--------+--------+--------+----+----+----+----+--------+--------+--------+----+----+----+----+---------+
 *   | wr_id  | next   | sg_list|nsge| op |flgs|imm | raddr  | cmp_add| swap   |rkey| -- |srqn| -- | mw/tso  |
 *   +--------+--------+--------+----+----+----+----+--------+--------+--------+----+----+----+----+---------+
 *                                                   rdma:   | rkey | --         (rkey at 48 for READ/WRITE)
 * </pre>
 *
 * DiSNI 2.1's own marshalling ({@code NatIbvSendWR.writeBack}) writes only the first 72 bytes and, at 40, always the
 * {@code rdma} member (remote_addr, rkey, a zero word), never {@code atomic}: a CAS or FETCH_ADD reaches the NIC with
 * {@code compare_add} holding the rkey, {@code swap} 0 and {@code atomic.rkey} 0. {@link PostSendCall} writes the
 * whole image, with the member the opcode selects.
 */
final class IbvSendWrDescriptor {
    /** {@code wr_id}. */
    static final int WR_ID = 0;
    /** {@code next}. */
    static final int NEXT = 8;
    /** {@code sg_list}. */
    static final int SG_LIST = 16;
    /** {@code num_sge}. */
    static final int NUM_SGE = 24;
    /** {@code opcode}. */
    static final int OPCODE = 28;
    /** {@code send_flags}. */
    static final int SEND_FLAGS = 32;
    /** {@code imm_data}. */
    static final int IMM_DATA = 36;
    /** {@code wr.rdma.remote_addr} and {@code wr.atomic.remote_addr}. */
    static final int REMOTE_ADDR = 40;
    /** {@code wr.rdma.rkey}. */
    static final int RDMA_RKEY = 48;
    /** {@code wr.atomic.compare_add}. */
    static final int ATOMIC_COMPARE_ADD = 48;
    /** {@code wr.atomic.swap}. */
    static final int ATOMIC_SWAP = 56;
    /** {@code wr.atomic.rkey}. */
    static final int ATOMIC_RKEY = 64;
    /** End of the {@code wr} union. */
    static final int WR_UNION_END = 72;
    /** {@code sizeof(struct ibv_send_wr)}. */
    static final int SIZE = 128;

    /** {@code IBV_WR_RDMA_WRITE}. */
    static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_SEND}. */
    static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_RDMA_READ}. */
    static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    /** {@code IBV_SEND_FENCE}. */
    static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_INLINE}. */
    static final int IBV_SEND_INLINE = 1 << 3;

    private IbvSendWrDescriptor() {
    }
}
