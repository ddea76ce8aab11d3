package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.VerbsProperties;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import net.jqwik.api.lifecycle.AfterContainer;

import java.util.Map;

/**
 * The verbs properties on the socket fabric between two OS processes: the client C in this JVM, the targets T1 and
 * T2 in one child JVM started for the class (each try opens a fresh fabric in it), so every request crosses
 * processes.
 */
class SocketCrossProcessPropertiesTest extends VerbsProperties {
    private static NodeHost host;

    private static synchronized NodeHost host() {
        if (host == null) {
            host = NodeHost.start();
        }
        return host;
    }

    @AfterContainer
    static synchronized void stopHost() {
        if (host != null) {
            host.close();
            host = null;
        }
    }

    @Override
    protected Fabric newFabric() {
        return HostedSocketFabric.open(host(), HostedSocketFabric.Placement.allButFirst(), Map.of());
    }
}
