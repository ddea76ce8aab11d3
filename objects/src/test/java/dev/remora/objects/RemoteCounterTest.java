package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.util.List;

/** The remote counter on the fast software fabric, without and with the 2 µs latency preset. */
class RemoteCounterTest extends RemoteCounterContract {
    @Override
    protected List<Setting> settings() {
        return List.of(
            new Setting("zero latency", () -> SimFabric.open(new SimContext())),
            new Setting("2 us round trip", () -> SimFabric.open(SimContext.twoMicrosecondRoundTrip().nicThreads(2))));
    }

    @Override
    protected Fabric openFabric() {
        return SimFabric.open();
    }

    @Override
    protected Fabric openFabric(long retryTimeoutNs) {
        return SimFabric.open(new SimContext().retryTimeoutNs(retryTimeoutNs));
    }

    @Override
    protected void crash(Fabric fabric, Node node) {
        ((SimFabric) fabric).crash(node);
    }
}
