package dev.remora.verbs.sim;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.spi.FabricProvider;

import java.util.Map;

/**
 * Registers the software fabric as provider {@value #NAME}; properties are those of {@link SimContext}.
 */
public final class SimFabricProvider implements FabricProvider {
    /** The provider's name. */
    public static final String NAME = "sim";

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public SimFabricProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Fabric open(Map<String, String> properties) {
        return SimFabric.open(SimContext.fromProperties(properties));
    }
}
