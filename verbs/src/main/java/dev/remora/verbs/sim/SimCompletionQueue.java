package dev.remora.verbs.sim;

import dev.remora.verbs.spi.RingCompletionQueue;

/**
 * A completion queue of the software fabric: a {@link RingCompletionQueue} whose poller, finding it empty, progresses
 * the queue pairs completing into it when their next request is due, as a polling-driven NIC would, so a spinning
 * waiter never depends on a NIC thread getting a core.
 */
final class SimCompletionQueue extends RingCompletionQueue {
    private final SimFabric fabric;
    /** Queue pairs whose send queue completes here. */
    private volatile SimQueuePair[] producers = new SimQueuePair[0];

    SimCompletionQueue(SimFabric fabric, int depth) {
        super(depth);
        this.fabric = fabric;
    }

    synchronized void addProducer(SimQueuePair qp) {
        SimQueuePair[] now = java.util.Arrays.copyOf(producers, producers.length + 1);
        now[now.length - 1] = qp;
        producers = now;
    }

    synchronized void removeProducer(SimQueuePair qp) {
        SimQueuePair[] now = producers;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == qp) {
                SimQueuePair[] shorter = new SimQueuePair[now.length - 1];
                System.arraycopy(now, 0, shorter, 0, i);
                System.arraycopy(now, i + 1, shorter, i, now.length - i - 1);
                producers = shorter;
                return;
            }
        }
    }

    @Override
    protected boolean progress() {
        if (fabric.context().roundTripLatencyNs() == 0) {
            return false;
        }
        SimQueuePair[] qps = producers;
        if (qps.length == 0) {
            return false;
        }
        long now = fabric.now();
        for (SimQueuePair qp : qps) {
            qp.progressIfDue(now);
        }
        return true;
    }

    @Override
    protected boolean fabricClosed() {
        return fabric.isClosed();
    }
}
