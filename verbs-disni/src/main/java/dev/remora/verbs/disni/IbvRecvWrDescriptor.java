package dev.remora.verbs.disni;

/**
 * The native image of {@code struct ibv_recv_wr} ({@code <infiniband/verbs.h>}, LP64), the request
 * {@code ibv_post_recv} reads (libdisni's {@code _postRecv(qp, wr_list)} passes the address through):
 *
 * <pre>
 * struct ibv_recv_wr {
 *     uint64_t             wr_id;     //  0
 *     struct ibv_recv_wr  *next;      //  8  NULL: this provider posts one receive per call
 *     struct ibv_sge      *sg_list;   // 16  absolute address of the element that follows at 32
 *     int                  num_sge;   // 24
 * };                                  // sizeof 32 (4 bytes of padding)
 *
 *  0        8        16       24   28   32               48
 *  +--------+--------+--------+----+----+----------------+
 *  | wr_id  | next   | sg_list|nsge| -- | ibv_sge        |
 *  +--------+--------+--------+----+----+----------------+
 * </pre>
 */
final class IbvRecvWrDescriptor {
    /** {@code wr_id}. */
    static final int WR_ID = 0;
    /** {@code next}. */
    static final int NEXT = 8;
    /** {@code sg_list}. */
    static final int SG_LIST = 16;
    /** {@code num_sge}. */
    static final int NUM_SGE = 24;
    /** {@code sizeof(struct ibv_recv_wr)}. */
    static final int SIZE = 32;

    private IbvRecvWrDescriptor() {
    }
}
