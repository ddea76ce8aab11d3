package dev.remora.verbs.spi;

import dev.remora.verbs.Fabric;

import java.util.Map;

/**
 * Service-provider interface of a fabric implementation, registered in
 * {@code META-INF/services/dev.remora.verbs.FabricProvider} and selected by {@link Fabric#open(String, Map)}.
 */
public interface FabricProvider {

    /** @return the name users select the provider by */
    String name();

    /**
     * Opens a fabric.
     *
     * @param properties provider-specific settings
     * @return the fabric
     */
    Fabric open(Map<String, String> properties);
}
