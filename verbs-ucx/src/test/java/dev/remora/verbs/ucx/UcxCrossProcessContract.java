package dev.remora.verbs.ucx;

import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs contract on the UCX fabric between two OS processes: N1 lives in this JVM, N2 and N3 in one child JVM
 * (started once per class; each test opens a fresh fabric in it), so every request the contract posts from N1 crosses
 * processes over the subclass's UCX transport.
 */
abstract class UcxCrossProcessContract extends VerbsContract {
    static final long TIMEOUT_NS = 1_000_000_000L;

    /** @return the child process */
    abstract NodeHost host();

    /** @return the UCX transports */
    abstract String transports();

    @Override
    protected Fabric newFabric() {
        return UcxHosting.open(host(), HostedSocketFabric.Placement.allButFirst(), transports(), TIMEOUT_NS);
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
        assertTrue(host().child().isAlive());
        assertNotEquals(ProcessHandle.current().pid(), host().child().pid());
        assertTrue(f.localFabric() instanceof UcxFabric, "this process's nodes are on UCX");
        assertFalse(f.localFabric().node(n2.id()).isLocal(), "this process reaches N2 through a peer handle");
    }

    @Test
    void shouldFenceOnlyEndpointsWithOneLaneForRequests() {
        CompletionQueue cq = n1.createCompletionQueue(8);
        n1.connect(n2, cq);
        UcxFabric local = (UcxFabric) ((HostedSocketFabric) fabric).localFabric();
        String described = local.endpoints().get("N1").get(n2.id());
        String info = local.endpointInfo(local.node(n1.id()), local.node(n2.id()));
        int lanes = Ucx.requestLanes(info);
        assertTrue(lanes >= 1, "the wired-up endpoint carries requests: " + info);
        assertEquals(lanes + (lanes == 1 ? " lane, fence" : " lanes, flush"), described, info);
        if (transports().equals("tcp")) {
            assertEquals(1, lanes, "MAX_RNDV_RAILS=1 keeps TCP to one lane, so a fence orders it: " + info);
        }
    }
}
