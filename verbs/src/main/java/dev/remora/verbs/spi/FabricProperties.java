package dev.remora.verbs.spi;

import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Reads the properties of {@link dev.remora.verbs.Fabric#open(String, Map)} into a provider's settings, as every
 * provider does: each name must be one the provider knows (an unknown one is an error, so that a typo is not
 * silently ignored), and a value its setter cannot parse as a number is an error naming the property.
 */
public final class FabricProperties {
    private FabricProperties() {
    }

    /**
     * Applies properties, in the map's order.
     *
     * @param provider the provider's name, for messages ({@code socket} gives "unknown socket fabric property ...")
     * @param properties names and values
     * @param setters the setter of each name the provider knows; it may throw {@link NumberFormatException} for a
     *     malformed number, or {@link IllegalArgumentException} with its own message
     * @throws IllegalArgumentException for an unknown name or a malformed value
     */
    public static void apply(String provider, Map<String, String> properties, Map<String, Consumer<String>> setters) {
        Objects.requireNonNull(properties, "properties");
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            Consumer<String> setter = setters.get(k);
            if (setter == null) {
                throw new IllegalArgumentException("unknown " + provider + " fabric property '" + k + "' (known: "
                    + new TreeSet<>(setters.keySet()) + ")");
            }
            try {
                setter.accept(v);
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(provider + " fabric property " + k + "=" + v + " is not a number",
                    ex);
            }
        }
    }
}
