package dev.remora.verbs.disni;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCmId;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.AbstractLocalNode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local node of the DiSNI fabric: a protection domain ({@code ibv_alloc_pd}) on the device behind the node's
 * address, an RDMA CM listener there, and a completion channel for its completion queues. Its memory is direct
 * memory of this process registered with {@code ibv_reg_mr}; peers reach it with one-sided verbs through the
 * passive queue pairs its CM thread accepts.
 */
final class DisniNode extends AbstractLocalNode<DisniFabric> {
    private final RdmaCmId listener;
    private final int cmPort;
    private final IbvContext device;
    private final IbvPd pd;
    private final IbvCompChannel compChannel;
    private final DisniCompletionQueue passiveCq;
    private final List<DisniRegion> regions = new CopyOnWriteArrayList<>();
    private final List<DisniQueuePair> queuePairs = new CopyOnWriteArrayList<>();
    private final List<DisniCompletionQueue> completionQueues = new CopyOnWriteArrayList<>();
    private final AtomicInteger provisionalQpn = new AtomicInteger(1 << 24);

    private DisniNode(DisniFabric fabric, int id, String name, String address, RdmaCmId listener, int cmPort,
                      IbvContext device, IbvPd pd, IbvCompChannel compChannel) throws IOException {
        super(fabric, id, name, address);
        this.listener = listener;
        this.cmPort = cmPort;
        this.device = device;
        this.pd = pd;
        this.compChannel = compChannel;
        this.passiveCq = new DisniCompletionQueue(this, Math.max(16, fabric.context().recvQueueDepth()));
    }

    static DisniNode create(DisniFabric fabric, int id, String name, String address, InetAddress host)
        throws IOException {
        RdmaCmId listener = fabric.channel().createId(DisniFabric.portSpace());
        listener.bindAddr(new InetSocketAddress(host, 0));
        listener.listen(128);
        IbvContext device = listener.getVerbs();
        if (device == null) {
            listener.destroyId();
            throw new IOException(host.getHostAddress() + " is bound to no RDMA device");
        }
        int port = ((InetSocketAddress) listener.getSource()).getPort();
        IbvPd pd = device.allocPd();
        IbvCompChannel cc = device.createCompChannel();
        return new DisniNode(fabric, id, name, address, listener, port, device, pd, cc);
    }

    int cmPort() {
        return cmPort;
    }

    boolean listens(RdmaCmId id) {
        return id == listener;
    }

    IbvContext device() {
        return device;
    }

    IbvPd pd() {
        return pd;
    }

    IbvCompChannel compChannel() {
        return compChannel;
    }

    int nextProvisionalQpn() {
        return provisionalQpn.getAndIncrement();
    }

    @Override
    protected MemoryRegion registerBuffer(ByteBuffer buffer, int access) {
        try {
            // The Access flags have ibv_access_flags' values (LOCAL_WRITE 1, REMOTE_WRITE 2, REMOTE_READ 4,
            // REMOTE_ATOMIC 8).
            IbvMr mr = pd.regMr(buffer, access).execute().free().getMr();
            DisniRegion r = new DisniRegion(this, buffer, MemoryUtils.getAddress(buffer), mr, access);
            regions.add(r);
            return r;
        } catch (IOException e) {
            throw new IllegalStateException("ibv_reg_mr of " + buffer.capacity() + " bytes on node " + name()
                + " failed: " + e.getMessage() + " (is the locked-memory limit, ulimit -l, high enough?)", e);
        }
    }

    void forget(DisniRegion r) {
        regions.remove(r);
    }

    @Override
    protected CompletionQueue newCompletionQueue(int depth) {
        try {
            DisniCompletionQueue cq = new DisniCompletionQueue(this, depth);
            completionQueues.add(cq);
            return cq;
        } catch (IOException e) {
            throw new IllegalStateException("ibv_create_cq of depth " + depth + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        fabric().ensureOpen();
        DisniQueuePair qp = new DisniQueuePair(this, cq(sendCq, "send"), recvCq == null ? null : cq(recvCq, "receive"));
        queuePairs.add(qp);
        return qp;
    }

    private DisniCompletionQueue cq(CompletionQueue cq, String which) {
        Objects.requireNonNull(cq, which + " completion queue");
        if (!(cq instanceof DisniCompletionQueue d) || d.node() != this) {
            throw new IllegalArgumentException("the " + which + " completion queue belongs to another node or "
                + "provider");
        }
        return d;
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (!(local instanceof DisniQueuePair l) || l.node() != this) {
            throw new IllegalArgumentException("the local queue pair must be one of node " + name());
        }
        if (!(remote instanceof DisniQueuePair r) || r.node().fabric() != fabric()) {
            throw new IllegalArgumentException("the remote queue pair must be one of a local node of this fabric "
                + "(a peer's queue pairs are made by its own process: use connect(Node, CompletionQueue))");
        }
        DisniNode target = r.node();
        if (target == this) {
            throw new IllegalArgumentException("cannot connect two queue pairs of the same node");
        }
        if (l.state() != QpState.RESET || r.state() != QpState.RESET) {
            throw new IllegalStateException("both queue pairs must be in RESET");
        }
        l.connectTo(target.id(), new InetSocketAddress(fabric().parse(target.address()).getAddress(),
            target.cmPort()), r);
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        Objects.requireNonNull(target, "target");
        DisniCompletionQueue dcq = cq(cq, "send");
        Node resolved = fabric().resolve(target);
        fabric().ensureOpen();
        InetSocketAddress at;
        if (resolved instanceof DisniNode n) {
            if (n == this) {
                throw new IllegalArgumentException("cannot connect node " + name() + " to itself");
            }
            at = new InetSocketAddress(fabric().parse(n.address()).getAddress(), n.cmPort());
        } else {
            at = ((DisniPeerNode) resolved).cmAddress();
        }
        DisniQueuePair qp = new DisniQueuePair(this, dcq, dcq);
        queuePairs.add(qp);
        qp.connectTo(resolved.id(), at, null);
        return qp;
    }

    /**
     * Accepts a peer's connect request (the CM thread): a queue pair on the new id, bound to {@code bound} if a
     * local queue pair waits for this request, else a passive one (no receive queue a user polls).
     */
    void accept(RdmaCmId id, DisniQueuePair bound) throws IOException {
        DisniQueuePair qp = bound != null ? bound : new DisniQueuePair(this, passiveCq, passiveCq);
        if (bound == null) {
            queuePairs.add(qp);
        }
        qp.accept(id);
    }

    void forget(DisniQueuePair qp) {
        queuePairs.remove(qp);
    }

    VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (DisniQueuePair qp : queuePairs) {
            s = s.plus(qp.statistics());
        }
        return s;
    }

    void closeAll() {
        for (DisniQueuePair qp : queuePairs) {
            qp.close();
        }
        for (DisniRegion r : regions) {
            r.deregister();
        }
        for (DisniCompletionQueue cq : completionQueues) {
            cq.close();
        }
        passiveCq.close();
        try {
            listener.destroyId();
            compChannel.destroyCompChannel();
            pd.deallocPd();
        } catch (Exception e) {
            DisniFabric.LOG.fine("closing node " + name() + ": " + e);
        }
    }

    @Override
    public String toString() {
        return "DisniNode{" + name() + " id=" + id() + " at " + address() + ", cm port " + cmPort + '}';
    }
}
