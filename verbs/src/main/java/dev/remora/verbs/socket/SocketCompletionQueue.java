package dev.remora.verbs.socket;

import dev.remora.verbs.spi.RingCompletionQueue;

/** A completion queue of the socket fabric: the service thread and posting threads deliver into it. */
final class SocketCompletionQueue extends RingCompletionQueue {
    private final SocketFabric fabric;

    SocketCompletionQueue(SocketFabric fabric, int depth) {
        super(depth);
        this.fabric = fabric;
    }

    @Override
    protected boolean fabricClosed() {
        return fabric.isClosed();
    }
}
