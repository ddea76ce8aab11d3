package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.Directory;
import dev.remora.verbs.spi.ProcessNodes;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The socket fabric: nodes in different processes and on different hosts, joined by TCP, in pure Java NIO.
 *
 * <h2>How requests execute</h2>
 * Each queue pair is one TCP connection. Posting encodes the requests into the connection's output and writes it to
 * the socket at once (a list is one write: one doorbell). At the target, the process's service thread
 * ({@link ServiceLoop}, one per fabric, serving every connection) executes each request on the registered off-heap
 * region at one moment, in arrival order, and answers; remote atomics are {@link java.lang.invoke.VarHandle} atomics,
 * atomic among themselves and against the target's CPU. That is stronger than the verbs contract requires (like
 * the fast software fabric): requests of a queue pair take effect in posting order, a READ or WRITE longer than 64 KiB
 * moves in 64 KiB chunks (each word whole, the transfer not atomic: R18).
 *
 * <h2>Connection management</h2>
 * {@link #addNode} binds a listener at {@code host:port} ({@link SocketContext}); {@link #connect(String)} reaches a
 * peer's listener, runs the handshake (node ids, names, incarnations; with a cluster secret, an HMAC challenge and
 * response both ways), and returns its handle. A node's id is made from its listening address: the low 15 bits of
 * its IPv4 address and its port, so that nodes on one host or one /17 subnet never clash; a clash is refused at
 * connect. A restarted process is a new <em>incarnation</em>: its regions have fresh random keys, so a peer's old
 * keys are refused with {@code REM_ACCESS_ERR}.
 *
 * <h2>Faults</h2>
 * A peer that closes or resets the connection (a killed process) fails the oldest outstanding request with
 * {@code RETRY_EXC_ERR} at once and flushes the rest; a peer that stops answering (a partition, a hung host) fails it
 * after {@link SocketContext#retryTimeoutNs()}. Connecting to an unreachable peer gives a queue pair whose first
 * request fails {@code RETRY_EXC_ERR}. Nothing waits forever. A malformed frame closes its connection with a logged
 * reason and changes no memory; the other connections go on.
 */
public final class SocketFabric implements Fabric {
    private final SocketContext context;
    private final Handshake handshake;
    private final ServiceLoop loop;
    private final Directory directory = new Directory();
    private final ProcessNodes<SocketNode, PeerNode> nodes = new ProcessNodes<>(SocketFabricProvider.NAME);
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<SocketQueuePair> broken = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.LongAdder socketWrites = new java.util.concurrent.atomic.LongAdder();

    private SocketFabric(SocketContext context) {
        this.context = context.conclude();
        this.handshake = new Handshake(context.secretBytes());
        this.loop = new ServiceLoop(this);
        loop.start();
    }

    /**
     * Opens a fabric with default settings (loopback, ephemeral ports).
     *
     * @return the fabric
     */
    public static SocketFabric open() {
        return new SocketFabric(new SocketContext());
    }

    /**
     * Opens a fabric.
     *
     * @param context settings, validated here
     * @return the fabric
     */
    public static SocketFabric open(SocketContext context) {
        return new SocketFabric(Objects.requireNonNull(context, "context"));
    }

    /** @return the settings */
    public SocketContext context() {
        return context;
    }

    Handshake handshake() {
        return handshake;
    }

    ServiceLoop loop() {
        return loop;
    }

    Directory directory() {
        return directory;
    }

    @Override
    public String providerName() {
        return SocketFabricProvider.NAME;
    }

    @Override
    public synchronized Node addNode(String name) {
        ensureOpen();
        SocketNode node = nodes.addLocal(name, context, at -> {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(at, 256);
            server.configureBlocking(false);
            return server;
        }, server -> server.socket().getLocalPort(), (id, address, server) -> new SocketNode(this, id, name, address,
            server));
        loop.listen(node.listener(), node);
        return node;
    }

    /**
     * @param address a node's address, {@code host:port}
     * @return it resolved
     * @throws IllegalArgumentException if it is malformed or its host unknown
     */
    InetSocketAddress parse(String address) {
        return nodes.parse(address);
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        String canonical = nodes.canonical(address);
        SocketNode local = nodes.localAt(canonical);
        if (local != null) {
            return local;
        }
        synchronized (this) {
            PeerNode known = nodes.peerAt(canonical, p -> true);
            if (known != null) {
                return known;
            }
            SocketNode self = nodes.anyLocal("connect to " + canonical);
            Connection c;
            Connection.Welcome w;
            try {
                c = dial(self, canonical, Wire.PURPOSE_CONTROL, -1, null);
                w = awaitWelcome(c, canonical);
            } catch (IOException e) {
                throw new IllegalStateException("cannot connect to " + canonical + ": " + e.getMessage(), e);
            }
            Node clash = nodes.get(w.peerNodeId());
            if (clash != null) {
                c.close("node id clash");
                throw new IllegalStateException("node " + w.peerName() + " at " + canonical + " has id "
                    + w.peerNodeId() + ", which " + clash.name() + " at " + clash.address() + " has already");
            }
            return nodes.addPeer(new PeerNode(this, w.peerNodeId(), w.peerName(), canonical, w.incarnation(), c));
        }
    }

    /** Opens a connection and registers it with the service thread; the handshake runs there. */
    private Connection dial(SocketNode from, String address, byte purpose, int bindQpn, SocketQueuePair qp)
        throws IOException {
        InetSocketAddress target = nodes.parse(address);
        SocketChannel ch = SocketChannel.open();
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        Connection c = Connection.dialing(this, ch, from, purpose, bindQpn, address);
        if (qp != null) {
            c.bindQueuePair(qp);
        }
        remember(c);
        boolean done;
        try {
            done = ch.connect(target);
        } catch (IOException e) {
            c.close("cannot connect to " + address + ": " + e.getMessage());
            throw e;
        }
        if (done) {
            c.onConnectable();
        }
        loop.register(c, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
        return c;
    }

    private Connection.Welcome awaitWelcome(Connection c, String address) throws IOException {
        try {
            return c.welcome.get(context.connectTimeoutNs(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            c.close("no handshake from " + address + " within " + context.connectTimeoutNs() / 1_000_000 + " ms");
            throw new IOException("no answer from " + address + " within " + context.connectTimeoutNs() / 1_000_000
                + " ms");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close("interrupted");
            throw new IOException("interrupted while connecting to " + address);
        }
    }

    /**
     * The node of this fabric a handle stands for ({@link ProcessNodes#resolve}).
     *
     * @param node a node handle
     * @return this fabric's node
     * @throws IllegalArgumentException if this fabric does not know it
     */
    Node resolve(Node node) {
        return nodes.resolve(node, this);
    }

    /** Connects a local queue pair to a node (a passive queue pair there, or the given one of a local node). */
    void connectQueuePair(SocketNode from, SocketQueuePair qp, Node target, int bindQpn) {
        String address = target.address();
        Connection c = null;
        String failure;
        try {
            c = dial(from, address, Wire.PURPOSE_QP, bindQpn, qp);
            Connection.Welcome w = awaitWelcome(c, address);
            if (w.peerNodeId() == target.id()) {
                if (target instanceof PeerNode p && p.incarnation() != w.incarnation()) {
                    p.incarnation(w.incarnation()); // a restarted process: its old keys are refused (random keys)
                }
                qp.bind(c, target.id());
                return;
            }
            failure = "the node at " + address + " is now " + w.peerName() + " (id " + w.peerNodeId() + "), not "
                + target.name() + " (id " + target.id() + ")";
            c.close(failure);
        } catch (IOException e) {
            failure = e.getMessage();
        }
        if (bindQpn != -1) {
            throw new IllegalStateException("cannot connect queue pair " + qp.qpNumber() + " of " + from.name()
                + " to queue pair " + bindQpn + " of " + target.name() + ": " + failure);
        }
        Connection.LOG.log(java.util.logging.Level.FINE, "queue pair {0} of {1} cannot reach {2}: {3}", new Object[] {qp.qpNumber(), from.name(), address, failure});
        qp.bindUnreachable(Connection.dead(this, from, address, failure), target.id());
    }

    void remember(Connection c) {
        connections.add(c);
        if (closed) {
            c.close("fabric closed");
        }
    }

    void forget(Connection c) {
        connections.remove(c);
    }

    /** The service thread's timer: retry, receiver-not-ready and handshake timeouts. */
    void tick(long now) {
        for (Connection c : connections) {
            c.tick(now);
        }
        for (SocketQueuePair qp : broken) {
            Connection c = qp.connection();
            synchronized (c) {
                qp.checkTimeout(now, context.retryTimeoutNs());
                qp.deliverDue(now);
                if (qp.state() != dev.remora.verbs.QpState.RTS && !qp.hasDelayed()) {
                    broken.remove(qp);
                }
            }
        }
    }

    /** Times out the requests of a queue pair whose connection is gone. */
    void watch(SocketQueuePair qp) {
        broken.add(qp);
    }

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        directory.publish(name, address, nodes::isLocal);
    }

    @Override
    public void unpublish(String name) {
        directory.unpublish(name);
    }

    @Override
    public RemoteAddress lookup(String name) {
        Directory.checkName(name);
        RemoteAddress local = directory.find(name);
        if (local != null) {
            return local;
        }
        List<String> asked = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (PeerNode p : nodes.peers()) {
            try {
                RemoteAddress a = lookupAt(p, name);
                if (a != null) {
                    return a;
                }
                asked.add(p.name() + "@" + p.address());
            } catch (IOException e) {
                silent.add(p.name() + "@" + p.address() + " (" + e.getMessage() + ")");
            }
        }
        throw new NoSuchElementException("no node publishes '" + name + "' (asked this process and " + (asked.isEmpty()
            ? "no peer" : "peers " + asked) + (silent.isEmpty() ? "" : "; did not answer: " + silent) + ")");
    }

    private RemoteAddress lookupAt(PeerNode p, String name) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Connection c = p.control();
            if (c.state() == Connection.State.CLOSED) {
                if (attempt > 0) {
                    throw new IOException("connection closed: " + c.closeReason());
                }
                c = dial(nodes.anyLocal("look up " + name), p.address(), Wire.PURPOSE_CONTROL, -1, null);
                Connection.Welcome w = awaitWelcome(c, p.address());
                if (w.peerNodeId() != p.id()) {
                    c.close("another node");
                    throw new IOException("the node at " + p.address() + " is now " + w.peerName());
                }
                p.incarnation(w.incarnation());
                p.control(c);
            }
            try {
                return c.lookup(name).get(context.connectTimeoutNs(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new IOException("no answer within " + context.connectTimeoutNs() / 1_000_000 + " ms");
            } catch (ExecutionException e) {
                if (attempt > 0) {
                    throw new IOException(e.getCause().getMessage(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
        }
    }

    @Override
    public Node node(int id) {
        return nodes.node(id);
    }

    @Override
    public List<Node> nodes() {
        return nodes.snapshot();
    }

    /**
     * Crashes a local node: it stops answering (its listener closes, its connections go silent, so peers' requests
     * time out with {@code RETRY_EXC_ERR}), and its own threads can no longer post. Irreversible.
     *
     * @param node a local node of this fabric
     */
    public void crash(Node node) {
        Objects.requireNonNull(node, "node");
        if (!(node instanceof SocketNode n) || n.fabric() != this) {
            throw new IllegalArgumentException("node " + node.name() + " is not a local node of this fabric");
        }
        n.crash();
        for (Connection c : connections) {
            if (c.node == n) {
                c.silence();
            }
        }
    }

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (SocketNode n : nodes.locals()) {
            s = s.plus(n.statistics());
        }
        return s;
    }

    void countSocketWrite() {
        socketWrites.increment();
    }

    /** @return how many writes to sockets this process's connections made (tests check doorbell batching with it) */
    long socketWrites() {
        return socketWrites.sum();
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

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Connection c : connections) {
            c.close("fabric closed");
        }
        loop.stop();
        for (SocketNode n : nodes.locals()) {
            n.closeAll();
        }
        directory.clear();
    }

    @Override
    public String toString() {
        return "SocketFabric{" + nodes + ", " + context + '}';
    }
}
