package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.det.machine.DetProgram;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A node of the deterministic fabric. */
final class DetNode implements Node {
    private static final long PAGE = 4096;

    private final DetFabric fabric;
    private final int id;
    private final String name;
    private final List<DetRegion> regions = new ArrayList<>();
    private long nextAddress = 0x10_0000L;
    volatile boolean crashed;

    DetNode(DetFabric fabric, int id, String name) {
        this.fabric = fabric;
        this.id = id;
        this.name = name;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String address() {
        return fabric.providerName() + ":" + name;
    }

    @Override
    public DetFabric fabric() {
        return fabric;
    }

    @Override
    public synchronized MemoryRegion allocate(long lengthBytes, int access) {
        Access.validate(access);
        fabric.ensureOpen();
        if (lengthBytes <= 0 || lengthBytes > (1 << 24)) {
            throw new IllegalArgumentException("region length must be in 1.." + (1 << 24) + ": " + lengthBytes);
        }
        int words = (int) ((lengthBytes + 7) / 8);
        int first = fabric.machine.addWords(words);
        long address = nextAddress;
        nextAddress += ((words * 8L + PAGE - 1) / PAGE + 1) * PAGE;
        DetRegion r = new DetRegion(this, address, first, words, fabric.nextKey(id), access);
        regions.add(r);
        return r;
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer, int access) {
        throw new UnsupportedOperationException("the deterministic fabric owns its memory: use allocate()");
    }

    /** A region by key, or null; used by queue pairs to check remote and local keys. */
    synchronized DetRegion region(int key) {
        for (DetRegion r : regions) {
            if (r.lkey() == key && r.isRegistered()) {
                return r;
            }
        }
        return null;
    }

    synchronized int[][] wordRanges() {
        int[][] out = new int[regions.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = new int[] {regions.get(i).firstWord(), regions.get(i).words()};
        }
        return out;
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("completion queue depth must be positive: " + depth);
        }
        fabric.ensureOpen();
        return new DetCompletionQueue(fabric, depth);
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        fabric.ensureOpen();
        Objects.requireNonNull(sendCq, "send completion queue");
        Objects.requireNonNull(recvCq, "receive completion queue");
        if (!(sendCq instanceof DetCompletionQueue cq)) {
            throw new IllegalArgumentException("the send completion queue belongs to another provider");
        }
        return new DetQueuePair(this, cq);
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        DetQueuePair a = (DetQueuePair) Objects.requireNonNull(local, "local queue pair");
        DetQueuePair b = (DetQueuePair) Objects.requireNonNull(remote, "remote queue pair");
        if (a.node() != this) {
            throw new IllegalArgumentException("the local queue pair belongs to node " + a.node().name());
        }
        DetQueuePair.connect(a, b);
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        DetNode t = fabric.own(Objects.requireNonNull(target, "target node"));
        DetQueuePair local = (DetQueuePair) createQueuePair(cq, cq);
        DetQueuePair passive = new DetQueuePair(t, null);
        DetQueuePair.connect(local, passive);
        return local;
    }

    @Override
    public void fullFence() {
        fabric.step(new DetProgram.MFence());
    }

    @Override
    public boolean isCrashed() {
        return crashed;
    }

    @Override
    public String toString() {
        return name + "#" + id + (crashed ? " (crashed)" : "");
    }
}
