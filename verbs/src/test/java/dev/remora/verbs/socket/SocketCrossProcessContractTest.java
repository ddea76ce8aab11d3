package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs contract on the socket fabric between two OS processes: N1 lives in this JVM, N2 and N3 in one child JVM
 * ({@link NodeHost}, started once for the class; each test opens a fresh fabric in it). Every request the contract
 * posts from N1 crosses processes; what N3 posts to N2 (its endpoints) stays inside the child.
 */
class SocketCrossProcessContractTest extends VerbsContract {
    private static final long TIMEOUT_NS = 300_000_000L;
    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    @Override
    protected Fabric newFabric() {
        return HostedSocketFabric.open(HOST.host(), HostedSocketFabric.Placement.allButFirst(), TIMEOUT_NS);
    }

    /**
     * Both processes delay their requests; the contract's in-flight deregistration has A here and B in the child, so
     * B's deregistration (a remote-control command) lands while A's requests are on their way. B's registered buffer
     * is a copy in the child (see {@link HostedSocketFabric}), so that test's checks of the raw buffer hold trivially.
     */
    @Override
    protected Fabric newFabricWithRoundTripNs(long roundTripNs) {
        return HostedSocketFabric.open(HOST.host(), HostedSocketFabric.Placement.allButFirst(), Map.of(
            SocketContext.ROUND_TRIP_DELAY_NS_PROP_NAME, Long.toString(roundTripNs),
            SocketContext.RETRY_TIMEOUT_NS_PROP_NAME, Long.toString(4 * roundTripNs),
            SocketContext.RNR_TIMEOUT_NS_PROP_NAME, Long.toString(TIMEOUT_NS)));
    }

    @Override
    protected long retryTimeoutNs() {
        return TIMEOUT_NS;
    }

    @Override
    protected void crash(Node node) {
        ((HostedSocketFabric) fabric).crash(node);
    }

    @Test
    void shouldPlaceTheTargetsInAnotherProcess() {
        HostedSocketFabric f = (HostedSocketFabric) fabric;
        assertFalse(f.isInChild(n1));
        assertTrue(f.isInChild(n2) && f.isInChild(n3));
        assertTrue(HOST.host().child().isAlive());
        assertNotEquals(ProcessHandle.current().pid(), HOST.host().child().pid());
        assertFalse(f.localFabric().node(n2.id()) == n2, "this process reaches N2 through a peer handle");
        assertFalse(f.localFabric().node(n2.id()).isLocal());
    }
}
