package dev.remora.verbs.ucx;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A node of another process, reached by {@link UcxFabric#connect(String)} or introduced by its own handshake: the
 * target of this process's one-sided verbs. Its memory, queue pairs and completion queues belong to its own process;
 * this handle holds its UCX worker address (to create endpoints to it) and the connection manager's connection to
 * it (to fetch its remote keys and look its names up).
 */
final class UcxPeerNode implements Node {
    private final UcxFabric fabric;
    private final int id;
    private final String name;
    private final String address;
    private volatile long incarnation;
    private volatile MemorySegment workerAddress;
    private volatile ControlConnection control;

    UcxPeerNode(UcxFabric fabric, ControlConnection.PeerInfo info, ControlConnection control) {
        this.fabric = fabric;
        this.id = info.nodeId();
        this.name = info.name();
        this.address = info.address();
        this.incarnation = info.incarnation();
        this.workerAddress = copy(info.workerAddress());
        this.control = control;
    }

    private MemorySegment copy(byte[] bytes) {
        Arena a = fabric.arena();
        MemorySegment s = a.allocate(Math.max(1, bytes.length), 8);
        MemorySegment.copy(bytes, 0, s, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s;
    }

    /**
     * Takes what a (newer) handshake said: a restarted process is a new incarnation with a new worker address.
     *
     * @param info the handshake
     * @param connection its connection
     * @return whether the incarnation changed
     */
    boolean update(ControlConnection.PeerInfo info, ControlConnection connection) {
        control = connection;
        if (info.incarnation() == incarnation) {
            return false;
        }
        incarnation = info.incarnation();
        workerAddress = copy(info.workerAddress());
        return true;
    }

    long incarnation() {
        return incarnation;
    }

    MemorySegment workerAddress() {
        return workerAddress;
    }

    ControlConnection control() {
        return control;
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
        return address;
    }

    @Override
    public UcxFabric fabric() {
        return fabric;
    }

    @Override
    public boolean isLocal() {
        return false;
    }

    private UnsupportedOperationException elsewhere(String what) {
        return new UnsupportedOperationException(what + " on node " + name + " at " + address + ": it is a peer of "
            + "another process, whose memory and queues belong to that process (do it there)");
    }

    @Override
    public MemoryRegion allocate(long lengthBytes, int access) {
        throw elsewhere("allocate");
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer, int access) {
        throw elsewhere("register");
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        throw elsewhere("createCompletionQueue");
    }

    @Override
    public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
        throw elsewhere("createQueuePair");
    }

    @Override
    public void connect(QueuePair local, QueuePair remote) {
        throw elsewhere("connect");
    }

    @Override
    public QueuePair connect(Node target, CompletionQueue cq) {
        throw elsewhere("connect");
    }

    @Override
    public void fullFence() {
        throw elsewhere("fullFence");
    }

    @Override
    public boolean isCrashed() {
        return false;
    }

    @Override
    public String toString() {
        return "UcxPeerNode{" + name + " id=" + id + " at " + address + '}';
    }
}
