package dev.remora.verbs.disni;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.impl.NatObject;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.spi.VerbCounters;
import dev.remora.verbs.spi.WorkRequestChecks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A reliable-connected queue pair ({@code rdma_create_qp} on a connected RDMA CM id). It is made in
 * {@link QpState#RESET} without a native queue pair, which RDMA CM creates on the id it resolves or accepts; its
 * {@link #qpNumber()} is provisional (above {@code 2^24}, outside the hardware's 24-bit range) until then, and
 * {@code qp_num} after. Posting marshals into the queue pair's {@link PostSendCall} and calls
 * {@code ibv_post_send}: no allocation on the hot path. Completions are matched back by sequence number (see
 * {@link DisniCompletionQueue}); the first failed completion moves the state to {@link QpState#ERROR}, as the
 * hardware's queue pair has moved (R17).
 */
final class DisniQueuePair implements QueuePair {
    /** Bit 47 of a native {@code wr_id}: a receive. */
    static final long RECV_BIT = 1L << 47;
    /** The sequence number's bits of a native {@code wr_id}. */
    static final long SEQ_MASK = RECV_BIT - 1;

    private final DisniNode node;
    private final DisniFabric fabric;
    private final DisniCompletionQueue sendCq;
    private final DisniCompletionQueue recvCq;
    private final int sendSlot;
    private final int recvSlot;
    private final int sqDepth;
    private final int rqDepth;
    private final long[] sendWrIds;
    private final Opcode[] sendOps;
    private final int[] sendLengths;
    private final long[] recvWrIds;
    private final VerbCounters counters = new VerbCounters();
    private final WorkRequest[] one = new WorkRequest[1];
    private long sendPosted;
    private long sendRetired;
    private long recvPosted;
    private long recvRetired;
    private volatile QpState state = QpState.RESET;
    private volatile int qpNumber;
    private volatile int remoteNodeId = -1;
    private RdmaCmId cmId;
    private IbvQP qp;
    private PostSendCall send;
    private ByteBuffer recvImage;
    private long recvBase;
    private long qpHandle;

    DisniQueuePair(DisniNode node, DisniCompletionQueue sendCq, DisniCompletionQueue recvCq) {
        this.node = node;
        this.fabric = node.fabric();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sendSlot = sendCq.attach(this);
        this.recvSlot = recvCq == null ? -1 : recvCq == sendCq ? sendSlot : recvCq.attach(this);
        this.sqDepth = fabric.context().sendQueueDepth();
        this.rqDepth = fabric.context().recvQueueDepth();
        this.sendWrIds = new long[sqDepth];
        this.sendOps = new Opcode[sqDepth];
        this.sendLengths = new int[sqDepth];
        this.recvWrIds = new long[rqDepth];
        this.qpNumber = node.nextProvisionalQpn();
    }

    /** Creates the native queue pair on a resolved or accepted id. */
    private void create(RdmaCmId id) throws IOException {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(sqDepth);
        attr.cap().setMax_recv_wr(rqDepth);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(fabric.context().maxInlineBytes());
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(sendCq.ibvCq());
        attr.setRecv_cq(recvCq != null ? recvCq.ibvCq() : sendCq.ibvCq());
        IbvQP q = id.createQP(node.pd(), attr);
        synchronized (this) {
            this.cmId = id;
            this.qp = q;
            this.qpHandle = ((NatObject) q).getObjId();
            ByteBuffer image = ByteBuffer.allocateDirect(sqDepth * PostSendCall.STRIDE).order(ByteOrder.nativeOrder());
            this.send = new PostSendCall(image, MemoryUtils.getAddress(image), fabric.natives(), qpHandle);
            this.recvImage = ByteBuffer.allocateDirect(IbvRecvWrDescriptor.SIZE + IbvSgeDescriptor.SIZE)
                .order(ByteOrder.nativeOrder());
            this.recvBase = MemoryUtils.getAddress(recvImage);
            this.qpNumber = q.getQp_num();
        }
        fabric.track(id, this);
    }

    /**
     * Connects as the initiator (the caller's thread): resolves, creates the queue pair, connects.
     *
     * @param remoteId the peer node's id
     * @param cm the peer's RDMA CM address
     * @param bindRemote a local queue pair the peer's side binds to, or null for a passive one
     */
    void connectTo(int remoteId, InetSocketAddress cm, DisniQueuePair bindRemote) {
        RdmaCmId id = null;
        try {
            RdmaCmId fresh = fabric.channel().createId(DisniFabric.portSpace());
            id = fresh;
            if (bindRemote != null) {
                bindRemote.remoteNodeId = node.id();
            }
            fabric.connectId(fresh, cm, () -> {
                if (fresh.getVerbs() == null || fresh.getVerbs().getCmd_fd() != node.device().getCmd_fd()) {
                    throw new IOException("the route to " + cm + " leaves through another RDMA device than node "
                        + node.name() + "'s");
                }
                if (bindRemote != null) {
                    fabric.expect(fresh.getSource(), bindRemote);
                }
                create(fresh);
            });
            remoteNodeId = remoteId;
            state = QpState.RTS;
        } catch (IOException | RuntimeException e) {
            if (id != null) {
                try {
                    id.destroyId();
                } catch (IOException | RuntimeException ignored) {
                    // failing anyway
                }
            }
            throw new IllegalStateException("cannot connect queue pair " + qpNumber + " of node " + node.name()
                + " to node " + remoteId + " at " + cm + ": " + e.getMessage(), e);
        }
    }

    /** Accepts a connect request on {@code id} (the CM thread). */
    void accept(RdmaCmId id) throws IOException {
        create(id);
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count((byte) fabric.context().retryCount());
        p.setRnr_retry_count((byte) fabric.context().rnrRetryCount());
        id.accept(p);
        state = QpState.RTS;
    }

    /** The peer disconnected: the NIC flushes what is outstanding. */
    void peerDisconnected() {
        if (state == QpState.RTS) {
            state = QpState.ERROR;
        }
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public DisniNode node() {
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

    @Override
    public int post(WorkRequest wr) {
        Objects.requireNonNull(wr, "work request");
        synchronized (this) {
            one[0] = wr;
            try {
                return post(one, 1);
            } finally {
                one[0] = null;
            }
        }
    }

    @Override
    public int post(WorkRequest[] wrs, int count) {
        WorkRequestChecks.checkList(wrs, count);
        for (int i = 0; i < count; i++) {
            WorkRequestChecks.checkSendable(Objects.requireNonNull(wrs[i], "work request " + i), i,
                fabric.context().maxInlineBytes());
        }
        synchronized (this) {
            ensurePostable();
            if (count > send.capacity() || sendPosted - sendRetired + count > sqDepth) {
                return QUEUE_FULL;
            }
            if (!sendCq.reserve(count)) {
                return QUEUE_FULL;
            }
            long first = sendPosted;
            boolean signaled = false;
            for (int i = 0; i < count; i++) {
                int k = (int) ((first + i) % sqDepth);
                sendWrIds[k] = wrs[i].wrId();
                sendOps[k] = wrs[i].opcode();
                sendLengths[k] = wrs[i].length();
                signaled |= wrs[i].has(WorkRequest.SIGNALED);
            }
            send.marshal(wrs, count, (long) sendSlot << 48 | first & SEQ_MASK);
            try {
                // ibv_post_send's doorbell follows the poster's earlier CPU stores in program order, and the driver
                // orders its doorbell write after them (R2).
                send.execute();
            } catch (IOException e) {
                sendCq.release(count);
                if (String.valueOf(e.getMessage()).contains("Cannot allocate memory")) {
                    return QUEUE_FULL; // ENOMEM: the send queue is full
                }
                throw new IllegalStateException("ibv_post_send on queue pair " + qpNumber + " of node " + node.name()
                    + " failed: " + e.getMessage(), e);
            }
            sendPosted += count;
            for (int i = 0; i < count; i++) {
                counters.posted(wrs[i].opcode(), wrs[i].length());
            }
            counters.doorbell(signaled);
            return POSTED;
        }
    }

    @Override
    public int postRecv(WorkRequest wr) {
        Objects.requireNonNull(wr, "work request");
        if (wr.opcode() != Opcode.RECV) {
            throw new IllegalArgumentException("postRecv takes a request set with recv(), not " + wr.opcode());
        }
        if (recvCq == null) {
            throw new IllegalStateException("queue pair " + qpNumber + " has no receive completion queue");
        }
        synchronized (this) {
            ensurePostable();
            if (recvPosted - recvRetired >= rqDepth || !recvCq.reserve(1)) {
                return QUEUE_FULL;
            }
            recvWrIds[(int) (recvPosted % rqDepth)] = wr.wrId();
            ByteBuffer b = recvImage;
            int sge = IbvRecvWrDescriptor.SIZE;
            b.putLong(IbvRecvWrDescriptor.WR_ID, (long) recvSlot << 48 | RECV_BIT | recvPosted & SEQ_MASK);
            b.putLong(IbvRecvWrDescriptor.NEXT, 0L);
            b.putLong(IbvRecvWrDescriptor.SG_LIST, recvBase + sge);
            b.putInt(IbvRecvWrDescriptor.NUM_SGE, 1);
            b.putInt(IbvRecvWrDescriptor.NUM_SGE + 4, 0);
            b.putLong(sge + IbvSgeDescriptor.ADDR, wr.localAddress());
            b.putInt(sge + IbvSgeDescriptor.LENGTH, wr.length());
            b.putInt(sge + IbvSgeDescriptor.LKEY, wr.lkey());
            try {
                fabric.natives().postRecv(qpHandle, recvBase);
            } catch (IOException e) {
                recvCq.release(1);
                throw new IllegalStateException("ibv_post_recv on queue pair " + qpNumber + " failed: "
                    + e.getMessage(), e);
            }
            recvPosted++;
            counters.received();
            return POSTED;
        }
    }

    private void ensurePostable() {
        QpState s = state;
        if (s == QpState.RESET) {
            throw new IllegalStateException("queue pair " + qpNumber + " of node " + node.name() + " is not "
                + "connected");
        }
        if (s == QpState.CLOSED) {
            throw new IllegalStateException("queue pair " + qpNumber + " of node " + node.name() + " is closed");
        }
        fabric.ensureOpen();
    }

    /**
     * Fills a completion of request {@code seq} (called by the completion queue's poll, holding its lock).
     *
     * @return how many earlier requests of the send queue completed without a completion entry, whose reserved
     *     slots the completion queue gives back
     */
    synchronized int complete(boolean recv, long seq, WcStatus status, int vendor, int bytes, Completion out) {
        if (!status.isSuccess()) {
            counters.error();
            if (state == QpState.RTS) {
                state = QpState.ERROR; // the hardware's queue pair is in error: later requests flush (R17)
            }
        }
        if (recv) {
            recvRetired++;
            out.set(recvWrIds[(int) (seq % rqDepth)], status, Opcode.RECV, bytes, qpNumber, vendor);
            return 0;
        }
        // Completions of a send queue arrive in posting order (R11): every earlier request is done.
        long silent = seq - (sendRetired & SEQ_MASK) & SEQ_MASK;
        sendRetired += silent + 1;
        int k = (int) (seq % sqDepth);
        Opcode op = sendOps[k];
        int length = op == Opcode.READ || op.isAtomic() ? (op.isAtomic() ? Long.BYTES : sendLengths[k]) : bytes;
        out.set(sendWrIds[k], status, op, status.isSuccess() ? length : 0, qpNumber, vendor);
        return (int) silent;
    }

    @Override
    public synchronized VerbsStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public void close() {
        RdmaCmId id;
        synchronized (this) {
            if (state == QpState.CLOSED) {
                return;
            }
            state = QpState.CLOSED;
            id = cmId;
            if (send != null) {
                send.free();
            }
        }
        node.forget(this);
        if (id != null) {
            fabric.untrack(id);
            try {
                id.disconnect();
                id.destroyQP();
                id.destroyId();
            } catch (IOException | RuntimeException e) {
                DisniFabric.LOG.fine("closing queue pair " + qpNumber + ": " + e);
            }
        }
    }

    @Override
    public String toString() {
        return "DisniQueuePair{" + qpNumber + " of " + node.name() + " -> " + remoteNodeId + ", " + state + '}';
    }
}
