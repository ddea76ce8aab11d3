package dev.remora.verbs.spi;

import dev.remora.verbs.Access;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A node of this process, for providers: the checks every provider makes before it registers memory or creates a
 * completion queue, the CPU's full fence, and the crash flag.
 *
 * <ul>
 *   <li>{@link #allocate} allocates zeroed direct memory ({@link OffHeapRegion#allocateBuffer}), {@link #register}
 *       checks the caller's buffer ({@link OffHeapRegion#registrable}); both then validate the access flags, check
 *       that the fabric is open and hand the buffer to {@link #registerBuffer}.</li>
 *   <li>{@link #createCompletionQueue} checks the depth and that the fabric is open, then calls
 *       {@link #newCompletionQueue}.</li>
 *   <li>{@link #fullFence} is {@link VarHandle#fullFence()}: this process's memory is the node's.</li>
 *   <li>{@link #markCrashed()} makes the node {@linkplain #isCrashed() crashed} for good; {@link #ensureAlive()}
 *       refuses what a crashed node's threads would do.</li>
 * </ul>
 *
 * @param <F> the provider's fabric type
 */
public abstract class AbstractLocalNode<F extends Fabric> extends AbstractNode<F> {
    private volatile boolean crashed;

    /**
     * @param fabric the fabric the node belongs to
     * @param id its fabric-wide id
     * @param name its name
     * @param address where peers reach it
     */
    protected AbstractLocalNode(F fabric, int id, String name, String address) {
        super(fabric, id, name, address);
    }

    @Override
    public final MemoryRegion allocate(long lengthBytes, int access) {
        return registerChecked(OffHeapRegion.allocateBuffer(lengthBytes), access);
    }

    @Override
    public final MemoryRegion register(ByteBuffer directBuffer, int access) {
        return registerChecked(OffHeapRegion.registrable(directBuffer), access);
    }

    private MemoryRegion registerChecked(ByteBuffer buffer, int access) {
        Access.validate(access);
        ensureFabricOpen();
        return registerBuffer(buffer, access);
    }

    /**
     * Registers memory, once the access flags are valid and the fabric is open.
     *
     * @param buffer direct memory starting at an 8-byte-aligned address, its capacity the region's length
     * @param access valid {@link Access} flags
     * @return the region
     */
    protected abstract MemoryRegion registerBuffer(ByteBuffer buffer, int access);

    @Override
    public final CompletionQueue createCompletionQueue(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("completion queue depth must be positive: " + depth);
        }
        ensureFabricOpen();
        return newCompletionQueue(depth);
    }

    /**
     * Creates a completion queue, once the depth is positive and the fabric is open.
     *
     * @param depth its entries
     * @return the queue
     */
    protected abstract CompletionQueue newCompletionQueue(int depth);

    /**
     * @throws IllegalStateException if the fabric is closed
     */
    protected final void ensureFabricOpen() {
        if (fabric().isClosed()) {
            throw new IllegalStateException("fabric is closed");
        }
    }

    @Override
    public final void fullFence() {
        VarHandle.fullFence();
    }

    @Override
    public final boolean isCrashed() {
        return crashed;
    }

    /** Marks the node crashed, irreversibly; the provider stops its answers and its threads' posting. */
    protected final void markCrashed() {
        crashed = true;
    }

    /**
     * Refuses what a crashed node's threads would do (post, register, connect).
     *
     * @throws IllegalStateException if the node has crashed
     */
    public final void ensureAlive() {
        if (crashed) {
            throw new IllegalStateException("node " + name() + " has crashed");
        }
    }
}
