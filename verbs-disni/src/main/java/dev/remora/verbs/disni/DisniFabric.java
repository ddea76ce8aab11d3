package dev.remora.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.ProcessNodes;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The verbs on RDMA hardware through DiSNI: protection domains, registered memory, reliable-connected queue pairs
 * and completion queues of {@code libibverbs}, connected through {@code librdmacm}, with this provider's own
 * marshalling of the requests ({@link PostSendCall}) and completions ({@link DisniCompletionQueue}).
 *
 * <h2>Nodes, names and connections</h2>
 * A node is a protection domain on the RDMA device that owns {@link DisniContext#host()}, with an RDMA CM listener.
 * What RDMA CM cannot carry in DiSNI 2.1 (its connect request's private data is not passed up to Java), the names
 * and node ids, goes over a control channel: the socket fabric ({@link SocketFabric}), reused whole, one of its
 * nodes per DiSNI node, with the same id and address. So {@link #connect(String)} is the socket fabric's handshake
 * (node ids, incarnations, the cluster secret's HMAC off loopback), {@link #publish} and {@link #lookup} are its
 * directory, and each node publishes its RDMA CM port there under {@code remora.disni.cm@HOST:PORT}.
 * {@link Node#connect(Node, dev.remora.verbs.CompletionQueue)} resolves the peer's CM address and route, creates
 * the queue pair on the resolved id, and connects; the peer's CM thread accepts with a passive queue pair.
 *
 * <h2>Guarantees</h2>
 * Those of the hardware ({@code IBV_ATOMIC_HCA} unless the device says more), which are the API's
 * ({@code verbs/package-info.java}); errors are the NIC's completions, mapped by {@link IbvWcDescriptor}. A dead
 * peer completes {@code RETRY_EXC_ERR} after the transport's retries ({@code retryCount}).
 */
public final class DisniFabric implements Fabric {
    static final Logger LOG = Logger.getLogger(DisniFabric.class.getName());
    /** The directory name under which a node publishes its RDMA CM port (the address field of the entry). */
    static final String CM_PORT_NAME = "remora.disni.cm@";

    private final DisniContext context;
    private final VerbsNatives natives;
    private final SocketFabric control;
    private final RdmaEventChannel channel;
    private final Thread cmThread;
    private final ProcessNodes<DisniNode, DisniPeerNode> nodes = new ProcessNodes<>(DisniFabricProvider.NAME);
    /** CM ids waiting for an event, by libdisni's handle. */
    private final Map<Long, CompletableFuture<RdmaCmEvent.EventType>> waiting = new ConcurrentHashMap<>();
    /** Queue pairs of this process waiting for a peer's connect request, by the peer's source address. */
    private final Map<SocketAddress, DisniQueuePair> bindings = new ConcurrentHashMap<>();
    /** Queue pairs by their CM id's handle, for DISCONNECTED events. */
    private final Map<Long, DisniQueuePair> byCmId = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private DisniFabric(DisniContext context, VerbsNatives natives) throws IOException {
        this.context = context;
        this.natives = natives;
        SocketContext sc = new SocketContext().host(context.host()).port(context.port());
        if (context.secret() != null) {
            sc.secret(context.secret());
        }
        this.control = SocketFabric.open(sc);
        try {
            this.channel = RdmaEventChannel.createEventChannel();
        } catch (IOException | RuntimeException e) {
            control.close();
            throw e;
        }
        this.cmThread = new Thread(this::cmLoop, "remora-disni-cm");
        cmThread.setDaemon(true);
        cmThread.start();
    }

    /**
     * Opens a fabric.
     *
     * @param context settings
     * @return the fabric
     * @throws IllegalStateException if the provider cannot run here ({@link DisniAvailability#reason()}), or the
     *     event channel cannot be made
     */
    public static DisniFabric open(DisniContext context) {
        Objects.requireNonNull(context, "context");
        DisniAvailability a = DisniAvailability.check();
        if (!a.isAvailable()) {
            throw new IllegalStateException(a.reason());
        }
        DisniNatives natives = DisniNatives.load();
        natives.layout().verify();
        try {
            return new DisniFabric(context, natives);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create an RDMA CM event channel: " + e.getMessage(), e);
        }
    }

    DisniContext context() {
        return context;
    }

    VerbsNatives natives() {
        return natives;
    }

    RdmaEventChannel channel() {
        return channel;
    }

    @Override
    public String providerName() {
        return DisniFabricProvider.NAME;
    }

    @Override
    public synchronized Node addNode(String name) {
        ensureOpen();
        Node s = control.addNode(name);
        InetSocketAddress at = parse(s.address());
        DisniNode n;
        try {
            n = DisniNode.create(this, s.id(), name, s.address(), at.getAddress());
        } catch (IOException e) {
            throw new IllegalStateException("node " + name + " cannot listen for RDMA CM on " + context.host() + ": "
                + e.getMessage() + " (is " + context.host() + " the address of an RDMA interface?)", e);
        }
        this.control.publish(CM_PORT_NAME + s.address(), new RemoteAddress(s.id(), 0, n.cmPort()));
        return nodes.addLocal(n);
    }

    /**
     * @param address a node's address ({@code host:port}, as the control channel's node has it)
     * @return it resolved
     */
    InetSocketAddress parse(String address) {
        return nodes.parse(address);
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        Node peer = control.connect(address);
        if (peer.isLocal()) {
            return nodes.get(peer.id());
        }
        Node known = nodes.get(peer.id());
        if (known != null) {
            return known;
        }
        synchronized (this) {
            known = nodes.get(peer.id());
            if (known != null) {
                return known;
            }
            RemoteAddress cm = control.lookup(CM_PORT_NAME + peer.address());
            InetSocketAddress at = parse(peer.address());
            return nodes.addPeer(new DisniPeerNode(this, peer.id(), peer.name(), peer.address(),
                new InetSocketAddress(at.getAddress(), (int) cm.address())));
        }
    }

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        if (!nodes.isLocal(address.nodeId())) {
            throw new IllegalArgumentException("cannot publish '" + name + "' at " + address + ": node "
                + address.nodeId() + " is not a local node of this fabric");
        }
        control.publish(name, address);
    }

    @Override
    public void unpublish(String name) {
        control.unpublish(name);
    }

    @Override
    public RemoteAddress lookup(String name) {
        return control.lookup(name);
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
     * The node of this fabric a handle stands for ({@link ProcessNodes#resolve}).
     *
     * @param node a handle
     * @return this fabric's node
     */
    Node resolve(Node node) {
        return nodes.resolve(node, this);
    }

    /**
     * Connects an RDMA CM id to a peer's listener: resolves the address and the route, lets {@code createQp} make
     * the queue pair on the resolved id, and connects.
     *
     * @param id a fresh id of this fabric's channel
     * @param target the peer's CM address
     * @param beforeConnect makes the queue pair once the route is known
     * @throws IOException with what RDMA CM answered
     */
    void connectId(RdmaCmId id, InetSocketAddress target, IoAction beforeConnect) throws IOException {
        int timeout = context.connectTimeoutMs();
        await(id, () -> id.resolveAddr(null, target, timeout), RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED,
            "resolving " + target);
        await(id, () -> id.resolveRoute(timeout), RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED,
            "resolving the route to " + target);
        beforeConnect.run();
        com.ibm.disni.verbs.RdmaConnParam p = new com.ibm.disni.verbs.RdmaConnParam();
        p.setRetry_count((byte) context.retryCount());
        p.setRnr_retry_count((byte) context.rnrRetryCount());
        await(id, () -> id.connect(p), RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED, "connecting to " + target);
    }

    /** An I/O step. */
    interface IoAction {
        /** @throws IOException if it fails */
        void run() throws IOException;
    }

    private void await(RdmaCmId id, IoAction start, RdmaCmEvent.EventType expected, String what) throws IOException {
        long key = ((NatObject) id).getObjId();
        CompletableFuture<RdmaCmEvent.EventType> f = new CompletableFuture<>();
        waiting.put(key, f);
        try {
            start.run();
            RdmaCmEvent.EventType got = f.get(context.connectTimeoutMs() + 1000L, TimeUnit.MILLISECONDS);
            if (got != expected) {
                throw new IOException(what + ": RDMA CM answered " + got + ", not " + expected);
            }
        } catch (TimeoutException e) {
            throw new IOException(what + ": no RDMA CM event within " + context.connectTimeoutMs() + " ms");
        } catch (ExecutionException e) {
            throw new IOException(what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + ": interrupted");
        } finally {
            waiting.remove(key);
        }
    }

    /**
     * Makes a local queue pair the one a peer's connect request from {@code source} is bound to.
     *
     * @param source the initiator's resolved source address
     * @param qp the queue pair
     */
    void expect(SocketAddress source, DisniQueuePair qp) {
        bindings.put(source, qp);
    }

    void track(RdmaCmId id, DisniQueuePair qp) {
        byCmId.put(((NatObject) id).getObjId(), qp);
    }

    void untrack(RdmaCmId id) {
        byCmId.remove(((NatObject) id).getObjId());
    }

    /** The CM thread: connect requests to local nodes, and the events waiters wait for. */
    private void cmLoop() {
        while (!closed) {
            RdmaCmEvent ev;
            try {
                ev = channel.getCmEvent(100);
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(Level.WARNING, "RDMA CM event channel failed: {0}", e.getMessage());
                }
                return;
            }
            if (ev == null) {
                continue;
            }
            RdmaCmEvent.EventType type = RdmaCmEvent.EventType.values()[ev.getEvent()];
            RdmaCmId id = ev.getConnIdPriv();
            try {
                if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST) {
                    onConnectRequest(ev.getListenIdPriv(), id);
                } else {
                    long key = ((NatObject) id).getObjId();
                    CompletableFuture<RdmaCmEvent.EventType> f = waiting.get(key);
                    if (f != null) {
                        f.complete(type);
                    }
                    if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED) {
                        DisniQueuePair qp = byCmId.get(key);
                        if (qp != null) {
                            qp.peerDisconnected(); // the NIC flushes what is outstanding (R17)
                        }
                    }
                }
                ev.ackEvent();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "RDMA CM event " + type + " failed: " + e, e);
            }
        }
    }

    private void onConnectRequest(RdmaCmId listener, RdmaCmId id) throws IOException {
        for (DisniNode n : nodes.locals()) {
            if (n.listens(listener)) {
                DisniQueuePair bound = bindings.remove(id.getDestination());
                n.accept(id, bound);
                return;
            }
        }
        id.destroyId();
    }

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (DisniNode n : nodes.locals()) {
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

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cmThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (DisniNode n : nodes.locals()) {
            n.closeAll();
        }
        try {
            channel.destroyEventChannel();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "destroying the event channel: {0}", e.toString());
        }
        control.close();
    }

    /** @return {@code RDMA_PS_TCP}, the port space of reliable-connected ids */
    static short portSpace() {
        return RdmaCm.RDMA_PS_TCP;
    }

    @Override
    public String toString() {
        return "DisniFabric{local=" + nodes.locals() + ", " + context + '}';
    }
}
