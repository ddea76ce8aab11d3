package dev.remora.verbs;

/**
 * A reliable-connected queue pair: the Java mirror of {@code struct ibv_qp} with {@code ibv_post_send} and
 * {@code ibv_post_recv}. It is the ordered channel from this node to one peer node (docs/memory-model.md §1).
 *
 * <h2>What the ordering of one queue pair guarantees</h2>
 * <ul>
 *   <li>R6: remote writes (WRITE, atomic write phases) land at the target in posting order.</li>
 *   <li>R7: a READ or atomic executes after every earlier WRITE on this queue pair has been placed.</li>
 *   <li>R8: a later WRITE may pass an earlier READ unless it carries {@link WorkRequest#FENCE} (R13).</li>
 *   <li>R11: completions arrive in posting order; a completion for request k implies every earlier request on this
 *       queue pair is done. A completed WRITE only means the target acknowledged it; a later completed READ or
 *       atomic on the same queue pair means it is visible to the target's CPUs.</li>
 *   <li>R10: nothing is ordered across queue pairs except by waiting for completions.</li>
 * </ul>
 *
 * <p>Posting is thread-safe and the order of posts is the order of the queue. A failed request moves the queue pair
 * to {@link QpState#ERROR}; every outstanding and later request then completes with {@link WcStatus#WR_FLUSH_ERR}
 * (R17). Posting never blocks.
 */
public interface QueuePair extends AutoCloseable {

    /** Result of a post: every request was accepted. */
    int POSTED = 0;
    /**
     * Result of a post: the send queue or the completion queue has no room for the whole list; nothing was posted.
     * Poll completions, then post again.
     */
    int QUEUE_FULL = -1;

    /** @return this queue pair's number, unique on its node ({@code qp_num}) */
    int qpNumber();

    /** @return the node that owns this queue pair */
    Node node();

    /** @return the id of the connected peer node, or -1 while in {@link QpState#RESET} */
    int remoteNodeId();

    /** @return the current state */
    QpState state();

    /** @return the completion queue of the send queue */
    CompletionQueue sendCompletionQueue();

    /**
     * Posts one request: one doorbell.
     *
     * @param wr the request; copied, so it may be reused when this returns
     * @return {@link #POSTED} or {@link #QUEUE_FULL}
     * @throws IllegalArgumentException for a malformed request (no opcode, RECV on the send queue, bad INLINE)
     * @throws IllegalStateException if the queue pair is not connected or is closed, or the fabric is closed
     */
    int post(WorkRequest wr);

    /**
     * Posts a list of requests with one doorbell ({@code wr->next} chaining). Either all are posted or none.
     *
     * @param wrs the requests
     * @param count how many of {@code wrs}, from index 0
     * @return {@link #POSTED} or {@link #QUEUE_FULL}
     */
    int post(WorkRequest[] wrs, int count);

    /**
     * Posts a receive buffer ({@code ibv_post_recv}); it completes on the receive completion queue when a SEND
     * from the peer consumes it.
     *
     * @param wr a request set with {@link WorkRequest#recv}
     * @return {@link #POSTED} or {@link #QUEUE_FULL}
     */
    int postRecv(WorkRequest wr);

    /**
     * A snapshot of this queue pair's counters.
     *
     * @return operations, bytes, doorbells and round trips so far
     */
    VerbsStatistics statistics();

    /** Destroys the queue pair; outstanding requests are flushed. Idempotent. */
    @Override
    void close();
}
