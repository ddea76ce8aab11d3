package dev.remora.verbs.sim;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.spi.AbstractLocalNode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node of the software fabric. Regions get page-aligned virtual addresses from a per-node bump allocator, with an
 * unmapped guard page between regions so that an off-by-one remote address fails instead of hitting a neighbour.
 */
final class SimNode extends AbstractLocalNode<SimFabric> {
    private static final long PAGE = 4096;
    private static final long FIRST_ADDRESS = 0x10_0000L;
    /** Keys are {@code regionIndex << NODE_BITS | nodeId}: unique in the fabric, never reused. */
    static final int NODE_BITS = 12;
    static final int NODE_MASK = (1 << NODE_BITS) - 1;
    static final int MAX_NODES = 1 << NODE_BITS;
    private static final int MAX_REGIONS = 1 << (31 - NODE_BITS);

    /** Regions by key index; copy-on-write so NIC lookups take no lock and allocate nothing. */
    private volatile SimRegion[] regions = new SimRegion[16];
    private int nextRegionIndex = 1;
    private final ConcurrentHashMap<Integer, SimQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextQpNumber = new AtomicInteger(1);
    private long nextAddress = FIRST_ADDRESS;
    private VerbsStatistics retiredStatistics = VerbsStatistics.ZERO;

    SimNode(SimFabric fabric, int id, String name) {
        super(fabric, id, name, fabric.providerName() + ":" + name);
    }

    @Override
    protected MemoryRegion registerBuffer(ByteBuffer buffer, int access) {
        synchronized (this) {
            long address = nextAddress;
            nextAddress += ((buffer.capacity() + PAGE - 1) / PAGE + 1) * PAGE;
            int index = nextRegionIndex++;
            if (index >= MAX_REGIONS) {
                throw new IllegalStateException("node " + name() + " registered more than " + MAX_REGIONS + " regions");
            }
            SimRegion region = new SimRegion(this, buffer, address, (index << NODE_BITS) | id(), access);
            SimRegion[] table = regions;
            table = index < table.length ? table.clone() : Arrays.copyOf(table, table.length * 2);
            table[index] = region;
            // The volatile write publishes the region (and its zeroed memory) to NIC threads that look keys up.
            regions = table;
            return region;
        }
    }

    synchronized void forget(SimRegion region) {
        SimRegion[] table = regions.clone();
        table[region.key() >>> NODE_BITS] = null;
        regions = table;
    }

    /**
     * Looks up a region by key for a NIC access and checks bounds and access flags.
     *
     * @return the region, or null if the key, range or permission is wrong
     */
    SimRegion check(int key, long addr, long len, int needed) {
        if ((key & NODE_MASK) != id()) {
            return null;
        }
        int index = key >>> NODE_BITS;
        SimRegion[] table = regions;
        SimRegion r = index < table.length ? table[index] : null;
        if (r == null || !r.isRegistered() || !r.contains(addr, len) || !r.allows(needed)) {
            return null;
        }
        return r;
    }

    @Override
    protected CompletionQueue newCompletionQueue(int depth) {
        return new SimCompletionQueue(fabric(), depth);
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        fabric().ensureOpen();
        SimQueuePair qp = new SimQueuePair(this, nextQpNumber.getAndIncrement(), simCq(sendCq, "send"),
            simCq(recvCq, "receive"));
        queuePairs.put(qp.qpNumber(), qp);
        return qp;
    }

    SimQueuePair createPassiveQueuePair() {
        SimQueuePair qp = new SimQueuePair(this, nextQpNumber.getAndIncrement(), null, null);
        queuePairs.put(qp.qpNumber(), qp);
        return qp;
    }

    synchronized void forget(SimQueuePair qp) {
        // This monitor, then the queue pair's in statistics(): the node comes first in SimQueuePair's lock order.
        if (queuePairs.remove(qp.qpNumber(), qp)) {
            retiredStatistics = retiredStatistics.plus(qp.statistics());
        }
    }

    /** @return the counters of every queue pair this node has had */
    synchronized VerbsStatistics statistics() {
        // This monitor, then each queue pair's in turn (lines 1 and 2 of SimQueuePair's lock order).
        VerbsStatistics s = retiredStatistics;
        for (SimQueuePair qp : queuePairs.values()) {
            s = s.plus(qp.statistics());
        }
        return s;
    }

    private static SimCompletionQueue simCq(CompletionQueue cq, String which) {
        Objects.requireNonNull(cq, which + " completion queue");
        if (!(cq instanceof SimCompletionQueue)) {
            throw new IllegalArgumentException("the " + which + " completion queue belongs to another provider");
        }
        return (SimCompletionQueue) cq;
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        SimQueuePair a = simQp(local, "local");
        SimQueuePair b = simQp(remote, "remote");
        if (a.node() != this) {
            throw new IllegalArgumentException("the local queue pair belongs to node " + a.node().name());
        }
        if (b.node().fabric() != fabric()) {
            throw new IllegalArgumentException("the remote queue pair belongs to another fabric");
        }
        SimQueuePair.connect(a, b);
    }

    private static SimQueuePair simQp(QueuePair qp, String which) {
        Objects.requireNonNull(qp, which + " queue pair");
        if (!(qp instanceof SimQueuePair)) {
            throw new IllegalArgumentException("the " + which + " queue pair belongs to another provider");
        }
        return (SimQueuePair) qp;
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        Objects.requireNonNull(target, "target node");
        if (target.fabric() != fabric()) {
            throw new IllegalArgumentException("node " + target.name() + " belongs to another fabric");
        }
        SimQueuePair local = (SimQueuePair) createQueuePair(cq, cq);
        SimQueuePair passive = ((SimNode) target).createPassiveQueuePair();
        SimQueuePair.connect(local, passive);
        return local;
    }


    /**
     * Crashes the node: from now on requests addressed to it complete with RETRY_EXC_ERR after the retry timeout,
     * and its own threads can no longer post. Its memory stays as it was.
     */
    void crash() {
        markCrashed();
    }

    @Override
    public String toString() {
        return name() + "#" + id() + (isCrashed() ? " (crashed)" : "");
    }
}
