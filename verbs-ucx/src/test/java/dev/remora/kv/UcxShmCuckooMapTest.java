package dev.remora.kv;

import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.ucx.UcxHosting;

/**
 * The cuckoo map across processes ({@link CuckooMapCrossProcessTest}: four clients, histories checked with the map
 * model, kicks, GET 1 round trip and every update 2) on the UCX fabric over UCX_TLS=shm.
 */
class UcxShmCuckooMapTest extends CuckooMapCrossProcessTest {
    @Override
    HostedSocketFabric open() {
        return UcxHosting.open(HOST.host(), HostedSocketFabric.Placement.named("home"), "shm", 2_000_000_000L);
    }
}
