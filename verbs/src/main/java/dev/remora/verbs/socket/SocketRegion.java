package dev.remora.verbs.socket;

import dev.remora.verbs.Node;
import dev.remora.verbs.spi.OffHeapRegion;

import java.nio.ByteBuffer;

/**
 * A registered region of a local node of the socket fabric: off-heap memory of this process (see
 * {@link OffHeapRegion}), which the node's service thread reads and writes for its peers' one-sided verbs.
 */
final class SocketRegion extends OffHeapRegion {
    private final SocketNode node;

    SocketRegion(SocketNode node, ByteBuffer buffer, long address, int key, int access) {
        super(buffer, address, key, access);
        this.node = node;
    }

    @Override
    public Node node() {
        return node;
    }

    @Override
    protected void forget() {
        node.regions().remove(this);
    }
}
