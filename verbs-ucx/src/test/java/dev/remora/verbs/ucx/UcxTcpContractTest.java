package dev.remora.verbs.ucx;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;

/** The verbs contract on the UCX fabric in one process (three workers), over TCP (loopback). */
class UcxTcpContractTest extends VerbsContract {
    private static final long TIMEOUT_NS = 1_000_000_000L;

    @Override
    protected Fabric newFabric() {
        UcxAvailable.assume();
        return UcxFabric.open(new UcxContext().transports("tcp").retryTimeoutNs(TIMEOUT_NS).rnrTimeoutNs(TIMEOUT_NS));
    }

    @Override
    protected long retryTimeoutNs() {
        return TIMEOUT_NS;
    }

    @Override
    protected void crash(Node node) {
        ((UcxFabric) fabric).crash(node);
    }
}
