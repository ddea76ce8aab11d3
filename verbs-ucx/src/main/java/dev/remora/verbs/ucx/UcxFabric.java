package dev.remora.verbs.ucx;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.Directory;
import dev.remora.verbs.spi.ProcessNodes;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The UCX fabric: nodes in this and other processes joined by UCX (shared memory, TCP, or RDMA devices where there
 * are any), through libucp 1.13+, JUCX and the Foreign Function &amp; Memory API.
 *
 * <h2>What runs where</h2>
 * Each local node has a UCX context and worker of its own ({@link UcxNode}). Queue pairs issue their requests on UCX
 * endpoints from their node's worker to their target's, one endpoint per pair of nodes ({@link UcxLink}); READ, WRITE
 * and the atomics are {@code ucp_get_nbx}, {@code ucp_put_nbx} and {@code ucp_atomic_op_nbx} (CSWAP, fetching ADD)
 * called through the FFM API on UCX's own handles; SEND and RECV are active messages. One progress thread per
 * fabric progresses every local worker: it serves the peers' requests that UCX executes with the target's CPU (all of
 * them over TCP; the atomics, and the reads and writes until the endpoints are wired up, over shared memory) and
 * delivers completions; it spins {@link UcxContext#idleSpinNs()} after its last event, then sleeps in
 * {@code epoll_wait} on the workers' event descriptors (armed with {@code ucp_worker_arm}) and on a wake-up eventfd.
 * A thread polling an empty completion queue progresses its node's worker itself when it can.
 *
 * <h2>Connection management</h2>
 * {@link #addNode} binds a connection manager listener at {@code host:port} ({@link UcxContext}); a node's id is made
 * from that address as in the socket fabric. {@link #connect(String)} runs the handshake of {@link ControlConnection}
 * (node ids, names, incarnations, UCX worker addresses; an HMAC challenge and response with a cluster secret) and
 * returns the peer's handle; endpoints are then created from the worker address. Remote keys are the provider's own
 * random 32-bit keys; the first request naming one fetches the region's bounds, access flags and packed UCX key from
 * its owner; deregistration revokes the key at every peer before {@code ucp_mem_unmap}. Names are published and
 * looked up over the same connections.
 *
 * <h2>Faults</h2>
 * A request not completed within {@link UcxContext#retryTimeoutNs()} of its posting completes {@code RETRY_EXC_ERR}
 * and flushes its queue pair; endpoints use UCX's peer error handling, so a peer's death fails its requests instead
 * of aborting the process (for UCX 1.13's shared-memory transports the provider sets
 * {@code UCX_POSIX_ERROR_HANDLING} and {@code UCX_SYSV_ERROR_HANDLING} when the environment does not). A crashed node
 * ({@link #crash}) stops progressing its worker and answering its connections: requests that need its CPU time out.
 * Nothing waits forever.
 */
public final class UcxFabric implements Fabric {
    private static final Logger LOG = Logger.getLogger(UcxFabric.class.getName());
    private static volatile boolean environmentPrepared;

    private final UcxContext context;
    private final Ucx ucx;
    private final Arena arena = Arena.ofShared();
    private final Directory directory = new Directory();
    private final ProcessNodes<UcxNode, UcxPeerNode> nodes = new ProcessNodes<>(UcxFabricProvider.NAME);
    private final Set<ControlConnection> connections = ConcurrentHashMap.newKeySet();
    private final int epollFd;
    private final int wakeFd;
    private final MemorySegment wakeValue;
    private final Thread progress;
    private volatile boolean sleeping;
    private volatile boolean closed;

    private UcxFabric(UcxContext context) {
        this.context = context.conclude();
        this.ucx = Ucx.load();
        prepareEnvironment(ucx);
        try {
            this.epollFd = (int) ucx.epollCreate1.invokeExact(Ucx.EPOLL_CLOEXEC);
            this.wakeFd = (int) ucx.eventfd.invokeExact(0, Ucx.EFD_NONBLOCK | Ucx.EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException("epoll_create1/eventfd: " + t, t);
        }
        if (epollFd < 0 || wakeFd < 0) {
            throw new IllegalStateException("epoll_create1 or eventfd failed");
        }
        this.wakeValue = arena.allocate(ValueLayout.JAVA_LONG);
        wakeValue.set(ValueLayout.JAVA_LONG, 0, 1L);
        watch(wakeFd, -1L);
        this.progress = new Thread(this::progressLoop, "remora-ucx-progress");
        progress.setDaemon(true);
        progress.start();
    }

    /**
     * Settings UCX 1.13 reads only from its environment, made before the first context: the shared-memory
     * transports' peer failure handling (without it they refuse endpoints in peer error mode), and a quieter log
     * (JUCX 1.15 asks for API 1.15 and UCX warns at every context otherwise). Values the user set are kept.
     */
    private static synchronized void prepareEnvironment(Ucx ucx) {
        if (environmentPrepared) {
            return;
        }
        ucx.setenvUnlessSet("UCX_POSIX_ERROR_HANDLING", "y");
        ucx.setenvUnlessSet("UCX_SYSV_ERROR_HANDLING", "y");
        if (ucx.getenv("UCX_LOG_LEVEL") == null) {
            ucx.setGlobalOption("LOG_LEVEL", "error");
        }
        environmentPrepared = true;
    }

    /**
     * Opens a fabric with default settings (loopback connection managers, ephemeral ports, UCX's transports).
     *
     * @return the fabric
     * @throws IllegalStateException if UCX is not usable here ({@link UcxFabricProvider#unavailableReason()})
     */
    public static UcxFabric open() {
        return new UcxFabric(new UcxContext());
    }

    /**
     * Opens a fabric.
     *
     * @param context settings, validated here
     * @return the fabric
     * @throws IllegalStateException if UCX is not usable here ({@link UcxFabricProvider#unavailableReason()})
     */
    public static UcxFabric open(UcxContext context) {
        return new UcxFabric(Objects.requireNonNull(context, "context"));
    }

    /** @return the settings */
    public UcxContext context() {
        return context;
    }

    Ucx ucx() {
        return ucx;
    }

    Arena arena() {
        return arena;
    }

    /** @return the version of the libucp this process loaded, e.g. {@code 1.13.1} */
    public String ucxVersion() {
        return ucx.version;
    }

    @Override
    public String providerName() {
        return UcxFabricProvider.NAME;
    }

    // ---------------------------------------------------------------- nodes

    @Override
    public synchronized Node addNode(String name) {
        ensureOpen();
        UcxNode node = nodes.addLocal(name, context, at -> {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(at, 64);
            return server;
        }, ServerSocket::getLocalPort, (id, address, server) -> {
            UcxNode n = new UcxNode(this, id, name, address, server);
            watch(n.eventFd(), id);
            return n;
        });
        node.startAccepting();
        return node;
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        InetSocketAddress target = nodes.parse(address);
        String canonical = ProcessNodes.address(target.getAddress(), target.getPort());
        UcxNode local = nodes.localAt(canonical);
        if (local != null) {
            return local;
        }
        synchronized (this) {
            UcxPeerNode known = nodes.peerAt(canonical, p -> p.control() != null && !p.control().isClosed());
            if (known != null) {
                return known;
            }
            UcxNode self = nodes.anyLocal("connect to " + canonical);
            ControlConnection c;
            try {
                c = ControlConnection.dial(this, self, target);
            } catch (IOException e) {
                throw new IllegalStateException("cannot connect to " + canonical + ": " + e.getMessage(), e);
            }
            return learnPeer(c.peer(), c);
        }
    }

    /** @return why a peer's handshake clashes with the nodes this fabric knows, or null */
    String clash(ControlConnection.PeerInfo p) {
        Node known = nodes.get(p.nodeId());
        if (known instanceof UcxNode) {
            return "node " + p.name() + " at " + p.address() + " has id " + p.nodeId() + ", which the local node "
                + known.name() + " at " + known.address() + " has";
        }
        if (known != null && !known.address().equals(p.address())) {
            return "node " + p.name() + " at " + p.address() + " has id " + p.nodeId() + ", which " + known.name()
                + " at " + known.address() + " has";
        }
        return null;
    }

    /** Records a peer a handshake introduced (again: a restarted peer is a new incarnation). */
    synchronized UcxPeerNode learnPeer(ControlConnection.PeerInfo info, ControlConnection c) {
        if (c != null) {
            connections.add(c);
            if (closed) {
                c.close("fabric closed");
            }
        }
        Node known = nodes.get(info.nodeId());
        if (known instanceof UcxPeerNode p) {
            if (c != null || p.control() == null) {
                p.update(info, c != null ? c : p.control());
            }
            return p;
        }
        return nodes.addPeer(new UcxPeerNode(this, info, c));
    }

    void forgetConnection(ControlConnection c) {
        connections.remove(c);
    }

    /** The node of this fabric a handle stands for ({@link ProcessNodes#resolve}). */
    Node resolve(Node node) {
        return nodes.resolve(node, this);
    }

    Node nodeOrNull(int id) {
        return nodes.get(id);
    }

    @Override
    public Node node(int id) {
        return nodes.node(id);
    }

    @Override
    public List<Node> nodes() {
        return nodes.snapshot();
    }

    // ---------------------------------------------------------------- queue pairs between processes

    /** Asks a peer's process to bind its queue pair {@code remoteQpn} to {@code local} of {@code node}. */
    void connectRemote(UcxNode node, UcxQueuePair local, UcxPeerNode peer, int remoteQpn) {
        ControlConnection c = peer.control();
        if (c == null || c.isClosed()) {
            throw new IllegalStateException("no connection to " + peer.name() + " at " + peer.address()
                + ": connect(\"" + peer.address() + "\") first");
        }
        byte[] body = ControlConnection.body(o -> {
            o.writeInt(remoteQpn);
            o.writeInt(local.qpNumber());
            o.writeInt(node.id());
            o.writeUTF(node.name());
            o.writeUTF(node.address());
            o.writeLong(node.incarnation());
            ControlConnection.writeBytes(o, node.workerAddress());
        });
        try {
            c.call(ControlConnection.CONNECT_QP, body, context.connectTimeoutNs());
        } catch (IOException e) {
            throw new IllegalStateException("cannot connect queue pair " + local.qpNumber() + " of " + node.name()
                + " to queue pair " + remoteQpn + " of " + peer.name() + ": " + e.getMessage(), e);
        }
    }

    /** A peer asked to bind a queue pair of a local node to one of its own (CONNECT_QP). */
    void bindFromPeer(UcxNode node, int qpn, ControlConnection.PeerInfo from, int peerQpn, ControlConnection via) {
        UcxQueuePair qp = node.queuePair(qpn);
        if (qp == null) {
            throw new IllegalArgumentException("node " + node.name() + " has no queue pair " + qpn);
        }
        ControlConnection.PeerInfo hello = via.peer();
        UcxPeerNode peer = learnPeer(from, hello != null && hello.nodeId() == from.nodeId() ? via : null);
        node.bindTo(qp, peer, peerQpn);
    }

    // ---------------------------------------------------------------- keys

    byte[] keyAnswer(UcxNode node, int key) {
        return node.keyAnswer(key);
    }

    /**
     * Revokes a key of a local node everywhere before its region is unmapped: the local nodes' records, and every
     * peer that may hold it (over the connections of this node), each answering once its requests with the key
     * have completed; at most the retry timeout.
     */
    void revoke(UcxNode owner, int key) {
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        byte[] body = ControlConnection.body(o -> o.writeInt(key));
        for (ControlConnection c : connections) {
            if (c.local == owner && !c.isClosed()) {
                answers.add(c.ask(ControlConnection.INVALIDATE, body));
            }
        }
        for (UcxNode n : nodes.locals()) {
            n.invalidate(owner.id(), key);
        }
        long deadline = System.nanoTime() + context.retryTimeoutNs();
        for (CompletableFuture<byte[]> f : answers) {
            try {
                f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                LOG.log(Level.FINE, "a peer did not confirm the revocation of key {0}: {1}", new Object[] {key, e});
            }
        }
    }

    /** A peer revoked one of its keys (INVALIDATE): every local node forgets it. */
    void invalidate(int peerNodeId, int key) {
        for (UcxNode n : nodes.locals()) {
            n.invalidate(peerNodeId, key);
        }
    }

    // ---------------------------------------------------------------- names

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        directory.publish(name, address, nodes::isLocal);
    }

    @Override
    public void unpublish(String name) {
        directory.unpublish(name);
    }

    byte[] lookupAnswer(String name) {
        RemoteAddress a = directory.find(name);
        if (a == null) {
            return ControlConnection.body(o -> o.writeBoolean(false));
        }
        return ControlConnection.body(o -> {
            o.writeBoolean(true);
            o.writeInt(a.nodeId());
            o.writeInt(a.rkey());
            o.writeLong(a.address());
        });
    }

    @Override
    public RemoteAddress lookup(String name) {
        Directory.checkName(name);
        RemoteAddress own = directory.find(name);
        if (own != null) {
            return own;
        }
        List<String> asked = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (UcxPeerNode p : nodes.peers()) {
            ControlConnection c = p.control();
            if (c == null || c.isClosed()) {
                continue;
            }
            asked.add(p.name());
            try {
                byte[] answer = c.call(ControlConnection.LOOKUP, ControlConnection.body(o -> o.writeUTF(name)),
                    context.connectTimeoutNs());
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer));
                if (in.readBoolean()) {
                    return new RemoteAddress(in.readInt(), in.readInt(), in.readLong());
                }
            } catch (IOException e) {
                silent.add(p.name());
            }
        }
        throw new NoSuchElementException("no node publishes '" + name + "' (asked this fabric and " + asked
            + (silent.isEmpty() ? "" : "; no answer from " + silent) + ")");
    }

    // ---------------------------------------------------------------- faults

    /**
     * Crashes a local node: it stops progressing its UCX worker and answering its connections (peers' requests that
     * need its CPU time out with {@code RETRY_EXC_ERR}), and its own threads can no longer post. Irreversible.
     *
     * @param node a local node of this fabric
     */
    public void crash(Node node) {
        Objects.requireNonNull(node, "node");
        if (!(node instanceof UcxNode n) || n.fabric() != this) {
            throw new IllegalArgumentException("node " + node.name() + " is not a local node of this fabric");
        }
        n.crash();
        try {
            // Its events are served no more: keep them from waking the progress thread.
            int rc = (int) ucx.epollCtl.invokeExact(epollFd, 2 /* EPOLL_CTL_DEL */, n.eventFd(), MemorySegment.NULL);
            if (rc != 0) {
                LOG.log(Level.FINE, "epoll_ctl DEL of {0} failed", n.name());
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
        wake();
    }

    // ---------------------------------------------------------------- progress

    private void watch(int fd, long data) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ev = a.allocate(Ucx.EPOLL_EVENT);
            ev.set(ValueLayout.JAVA_INT, 0, Ucx.EPOLLIN);
            ev.set(ValueLayout.JAVA_LONG_UNALIGNED, 4, data);
            int rc = (int) ucx.epollCtl.invokeExact(epollFd, Ucx.EPOLL_CTL_ADD, fd, ev);
            if (rc != 0) {
                throw new IllegalStateException("epoll_ctl ADD of fd " + fd + " failed");
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
    }

    /** Wakes the progress thread if it sleeps (after a post, a key's answer, a crash). */
    void wake() {
        if (sleeping) {
            try {
                long n = (long) ucx.write.invokeExact(wakeFd, wakeValue, 8L);
                if (n != 8) {
                    LOG.log(Level.FINE, "eventfd write returned {0}", n);
                }
            } catch (Throwable t) {
                throw Ucx.rethrow(t);
            }
        }
    }

    private void progressLoop() {
        MemorySegment events = arena.allocate(Ucx.EPOLL_EVENT_SIZE * 16, 8);
        MemorySegment drain = arena.allocate(8, 8);
        long spinNs = context.idleSpinNs();
        long idleSince = System.nanoTime();
        try {
            while (!closed) {
                long now = System.nanoTime();
                boolean any = false;
                for (UcxNode n : nodes.locals()) {
                    if (n.isCrashed()) {
                        continue;
                    }
                    n.lock.lock();
                    try {
                        any |= n.service(now);
                    } finally {
                        n.lock.unlock();
                    }
                }
                if (any) {
                    idleSince = now;
                    continue;
                }
                if (now - idleSince < spinNs) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeping = true;
                boolean armed = true;
                boolean waiting = false;
                for (UcxNode n : nodes.locals()) {
                    if (n.isCrashed()) {
                        continue;
                    }
                    n.lock.lock();
                    try {
                        waiting |= n.hasActive();
                        armed = n.arm(); // false: events are pending, progress again

                    } finally {
                        n.lock.unlock();
                    }
                    if (!armed) {
                        break;
                    }
                }
                if (armed && !closed) {
                    // Requests in flight are timed out by this thread: wake at least every millisecond then.
                    int n = (int) ucx.epollWait.invokeExact(epollFd, events, 16, waiting ? 1 : 50);
                    if (n < 0) {
                        LockSupport.parkNanos(1_000_000L);
                    }
                }
                sleeping = false;
                long r = (long) ucx.read.invokeExact(wakeFd, drain, 8L);
                if (r < -1) {
                    LOG.log(Level.FINE, "eventfd read returned {0}", r);
                }
                idleSince = System.nanoTime();
            }
        } catch (Throwable t) {
            if (!closed) {
                LOG.log(Level.SEVERE, "the UCX progress thread failed", t);
            }
        }
    }

    // ---------------------------------------------------------------- misc

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (UcxNode n : nodes.locals()) {
            s = s.plus(n.statistics());
        }
        return s;
    }

    /**
     * What the ordering and key management cost so far, summed over the local nodes.
     *
     * @return {@code ucp_worker_fence} calls, {@code ucp_ep_flush_nbx} calls, remote-key requests
     */
    public UcxStatistics ucxStatistics() {
        long fences = 0;
        long flushes = 0;
        long keys = 0;
        for (UcxNode n : nodes.locals()) {
            long[] c = n.ucxCounters();
            fences += c[0];
            flushes += c[1];
            keys += c[2];
        }
        return new UcxStatistics(fences, flushes, keys);
    }

    /**
     * How the local nodes' endpoints are set up, for reports: per local node and target node id, the UCX lanes that
     * carry requests and whether WRITEs are ordered by a fence or a flush on it ({@link UcxContext.Ordering}).
     *
     * @return node name to (target id to description)
     */
    public Map<String, Map<Integer, String>> endpoints() {
        Map<String, Map<Integer, String>> out = new java.util.LinkedHashMap<>();
        for (UcxNode n : nodes.locals()) {
            out.put(n.name(), n.endpoints());
        }
        return out;
    }

    /**
     * What UCX says of the endpoint from a local node to a target ({@code ucp_ep_print_info}): its configuration and
     * lanes.
     *
     * @param from a local node
     * @param target a node it has queue pairs to
     * @return the text, or null if there is no such endpoint
     */
    public String endpointInfo(Node from, Node target) {
        if (!(from instanceof UcxNode n) || n.fabric() != this) {
            throw new IllegalArgumentException("node " + from.name() + " is not a local node of this fabric");
        }
        return n.endpointInfo(target.id());
    }

    /**
     * UCX-level counters of a fabric.
     *
     * @param fences {@code ucp_worker_fence} calls that kept WRITEs ahead of later requests
     * @param flushes {@code ucp_ep_flush_nbx} calls (signaled WRITEs, FLUSH ordering, revocations)
     * @param keyRequests remote keys fetched from peers' connection managers
     */
    public record UcxStatistics(long fences, long flushes, long keyRequests) {
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
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        sleeping = true;
        wake();
        try {
            progress.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ControlConnection c : connections) {
            c.close("fabric closed");
        }
        // In phases over all nodes, so that no worker is destroyed while another still has something for it.
        for (UcxNode n : nodes.locals()) {
            n.closeQueues();
        }
        drainAll(TimeUnit.MILLISECONDS.toNanos(300));
        for (UcxNode n : nodes.locals()) {
            n.closeEndpoints();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        boolean closedAll = false;
        while (!closedAll && System.nanoTime() - deadline < 0) {
            closedAll = true;
            for (UcxNode n : nodes.locals()) {
                n.progressOnce();
                closedAll &= n.endpointsClosed();
            }
        }
        drainAll(TimeUnit.MILLISECONDS.toNanos(100));
        for (UcxNode n : nodes.locals()) {
            try {
                n.destroy();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing node " + n.name() + " failed", e);
            }
        }
        directory.clear();
        try {
            int a = (int) ucx.close.invokeExact(epollFd);
            int b = (int) ucx.close.invokeExact(wakeFd);
            if (a != 0 || b != 0) {
                LOG.log(Level.FINE, "closing the epoll or eventfd descriptor failed");
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
        if (!progress.isAlive()) {
            arena.close();
        }
    }

    /** Progresses every local worker, crashed or not, until none made progress for a while (at most maxNs). */
    private void drainAll(long maxNs) {
        long deadline = System.nanoTime() + maxNs;
        int quiet = 0;
        while (quiet < 100 && System.nanoTime() - deadline < 0) {
            int p = 0;
            for (UcxNode n : nodes.locals()) {
                p += n.progressOnce();
            }
            quiet = p == 0 ? quiet + 1 : 0;
        }
    }

    @Override
    public String toString() {
        return "UcxFabric{" + nodes + ", " + context + '}';
    }
}
