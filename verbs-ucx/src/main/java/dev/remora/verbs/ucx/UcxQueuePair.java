package dev.remora.verbs.ucx;

import dev.remora.verbs.Access;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Node;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.spi.VerbCounters;
import dev.remora.verbs.spi.WorkRequestChecks;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A queue pair of the UCX fabric: a send queue of requests that this provider issues, in posting order, as
 * {@code ucp_get_nbx}, {@code ucp_put_nbx}, {@code ucp_atomic_op_nbx} and {@code ucp_am_send_nbx} on the UCX endpoint
 * of its node and target ({@link UcxLink}), and a receive queue that SENDs from its peer queue pair consume.
 *
 * <h2>Issue rules (the mapping of R6 to R13 onto UCX)</h2>
 * UCX promises no order between the operations of an endpoint. A request is therefore issued only when the verbs
 * order allows it to overtake whatever is still in flight before it on this queue pair:
 * <ul>
 *   <li>after a READ still in flight, only a WRITE without FENCE may be issued (R8, R13); after an atomic or a SEND
 *       in flight, nothing (R9, and R6 for the atomic's write phase): they are waited for;</li>
 *   <li>after a WRITE, the next request is issued behind a {@code ucp_worker_fence} on an endpoint with one lane for
 *       requests (R6, R7: UCX 1.13 keeps a fence's operations apart on each lane), or only once the WRITE's
 *       {@code ucp_ep_flush_nbx} completed (placed at the target) on one with several, or always with
 *       {@link UcxContext.Ordering#FLUSH} ({@link UcxLink#flushOrdering}).</li>
 * </ul>
 * A signaled WRITE completes when a flush issued after it completes, so a WRITE's completion means it was placed
 * (stronger than R11's acknowledgement). A READ or atomic completes when its data arrived, written straight into the
 * local region (R4); an atomic's result is copied there from the entry's slot just before its completion.
 *
 * <h2>Refusals and errors (R17, R20)</h2>
 * Keys, bounds, access flags and alignment are checked before a request is issued, against the key record its target
 * issued ({@link UcxLink.KeyRecord}): a refused request is never issued, and nothing after it is. Completions are
 * delivered strictly in posting order; the first failure moves the queue pair to ERROR and flushes the rest. A request
 * not completed within the retry timeout of its posting completes {@code RETRY_EXC_ERR}; UCX requests still in flight
 * then are handed to the node's orphans, which free them once UCX completes them.
 *
 * <h2>Locks</h2>
 * Everything here is guarded by the node's lock ({@link UcxNode#lock}), which also serializes every call into the
 * node's UCX worker; completion queues' monitors are leaves under it.
 */
final class UcxQueuePair implements QueuePair {
    /** How long a SEND refused for want of a receive waits before it is sent again. */
    private static final long RNR_RETRY_NS = 1_000_000L;

    record RecvEntry(long wrId, UcxRegion region, int index, int length) {
    }

    private final UcxNode node;
    private final int qpn;
    private final UcxCompletionQueue sendCq;
    private final UcxCompletionQueue recvCq;
    private final int depth;
    private final int maxInline;
    private final int maxSend;
    private final long retryTimeoutNs;
    private final long rnrTimeoutNs;

    private volatile QpState state = QpState.RESET;
    private volatile int remoteNodeId = -1;
    /** The peer queue pair SENDs go to; 0 for none (a one-sided queue pair: SENDs are refused RNR). */
    private int remoteQpn;
    private UcxLink link;

    private final ArrayDeque<UcxWqe> sq = new ArrayDeque<>();
    private final ArrayDeque<UcxWqe> waiting = new ArrayDeque<>();
    private final ArrayDeque<UcxWqe> spare = new ArrayDeque<>();
    private int pendingReads;
    private int pendingOthers;
    /** A refusal is queued: nothing after it is issued (R17). */
    private boolean stopped;
    /** A WRITE was issued and no fence followed it yet. */
    private boolean writeUnfenced;
    /** The node's fence count when that WRITE was issued: a fence since then (by any queue pair) orders it. */
    private long writeEpoch;
    private int nextSeq = 1;
    private final ArrayDeque<RecvEntry> rq = new ArrayDeque<>();
    private final VerbCounters counters = new VerbCounters();

    UcxQueuePair(UcxNode node, int qpn, UcxCompletionQueue sendCq, UcxCompletionQueue recvCq) {
        this.node = node;
        this.qpn = qpn;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        UcxContext c = node.fabric().context();
        this.depth = c.sendQueueDepth();
        this.maxInline = c.maxInlineBytes();
        this.maxSend = c.maxSendBytes();
        this.retryTimeoutNs = c.retryTimeoutNs();
        this.rnrTimeoutNs = c.rnrTimeoutNs();
    }

    @Override
    public int qpNumber() {
        return qpn;
    }

    @Override
    public Node node() {
        return node;
    }

    UcxNode ucxNode() {
        return node;
    }

    @Override
    public int remoteNodeId() {
        return remoteNodeId;
    }

    int remoteQpn() {
        return remoteQpn;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    UcxLink link() {
        return link;
    }

    /** RESET to RTS ({@code ibv_modify_qp} INIT, RTR, RTS). Called under the node's lock. */
    void bind(UcxLink l, int peerNodeId, int peerQpn) {
        if (state != QpState.RESET) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is " + state
                + ", not RESET");
        }
        link = l;
        remoteNodeId = peerNodeId;
        remoteQpn = peerQpn;
        state = QpState.RTS;
    }

    // ---------------------------------------------------------------- posting

    @Override
    public int post(WorkRequest wr) {
        check(wr, 0);
        return post(null, wr, 1);
    }

    @Override
    public int post(WorkRequest[] wrs, int count) {
        WorkRequestChecks.checkList(wrs, count);
        for (int i = 0; i < count; i++) {
            check(wrs[i], i);
        }
        return post(wrs, null, count);
    }

    private void check(WorkRequest wr, int index) {
        WorkRequestChecks.checkSendable(wr, index, maxInline, maxSend);
    }

    private void postable() {
        node.fabric().ensureOpen();
        node.ensureAlive();
        WorkRequestChecks.checkPostable(state, qpn, node.name());
    }

    private int post(WorkRequest[] wrs, WorkRequest one, int count) {
        postable();
        node.lock.lock();
        try {
            postable();
            if (sq.size() + count > depth || !sendCq.reserve(count)) {
                return QUEUE_FULL;
            }
            boolean signaled = false;
            long now = System.nanoTime();
            for (int i = 0; i < count; i++) {
                WorkRequest wr = one != null ? one : wrs[i];
                signaled |= wr.has(WorkRequest.SIGNALED);
                enqueue(wr, now);
            }
            counters.doorbell(signaled);
            node.activate(this);
            advance(now);
        } finally {
            node.lock.unlock();
        }
        node.fabric().wake();
        return POSTED;
    }

    private void enqueue(WorkRequest wr, long now) {
        UcxWqe w = spare.isEmpty() ? node.newWqe() : spare.poll();
        w.copyFrom(wr);
        w.seq = nextSeq++;
        w.postedNs = now;
        w.sentNs = now;
        counters.posted(w.opcode, w.length);
        if (state == QpState.ERROR) {
            // R17: once in ERROR every request completes WR_FLUSH_ERR, with no effect.
            complete(w, WcStatus.WR_FLUSH_ERR);
            return;
        }
        UcxRegion r = node.region(wr.lkey());
        if (w.has(WorkRequest.INLINE)) {
            // R3 does not apply: INLINE reads the source at post time.
            if (w.length > 0) {
                if (r == null || !r.isRegistered() || !r.contains(wr.localAddress(), w.length)) {
                    w.localError = WcStatus.LOC_PROT_ERR;
                } else {
                    if (w.inline == null) {
                        w.inline = node.allocateNative(Math.max(8, maxInline));
                    }
                    MemorySegment.copy(r.segment(), r.indexOf(wr.localAddress()), w.inline, 0, w.length);
                }
            }
        } else {
            int needed = w.opcode == Opcode.READ || w.opcode.isAtomic() ? Access.LOCAL_WRITE : 0;
            if (r == null || !r.isRegistered() || !r.contains(wr.localAddress(), w.length) || !r.allows(needed)) {
                w.localError = WcStatus.LOC_PROT_ERR;
            } else {
                w.local = r;
            }
        }
        sq.add(w);
        waiting.add(w);
    }

    // ---------------------------------------------------------------- progress (under the node's lock)

    /** @return whether this queue pair has requests not yet completed */
    boolean busy() {
        return !sq.isEmpty();
    }

    /**
     * Checks the requests in flight, delivers completions in posting order, issues what the rules allow, and fails
     * the oldest request when its retry timeout has passed.
     *
     * @param now the time
     * @return whether anything changed
     */
    boolean advance(long now) {
        if (state == QpState.CLOSED) {
            return false;
        }
        boolean changed = false;
        for (UcxWqe w : sq) {
            if (w.state == UcxWqe.WAITING) {
                break;
            }
            if (w.state == UcxWqe.ISSUED) {
                changed |= check(w, now);
            }
        }
        changed |= deliverDone();
        if (pump(now)) {
            changed = true;
            deliverDone();
        }
        UcxWqe head = sq.peek();
        // A SEND's clock restarts at every retry after a receiver-not-ready answer; the RNR timeout bounds those.
        if (head != null && state == QpState.RTS && head.state != UcxWqe.DONE
            && now - (head.opcode == Opcode.SEND ? head.sentNs : head.postedNs) > retryTimeoutNs) {
            // R20: the peer did not answer within the retry timeout; the request's outcome is unknown.
            node.orphan(head);
            finish(head, WcStatus.RETRY_EXC_ERR);
            deliverDone();
            changed = true;
        }
        return changed;
    }

    /** A key this queue pair waits for was answered. */
    void keyResolved(long now) {
        advance(now);
    }

    private boolean mayIssue(UcxWqe w) {
        if (w.opcode == Opcode.WRITE && !w.has(WorkRequest.FENCE)) {
            return pendingOthers == 0; // R8: a WRITE may pass an earlier READ; R9, R6: not an atomic or a SEND
        }
        return pendingReads == 0 && pendingOthers == 0; // R7, R9, R13
    }

    private boolean pump(long now) {
        boolean changed = false;
        UcxWqe w;
        while (!stopped && state == QpState.RTS && (w = waiting.peek()) != null && mayIssue(w)) {
            if (w.localError != null) {
                refuse(w, w.localError);
                return true;
            }
            if (link.failed != 0) {
                refuse(w, WcStatus.RETRY_EXC_ERR);
                return true;
            }
            UcxLink.KeyRecord k = null;
            if (w.opcode.isOneSided()) {
                k = node.key(link, w.rkey);
                if (k == null) {
                    refuse(w, WcStatus.RETRY_EXC_ERR); // the endpoint could not be created
                    return true;
                }
                if (k.pending) {
                    if (!k.waiters.contains(this)) {
                        k.waiters.add(this);
                    }
                    return changed;
                }
                int needed = w.opcode == Opcode.READ ? Access.REMOTE_READ
                    : w.opcode == Opcode.WRITE ? Access.REMOTE_WRITE : Access.REMOTE_ATOMIC;
                long len = w.opcode.isAtomic() ? Long.BYTES : w.length;
                // R17: the checks a responder NIC makes, against the key record its owner issued.
                if (k.refused || !k.contains(w.remoteAddress, len) || (k.access & needed) != needed) {
                    refuse(w, WcStatus.REM_ACCESS_ERR);
                    return true;
                }
                if (w.opcode.isAtomic() && (w.remoteAddress & 7) != 0) {
                    refuse(w, WcStatus.REM_INV_REQ_ERR);
                    return true;
                }
            }
            if (writeUnfenced) {
                if (writeEpoch == node.fenceEpoch) {
                    node.fence(); // R6, R7: the WRITEs issued so far stay ahead of what follows
                }
                writeUnfenced = false;
            }
            waiting.poll();
            issue(w, k, now);
            changed = true;
        }
        return changed;
    }

    private void refuse(UcxWqe w, WcStatus status) {
        waiting.poll();
        stopped = true;
        w.state = UcxWqe.DONE;
        w.status = status;
    }

    private MemorySegment localBuffer(UcxWqe w) {
        return w.local == null ? w.inline : w.local.segment().asSlice(w.local.indexOf(w.localAddress), w.length);
    }

    private void issue(UcxWqe w, UcxLink.KeyRecord k, long now) {
        w.state = UcxWqe.ISSUED;
        Ucx ucx = node.ucx();
        MemorySegment ep = link.ep;
        MemorySegment p;
        try {
            switch (w.opcode) {
                case READ -> {
                    hold(w, UcxWqe.HOLDS_READ);
                    if (w.length == 0) {
                        finish(w, WcStatus.SUCCESS);
                        return;
                    }
                    // R4: UCX writes the destination at some time before the request completes.
                    p = (MemorySegment) ucx.getNbx.invokeExact(ep, localBuffer(w), (long) w.length, w.remoteAddress,
                        k.rkey, node.plainParam());
                    w.req = request(w, p);
                }
                case WRITE -> {
                    boolean flushOrdering = link.flushOrdering;
                    if (flushOrdering) {
                        hold(w, UcxWqe.HOLDS_OTHER);
                    }
                    if (w.length > 0) {
                        // R3: UCX reads a non-INLINE source at some time before the request completes.
                        p = (MemorySegment) ucx.putNbx.invokeExact(ep, localBuffer(w), (long) w.length,
                            w.remoteAddress, k.rkey, node.plainParam());
                        w.req = request(w, p);
                    }
                    if (w.state == UcxWqe.DONE) {
                        return;
                    }
                    if (!flushOrdering) {
                        writeUnfenced = true; // the next request is issued behind a fence
                        writeEpoch = node.fenceEpoch;
                    }
                    if (flushOrdering || w.has(WorkRequest.SIGNALED)) {
                        // R11 (stronger): the WRITE completes once a flush after it completed, i.e. it was placed.
                        p = (MemorySegment) ucx.epFlushNbx.invokeExact(ep, node.plainParam());
                        node.flushes++;
                        w.flushReq = request(w, p);
                    }
                }
                case CAS -> {
                    hold(w, UcxWqe.HOLDS_OTHER);
                    w.slot.set(ValueLayout.JAVA_LONG, UcxWqe.REPLY, w.swap);
                    w.slot.set(ValueLayout.JAVA_LONG, UcxWqe.OPERAND, w.compareAdd);
                    // UCP_ATOMIC_OP_CSWAP: buffer holds the compare value, reply_buffer the swap value in and the
                    // remote word's old value out.
                    p = (MemorySegment) ucx.atomicOpNbx.invokeExact(ep, Ucx.UCP_ATOMIC_OP_CSWAP,
                        w.slot.asSlice(UcxWqe.OPERAND, 8), 1L, w.remoteAddress, k.rkey,
                        node.atomicParam(w.slot.asSlice(UcxWqe.REPLY, 8)));
                    w.req = request(w, p);
                }
                case FETCH_ADD -> {
                    hold(w, UcxWqe.HOLDS_OTHER);
                    w.slot.set(ValueLayout.JAVA_LONG, UcxWqe.OPERAND, w.compareAdd);
                    p = (MemorySegment) ucx.atomicOpNbx.invokeExact(ep, Ucx.UCP_ATOMIC_OP_ADD,
                        w.slot.asSlice(UcxWqe.OPERAND, 8), 1L, w.remoteAddress, k.rkey,
                        node.atomicParam(w.slot.asSlice(UcxWqe.REPLY, 8)));
                    w.req = request(w, p);
                }
                case SEND -> {
                    hold(w, UcxWqe.HOLDS_OTHER);
                    sendAm(w);
                    return;
                }
                default -> throw new IllegalStateException("cannot issue " + w.opcode);
            }
        } catch (Throwable t) {
            throw Ucx.rethrow(t);
        }
        if (w.state == UcxWqe.ISSUED && !w.ucxBusy()) {
            finish(w, WcStatus.SUCCESS); // UCX completed it at once
        }
    }

    private void sendAm(UcxWqe w) throws Throwable {
        MemorySegment h = w.slot.asSlice(UcxWqe.AM_HEADER, UcxWqe.AM_HEADER_BYTES);
        h.set(ValueLayout.JAVA_INT, 0, remoteQpn);
        h.set(ValueLayout.JAVA_INT, 4, node.id());
        h.set(ValueLayout.JAVA_INT, 8, qpn);
        h.set(ValueLayout.JAVA_INT, 12, w.seq);
        w.ack = -1;
        w.sentNs = System.nanoTime();
        MemorySegment data = w.length == 0 ? MemorySegment.NULL : localBuffer(w);
        MemorySegment p = (MemorySegment) node.ucx().amSendNbx.invokeExact(link.ep, UcxNode.AM_SEND, h,
            (long) UcxWqe.AM_HEADER_BYTES, data, (long) w.length, node.amSendParam());
        w.req = request(w, p);
    }

    /** @return the UCX request, or null when the operation completed (or failed) at once */
    private MemorySegment request(UcxWqe w, MemorySegment p) {
        if (Ucx.isError(p)) {
            failOnUcx(w, Ucx.status(p));
            return null;
        }
        return p.address() == 0 ? null : p;
    }

    private void hold(UcxWqe w, int kind) {
        w.holds = kind;
        if (kind == UcxWqe.HOLDS_READ) {
            pendingReads++;
        } else if (kind == UcxWqe.HOLDS_OTHER) {
            pendingOthers++;
        }
    }

    /** The entry is done: its hold on the issue rules ends. */
    private void finish(UcxWqe w, WcStatus status) {
        if (w.state == UcxWqe.DONE) {
            return;
        }
        w.state = UcxWqe.DONE;
        w.status = status;
        if (w.holds == UcxWqe.HOLDS_READ) {
            pendingReads--;
        } else if (w.holds == UcxWqe.HOLDS_OTHER) {
            pendingOthers--;
        }
        w.holds = UcxWqe.HOLDS_NONE;
    }

    private void failOnUcx(UcxWqe w, int ucsStatus) {
        WcStatus s = UcxNode.wcStatus(ucsStatus);
        if (s == WcStatus.RETRY_EXC_ERR) {
            node.endpointFailed(link, ucsStatus);
        }
        stopped = true; // the queue pair goes to ERROR when this reaches the head: issue nothing more
        node.orphan(w);
        finish(w, s);
    }

    private boolean check(UcxWqe w, long now) {
        Ucx ucx = node.ucx();
        boolean changed = false;
        if (w.req != null) {
            int st = ucx.checkStatus(w.req);
            if (st != Ucx.UCS_INPROGRESS) {
                ucx.free(w.req);
                w.req = null;
                changed = true;
                if (st != Ucx.UCS_OK) {
                    failOnUcx(w, st);
                    return true;
                }
            }
        }
        if (w.flushReq != null) {
            int st = ucx.checkStatus(w.flushReq);
            if (st != Ucx.UCS_INPROGRESS) {
                ucx.free(w.flushReq);
                w.flushReq = null;
                changed = true;
                if (st != Ucx.UCS_OK) {
                    failOnUcx(w, st);
                    return true;
                }
            }
        }
        if (w.opcode == Opcode.SEND) {
            if (w.req != null) {
                return changed;
            }
            if (w.retryAtNs != 0) {
                if (now - w.retryAtNs >= 0) {
                    w.retryAtNs = 0;
                    try {
                        sendAm(w);
                    } catch (Throwable t) {
                        throw Ucx.rethrow(t);
                    }
                    return true;
                }
                return changed;
            }
            if (w.ack < 0) {
                return changed;
            }
            WcStatus answer = WcStatus.values()[w.ack];
            w.ack = -1;
            if (answer == WcStatus.RNR_RETRY_EXC_ERR && now - w.postedNs < rnrTimeoutNs) {
                w.retryAtNs = now + RNR_RETRY_NS; // the receiver had no RECV posted: try again, as RNR retry does
            } else {
                finish(w, answer);
            }
            return true;
        }
        if (!w.ucxBusy()) {
            finish(w, WcStatus.SUCCESS);
            return true;
        }
        return changed;
    }

    /** The receiver of one of our SENDs answered. */
    void sendAnswered(int seq, int status) {
        for (UcxWqe w : sq) {
            if (w.opcode == Opcode.SEND && w.seq == seq && w.state == UcxWqe.ISSUED) {
                w.ack = status;
                return;
            }
        }
    }

    private boolean deliverDone() {
        boolean any = false;
        UcxWqe w;
        while ((w = sq.peek()) != null && w.state == UcxWqe.DONE) {
            sq.poll();
            any = true;
            WcStatus s = w.status;
            if (s != WcStatus.SUCCESS && state == QpState.RTS) {
                state = QpState.ERROR; // before the completion: whoever sees it sees the queue pair in ERROR
            }
            complete(w, s);
            if (s != WcStatus.SUCCESS) {
                failRest();
                return true;
            }
        }
        return any;
    }

    private void complete(UcxWqe w, WcStatus status) {
        if (node.isCrashed()) {
            recycle(w); // a crashed node completes nothing more
            return;
        }
        if (status == WcStatus.SUCCESS && w.opcode.isAtomic()) {
            // R4: the atomic's result is written to the local buffer before its completion.
            w.local.nicPutLong(w.local.indexOf(w.localAddress), w.slot.get(ValueLayout.JAVA_LONG, UcxWqe.REPLY));
        }
        sendCq.completeSend(w.wrId, status, w.opcode, w.opcode.isAtomic() ? Long.BYTES : w.length, qpn,
            w.has(WorkRequest.SIGNALED), counters);
        recycle(w);
    }

    private void recycle(UcxWqe w) {
        if (!w.orphaned) {
            w.local = null;
            spare.add(w);
        }
    }

    /** R17, R20: after the oldest request failed, every later one completes WR_FLUSH_ERR and the pair is in ERROR. */
    private void failRest() {
        if (state == QpState.RTS) {
            state = QpState.ERROR;
        }
        UcxWqe w;
        while ((w = sq.poll()) != null) {
            if (w.ucxBusy()) {
                node.orphan(w); // issued and in flight: its outcome is unknown
            }
            finish(w, WcStatus.WR_FLUSH_ERR);
            complete(w, WcStatus.WR_FLUSH_ERR);
        }
        waiting.clear();
        pendingReads = 0;
        pendingOthers = 0;
        flushReceiveQueue();
    }

    // ---------------------------------------------------------------- receive queue

    @Override
    public int postRecv(WorkRequest wr) {
        Objects.requireNonNull(wr, "work request");
        if (wr.opcode() != Opcode.RECV) {
            throw new IllegalArgumentException("postRecv takes a RECV request, not " + wr.opcode());
        }
        node.fabric().ensureOpen();
        node.ensureAlive();
        node.lock.lock();
        try {
            if (state == QpState.CLOSED) {
                throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is closed");
            }
            if (!recvCq.reserve(1)) {
                return QUEUE_FULL;
            }
            counters.received();
            if (state == QpState.ERROR) {
                recvCq.deliver(wr.wrId(), WcStatus.WR_FLUSH_ERR, Opcode.RECV, 0, qpn);
                return POSTED;
            }
            UcxRegion r = node.region(wr.lkey());
            boolean valid = r != null && r.isRegistered() && r.contains(wr.localAddress(), wr.length())
                && r.allows(Access.LOCAL_WRITE);
            rq.add(new RecvEntry(wr.wrId(), valid ? r : null, valid ? r.indexOf(wr.localAddress()) : 0, wr.length()));
        } finally {
            node.lock.unlock();
        }
        return POSTED;
    }

    /**
     * A SEND from the peer queue pair arrived (in the AM handler, under the node's lock).
     *
     * @param fromNode the sending node
     * @param fromQpn the sending queue pair
     * @param data the payload, valid during the call
     * @param length its length
     * @return the status the sender completes with
     */
    WcStatus received(int fromNode, int fromQpn, MemorySegment data, long length) {
        if (state != QpState.RTS || fromNode != remoteNodeId || fromQpn != remoteQpn || rq.isEmpty()) {
            return WcStatus.RNR_RETRY_EXC_ERR;
        }
        RecvEntry r = rq.poll();
        if (r.region() == null) {
            deliverRecv(r, WcStatus.LOC_PROT_ERR, 0);
            failRest();
            return WcStatus.REM_OP_ERR;
        }
        if (length > r.length()) {
            deliverRecv(r, WcStatus.LOC_LEN_ERR, 0);
            failRest();
            return WcStatus.REM_INV_REQ_ERR;
        }
        // The RECV's buffer is written before its completion (R4).
        MemorySegment.copy(data, 0, r.region().segment(), r.index(), length);
        deliverRecv(r, WcStatus.SUCCESS, (int) length);
        return WcStatus.SUCCESS;
    }

    private void deliverRecv(RecvEntry r, WcStatus status, int bytes) {
        if (!node.isCrashed()) {
            if (status != WcStatus.SUCCESS) {
                counters.error();
            }
            recvCq.deliver(r.wrId(), status, Opcode.RECV, bytes, qpn);
        }
    }

    private void flushReceiveQueue() {
        RecvEntry r;
        while ((r = rq.poll()) != null) {
            deliverRecv(r, WcStatus.WR_FLUSH_ERR, 0);
        }
    }

    // ---------------------------------------------------------------- misc

    @Override
    public VerbsStatistics statistics() {
        node.lock.lock();
        try {
            return counters.snapshot();
        } finally {
            node.lock.unlock();
        }
    }

    VerbsStatistics statisticsLocked() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        node.lock.lock();
        try {
            if (state == QpState.CLOSED) {
                return;
            }
            state = QpState.CLOSED;
            // ibv_destroy_qp discards outstanding requests without completions: return their reservations.
            int discarded = 0;
            UcxWqe w;
            while ((w = sq.poll()) != null) {
                if (w.ucxBusy()) {
                    node.orphan(w);
                }
                discarded++;
            }
            if (discarded > 0) {
                sendCq.release(discarded);
            }
            waiting.clear();
            if (!rq.isEmpty()) {
                recvCq.release(rq.size());
                rq.clear();
            }
            node.forget(this);
        } finally {
            node.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UcxQueuePair{" + node.name() + "#" + qpn + " -> node " + remoteNodeId + ", " + state + '}';
    }
}
