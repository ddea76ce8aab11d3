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
    /** Queue pairs whose send queue completes here. */
    private final java.util.concurrent.CopyOnWriteArrayList<SocketQueuePair> producers =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    SocketCompletionQueue(SocketFabric fabric, int depth) {
        super(depth, SPIN_NS);
        this.fabric = fabric;
    }

    void addProducer(SocketQueuePair qp) {
        producers.add(qp);
    }

    void removeProducer(SocketQueuePair qp) {
        producers.remove(qp);
    }

    @Override
    protected boolean progress() {
        boolean any = false;
        for (int i = 0; i < producers.size(); i++) { // indexed: no iterator on the polling path
            SocketQueuePair qp;
            try {
                qp = producers.get(i);
            } catch (IndexOutOfBoundsException e) {
                break; // removed meanwhile
            }
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
