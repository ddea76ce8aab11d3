package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.VerbsProperties;

/** The verbs properties on the socket fabric, every node in this process. */
class SocketFabricPropertiesTest extends VerbsProperties {
    @Override
    protected Fabric newFabric() {
        return SocketFabric.open();
    }
}
