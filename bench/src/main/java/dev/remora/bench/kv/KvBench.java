package dev.remora.bench.kv;

import dev.remora.kv.CuckooMap;
import dev.remora.testkit.Cluster;
import dev.remora.testkit.YcsbDriver;
import dev.remora.testkit.Zipf;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The cuckoo map ({@link CuckooMap}) under the YCSB core workloads and a fill from empty, beside
 * {@link ConcurrentHashMap} in the same run as the local baseline, on two fabrics:
 * <ul>
 *   <li>{@code fast-2us}: the in-process fast fabric with the 2 µs round-trip preset (home node and two client nodes
 *       in this JVM, {@link Cluster#fastTwoMicroseconds});</li>
 *   <li>{@code socket}: the socket fabric across processes, the table's home node in a child JVM (this class with
 *       the argument {@code home}) and the client threads on two nodes of this JVM, every verb over loopback TCP.</li>
 * </ul>
 *
 * <p>Per fabric: the table ({@code --keys} / 0.9 slots rounded up to a power of two of rows of 4 slots; 32,768 rows
 * for 100,000 keys, 76 % full) is loaded with keys {@code 0..keys-1} (8 bytes, big-endian) and 32-byte values by
 * every thread; one thread alone then GETs 1,000 present and 200 absent keys and updates 200 keys, with nobody else
 * active, and each call's round trips are counted; then, after an unmeasured warm-up of YCSB B on both maps (half
 * of {@code --seconds}, at most 1 s), YCSB C (100 % read), B (95 % read, 5 % update) and A (50/50), keys drawn Zipf
 * 0.99 ({@link Zipf}), one {@link CuckooMap} handle and endpoint per thread, each for {@code --seconds}, each followed
 * by the same workload on a loaded {@code ConcurrentHashMap}; then a second table ({@code --fill-rows} rows of 4
 * slots) is filled from empty to 90 % by every thread, beside a {@code ConcurrentHashMap} filled with as many keys
 * (the median of 5 fills of fresh maps).
 *
 * <p>Printed per run: ops/s, the ratio to the baseline, round trips per GET and per update (the change of each
 * thread's endpoint count, {@code VerbsStatistics.roundTrips}, across each call, summed), GETs that took more than
 * one, p50/p99 latency of all operations (HdrHistogram), BUSY answers. Exit status 1 if an uncontended GET took other
 * than exactly 1 round trip or an uncontended update other than exactly 2, if YCSB C (no writers) averaged other than
 * 1.000 round trips per GET, or if any loaded key was missed.
 *
 * <p>Run: {@code java -cp bench/target/remora-bench.jar dev.remora.bench.kv.KvBench [--seconds S] [--threads T]
 * [--keys N] [--fill-rows R] [--fabric fast|socket|both]} (defaults 2 s, 4 threads, 100,000 keys, 4,096 rows, both).
 */
public final class KvBench {
    /** Slots per row of both tables. */
    static final int SLOTS = 4;
    /** The fill's target load. */
    static final double FILL_TO = 0.9;
    /** Bands of the fill: ends at 50 %, 75 % and 90 % of the slots. */
    static final double[] FILL_BANDS = {0.5, 0.75, 0.9};
    private static final String YCSB_TABLE = "kv-ycsb";
    private static final String FILL_TABLE = "kv-fill";
    private static final int UNCONTENDED_HITS = 1_000;
    private static final int UNCONTENDED_MISSES = 200;
    private static final int UNCONTENDED_UPDATES = 200;
    /** Fills of a fresh ConcurrentHashMap, of which the median is reported. */
    private static final int LOCAL_FILLS = 5;

    private KvBench() {
    }

    /** The command line's settings. */
    static final class Options {
        double seconds = 2;
        int threads = 4;
        int keys = 100_000;
        int fillRows = 4096;
        boolean fast = true;
        boolean socket = true;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--seconds" -> o.seconds = Double.parseDouble(v);
                    case "--threads" -> o.threads = Integer.parseInt(v);
                    case "--keys" -> o.keys = Integer.parseInt(v);
                    case "--fill-rows" -> o.fillRows = Integer.parseInt(v);
                    case "--fabric" -> {
                        o.fast = v.equals("fast") || v.equals("both");
                        o.socket = v.equals("socket") || v.equals("both");
                        if (!o.fast && !o.socket) {
                            throw new IllegalArgumentException("--fabric is fast, socket or both, not " + v);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option " + a + " (known: --seconds, "
                        + "--threads, --keys, --fill-rows, --fabric)");
                }
            }
            if (!(o.seconds > 0 && o.seconds <= 600)) {
                throw new IllegalArgumentException("--seconds must be in (0, 600]: " + o.seconds);
            }
            if (o.threads < 1 || o.threads > 64) {
                throw new IllegalArgumentException("--threads must be in 1..64: " + o.threads);
            }
            if (o.keys < UNCONTENDED_HITS || o.keys > 10_000_000) {
                throw new IllegalArgumentException("--keys must be in " + UNCONTENDED_HITS + "..10000000: " + o.keys);
            }
            if (o.fillRows < 16 || Integer.bitCount(o.fillRows) != 1 || o.fillRows > (1 << 22)) {
                throw new IllegalArgumentException("--fill-rows must be a power of two in 16..2^22: " + o.fillRows);
            }
            return o;
        }

        int ycsbRows() {
            return rowsFor(keys);
        }

        int fillKeys() {
            return (int) (FILL_TO * fillRows * SLOTS);
        }
    }

    /** The fewest rows, a power of two, of {@value #SLOTS} slots that hold {@code keys} at 90 % load or less. */
    static int rowsFor(int keys) {
        int rows = 2;
        while ((long) rows * SLOTS * FILL_TO < keys) {
            rows <<= 1;
        }
        return rows;
    }

    static CuckooMap.Params params(int rows, int threads) {
        return new CuckooMap.Params().rows(rows).slotsPerRow(SLOTS).keyCapacity(16).valueCapacity(Ycsb.VALUE_BYTES)
            .clients(Math.max(64, 4 * threads + 8));
    }

    /**
     * Where a fabric's tables are and how its client threads get endpoints.
     *
     * @param label the fabric's name in the report
     * @param ycsbTable the YCSB workloads' table
     * @param fillTable the fill's table
     * @param endpoints a new endpoint for a thread, by its index, on a client node
     * @param closer closes the fabric (and stops the tables' home)
     */
    record Target(String label, RemoteAddress ycsbTable, RemoteAddress fillTable, IntFunction<Endpoint> endpoints,
                  Runnable closer) implements AutoCloseable {
        /** @param thread the thread's index @return a new endpoint for it, on a client node */
        Endpoint endpoint(int thread) {
            return endpoints.apply(thread);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** The fast fabric with the 2 µs preset: home and two client nodes in this JVM. */
    static Target fast(Options o) {
        Cluster c = Cluster.fastTwoMicroseconds("home", "c1", "c2");
        Node home = c.node("home");
        RemoteAddress ycsb = CuckooMap.allocate(home, params(o.ycsbRows(), o.threads));
        RemoteAddress fill = CuckooMap.allocate(home, params(o.fillRows, o.threads));
        return new Target("fast-2us", ycsb, fill, thread -> Endpoint.open(c.node(thread % 2 == 0 ? "c1" : "c2")),
            c::close);
    }

    /** The socket fabric: the tables' home in a child JVM, two client nodes here. */
    static Target socket(Options o) throws IOException {
        Process child = startHome(o);
        SocketFabric fabric = null;
        try {
            String address = readAddress(child);
            SocketFabric f = SocketFabric.open(new SocketContext());
            fabric = f;
            Node[] nodes = {f.addNode("kv-bench-1"), f.addNode("kv-bench-2")};
            f.connect(address);
            return new Target("socket", f.lookup(YCSB_TABLE), f.lookup(FILL_TABLE),
                thread -> Endpoint.open(nodes[thread % 2]), () -> {
                    try {
                        f.close();
                    } finally {
                        stopHome(child);
                    }
                });
        } catch (IOException | RuntimeException e) {
            if (fabric != null) {
                fabric.close();
            }
            stopHome(child);
            throw e;
        }
    }

    private static Process startHome(Options o) throws IOException {
        String java = ProcessHandle.current().info().command()
            .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), KvBench.class.getName(), "home", Integer.toString(o.ycsbRows()),
            Integer.toString(o.fillRows), Integer.toString(o.threads))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        return p;
    }

    private static void stopHome(Process child) {
        try {
            child.getOutputStream().close();
            if (!child.waitFor(5, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            child.destroyForcibly();
        }
    }

    private static String readAddress(Process p) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        if (line == null || !line.startsWith("HOME ")) {
            throw new IOException("the kv home child printed " + line);
        }
        return line.substring(5);
    }

    /** The child's role: a socket node holding both tables, published by name, until its stdin closes. */
    private static void home(String[] args) throws IOException {
        int ycsbRows = Integer.parseInt(args[1]);
        int fillRows = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        try (SocketFabric fabric = SocketFabric.open(new SocketContext())) {
            Node home = fabric.addNode("kv-home");
            fabric.publish(YCSB_TABLE, CuckooMap.allocate(home, params(ycsbRows, threads)));
            fabric.publish(FILL_TABLE, CuckooMap.allocate(home, params(fillRows, threads)));
            System.out.println("HOME " + home.address());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the parent closes our stdin
            }
        }
    }

    /**
     * One uncontended phase's round trips.
     *
     * @param what the operation
     * @param calls how many
     * @param min the fewest any call took
     * @param max the most
     * @param total all of them
     */
    record Uncontended(String what, int calls, long min, long max, long total) {
        boolean exactly(long n) {
            return min == n && max == n;
        }

        double mean() {
            return (double) total / calls;
        }
    }

    /** Everything measured on one fabric. */
    record FabricResult(String label, int rows, Ycsb.Fill load, List<Uncontended> uncontended, List<String> mixes,
                        List<YcsbDriver.Result> cuckoo, List<YcsbDriver.Result> local, Ycsb.Fill fill, Ycsb.Fill localFill,
                        int fillRows) {
    }

    private static Uncontended uncontended(String what, int calls, KvClient c, java.util.function.IntFunction<
        KvClient.Outcome> op, KvClient.Outcome expected) {
        long min = Long.MAX_VALUE;
        long max = 0;
        long total = 0;
        for (int i = 0; i < calls; i++) {
            long before = c.roundTrips();
            KvClient.Outcome o = op.apply(i);
            long rt = c.roundTrips() - before;
            if (o != expected) {
                throw new IllegalStateException("uncontended " + what + " " + i + " answered " + o + ", not "
                    + expected);
            }
            min = Math.min(min, rt);
            max = Math.max(max, rt);
            total += rt;
        }
        return new Uncontended(what, calls, min, max, total);
    }

    static FabricResult measure(Target target, Options o, PrintStream out) throws InterruptedException {
        List<KvClient> clients = new ArrayList<>();
        try {
            for (int t = 0; t < o.threads; t++) {
                Endpoint ep = target.endpoint(t);
                try {
                    clients.add(new KvClient.Cuckoo(ep, CuckooMap.attach(ep, target.ycsbTable())));
                } catch (RuntimeException e) {
                    ep.close();
                    throw e;
                }
            }
            Ycsb.Fill load = Ycsb.fill(clients, o.keys, new double[] {1.0}, 0);
            if (load.inserts() != o.keys) {
                throw new IllegalStateException("the load inserted " + load.inserts() + " of " + o.keys + " keys ("
                    + load.full() + " TABLE_FULL, " + load.busy() + " BUSY)");
            }
            out.printf(Locale.ROOT, "[%s] load: %,d keys into %,d rows x %d slots (%.1f %% full) in %.2f s: %,.0f "
                    + "inserts/s, %.2f round trips each, %,d kicked%n", target.label(), o.keys, o.ycsbRows(), SLOTS,
                100.0 * o.keys / ((long) o.ycsbRows() * SLOTS), load.nanos() / 1e9, load.insertsPerSecond(),
                (double) load.roundTrips() / load.inserts(), load.kicks());

            KvClient one = clients.get(0);
            SplittableRandom rnd = new SplittableRandom(7);
            List<Uncontended> unc = List.of(
                uncontended("GET (hit)", UNCONTENDED_HITS, one, i -> one.get(rnd.nextInt(o.keys)),
                    KvClient.Outcome.OK),
                uncontended("GET (miss)", UNCONTENDED_MISSES, one, i -> one.get(o.keys + 1_000_000L + i),
                    KvClient.Outcome.MISS),
                uncontended("update", UNCONTENDED_UPDATES, one, i -> one.update(rnd.nextInt(o.keys),
                    Ycsb.value(99, i)), KvClient.Outcome.OK));
            for (Uncontended u : unc) {
                out.printf(Locale.ROOT, "[%s] uncontended %-10s x %,d: round trips mean %.3f, min %d, max %d%n",
                    target.label(), u.what(), u.calls(), u.mean(), u.min(), u.max());
            }

            ConcurrentHashMap<Long, byte[]> chm = new ConcurrentHashMap<>();
            for (long k = 0; k < o.keys; k++) {
                chm.put(k, Ycsb.value(0, k));
            }
            List<KvClient> locals = new ArrayList<>();
            for (int t = 0; t < o.threads; t++) {
                locals.add(new KvClient.Local(chm));
            }
            Zipf zipf = new Zipf(o.keys, Zipf.YCSB_THETA);
            // Warm-up, not measured: the JIT compiles both maps' paths before the first measured run.
            double warm = Math.min(1.0, o.seconds / 2);
            Ycsb.run(YcsbDriver.Mix.B, clients, zipf, warm, 1);
            Ycsb.run(YcsbDriver.Mix.B, locals, zipf, warm, 1);
            List<String> mixes = new ArrayList<>();
            List<YcsbDriver.Result> cuckoo = new ArrayList<>();
            List<YcsbDriver.Result> local = new ArrayList<>();
            for (YcsbDriver.Mix mix : List.of(YcsbDriver.Mix.C, YcsbDriver.Mix.B, YcsbDriver.Mix.A)) {
                YcsbDriver.Result r = Ycsb.run(mix, clients, zipf, o.seconds, 11);
                YcsbDriver.Result b = Ycsb.run(mix, locals, zipf, o.seconds, 11);
                mixes.add(mix.name());
                cuckoo.add(r);
                local.add(b);
                out.printf(Locale.ROOT, "[%s] YCSB-%s: cuckoo %,.0f ops/s, ConcurrentHashMap %,.0f ops/s%n",
                    target.label(), mix.name(), r.opsPerSecond(), b.opsPerSecond());
            }
            for (KvClient c : clients) {
                c.close();
            }
            clients.clear();

            for (int t = 0; t < o.threads; t++) {
                Endpoint ep = target.endpoint(t);
                clients.add(new KvClient.Cuckoo(ep, CuckooMap.attach(ep, target.fillTable())));
            }
            double[] bands = new double[FILL_BANDS.length];
            for (int b = 0; b < bands.length; b++) {
                bands[b] = FILL_BANDS[b] / FILL_TO;
            }
            Ycsb.Fill fill = Ycsb.fill(clients, o.fillKeys(), bands, 0);
            // The local fill takes milliseconds: the median of several fills of fresh maps.
            List<Ycsb.Fill> localFills = new ArrayList<>();
            for (int i = 0; i < LOCAL_FILLS; i++) {
                List<KvClient> fillLocals = new ArrayList<>();
                ConcurrentHashMap<Long, byte[]> empty = new ConcurrentHashMap<>();
                for (int t = 0; t < o.threads; t++) {
                    fillLocals.add(new KvClient.Local(empty));
                }
                localFills.add(Ycsb.fill(fillLocals, o.fillKeys(), bands, 0));
            }
            localFills.sort(java.util.Comparator.comparingDouble(Ycsb.Fill::insertsPerSecond));
            Ycsb.Fill localFill = localFills.get(LOCAL_FILLS / 2);
            return new FabricResult(target.label(), o.ycsbRows(), load, unc, mixes, cuckoo, local, fill, localFill,
                o.fillRows);
        } finally {
            for (KvClient c : clients) {
                c.close();
            }
        }
    }

    private static String us(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    /**
     * Prints the tables (Markdown) and the round-trip verdict.
     *
     * @param out where
     * @param o the settings
     * @param results per fabric
     * @return the failures of the round-trip checks (empty if all passed)
     */
    static List<String> report(PrintStream out, Options o, List<FabricResult> results) {
        List<String> failures = new ArrayList<>();
        out.println();
        out.printf(Locale.ROOT, "YCSB, %,d keys of 8 B, values of %d B, Zipf %.2f, %d threads (one handle each), "
                + "%.1f s per run; ratio = cuckoo ops/s / ConcurrentHashMap ops/s%n", o.keys, Ycsb.VALUE_BYTES,
            Zipf.YCSB_THETA, o.threads, o.seconds);
        out.println();
        out.println("| fabric | workload | map | ops/s | ratio | round trips / GET | round trips / update | GETs > 1 "
            + "| p50 µs | p99 µs | BUSY |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        for (FabricResult f : results) {
            for (int i = 0; i < f.mixes().size(); i++) {
                YcsbDriver.Result r = f.cuckoo().get(i);
                YcsbDriver.Result b = f.local().get(i);
                out.printf(Locale.ROOT, "| %s | %s | cuckoo | %,.0f | %.4f | %.3f | %s | %,d | %s | %s | %,d |%n",
                    f.label(), f.mixes().get(i), r.opsPerSecond(), r.opsPerSecond() / b.opsPerSecond(),
                    r.roundTripsPerGet(), r.updates() == 0 ? "–" : String.format(Locale.ROOT, "%.3f",
                        r.roundTripsPerUpdate()), r.getsAboveOne(), us(r.latency().getValueAtPercentile(50)),
                    us(r.latency().getValueAtPercentile(99)), r.busy());
                out.printf(Locale.ROOT, "| %s | %s | ConcurrentHashMap | %,.0f | 1 | – | – | – | %s | %s | – |%n",
                    f.label(), f.mixes().get(i), b.opsPerSecond(), us(b.latency().getValueAtPercentile(50)),
                    us(b.latency().getValueAtPercentile(99)));
                if (r.misses() > 0 || b.misses() > 0) {
                    failures.add(f.label() + " YCSB-" + f.mixes().get(i) + ": " + (r.misses() + b.misses())
                        + " operations missed a loaded key");
                }
                if (r.updates() == 0 && r.getRoundTrips() != r.gets()) {
                    failures.add(f.label() + " YCSB-" + f.mixes().get(i) + " (no writers): " + r.getRoundTrips()
                        + " round trips for " + r.gets() + " GETs");
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "Fill from empty to %.0f %% (rows of %d slots, %d threads); rates within each band%n",
            FILL_TO * 100, SLOTS, o.threads);
        out.println();
        StringBuilder head = new StringBuilder("| fabric | table | map | inserts/s (whole fill) | ratio |");
        StringBuilder rule = new StringBuilder("|---|---|---|---|---|");
        double lower = 0;
        for (double b : FILL_BANDS) {
            head.append(String.format(Locale.ROOT, " %.0f–%.0f %% inserts/s (round trips each) |", lower * 100,
                b * 100));
            rule.append("---|");
            lower = b;
        }
        head.append(" kicked | TABLE_FULL | BUSY |");
        rule.append("---|---|---|");
        out.println(head);
        out.println(rule);
        for (FabricResult f : results) {
            Ycsb.Fill c = f.fill();
            Ycsb.Fill l = f.localFill();
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT,
                "| %s | %,d x %d | cuckoo | %,.0f | %.4f |", f.label(), f.fillRows(), SLOTS, c.insertsPerSecond(),
                c.insertsPerSecond() / l.insertsPerSecond()));
            for (int b = 0; b < FILL_BANDS.length; b++) {
                row.append(String.format(Locale.ROOT, " %,.0f (%.2f) |", c.bandRates()[b], c.bandRoundTrips()[b]));
            }
            row.append(String.format(Locale.ROOT, " %,d | %,d | %,d |", c.kicks(), c.full(), c.busy()));
            out.println(row);
            StringBuilder lrow = new StringBuilder(String.format(Locale.ROOT,
                "| %s | %,d keys | ConcurrentHashMap | %,.0f | 1 |", f.label(), o.fillKeys(), l.insertsPerSecond()));
            for (int b = 0; b < FILL_BANDS.length; b++) {
                lrow.append(String.format(Locale.ROOT, " %,.0f |", l.bandRates()[b]));
            }
            lrow.append(" – | – | – |");
            out.println(lrow);
        }
        out.println();
        for (FabricResult f : results) {
            for (Uncontended u : f.uncontended()) {
                long want = u.what().startsWith("GET") ? 1 : 2;
                if (!u.exactly(want)) {
                    failures.add(String.format(Locale.ROOT, "%s uncontended %s: round trips %d..%d, not exactly %d",
                        f.label(), u.what(), u.min(), u.max(), want));
                }
            }
        }
        return failures;
    }

    /**
     * Runs the benchmark.
     *
     * @param o the settings
     * @param out where to print
     * @return the failures of the checks (empty if all passed)
     * @throws Exception if a fabric or a thread fails
     */
    static List<String> run(Options o, PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "KvBench: JVM %s, %d cores, load average %.2f at the start%n", Runtime.version(),
            Runtime.getRuntime().availableProcessors(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        List<FabricResult> results = new ArrayList<>();
        if (o.fast) {
            try (Target t = fast(o)) {
                results.add(measure(t, o, out));
            }
        }
        if (o.socket) {
            try (Target t = socket(o)) {
                results.add(measure(t, o, out));
            }
        }
        List<String> failures = report(out, o, results);
        out.printf(Locale.ROOT, "load average %.2f at the end%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        if (failures.isEmpty()) {
            out.println("PASS: every uncontended GET took exactly 1 round trip and every uncontended update exactly 2");
        } else {
            for (String f : failures) {
                out.println("FAIL: " + f);
            }
        }
        return failures;
    }

    /**
     * @param args the options (see the class comment), or {@code home ROWS FILL_ROWS THREADS} in the child
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("home")) {
            home(args);
            return;
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("KvBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (!run(o, System.out).isEmpty()) {
            System.exit(1);
        }
        System.exit(0);
    }
}
