package dev.remora.verbs.det;

import dev.remora.verbs.spi.WorkRequestChecks;
import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.det.machine.DetProgram;

import java.util.Objects;

/**
 * A queue pair of the deterministic fabric: posting turns each request into a {@link DetProgram.Wr} of the machine
 * (resolving keys and addresses to words, and deciding now which status a bad request fails with), then one step puts
 * the doorbells in the posting thread's store buffer.
 */
final class DetQueuePair implements QueuePair {
    private final DetNode node;
    private final DetFabric fabric;
    private final DetCompletionQueue cq;
    private final int qpn;
    private DetQueuePair peer;
    private boolean connected;
    private boolean closed;
    private int outstanding;

    private long reads;
    private long writes;
    private long compareAndSwaps;
    private long fetchAndAdds;
    private long bytes;
    private long doorbells;
    private long roundTrips;
    private long errors;

    DetQueuePair(DetNode node, DetCompletionQueue cq) {
        this.node = node;
        this.fabric = node.fabric();
        this.cq = cq;
        this.qpn = fabric.register(this);
    }

    static void connect(DetQueuePair a, DetQueuePair b) {
        if (a.connected || b.connected) {
            throw new IllegalStateException("both queue pairs must be in RESET to connect");
        }
        a.peer = b;
        b.peer = a;
        a.connected = true;
        b.connected = true;
    }

    /** The queue pair's identity in the machine (requests of one queue pair are ordered). */
    int machineQp() {
        return qpn;
    }

    @Override
    public int qpNumber() {
        return qpn;
    }

    @Override
    public DetNode node() {
        return node;
    }

    @Override
    public int remoteNodeId() {
        return peer == null ? -1 : peer.node.id();
    }

    @Override
    public QpState state() {
        if (closed) {
            return QpState.CLOSED;
        }
        if (!connected) {
            return QpState.RESET;
        }
        return fabric.machine.isQueuePairInError(qpn) ? QpState.ERROR : QpState.RTS;
    }

    @Override
    public CompletionQueue sendCompletionQueue() {
        return cq;
    }

    @Override
    public int post(WorkRequest wr) {
        return post(new WorkRequest[] {wr}, 1);
    }

