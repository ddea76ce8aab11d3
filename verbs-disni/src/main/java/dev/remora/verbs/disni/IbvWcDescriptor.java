package dev.remora.verbs.disni;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;

/**
 * The native image of {@code struct ibv_wc} ({@code <infiniband/verbs.h>}, LP64), what {@code ibv_poll_cq} writes
 * into the array libdisni's {@code _pollCQ(cq, n, wc_list)} passes it, and how its status maps onto
 * {@link WcStatus}:
 *
 * <pre>
 * struct ibv_wc {
 *     uint64_t            wr_id;          //  0
 *     enum ibv_wc_status  status;         //  8
 *     enum ibv_wc_opcode  opcode;         // 12  valid only on success
 *     uint32_t            vendor_err;     // 16
 *     uint32_t            byte_len;       // 20
 *     union { __be32 imm_data; uint32_t invalidated_rkey; };   // 24
 *     uint32_t            qp_num;         // 28
 *     uint32_t            src_qp;         // 32
 *     unsigned int        wc_flags;       // 36
 *     uint16_t            pkey_index;     // 40
 *     uint16_t            slid;           // 42
 *     uint8_t             sl;             // 44
 *     uint8_t             dlid_path_bits; // 45
 * };                                      // sizeof 48 (2 bytes of padding)
 *
 *  0        8    12   16   20   24   28   32   36   40  42  44 45 46  48
 *  +--------+----+----+----+----+----+----+----+----+---+---+--+--+---+
 *  | wr_id  |stat| op |vend|blen|imm |qpn |srcq|flgs|pk |sli|sl|dp|-- |
 *  +--------+----+----+----+----+----+----+----+----+---+---+--+--+---+
 * </pre>
 *
 * <h2>Statuses</h2>
 * {@code enum ibv_wc_status} onto {@link WcStatus}: each status of the same name maps to itself
 * ({@code SUCCESS 0, LOC_LEN_ERR 1, LOC_PROT_ERR 4, WR_FLUSH_ERR 5, REM_INV_REQ_ERR 9, REM_ACCESS_ERR 10,
 * REM_OP_ERR 11, RETRY_EXC_ERR 12, RNR_RETRY_EXC_ERR 13, GENERAL_ERR 21}); the others to the nearest meaning:
 * {@code LOC_QP_OP_ERR 2} and {@code LOC_ACCESS_ERR 8} to {@code LOC_PROT_ERR} (a local request the NIC refused),
 * {@code REM_INV_RD_REQ_ERR 15} to {@code REM_INV_REQ_ERR}, {@code REM_ABORT_ERR 16} to {@code REM_OP_ERR},
 * {@code RESP_TIMEOUT_ERR 20} to {@code RETRY_EXC_ERR} (no answer: indeterminate), and every other one
 * ({@code LOC_EEC_OP_ERR 3, MW_BIND_ERR 6, BAD_RESP_ERR 7, LOC_RDD_VIOL_ERR 14, INV_EECN_ERR 17,
 * INV_EEC_STATE_ERR 18, FATAL_ERR 19}, tag-matching errors, unknown values) to {@code GENERAL_ERR}. The
 * completion's {@link dev.remora.verbs.Completion#vendorError()} carries the native status in its top 8 bits and
 * the NIC's {@code vendor_err} in the low 24, so nothing the hardware said is lost.
 */
final class IbvWcDescriptor {
    /** {@code wr_id}. */
    static final int WR_ID = 0;
    /** {@code status}. */
    static final int STATUS = 8;
    /** {@code opcode}. */
    static final int OPCODE = 12;
    /** {@code vendor_err}. */
    static final int VENDOR_ERR = 16;
    /** {@code byte_len}. */
    static final int BYTE_LEN = 20;
    /** {@code qp_num}. */
    static final int QP_NUM = 28;
    /** {@code sizeof(struct ibv_wc)}. */
    static final int SIZE = 48;

    /** {@code IBV_WC_RECV}: the opcode of a completed receive. */
    static final int IBV_WC_RECV = 1 << 7;

    private static final WcStatus[] STATUSES = new WcStatus[24];

    static {
        java.util.Arrays.fill(STATUSES, WcStatus.GENERAL_ERR);
        STATUSES[0] = WcStatus.SUCCESS;
        STATUSES[1] = WcStatus.LOC_LEN_ERR;
        STATUSES[2] = WcStatus.LOC_PROT_ERR;
        STATUSES[4] = WcStatus.LOC_PROT_ERR;
        STATUSES[5] = WcStatus.WR_FLUSH_ERR;
        STATUSES[8] = WcStatus.LOC_PROT_ERR;
        STATUSES[9] = WcStatus.REM_INV_REQ_ERR;
        STATUSES[10] = WcStatus.REM_ACCESS_ERR;
        STATUSES[11] = WcStatus.REM_OP_ERR;
        STATUSES[12] = WcStatus.RETRY_EXC_ERR;
        STATUSES[13] = WcStatus.RNR_RETRY_EXC_ERR;
        STATUSES[15] = WcStatus.REM_INV_REQ_ERR;
        STATUSES[16] = WcStatus.REM_OP_ERR;
        STATUSES[20] = WcStatus.RETRY_EXC_ERR;
    }

    private IbvWcDescriptor() {
    }

    /**
     * Maps a native status.
     *
     * @param nativeStatus an {@code enum ibv_wc_status} value
     * @return the API's status
     */
    static WcStatus status(int nativeStatus) {
        return nativeStatus >= 0 && nativeStatus < STATUSES.length ? STATUSES[nativeStatus] : WcStatus.GENERAL_ERR;
    }

    /**
     * The vendor detail a completion carries: the native status above the NIC's {@code vendor_err}.
     *
     * @param nativeStatus the {@code enum ibv_wc_status} value
     * @param vendorErr the {@code vendor_err} field
     * @return {@code nativeStatus << 24 | vendorErr & 0xFFFFFF}, 0 for a success
     */
    static int vendorDetail(int nativeStatus, int vendorErr) {
        return nativeStatus == 0 ? 0 : (nativeStatus & 0xFF) << 24 | vendorErr & 0xFFFFFF;
    }

    /**
     * The {@code enum ibv_wr_opcode} of a send-queue opcode.
     *
     * @param op the API's opcode (not RECV)
     * @return the native value
     */
    static int wrOpcode(Opcode op) {
        return switch (op) {
            case WRITE -> IbvSendWrDescriptor.IBV_WR_RDMA_WRITE;
            case READ -> IbvSendWrDescriptor.IBV_WR_RDMA_READ;
            case CAS -> IbvSendWrDescriptor.IBV_WR_ATOMIC_CMP_AND_SWP;
            case FETCH_ADD -> IbvSendWrDescriptor.IBV_WR_ATOMIC_FETCH_AND_ADD;
            case SEND -> IbvSendWrDescriptor.IBV_WR_SEND;
            case RECV -> throw new IllegalArgumentException("RECV is posted with ibv_post_recv");
        };
    }
}
