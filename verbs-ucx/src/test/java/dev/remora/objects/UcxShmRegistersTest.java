package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import dev.remora.verbs.ucx.UcxHosting;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registers on the UCX fabric between two OS processes over UCX_TLS=shm: the home in a child JVM. */
class UcxShmRegistersTest extends RegistersContract {
    @RegisterExtension
    static final NodeHostExtension HOST = UcxHosting.extension();

    @Override
    protected Fabric openFabric() {
        return UcxHosting.open(HOST.host(), HostedSocketFabric.Placement.named("home"), "shm", 2_000_000_000L);
    }

    @Override
    protected int writesPerWriter() {
        return 60;
    }
}
