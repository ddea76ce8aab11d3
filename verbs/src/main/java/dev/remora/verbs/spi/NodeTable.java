package dev.remora.verbs.spi;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

/**
 * The nodes of a fabric, for provider implementations: ids are 0, 1, 2, ... in creation order, names are unique.
 * Thread-safe; lookups take no lock.
 *
 * @param <N> the provider's node type
 */
public final class NodeTable<N extends Node> {
    private final List<N> nodes = new CopyOnWriteArrayList<>();
    private final int maxNodes;

    /**
     * @param maxNodes the most nodes the provider supports (e.g. what its key encoding has room for)
     */
    public NodeTable(int maxNodes) {
        this.maxNodes = maxNodes;
    }

    /**
     * Adds a node with the next id.
     *
     * @param name a name not used yet in this table
     * @param create makes the node from its id
     * @return the node
     * @throws IllegalArgumentException if the name is taken
     * @throws IllegalStateException if the table is full
     */
    public synchronized N add(String name, IntFunction<N> create) {
        Objects.requireNonNull(name, "name");
        for (N n : nodes) {
            if (n.name().equals(name)) {
                throw new IllegalArgumentException("a node named '" + name + "' already exists");
            }
        }
        if (nodes.size() >= maxNodes) {
            throw new IllegalStateException("this fabric holds at most " + maxNodes + " nodes");
        }
        N node = create.apply(nodes.size());
        nodes.add(node);
        return node;
    }

    /**
     * @param id a node id
     * @return the node
     * @throws IllegalArgumentException if no node has that id
     */
    public N get(int id) {
        if (id < 0 || id >= nodes.size()) {
            throw new IllegalArgumentException("no node with id " + id + " (fabric has " + nodes.size() + ")");
        }
        return nodes.get(id);
    }

    /**
     * @param name a node name
     * @return the node with that name, or null
     */
    public N named(String name) {
        for (N n : nodes) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        return null;
    }

    /**
     * {@link dev.remora.verbs.Fabric#connect(String)} for an in-process fabric, whose nodes' addresses are
     * {@code <provider>:<name>}.
     *
     * @param provider the provider's name
     * @param address the address
     * @return the node
     * @throws IllegalArgumentException if the address is not of that form or names no node of the fabric
     */
    public N connect(String provider, String address) {
        Objects.requireNonNull(address, "address");
        String prefix = provider + ":";
        if (!address.startsWith(prefix)) {
            throw new IllegalArgumentException("'" + address + "' is not an address of the in-process " + provider
                + " fabric (" + prefix + "<node name>); its nodes are all in this process");
        }
        N n = named(address.substring(prefix.length()));
        if (n == null) {
            throw new IllegalArgumentException("no node at " + address + " in this " + provider + " fabric");
        }
        return n;
    }

    /** @return every node, in id order (a live, unmodifiable view) */
    public List<N> all() {
        return Collections.unmodifiableList(nodes);
    }

    /** @return an unmodifiable snapshot typed as the API's nodes, for {@link Fabric#nodes()} */
    public List<Node> snapshot() {
        return List.copyOf(nodes);
    }

    /** @return the number of nodes */
    public int size() {
        return nodes.size();
    }
}
