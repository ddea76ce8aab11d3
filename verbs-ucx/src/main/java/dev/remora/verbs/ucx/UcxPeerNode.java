package dev.remora.verbs.ucx;

import dev.remora.verbs.spi.AbstractPeerNode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A node of another process, reached by {@link UcxFabric#connect(String)} or introduced by its own handshake: the
 * target of this process's one-sided verbs. Its memory, queue pairs and completion queues belong to its own process;
 * this handle holds its UCX worker address (to create endpoints to it) and the connection manager's connection to
 * it (to fetch its remote keys and look its names up).
 */
final class UcxPeerNode extends AbstractPeerNode<UcxFabric> {
    private volatile long incarnation;
    private volatile MemorySegment workerAddress;
    private volatile ControlConnection control;

    UcxPeerNode(UcxFabric fabric, ControlConnection.PeerInfo info, ControlConnection control) {
        super(fabric, info.nodeId(), info.name(), info.address());
        this.incarnation = info.incarnation();
        this.workerAddress = copy(info.workerAddress());
        this.control = control;
    }

    private MemorySegment copy(byte[] bytes) {
        Arena a = fabric().arena();
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
}
