package dev.remora.objects;

import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.ucx.UcxHosting;

/** The SPSC and MPSC rings across processes ({@link RingsCrossProcessTest}) on the UCX fabric over UCX_TLS=shm. */
class UcxShmRingsTest extends RingsCrossProcessTest {
    @Override
    HostedSocketFabric open(HostedSocketFabric.Placement placement) {
        return UcxHosting.open(HOST.host(), placement, "shm", 2_000_000_000L);
    }
}
