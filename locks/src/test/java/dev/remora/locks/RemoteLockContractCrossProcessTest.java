package dev.remora.locks;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.testing.HostedSocketFabric;

import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.util.List;
import java.util.Map;

/**
 * Every lock on the socket fabric between two OS processes: the lock's home and the data node live in a child JVM
 * (one for the class), the client nodes in this one, so every lock and data request of a client crosses processes.
 * The home's own thread in the read-modify-write test drives an endpoint on the home by remote control.
 */
class RemoteLockContractCrossProcessTest extends RemoteLockContract {
    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    @Override
    protected List<Setting> settings() {
        return List.of(new Setting("sockets between two processes", this::openFabric));
    }

    @Override
    protected Fabric openFabric() {
        return HostedSocketFabric.open(HOST.host(), HostedSocketFabric.Placement.named("home", "data"), Map.of());
    }
}
