package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.testing.HostedSocketFabric;

import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.List;
import java.util.Map;

/**
 * The remote counter on the socket fabric between two OS processes: the counter's home lives in a child JVM (one for
 * the class), the clients in this one, so every counter operation crosses processes. The crash test crashes the home
 * in the child ({@code SocketFabric.crash} there): it goes silent and the client's request times out.
 */
class RemoteCounterCrossProcessTest extends RemoteCounterContract {
    private static final HostedSocketFabric.Placement HOME_IN_CHILD = HostedSocketFabric.Placement.named("home");
    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    @Override
    protected List<Setting> settings() {
        return List.of(new Setting("sockets between two processes", this::openFabric));
    }

    @Override
    protected Fabric openFabric() {
        return HostedSocketFabric.open(HOST.host(), HOME_IN_CHILD, Map.of());
    }

    @Override
    protected Fabric openFabric(long retryTimeoutNs) {
        return HostedSocketFabric.open(HOST.host(), HOME_IN_CHILD, retryTimeoutNs);
    }

    @Override
    protected void crash(Fabric fabric, Node node) {
        ((HostedSocketFabric) fabric).crash(node);
    }
}
