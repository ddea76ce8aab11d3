package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.Directory;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
    private final Map<Integer, Node> nodes = new ConcurrentSkipListMap<>();
    private final List<SocketNode> locals = new CopyOnWriteArrayList<>();
    private final List<PeerNode> peers = new CopyOnWriteArrayList<>();
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
        Objects.requireNonNull(name, "name");
        for (SocketNode n : locals) {
            if (n.name().equals(name)) {
                throw new IllegalArgumentException("a node named '" + name + "' already exists");
            }
        }
        int port = context.port() == 0 ? 0 : context.port() + locals.size();
        ServerSocketChannel server;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(context.bindAddress(), port), 256);
            server.configureBlocking(false);
        } catch (IOException e) {
            throw new IllegalStateException("node " + name + " cannot listen on " + context.host() + ":" + port + ": "
                + e.getMessage(), e);
        }
        int bound = server.socket().getLocalPort();
        int id = nodeId(context.bindAddress(), bound);
        String address = hostPort(context.bindAddress(), bound);
        Node clash = nodes.get(id);
        if (clash != null) {
            close(server);
            throw new IllegalStateException("node " + name + " at " + address + " would get id " + id + ", which "
                + clash.name() + " at " + clash.address() + " has");
        }
        SocketNode node = new SocketNode(this, id, name, address, server);
        locals.add(node);
        nodes.put(id, node);
        loop.listen(server, node);
        return node;
    }

    /**
     * The fabric-wide id of a node listening at an address: the low 15 bits of an IPv4 address (a hash for IPv6)
     * above the 16 bits of the port.
     *
     * @param host the listening address
     * @param port the port
     * @return a non-negative id
     */
    static int nodeId(InetAddress host, int port) {
        byte[] a = host.getAddress();
        int hostBits;
        if (host instanceof Inet4Address) {
            hostBits = ((a[2] & 0x7F) << 8) | (a[3] & 0xFF);
        } else {
            hostBits = java.util.Arrays.hashCode(a) & 0x7FFF;
        }
        return (hostBits << 16) | port;
    }

    private static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (a instanceof Inet4Address ? h : "[" + h + "]") + ":" + port;
    }

    static InetSocketAddress parse(String address) {
        Objects.requireNonNull(address, "address");
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("'" + address + "' is not a socket fabric address (host:port)");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + address + "' has no port number", e);
        }
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("'" + address + "': port " + port + " outside 1..65535");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("'" + address + "': unknown host " + host, e);
        }
    }

    private static String canonical(String address) {
        InetSocketAddress a = parse(address);
        return hostPort(a.getAddress(), a.getPort());
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        String canonical = canonical(address);
        for (SocketNode n : locals) {
            if (n.address().equals(canonical)) {
                return n;
            }
        }
        synchronized (this) {
            for (PeerNode p : peers) {
                if (p.address().equals(canonical)) {
                    return p;
                }
            }
            SocketNode self = anyLocal("connect to " + canonical);
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
            PeerNode p = new PeerNode(this, w.peerNodeId(), w.peerName(), canonical, w.incarnation(), c);
            peers.add(p);
            nodes.put(p.id(), p);
            return p;
        }
    }

    private SocketNode anyLocal(String what) {
        if (locals.isEmpty()) {
            throw new IllegalStateException("cannot " + what + ": add a local node first (it names this process to "
                + "its peers)");
        }
        return locals.get(0);
    }

    /** Opens a connection and registers it with the service thread; the handshake runs there. */
    private Connection dial(SocketNode from, String address, byte purpose, int bindQpn, SocketQueuePair qp)
        throws IOException {
        InetSocketAddress target = parse(address);
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
     * The node of this fabric a handle stands for: the handle itself, or (for a handle that wraps a peer, as a test
     * harness's does) the node this fabric knows with the same id and address.
     *
     * @param node a node handle
     * @return this fabric's node
     * @throws IllegalArgumentException if this fabric does not know it
     */
    Node resolve(Node node) {
        if (node.fabric() == this) {
            return node;
        }
        Node known = nodes.get(node.id());
        if (known != null && known.address().equals(node.address())) {
            return known;
        }
        throw new IllegalArgumentException("node " + node.name() + " at " + node.address() + " is not known to this "
            + "fabric: connect(\"" + node.address() + "\") first");
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
        directory.publish(name, address, id -> nodes.get(id) instanceof SocketNode);
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
        for (PeerNode p : peers) {
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
                c = dial(anyLocal("look up " + name), p.address(), Wire.PURPOSE_CONTROL, -1, null);
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
        Node n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException("no node with id " + id + " in this fabric (local: " + locals
                + ", peers: " + peers + "; reach a peer with connect(address) first)");
        }
        return n;
    }

    @Override
    public List<Node> nodes() {
        return List.copyOf(nodes.values());
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
        for (SocketNode n : locals) {
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
        for (SocketNode n : locals) {
            n.closeAll();
        }
        directory.clear();
    }

    private static void close(ServerSocketChannel s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // failed anyway
        }
    }

    @Override
    public String toString() {
        return "SocketFabric{local=" + locals + ", peers=" + peers + ", " + context + '}';
    }
}
