package dev.remora.verbs.socket;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;

import java.nio.ByteBuffer;

/**
 * A node of another process, reached by {@link SocketFabric#connect(String)}: the target of this process's one-sided
 * verbs. Its memory, queue pairs and completion queues belong to its own process.
 */
final class PeerNode implements Node {
    private final SocketFabric fabric;
    private final int id;
    private final String name;
    private final String address;
    private volatile long incarnation;
    private volatile Connection control;

    PeerNode(SocketFabric fabric, int id, String name, String address, long incarnation, Connection control) {
        this.fabric = fabric;
        this.id = id;
        this.name = name;
        this.address = address;
        this.incarnation = incarnation;
        this.control = control;
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
    public SocketFabric fabric() {
        return fabric;
    }

    @Override
    public boolean isLocal() {
        return false;
    }

    /** @return the incarnation last seen: a restarted process is a new one, and its old keys are refused */
    long incarnation() {
        return incarnation;
    }

    void incarnation(long value) {
        incarnation = value;
    }

    Connection control() {
        return control;
    }

    void control(Connection c) {
        control = c;
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
        return "PeerNode{" + name + " id=" + id + " at " + address + '}';
    }
}
