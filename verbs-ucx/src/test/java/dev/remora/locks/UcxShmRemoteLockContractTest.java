package dev.remora.locks;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import dev.remora.verbs.ucx.UcxHosting;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/**
 * Every lock on the UCX fabric between two OS processes over UCX_TLS=shm: the lock's home and the data node live in
 * a child JVM (one for the class), the clients in this one, so every lock and data request of a client crosses
 * processes.
 */
class UcxShmRemoteLockContractTest extends RemoteLockContract {
    @RegisterExtension
    static final NodeHostExtension HOST = UcxHosting.extension();

    @Override
    protected List<Setting> settings() {
        return List.of(new Setting("ucx shm between two processes", this::openFabric));
    }

    @Override
    protected Fabric openFabric() {
        return UcxHosting.open(HOST.host(), HostedSocketFabric.Placement.named("home", "data"), "shm",
            2_000_000_000L);
    }
}
