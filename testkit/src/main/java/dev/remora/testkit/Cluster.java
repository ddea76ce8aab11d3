package dev.remora.testkit;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A fabric with named nodes, and the endpoints opened on them, closed together: endpoints first (last opened first),
 * then the fabric.
 *
 * <p>Built by the named factories: {@link #fast} (the in-process software fabric, {@link SimFabric}, optionally with
 * the 2 µs round-trip preset, {@link #fastTwoMicroseconds}), {@link #deterministic} (the seeded {@link DetFabric},
 * weak model by default, with a fault plan) and {@link #socket} (the socket fabric with every node in this process),
 * or {@link #of} around a fabric opened elsewhere (a hosted fabric whose homes live in a child JVM, say).
 *
 * <pre>{@code
 * try (Cluster c = Cluster.fast("home", "client")) {
 *     RemoteAddress word = RemoteRegister.create(c.node("home"));
 *     RemoteRegister r = RemoteRegister.attach(c.endpoint("client"), word);
 * }
 * }</pre>
 *
 * <p>An endpoint is not thread-safe: {@link #endpoint(String)} opens a new one on each call, for one thread to use
 * (it may be opened on one thread and handed to another). Nodes and factories may be used from any thread. On the
 * deterministic fabric the verbs run in the threads {@link DetFabric#spawn} starts: open endpoints inside their
 * bodies with {@link Endpoint#open(Node)}, as the deterministic tests do, and {@link DetFabric#run()} them through
 * {@link #det()}.
 */
public final class Cluster implements AutoCloseable {
    /** Which fabric a cluster runs on. */
    public enum Kind {
        /** The in-process software fabric ({@link SimFabric}). */
        FAST,
        /** The seeded deterministic fabric ({@link DetFabric}): threads are spawned and run by the fabric. */
        DETERMINISTIC,
        /** The socket fabric ({@link SocketFabric}), every node in this process. */
        SOCKET,
        /** A fabric given to {@link #of}. */
        OTHER
    }

    private final Fabric fabric;
    private final Kind kind;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private boolean closed;

    private Cluster(Fabric fabric, Kind kind, String... names) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.kind = kind;
        try {
            for (String n : names) {
                add(n);
            }
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    /**
     * The fast software fabric with its default settings (no added latency, one NIC thread).
     *
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster fast(String... names) {
        return fast(new SimContext(), names);
    }

    /**
     * The fast software fabric.
     *
     * @param context its settings
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster fast(SimContext context, String... names) {
        return new Cluster(SimFabric.open(context), Kind.FAST, names);
    }

    /**
     * The fast software fabric with the 2 µs round-trip preset ({@link SimContext#twoMicrosecondRoundTrip()}) and two
     * NIC threads, so that transfers of different queue pairs overlap.
     *
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster fastTwoMicroseconds(String... names) {
        return fast(SimContext.twoMicrosecondRoundTrip().nicThreads(2), names);
    }

    /**
     * The deterministic fabric under the weak model ({@link DetKnobs#WEAK}), without faults.
     *
     * @param seed the schedule's seed
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster deterministic(long seed, String... names) {
        return deterministic(seed, DetKnobs.WEAK, FaultPlan.NONE, names);
    }

    /**
     * The deterministic fabric.
     *
     * @param seed the schedule's seed
     * @param knobs the memory model's knobs (tearing, completion, atomics), e.g. {@link DetKnobs#WEAK}
     * @param faults crashes, cut links and queue-pair errors at given steps ({@link FaultPlan#NONE} for none)
     * @param names the nodes to add, in this order (node ids 0, 1, ... as a fault plan names them)
     * @return the cluster
     */
    public static Cluster deterministic(long seed, DetKnobs knobs, FaultPlan faults, String... names) {
        return deterministic(new DetContext().seed(seed).knobs(knobs).faults(faults), names);
    }

    /**
     * The deterministic fabric with any settings (maximum steps, round-trip times, ...).
     *
     * @param context its settings
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster deterministic(DetContext context, String... names) {
        return new Cluster(DetFabric.open(context), Kind.DETERMINISTIC, names);
    }

    /**
     * The socket fabric with its default settings: every node listens on a loopback port of this process, and verbs
     * between nodes cross real TCP connections.
     *
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster socket(String... names) {
        return socket(new SocketContext(), names);
    }

    /**
     * The socket fabric.
     *
     * @param context its settings (timeouts, an added round-trip delay, ...)
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster socket(SocketContext context, String... names) {
        return new Cluster(SocketFabric.open(context), Kind.SOCKET, names);
    }

    /**
     * A cluster over a fabric opened elsewhere; closing the cluster closes it.
     *
     * @param fabric the fabric
     * @param names the nodes to add, in this order
     * @return the cluster
     */
    public static Cluster of(Fabric fabric, String... names) {
        Kind kind = fabric instanceof SimFabric ? Kind.FAST
            : fabric instanceof DetFabric ? Kind.DETERMINISTIC
            : fabric instanceof SocketFabric ? Kind.SOCKET : Kind.OTHER;
        return new Cluster(fabric, kind, names);
    }

    /** @return which fabric this is */
    public Kind kind() {
        return kind;
    }

    /** @return the fabric */
    public Fabric fabric() {
        return fabric;
    }

    /**
     * The deterministic fabric, to spawn threads on and run.
     *
     * @return the fabric
     * @throws IllegalStateException if this cluster is not deterministic
     */
    public DetFabric det() {
        if (fabric instanceof DetFabric d) {
            return d;
        }
        throw new IllegalStateException("not a deterministic cluster: " + fabric.providerName());
    }

    /**
     * Adds a node.
     *
     * @param name its name, unique in this cluster
     * @return the node
     */
    public synchronized Node add(String name) {
        if (nodes.containsKey(name)) {
            throw new IllegalArgumentException("a node named '" + name + "' already exists");
        }
        Node n = fabric.addNode(name);
        nodes.put(name, n);
        return n;
    }

    /**
     * A node by name.
     *
     * @param name a name given at construction or to {@link #add}
     * @return the node
     * @throws IllegalArgumentException if there is none
     */
    public synchronized Node node(String name) {
        Node n = nodes.get(name);
        if (n == null) {
            throw new IllegalArgumentException("no node named '" + name + "' (known: " + nodes.keySet() + ")");
        }
        return n;
    }

    /**
     * A node by its position among the added nodes.
     *
     * @param index 0 for the first node added
     * @return the node
     */
    public synchronized Node node(int index) {
        return new ArrayList<>(nodes.values()).get(index);
    }

    /** @return the nodes in the order they were added */
    public synchronized List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    /** @return how many nodes were added */
    public synchronized int size() {
        return nodes.size();
    }

    /**
     * Opens an endpoint on a node, closed with the cluster (or earlier by the caller; closing twice is harmless).
     *
     * @param name the node's name
     * @return a new endpoint for one thread
     */
    public Endpoint endpoint(String name) {
        return endpoint(node(name));
    }

    /**
     * Opens an endpoint on a node, closed with the cluster.
     *
     * @param node one of this cluster's nodes
     * @return a new endpoint for one thread
     */
    public Endpoint endpoint(Node node) {
        return endpoint(node, new Endpoint.Context());
    }

    /**
     * Opens an endpoint with given settings (an operation timeout, say), closed with the cluster.
     *
     * @param node one of this cluster's nodes
     * @param context the endpoint's settings
     * @return a new endpoint for one thread
     */
    public Endpoint endpoint(Node node, Endpoint.Context context) {
        Endpoint ep = Endpoint.open(node, context);
        synchronized (this) {
            if (closed) {
                ep.close();
                throw new IllegalStateException("cluster closed");
            }
            endpoints.add(ep);
        }
        return ep;
    }

    /**
     * Crashes a node: its memory stops answering and its peers' requests fail (RETRY_EXC_ERR).
     *
     * @param node the node
     * @throws UnsupportedOperationException on a fabric given to {@link #of} that is none of the three
     */
    public void crash(Node node) {
        if (fabric instanceof SimFabric s) {
            s.crash(node);
        } else if (fabric instanceof SocketFabric s) {
            s.crash(node);
        } else if (fabric instanceof DetFabric d) {
            d.crash(node, false);
        } else {
            throw new UnsupportedOperationException("crash on " + fabric.providerName());
        }
    }

    /**
     * The clock histories and deadlines should use: the deterministic fabric's virtual time, otherwise
     * {@link System#nanoTime()}.
     *
     * @return nanoseconds
     */
    public long nanoTime() {
        return fabric instanceof DetFabric d ? d.nanoTime() : System.nanoTime();
    }

    /** Closes the endpoints still open (last opened first), then the fabric. */
    @Override
    public void close() {
        List<Endpoint> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(endpoints);
            endpoints.clear();
        }
        RuntimeException first = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        fabric.close();
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "Cluster[" + kind + " " + nodes.keySet() + "]";
    }
}
