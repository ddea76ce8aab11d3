package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import dev.remora.verbs.ucx.UcxHosting;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/**
 * The remote counter on the UCX fabric between two OS processes over UCX_TLS=shm: the home in a child JVM, the
 * clients here. The crash test crashes the home in the child: it stops progressing its worker and the client's
 * FETCH_ADD times out.
 */
class UcxShmRemoteCounterTest extends RemoteCounterContract {
    private static final HostedSocketFabric.Placement HOME_IN_CHILD = HostedSocketFabric.Placement.named("home");
    @RegisterExtension
    static final NodeHostExtension HOST = UcxHosting.extension();

    @Override
    protected List<Setting> settings() {
        return List.of(new Setting("ucx shm between two processes", this::openFabric));
    }

    @Override
    protected Fabric openFabric() {
        return openFabric(2_000_000_000L);
    }

    @Override
    protected Fabric openFabric(long retryTimeoutNs) {
        return UcxHosting.open(HOST.host(), HOME_IN_CHILD, "shm", retryTimeoutNs);
    }

    @Override
    protected void crash(Fabric fabric, Node node) {
        ((HostedSocketFabric) fabric).crash(node);
    }
}
