package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.testing.HostedSocketFabric;

import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.Map;

/**
 * The registers on the socket fabric between two OS processes: the registers' home lives in a child JVM (one for the
 * class), the clients in this one, so every verb crosses processes. Fewer writes per writer than on the fast fabric.
 */
class RegistersCrossProcessTest extends RegistersContract {
    private static final HostedSocketFabric.Placement HOME_IN_CHILD = HostedSocketFabric.Placement.named("home");
    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    @Override
    protected Fabric openFabric() {
        return HostedSocketFabric.open(HOST.host(), HOME_IN_CHILD, Map.of());
    }

    @Override
    protected int writesPerWriter() {
        return 60;
    }
}
