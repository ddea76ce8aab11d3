package dev.remora.verbs.ucx;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.VerbsProperties;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The verbs properties on the UCX fabric between two OS processes: the client C in this JVM, the targets T1 and T2 in
 * one child JVM started for the class (each try opens a fresh fabric in it), so every request crosses processes over
 * the subclass's transport.
 */
abstract class UcxCrossProcessProperties extends VerbsProperties {
    private static NodeHost host;

    /** @return the UCX transports */
    abstract String transports();

    private static synchronized NodeHost host() {
        if (host == null) {
            UcxAvailable.assume();
            host = NodeHost.start(UcxHosting.NATIVE_ACCESS);
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
        return UcxHosting.open(host(), HostedSocketFabric.Placement.allButFirst(), transports(),
            UcxCrossProcessContract.TIMEOUT_NS);
    }
}
