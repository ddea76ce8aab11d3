package dev.remora.verbs.sim;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;

/** The verbs contract on the fast software fabric with the 2 µs round-trip preset and two NIC threads. */
class SimFabricLatencyContractTest extends VerbsContract {
    private static final long TIMEOUT_NS = 100_000_000L;

    @Override
    protected Fabric newFabric() {
        return SimFabric.open(SimContext.twoMicrosecondRoundTrip().nicThreads(2).retryTimeoutNs(TIMEOUT_NS)
            .rnrTimeoutNs(TIMEOUT_NS));
    }

    @Override
    protected Fabric newFabricWithRoundTripNs(long roundTripNs) {
        return SimFabric.open(new SimContext().roundTripLatencyNs(roundTripNs).retryTimeoutNs(TIMEOUT_NS)
            .rnrTimeoutNs(TIMEOUT_NS));
    }

    @Override
    protected long retryTimeoutNs() {
        return TIMEOUT_NS;
    }

    @Override
    protected void crash(Node node) {
        ((SimFabric) fabric).crash(node);
    }
}
