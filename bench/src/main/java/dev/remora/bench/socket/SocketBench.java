package dev.remora.bench.socket;

import dev.remora.bench.locks.RoundTripComparison;
import dev.remora.objects.RemoteCounter;
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
import dev.remora.verbs.sim.SimFabric;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The socket fabric between two processes on loopback, each figure beside its baseline in the same run:
 * <ol>
 *   <li>8-byte READ and CAS round trips (p50/p99) against a raw Java NIO 8-byte ping-pong (blocking and Selector
 *       servers, {@link NioPingPong}), with the ratio (goal: within 1.3x of the Selector server, which is what a
 *       service thread is);</li>
 *   <li>READ throughput with 1 outstanding, 16 outstanding, and 16 per doorbell (one list);</li>
 *   <li>counter increments per second from several threads of one process into the other's {@link RemoteCounter};</li>
 *   <li>each lock's uncontended acquire+release round trips on the socket fabric beside the fast in-process fabric
 *       (they must be equal).</li>
 * </ol>
 * Run by hand: {@code java -cp bench/target/remora-bench.jar dev.remora.bench.socket.SocketBench [--quick]}.
 */
public final class SocketBench {
    private SocketBench() {
    }

    /**
     * @param args {@code home} (the child's role) or nothing / {@code --quick}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("home")) {
            home();
            return;
        }
        boolean quick = args.length > 0 && args[0].equals("--quick");
        int warmup = quick ? 2_000 : 20_000;
        int iterations = quick ? 20_000 : 200_000;
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "SocketBench: JVM %s, %d cores, load average %.2f%n", Runtime.version(),
            Runtime.getRuntime().availableProcessors(),
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        Histogram nioBlocking;
        Histogram nioSelector;
        try (NioPingPong.Child c = NioPingPong.startChild(NioPingPong.ServerKind.BLOCKING)) {
            nioBlocking = NioPingPong.run("127.0.0.1", c.port(), warmup, iterations);
        }
        try (NioPingPong.Child c = NioPingPong.startChild(NioPingPong.ServerKind.SELECTOR)) {
            nioSelector = NioPingPong.run("127.0.0.1", c.port(), warmup, iterations);
        }
        Process child = startHome();
        try (SocketFabric fabric = SocketFabric.open(new SocketContext())) {
            String address = readAddress(child);
            Node me = fabric.addNode("bench-client");
            Node peer = fabric.connect(address);
            RemoteAddress base = fabric.lookup("bench");
            Histogram read;
            Histogram cas;
            try (Endpoint ep = Endpoint.open(me)) {
                read = measure(warmup, iterations, () -> ep.readLong(base));
                cas = measure(warmup, iterations, () -> ep.cas(base.plus(8), 0, 0));
            }
            out.println("8-byte round trips between two processes on loopback (us):");
            NioPingPong.print(out, "raw NIO ping-pong, blocking server", nioBlocking);
            NioPingPong.print(out, "raw NIO ping-pong, Selector server (baseline)", nioSelector);
            NioPingPong.print(out, "socket fabric READ 8 B", read);
            NioPingPong.print(out, "socket fabric CAS", cas);
            double base50 = nioSelector.getValueAtPercentile(50);
            double base99 = nioSelector.getValueAtPercentile(99);
            out.printf(Locale.ROOT, "ratio to the Selector baseline: READ p50 %.2fx p99 %.2fx, CAS p50 %.2fx p99 %.2fx"
                + " (goal <= 1.30x); to the blocking one: READ p50 %.2fx%n",
                read.getValueAtPercentile(50) / base50, read.getValueAtPercentile(99) / base99,
                cas.getValueAtPercentile(50) / base50, cas.getValueAtPercentile(99) / base99,
                read.getValueAtPercentile(50) / (double) nioBlocking.getValueAtPercentile(50));

            long seconds = quick ? 1 : 3;
            double one = throughput(me, peer, base, 1, false, seconds);
            double sixteen = throughput(me, peer, base, 16, false, seconds);
            double batched = throughput(me, peer, base, 16, true, seconds);
            out.printf(Locale.ROOT, "READ 8 B throughput: 1 outstanding %.0f ops/s; 16 outstanding %.0f ops/s (%.1fx);"
                + " 16 per doorbell %.0f ops/s (%.1fx)%n", one, sixteen, sixteen / one, batched, batched / one);

            int threads = 4;
            RemoteAddress counterWord = fabric.lookup("counter");
            double incr = increments(me, counterWord, threads, seconds);
            out.printf(Locale.ROOT, "RemoteCounter across processes: %d threads, %.0f increments/s%n", threads, incr);
        } finally {
            child.getOutputStream().close();
            child.waitFor(5, TimeUnit.SECONDS);
            child.destroyForcibly();
        }
        out.println("lock round trips, uncontended (the count is the protocol's, not the fabric's):");
        boolean equal = RoundTripComparison.print(out, SimFabric::open, "in-process", () -> SocketFabric.open(
            new SocketContext()), "socket", quick ? 50 : 200);
        out.println(equal ? "lock round trips: equal on both fabrics" : "FAIL: lock round trips differ");
        if (!equal) {
            System.exit(1);
        }
    }

    private static Histogram measure(int warmup, int iterations, Runnable op) {
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int i = 0; i < iterations; i++) {
            long t0 = System.nanoTime();
            op.run();
            h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
        }
        return h;
    }

    /** READs kept in flight: {@code depth} outstanding, posted one by one or as one list per refill. */
    private static double throughput(Node me, Node peer, RemoteAddress base, int depth, boolean list, long seconds) {
        CompletionQueue cq = me.createCompletionQueue(256);
        QueuePair qp = me.connect(peer, cq);
        MemoryRegion local = me.allocate(8L * depth, Access.ALL);
        WorkRequest[] wrs = new WorkRequest[depth];
        for (int i = 0; i < depth; i++) {
            wrs[i] = new WorkRequest().read(local, 8L * i, 8, base).flags(WorkRequest.SIGNALED).wrId(i);
        }
        Completion[] out = new Completion[depth];
        for (int i = 0; i < depth; i++) {
            out[i] = new Completion();
        }
        long done = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int inFlight = 0;
        while (System.nanoTime() < end) {
            if (list) {
                if (inFlight == 0) {
                    check(qp.post(wrs, depth));
                    inFlight = depth;
                }
            } else {
                while (inFlight < depth) {
                    check(qp.post(wrs[inFlight]));
                    inFlight++;
                }
            }
            int n = cq.await(out, TimeUnit.SECONDS.toNanos(5));
            for (int i = 0; i < n; i++) {
                if (out[i].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("READ failed: " + out[i]);
                }
            }
            inFlight -= n;
            done += n;
        }
        long t = System.nanoTime();
        while (inFlight > 0 && System.nanoTime() - t < TimeUnit.SECONDS.toNanos(5)) {
            inFlight -= cq.await(out, TimeUnit.MILLISECONDS.toNanos(100));
        }
        qp.close();
        local.close();
        return done / (double) seconds;
    }

