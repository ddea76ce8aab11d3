package dev.remora.verbs.ucx;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.testing.ChildTask;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The UCX provider's benchmark: 8-byte READ and CAS round trips from this process to a node in a child JVM over UCX
 * (shared memory and TCP), against the socket fabric and a raw NIO request-response over loopback TCP in the same
 * run (p50 and p99, and ratios), with the progress threads sleeping between events (the default) and polling 50 µs
 * after each, then what the ordering costs: a {@code ucp_worker_fence} alone, and a WRITE followed by a READ on one
 * queue pair (which needs a fence or a flush) against the READ alone and against the two on two queue pairs (which
 * need neither), under each ordering. Every row is measured in 20 rounds interleaved with the others, so the
 * machine's load falls on all alike.
 *
 * <p>Run it (about a minute) with
 * <pre>
 * JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -B -q -pl verbs-ucx -am -DskipTests test-compile
 * java --enable-native-access=ALL-UNNAMED -cp "$(cat verbs-ucx/target/test-classpath.txt):verbs-ucx/target/classes:verbs-ucx/target/test-classes" \
 *   dev.remora.verbs.ucx.UcxBench [--ops 20000] [--warmup 5000]
 * </pre>
 * (the first command also writes the test class path to {@code verbs-ucx/target/test-classpath.txt}). Latencies are
 * wall-clock per blocking operation; on a shared machine compare the ratios, which come from the same run.
 */
public final class UcxBench {
    private int ops = 20_000;
    private int warmup = 5_000;
    private final Map<String, long[]> rows = new LinkedHashMap<>();

    private UcxBench() {
    }

    /**
     * Runs the benchmark and prints its tables.
     *
     * @param args {@code --ops N} (measured operations per row), {@code --warmup N}
     * @throws Exception if a fabric fails
     */
    public static void main(String[] args) throws Exception {
        UcxBench b = new UcxBench();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--ops" -> b.ops = Integer.parseInt(args[i + 1]);
                case "--warmup" -> b.warmup = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String missing = UcxFabricProvider.unavailableReason().orElse(null);
        if (missing != null) {
            System.out.println("UCX is not usable here: " + missing);
            System.exit(2);
        }
        b.run();
    }

