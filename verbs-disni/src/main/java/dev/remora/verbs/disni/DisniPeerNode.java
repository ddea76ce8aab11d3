package dev.remora.verbs.disni;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** A node of another process, reached by {@link DisniFabric#connect(String)}: the target of one-sided verbs. */
final class DisniPeerNode implements Node {
    private final DisniFabric fabric;
    private final int id;
    private final String name;
    private final String address;
    private final InetSocketAddress cmAddress;

    DisniPeerNode(DisniFabric fabric, int id, String name, String address, InetSocketAddress cmAddress) {
        this.fabric = fabric;
        this.id = id;
        this.name = name;
        this.address = address;
        this.cmAddress = cmAddress;
    }

    InetSocketAddress cmAddress() {
        return cmAddress;
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
    public DisniFabric fabric() {
        return fabric;
    }

    @Override
    public String address() {
        return address;
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
        return "DisniPeerNode{" + name + " id=" + id + " at " + address + ", cm " + cmAddress + '}';
    }
}
