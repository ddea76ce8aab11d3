package dev.remora.verbs.socket;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.AbstractLocalNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local node of the socket fabric: its memory is off-heap memory of this process, it listens for peers at
 * {@link #address()}, and the fabric's service thread answers their one-sided verbs on its regions.
 */
final class SocketNode extends AbstractLocalNode<SocketFabric> {
    private static final long PAGE = 4096;

    private final long incarnation;
    private final ServerSocketChannel listener;
    private final RegionTable regions = new RegionTable();
    private final Map<Integer, SocketQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextQpn = new AtomicInteger(1);
    private long nextAddress;
    private VerbsStatistics retired = VerbsStatistics.ZERO;

    SocketNode(SocketFabric fabric, int id, String name, String address, ServerSocketChannel listener) {
        super(fabric, id, name, address);
        this.listener = listener;
        long inc;
        do {
            inc = ThreadLocalRandom.current().nextLong();
        } while (inc == 0);
        this.incarnation = inc;
        // Virtual addresses differ between incarnations too, so an old address is unlikely to fall in a new region.
        this.nextAddress = (1L << 44) + (ThreadLocalRandom.current().nextLong(1L << 20) << 24);
    }

    long incarnation() {
        return incarnation;
    }

    ServerSocketChannel listener() {
        return listener;
    }

    RegionTable regions() {
        return regions;
    }

    @Override
    protected MemoryRegion registerBuffer(ByteBuffer buffer, int access) {
        synchronized (this) {
            long addr = nextAddress;
            nextAddress += ((buffer.capacity() + PAGE - 1) / PAGE + 1) * PAGE;
            SocketRegion r = new SocketRegion(this, buffer, addr, regions.newKey(), access);
            regions.add(r);
            return r;
        }
    }

    @Override
    protected CompletionQueue newCompletionQueue(int depth) {
        return new SocketCompletionQueue(fabric(), depth);
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        fabric().ensureOpen();
        return newQueuePair(socketCq(sendCq, "send"), recvCq == null ? null : socketCq(recvCq, "receive"));
    }

    private SocketQueuePair newQueuePair(SocketCompletionQueue sendCq, SocketCompletionQueue recvCq) {
        int qpn = nextQpn.getAndIncrement();
        SocketQueuePair qp = new SocketQueuePair(this, qpn, sendCq, recvCq);
        queuePairs.put(qpn, qp);
        return qp;
    }

    /** A queue pair for a peer's one-sided use: no send queue and no receive queue. */
    SocketQueuePair newPassiveQueuePair() {
        return newQueuePair(null, null);
    }

    SocketQueuePair queuePair(int qpn) {
        return queuePairs.get(qpn);
    }

    /** @return how many queue pairs the node has (its own and the passive ones made for peers' connections) */
    int queuePairCount() {
        return queuePairs.size();
    }

    void forget(SocketQueuePair qp) {
        if (queuePairs.remove(qp.qpNumber()) != null) {
            synchronized (this) {
                retired = retired.plus(qp.statistics());
            }
        }
    }

    private SocketCompletionQueue socketCq(CompletionQueue cq, String which) {
        Objects.requireNonNull(cq, which + " completion queue");
        if (!(cq instanceof SocketCompletionQueue s)) {
            throw new IllegalArgumentException("the " + which + " completion queue belongs to another provider");
        }
        return s;
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (!(local instanceof SocketQueuePair l) || l.socketNode() != this) {
            throw new IllegalArgumentException("the local queue pair must be one of node " + name());
        }
        Node target = fabric().resolve(remote.node());
        if (target == this) {
            throw new IllegalArgumentException("cannot connect two queue pairs of the same node");
        }
        if (l.state() != dev.remora.verbs.QpState.RESET || remote.state() != dev.remora.verbs.QpState.RESET) {
            throw new IllegalStateException("both queue pairs must be in RESET");
        }
        // As with rdma_cm: the peer's queue pair is named by its node's address and its number, exchanged out of band;
        // the peer's process binds the connection to it.
        fabric().connectQueuePair(this, l, target, remote.qpNumber());
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        Objects.requireNonNull(target, "target");
        SocketCompletionQueue scq = socketCq(cq, "send");
        Node resolved = fabric().resolve(target);
        fabric().ensureOpen();
        ensureAlive();
        SocketQueuePair qp = newQueuePair(scq, scq);
        fabric().connectQueuePair(this, qp, resolved, -1);
        return qp;
    }

    /** Stops answering: the listener closes and every connection of this node goes silent (peers time out). */
    void crash() {
        markCrashed();
        try {
            listener.close();
        } catch (IOException ignored) {
            // crashing anyway
        }
    }

    VerbsStatistics statistics() {
        VerbsStatistics s;
        synchronized (this) {
            s = retired;
        }
        for (SocketQueuePair qp : queuePairs.values()) {
            s = s.plus(qp.statistics());
        }
        return s;
    }

    void closeAll() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (SocketRegion r : regions.all()) {
            r.deregister();
        }
    }

    @Override
    public String toString() {
        return "SocketNode{" + name() + " id=" + id() + " at " + address() + (isCrashed() ? ", crashed" : "") + '}';
    }
}
