package dev.remora.verbs.spi;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;

import java.nio.ByteBuffer;

/**
 * A handle of a node of another process, reached by {@link Fabric#connect(String)}: the target of this process's
 * one-sided verbs, and nothing else. Its memory, queue pairs and completion queues belong to its own process, so
 * {@link #allocate}, {@link #register}, {@link #createCompletionQueue}, {@link #createQueuePair}, both
 * {@code connect}s and {@link #fullFence} throw {@link UnsupportedOperationException} naming the node; it is not
 * {@linkplain #isLocal() local} and never reports a crash (a dead peer shows as its requests' {@code RETRY_EXC_ERR}).
 * A provider adds what it needs to reach the node (a connection, an address, an incarnation).
 *
 * @param <F> the provider's fabric type
 */
public abstract class AbstractPeerNode<F extends Fabric> extends AbstractNode<F> {

    /**
     * @param fabric the fabric that reached the node
     * @param id its fabric-wide id
     * @param name its name
     * @param address its address
     */
    protected AbstractPeerNode(F fabric, int id, String name, String address) {
        super(fabric, id, name, address);
    }

    @Override
    public final boolean isLocal() {
        return false;
    }

    private UnsupportedOperationException elsewhere(String what) {
        return new UnsupportedOperationException(what + " on node " + name() + " at " + address() + ": it is a peer "
            + "of another process, whose memory and queues belong to that process (do it there)");
    }

    @Override
    public final MemoryRegion allocate(long lengthBytes, int access) {
        throw elsewhere("allocate");
    }

    @Override
    public final MemoryRegion register(ByteBuffer directBuffer, int access) {
        throw elsewhere("register");
    }

    @Override
    public final CompletionQueue createCompletionQueue(int depth) {
        throw elsewhere("createCompletionQueue");
    }

    @Override
    public final QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        throw elsewhere("createQueuePair");
    }

    @Override
    public final void connect(QueuePair local, QueuePair remote) {
        throw elsewhere("connect");
    }

    @Override
    public final QueuePair connect(Node target, CompletionQueue cq) {
        throw elsewhere("connect");
    }

    @Override
    public final void fullFence() {
        throw elsewhere("fullFence");
    }

    @Override
    public final boolean isCrashed() {
        return false;
    }

    /** @return what the provider adds to {@link #toString()} after the address, e.g. {@code ", cm 10.0.0.2:4791"} */
    protected String details() {
        return "";
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + name() + " id=" + id() + " at " + address() + details() + '}';
    }
}
