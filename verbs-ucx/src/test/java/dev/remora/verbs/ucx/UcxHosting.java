package dev.remora.verbs.ucx;

import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import dev.remora.verbs.testing.NodeHostExtension;

import java.util.Map;

/** How the UCX tests (here and in the objects and locks packages) place nodes in a second OS process: a node host child JVM and a UCX fabric in each process. */
public final class UcxHosting {
    /** The child JVM calls libucp through the FFM API too. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private UcxHosting() {
    }

    /** @return a node host extension whose child may call native code */
    public static NodeHostExtension extension() {
        return new NodeHostExtension(NATIVE_ACCESS);
    }

    /**
     * Opens a UCX fabric between this process and the host's child, skipping the test if UCX is not usable here.
     *
     * @param host the child
     * @param placement which nodes go to the child
     * @param tls the UCX transports, e.g. {@code shm} or {@code tcp}
     * @param retryTimeoutNs the retry and receiver-not-ready timeout of both processes
     * @return the fabric
     */
    public static HostedSocketFabric open(NodeHost host, HostedSocketFabric.Placement placement, String tls,
                                   long retryTimeoutNs) {
        UcxAvailable.assume();
        return HostedSocketFabric.open(host, UcxFabricProvider.NAME, placement, Map.of(
            UcxContext.TRANSPORTS_PROP_NAME, tls,
            UcxContext.RETRY_TIMEOUT_NS_PROP_NAME, Long.toString(retryTimeoutNs),
            UcxContext.RNR_TIMEOUT_NS_PROP_NAME, Long.toString(retryTimeoutNs)));
    }
}
