package dev.remora.verbs.det;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.spi.FabricProvider;

import java.util.HashMap;
import java.util.Map;

/**
 * Registers the deterministic fabric as provider {@value #NAME}. Properties: {@code seed}, {@code maxSteps}, and
 * the knobs by their TLA+ names ({@code ATOMIC_CAP}, {@code SC_MODE}, ...).
 */
public final class DetFabricProvider implements FabricProvider {
    /** The provider's name. */
    public static final String NAME = "det";

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public DetFabricProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Fabric open(Map<String, String> properties) {
        Map<String, String> knobs = new HashMap<>(properties);
        DetContext c = new DetContext();
        String seed = knobs.remove("seed");
        if (seed != null) {
            c.seed(Long.parseLong(seed.trim()));
        }
        String max = knobs.remove("maxSteps");
        if (max != null) {
            c.maxSteps(Long.parseLong(max.trim()));
        }
        return DetFabric.open(c.knobs(DetKnobs.fromNames(knobs)));
    }
}
