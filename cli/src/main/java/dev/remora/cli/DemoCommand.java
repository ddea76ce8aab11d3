package dev.remora.cli;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.testkit.Zipf;
import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code remora demo}: a 3-node software fabric (one home node holding a {@link RemoteCounter}, two client nodes),
 * client threads incrementing it for a few seconds, then a check that the final count equals the number of
 * acknowledged increments, and a table of throughput, round trips per operation and latency percentiles; then a
 * lock workload whose recorded acquire/release history is checked with the linearizability checker; then YCSB-B on a
 * {@link CuckooMap} ({@link KvWorkload}), its history checked with the map model. With
 * {@code --fabric socket} the same workloads run in separate OS processes on the socket fabric ({@link SocketDemo}).
 */
@Command(name = "demo", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Runs RemoteCounter increments from several threads on two client nodes of the embedded "
        + "software fabric (or, with --fabric socket, in separate processes), checks the final count and prints "
        + "throughput, round trips per operation and latency; then checks a TicketLock workload's history; then runs "
        + "YCSB-B on a CuckooMap and checks its history with the map model.")
public final class DemoCommand implements Callable<Integer> {
    /** Acquisitions in the lock workload (bounded, so the history stays quick to check). */
    static final int LOCK_ACQUISITIONS = 4_000;

    @Option(names = "--seconds", defaultValue = "3", description = "How long the workload runs (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--threads", defaultValue = "8", description = "Client threads, spread over 2 client nodes "
        + "(default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--rtt-ns", defaultValue = "0", description = "Injected round-trip latency in ns; 2000 is the "
        + "2 µs preset (default ${DEFAULT-VALUE}: requests run on the posting thread).")
    long rttNs;

    @Option(names = "--fabric", defaultValue = "sim", paramLabel = "sim|socket", description = "sim (default): the "
        + "embedded software fabric in this process; socket: a home process and two client processes on the socket "
        + "fabric (loopback), their lock histories merged and checked.")
    String fabricKind;

    @Option(names = "--history-dir", paramLabel = "DIR", description = "With --fabric socket: keep the clients' lock "
        + "histories and the merged one here (default: a temporary directory, removed unless the demo fails).")
    java.nio.file.Path historyDir;

    @Option(names = "--client-timeout-seconds", defaultValue = "120", hidden = true, description = "With --fabric "
        + "socket: how long the client processes may take beyond --seconds before they are killed.")
    long clientTimeoutSeconds;

    @Option(names = "--lock-acquisitions", defaultValue = "" + LOCK_ACQUISITIONS, hidden = true,
        description = "With --fabric socket: acquisitions in the lock workload, over every lock thread.")
    int lockAcquisitions;

    @Option(names = "--kv-keys", defaultValue = "" + KvWorkload.KEYS, hidden = true,
        description = "Keys of the kv workload (loaded, then drawn Zipf 0.99).")
    int kvKeys;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public DemoCommand() {
    }

