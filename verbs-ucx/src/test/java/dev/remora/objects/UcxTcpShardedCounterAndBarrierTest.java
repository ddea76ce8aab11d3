package dev.remora.objects;

import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.ucx.UcxHosting;

/**
 * The sharded counter and the barrier across processes ({@link ShardedCounterAndBarrierCrossProcessTest}) on the UCX
 * fabric over UCX_TLS=tcp.
 */
class UcxTcpShardedCounterAndBarrierTest extends ShardedCounterAndBarrierCrossProcessTest {
    @Override
    HostedSocketFabric open(HostedSocketFabric.Placement placement) {
        return UcxHosting.open(HOST.host(), placement, "tcp", 2_000_000_000L);
    }
}
