package dev.remora.verbs.det;

import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.det.machine.DetMachine;
import dev.remora.verbs.det.machine.DetProgram;

import java.util.ArrayDeque;

/**
 * A completion queue of the deterministic fabric. Polling is a step of the polling thread, enabled only when a
 * completion is there; when nothing at all can happen, a poll returns empty and a timed wait times out (virtual time
 * jumps to its deadline), so threads never hang.
 */
final class DetCompletionQueue implements CompletionQueue {
    private final DetFabric fabric;
    private final int depth;
    private final ArrayDeque<Completion> entries = new ArrayDeque<>();
    private int reserved;

    DetCompletionQueue(DetFabric fabric, int depth) {
        this.fabric = fabric;
        this.depth = depth;
    }

    /** The poll step; its deadline orders time-outs when nothing else can happen. */
    record PollOp(DetCompletionQueue cq, Completion[] out, int max, long deadline) implements DetProgram.External {
        @Override
        public boolean enabled(DetMachine machine) {
            return !cq.entries.isEmpty();
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
        return (int) fabric.step(new PollOp(this, out, max, fabric.nanoTime()));
    }

    @Override
    public int await(Completion[] out, long timeoutNs) {
        long now = fabric.nanoTime();
        long deadline = timeoutNs > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + timeoutNs;
        return (int) fabric.step(new PollOp(this, out, out.length, deadline));
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
