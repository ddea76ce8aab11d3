package dev.remora.verbs.sim;

import dev.remora.verbs.Node;
import dev.remora.verbs.spi.OffHeapRegion;

import java.nio.ByteBuffer;

/** A registered region of the software fabric: off-heap memory (see {@link OffHeapRegion}) of a {@link SimNode}. */
final class SimRegion extends OffHeapRegion {
    private final SimNode node;

    SimRegion(SimNode node, ByteBuffer buffer, long address, int key, int access) {
        super(buffer, address, key, access);
        this.node = node;
    }

    @Override
    public Node node() {
        return node;
    }

    @Override
    protected void forget() {
        node.forget(this);
    }
}
