package dev.remora.verbs.disni;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.spi.FabricProvider;

import java.util.Map;

/**
 * Registers the DiSNI fabric as provider {@value #NAME}; properties are those of {@link DisniContext}. Opening it
 * where it cannot run throws {@link IllegalStateException} with {@link DisniAvailability#reason()}.
 */
public final class DisniFabricProvider implements FabricProvider {
    /** The provider's name. */
    public static final String NAME = "disni";

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public DisniFabricProvider() {
    }

    /**
     * Whether the provider can run here, and what is missing if not ({@code remora doctor} calls this).
     *
     * @return the answer
     */
    public static DisniAvailability availability() {
        return DisniAvailability.check();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Fabric open(Map<String, String> properties) {
        return DisniFabric.open(DisniContext.fromProperties(properties));
    }
}
