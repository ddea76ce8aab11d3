package dev.remora.verbs.socket;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.spi.FabricProvider;

import java.util.Map;

/** Registers the socket fabric as provider {@value #NAME}; properties are those of {@link SocketContext}. */
public final class SocketFabricProvider implements FabricProvider {
    /** The provider's name. */
    public static final String NAME = "socket";

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public SocketFabricProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Fabric open(Map<String, String> properties) {
        return SocketFabric.open(SocketContext.fromProperties(properties));
    }
}
