package dev.remora.verbs.sim;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.VerbsProperties;

/** The random-program properties on the fast software fabric, without and with injected latency. */
class SimFabricPropertiesTest extends VerbsProperties {
    @Override
    protected Fabric newFabric() {
        return SimFabric.open();
    }
}
