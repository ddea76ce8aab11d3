package dev.remora.verbs;

/**
 * A completion queue: the Java mirror of {@code struct ibv_cq} with {@code ibv_poll_cq} and a blocking wait.
 *
 * <p>Completions of one send queue arrive in posting order (R11). A completion queue never overruns: every posted
 * request reserves a slot, and posting on a queue pair whose completion queue has no free slot for the whole list
 * returns {@link QueuePair#QUEUE_FULL} instead of posting (real hardware would raise {@code IBV_EVENT_CQ_ERR}).
 *
 * <p>Thread-safe: several queue pairs may complete into one queue and several threads may poll it, but a
 * completion is handed to exactly one poller. To let independent libraries share a queue, use the wait layer
 * ({@link CompletionDispatcher}) instead of polling it directly (R12, litmus L19).
 */
public interface CompletionQueue extends AutoCloseable {

    /** @return the number of completions the queue can hold */
    int depth();

    /**
     * Moves up to {@code out.length} completions into the caller's array without blocking.
     *
     * @param out caller-owned completion slots, filled from index 0
     * @return the number of completions moved, 0 if none
     */
    default int poll(Completion[] out) {
        return poll(out, out.length);
    }

    /**
     * Moves up to {@code max} completions into {@code out} without blocking.
     *
     * @param out caller-owned completion slots, filled from index 0
     * @param max the most to move, {@code <= out.length}
     * @return the number moved
     */
    int poll(Completion[] out, int max);

    /**
     * Waits until at least one completion is available or {@code timeoutNs} passes, then polls. Short waits spin;
     * longer waits park the thread, so a waiting caller does not burn its core.
     *
     * @param out caller-owned slots
     * @param timeoutNs the most to wait, in nanoseconds
     * @return the number moved; 0 on timeout
     */
    int await(Completion[] out, long timeoutNs);

    /**
     * The clock of this queue's fabric, for timeouts of waits on it: {@link System#nanoTime()} on real fabrics, virtual
     * time on the deterministic fabric (so that a waiting thread's decisions do not depend on real time).
     *
     * @return nanoseconds from an arbitrary origin
     */
    default long nanoTime() {
        return System.nanoTime();
    }

    /** Destroys the queue. Idempotent. */
    @Override
    void close();
}