    private static void check(int posted) {
        if (posted != QueuePair.POSTED) {
            throw new IllegalStateException("queue full");
        }
    }

    private static double increments(Node me, RemoteAddress word, int threads, long seconds) throws Exception {
        LongAdder total = new LongAdder();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(me)) {
                    RemoteCounter c = RemoteCounter.attach(ep, word);
                    while (System.nanoTime() < end) {
                        c.incrementAndGet();
                        total.increment();
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        try (Endpoint ep = Endpoint.open(me)) {
            long value = RemoteCounter.attach(ep, word).get();
            if (value != total.sum()) {
                throw new IllegalStateException("the counter holds " + value + ", " + total.sum() + " were acknowledged");
            }
        }
        return total.sum() / (double) seconds;
    }

    private static Process startHome() throws IOException {
        String java = ProcessHandle.current().info().command()
            .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            SocketBench.class.getName(), "home").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        return p;
    }

    private static String readAddress(Process p) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        if (line == null || !line.startsWith("HOME ")) {
            throw new IOException("the home child printed " + line);
        }
        return line.substring(5);
    }

    private static void home() throws IOException {
        try (SocketFabric fabric = SocketFabric.open(new SocketContext())) {
            Node home = fabric.addNode("bench-home");
            MemoryRegion r = home.allocate(4096, Access.ALL);
            fabric.publish("bench", r.remote(0));
            fabric.publish("counter", RemoteCounter.create(home));
            System.out.println("HOME " + home.address());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the parent closes our stdin
            }
        }
    }
}
