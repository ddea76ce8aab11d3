package dev.remora.verbs.ucx;

import dev.remora.verbs.spi.RingCompletionQueue;

/**
 * A completion queue of the UCX fabric. Its queue pairs' completions are delivered by whoever progresses their node's
 * UCX worker: the fabric's progress thread, or a poller that finds the queue empty and progresses the worker itself
 * ({@link #progress()}), as a polling-driven NIC would, so that a thread spinning for its completion gets it without
 * a hand-off.
 */
final class UcxCompletionQueue extends RingCompletionQueue {
    /** Spin about one shared-memory round trip before blocking. */
    private static final long SPIN_NS = 50_000;

    private final UcxNode node;

    UcxCompletionQueue(UcxNode node, int depth) {
        super(depth, SPIN_NS);
        this.node = node;
    }

    UcxNode node() {
        return node;
    }

    @Override
    protected boolean progress() {
        return node.pollProgress();
    }

    @Override
    protected boolean fabricClosed() {
        return node.fabric().isClosed();
    }
}
