package dev.remora.verbs.ucx;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.spi.AbstractLocalNode;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A local node of the UCX fabric: a UCX context and worker of its own ({@code ucp_context_h}, {@code ucp_worker_h},
 * created through JUCX), its registered regions ({@code ucp_mem_map}), its queue pairs, and a connection manager
 * listening at {@link #address()}.
 *
 * <h2>Threads and the lock</h2>
 * The worker runs in UCX's single-thread mode: every call into it (posting, progress, endpoints, keys, memory
 * mapping) happens under {@link #lock}. The fabric's progress thread takes the lock to progress the worker and its
 * queue pairs; a poller that finds its completion queue empty does the same if the lock is free. Over TCP, and for
 * the atomics of registered memory over shared memory, UCX executes the "one-sided" requests of peers with the
 * target's CPU: in this provider, the target node's progress.
 */
@SuppressWarnings("restricted") // the AM upcall stub and its arguments (native memory UCX hands over)
final class UcxNode extends AbstractLocalNode<UcxFabric> {
    private static final Logger LOG = Logger.getLogger(UcxNode.class.getName());

    /** Active message ids: a SEND, and the receiver's answer to it. */
    static final int AM_SEND = 0x5E;
    static final int AM_ANSWER = 0x5F;
    /** The answer's header: the sending queue pair, the SEND's sequence number, a {@link WcStatus} ordinal. */
    private static final int ANSWER_BYTES = 12;
    private static final long PAGE = 4096;

    final ReentrantLock lock = new ReentrantLock();
    private final Ucx ucx;
    private final long incarnation;
    private final ServerSocket listener;
    private final Arena arena = Arena.ofShared();
    private final UcpContext context;
    private final UcpWorker worker;
    private final MemorySegment workerHandle;
    private final byte[] workerAddress;
    private final MemorySegment workerAddressSegment;
    private final int eventFd;
    private final Map<Integer, UcxRegion> regions = new ConcurrentHashMap<>();
    private final Map<Integer, UcxQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextQpn = new AtomicInteger(1);
    private final Map<Integer, UcxLink> links = new HashMap<>();
    private final List<UcxLink> deadLinks = new ArrayList<>();
    private final LinkedHashSet<UcxQueuePair> active = new LinkedHashSet<>();
    private final List<UcxWqe> orphans = new ArrayList<>();
    /** AM answers to send after progress returns: reply endpoint, header. */
    private final ArrayDeque<Object[]> answers = new ArrayDeque<>();
    /** Answers UCX has not sent yet: request, header. */
    private final List<Object[]> answersInFlight = new ArrayList<>();
    private final ArrayDeque<MemorySegment> answerHeaders = new ArrayDeque<>();
    private final MemorySegment plainParam;
    private final MemorySegment atomicParam;
    private final MemorySegment amSendParam;
    private final MemorySegment amAnswerParam;
    private final MemorySegment upcall;
    /** How many {@code ucp_worker_fence}s this node's worker made (a queue pair's WRITE is fenced by a later one). */
    long fenceEpoch;
    long flushes;
    long keyRequests;
    private VerbsStatistics retired = VerbsStatistics.ZERO;

    UcxNode(UcxFabric fabric, int id, String name, String address, ServerSocket listener) {
        super(fabric, id, name, address);
        this.ucx = fabric.ucx();
        this.listener = listener;
        long inc;
        do {
            inc = ThreadLocalRandom.current().nextLong();
        } while (inc == 0);
        this.incarnation = inc;
        UcpParams params = new UcpParams().requestRmaFeature().requestAtomic64BitFeature().requestAmFeature()
            .requestWakeupFeature();
        String tls = fabric.context().transports();
        if (tls != null) {
            params.setConfig("TLS", tls);
        }
        // SENDs travel whole with their header (eager): the AM handler copies them into the posted receive.
        params.setConfig("RNDV_THRESH", "inf");
        if (ucx.getenv("UCX_MAX_RNDV_RAILS") == null) {
            // One lane for RMA (UCX otherwise adds one per network device, e.g. tcp over lo and eth0), so that a
            // fence orders an endpoint's requests (UcxContext.Ordering).
            params.setConfig("MAX_RNDV_RAILS", "1");
        }
        this.context = new UcpContext(params);
        this.worker = context.newWorker(new UcpWorkerParams());
        this.workerHandle = MemorySegment.ofAddress(worker.getNativeId());
        ByteBuffer wa = worker.getAddress();
        this.workerAddress = new byte[wa.remaining()];
        wa.get(workerAddress);
        this.workerAddressSegment = arena.allocate(workerAddress.length, 8);
        MemorySegment.copy(workerAddress, 0, workerAddressSegment, ValueLayout.JAVA_BYTE, 0, workerAddress.length);
        this.plainParam = arena.allocate(Ucx.REQUEST_PARAM);
        this.atomicParam = arena.allocate(Ucx.REQUEST_PARAM);
        atomicParam.set(ValueLayout.JAVA_INT, Ucx.PARAM_OP_ATTR_MASK,
            Ucx.UCP_OP_ATTR_FIELD_DATATYPE | Ucx.UCP_OP_ATTR_FIELD_REPLY_BUFFER);
        atomicParam.set(ValueLayout.JAVA_LONG, Ucx.PARAM_DATATYPE, Ucx.UCP_DATATYPE_CONTIG_8);
        this.amSendParam = arena.allocate(Ucx.REQUEST_PARAM);
        amSendParam.set(ValueLayout.JAVA_INT, Ucx.PARAM_OP_ATTR_MASK, Ucx.UCP_OP_ATTR_FIELD_FLAGS);
        amSendParam.set(ValueLayout.JAVA_INT, Ucx.PARAM_FLAGS, Ucx.UCP_AM_SEND_FLAG_REPLY | Ucx.UCP_AM_SEND_FLAG_EAGER);
        this.amAnswerParam = arena.allocate(Ucx.REQUEST_PARAM);
        amAnswerParam.set(ValueLayout.JAVA_INT, Ucx.PARAM_OP_ATTR_MASK, Ucx.UCP_OP_ATTR_FIELD_FLAGS);
        amAnswerParam.set(ValueLayout.JAVA_INT, Ucx.PARAM_FLAGS, Ucx.UCP_AM_SEND_FLAG_EAGER);
        try {
            MethodHandle h = MethodHandles.lookup().findVirtual(UcxNode.class, "onActiveMessage",
                MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, long.class,
                    MemorySegment.class, long.class, MemorySegment.class)).bindTo(this);
            this.upcall = Linker.nativeLinker().upcallStub(h, Ucx.AM_RECV_CALLBACK, arena);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        lock.lock();
        try {
            setHandler(AM_SEND);
            setHandler(AM_ANSWER);
            MemorySegment fd = arena.allocate(ValueLayout.JAVA_INT);
            int st = (int) ucx.workerGetEfd.invokeExact(workerHandle, fd);
            if (st != Ucx.UCS_OK) {
                throw new IllegalStateException("ucp_worker_get_efd: " + ucx.describe(st));
            }
            this.eventFd = fd.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
    }

    private void setHandler(int amId) throws Throwable {
        MemorySegment p = arena.allocate(Ucx.AM_HANDLER_PARAM);
        p.set(ValueLayout.JAVA_LONG, 0, Ucx.UCP_AM_HANDLER_PARAM_FIELD_ID | Ucx.UCP_AM_HANDLER_PARAM_FIELD_FLAGS
            | Ucx.UCP_AM_HANDLER_PARAM_FIELD_CB | Ucx.UCP_AM_HANDLER_PARAM_FIELD_ARG);
        p.set(ValueLayout.JAVA_INT, 8, amId);
        p.set(ValueLayout.JAVA_INT, 12, Ucx.UCP_AM_FLAG_WHOLE_MSG);
        p.set(ValueLayout.ADDRESS, 16, upcall);
        p.set(ValueLayout.ADDRESS, 24, MemorySegment.ofAddress(amId));
        int st = (int) ucx.setAmRecvHandler.invokeExact(workerHandle, p);
        if (st != Ucx.UCS_OK) {
            throw new IllegalStateException("ucp_worker_set_am_recv_handler: " + ucx.describe(st));
        }
    }

    void startAccepting() {
        Thread t = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket s = listener.accept();
                    ControlConnection.accepted(fabric(), this, s);
                } catch (IOException e) {
                    if (!listener.isClosed()) {
                        LOG.log(Level.FINE, "accept on {0} failed: {1}", new Object[] {address(), e});
                    }
                }
            }
        }, "remora-ucx-accept-" + name());
        t.setDaemon(true);
        t.start();
    }

    // ---------------------------------------------------------------- identity

    long incarnation() {
        return incarnation;
    }

    byte[] workerAddress() {
        return workerAddress;
    }

    MemorySegment workerAddressSegment() {
        return workerAddressSegment;
    }

    int eventFd() {
        return eventFd;
    }

    MemorySegment workerHandle() {
        return workerHandle;
    }

    Ucx ucx() {
        return ucx;
    }

    // ---------------------------------------------------------------- memory

    @Override
    protected MemoryRegion registerBuffer(ByteBuffer buffer, int access) {
        ensureAlive();
        lock.lock();
        try {
            int key;
            do {
                key = ThreadLocalRandom.current().nextInt();
            } while (key == 0 || regions.containsKey(key));
            UcpMemory memory = context.registerMemory(buffer);
            ByteBuffer packed = memory.getRemoteKeyBuffer();
            MemorySegment packedKey = arena.allocate(packed.remaining(), 8);
            MemorySegment.copy(MemorySegment.ofBuffer(packed), 0, packedKey, 0, packed.remaining());
            long base = MemorySegment.ofBuffer(buffer).address();
            UcxRegion r = new UcxRegion(this, buffer, base, key, access, memory, packedKey);
            // The map's volatile publication makes the region (and its zeroed memory) visible to key lookups.
            regions.put(key, r);
            return r;
        } finally {
            lock.unlock();
        }
    }

    UcxRegion region(int key) {
        return regions.get(key);
    }

    /** Deregistration ({@link UcxRegion#forget()}): peers forget the key, then the mapping goes. */
    void deregister(UcxRegion r) {
        regions.remove(r.key());
        if (!fabric().isClosed()) {
            fabric().revoke(this, r.key());
        }
        lock.lock();
        try {
            r.memory().deregister();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "ucp_mem_unmap of {0}: {1}", new Object[] {r, e});
        } finally {
            lock.unlock();
        }
    }

    /** The answer to a peer's KEY request: the region's base, length, access and packed UCX key, or unknown. */
    byte[] keyAnswer(int key) {
        UcxRegion r = regions.get(key);
        if (r == null || !r.isRegistered() || isCrashed()) {
            return ControlConnection.body(o -> o.writeBoolean(false));
        }
        byte[] packed = r.packedKey().toArray(ValueLayout.JAVA_BYTE);
        return ControlConnection.body(o -> {
            o.writeBoolean(true);
            o.writeLong(r.address());
            o.writeLong(r.length());
            o.writeInt(r.access());
            ControlConnection.writeBytes(o, packed);
        });
    }

    // ---------------------------------------------------------------- queues

    @Override
    protected CompletionQueue newCompletionQueue(int depth) {
        return new UcxCompletionQueue(this, depth);
    }

    private UcxCompletionQueue ownCq(CompletionQueue cq, String which) {
        Objects.requireNonNull(cq, which + " completion queue");
        if (!(cq instanceof UcxCompletionQueue u) || u.node() != this) {
            throw new IllegalArgumentException("the " + which + " completion queue belongs to another node or provider");
        }
        return u;
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        fabric().ensureOpen();
        UcxCompletionQueue s = ownCq(sendCq, "send");
        UcxCompletionQueue r = recvCq == null ? s : ownCq(recvCq, "receive");
        return newQueuePair(s, r);
    }

    private UcxQueuePair newQueuePair(UcxCompletionQueue s, UcxCompletionQueue r) {
        int qpn = nextQpn.getAndIncrement();
        UcxQueuePair qp = new UcxQueuePair(this, qpn, s, r);
        queuePairs.put(qpn, qp);
        return qp;
    }

    UcxQueuePair queuePair(int qpn) {
        return queuePairs.get(qpn);
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (!(local instanceof UcxQueuePair l) || l.ucxNode() != this) {
            throw new IllegalArgumentException("the local queue pair must be one of node " + name());
        }
        fabric().ensureOpen();
        ensureAlive();
        Node target = fabric().resolve(remote.node());
        if (target == this) {
            throw new IllegalArgumentException("cannot connect two queue pairs of the same node");
        }
        if (l.state() != QpState.RESET || remote.state() != QpState.RESET) {
            throw new IllegalStateException("both queue pairs must be in RESET");
        }
        if (target instanceof UcxNode t) {
            UcxQueuePair r = t.queuePair(remote.qpNumber());
            if (r == null || r != remote) {
                throw new IllegalArgumentException("queue pair " + remote.qpNumber() + " is not one of " + t.name());
            }
            bindTo(l, t, r.qpNumber());
            t.bindTo(r, this, l.qpNumber());
            return;
        }
        UcxPeerNode p = (UcxPeerNode) target;
        // As with rdma_cm: the peer's queue pair is named by its node and number; its process binds it to ours.
        fabric().connectRemote(this, l, p, remote.qpNumber());
        bindTo(l, p, remote.qpNumber());
    }

    /**
     * Binds a queue pair of this node to a queue pair of a target node. A new endpoint is wired up before this
     * returns (at most the connect timeout), as {@code rdma_connect} does, so that the first request does not pay
     * for UCX's wire-up.
     */
    void bindTo(UcxQueuePair qp, Node target, int targetQpn) {
        UcxLink l;
        boolean fresh;
        lock.lock();
        try {
            UcxLink before = links.get(target.id());
            l = link(target);
            fresh = l != before;
            qp.bind(l, target.id(), targetQpn);
        } finally {
            lock.unlock();
        }
        if (fresh) {
            awaitWireUp(l);
        }
    }

    /**
     * Waits until a flush of a new endpoint completes (UCX has then wired it up to the target) and a ping came back,
     * then reads the endpoint's lanes to choose how WRITEs are ordered on it ({@link UcxContext.Ordering#AUTO}).
     */
    private void awaitWireUp(UcxLink l) {
        MemorySegment flush;
        lock.lock();
        try {
            if (l.ep.address() == 0) {
                return;
            }
            flush = (MemorySegment) ucx.epFlushNbx.invokeExact(l.ep, plainParam);
            if (Ucx.isError(flush)) {
                return;
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
        if (flush.address() != 0 && !awaitRequest(flush, wireUpTimeoutNs())) {
            return;
        }
        ping(l);
        lock.lock();
        try {
            if (l.ep.address() != 0) {
                l.requestLanes = Ucx.requestLanes(ucx.endpointInfo(l.ep));
                // R6, R7: a fence orders the requests of one lane only (UCX 1.13); more lanes need flushes.
                l.flushOrdering = fabric().context().ordering() == UcxContext.Ordering.FLUSH
                    || (fabric().context().ordering() == UcxContext.Ordering.AUTO && l.requestLanes != 1);
            }
        } finally {
            lock.unlock();
        }
    }

    /** How long connecting waits for UCX's wire-up: a peer that takes longer is as good as dead (R20). */
    private long wireUpTimeoutNs() {
        return Math.min(fabric().context().connectTimeoutNs(), fabric().context().retryTimeoutNs());
    }

    private int nextPing = 1;
    private final java.util.Set<Integer> pingsAnswered = new java.util.HashSet<>();

    /**
     * Sends an active message to the target's queue pair 0 (none: it answers "receiver not ready") and waits for
     * the answer, so that UCX has wired up the way back too before the first request needs it.
     */
    private void ping(UcxLink l) {
        MemorySegment header = arena.allocate(UcxWqe.AM_HEADER_BYTES, 8);
        int seq;
        MemorySegment req;
        lock.lock();
        try {
            if (l.ep.address() == 0) {
                return;
            }
            seq = nextPing++;
            header.set(ValueLayout.JAVA_INT, 0, 0);
            header.set(ValueLayout.JAVA_INT, 4, id());
            header.set(ValueLayout.JAVA_INT, 8, 0);
            header.set(ValueLayout.JAVA_INT, 12, seq);
            req = (MemorySegment) ucx.amSendNbx.invokeExact(l.ep, AM_SEND, header, (long) UcxWqe.AM_HEADER_BYTES,
                MemorySegment.NULL, 0L, amSendParam);
            if (Ucx.isError(req)) {
                return;
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
        if (req.address() != 0 && !awaitRequest(req, wireUpTimeoutNs())) {
            return;
        }
        long deadline = System.nanoTime() + wireUpTimeoutNs();
        while (System.nanoTime() - deadline < 0 && !fabric().isClosed()) {
            lock.lock();
            try {
                if (pingsAnswered.remove(seq)) {
                    return;
                }
                service(System.nanoTime());
            } finally {
                lock.unlock();
            }
            fabric().wake();
            LockSupport.parkNanos(20_000);
        }
    }

    /**
     * Waits for a UCX request this thread issued, progressing the worker meanwhile, then frees it; one still in
     * flight after {@code timeoutNs} is left to the orphans.
     *
     * @return whether it completed successfully in time
     */
    private boolean awaitRequest(MemorySegment request, long timeoutNs) {
        long deadline = System.nanoTime() + timeoutNs;
        while (true) {
            lock.lock();
            try {
                int st = ucx.checkStatus(request);
                if (st != Ucx.UCS_INPROGRESS) {
                    ucx.free(request);
                    return st == Ucx.UCS_OK;
                }
                if (System.nanoTime() - deadline > 0 || fabric().isClosed()) {
                    answersInFlight.add(new Object[] {request, null}); // freed when it completes
                    return false;
                }
                service(System.nanoTime());
            } finally {
                lock.unlock();
            }
            fabric().wake();
            LockSupport.parkNanos(20_000);
        }
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        Objects.requireNonNull(target, "target");
        UcxCompletionQueue c = ownCq(cq, "send");
        Node resolved = fabric().resolve(target);
        fabric().ensureOpen();
        ensureAlive();
        UcxQueuePair qp = newQueuePair(c, c);
        bindTo(qp, resolved, 0);
        return qp;
    }

    /** The link to a target, made on first use (and again for a restarted peer). Under the lock. */
    UcxLink link(Node target) {
        UcxLink l = links.get(target.id());
        long inc = target instanceof UcxPeerNode p ? p.incarnation() : 0;
        if (l != null && l.targetIncarnation == inc && l.failed == 0) {
            return l;
        }
        if (l != null) {
            deadLinks.add(l);
        }
        MemorySegment wa = target instanceof UcxNode n ? n.workerAddressSegment()
            : ((UcxPeerNode) target).workerAddress();
        l = new UcxLink(this, target.id(), wa, inc, fabric().context().ordering());
        links.put(target.id(), l);
        ensureEndpoint(l);
        return l;
    }

    private boolean ensureEndpoint(UcxLink l) {
        if (l.ep.address() != 0) {
            return true;
        }
        if (l.failed != 0) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment params = a.allocate(Ucx.EP_PARAMS);
            params.set(ValueLayout.JAVA_LONG, 0, Ucx.UCP_EP_PARAM_FIELD_REMOTE_ADDRESS
                | Ucx.UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE);
            params.set(ValueLayout.ADDRESS, 8, l.workerAddress);
            // Peer failure handling: a peer's death fails its requests instead of aborting the process.
            params.set(ValueLayout.JAVA_INT, 16, Ucx.UCP_ERR_HANDLING_MODE_PEER);
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            int st = (int) ucx.epCreate.invokeExact(workerHandle, params, out);
            if (st != Ucx.UCS_OK) {
                l.failed = st;
                LOG.log(Level.WARNING, "ucp_ep_create from {0} to node {1}: {2}", new Object[] {name(), l.targetId,
                    ucx.describe(st)});
                return false;
            }
            l.ep = out.get(ValueLayout.ADDRESS, 0);
            return true;
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
    }

    /** UCX failed the endpoint (the peer died or cannot be reached): new queue pairs get a fresh link. */
    void endpointFailed(UcxLink l, int status) {
        if (l.failed == 0) {
            l.failed = status;
        }
        if (links.get(l.targetId) == l) {
            links.remove(l.targetId);
            deadLinks.add(l);
        }
    }

    /**
     * The record of a target's remote key, fetched on first use: at once for a node of this process, from the
     * target's connection manager otherwise (the record stays pending until the answer). Under the lock.
     *
     * @return the record, or null if no endpoint to the target can be made
     */
    UcxLink.KeyRecord key(UcxLink l, int key) {
        if (!ensureEndpoint(l)) {
            return null;
        }
        UcxLink.KeyRecord k = l.keys.get(key);
        if (k != null) {
            return k;
        }
        k = new UcxLink.KeyRecord(key);
        l.keys.put(key, k);
        Node target = fabric().nodeOrNull(l.targetId);
        if (target instanceof UcxNode t) {
            UcxRegion r = t.region(key);
            if (r == null || !r.isRegistered()) {
                k.pending = false;
                k.refused = true;
            } else {
                resolve(l, k, r.address(), r.length(), r.access(), r.packedKey());
            }
        } else if (target instanceof UcxPeerNode p) {
            keyRequests++;
            UcxLink.KeyRecord record = k;
            ControlConnection c = p.control();
            if (c == null || c.isClosed()) {
                l.keys.remove(key); // asked again next time; the waiting request times out (R20)
                return k;
            }
            c.ask(ControlConnection.KEY, ControlConnection.body(o -> o.writeInt(key)))
                .whenComplete((bytes, error) -> keyAnswered(l, record, bytes, error));
        } else {
            k.pending = false;
            k.refused = true;
        }
        return k;
    }

    private void resolve(UcxLink l, UcxLink.KeyRecord k, long base, long length, int access, MemorySegment packed) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            int st = (int) ucx.epRkeyUnpack.invokeExact(l.ep, packed, out);
            k.pending = false;
            if (st != Ucx.UCS_OK) {
                LOG.log(Level.WARNING, "ucp_ep_rkey_unpack: {0}", ucx.describe(st));
                k.refused = true;
                return;
            }
            k.rkey = out.get(ValueLayout.ADDRESS, 0);
            k.base = base;
            k.length = length;
            k.access = access;
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
    }

    private void keyAnswered(UcxLink l, UcxLink.KeyRecord k, byte[] bytes, Throwable error) {
        lock.lock();
        try {
            if (error != null) {
                if (l.keys.get(k.key) == k) {
                    l.keys.remove(k.key); // asked again next time; the waiting requests time out (R20)
                }
                return;
            }
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
            if (!in.readBoolean()) {
                k.pending = false;
                k.refused = true;
            } else {
                long base = in.readLong();
                long length = in.readLong();
                int access = in.readInt();
                byte[] packed = ControlConnection.readBytes(in, 1 << 16);
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment p = a.allocate(Math.max(1, packed.length), 8);
                    MemorySegment.copy(packed, 0, p, ValueLayout.JAVA_BYTE, 0, packed.length);
                    if (l.ep.address() == 0) {
                        k.pending = false;
                        k.refused = true;
                    } else {
                        resolve(l, k, base, length, access, p);
                    }
                }
            }
            long now = System.nanoTime();
            for (UcxQueuePair qp : k.waiters) {
                qp.keyResolved(now);
            }
            k.waiters.clear();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "malformed KEY answer: {0}", e.toString());
        } finally {
            lock.unlock();
        }
        fabric().wake();
    }

    /**
     * Forgets a target's key and waits (at most the retry timeout) until the requests this node already issued to
     * the target have completed, so the target may unmap the region: a peer's INVALIDATE, or a local deregistration.
     */
    void invalidate(int targetId, int key) {
        MemorySegment flush = MemorySegment.NULL;
        lock.lock();
        try {
            UcxLink l = links.get(targetId);
            if (l == null) {
                return;
            }
            UcxLink.KeyRecord k = l.keys.remove(key);
            if (k != null && k.rkey.address() != 0) {
                l.retiredKeys.add(k.rkey);
            }
            if (l.ep.address() != 0 && l.failed == 0 && !isCrashed()) {
                MemorySegment p = (MemorySegment) ucx.epFlushNbx.invokeExact(l.ep, plainParam);
                flushes++;
                if (!Ucx.isError(p)) {
                    flush = p;
                }
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
        if (flush.address() != 0) {
            awaitRequest(flush, fabric().context().retryTimeoutNs());
        }
    }

    // ---------------------------------------------------------------- progress (under the lock)

    void activate(UcxQueuePair qp) {
        active.add(qp);
    }

    boolean hasActive() {
        return !active.isEmpty();
    }

    /**
     * Arms the worker's event descriptor before the progress thread sleeps ({@code ucp_worker_arm}). Under the lock.
     *
     * @return false if the thread must not sleep: events are pending, or the arming itself ran the AM handler and
     *     left answers to send
     */
    boolean arm() {
        try {
            int st = (int) ucx.workerArm.invokeExact(workerHandle);
            return st == Ucx.UCS_OK && answers.isEmpty();
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
    }

    void fence() {
        ucx.fence(workerHandle);
        fenceEpoch++;
    }

    /** @return a request parameter with no field set (shared: UCX reads it only during the call) */
    MemorySegment plainParam() {
        return plainParam;
    }

    /** @return the parameter of a fetching 64-bit atomic whose reply goes to {@code reply} */
    MemorySegment atomicParam(MemorySegment reply) {
        atomicParam.set(ValueLayout.ADDRESS, Ucx.PARAM_REPLY_BUFFER, reply);
        return atomicParam;
    }

    MemorySegment amSendParam() {
        return amSendParam;
    }

    UcxWqe newWqe() {
        UcxWqe w = new UcxWqe();
        w.slot = arena.allocate(UcxWqe.SLOT_BYTES, 8);
        return w;
    }

    MemorySegment allocateNative(int bytes) {
        return arena.allocate(bytes, 8);
    }

    /** Keeps an entry whose UCX requests are still in flight until UCX completes them (never reused). */
    void orphan(UcxWqe w) {
        if (w.ucxBusy() && !w.orphaned) {
            w.orphaned = true;
            orphans.add(w);
        }
    }

    /**
     * Progresses the worker, the queue pairs with requests and the orphans. Under the lock.
     *
     * @param now the time
     * @return whether anything happened
     */
    boolean service(long now) {
        if (isCrashed()) {
            return false; // a crashed node's worker is progressed no more: its peers' requests go unanswered
        }
        boolean any = false;
        for (int i = 0; i < 64 && ucx.progress(workerHandle) > 0; i++) {
            any = true;
        }
        any |= sendAnswers();
        if (!active.isEmpty()) {
            Iterator<UcxQueuePair> it = active.iterator();
            List<UcxQueuePair> snapshot = new ArrayList<>(active.size());
            while (it.hasNext()) {
                snapshot.add(it.next());
            }
            for (UcxQueuePair qp : snapshot) {
                any |= qp.advance(now);
                if (!qp.busy()) {
                    active.remove(qp);
                }
            }
        }
        if (!orphans.isEmpty() || !answersInFlight.isEmpty()) {
            any |= reap();
        }
        return any;
    }

    /** A completion queue found nothing: progress here if no other thread is. */
    boolean pollProgress() {
        if (isCrashed() || !lock.tryLock()) {
            return false;
        }
        try {
            return service(System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    private boolean reap() {
        boolean any = false;
        for (Iterator<UcxWqe> it = orphans.iterator(); it.hasNext(); ) {
            UcxWqe w = it.next();
            if (w.req != null && ucx.checkStatus(w.req) != Ucx.UCS_INPROGRESS) {
                ucx.free(w.req);
                w.req = null;
            }
            if (w.flushReq != null && ucx.checkStatus(w.flushReq) != Ucx.UCS_INPROGRESS) {
                ucx.free(w.flushReq);
                w.flushReq = null;
            }
            if (!w.ucxBusy()) {
                it.remove();
                any = true;
            }
        }
        for (Iterator<Object[]> it = answersInFlight.iterator(); it.hasNext(); ) {
            Object[] a = it.next();
            MemorySegment req = (MemorySegment) a[0];
            if (ucx.checkStatus(req) != Ucx.UCS_INPROGRESS) {
                ucx.free(req);
                if (a[1] != null) {
                    answerHeaders.add((MemorySegment) a[1]);
                }
                it.remove();
                any = true;
            }
        }
        return any;
    }

    // ---------------------------------------------------------------- active messages

    /**
     * The AM handler ({@code ucp_am_recv_callback_t}), called by {@code ucp_worker_progress} under the lock. A SEND
     * is matched with the next receive of its destination queue pair and answered with the outcome; an answer
     * completes the SEND it names. Never throws (an upcall must not).
     */
    @SuppressWarnings("unused") // called from native code through the upcall stub
    private int onActiveMessage(MemorySegment arg, MemorySegment header, long headerLength, MemorySegment data,
                                long length, MemorySegment param) {
        try {
            int amId = (int) arg.address();
            MemorySegment h = header.reinterpret(headerLength); // at any alignment (over TCP it is not)
            MemorySegment p = param.reinterpret(Ucx.AM_RECV_PARAM_SIZE);
            long attr = p.get(ValueLayout.JAVA_LONG, 0);
            if (amId == AM_SEND && headerLength >= UcxWqe.AM_HEADER_BYTES) {
                int dstQpn = h.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                int fromNode = h.get(ValueLayout.JAVA_INT_UNALIGNED, 4);
                int fromQpn = h.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
                int seq = h.get(ValueLayout.JAVA_INT_UNALIGNED, 12);
                WcStatus status;
                if ((attr & Ucx.UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
                    status = WcStatus.REM_OP_ERR; // a rendezvous SEND: not configured (RNDV_THRESH=inf)
                } else {
                    UcxQueuePair qp = queuePairs.get(dstQpn);
                    status = qp == null ? WcStatus.RNR_RETRY_EXC_ERR
                        : qp.received(fromNode, fromQpn, data.reinterpret(length), length);
                }
                if ((attr & Ucx.UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0) {
                    MemorySegment replyEp = p.get(ValueLayout.ADDRESS, 8);
                    MemorySegment a = answerHeaders.isEmpty() ? arena.allocate(16, 8) : answerHeaders.poll();
                    a.set(ValueLayout.JAVA_INT, 0, fromQpn);
                    a.set(ValueLayout.JAVA_INT, 4, seq);
                    a.set(ValueLayout.JAVA_INT, 8, status.ordinal());
                    answers.add(new Object[] {replyEp, a});
                }
            } else if (amId == AM_ANSWER && headerLength >= ANSWER_BYTES) {
                if (h.get(ValueLayout.JAVA_INT_UNALIGNED, 0) == 0) {
                    pingsAnswered.add(h.get(ValueLayout.JAVA_INT_UNALIGNED, 4));
                    return Ucx.UCS_OK;
                }
                UcxQueuePair qp = queuePairs.get(h.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                int status = h.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
                if (qp != null && status >= 0 && status < WcStatus.values().length) {
                    qp.sendAnswered(h.get(ValueLayout.JAVA_INT_UNALIGNED, 4), status);
                }
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "active message handler of " + name() + " failed", t);
        }
        return Ucx.UCS_OK;
    }

    /** Sends the answers the AM handler queued (outside {@code ucp_worker_progress}). */
    private boolean sendAnswers() {
        boolean any = false;
        Object[] a;
        while ((a = answers.poll()) != null) {
            any = true;
            MemorySegment ep = (MemorySegment) a[0];
            MemorySegment header = (MemorySegment) a[1];
            try {
                MemorySegment r = (MemorySegment) ucx.amSendNbx.invokeExact(ep, AM_ANSWER, header,
                    (long) ANSWER_BYTES, MemorySegment.NULL, 0L, amAnswerParam);
                if (!Ucx.isError(r) && r.address() != 0) {
                    answersInFlight.add(new Object[] {r, header});
                } else {
                    answerHeaders.add(header);
                }
            } catch (Throwable t) {
                throw Ucx.rethrow(t);
            }
        }
        return any;
    }

    /**
     * Maps a UCX status of a failed request onto a completion status.
     *
     * @param ucs the {@code ucs_status_t}
     * @return RETRY_EXC_ERR for a dead or unreachable peer, WR_FLUSH_ERR for a cancelled request, REM_OP_ERR else
     */
    static WcStatus wcStatus(int ucs) {
        if (ucs == Ucx.UCS_ERR_CANCELED) {
            return WcStatus.WR_FLUSH_ERR;
        }
        if (ucs == Ucx.UCS_ERR_TIMED_OUT || ucs == Ucx.UCS_ERR_UNREACHABLE || ucs == Ucx.UCS_ERR_CONNECTION_RESET
            || ucs == Ucx.UCS_ERR_NOT_CONNECTED || ucs == Ucx.UCS_ERR_IO_ERROR
            || (ucs <= Ucx.UCS_ERR_FIRST_LINK_FAILURE && ucs >= Ucx.UCS_ERR_LAST_ENDPOINT_FAILURE)) {
            return WcStatus.RETRY_EXC_ERR;
        }
        return WcStatus.REM_OP_ERR;
    }

    // ---------------------------------------------------------------- misc

    /** Stops answering: the listener closes, the worker is progressed no more, connections go silent. */
    void crash() {
        markCrashed();
        closeListener();
    }

    private void closeListener() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    void forget(UcxQueuePair qp) {
        if (queuePairs.remove(qp.qpNumber()) != null) {
            active.remove(qp);
            retired = retired.plus(qp.statisticsLocked());
        }
    }

    VerbsStatistics statistics() {
        lock.lock();
        try {
            VerbsStatistics s = retired;
            for (UcxQueuePair qp : queuePairs.values()) {
                s = s.plus(qp.statisticsLocked());
            }
            return s;
        } finally {
            lock.unlock();
        }
    }

    /** @return for each target this node has an endpoint to: its request lanes and how WRITEs are ordered on it */
    Map<Integer, String> endpoints() {
        lock.lock();
        try {
            Map<Integer, String> out = new java.util.TreeMap<>();
            for (UcxLink l : links.values()) {
                out.put(l.targetId, l.requestLanes + (l.requestLanes == 1 ? " lane, " : " lanes, ")
                    + (l.flushOrdering ? "flush" : "fence"));
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** @return {@code ucp_ep_print_info} of this node's endpoint to a target, or null if it has none */
    String endpointInfo(int targetId) {
        lock.lock();
        try {
            UcxLink l = links.get(targetId);
            return l == null || l.ep.address() == 0 ? null : ucx.endpointInfo(l.ep);
        } finally {
            lock.unlock();
        }
    }

    /** UCX-level counters of this node: fences, flushes, key requests. */
    long[] ucxCounters() {
        lock.lock();
        try {
            return new long[] {fenceEpoch, flushes, keyRequests};
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- closing, in phases the fabric runs for all nodes

    /** Closing, phase 1: the listener, the regions and the queue pairs go; UCX objects stay. */
    void closeQueues() {
        closeListener();
        for (UcxRegion r : new ArrayList<>(regions.values())) {
            r.deregister();
        }
        lock.lock();
        try {
            for (UcxQueuePair qp : new ArrayList<>(queuePairs.values())) {
                qp.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Progresses the worker once, crashed or not (while closing, every worker of the process is progressed until all
     * are quiet: UCX 1.13 aborts in {@code ucp_worker_destroy} if a wire-up message is still pending on a TCP
     * endpoint, and a peer's pending message may be for this worker).
     *
     * @return how much progress UCX made
     */
    int progressOnce() {
        lock.lock();
        try {
            return ucx.progress(workerHandle);
        } finally {
            lock.unlock();
        }
    }

    private final List<MemorySegment> closing = new ArrayList<>();

    /** Closing, phase 2: every endpoint is closed gracefully ({@code ucp_ep_close_nbx} in flush mode). */
    void closeEndpoints() {
        lock.lock();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Ucx.REQUEST_PARAM); // no FORCE flag: flush, then disconnect
            List<UcxLink> all = new ArrayList<>(links.values());
            all.addAll(deadLinks);
            for (UcxLink l : all) {
                if (l.ep.address() != 0) {
                    MemorySegment r = (MemorySegment) ucx.epCloseNbx.invokeExact(l.ep, p);
                    l.ep = MemorySegment.NULL;
                    if (!Ucx.isError(r) && r.address() != 0) {
                        closing.add(r);
                    }
                }
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether every endpoint close has completed (freeing those that did) */
    boolean endpointsClosed() {
        lock.lock();
        try {
            closing.removeIf(r -> {
                if (ucx.checkStatus(r) != Ucx.UCS_INPROGRESS) {
                    ucx.free(r);
                    return true;
                }
                return false;
            });
            return closing.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Closing, phase 3: the keys, the worker, the context and the native memory go (unless UCX still holds some). */
    void destroy() {
        lock.lock();
        try {
            reap();
            List<UcxLink> all = new ArrayList<>(links.values());
            all.addAll(deadLinks);
            for (UcxLink l : all) {
                for (UcxLink.KeyRecord k : l.keys.values()) {
                    if (k.rkey.address() != 0) {
                        l.retiredKeys.add(k.rkey);
                    }
                }
                for (MemorySegment rk : l.retiredKeys) {
                    ucx.rkeyDestroy.invokeExact(rk);
                }
                l.retiredKeys.clear();
                l.keys.clear();
            }
            links.clear();
            deadLinks.clear();
            if (orphans.isEmpty() && answersInFlight.isEmpty() && closing.isEmpty()) {
                worker.close();
                context.close();
                arena.close();
            } else {
                // UCX still holds requests that write into this node's memory: leave the worker and memory to the
                // process's end rather than free what UCX may touch.
                LOG.log(Level.FINE, "node {0} closed with {1} UCX requests in flight", new Object[] {name(),
                    orphans.size() + answersInFlight.size() + closing.size()});
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UcxNode{" + name() + " id=" + id() + " at " + address() + (isCrashed() ? ", crashed" : "") + '}';
    }
}
