package dev.remora.verbs;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * A fabric connects nodes. Providers are found with {@link ServiceLoader} as {@link FabricProvider}s and selected by
 * name with {@link #open(String, Map)}: {@code "sim"} is the in-process software fabric (always present).
 *
 * <p>Thread-safe.
 */
public interface Fabric extends AutoCloseable {

    /**
     * Opens a fabric of the named provider.
     *
     * @param provider a provider name, e.g. {@code "sim"}
     * @param properties provider-specific settings (see the provider's {@code Context}); may be empty
     * @return an open fabric
     * @throws IllegalArgumentException if no provider has that name
     */
    static Fabric open(String provider, Map<String, String> properties) {
        StringBuilder known = new StringBuilder();
        for (FabricProvider p : ServiceLoader.load(FabricProvider.class, Fabric.class.getClassLoader())) {
            if (p.name().equals(provider)) {
                return p.open(properties);
            }
            known.append(known.length() == 0 ? "" : ", ").append(p.name());
        }
        throw new IllegalArgumentException("no fabric provider named '" + provider + "' (known: " + known + ")");
    }

    /** @return the provider's name */
    String providerName();

    /**
     * Adds a node.
     *
     * @param name a readable name, unique in the fabric
     * @return the node
     */
    Node addNode(String name);

    /**
     * Looks a node up.
     *
     * @param id the node id
     * @return the node
     * @throws IllegalArgumentException if unknown
     */
    Node node(int id);

    /** @return every node, in id order */
    List<Node> nodes();

    /** @return the sum of every queue pair's counters */
    VerbsStatistics statistics();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /** Closes the fabric: NIC threads stop, and posting anywhere throws. Idempotent. */
    @Override
    void close();
}
