package dev.remora.verbs.testing;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.spi.OffHeapRegion;
import dev.remora.verbs.spi.WakeableCompletionQueue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A fabric whose nodes live in two OS processes, for running tests written against one {@link Fabric} across
 * processes unchanged: the socket fabric by default, or any provider between processes ({@link #open(NodeHost,
 * String, Placement, Map)}, e.g. {@code ucx}; the descriptions below say "socket fabric" for it). Each {@link #addNode} places the node, by a {@link Placement} rule, either in this process (a
 * node of a local {@link SocketFabric}) or in the {@link NodeHost} child JVM. A node placed in the child is a proxy:
 * its id, name and address are the child node's, and its regions, completion queues and queue pairs carry out every
 * call by remote control of the child. The local fabric is connected to each child node
 * ({@link SocketFabric#connect(String)}), so a local node's {@code connect(proxy, cq)}, {@code connect(qp, proxyQp)}
 * and {@code Endpoint}s on local nodes reach the child's nodes over TCP between the processes; the verbs a test
 * posts on a local node thus cross processes.
 *
 * <p>What is not faithful: {@link Node#register} on a child node validates the buffer here and copies its bytes into
 * a region of the same size allocated in the child, so later writes to the caller's buffer are not seen by the
 * region (and the region's are not seen in the buffer). A child node reports {@link Node#isLocal()} true: the test
 * controls it as it would a node it added, though its memory is in the child.
 */
public final class HostedSocketFabric implements Fabric {
    /** Where a node goes. */
    @FunctionalInterface
    public interface Placement {
        /**
         * @param ordinal how many nodes were added to the fabric before this one
         * @param name the node's name
         * @return true to place the node in the child process
         */
        boolean inChild(int ordinal, String name);

        /** @return the first node in this process, every later one in the child */
        static Placement allButFirst() {
            return (ordinal, name) -> ordinal > 0;
        }

        /**
         * @param names the names of the nodes to place in the child
         * @return nodes with these names in the child, the others in this process
         */
        static Placement named(String... names) {
            List<String> list = List.of(names);
            return (ordinal, name) -> list.contains(name);
        }
    }

    private final NodeHost host;
    private final Fabric local;
    private final Placement placement;
    private final Map<Integer, Node> nodes = new ConcurrentSkipListMap<>();
    private final List<ProxyNode> unconnected = new ArrayList<>();
    private final Map<String, Boolean> publishedInChild = new ConcurrentHashMap<>();
    private int added;
    private volatile boolean closed;

    private HostedSocketFabric(NodeHost host, Fabric local, Placement placement) {
        this.host = host;
        this.local = local;
        this.placement = placement;
    }

    /**
     * Opens a fabric: a local socket fabric and a fresh one in the child, both with the given properties.
     *
     * @param host the child process, which must not serve another open fabric
     * @param placement where nodes go
     * @param properties socket fabric properties (as for {@code Fabric.open("socket", ...)}) for both processes
     * @return the fabric
     */
    public static HostedSocketFabric open(NodeHost host, Placement placement, Map<String, String> properties) {
        return open(host, "socket", placement, properties);
    }

    /**
     * Opens a fabric of a provider between processes: one in this process and a fresh one in the child, both with
     * the given properties. The provider's fabric class has a public {@code crash(Node)} method if the tests crash
     * nodes ({@link #crash}).
     *
     * @param host the child process, which must not serve another open fabric
     * @param provider the provider's name, e.g. {@code socket} or {@code ucx}
     * @param placement where nodes go
     * @param properties the provider's properties for both processes
     * @return the fabric
     */
    public static HostedSocketFabric open(NodeHost host, String provider, Placement placement,
                                          Map<String, String> properties) {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(placement, "placement");
        Map<String, String> props = new TreeMap<>(properties);
        host.run(HostWire.OPEN_FABRIC, out -> {
            out.writeUTF(provider);
            out.writeInt(props.size());
            for (Map.Entry<String, String> e : props.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        });
        Fabric local;
        try {
            local = Fabric.open(provider, props);
        } catch (RuntimeException e) {
            host.run(HostWire.CLOSE_FABRIC, NodeHost.NONE);
            throw e;
        }
        return new HostedSocketFabric(host, local, placement);
    }

    /**
     * Opens a fabric with the same retry and receiver-not-ready timeout in both processes.
     *
     * @param host the child process
     * @param placement where nodes go
     * @param retryTimeoutNs the timeouts, in nanoseconds
     * @return the fabric
     */
    public static HostedSocketFabric open(NodeHost host, Placement placement, long retryTimeoutNs) {
        return open(host, placement, Map.of("retryTimeoutNs", Long.toString(retryTimeoutNs),
            "rnrTimeoutNs", Long.toString(retryTimeoutNs)));
    }

    /** @return the fabric of this process's nodes */
    public Fabric localFabric() {
        return local;
    }

    /**
     * @param node a node of this fabric
     * @return whether it lives in the child process
     */
    public boolean isInChild(Node node) {
        return node instanceof ProxyNode p && p.fabric == this;
    }

    @Override
    public String providerName() {
        return local.providerName();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("fabric is closed");
        }
    }

    @Override
    public synchronized Node addNode(String name) {
        ensureOpen();
        Objects.requireNonNull(name, "name");
        for (Node n : nodes.values()) {
            if (n.name().equals(name)) {
                throw new IllegalArgumentException("a node named '" + name + "' already exists");
            }
        }
        int ordinal = added++;
        if (placement.inChild(ordinal, name)) {
            ProxyNode p = host.call(HostWire.ADD_NODE, out -> out.writeUTF(name),
                in -> new ProxyNode(this, in.readInt(), name, in.readUTF()));
            nodes.put(p.id, p);
            if (hasLocalNode()) {
                connectLocally(p);
            } else {
                unconnected.add(p);
            }
            return p;
        }
        Node n = local.addNode(name);
        nodes.put(n.id(), n);
        for (ProxyNode p : unconnected) {
            connectLocally(p);
        }
        unconnected.clear();
        return n;
    }

    private boolean hasLocalNode() {
        for (Node n : nodes.values()) {
            if (!(n instanceof ProxyNode)) {
                return true;
            }
        }
        return false;
    }

    /** Lets this process's nodes reach a child node: the local fabric then resolves the proxy to its peer handle. */
    private void connectLocally(ProxyNode p) {
        Node peer = local.connect(p.address);
        if (peer.id() != p.id) {
            throw new IllegalStateException("the child's node " + p.name + " at " + p.address + " has id " + p.id
                + " but answers as " + peer.name() + " with id " + peer.id());
        }
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        for (Node n : nodes.values()) {
            if (n instanceof ProxyNode p && p.address.equals(address)) {
                return p;
            }
        }
        return local.connect(address);
    }

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        Objects.requireNonNull(address, "address");
        if (nodes.get(address.nodeId()) instanceof ProxyNode) {
            host.run(HostWire.PUBLISH, out -> {
                out.writeUTF(name);
                out.writeInt(address.nodeId());
                out.writeInt(address.rkey());
                out.writeLong(address.address());
            });
            publishedInChild.put(name, Boolean.TRUE);
        } else {
            local.publish(name, address);
            publishedInChild.remove(name);
        }
    }

    @Override
    public void unpublish(String name) {
        if (publishedInChild.remove(name) != null) {
            host.run(HostWire.UNPUBLISH, out -> out.writeUTF(name));
        } else {
            local.unpublish(name);
        }
    }

    @Override
    public RemoteAddress lookup(String name) {
        try {
            return local.lookup(name);
        } catch (NoSuchElementException notHere) {
            try {
                return host.call(HostWire.LOOKUP, out -> out.writeUTF(name),
                    in -> new RemoteAddress(in.readInt(), in.readInt(), in.readLong()));
            } catch (NoSuchElementException | IllegalStateException notThere) {
                notHere.addSuppressed(notThere);
                throw notHere;
            }
        }
    }

    @Override
    public Node node(int id) {
        Node n = nodes.get(id);
        return n != null ? n : local.node(id);
    }

    @Override
    public List<Node> nodes() {
        Map<Integer, Node> all = new TreeMap<>();
        for (Node n : local.nodes()) {
            all.put(n.id(), n);
        }
        all.putAll(nodes);
        return List.copyOf(all.values());
    }

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics remote = closed ? VerbsStatistics.ZERO
            : host.call(HostWire.FABRIC_STATISTICS, NodeHost.NONE, HostWire::readStatistics);
        return local.statistics().plus(remote);
    }

    /**
     * Crashes a node: one in the child through {@link SocketFabric#crash} (or the provider's {@code crash(Node)})
     * there, a local one here.
     *
     * @param node a node of this fabric
     */
    public void crash(Node node) {
        if (node instanceof ProxyNode p && p.fabric == this) {
            host.run(HostWire.CRASH, out -> out.writeInt(p.id));
        } else {
            crash(local, node);
        }
    }

    /**
     * Crashes a local node of a fabric: {@link SocketFabric#crash}, or the public {@code crash(Node)} of another
     * provider's fabric class.
     *
     * @param fabric the fabric
     * @param node a local node of it
     */
    static void crash(Fabric fabric, Node node) {
        if (fabric instanceof SocketFabric s) {
            s.crash(node);
            return;
        }
        try {
            fabric.getClass().getMethod("crash", Node.class).invoke(fabric, node);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("the " + fabric.providerName() + " fabric cannot crash a node: "
                + e, e);
        }
    }

    /**
     * Starts {@code task} in the child process on a thread of its own, with {@code node} (a node placed in the child)
     * and {@code args}: its verbs leave the child's node from the child's process.
     *
     * @param node a node of this fabric in the child
     * @param task the task's class (public, public no-argument constructor)
     * @param args its arguments
     * @return the running task, to await
     */
    public ChildTask.Running startInChild(Node node, Class<? extends ChildTask> task, String... args) {
        if (!(node instanceof ProxyNode p) || p.fabric != this) {
            throw new IllegalArgumentException("node " + node + " is not in the child process of this fabric");
        }
        ensureOpen();
        int handle = host.call(HostWire.START_TASK, out -> {
            out.writeInt(p.id);
            out.writeUTF(task.getName());
            out.writeInt(args.length);
            for (String a : args) {
                out.writeUTF(a);
            }
        }, in -> in.readInt());
        return timeoutNs -> {
            long deadline = System.nanoTime() + timeoutNs;
            while (true) {
                long left = deadline - System.nanoTime();
                String result = host.call(HostWire.AWAIT_TASK, out -> {
                    out.writeInt(handle);
                    out.writeLong(Math.max(1_000_000L, left));
                }, in -> in.readBoolean() ? in.readUTF() : null);
                if (result != null) {
                    return result;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("task " + task.getName() + " still runs after "
                        + timeoutNs / 1_000_000L + " ms");
                }
            }
        };
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /** Closes both processes' fabrics; the child process stays up for the next fabric. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            local.close();
        } finally {
            try {
                host.run(HostWire.CLOSE_FABRIC, NodeHost.NONE);
            } catch (RuntimeException e) {
                if (host.child().isAlive()) {
                    throw e;
                }
                // a killed child took its fabric with it
            }
        }
    }

    @Override
    public String toString() {
        return "HostedSocketFabric{" + nodes.values() + ", child pid " + host.child().pid() + '}';
    }

    // ---------------------------------------------------------------- proxies of the child's objects

    private static void writeCompletionTarget(DataOutputStream out, int handle, int max) throws IOException {
        out.writeInt(handle);
        out.writeInt(max);
    }

    /** A node of the child process. */
    private static final class ProxyNode implements Node {
        final HostedSocketFabric fabric;
        final int id;
        final String name;
        final String address;

        ProxyNode(HostedSocketFabric fabric, int id, String name, String address) {
            this.fabric = fabric;
            this.id = id;
            this.name = name;
            this.address = address;
        }

        NodeHost host() {
            fabric.ensureOpen();
            return fabric.host;
        }

        @Override
        public int id() {
            return id;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Fabric fabric() {
            return fabric;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public MemoryRegion allocate(long lengthBytes, int access) {
            return host().call(HostWire.ALLOCATE, out -> {
                out.writeInt(id);
                out.writeLong(lengthBytes);
                out.writeInt(access);
            }, in -> new ProxyRegion(this, in.readInt(), in.readLong(), in.readLong(), in.readInt(), in.readInt(),
                in.readInt()));
        }

        /** Validates the buffer as a local node would, then copies it into a region of its size in the child. */
        @Override
        public MemoryRegion register(ByteBuffer directBuffer, int access) {
            ByteBuffer b = OffHeapRegion.registrable(directBuffer);
            Access.validate(access);
            byte[] bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
            MemoryRegion r = allocate(bytes.length, access);
            r.putBytes(0, bytes, 0, bytes.length);
            return r;
        }

        @Override
        public CompletionQueue createCompletionQueue(int depth) {
            int handle = host().call(HostWire.CREATE_CQ, out -> {
                out.writeInt(id);
                out.writeInt(depth);
            }, in -> in.readInt());
            return new ProxyCompletionQueue(fabric, handle, depth);
        }

        private ProxyCompletionQueue proxyCq(CompletionQueue cq, String which) {
            Objects.requireNonNull(cq, which + " completion queue");
            if (!(cq instanceof ProxyCompletionQueue p) || p.fabric != fabric) {
                throw new IllegalArgumentException("the " + which + " completion queue belongs to another node "
                    + "host or provider");
            }
            return p;
        }

        @Override
        public QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq) {
            ProxyCompletionQueue send = proxyCq(sendCq, "send");
            ProxyCompletionQueue recv = recvCq == null ? null : proxyCq(recvCq, "receive");
            return host().call(HostWire.CREATE_QP, out -> {
                out.writeInt(id);
                out.writeInt(send.handle);
                out.writeInt(recv == null ? -1 : recv.handle);
            }, in -> new ProxyQueuePair(this, in.readInt(), in.readInt(), send));
        }

        @Override
        public void connect(QueuePair localQp, QueuePair remoteQp) {
            Objects.requireNonNull(localQp, "local");
            Objects.requireNonNull(remoteQp, "remote");
            if (!(localQp instanceof ProxyQueuePair l) || l.node != this) {
                throw new IllegalArgumentException("the local queue pair must be one of node " + name);
            }
            if (remoteQp instanceof ProxyQueuePair r && r.node.fabric == fabric) {
                host().run(HostWire.CONNECT_QPS, out -> {
                    out.writeInt(id);
                    out.writeInt(l.handle);
                    out.writeInt(r.handle);
                    out.writeInt(r.node.id);
                    out.writeUTF(r.node.address);
                    out.writeInt(r.qpn);
                });
                return;
            }
            if (remoteQp.state() != QpState.RESET) {
                throw new IllegalStateException("both queue pairs must be in RESET");
            }
            Node target = remoteQp.node();
            host().run(HostWire.CONNECT_QPS, out -> {
                out.writeInt(id);
                out.writeInt(l.handle);
                out.writeInt(-1);
                out.writeInt(target.id());
                out.writeUTF(target.address());
                out.writeInt(remoteQp.qpNumber());
            });
        }

        @Override
        public QueuePair connect(Node target, CompletionQueue cq) {
            Objects.requireNonNull(target, "target");
            ProxyCompletionQueue p = proxyCq(cq, "send");
            return host().call(HostWire.CONNECT_NODE, out -> {
                out.writeInt(id);
                out.writeInt(target.id());
                out.writeUTF(target.address());
                out.writeInt(p.handle);
            }, in -> new ProxyQueuePair(this, in.readInt(), in.readInt(), p));
        }

        @Override
        public void fullFence() {
            host().run(HostWire.NODE_FENCE, out -> out.writeInt(id));
        }

        @Override
        public boolean isCrashed() {
            return fabric.host.call(HostWire.NODE_IS_CRASHED, out -> out.writeInt(id), in -> in.readBoolean());
        }

        @Override
        public String toString() {
            return "ProxyNode{" + name + " id=" + id + " at " + address + " in the child}";
        }
    }

    /** A region of a child node: metadata cached here, every CPU access a command. */
    private static final class ProxyRegion implements MemoryRegion {
        private final ProxyNode node;
        private final int handle;
        private final long address;
        private final long length;
        private final int lkey;
        private final int rkey;
        private final int access;

        ProxyRegion(ProxyNode node, int handle, long address, long length, int lkey, int rkey, int access) {
            this.node = node;
            this.handle = handle;
            this.address = address;
            this.length = length;
            this.lkey = lkey;
            this.rkey = rkey;
            this.access = access;
        }

        private NodeHost host() {
            return node.fabric.host;
        }

        @Override
        public Node node() {
            return node;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int lkey() {
            return lkey;
        }

        @Override
        public int rkey() {
            return rkey;
        }

        @Override
        public int access() {
            return access;
        }

        @Override
        public boolean isRegistered() {
            return !node.fabric.closed && host().call(HostWire.R_IS_REGISTERED, out -> out.writeInt(handle),
                in -> in.readBoolean());
        }

        @Override
        public void deregister() {
            if (!node.fabric.closed) {
                host().run(HostWire.R_DEREGISTER, out -> out.writeInt(handle));
            }
        }

        @Override
        public long getLong(long offset) {
            return host().call(HostWire.R_GET_LONG, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
            }, in -> in.readLong());
        }

        @Override
        public void putLong(long offset, long value) {
            host().run(HostWire.R_PUT_LONG, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeLong(value);
            });
        }

        @Override
        public long getLongVolatile(long offset) {
            return host().call(HostWire.R_GET_LONG_VOLATILE, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
            }, in -> in.readLong());
        }

        @Override
        public void putLongVolatile(long offset, long value) {
            host().run(HostWire.R_PUT_LONG_VOLATILE, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeLong(value);
            });
        }

        @Override
        public boolean compareAndSetLong(long offset, long expected, long desired) {
            return host().call(HostWire.R_CAS, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeLong(expected);
                out.writeLong(desired);
            }, in -> in.readBoolean());
        }

        @Override
        public long getAndAddLong(long offset, long delta) {
            return host().call(HostWire.R_GET_AND_ADD, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeLong(delta);
            }, in -> in.readLong());
        }

        @Override
        public int getInt(long offset) {
            return host().call(HostWire.R_GET_INT, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
            }, in -> in.readInt());
        }

        @Override
        public void putInt(long offset, int value) {
            host().run(HostWire.R_PUT_INT, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeInt(value);
            });
        }

        @Override
        public void getBytes(long offset, byte[] dst, int dstIndex, int len) {
            Objects.checkFromIndexSize(dstIndex, len, dst.length);
            byte[] got = host().call(HostWire.R_GET_BYTES, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeInt(len);
            }, in -> {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                return b;
            });
            System.arraycopy(got, 0, dst, dstIndex, len);
        }

        @Override
        public void putBytes(long offset, byte[] src, int srcIndex, int len) {
            Objects.checkFromIndexSize(srcIndex, len, src.length);
            host().run(HostWire.R_PUT_BYTES, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeInt(len);
                out.write(src, srcIndex, len);
            });
        }

        @Override
        public void setMemory(long offset, long len, byte value) {
            host().run(HostWire.R_SET_MEMORY, out -> {
                out.writeInt(handle);
                out.writeLong(offset);
                out.writeLong(len);
                out.writeByte(value);
            });
        }

        @Override
        public String toString() {
            return "ProxyRegion{" + node.name + " 0x" + Long.toHexString(address) + "/" + length + " rkey=" + rkey
                + '}';
        }
    }

    /**
     * A completion queue of a child node. An await is a series of bounded awaits in the child (at most
     * {@link NodeHostMain#MAX_AWAIT_NS} each), so other threads' commands run between them.
     */
    private static final class ProxyCompletionQueue implements WakeableCompletionQueue {
        private final HostedSocketFabric fabric;
        private final int handle;
        private final int depth;
        private volatile long wakeups;

        ProxyCompletionQueue(HostedSocketFabric fabric, int handle, int depth) {
            this.fabric = fabric;
            this.handle = handle;
            this.depth = depth;
        }

        @Override
        public int depth() {
            return depth;
        }

        private int fetch(int command, Completion[] out, int max, long timeoutNs) {
            int wanted = Math.min(max, out.length);
            return fabric.host.call(command, o -> {
                writeCompletionTarget(o, handle, wanted);
                if (command == HostWire.CQ_AWAIT) {
                    o.writeLong(timeoutNs);
                }
            }, in -> {
                int k = in.readInt();
                for (int i = 0; i < k; i++) {
                    HostWire.readCompletion(in, out[i]);
                }
                return k;
            });
        }

        @Override
        public int poll(Completion[] out, int max) {
            // R11: the completion was polled in the child, so the child's later commands (the test's reads of its
            // regions) run after the local writes it promises.
            return fetch(HostWire.CQ_POLL, out, max, 0);
        }

        @Override
        public int await(Completion[] out, long timeoutNs) {
            long start = System.nanoTime();
            long woken = wakeups;
            int slices = 0;
            while (true) {
                long left = timeoutNs - (System.nanoTime() - start);
                int k = fetch(HostWire.CQ_AWAIT, out, out.length, Math.max(0, Math.min(left,
                    NodeHostMain.MAX_AWAIT_NS)));
                slices++;
                if (k > 0 || wakeups != woken || timeoutNs - (System.nanoTime() - start) <= 0 || fabric.closed) {
                    return k;
                }
                if (slices > 1_000_000) {
                    throw new IllegalStateException("await on a child completion queue did not end");
                }
            }
        }

        @Override
        public void wakeWaiters() {
            wakeups++;
        }

        @Override
        public void close() {
            if (!fabric.closed) {
                fabric.host.run(HostWire.CQ_CLOSE, out -> out.writeInt(handle));
            }
        }
    }

    /** A queue pair of a child node: every verb a command; the child rebuilds the work requests. */
    private static final class ProxyQueuePair implements QueuePair {
        private final ProxyNode node;
        private final int handle;
        private final int qpn;
        private final ProxyCompletionQueue sendCq;

        ProxyQueuePair(ProxyNode node, int handle, int qpn, ProxyCompletionQueue sendCq) {
            this.node = node;
            this.handle = handle;
            this.qpn = qpn;
            this.sendCq = sendCq;
        }

        @Override
        public int qpNumber() {
            return qpn;
        }

        @Override
        public Node node() {
            return node;
        }

        @Override
        public int remoteNodeId() {
            return node.host().call(HostWire.QP_REMOTE_NODE, out -> out.writeInt(handle), in -> in.readInt());
        }

        @Override
        public QpState state() {
            return QpState.values()[node.fabric.host.call(HostWire.QP_STATE, out -> out.writeInt(handle),
                in -> in.readInt())];
        }

        @Override
        public CompletionQueue sendCompletionQueue() {
            return sendCq;
        }

        @Override
        public int post(WorkRequest wr) {
            return node.host().call(HostWire.QP_POST, out -> {
                out.writeInt(handle);
                out.writeInt(1);
                out.writeInt(1);
                out.writeInt(1);
                HostWire.writeWorkRequest(out, wr);
            }, in -> in.readInt());
        }

        @Override
        public int post(WorkRequest[] wrs, int count) {
            Objects.requireNonNull(wrs, "work requests");
            int shipped = Math.max(0, Math.min(count, wrs.length));
            return node.host().call(HostWire.QP_POST, out -> {
                out.writeInt(handle);
                out.writeInt(0);
                out.writeInt(count);
                out.writeInt(shipped);
                for (int i = 0; i < shipped; i++) {
                    HostWire.writeWorkRequest(out, wrs[i]);
                }
            }, in -> in.readInt());
        }

        @Override
        public int postRecv(WorkRequest wr) {
            return node.host().call(HostWire.QP_POST_RECV, out -> {
                out.writeInt(handle);
                HostWire.writeWorkRequest(out, wr);
            }, in -> in.readInt());
        }

        @Override
        public VerbsStatistics statistics() {
            return node.fabric.host.call(HostWire.QP_STATISTICS, out -> out.writeInt(handle),
                HostWire::readStatistics);
        }

        @Override
        public void close() {
            if (!node.fabric.closed) {
                node.fabric.host.run(HostWire.QP_CLOSE, out -> out.writeInt(handle));
            }
        }

        @Override
        public String toString() {
            return "ProxyQueuePair{" + qpn + " of " + node.name + '}';
        }
    }
}
