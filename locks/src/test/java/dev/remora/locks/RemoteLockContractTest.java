package dev.remora.locks;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.util.List;

/** Every lock on the fast software fabric, without and with the 2 µs latency preset. */
class RemoteLockContractTest extends RemoteLockContract {
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
}
