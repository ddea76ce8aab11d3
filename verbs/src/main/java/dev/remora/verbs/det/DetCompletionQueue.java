package dev.remora.verbs.det;

import dev.remora.verbs.spi.WakeableCompletionQueue;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.det.machine.DetMachine;
import dev.remora.verbs.det.machine.DetProgram;

import java.util.ArrayDeque;

/**
 * A completion queue of the deterministic fabric. Polling is a step of the polling thread, enabled when a completion
 * is there or once the poll's wake-up time has come on the virtual clock: the deadline of a timed wait, or
 * {@link DetContext#emptyPollNs()} after a non-blocking poll (which stands for a thread spinning on the queue). So a
 * wait times out when the clock passes its deadline, as a step the scheduler chooses among the others, even while its
 * request is in flight; the request may still take effect, and its completion is delivered here like any other, for a
 * later poll.
 */
final class DetCompletionQueue implements WakeableCompletionQueue {
    private final DetFabric fabric;
    private final int depth;
    private final ArrayDeque<Completion> entries = new ArrayDeque<>();
    private int reserved;

    DetCompletionQueue(DetFabric fabric, int depth) {
        this.fabric = fabric;
        this.depth = depth;
    }

    /**
     * The poll step: it takes what is there, which is nothing when it times out.
     *
     * @param wakeAt the virtual time from which it may return empty (Long.MAX_VALUE: never)
     */
    record PollOp(DetCompletionQueue cq, Completion[] out, int max, long wakeAt) implements DetProgram.External {
        @Override
        public boolean enabled(DetMachine machine) {
            return !cq.entries.isEmpty() || cq.fabric.nanoTime() >= wakeAt;
        }

        @Override
        public long apply(DetMachine machine) {
            int n = 0;
            while (n < max && !cq.entries.isEmpty()) {
                out[n++].copyFrom(cq.entries.pollFirst());
            }
            cq.reserved -= n;
            return n;
        }

        @Override
        public String toString() {
            return "poll(max=" + max + ")";
        }
    }

    @Override
    public int depth() {
        return depth;
    }

    boolean reserve(int n) {
        if (reserved + n > depth) {
            return false;
        }
        reserved += n;
        return true;
    }

    void release(int n) {
        reserved -= n;
    }

    void deliver(Completion c) {
        entries.addLast(c);
    }

    @Override
    public int poll(Completion[] out, int max) {
        if (max > out.length) {
            throw new IllegalArgumentException("max " + max + " exceeds the array's " + out.length + " slots");
        }
        return (int) fabric.step(new PollOp(this, out, max, after(fabric.context().emptyPollNs())));
    }

    @Override
    public int await(Completion[] out, long timeoutNs) {
        // A zero or negative timeout does not wait: a non-blocking poll.
        long wait = timeoutNs <= 0 ? fabric.context().emptyPollNs() : timeoutNs;
        return (int) fabric.step(new PollOp(this, out, out.length, after(wait)));
    }

    /** @return the virtual time {@code nanos} from now, saturating */
    private long after(long nanos) {
        long now = fabric.nanoTime();
        return nanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + nanos;
    }

    @Override
    public void wakeWaiters() {
        // one thread runs at a time: nobody is blocked outside the scheduler
    }

    @Override
    public long nanoTime() {
        return fabric.nanoTime();
    }

    @Override
    public void close() {
        entries.clear();
    }
}
