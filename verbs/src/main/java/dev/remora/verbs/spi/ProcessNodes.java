package dev.remora.verbs.spi;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.io.Closeable;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * The nodes a fabric of several processes knows, for providers whose nodes listen at {@code host:port}: its local
 * nodes, the peers of other processes it reached, and both by id. A node's id is made from its listening address
 * ({@link #nodeId}): the low 15 bits of its IPv4 address above its 16-bit port, so that nodes on one host or one /17
 * subnet never clash; a clash is refused. Its address is {@code host:port} ({@link #address}, {@link #parse}).
 *
 * <p>Thread-safe: lookups take no lock; {@link #addLocal} and the provider's own registration of a peer
 * ({@link #addPeer}) are serialized by the caller's fabric monitor.
 *
 * @param <L> the provider's local node type
 * @param <P> the provider's peer node type
 */
public final class ProcessNodes<L extends Node, P extends Node> {
    private final String provider;
    private final Map<Integer, Node> byId = new ConcurrentSkipListMap<>();
    private final List<L> locals = new CopyOnWriteArrayList<>();
    private final List<P> peers = new CopyOnWriteArrayList<>();
    private final List<L> localsView = Collections.unmodifiableList(locals);
    private final List<P> peersView = Collections.unmodifiableList(peers);

    /**
     * @param provider the provider's name, for messages
     */
    public ProcessNodes(String provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    /**
     * Binds a listener.
     *
     * @param <S> the listener's type
     */
    @FunctionalInterface
    public interface Binder<S extends Closeable> {
        /**
         * @param at where to listen
         * @return the bound listener
         * @throws IOException if it cannot listen there
         */
        S bind(InetSocketAddress at) throws IOException;
    }

    /**
     * Makes a local node once its listener is bound.
     *
     * @param <L> the node type
     * @param <S> the listener's type
     */
    @FunctionalInterface
    public interface LocalFactory<L, S> {
        /**
         * @param id the node's id
         * @param address its address
         * @param listener its bound listener (closed for the caller if this throws)
         * @return the node
         */
        L create(int id, String address, S listener);
    }

    /**
     * Adds a local node ({@link Fabric#addNode}): checks that the name is new, binds its listener on the context's
     * host at the context's port plus the number of local nodes (or an ephemeral port for port 0), makes its id and
     * address from the bound address, refuses an id a known node has, and makes the node. A listener that does not
     * end up in a node is closed. Call it under the fabric's monitor.
     *
     * @param name the node's name
     * @param context the fabric's concluded settings
     * @param binder binds the listener
     * @param boundPort the port a bound listener listens on
     * @param factory makes the node
     * @param <S> the listener's type
     * @return the node, registered
     * @throws IllegalArgumentException if a local node has the name
     * @throws IllegalStateException if the listener cannot be bound, or the id is a known node's
     */
    public <S extends Closeable> L addLocal(String name, NetworkContext<?> context, Binder<S> binder,
                                            ToIntFunction<S> boundPort, LocalFactory<L, S> factory) {
        Objects.requireNonNull(name, "name");
        for (L n : locals) {
            if (n.name().equals(name)) {
                throw new IllegalArgumentException("a node named '" + name + "' already exists");
            }
        }
        int port = context.port() == 0 ? 0 : context.port() + locals.size();
        InetAddress host = context.bindAddress();
        S listener;
        try {
            listener = binder.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IllegalStateException("node " + name + " cannot listen on " + context.host() + ":" + port + ": "
                + e.getMessage(), e);
        }
        L node;
        try {
            int bound = boundPort.applyAsInt(listener);
            int id = nodeId(host, bound);
            String address = address(host, bound);
            Node clash = byId.get(id);
            if (clash != null) {
                throw new IllegalStateException("node " + name + " at " + address + " would get id " + id + ", which "
                    + clash.name() + " at " + clash.address() + " has");
            }
            node = factory.create(id, address, listener);
        } catch (RuntimeException e) {
            close(listener);
            throw e;
        }
        locals.add(node);
        byId.put(node.id(), node);
        return node;
    }

    /**
     * Registers a local node whose listener the provider made itself (e.g. over another fabric's node, which checked
     * the name and the id). Call it under the fabric's monitor.
     *
     * @param node the node
     * @return the node
     * @throws IllegalStateException if a known node has its id
     */
    public L addLocal(L node) {
        Node clash = byId.get(node.id());
        if (clash != null) {
            throw new IllegalStateException("node " + node.name() + " at " + node.address() + " would get id "
                + node.id() + ", which " + clash.name() + " at " + clash.address() + " has");
        }
        locals.add(node);
        byId.put(node.id(), node);
        return node;
    }

    private static void close(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // failed anyway
        }
    }

    /**
     * Registers a peer a handshake introduced. Call it under the fabric's monitor, after checking its id with
     * {@link #get}.
     *
     * @param peer the peer
     * @return the peer
     */
    public P addPeer(P peer) {
        peers.add(peer);
        byId.put(peer.id(), peer);
        return peer;
    }

    /**
     * @param id a node id
     * @return the node, local or peer, with that id, or null
     */
    public Node get(int id) {
        return byId.get(id);
    }

    /**
     * {@link Fabric#node(int)}.
     *
     * @param id a node id
     * @return the node
     * @throws IllegalArgumentException if the fabric knows no node with that id
     */
    public Node node(int id) {
        Node n = byId.get(id);
        if (n == null) {
            throw new IllegalArgumentException("no node with id " + id + " in this fabric (known: " + byId.keySet()
                + "; reach a peer with connect(address) first)");
        }
        return n;
    }

    /** @return every known node in id order, a snapshot ({@link Fabric#nodes()}) */
    public List<Node> snapshot() {
        return List.copyOf(byId.values());
    }

    /**
     * @param id a node id
     * @return whether it is a local node's (the nodes that may publish names)
     */
    public boolean isLocal(int id) {
        Node n = byId.get(id);
        return n != null && n.isLocal();
    }

    /** @return the local nodes in the order they were added (a live, unmodifiable view) */
    public List<L> locals() {
        return localsView;
    }

    /** @return the peers in the order they were reached (a live, unmodifiable view) */
    public List<P> peers() {
        return peersView;
    }

    /**
     * @param address a canonical address ({@link #canonical})
     * @return the local node listening there, or null
     */
    public L localAt(String address) {
        for (L n : locals) {
            if (n.address().equals(address)) {
                return n;
            }
        }
        return null;
    }

    /**
     * @param address a canonical address
     * @param usable which peers count (e.g. those whose connection is open)
     * @return the first such peer at that address, or null
     */
    public P peerAt(String address, Predicate<P> usable) {
        for (P p : peers) {
            if (p.address().equals(address) && usable.test(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * @param what what needs a local node, for the message (e.g. {@code "connect to 10.0.0.2:7000"})
     * @return the first local node, which names this process to its peers
     * @throws IllegalStateException if there is none yet
     */
    public L anyLocal(String what) {
        if (locals.isEmpty()) {
            throw new IllegalStateException("cannot " + what + ": add a local node first (it names this process to "
                + "its peers)");
        }
        return locals.get(0);
    }

    /**
     * The node of a fabric a handle stands for: the handle itself, or (for a handle that wraps a peer, as a test
     * harness's does) the node the fabric knows with the same id and address.
     *
     * @param node a node handle
     * @param fabric the fabric these nodes are of
     * @return the fabric's node
     * @throws IllegalArgumentException if the fabric does not know it
     */
    public Node resolve(Node node, Fabric fabric) {
        Objects.requireNonNull(node, "node");
        if (node.fabric() == fabric) {
            return node;
        }
        Node known = byId.get(node.id());
        if (known != null && known.address().equals(node.address())) {
            return known;
        }
        throw new IllegalArgumentException("node " + node.name() + " at " + node.address() + " is not known to this "
            + "fabric: connect(\"" + node.address() + "\") first");
    }

    /**
     * The fabric-wide id of a node listening at an address: the low 15 bits of an IPv4 address (a hash for IPv6)
     * above the 16 bits of the port.
     *
     * @param host the listening address
     * @param port the port
     * @return a non-negative id
     */
    public static int nodeId(InetAddress host, int port) {
        byte[] a = host.getAddress();
        int hostBits = host instanceof Inet4Address ? ((a[2] & 0x7F) << 8) | (a[3] & 0xFF)
            : Arrays.hashCode(a) & 0x7FFF;
        return (hostBits << 16) | port;
    }

    /**
     * @param host an address
     * @param port a port
     * @return {@code host:port}, an IPv6 host in brackets
     */
    public static String address(InetAddress host, int port) {
        String h = host.getHostAddress();
        return (host instanceof Inet4Address ? h : "[" + h + "]") + ":" + port;
    }

    /**
     * Parses a node's address.
     *
     * @param address {@code host:port}, an IPv6 host in brackets
     * @return the resolved address
     * @throws IllegalArgumentException if it is not of that form, its port is outside 1..65535, or its host is
     *     unknown
     */
    public InetSocketAddress parse(String address) {
        Objects.requireNonNull(address, "address");
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("'" + address + "' is not a " + provider + " fabric address "
                + "(host:port)");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + address + "' has no port number", e);
        }
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("'" + address + "': port " + port + " outside 1..65535");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + address + "': unknown host " + host, e);
        }
    }

    /**
     * @param address a node's address as a user wrote it
     * @return the same address as nodes name themselves ({@link #address}), e.g. {@code localhost:7000} as
     *     {@code 127.0.0.1:7000}
     * @throws IllegalArgumentException as {@link #parse}
     */
    public String canonical(String address) {
        InetSocketAddress a = parse(address);
        return address(a.getAddress(), a.getPort());
    }

    @Override
    public String toString() {
        return "local=" + locals + ", peers=" + peers;
    }
}
