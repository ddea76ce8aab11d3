package dev.remora.verbs.disni;

import java.io.IOException;

/**
 * The native calls of the hot path and the layout queries, as libdisni exports them ({@code NativeDispatcher}); an
 * interface so that the marshalling is testable without the library.
 */
interface VerbsNatives {
    /**
     * {@code ibv_post_send(qp, wr_list, &bad_wr)}.
     *
     * @param qp {@code struct ibv_qp *}
     * @param wrList address of the first {@code struct ibv_send_wr}
     * @throws IOException with the {@code errno} text if it fails
     */
    void postSend(long qp, long wrList) throws IOException;

    /**
     * {@code ibv_post_recv(qp, wr_list, &bad_wr)}.
     *
     * @param qp {@code struct ibv_qp *}
     * @param wrList address of the first {@code struct ibv_recv_wr}
     * @throws IOException with the {@code errno} text if it fails
     */
    void postRecv(long qp, long wrList) throws IOException;

    /**
     * {@code ibv_poll_cq(cq, n, wc_list)}.
     *
     * @param cq {@code struct ibv_cq *}
     * @param n the most entries
     * @param wcList address of {@code n} {@code struct ibv_wc}
     * @return entries written, or negative on error
     * @throws IOException if the queue is gone
     */
    int pollCq(long cq, int n, long wcList) throws IOException;

    /**
     * What libdisni was compiled against: sizes and offsets of the structs this provider writes and reads.
     *
     * @return the layout
     */
    NativeLayout layout();
}
