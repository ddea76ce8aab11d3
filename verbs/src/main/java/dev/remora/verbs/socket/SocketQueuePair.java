package dev.remora.verbs.socket;

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

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A queue pair of the socket fabric: one TCP connection ({@link Connection}) carries it and its peer, requests and
 * responses of both directions. Its requester side lives here: it encodes posted requests into the connection's
 * output (a list posted together is written to the socket at once: one doorbell) and matches the responses, which
 * come back in request order because the peer's service thread executes one connection's requests one at a time
 * (stronger than R6-R9 require). Its responder side, which executes the peer's requests on this node's memory, is in
 * {@link Connection}.
 *
 * <h2>Locks</h2>
 * Requester state is guarded by the monitor of the connection ({@link #conn}); the receive queue by {@code rqLock},
 * taken inside it or alone; completion queues' monitors are leaves.
 */
final class SocketQueuePair implements QueuePair {
    private final SocketNode node;
    private final int qpn;
    private final SocketCompletionQueue sendCq;
    /** Null for a passive queue pair (made for a peer's one-sided use): SENDs to it fail RNR. */
    private final SocketCompletionQueue recvCq;
    private final int depth;
    private final int maxInline;
    private final int maxSend;
    /** Injected round trip ({@link SocketContext#roundTripDelayNs}), 0 for none. */
    private final long delayNs;
    private final ArrayDeque<SocketWqe> delayed = new ArrayDeque<>();
    private long lastDueNs;

    private volatile QpState state = QpState.RESET;
    private volatile Connection conn;
    private volatile int remoteNodeId = -1;
    /** The link is gone with nothing outstanding: the next request completes RETRY_EXC_ERR (R20). */
    private boolean broken;

    private final ArrayDeque<SocketWqe> outstanding = new ArrayDeque<>();
    private final ArrayDeque<SocketWqe> unsent = new ArrayDeque<>();
    private final ArrayDeque<SocketWqe> spare = new ArrayDeque<>();
    private int nextSeq;
    /** outstanding.size(), readable without the connection's monitor. */
    private volatile int outstandingCount;
    /** A request with a local error is queued: nothing after it goes on the wire. */
    private boolean stopSending;

    private final Object rqLock = new Object();
    private final ArrayDeque<RecvEntry> rq = new ArrayDeque<>();

    private final VerbCounters counters = new VerbCounters();

    record RecvEntry(long wrId, SocketRegion region, int index, int length, boolean valid) {
    }

    SocketQueuePair(SocketNode node, int qpn, SocketCompletionQueue sendCq, SocketCompletionQueue recvCq) {
        this.node = node;
        this.qpn = qpn;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        SocketContext c = node.fabric().context();
        this.depth = c.sendQueueDepth();
        this.maxInline = c.maxInlineBytes();
        this.maxSend = c.maxSendBytes();
        this.delayNs = c.roundTripDelayNs();
    }

    @Override
    public int qpNumber() {
        return qpn;
    }

    @Override
    public Node node() {
        return node;
    }

    SocketNode socketNode() {
        return node;
    }

    @Override
    public int remoteNodeId() {
        return remoteNodeId;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    boolean isPassive() {
        return recvCq == null;
    }

    Connection connection() {
        return conn;
    }

    /** Binds the queue pair to its connection: RESET to RTS ({@code ibv_modify_qp} INIT, RTR, RTS). */
    void bind(Connection c, int peerNodeId) {
        synchronized (c) {
            if (state != QpState.RESET) {
                throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is " + state
                    + ", not RESET");
            }
            conn = c;
            remoteNodeId = peerNodeId;
            state = QpState.RTS;
        }
        if (sendCq != null) {
            sendCq.addProducer(this);
        }
    }

    /** @return whether requests are outstanding (so a poller may read their responses); a racy hint */
    boolean awaitsResponses() {
        return outstandingCount > 0;
    }

    /** Connects the queue pair to a peer it could not reach: it is RTS, and its first request fails (R20). */
    void bindUnreachable(Connection deadConnection, int peerNodeId) {
        synchronized (deadConnection) {
            conn = deadConnection;
            remoteNodeId = peerNodeId;
            broken = true;
            state = QpState.RTS;
        }
    }

    // ------------------------------------------------------------------ posting

    @Override
    public int post(WorkRequest wr) {
        check(wr, 0);
        Connection c = postable();
        synchronized (c) {
            return postLocked(c, null, wr, 1);
        }
    }

    @Override
    public int post(WorkRequest[] wrs, int count) {
        WorkRequestChecks.checkList(wrs, count);
        for (int i = 0; i < count; i++) {
            check(wrs[i], i);
        }
        Connection c = postable();
        synchronized (c) {
            return postLocked(c, wrs, null, count);
        }
    }

    private void check(WorkRequest wr, int index) {
        WorkRequestChecks.checkSendable(wr, index, maxInline, maxSend);
        if (wr.length() < 0) {
            throw new IllegalArgumentException("work request " + index + " has a negative length");
        }
        if (sendCq == null) {
            throw new IllegalStateException("queue pair " + qpn + " is passive and has no send queue");
        }
    }

    private Connection postable() {
        node.fabric().ensureOpen();
        node.ensureAlive();
        WorkRequestChecks.checkPostable(state, qpn, node.name());
        return conn;
    }

    private int postLocked(Connection c, WorkRequest[] wrs, WorkRequest one, int count) {
        if (state == QpState.CLOSED) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is closed");
        }
        if (outstanding.size() + count > depth || !sendCq.reserve(count)) {
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
        if (broken && state == QpState.RTS) {
            // Nothing answers: the oldest request fails RETRY_EXC_ERR after the retry timeout (R20).
            unsent.clear();
            node.fabric().watch(this);
            return POSTED;
        }
        completeLocalErrors();
        pump(c.out);
        c.flushOutput();
        return POSTED;
    }

    private void enqueue(WorkRequest wr, long now) {
        SocketWqe w = spare.isEmpty() ? new SocketWqe() : spare.poll();
        w.copyFrom(wr);
        w.seq = nextSeq++;
        w.postedNs = now;
        counters.posted(w.opcode, w.length);
        if (state == QpState.ERROR) {
            // R17: once in ERROR every request completes WR_FLUSH_ERR, with no effect.
            complete(w, WcStatus.WR_FLUSH_ERR);
            return;
        }
        boolean inline = w.has(WorkRequest.INLINE);
        if (inline) {
            if (w.inline.length < w.length) {
                w.inline = new byte[w.length];
            }
            copyInline(wr, w);
        } else {
            int needed = w.opcode == Opcode.READ || w.opcode.isAtomic() ? Access.LOCAL_WRITE : 0;
            SocketRegion r = node.regions().get(wr.lkey());
            if (r == null || !r.isRegistered() || !r.contains(wr.localAddress(), w.length) || !r.allows(needed)) {
                w.localError = WcStatus.LOC_PROT_ERR;
            } else {
                w.local = r;
                w.localIndex = r.indexOf(wr.localAddress());
            }
        }
        outstanding.add(w);
        outstandingCount = outstanding.size();
        if (w.localError != null) {
            stopSending = true;
        } else if (!stopSending) {
            unsent.add(w);
        }
    }

    private void copyInline(WorkRequest wr, SocketWqe w) {
        if (w.length == 0) {
            return;
        }
        // R3 does not apply: INLINE reads the source at post time.
        SocketRegion r = node.regions().get(wr.lkey());
        if (r == null || !r.contains(wr.localAddress(), w.length)) {
            w.localError = WcStatus.LOC_PROT_ERR;
            return;
        }
        r.nicCopyOut(r.indexOf(wr.localAddress()), w.inline, w.length);
    }

    /** Completes the head while it is a request refused locally (R17: everything before it has completed). */
    private void completeLocalErrors() {
        SocketWqe head = outstanding.peek();
        if (head != null && head.localError != null) {
            fail(head.localError);
        }
    }

    /**
     * Encodes as much of the unsent requests as fits. Called under the connection's monitor.
     *
     * @param out the connection's output buffer
     */
    void pump(ByteBuffer out) {
        while (!unsent.isEmpty()) {
            SocketWqe w = unsent.peek();
            if (delayNs > 0 && w.sent == 0 && System.nanoTime() - w.postedNs < delayNs / 2) {
                return; // injected latency: the request takes effect no earlier than half a round trip after posting
            }
            if (w.has(WorkRequest.FENCE) && w.sent == 0 && readOrAtomicBefore(w)) {
                return; // R13: a fenced request starts only after every earlier READ and atomic has completed
            }
            if (!encode(w, out)) {
                return;
            }
            if (w.onWire) {
                unsent.poll();
            }
        }
    }

    private boolean readOrAtomicBefore(SocketWqe w) {
        for (SocketWqe e : outstanding) {
            if (e == w) {
                return false;
            }
            if (e.opcode == Opcode.READ || e.opcode.isAtomic()) {
                return true;
            }
        }
        return false;
    }

    /** @return whether the requester has requests to encode now (not waiting behind a fence) */
    boolean hasUnsent() {
        SocketWqe w = unsent.peek();
        return w != null && !(w.has(WorkRequest.FENCE) && w.sent == 0 && readOrAtomicBefore(w));
    }

    private boolean encode(SocketWqe w, ByteBuffer out) {
        switch (w.opcode) {
            case READ -> {
                if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.READ_BODY) {
                    return false;
                }
                int f = begin(out, w, Wire.OP_READ);
                out.putInt(w.rkey).putLong(w.remoteAddress).putInt(w.length);
                Wire.end(out, f);
                w.onWire = true;
            }
            case CAS -> {
                if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.CAS_BODY) {
                    return false;
                }
                int f = begin(out, w, Wire.OP_CAS);
                out.putInt(w.rkey).putLong(w.remoteAddress).putLong(w.compareAdd).putLong(w.swap);
                Wire.end(out, f);
                w.onWire = true;
            }
            case FETCH_ADD -> {
                if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.FAA_BODY) {
                    return false;
                }
                int f = begin(out, w, Wire.OP_FAA);
                out.putInt(w.rkey).putLong(w.remoteAddress).putLong(w.compareAdd);
                Wire.end(out, f);
                w.onWire = true;
            }
            case WRITE -> {
                while (!w.onWire) {
                    int left = w.length - w.sent;
                    int room = out.remaining() - (Wire.LENGTH_BYTES + 2 + Wire.WRITE_HEAD);
                    if (room < Math.min(left, 4096) || room < 0) {
                        return false;
                    }
                    int chunk = Math.min(Math.min(left, Wire.CHUNK), room);
                    int f = begin(out, w, Wire.OP_WRITE);
                    out.putInt(w.rkey).putLong(w.remoteAddress).putInt(w.length).putInt(w.sent).putInt(chunk);
                    payload(w, out, chunk);
                    Wire.end(out, f);
                    w.sent += chunk;
                    w.onWire = w.sent == w.length;
                }
            }
            default -> {
                if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.SEND_HEAD + w.length) {
                    return false;
                }
                int f = begin(out, w, Wire.OP_SEND);
                out.putInt(w.length).putInt(0).putInt(w.length);
                payload(w, out, w.length);
                Wire.end(out, f);
                w.sent = w.length;
                w.onWire = true;
            }
        }
        return true;
    }

    private static int begin(ByteBuffer out, SocketWqe w, byte op) {
        int f = Wire.begin(out, Wire.REQUEST);
        out.putInt(w.seq).put(op);
        return f;
    }

    private static void payload(SocketWqe w, ByteBuffer out, int chunk) {
        if (w.local == null) {
            out.put(w.inline, w.sent, chunk);
        } else {
            // R3: a WRITE's or SEND's source is read at some time between posting and completion: now.
            w.local.nicCopyOut(w.localIndex + w.sent, out, chunk);
        }
    }

    // ------------------------------------------------------------------ responses (service thread, under conn)

    void onReadData(int seq, int offset, int chunk, ByteBuffer body) throws MalformedFrameException {
        SocketWqe w = outstanding.peek();
        if (w == null || w.opcode != Opcode.READ || w.seq != seq || !w.onWire) {
            throw new MalformedFrameException("READ_DATA for request " + seq + ", which is not the oldest READ "
                + "outstanding");
        }
        if (offset != w.received || chunk > w.length - offset) {
            throw new MalformedFrameException("READ_DATA of " + chunk + " bytes at " + offset + " for a READ of "
                + w.length + " bytes with " + w.received + " received");
        }
        // R4: the destination of a READ is written at some time before its completion.
        w.local.nicCopyIn(w.localIndex + offset, body, chunk);
        w.received += chunk;
    }

    void onResponse(int seq, WcStatus status, long value) throws MalformedFrameException {
        SocketWqe w = outstanding.peek();
        if (w == null || w.seq != seq || !w.onWire) {
            throw new MalformedFrameException("RESPONSE for request " + seq + ", which is not the oldest outstanding ("
                + (w == null ? "none" : w.seq) + ")");
        }
        if (status != WcStatus.SUCCESS) {
            fail(status);
            return;
        }
        switch (w.opcode) {
            case READ -> {
                if (w.received != w.length) {
                    throw new MalformedFrameException("READ of " + w.length + " bytes answered after " + w.received);
                }
            }
            // R4: the atomic's result is written to the local buffer before its completion.
            case CAS, FETCH_ADD -> w.local.nicPutLong(w.localIndex, value);
            default -> {
            }
        }
        outstanding.poll();
        outstandingCount = outstanding.size();
        complete(w, WcStatus.SUCCESS);
        completeLocalErrors();
    }

    /** Fails the oldest outstanding request if it has waited longer than the retry timeout. */
    void checkTimeout(long now, long retryTimeoutNs) {
        SocketWqe w = outstanding.peek();
        if (w != null && state == QpState.RTS && now - w.postedNs > retryTimeoutNs) {
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    /** The connection is gone (the peer crashed or closed it, or a frame was malformed). */
    void connectionLost() {
        if (state != QpState.RTS) {
            return;
        }
        if (outstanding.isEmpty()) {
            broken = true;
        } else {
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    /**
     * R17, R20: the oldest outstanding request completes with {@code status}, every later one WR_FLUSH_ERR, and the
     * queue pair goes to ERROR.
     */
    private void fail(WcStatus status) {
        fail(status, true);
    }

    private void fail(WcStatus status, boolean closeConnection) {
        if (state == QpState.RTS) {
            state = QpState.ERROR;
        }
        SocketWqe head = outstanding.poll();
        if (head != null) {
            complete(head, status);
        }
        SocketWqe w;
        while ((w = outstanding.poll()) != null) {
            complete(w, WcStatus.WR_FLUSH_ERR);
        }
        unsent.clear();
        outstandingCount = 0;
        if (!delayed.isEmpty()) {
            node.fabric().watch(this); // its connection goes: the timer delivers the delayed completions
        }
        flushReceiveQueue();
        Connection c = conn;
        if (c != null && closeConnection) {
            c.close("queue pair " + qpn + " went to ERROR (" + status + ")");
        }
    }

    private void complete(SocketWqe w, WcStatus status) {
        if (delayNs > 0) {
            // Injected latency: the completion comes a round trip after posting, in order (R11).
            w.status = status;
            w.dueNs = Math.max(w.postedNs + delayNs, lastDueNs);
            lastDueNs = w.dueNs;
            delayed.add(w);
            deliverDue(System.nanoTime());
            return;
        }
        deliver(w, status);
    }

    /** Delivers the delayed completions that are due (injected latency only). */
    void deliverDue(long now) {
        SocketWqe w;
        while ((w = delayed.peek()) != null && now - w.dueNs >= 0) {
            delayed.poll();
            deliver(w, w.status);
        }
    }

    /** @return whether injected latency holds requests or completions back */
    boolean hasDelayed() {
        return !delayed.isEmpty() || (delayNs > 0 && !unsent.isEmpty());
    }

    private void deliver(SocketWqe w, WcStatus status) {
        if (node.isCrashed()) {
            spare.add(w); // a crashed node completes nothing more
            return;
        }
        sendCq.completeSend(w.wrId, status, w.opcode, w.opcode.isAtomic() ? Long.BYTES : w.length, qpn,
            w.has(WorkRequest.SIGNALED), counters);
        w.local = null;
        spare.add(w);
    }

    // ------------------------------------------------------------------ receive queue

    @Override
    public int postRecv(WorkRequest wr) {
        Objects.requireNonNull(wr, "work request");
        if (wr.opcode() != Opcode.RECV) {
            throw new IllegalArgumentException("postRecv takes a RECV request, not " + wr.opcode());
        }
        if (recvCq == null) {
            throw new IllegalStateException("queue pair " + qpn + " is passive and has no receive queue");
        }
        node.fabric().ensureOpen();
        node.ensureAlive();
        if (state == QpState.CLOSED) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is closed");
        }
        if (!recvCq.reserve(1)) {
            return QUEUE_FULL;
        }
        SocketRegion r = node.regions().get(wr.lkey());
        boolean valid = r != null && r.contains(wr.localAddress(), wr.length()) && r.allows(Access.LOCAL_WRITE);
        synchronized (rqLock) {
            counters.received();
            if (state == QpState.ERROR) {
                recvCq.deliver(wr.wrId(), WcStatus.WR_FLUSH_ERR, Opcode.RECV, 0, qpn);
                return POSTED;
            }
            rq.add(new RecvEntry(wr.wrId(), valid ? r : null, valid ? r.indexOf(wr.localAddress()) : 0, wr.length(),
                valid));
        }
        Connection c = conn;
        if (c != null) {
            c.receivePosted();
        }
        return POSTED;
    }

    /** @return the oldest posted receive, or null; called by the responder (the peer's SEND) */
    RecvEntry takeRecv() {
        synchronized (rqLock) {
            return rq.poll();
        }
    }

    /** @return whether a receive is posted */
    boolean hasRecv() {
        synchronized (rqLock) {
            return !rq.isEmpty();
        }
    }

    void deliverRecv(RecvEntry r, WcStatus status, int byteLength) {
        if (!node.isCrashed()) {
            recvCq.deliver(r.wrId(), status, Opcode.RECV, byteLength, qpn);
        }
    }

    private void flushReceiveQueue() {
        if (recvCq == null) {
            return;
        }
        synchronized (rqLock) {
            RecvEntry r;
            while ((r = rq.poll()) != null) {
                deliverRecv(r, WcStatus.WR_FLUSH_ERR, 0);
            }
        }
    }

    /** The responder refused a peer's request: this queue pair goes to ERROR too (R17). */
    void responderFailed() {
        if (state == QpState.RTS) {
            // The refusal still has to reach the requester: the connection stays until the requester closes it.
            fail(WcStatus.WR_FLUSH_ERR, false);
        }
    }

    // ------------------------------------------------------------------ misc

    @Override
    public VerbsStatistics statistics() {
        Connection c = conn;
        Object lock = c == null ? this : c;
        synchronized (lock) {
            return counters.snapshot();
        }
    }

    @Override
    public void close() {
        Connection c = conn;
        Object lock = c == null ? this : c;
        synchronized (lock) {
            if (state == QpState.CLOSED) {
                return;
            }
            state = QpState.CLOSED;
            // ibv_destroy_qp discards outstanding requests without completions: return their reservations.
            if (!delayed.isEmpty()) {
                sendCq.release(delayed.size());
                delayed.clear();
            }
            if (!outstanding.isEmpty()) {
                sendCq.release(outstanding.size());
                outstanding.clear();
                outstandingCount = 0;
                unsent.clear();
            }
        }
        if (recvCq != null) {
            synchronized (rqLock) {
                recvCq.release(rq.size());
                rq.clear();
            }
        }
        if (c != null) {
            c.close("queue pair " + qpn + " closed");
        }
        if (sendCq != null) {
            sendCq.removeProducer(this);
        }
        node.forget(this);
    }


    @Override
    public String toString() {
        return "SocketQueuePair{" + node.name() + "#" + qpn + " -> node " + remoteNodeId + ", " + state + '}';
    }
}
