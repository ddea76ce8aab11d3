package dev.remora.verbs.socket;

import dev.remora.verbs.spi.AbstractPeerNode;

/**
 * A node of another process, reached by {@link SocketFabric#connect(String)}: the target of this process's one-sided
 * verbs. Its memory, queue pairs and completion queues belong to its own process; this handle holds its control
 * connection and the incarnation last seen.
 */
final class PeerNode extends AbstractPeerNode<SocketFabric> {
    private volatile long incarnation;
    private volatile Connection control;

    PeerNode(SocketFabric fabric, int id, String name, String address, long incarnation, Connection control) {
        super(fabric, id, name, address);
        this.incarnation = incarnation;
        this.control = control;
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
}
