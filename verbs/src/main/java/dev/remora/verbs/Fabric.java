package dev.remora.verbs;

import dev.remora.verbs.spi.FabricProvider;
import dev.remora.verbs.spi.FabricProviders;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * A fabric connects nodes. Providers are found with {@link ServiceLoader} as {@link FabricProvider}s and selected by
 * name with {@link #open(String, Map)}: {@code "sim"} is the in-process software fabric (always present), {@code
 * "det"} the deterministic one, {@code "socket"} the fabric between processes and hosts.
 *
 * <h2>Nodes in this process and nodes elsewhere</h2>
 * A process opens a fabric and adds its own <em>local</em> nodes ({@link #addNode}): their memory lives in this
 * process. It reaches nodes of other processes by address ({@link #connect(String)}), in the spirit of {@code rdma_cm}:
 * every local node listens at {@link Node#address()}, a peer connects there, and the two exchange what the verbs
 * need; the peer then appears as a node handle ({@link Node#isLocal()} false) with a fabric-wide id, usable wherever a
 * node is, except that its memory, queue pairs and completion queues belong to its own process. A home node
 * {@link #publish}es named objects and a client {@link #lookup}s them up:
 *
 * <pre>{@code
 * // in the home's process
 * Node home = fabric.addNode("home");                 // listens at home.address(), e.g. 10.0.0.2:7471
 * fabric.publish("hits", RemoteCounter.create(home));
 *
 * // in a client's process
 * Node me = fabric.addNode("client-7");
 * fabric.connect("10.0.0.2:7471");
 * RemoteCounter hits = RemoteCounter.attach(Endpoint.open(me), fabric.lookup("hits"));
 * }</pre>
 *
 * The in-process fabrics implement the same calls: all their nodes are local, {@link Node#address()} is
 * {@code "<provider>:<name>"}, and {@code connect} of such an address returns that node; so code written this way
 * runs unchanged on every provider.
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
        StringBuilder unloadable = new StringBuilder();
        for (FabricProvider p : FabricProviders.loadable(
            e -> unloadable.append(unloadable.length() == 0 ? "" : "; ").append(e.getMessage()))) {
            if (p.name().equals(provider)) {
                return p.open(properties);
            }
            known.append(known.length() == 0 ? "" : ", ").append(p.name());
        }
        throw new IllegalArgumentException("no fabric provider named '" + provider + "' (known: " + known + ")"
            + (unloadable.length() == 0 ? "" : "; providers that could not be loaded: " + unloadable));
    }

    /** @return the provider's name */
    String providerName();

    /**
     * Adds a local node: its memory lives in this process, and (on a fabric between processes) it listens for peers
     * at {@link Node#address()}.
     *
     * @param name a readable name, unique in the fabric
     * @return the node
     */
    Node addNode(String name);

    /**
     * Reaches the node listening at an address ({@code rdma_resolve_addr} and {@code rdma_connect}): the handle it
     * returns works with {@link Node#connect(Node, CompletionQueue)} and in {@link RemoteAddress}es, and stays known
     * to {@link #node(int)}, {@link #nodes()} and {@link #lookup}. Connecting again to a known address returns the
     * same handle.
     *
     * @param address what the peer's {@link Node#address()} printed, e.g. {@code 10.0.0.2:7471} or {@code sim:home}
     * @return the peer's node handle (a local node when the address is one of this fabric's own)
     * @throws IllegalArgumentException if the address is malformed, or names no node this fabric can reach
     * @throws IllegalStateException if the peer refused the connection (a wrong cluster secret, a clashing node id)
     */
    Node connect(String address);

    /**
     * Publishes a named object of a local node, so that peers find it with {@link #lookup}. A name stays published
     * until {@link #unpublish} or until the fabric closes.
     *
     * @param name 1 to 200 characters, none of them a control character
     * @param address where the object lives, on a local node of this fabric
     * @throws IllegalArgumentException for a bad name, or an address of a node that is not local
     * @throws IllegalStateException if the name is already published with another address
     */
    void publish(String name, RemoteAddress address);

    /**
     * Withdraws a published name; later lookups do not find it. Does nothing if it is not published here.
     *
     * @param name the name
     */
    void unpublish(String name);

    /**
     * Finds a named object: among this fabric's own publications first, then at every connected peer in the order they
     * were connected.
     *
     * @param name the name
     * @return where the object lives
     * @throws java.util.NoSuchElementException if no node publishes it, naming the nodes asked (and any that did not
     *     answer)
     */
    RemoteAddress lookup(String name);

    /**
     * Looks a node up.
     *
     * @param id the node id
     * @return the node
     * @throws IllegalArgumentException if unknown
     */
    Node node(int id);

    /** @return every node, local ones and the peers reached so far, in id order */
    List<Node> nodes();

    /** @return the sum of every queue pair's counters */
    VerbsStatistics statistics();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /** Closes the fabric: NIC threads stop, and posting anywhere throws. Idempotent. */
    @Override
    void close();
}
