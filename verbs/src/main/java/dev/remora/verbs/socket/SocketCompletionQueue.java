package dev.remora.verbs.socket;

import dev.remora.verbs.spi.RingCompletionQueue;

/**
 * A completion queue of the socket fabric. The service thread delivers into it; a poller that finds it empty also
 * reads the sockets of the queue pairs completing here itself, as a polling-driven NIC would, so that a thread
 * spinning for its completion gets it without a hand-off from the service thread.
 */
final class SocketCompletionQueue extends RingCompletionQueue {
    /** Spin about one loopback round trip before blocking. */
    private static final long SPIN_NS = 60_000;

    private final SocketFabric fabric;
    private volatile SocketQueuePair[] producers = new SocketQueuePair[0];

    SocketCompletionQueue(SocketFabric fabric, int depth) {
        super(depth, SPIN_NS);
        this.fabric = fabric;
    }

    synchronized void addProducer(SocketQueuePair qp) {
        SocketQueuePair[] now = java.util.Arrays.copyOf(producers, producers.length + 1);
        now[now.length - 1] = qp;
        producers = now;
    }

    synchronized void removeProducer(SocketQueuePair qp) {
        SocketQueuePair[] now = producers;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == qp) {
                SocketQueuePair[] shorter = new SocketQueuePair[now.length - 1];
                System.arraycopy(now, 0, shorter, 0, i);
                System.arraycopy(now, i + 1, shorter, i, now.length - i - 1);
                producers = shorter;
                return;
            }
        }
    }

    @Override
    protected boolean progress() {
        boolean any = false;
        for (SocketQueuePair qp : producers) {
            Connection c = qp.connection();
            if (c != null && qp.awaitsResponses()) {
                any |= c.pollResponses();
            }
        }
        return any;
    }

    @Override
    protected boolean fabricClosed() {
        return fabric.isClosed();
    }
}
