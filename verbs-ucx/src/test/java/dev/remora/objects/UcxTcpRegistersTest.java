package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import dev.remora.verbs.ucx.UcxHosting;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registers on the UCX fabric between two OS processes over UCX_TLS=tcp: the home in a child JVM. */
class UcxTcpRegistersTest extends RegistersContract {
    @RegisterExtension
    static final NodeHostExtension HOST = UcxHosting.extension();

    @Override
    protected Fabric openFabric() {
        return UcxHosting.open(HOST.host(), HostedSocketFabric.Placement.named("home"), "tcp", 2_000_000_000L);
    }

    @Override
    protected int writesPerWriter() {
        return 60;
    }
}
