package dev.remora.verbs.sim;

import dev.remora.verbs.spi.VerbCounters;
import dev.remora.verbs.spi.WorkRequestChecks;
import dev.remora.verbs.Access;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A queue pair of the software fabric.
 *
 * <h2>Send queue</h2>
 * A ring of preallocated {@link Wqe}s with three monotonic cursors, all guarded by this object's monitor:
 * <pre>
 *   head            executed              tail
 *    |  executed,     |  posted, waiting     |  free
 *    |  completion    |  to execute          |
 *    |  not delivered |                      |
 * ---+----------------+----------------------+-------
 * </pre>
 * Requests execute strictly in ring order (so R6, R7 and R9 hold, and R8's reordering never happens) and complete in
 * ring order (R11). {@link #progress(long)} advances both cursors as far as time allows; the posting thread calls it
 * (with no latency everything is due at once), and a NIC thread calls it for what is left: injected latency, crash
 * timeouts, receiver-not-ready retries.
 *
 * <h2>Lock order</h2>
 * One order for the whole fast fabric. A thread takes a lock only if it is further down this list than every lock the
 * thread already holds (re-entering a monitor it holds aside), and holds at most one lock of each line:
 * <ol>
 *   <li>a {@link SimNode}'s monitor (registration, statistics, forgetting a closed queue pair);</li>
 *   <li>a queue pair's monitor (its send queue: posting, and progressing it, which executes and completes
 *       requests);</li>
 *   <li>a queue pair's {@code rqLock}: its own, or its peer's while a SEND takes a receive buffer;</li>
 *   <li>the {@link SimNic}'s monitor (starting a NIC thread) and {@code SimQueuePair.class} (connecting): leaves;</li>
 *   <li>a completion queue's monitor (its ring; a delivery takes it under 2 or 3);</li>
 *   <li>a completion queue's wait lock, a leaf on which {@code await} blocks, taken by a delivery after it released
 *       the ring.</li>
 * </ol>
 * The rule that keeps polling out of the cycle: a thread that polls or waits on a completion queue holds none of
 * these locks while it polls, because a poll progresses the queue's producers (line 2, then 5). In particular
 * {@code SimCompletionQueue.await} never polls while holding its ring monitor or its wait lock; it blocks on the wait
 * lock only, and its handshake with deliveries (in {@code SimCompletionQueue.signal}) loses no wake-up. Two queue
 * pairs sending to each other cannot deadlock either: a SEND holds its own monitor and then only its peer's
 * {@code rqLock} and completion queues, never the peer's monitor.
 */
final class SimQueuePair implements QueuePair {
    private static final long RNR_RETRY_INTERVAL_NS = 20_000;

    private final SimNode node;
    private final SimFabric fabric;
    private final int qpn;
    private final SimCompletionQueue sendCq;
    private final SimCompletionQueue recvCq;
    private final long halfRoundTripNs;
    private final long retryTimeoutNs;
    private final long rnrTimeoutNs;
    private final int maxInlineBytes;

    private volatile SimQueuePair peer;
    private volatile QpState state = QpState.RESET;

    /** Ring of send-queue entries; its length is a power of two at least the configured depth. */
    private final Wqe[] sq;
    private final int sqMask;
    private final int sqDepth;
    private long head;
    private long executed;
    private long tail;
    private boolean errorDetected;
    private long lastReadOrAtomicCompleteNs;
    /** The first unexpected exception thrown while executing one of this queue pair's requests, or null. */
    private volatile Throwable executionFailure;
    /** Whether a NIC thread holds this queue pair in its active list. */
    boolean scheduled;
    /**
     * Test seam, null in production: called with a request's wr_id right after its memory effect, before its
     * status is set, by whichever thread executes it; it may throw to simulate a fault inside execution. Set it
     * before posting (the queue pair's monitor publishes it to the executing thread).
     */
    java.util.function.LongConsumer afterEffect;

    private final Object rqLock = new Object();
    private final ArrayDeque<RecvEntry> rq = new ArrayDeque<>();

    private final VerbCounters counters = new VerbCounters();

    /** A posted receive buffer. */
    private record RecvEntry(long wrId, long address, int length, int lkey) {
    }

    SimQueuePair(SimNode node, int qpn, SimCompletionQueue sendCq, SimCompletionQueue recvCq) {
        this.node = node;
        this.fabric = node.fabric();
        this.qpn = qpn;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        SimContext ctx = fabric.context();
        this.halfRoundTripNs = ctx.roundTripLatencyNs() / 2;
        this.retryTimeoutNs = ctx.retryTimeoutNs();
        this.rnrTimeoutNs = ctx.rnrTimeoutNs();
        this.maxInlineBytes = ctx.maxInlineBytes();
        this.sqDepth = sendCq == null ? 0 : ctx.sendQueueDepth();
        this.sq = new Wqe[sqDepth == 0 ? 0 : Integer.highestOneBit(sqDepth - 1) << 1 | (sqDepth == 1 ? 1 : 0)];
        this.sqMask = sq.length - 1;
        for (int i = 0; i < sq.length; i++) {
            sq[i] = new Wqe();
        }
        if (sendCq != null) {
            sendCq.addProducer(this);
        }
    }

    static void connect(SimQueuePair a, SimQueuePair b) {
        if (a == b) {
            throw new IllegalArgumentException("a queue pair cannot be connected to itself");
        }
        synchronized (SimQueuePair.class) {
            if (a.state != QpState.RESET || b.state != QpState.RESET) {
                throw new IllegalStateException("both queue pairs must be in RESET to connect: " + a.state + ", "
                    + b.state);
            }
            a.peer = b;
            b.peer = a;
            a.state = QpState.RTS;
            b.state = QpState.RTS;
        }
    }

    @Override
    public int qpNumber() {
        return qpn;
    }

    @Override
    public SimNode node() {
        return node;
    }

    @Override
    public int remoteNodeId() {
        SimQueuePair p = peer;
        return p == null ? -1 : p.node.id();
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    // ------------------------------------------------------------------ posting

    @Override
    public int post(WorkRequest wr) {
        validate(wr, 0);
        synchronized (this) {
            checkPostable();
            if (tail - head + 1 > sqDepth || !sendCq.reserve(1)) {
                return QUEUE_FULL;
            }
            long now = startDoorbell(wr.has(WorkRequest.SIGNALED));
            enqueue(wr, now);
            finishDoorbell(now);
        }
        return POSTED;
    }

    @Override
    public int post(WorkRequest[] wrs, int count) {
        WorkRequestChecks.checkList(wrs, count);
        for (int i = 0; i < count; i++) {
            validate(wrs[i], i);
        }
        synchronized (this) {
            checkPostable();
            if (tail - head + count > sqDepth || !sendCq.reserve(count)) {
                return QUEUE_FULL;
            }
            boolean signaled = false;
            for (int i = 0; i < count; i++) {
                signaled |= wrs[i].has(WorkRequest.SIGNALED);
            }
            long now = startDoorbell(signaled);
            for (int i = 0; i < count; i++) {
                enqueue(wrs[i], now);
            }
            finishDoorbell(now);
        }
        return POSTED;
    }

    private void validate(WorkRequest wr, int index) {
        if (wr == null) {
            throw new NullPointerException("work request " + index + " is null");
        }
        WorkRequestChecks.checkSendable(wr, index, maxInlineBytes);
        if (sendCq == null) {
            throw new IllegalStateException("queue pair " + qpn + " is passive and has no send queue");
        }
    }

    private void checkPostable() {
        fabric.ensureOpen();
        node.ensureAlive();
        WorkRequestChecks.checkPostable(state, qpn, node.name());
    }

    private long startDoorbell(boolean signaled) {
        counters.doorbell(signaled);
        return halfRoundTripNs == 0 ? 0 : fabric.now();
    }

    private void finishDoorbell(long now) {
        if (progress(now) != Long.MAX_VALUE) {
            // Under this monitor: wake re-enters it and may take the NIC's monitor, a leaf (see Lock order).
            fabric.nic().wake(this);
        }
    }

    private void enqueue(WorkRequest wr, long now) {
        Wqe w = sq[(int) tail & sqMask];
        w.copyFrom(wr);
        counters.posted(w.opcode, w.length);
        if (w.has(WorkRequest.INLINE)) {
            copyInline(w);
        }
        long executeAt = now + halfRoundTripNs;
        if (w.has(WorkRequest.FENCE)) {
            // R13: a fenced request starts only after every earlier READ and atomic of this queue pair completed.
            executeAt = Math.max(executeAt, lastReadOrAtomicCompleteNs);
        }
        w.executeAtNs = executeAt;
        w.completeAtNs = executeAt + halfRoundTripNs;
        if (w.opcode == Opcode.READ || w.opcode.isAtomic()) {
            lastReadOrAtomicCompleteNs = Math.max(lastReadOrAtomicCompleteNs, w.completeAtNs);
        }
        tail++;
    }

    /** INLINE: the CPU copies the source at post time (R3 does not apply). */
    private void copyInline(Wqe w) {
        SimRegion src = node.check(w.lkey, w.localAddress, w.length, 0);
        if (src == null) {
            w.status = WcStatus.LOC_PROT_ERR;
            return;
        }
        if (w.inline.length < w.length) {
            w.inline = new byte[Math.max(w.length, 64)];
        }
        src.nicCopyOut(src.indexOf(w.localAddress), w.inline, w.length);
    }

    @Override
    public int postRecv(WorkRequest wr) {
        Objects.requireNonNull(wr, "work request");
        if (wr.opcode() != Opcode.RECV) {
            throw new IllegalArgumentException("postRecv takes RECV requests, not " + wr.opcode());
        }
        if (recvCq == null) {
            throw new IllegalStateException("queue pair " + qpn + " is passive and has no receive queue");
        }
        fabric.ensureOpen();
        node.ensureAlive();
        if (state == QpState.CLOSED) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is closed");
        }
        if (!recvCq.reserve(1)) {
            return QUEUE_FULL;
        }
        synchronized (this) {
            counters.received();
        }
        RecvEntry entry = new RecvEntry(wr.wrId(), wr.localAddress(), wr.length(), wr.lkey());
        synchronized (rqLock) {
            if (state == QpState.ERROR) {
                // rqLock, then the completion queue's ring: lines 3 and 5 of the lock order.
                recvCq.deliver(entry.wrId(), WcStatus.WR_FLUSH_ERR, Opcode.RECV, 0, qpn);
            } else {
                rq.addLast(entry);
            }
        }
        SimQueuePair p = peer;
        if (p != null) {
            // A SEND of the peer may be waiting for this buffer (receiver not ready): let its NIC retry now. Only
            // after releasing rqLock: wake takes the peer's monitor, which comes before any rqLock in the lock order.
            fabric.nic().wake(p);
        }
        return POSTED;
    }

    private RecvEntry takeRecv() {
        synchronized (rqLock) {
            return state == QpState.ERROR ? null : rq.pollFirst();
        }
    }

    // ------------------------------------------------------------------ progress

    /**
     * Executes and completes what is due at {@code now}. Caller holds this monitor.
     *
     * @return the fabric time of the next thing due, or {@link Long#MAX_VALUE} if the queue is empty
     */
    private long progress(long now) {
        while (executed < tail) {
            Wqe w = sq[(int) executed & sqMask];
            if (w.executeAtNs > now || !executeContained(w)) {
                break;
            }
            executed++;
        }
        while (head < executed) {
            Wqe w = sq[(int) head & sqMask];
            if (w.completeAtNs > now) {
                break;
            }
            complete(w);
            head++;
        }
        if (head == tail) {
            return Long.MAX_VALUE;
        }
        long next = head < executed ? sq[(int) head & sqMask].completeAtNs : Long.MAX_VALUE;
        return executed < tail ? Math.min(next, sq[(int) executed & sqMask].executeAtNs) : next;
    }

    /**
     * Called by a poller of the send completion queue that found it empty. The poller holds no lock: this takes the
     * queue pair's monitor, and delivering then takes the completion queue's (the lock order in the class comment).
     */
    void progressIfDue(long now) {
        synchronized (this) {
            if (head < tail) {
                progress(now);
            }
        }
    }

    /** Called by a NIC thread. */
    synchronized long progressFromNic(long now) {
        long next = progress(now);
        if (next == Long.MAX_VALUE) {
            scheduled = false;
        }
        return next;
    }

    /**
     * {@link #execute}, except that an unexpected exception does not escape into the posting, polling or NIC thread:
     * it fails the request with {@code GENERAL_ERR}, which moves the queue pair to ERROR, and is kept as
     * {@link #executionFailure()}. The request counts as executed (the caller advances the cursor), so whatever
     * effect it had before the exception happened once and is never repeated; later requests flush.
     */
    private boolean executeContained(Wqe w) {
        try {
            return execute(w);
        } catch (RuntimeException | Error e) {
            if (executionFailure == null) {
                executionFailure = e;
            }
            return fail(w, WcStatus.GENERAL_ERR);
        }
    }

    /** @return the first unexpected exception a request of this queue pair threw while executing, or null */
    Throwable executionFailure() {
        return executionFailure;
    }

    /**
     * Called by a NIC thread when progressing this queue pair threw outside any request's execution (which
     * {@link #executeContained} already contains): the queue pair goes to ERROR, so its remaining requests flush
     * when a post or a poll progresses it next, and the NIC thread drops it instead of dying.
     */
    synchronized void failedOnNic(Throwable e) {
        if (executionFailure == null) {
            executionFailure = e;
        }
        errorDetected = true;
        if (state == QpState.RTS) {
            state = QpState.ERROR;
        }
        scheduled = false;
    }

    /**
     * Performs a request's memory effects. Every check happens before any effect, so a bad request changes no memory.
     *
     * @return false if it must be retried later (a SEND whose peer has no RECV posted yet)
     */
    private boolean execute(Wqe w) {
        if (errorDetected) {
            w.status = WcStatus.WR_FLUSH_ERR;
            return true;
        }
        if (w.status != null) {
            fail(w, w.status);
            return true;
        }
        SimQueuePair p = peer;
        SimNode target = p.node;
        if (target.isCrashed()) {
            w.completeAtNs = Math.max(w.completeAtNs, fabric.now() + retryTimeoutNs);
            fail(w, WcStatus.RETRY_EXC_ERR);
            return true;
        }
        switch (w.opcode) {
            case READ -> {
                SimRegion dst = node.check(w.lkey, w.localAddress, w.length, Access.LOCAL_WRITE);
                if (dst == null) {
                    return fail(w, WcStatus.LOC_PROT_ERR);
                }
                SimRegion src = target.check(w.rkey, w.remoteAddress, w.length, Access.REMOTE_READ);
                if (src == null) {
                    return fail(w, WcStatus.REM_ACCESS_ERR);
                }
                src.nicCopyTo(src.indexOf(w.remoteAddress), dst, dst.indexOf(w.localAddress), w.length);
                w.byteLength = w.length;
                afterEffect(w);
            }
            case WRITE -> {
                SimRegion src = null;
                if (!w.has(WorkRequest.INLINE)) {
                    src = node.check(w.lkey, w.localAddress, w.length, 0);
                    if (src == null) {
                        return fail(w, WcStatus.LOC_PROT_ERR);
                    }
                }
                SimRegion dst = target.check(w.rkey, w.remoteAddress, w.length, Access.REMOTE_WRITE);
                if (dst == null) {
                    return fail(w, WcStatus.REM_ACCESS_ERR);
                }
                if (src == null) {
                    dst.nicCopyIn(dst.indexOf(w.remoteAddress), w.inline, w.length);
                } else {
                    src.nicCopyTo(src.indexOf(w.localAddress), dst, dst.indexOf(w.remoteAddress), w.length);
                }
                afterEffect(w);
            }
            case CAS, FETCH_ADD -> {
                SimRegion result = node.check(w.lkey, w.localAddress, Long.BYTES, Access.LOCAL_WRITE);
                // Posting rejects a misaligned result address; checked again here because the result is stored after
                // the remote word changed, and a store that cannot happen must fail the request before that.
                if (result == null || (w.localAddress & 7) != 0) {
                    return fail(w, WcStatus.LOC_PROT_ERR);
                }
                if ((w.remoteAddress & 7) != 0) {
                    // R17: a misaligned atomic is a responder "invalid request" NAK.
                    return fail(w, WcStatus.REM_INV_REQ_ERR);
                }
                SimRegion word = target.check(w.rkey, w.remoteAddress, Long.BYTES, Access.REMOTE_ATOMIC);
                if (word == null) {
                    return fail(w, WcStatus.REM_ACCESS_ERR);
                }
                int index = word.indexOf(w.remoteAddress);
                long old = w.opcode == Opcode.CAS
                    ? word.nicCompareAndExchange(index, w.compareAdd, w.swap)
                    : word.nicGetAndAdd(index, w.compareAdd);
                result.nicPutLong(result.indexOf(w.localAddress), old);
                w.byteLength = Long.BYTES;
                afterEffect(w);
            }
            case SEND -> {
                return executeSend(w, p);
            }
            default -> throw new AssertionError(w.opcode);
        }
        w.status = WcStatus.SUCCESS;
        return true;
    }

    private boolean executeSend(Wqe w, SimQueuePair p) {
        SimRegion src = null;
        if (!w.has(WorkRequest.INLINE)) {
            src = node.check(w.lkey, w.localAddress, w.length, 0);
            if (src == null) {
                return fail(w, WcStatus.LOC_PROT_ERR);
            }
        }
        // This monitor, then the peer's rqLock (lines 2 and 3 of the lock order); never the peer's monitor.
        RecvEntry r = p.recvCq == null ? null : p.takeRecv();
        if (r == null) {
            long now = fabric.now();
            if (w.rnrDeadlineNs == 0) {
                w.rnrDeadlineNs = now + rnrTimeoutNs;
            }
            if (now >= w.rnrDeadlineNs) {
                return fail(w, WcStatus.RNR_RETRY_EXC_ERR);
            }
            w.executeAtNs = now + Math.min(RNR_RETRY_INTERVAL_NS, rnrTimeoutNs);
            return false;
        }
        SimRegion dst = p.node.check(r.lkey(), r.address(), r.length(), Access.LOCAL_WRITE);
        if (r.length() < w.length) {
            p.recvCq.deliver(r.wrId(), WcStatus.LOC_LEN_ERR, Opcode.RECV, 0, p.qpn);
            return fail(w, WcStatus.REM_INV_REQ_ERR);
        }
        if (dst == null) {
            p.recvCq.deliver(r.wrId(), WcStatus.LOC_PROT_ERR, Opcode.RECV, 0, p.qpn);
            return fail(w, WcStatus.REM_OP_ERR);
        }
        if (src == null) {
            dst.nicCopyIn(dst.indexOf(r.address()), w.inline, w.length);
        } else {
            src.nicCopyTo(src.indexOf(w.localAddress), dst, dst.indexOf(r.address()), w.length);
        }
        p.recvCq.deliver(r.wrId(), WcStatus.SUCCESS, Opcode.RECV, w.length, p.qpn);
        w.byteLength = w.length;
        afterEffect(w);
        w.status = WcStatus.SUCCESS;
        return true;
    }

    private void afterEffect(Wqe w) {
        java.util.function.LongConsumer hook = afterEffect;
        if (hook != null) {
            hook.accept(w.wrId);
        }
    }

    /** R17: the failing request reports its status; the queue pair goes to ERROR and later requests flush. */
    private boolean fail(Wqe w, WcStatus status) {
        w.status = status;
        errorDetected = true;
        if (state == QpState.RTS) {
            state = QpState.ERROR;
        }
        flushReceiveQueue();
        return true;
    }

    private void flushReceiveQueue() {
        if (recvCq == null) {
            return;
        }
        synchronized (rqLock) {
            RecvEntry r;
            while ((r = rq.pollFirst()) != null) {
                recvCq.deliver(r.wrId(), WcStatus.WR_FLUSH_ERR, Opcode.RECV, 0, qpn);
            }
        }
    }

    private void complete(Wqe w) {
        sendCq.completeSend(w.wrId, w.status, w.opcode, w.byteLength, qpn, w.has(WorkRequest.SIGNALED), counters);
    }

    // ------------------------------------------------------------------ misc

    @Override
    public synchronized VerbsStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (state == QpState.CLOSED) {
                return;
            }
            state = QpState.CLOSED;
            // ibv_destroy_qp discards outstanding requests without completions: return their reservations.
            if (tail > head) {
                sendCq.release((int) (tail - head));
            }
            head = executed = tail;
        }
        if (recvCq != null) {
            synchronized (rqLock) {
                recvCq.release(rq.size());
                rq.clear();
            }
        }
        if (sendCq != null) {
            sendCq.removeProducer(this);
        }
        // Not under this monitor: forget takes the node's monitor and then this one (lines 1 and 2 of the lock order).
        node.forget(this);
    }

    @Override
    public String toString() {
        SimQueuePair p = peer;
        Throwable f = executionFailure;
        return "SimQueuePair{" + node.name() + "#" + qpn + " -> " + (p == null ? "none" : p.node.name() + "#" + p.qpn)
            + ", " + state + (f == null ? "" : ", failed: " + f) + '}';
    }
}