    @Override
    public int post(WorkRequest[] wrs, int count) {
        Objects.requireNonNull(wrs, "work requests");
        if (count < 1 || count > wrs.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + wrs.length);
        }
        for (int i = 0; i < count; i++) {
            if (wrs[i] == null) {
                throw new NullPointerException("work request " + i + " is null");
            }
            WorkRequestChecks.checkSendable(wrs[i], i, fabric.context().maxInlineBytes());
            if (wrs[i].opcode() == Opcode.SEND) {
                throw new UnsupportedOperationException("SEND/RECV is not modelled by the deterministic fabric");
            }
            if (cq == null) {
                throw new IllegalStateException("queue pair " + qpn + " is passive and has no send queue");
            }
        }
        fabric.ensureOpen();
        if (closed) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is closed");
        }
        if (!connected) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node.name() + " is not connected (RESET)");
        }
        DetFabric.Actor actor = fabric.actor();
        if (actor == null) {
            throw new IllegalStateException("posting happens inside DetFabric.run(), in a spawned thread");
        }
        if (actor.node != node) {
            throw new IllegalStateException("a thread on node " + actor.node.name() + " posted on a queue pair of "
                + node.name());
        }
        if (!cq.reserve(count)) {
            return QUEUE_FULL;
        }
        int[] ks = new int[count];
        boolean signaled = false;
        for (int i = 0; i < count; i++) {
            ks[i] = translate(wrs[i], actor.thread);
            signaled |= wrs[i].has(WorkRequest.SIGNALED);
        }
        doorbells++;
        if (signaled) {
            roundTrips++;
        }
        outstanding += count;
        fabric.step(new DetProgram.PostAll(ks));
        return POSTED;
    }

    private int translate(WorkRequest wr, int thread) {
        Opcode op = wr.opcode();
        int len = wr.length();
        WcStatus failure = null;
        int wordsMoved = Math.max(1, (len + 7) / 8);
        if (op == Opcode.READ || op == Opcode.WRITE) {
            if ((len & 7) != 0 || (wr.remoteAddress() & 7) != 0 || (wr.localAddress() & 7) != 0 || len == 0) {
                throw new UnsupportedOperationException("the deterministic fabric moves whole 8-byte-aligned words: "
                    + wr);
            }
            if (wordsMoved > 64) {
                throw new UnsupportedOperationException("the deterministic fabric moves at most 64 words per request");
            }
        }
        int[] local = new int[wordsMoved];
        int[] remote = new int[wordsMoved];
        java.util.Arrays.fill(local, fabric.scratchWord);
        java.util.Arrays.fill(remote, fabric.scratchWord);
        int localNeeds = op == Opcode.WRITE ? 0 : Access.LOCAL_WRITE;
        DetRegion l = node.region(wr.lkey());
        DetRegion r = peer.node.region(wr.rkey());
        boolean inlineWrite = op == Opcode.WRITE && wr.has(WorkRequest.INLINE);
        if (l == null || !l.contains(wr.localAddress(), op.isAtomic() ? 8 : len) || !l.allows(localNeeds)) {
            failure = WcStatus.LOC_PROT_ERR;
        } else {
            for (int i = 0; i < wordsMoved; i++) {
                local[i] = l.wordOfAddress(wr.localAddress() + 8L * i);
            }
        }
        if (failure == null) {
            if (op.isAtomic() && (wr.remoteAddress() & 7) != 0) {
                failure = WcStatus.REM_INV_REQ_ERR;
            } else {
                int needs = switch (op) {
                    case READ -> Access.REMOTE_READ;
                    case WRITE -> Access.REMOTE_WRITE;
                    default -> Access.REMOTE_ATOMIC;
                };
                if (r == null || !r.contains(wr.remoteAddress(), op.isAtomic() ? 8 : len) || !r.allows(needs)) {
                    failure = WcStatus.REM_ACCESS_ERR;
                } else {
                    for (int i = 0; i < wordsMoved; i++) {
                        remote[i] = r.wordOfAddress(wr.remoteAddress() + 8L * i);
                    }
                }
            }
        }
        boolean fence = wr.has(WorkRequest.FENCE);
        int target = peer.node.id();
        DetProgram.Wr w = switch (op) {
            case READ -> new DetProgram.Wr(DetProgram.Kind.GET, thread, target, local, remote, 0, 0, -1, fence, false,
                -1, qpn, failure);
            case WRITE -> new DetProgram.Wr(DetProgram.Kind.PUT, thread, target, remote, local, 0, 0, -1, fence,
                inlineWrite, -1, qpn, failure);
            case CAS -> new DetProgram.Wr(DetProgram.Kind.CAS, thread, target, new int[] {remote[0]}, new int[0],
                wr.compareAdd(), wr.swap(), local[0], fence, false, -1, qpn, failure);
            case FETCH_ADD -> new DetProgram.Wr(DetProgram.Kind.FAA, thread, target, new int[] {remote[0]},
                new int[0], 0, wr.compareAdd(), local[0], fence, false, -1, qpn, failure);
            default -> throw new AssertionError(op);
        };
        switch (op) {
            case READ -> {
                reads++;
                bytes += len;
            }
            case WRITE -> {
                writes++;
                bytes += len;
            }
            case CAS -> {
                compareAndSwaps++;
                bytes += 8;
            }
            default -> {
                fetchAndAdds++;
                bytes += 8;
            }
        }
        return fabric.addWr(w, new DetFabric.WrMeta(wr.wrId(), wr.has(WorkRequest.SIGNALED), op,
            op.isAtomic() ? 8 : len, this, inlineWrite ? null : l, r,
            fabric.context().roundTripNs(node.id(), target)));
    }

    /** Called by the machine's completion step. */
    void completed(DetFabric.WrMeta meta, WcStatus status) {
        outstanding--;
        if (closed) {
            return;
        }
        if (status != WcStatus.SUCCESS) {
            errors++;
            cq.deliver(new Completion().set(meta.wrId(), status, meta.opcode(), 0, qpn, 0));
        } else if (meta.signaled()) {
            cq.deliver(new Completion().set(meta.wrId(), status, meta.opcode(),
                meta.opcode() == Opcode.WRITE ? 0 : meta.byteLength(), qpn, 0));
        } else {
            cq.release(1);
        }
    }

    @Override
    public int postRecv(WorkRequest wr) {
        throw new UnsupportedOperationException("SEND/RECV is not modelled by the deterministic fabric");
    }

    @Override
    public VerbsStatistics statistics() {
        return new VerbsStatistics(reads, writes, compareAndSwaps, fetchAndAdds, 0, 0, bytes, doorbells, roundTrips,
            errors);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (cq != null && outstanding > 0) {
                cq.release(outstanding);
            }
        }
    }

    @Override
    public String toString() {
        return "DetQueuePair{" + node.name() + "#" + qpn + " -> " + (peer == null ? "none" : peer.node.name()) + ", "
            + state() + '}';
    }
}
