package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;

/** The verbs contract on the socket fabric, every node in this process (each queue pair a loopback TCP connection). */
class SocketFabricContractTest extends VerbsContract {
    private static final long TIMEOUT_NS = 300_000_000L;

    @Override
    protected Fabric newFabric() {
        return SocketFabric.open(new SocketContext().retryTimeoutNs(TIMEOUT_NS).rnrTimeoutNs(TIMEOUT_NS));
    }

    @Override
    protected Fabric newFabricWithRoundTripNs(long roundTripNs) {
        return SocketFabric.open(new SocketContext().roundTripDelayNs(roundTripNs).retryTimeoutNs(4 * roundTripNs)
            .rnrTimeoutNs(TIMEOUT_NS));
    }

    @Override
    protected long retryTimeoutNs() {
        return TIMEOUT_NS;
    }

    @Override
    protected void crash(Node node) {
        ((SocketFabric) fabric).crash(node);
    }
}