    private void run() throws Exception {
        System.out.printf(Locale.ROOT, "UcxBench: %d operations per row after %d warm-up, interleaved in %d rounds, "
            + "libucp %s, %s, %d CPUs, load average %.1f%n", ops, warmup, ROUNDS, UcxFabricProvider.ucxVersion(),
            Runtime.version(), Runtime.getRuntime().availableProcessors(),
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Map<String, LongSupplier> ops1 = new LinkedHashMap<>();
            rawNio(host(open), open, ops1);
            roundTrips(host(open), open, ops1, "socket", Map.of(), "socket fabric");
            roundTrips(host(open), open, ops1, UcxFabricProvider.NAME, Map.of(UcxContext.TRANSPORTS_PROP_NAME, "shm"),
                "ucx shm");
            roundTrips(host(open), open, ops1, UcxFabricProvider.NAME, Map.of(UcxContext.TRANSPORTS_PROP_NAME, "tcp"),
                "ucx tcp");
            // The progress threads poll 50 µs after each event before they sleep: latency against CPU.
            roundTrips(host(open), open, ops1, UcxFabricProvider.NAME, Map.of(UcxContext.TRANSPORTS_PROP_NAME, "shm",
                UcxContext.IDLE_SPIN_NS_PROP_NAME, "50000"), "ucx shm, idleSpinNs 50 µs");
            roundTrips(host(open), open, ops1, UcxFabricProvider.NAME, Map.of(UcxContext.TRANSPORTS_PROP_NAME, "tcp",
                UcxContext.IDLE_SPIN_NS_PROP_NAME, "50000"), "ucx tcp, idleSpinNs 50 µs");
            measureInterleaved(ops1);
            printRoundTrips();
            rows.clear();
            Map<String, LongSupplier> ops2 = new LinkedHashMap<>();
            for (String tls : List.of("shm", "tcp")) {
                for (UcxContext.Ordering o : UcxContext.Ordering.values()) {
                    ordering(host(open), open, ops2, tls, o);
                }
            }
            for (String tls : List.of("shm", "tcp")) {
                fencePrimitive(open, ops2, tls);
            }
            measureInterleaved(ops2);
            printOrdering();
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    private static final int ROUNDS = 20;

    private static NodeHost host(List<AutoCloseable> open) {
        NodeHost h = NodeHost.start(UcxHosting.NATIVE_ACCESS);
        open.add(h);
        return h;
    }

    /** Warms every row up, then measures them round-robin in rounds, so that the machine's load falls on all alike. */
    private void measureInterleaved(Map<String, LongSupplier> ops) {
        for (LongSupplier op : ops.values()) {
            for (int i = 0; i < warmup; i++) {
                op.getAsLong();
            }
        }
        Map<String, long[]> samples = new LinkedHashMap<>();
        ops.keySet().forEach(k -> samples.put(k, new long[this.ops]));
        int per = this.ops / ROUNDS;
        for (int r = 0; r < ROUNDS; r++) {
            for (Map.Entry<String, LongSupplier> e : ops.entrySet()) {
                long[] t = samples.get(e.getKey());
                for (int i = r * per; i < (r + 1) * per; i++) {
                    long st = System.nanoTime();
                    e.getValue().getAsLong();
                    t[i] = System.nanoTime() - st;
                }
            }
        }
        for (Map.Entry<String, long[]> e : samples.entrySet()) {
            long[] t = Arrays.copyOf(e.getValue(), per * ROUNDS);
            Arrays.sort(t);
            rows.put(e.getKey(), new long[] {t[t.length / 2], t[(int) (t.length * 0.99)]});
        }
    }

    // ---------------------------------------------------------------- round trips

    private static void roundTrips(NodeHost host, List<AutoCloseable> open, Map<String, LongSupplier> ops,
                                   String provider, Map<String, String> props, String label) {
        HostedSocketFabric f = HostedSocketFabric.open(host, provider, HostedSocketFabric.Placement.named("target"),
            props);
        open.add(f);
        Node client = f.addNode("client");
        Node target = f.addNode("target");
        MemoryRegion word = target.allocate(64, Access.ALL);
        RemoteAddress at = word.remote(0);
        Endpoint ep = Endpoint.open(client);
        open.add(ep);
        ops.put(label + " READ", () -> ep.readLong(at));
        long[] next = {0};
        ops.put(label + " CAS", () -> ep.cas(at, next[0], ++next[0]));
    }

    /** In the child: a raw NIO server that answers a 24-byte request (op, expected, desired) with 8 bytes. */
    public static final class NioServerTask implements ChildTask {
        private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

        /** Creates the task (called in the child). */
        public NioServerTask() {
        }

        @Override
        public String run(Node node, String[] args) throws Exception {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            ByteBuffer memory = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            Thread t = new Thread(() -> {
                try (SocketChannel c = server.accept()) {
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ByteBuffer in = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
                    ByteBuffer out = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
                    while (true) {
                        in.clear();
                        while (in.hasRemaining()) {
                            if (c.read(in) < 0) {
                                return;
                            }
                        }
                        long op = in.getLong(0);
                        long old = op == 0 ? (long) LONG.getVolatile(memory, 0)
                            : (long) LONG.compareAndExchange(memory, 0, in.getLong(8), in.getLong(16));
                        out.clear();
                        out.putLong(0, old);
                        while (out.hasRemaining()) {
                            c.write(out);
                        }
                    }
                } catch (IOException e) {
                    // the benchmark ended
                } finally {
                    try {
                        server.close();
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }
            }, "nio-bench-server");
            t.setDaemon(true);
            t.start();
            return Integer.toString(((InetSocketAddress) server.getLocalAddress()).getPort());
        }
    }

    /** The baseline: a blocking request and response over loopback TCP, the server executing on a direct buffer. */
    private static void rawNio(NodeHost host, List<AutoCloseable> open, Map<String, LongSupplier> ops)
        throws IOException {
        HostedSocketFabric f = HostedSocketFabric.open(host, HostedSocketFabric.Placement.named("server"), Map.of());
        open.add(f);
        f.addNode("client");
        Node server = f.addNode("server");
        int port = Integer.parseInt(f.startInChild(server, NioServerTask.class).await(TimeUnit.SECONDS.toNanos(10)));
        SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        open.add(c);
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ByteBuffer req = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
        ByteBuffer resp = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        long[] next = {0};
        LongSupplier call = () -> {
            try {
                req.clear();
                while (req.hasRemaining()) {
                    c.write(req);
                }
                resp.clear();
                while (resp.hasRemaining()) {
                    c.read(resp);
                }
                return resp.getLong(0);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        };
        ops.put("raw NIO READ", () -> {
            req.putLong(0, 0);
            return call.getAsLong();
        });
        ops.put("raw NIO CAS", () -> {
            req.putLong(0, 1).putLong(8, next[0]).putLong(16, ++next[0]);
            return call.getAsLong();
        });
    }

    private void printRoundTrips() {
        long[] nioRead = rows.get("raw NIO READ");
        long[] nioCas = rows.get("raw NIO CAS");
        long[] sockRead = rows.get("socket fabric READ");
        long[] sockCas = rows.get("socket fabric CAS");
        System.out.println();
        System.out.println("| 8-byte round trip, client here, target in a child JVM | p50 µs | p99 µs | p50 / raw NIO "
            + "| p50 / socket fabric |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (Map.Entry<String, long[]> e : rows.entrySet()) {
            boolean read = e.getKey().endsWith("READ");
            long[] nio = read ? nioRead : nioCas;
            long[] sock = read ? sockRead : sockCas;
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.2f | %.2f |%n", e.getKey(), e.getValue()[0] / 1e3,
                e.getValue()[1] / 1e3, (double) e.getValue()[0] / nio[0], (double) e.getValue()[0] / sock[0]);
        }
    }

    // ---------------------------------------------------------------- ordering

    private static void ordering(NodeHost host, List<AutoCloseable> open, Map<String, LongSupplier> ops, String tls,
                                 UcxContext.Ordering ordering) {
        String label = "ucx " + tls + ", idleSpinNs 50 µs, ordering " + ordering.name().toLowerCase(Locale.ROOT);
        HostedSocketFabric f = HostedSocketFabric.open(host, UcxFabricProvider.NAME,
            HostedSocketFabric.Placement.named("target"), Map.of(UcxContext.TRANSPORTS_PROP_NAME, tls,
                UcxContext.ORDERING_PROP_NAME, ordering.name(),
                // the progress threads stay awake between requests, so the rows differ by the ordering only
                UcxContext.IDLE_SPIN_NS_PROP_NAME, "50000"));
        open.add(f);
        Node client = f.addNode("client");
        Node target = f.addNode("target");
        MemoryRegion remote = target.allocate(64, Access.ALL);
        MemoryRegion local = client.allocate(64, Access.ALL);
        CompletionQueue cq = client.createCompletionQueue(64);
        QueuePair qp = client.connect(target, cq);
        QueuePair other = client.connect(target, cq);
        Completion[] out = {new Completion(), new Completion()};
        WorkRequest read = new WorkRequest().read(local, 8, 8, remote.remote(8)).flags(WorkRequest.SIGNALED);
        WorkRequest write = new WorkRequest().write(local, 0, 8, remote.remote(0));
        WorkRequest signaledWrite = new WorkRequest().write(local, 0, 8, remote.remote(0)).flags(WorkRequest.SIGNALED);
        WorkRequest[] writeThenRead = {write, read};
        ops.put(label + ": READ", () -> await(cq, out, qp.post(read), 1));
        ops.put(label + ": WRITE then READ, one queue pair (ordered, R7)",
            () -> await(cq, out, qp.post(writeThenRead, 2), 1));
        ops.put(label + ": WRITE and READ, two queue pairs (unordered, R10)", () -> {
            int a = other.post(write);
            return await(cq, out, a == QueuePair.POSTED ? qp.post(read) : a, 1);
        });
        ops.put(label + ": signaled WRITE (completes once placed: a flush)",
            () -> await(cq, out, qp.post(signaledWrite), 1));
    }

    private static long await(CompletionQueue cq, Completion[] out, int posted, int n) {
        if (posted != QueuePair.POSTED) {
            throw new IllegalStateException("post returned " + posted);
        }
        int got = 0;
        while (got < n) {
            int k = cq.await(out, TimeUnit.SECONDS.toNanos(10));
            if (k == 0) {
                throw new IllegalStateException("no completion within 10 s");
            }
            for (int i = 0; i < k; i++) {
                if (out[i].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + out[i]);
                }
            }
            got += k;
        }
        return got;
    }

    /** The fence alone, on a worker of this process (it returns at once: it only orders what follows). */
    private static void fencePrimitive(List<AutoCloseable> open, Map<String, LongSupplier> ops, String tls) {
        UcxFabric f = UcxFabric.open(new UcxContext().transports(tls));
        open.add(f);
        UcxNode a = (UcxNode) f.addNode("a");
        ops.put("ucx " + tls + ": ucp_worker_fence alone", () -> {
            a.lock.lock();
            try {
                a.fence();
            } finally {
                a.lock.unlock();
            }
            return 0;
        });
    }

    private void printOrdering() {
        System.out.println();
        System.out.println("| what the ordering costs, client here, target in a child JVM | p50 µs | p99 µs |");
        System.out.println("|---|---:|---:|");
        for (Map.Entry<String, long[]> e : rows.entrySet()) {
            System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", e.getKey(), e.getValue()[0] / 1e3,
                e.getValue()[1] / 1e3);
        }
    }
}
