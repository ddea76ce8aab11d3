package dev.remora.verbs.sim;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.spi.Directory;
import dev.remora.verbs.spi.NodeTable;
import dev.remora.verbs.VerbsStatistics;

import java.util.List;
import java.util.Objects;

/**
 * The software fabric, fast mode: every node lives in this JVM, memory is off-heap, and remote atomics are
 * {@link java.lang.invoke.VarHandle} atomics on that memory.
 *
 * <h2>How requests execute</h2>
 * With no injected latency a request executes on the posting thread, inside {@code post}, and its completion is
 * queued before {@code post} returns. With a round-trip latency (e.g. {@link SimContext#twoMicrosecondRoundTrip()}),
 * NIC threads perform each request's remote effect half a round trip after posting and deliver its completion a
 * full round trip after posting, in posting order per queue pair. Either way every execution is one the memory
 * model allows: requests of one queue pair take effect in posting order (stronger than R8 requires) at a single
 * instant between posting and completion, and remote atomics are atomic against everything (stronger than R14
 * requires, like {@code IBV_ATOMIC_GLOB}). Code that is correct here may still be wrong on hardware: the
 * deterministic mode explores the weak behaviours.
 *
 * <h2>Faults</h2>
 * {@link #crash(Node)} makes a node unreachable: requests addressed to it complete with {@code RETRY_EXC_ERR} after
 * {@link SimContext#retryTimeoutNs()}, and its own threads can no longer post. Nothing waits forever. An unexpected
 * exception while a request executes (a fabric bug) completes that request with {@code GENERAL_ERR} and moves its
 * queue pair to ERROR; it never escapes into the posting or polling thread, nor stops a NIC thread.
 */
public final class SimFabric implements Fabric {
    private final SimContext context;
    private final Directory directory = new Directory();
    private final NodeTable<SimNode> nodes = new NodeTable<>(SimNode.MAX_NODES);
    private final SimNic nic;
    private final long startNs = System.nanoTime();
    private volatile boolean closed;

    private SimFabric(SimContext context) {
        this.context = context.conclude();
        this.nic = new SimNic(this, context.nicThreads(), context.spinBeforeParkNs());
    }

    /**
     * Opens a fabric with default settings (no injected latency).
     *
     * @return the fabric
     */
    public static SimFabric open() {
        return new SimFabric(new SimContext());
    }

    /**
     * Opens a fabric.
     *
     * @param context settings, validated here
     * @return the fabric
     */
    public static SimFabric open(SimContext context) {
        return new SimFabric(Objects.requireNonNull(context, "context"));
    }

    /** @return the settings */
    public SimContext context() {
        return context;
    }

    @Override
    public String providerName() {
        return SimFabricProvider.NAME;
    }

    @Override
    public Node addNode(String name) {
        ensureOpen();
        return nodes.add(name, id -> new SimNode(this, id, name));
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        return nodes.connect(providerName(), address);
    }

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        directory.publish(name, address, id -> id >= 0 && id < nodes.size());
    }

    @Override
    public void unpublish(String name) {
        directory.unpublish(name);
    }

    @Override
    public RemoteAddress lookup(String name) {
        return directory.lookup(name, providerName() + " fabric");
    }

    @Override
    public Node node(int id) {
        return nodes.get(id);
    }

    @Override
    public List<Node> nodes() {
        return nodes.snapshot();
    }

    /**
     * Crashes a node (see the class comment). Irreversible.
     *
     * @param node a node of this fabric
     */
    public void crash(Node node) {
        Objects.requireNonNull(node, "node");
        if (node.fabric() != this) {
            throw new IllegalArgumentException("node " + node.name() + " belongs to another fabric");
        }
        ((SimNode) node).crash();
    }

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (SimNode n : nodes.all()) {
            s = s.plus(n.statistics());
        }
        return s;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("fabric is closed");
        }
    }

    /** @return nanoseconds since the fabric opened; never negative */
    long now() {
        return System.nanoTime() - startNs;
    }

    SimNic nic() {
        return nic;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            nic.stop();
        }
    }

    @Override
    public String toString() {
        return "SimFabric{nodes=" + nodes.size() + ", " + context + '}';
    }
}