    /** What one client thread measured. */
    private static final class Worker {
        final Histogram latency = new Histogram(3);
        long acknowledged;
        VerbsStatistics statistics = VerbsStatistics.ZERO;
        Throwable failure;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (seconds <= 0 || seconds > 3600) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seconds must be in (0, 3600]: " + seconds);
        }
        if (threads < 1 || threads > 256) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be in 1..256: " + threads);
        }
        if (kvKeys < 1_000 || kvKeys > 1_000_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kv-keys must be in 1000..1000000: "
                + kvKeys);
        }
        if (rttNs < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rtt-ns must be >= 0: " + rttNs);
        }
        if (fabricKind.equals("socket")) {
            if (rttNs != 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rtt-ns injects latency into the "
                    + "embedded fabric; with --fabric socket the round trip is the real one");
            }
            if (threads < 2) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--fabric socket needs --threads >= 2 "
                    + "(one per client process at least): " + threads);
            }
            if (lockAcquisitions < 4 || lockAcquisitions > 1_000_000) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--lock-acquisitions must be in "
                    + "4..1000000: " + lockAcquisitions);
            }
            return new SocketDemo(out).run(seconds, threads, lockAcquisitions, historyDir, clientTimeoutSeconds);
        }
        if (!fabricKind.equals("sim")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--fabric is sim or socket, not "
                + fabricKind);
        }
        if (historyDir != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--history-dir needs --fabric socket");
        }
        SimContext context = new SimContext().roundTripLatencyNs(rttNs);
        try (SimFabric fabric = SimFabric.open(context)) {
            Node home = fabric.addNode("N0-home");
            Node[] clients = {fabric.addNode("N1"), fabric.addNode("N2")};
            RemoteAddress word = RemoteCounter.create(home);
            out.printf(Locale.ROOT, "Remora demo: RemoteCounter on the embedded software fabric (fast mode, "
                + "round trip %s)%n", rttNs == 0 ? "none injected" : rttNs + " ns");
            out.printf(Locale.ROOT, "  home node %s holds the counter; %d threads on client nodes %s and %s%n",
                home.name(), threads, clients[0].name(), clients[1].name());
            out.flush();

            List<Worker> workers = new ArrayList<>();
            List<Thread> running = new ArrayList<>();
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            long durationNs = (long) (seconds * 1e9);
            long[] deadline = new long[1];
            for (int t = 0; t < threads; t++) {
                Worker w = new Worker();
                Node node = clients[t % 2];
                workers.add(w);
                Thread thread = new Thread(() -> runWorker(w, node, word, ready, go, deadline), "demo-client-" + t);
                running.add(thread);
                thread.start();
            }
            ready.await();
            long start = System.nanoTime();
            deadline[0] = start + durationNs;
            go.countDown();
            for (Thread thread : running) {
                thread.join();
            }
            long elapsedNs = System.nanoTime() - start;

            Histogram all = new Histogram(3);
            long acknowledged = 0;
            VerbsStatistics stats = VerbsStatistics.ZERO;
            for (Worker w : workers) {
                if (w.failure != null) {
                    out.println("a client thread failed: " + w.failure);
                    return 1;
                }
                all.add(w.latency);
                acknowledged += w.acknowledged;
                stats = stats.plus(w.statistics);
            }
            long finalCount;
            try (Endpoint ep = Endpoint.open(clients[0])) {
                finalCount = RemoteCounter.attach(ep, word).get();
            }
            boolean ok = finalCount == acknowledged;
            double ops = acknowledged / (elapsedNs / 1e9);
            out.println();
            row(out, "duration", String.format(Locale.ROOT, "%.2f s", elapsedNs / 1e9));
            row(out, "increments acknowledged", String.format(Locale.ROOT, "%,d", acknowledged));
            row(out, "final count (READ)", String.format(Locale.ROOT, "%,d", finalCount));
            row(out, "count check", ok ? "PASS (final count = acknowledged increments)"
                : "FAIL (final count differs from acknowledged increments by " + (finalCount - acknowledged) + ")");
            row(out, "throughput", String.format(Locale.ROOT, "%,.0f increments/s", ops));
            row(out, "round trips per increment",
                String.format(Locale.ROOT, "%.3f", acknowledged == 0 ? 0.0 : (double) stats.roundTrips() / acknowledged));
            row(out, "verbs per increment", String.format(Locale.ROOT, "%.3f FETCH_ADD",
                acknowledged == 0 ? 0.0 : (double) stats.fetchAndAdds() / acknowledged));
            row(out, "latency p50", micros(all.getValueAtPercentile(50)));
            row(out, "latency p99", micros(all.getValueAtPercentile(99)));
            row(out, "latency max", micros(all.getMaxValue()));
            out.flush();
            boolean lockOk = lockWorkload(out, fabric, home, clients);
            boolean kvOk = kvWorkload(out, home, clients);
            return ok && lockOk && kvOk ? 0 : 1;
        }
    }

    /**
     * The lock workload: threads take a {@link TicketLock} on the home node, increment a counter on another node with
     * a plain READ and WRITE inside the critical section, and record every acquire and release with a
     * {@link HistoryRecorder} (invocation before the call, completion after it returns, in one real-time order); the
     * history is then checked with the linearizability checker's mutex model.
     */
    private boolean lockWorkload(PrintWriter out, SimFabric fabric, Node home, Node[] clients) throws Exception {
        Node dataNode = fabric.addNode("N3-data");
        RemoteAddress lock = TicketLock.create(home).address();
        MemoryRegion data = dataNode.allocate(8, Access.ALL);
        int lockThreads = Math.min(threads, 4);
        int perThread = LOCK_ACQUISITIONS / lockThreads;
        HistoryRecorder recorder = HistoryRecorder.builder().name("demo-lock").build();
        long start = System.nanoTime();
        Throwable failure = LockWorkload.run(lockThreads, t -> clients[t % 2], lock, data.remote(0), perThread,
            recorder, false);
        long elapsedNs = System.nanoTime() - start;
        if (failure != null) {
            out.println("a lock thread failed: " + failure);
            return false;
        }
        long checkStart = System.nanoTime();
        CheckResult verdict = Checker.check(recorder.history(), Models.mutex(),
            CheckOptions.DEFAULTS.withTimeLimitSeconds(30));
        long checkNs = System.nanoTime() - checkStart;
        long acquisitions = (long) perThread * lockThreads;
        long counted = data.getLongVolatile(0);
        out.println();
        out.printf(Locale.ROOT, "Lock workload: TicketLock on %s, %d threads, counter on %s incremented inside the "
            + "critical section%n", home.name(), lockThreads, dataNode.name());
        row(out, "acquisitions", String.format(Locale.ROOT, "%,d in %.2f s", acquisitions, elapsedNs / 1e9));
        row(out, "counter check", counted == acquisitions ? "PASS (counter = acquisitions)"
            : "FAIL (counter " + counted + " after " + acquisitions + " acquisitions)");
        row(out, "history", String.format(Locale.ROOT, "%,d operations (acquire/release)", verdict.operations()));
        row(out, "checker (mutex model)", verdict.verdict().name().toLowerCase(Locale.ROOT).replace('_', '-')
            + String.format(Locale.ROOT, " in %.2f s", checkNs / 1e9)
            + (verdict.cause() == null ? "" : " (" + verdict.cause() + ")"));
        out.flush();
        return counted == acquisitions && verdict.verdict() == Verdict.LINEARIZABLE;
    }

    /**
     * The kv workload ({@link KvWorkload}): YCSB-B on a {@link CuckooMap} on the home node for {@code --seconds},
     * history checked with the map model; passes when the history is linearizable and an uncontended GET took 1 round
     * trip and an uncontended update 2.
     */
    private boolean kvWorkload(PrintWriter out, Node home, Node[] clients) throws Exception {
        int kvThreads = Math.min(threads, 4);
        out.println();
        out.printf(Locale.ROOT, "KV workload: CuckooMap on %s (%,d rows x 4 slots), YCSB-B (95 %% GET, 5 %% update), "
            + "Zipf %.2f over %,d keys of 8 B, values of %d B, %d threads%n", home.name(), KvWorkload.rowsFor(kvKeys),
            Zipf.YCSB_THETA, kvKeys, KvWorkload.VALUE_BYTES, kvThreads);
        out.flush();
        KvWorkload.Outcome r = KvWorkload.run(home, clients, kvThreads, seconds, kvKeys);
        if (r.failure() != null) {
            out.println("a kv thread failed: " + r.failure());
            return false;
        }
        row(out, "load", String.format(Locale.ROOT, "%,d puts in %.2f s", kvKeys, r.loadNanos() / 1e9));
        row(out, "operations", String.format(Locale.ROOT, "%,d in %.2f s%s", r.operations(), r.nanos() / 1e9,
            r.capped() ? " (stopped at the history's bound, " + String.format(Locale.ROOT, "%,d",
                KvWorkload.MAX_OPERATIONS) + ")" : ""));
        row(out, "throughput", String.format(Locale.ROOT, "%,.0f ops/s", r.operations() / (r.nanos() / 1e9)));
        row(out, "round trips per GET", String.format(Locale.ROOT, "%.3f (uncontended: %s)",
            r.gets() == 0 ? 0.0 : (double) r.getRoundTrips() / r.gets(), range(r.probeGet())));
        row(out, "round trips per update", String.format(Locale.ROOT, "%.3f (uncontended: %s)",
            r.updates() == 0 ? 0.0 : (double) r.updateRoundTrips() / r.updates(), range(r.probeUpdate())));
        row(out, "latency p50", micros(r.latency().getValueAtPercentile(50)));
        row(out, "latency p99", micros(r.latency().getValueAtPercentile(99)));
        row(out, "BUSY answers", String.format(Locale.ROOT, "%,d", r.busy()));
        row(out, "history", String.format(Locale.ROOT, "%,d operations (get/put/update, the load included)",
            r.history()));
        row(out, "checker (map model)", r.check().verdict().name().toLowerCase(Locale.ROOT).replace('_', '-')
            + String.format(Locale.ROOT, " in %.2f s", r.checkNanos() / 1e9)
            + (r.check().cause() == null ? "" : " (" + r.check().cause() + ")"));
        if (!r.roundTripsAsDocumented()) {
            row(out, "round-trip check", "FAIL (an uncontended GET costs 1 round trip and an update 2)");
        }
        out.flush();
        return r.check().verdict() == Verdict.LINEARIZABLE && r.roundTripsAsDocumented();
    }

    /** {@code "1 each"} when every call took the same count, else {@code "1..3"}. */
    private static String range(long[] minMax) {
        return minMax[0] == minMax[1] ? minMax[0] + " each" : minMax[0] + ".." + minMax[1];
    }

    private static void runWorker(Worker w, Node node, RemoteAddress word, CountDownLatch ready, CountDownLatch go,
                                  long[] deadline) {
        try (Endpoint ep = Endpoint.open(node)) {
            RemoteCounter counter = RemoteCounter.attach(ep, word);
            ready.countDown();
            go.await();
            long end = deadline[0];
            long now = System.nanoTime();
            while (now < end) {
                counter.incrementAndGet();
                long after = System.nanoTime();
                w.latency.recordValue(after - now);
                w.acknowledged++;
                now = after;
            }
            w.statistics = ep.statistics();
        } catch (Throwable t) {
            w.failure = t;
        }
    }

    static void row(PrintWriter out, String name, String value) {
        out.printf(Locale.ROOT, "  %-28s %s%n", name, value);
    }

    static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.2f µs", nanos / 1000.0);
    }
}
