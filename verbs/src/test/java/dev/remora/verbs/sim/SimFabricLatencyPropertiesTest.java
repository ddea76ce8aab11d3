package dev.remora.verbs.sim;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.VerbsProperties;

/** The random-program properties with a 2 µs round trip and two NIC threads, so queue pairs really interleave. */
class SimFabricLatencyPropertiesTest extends VerbsProperties {
    @Override
    protected Fabric newFabric() {
        return SimFabric.open(SimContext.twoMicrosecondRoundTrip().nicThreads(2));
    }
}
