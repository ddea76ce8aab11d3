package dev.remora.verbs.ucx;

import dev.remora.verbs.Node;
import dev.remora.verbs.spi.OffHeapRegion;
import org.openucx.jucx.ucp.UcpMemory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered region of a local node of the UCX fabric: a direct buffer of this process (see
 * {@link OffHeapRegion}), mapped with {@code ucp_mem_map} ({@link UcpMemory}) so that peers reach it with the packed
 * UCX remote key it was given. Its {@link #rkey()} is the provider's own random key, which peers exchange; the
 * packed UCX key travels on the connection manager when a peer first names it.
 */
final class UcxRegion extends OffHeapRegion {
    private final UcxNode node;
    private final UcpMemory memory;
    /** The packed UCX remote key ({@code ucp_rkey_pack}), in native memory of the node for local unpacking. */
    private final MemorySegment packedKey;
    private final MemorySegment segment;

    UcxRegion(UcxNode node, ByteBuffer buffer, long address, int key, int access, UcpMemory memory,
              MemorySegment packedKey) {
        super(buffer, address, key, access);
        this.node = node;
        this.memory = memory;
        this.packedKey = packedKey;
        this.segment = MemorySegment.ofBuffer(buffer);
    }

    @Override
    public Node node() {
        return node;
    }

    UcpMemory memory() {
        return memory;
    }

    MemorySegment packedKey() {
        return packedKey;
    }

    /** @return the region's memory, for the data path's local buffers */
    MemorySegment segment() {
        return segment;
    }

    @Override
    protected void forget() {
        node.deregister(this);
    }
}
