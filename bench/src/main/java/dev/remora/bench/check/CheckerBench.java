package dev.remora.bench.check;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.MalformedHistoryException;
import dev.remora.check.Model;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Speed and memory driver for the linearizability checker (not a timed test).
 *
 * <p>Times, after warm-up, checking the 19 Jepsen etcd logs and the key-value logs of
 * {@code ../shared/histories} (skipped with a message when absent; parsing is excluded and
 * reported apart), a generated 1,712-operation 10-key key-value history (the size of
 * Porcupine's {@code c50} history, with 10 clients where it has 50; {@link PorcupineSideBySide}
 * has Porcupine's shapes), a generated 10^6-operation key-value history over 1,000 keys and a
 * generated 10^4-operation cas-register history with 5 % indeterminate operations; prints
 * wall and CPU time and peak heap (CPU time is what to compare when other processes load the
 * machine; the small histories are timed on one thread). Usage: {@code CheckerBench [SHARED_HISTORIES_DIR]}; run with
 * {@code -Xmx2g} to show the large histories fit in 2 GiB.
 */
public final class CheckerBench {
    private static final long WARM_UP_NS = 8_000_000_000L;
    private static final CheckOptions VERDICT_ONLY = CheckOptions.DEFAULTS.withExplain(false);

    private CheckerBench() {
    }

    /**
     * Entry point.
     *
     * @param args optionally the {@code shared/histories} directory
     * @throws Exception on unexpected errors
     */
    public static void main(String[] args) throws Exception {
        Path shared = args.length > 0 ? Paths.get(args[0]) : findShared();
        System.out.printf(Locale.ROOT, "JVM %s, %d cores, max heap %d MiB, load average %.1f%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        if (shared == null || !Files.isDirectory(shared.resolve("jepsen-etcd"))) {
            System.out.println("shared/histories not found (pass its path as the first argument):"
                    + " skipping the Jepsen etcd and kv-log timings");
        } else {
            corpus(shared);
        }
        generated();
    }

    private static Path findShared() {
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("shared").resolve("histories");
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    private static void corpus(Path shared) throws IOException, MalformedHistoryException {
        List<Path> etcd;
        try (Stream<Path> s = Files.list(shared.resolve("jepsen-etcd"))) {
            etcd = s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        Model<?> cas = Models.create("cas-register", null, false);
        long t0 = System.nanoTime();
        List<History> etcdHistories = new ArrayList<>();
        for (Path p : etcd) {
            History h = HistoryReader.read(p, HistoryFormat.JEPSEN_LOG);
            Checker.validate(h, cas);
            etcdHistories.add(h);
        }
        double parseMs = (System.nanoTime() - t0) / 1e6;
        int lin = 0;
        for (History h : etcdHistories) {
            lin += Checker.check(h, cas).verdict() == dev.remora.check.Verdict.LINEARIZABLE ? 1 : 0;
        }
        double[] ms = time(etcdHistories, cas, VERDICT_ONLY, 300, 300);
        double[] msx = time(etcdHistories, cas, CheckOptions.DEFAULTS, 100, 100);
        long p0 = System.nanoTime();
        for (Path p : etcd) {
            HistoryReader.read(p, HistoryFormat.JEPSEN_LOG);
        }
        double parseWarmMs = (System.nanoTime() - p0) / 1e6;
        System.out.printf(Locale.ROOT, "jepsen-etcd: %d files (%d linearizable); parse %.1f ms cold, %.1f ms warm%n",
                etcd.size(), lin, parseMs, parseWarmMs);
        System.out.println("  all 19 files, verdict only (Porcupine: ~4 ms): " + fmt(ms));
        System.out.println("  all 19 files, with explanations of the 16 failures: " + fmt(msx));
        Model<?> kv = Models.create("kv", null, false);
        for (String name : List.of("c01-ok.txt", "c01-bad.txt")) {
            Path p = shared.resolve("kv").resolve(name);
            if (!Files.exists(p)) {
                System.out.println("kv/" + name + " absent: skipped");
                continue;
            }
            History h = HistoryReader.read(p, HistoryFormat.KV_LOG);
            Checker.validate(h, kv);
            double[] k = time(List.of(h), kv, VERDICT_ONLY, 300, 100);
            System.out.println("kv/" + name + ": " + h.size() + " operations, " + Checker.check(h, kv).verdict().cliName()
                    + ", " + fmt(k));
        }
    }

    /**
     * Times passes over histories on one thread, so that the thread's CPU time measures the work
     * even when other processes compete for the cores.
     *
     * @return {median wall, min wall, median CPU, min CPU} milliseconds per pass
     */
    private static double[] time(List<History> hs, Model<?> m, CheckOptions o, int warmups, int runs) {
        CheckOptions one = o.withParallelism(1);
        java.lang.management.ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        // Warm up for a number of passes and at least a few seconds: on a loaded machine the JIT's
        // compiler threads need the time.
        long warmEnd = System.nanoTime() + WARM_UP_NS;
        for (int i = 0; i < warmups || System.nanoTime() < warmEnd; i++) {
            for (History h : hs) {
                Checker.check(h, m, one);
            }
        }
        double[] wall = new double[runs];
        double[] cpu = new double[runs];
        for (int i = 0; i < runs; i++) {
            long c = tm.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            for (History h : hs) {
                Checker.check(h, m, one);
            }
            wall[i] = (System.nanoTime() - s) / 1e6;
            cpu[i] = (tm.getCurrentThreadCpuTime() - c) / 1e6;
        }
        Arrays.sort(wall);
        Arrays.sort(cpu);
        return new double[] {wall[runs / 2], wall[0], cpu[runs / 2], cpu[0]};
    }

    private static String fmt(double[] t) {
        return String.format(Locale.ROOT, "wall median %.3f ms (min %.3f), CPU median %.3f ms (min %.3f)",
                t[0], t[1], t[2], t[3]);
    }

    private static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : -1;
    }

    private static void generated() throws MalformedHistoryException {
        Model<?> kv = Models.create("kv", null, false);
        History kv1712 = History.fromEvents("kv-1712", HistoryFormat.JSONL, HistoryGenerator.kv(1712, 10, 10, 42));
        double[] k = time(List.of(kv1712), kv, VERDICT_ONLY, 200, 50);
        System.out.println("generated kv, 1,712 ops, 10 keys, 10 clients (as many operations as Porcupine's c50; see"
                + " PorcupineSideBySide for its shapes): "
                + Checker.check(kv1712, kv).verdict().cliName() + ", " + fmt(k));

        // Warm the large-history path on a smaller one.
        large("warm-up kv 10^5 ops, 100 keys", HistoryGenerator.kv(100_000, 100, 10, 1), kv, false);
        List<dev.remora.check.Event> million = HistoryGenerator.kv(1_000_000, 1000, 10, 7);
        Path file = writeJsonLines(million);
        million = null;
        large("kv 10^6 ops, 1,000 keys, 10 clients", HistoryGenerator.kv(1_000_000, 1000, 10, 7), kv, true);
        fromFile(file, kv);
        Model<?> cas = Models.create("cas-register", null, false);
        large("warm-up cas-register 10^3 ops", HistoryGenerator.casRegister(1000, 10, 5, 2), cas, false);
        large("cas-register 10^4 ops, 10 clients, 5% indeterminate", HistoryGenerator.casRegister(10_000, 10, 5, 3),
                cas, true);
    }

    private static Path writeJsonLines(List<dev.remora.check.Event> events) {
        try {
            Path f = Files.createTempFile("remora-kv-1e6-", ".jsonl");
            f.toFile().deleteOnExit();
            try (java.io.BufferedWriter w = Files.newBufferedWriter(f)) {
                for (dev.remora.check.Event e : events) {
                    w.write("{\"process\":" + e.process() + ",\"type\":\""
                            + e.type().name().toLowerCase(Locale.ROOT) + "\",\"f\":\"" + e.function()
                            + "\",\"key\":\"" + e.key() + "\",\"value\":"
                            + (e.value() == null ? "null" : "\"" + e.value() + "\"") + ",\"time\":" + e.timeNs() + "}\n");
                }
            }
            return f;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Times the whole path of {@code remora check}: read the JSON Lines file, validate, check. */
    private static void fromFile(Path f, Model<?> m) throws MalformedHistoryException {
        System.gc();
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        long cpu0 = processCpuNs();
        long s = System.nanoTime();
        History h;
        try {
            h = HistoryReader.read(f, null);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        long read = System.nanoTime();
        Checker.validate(h, m);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withTimeLimitSeconds(60));
        long end = System.nanoTime();
        long peak = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        long size;
        try {
            size = Files.size(f);
        } catch (IOException e) {
            size = -1;
        }
        System.out.printf(Locale.ROOT, "same 10^6-op history from a %d MiB JSON Lines file: read %.0f ms + validate and"
                + " check %.0f ms = %.0f ms wall, %.0f ms CPU, %s, peak heap %d MiB%n", size >> 20, (read - s) / 1e6,
                (end - read) / 1e6, (end - s) / 1e6, (processCpuNs() - cpu0) / 1e6, r.verdict().cliName(), peak >> 20);
    }

    private static void large(String name, List<dev.remora.check.Event> events, Model<?> m, boolean print)
            throws MalformedHistoryException {
        History h = History.fromEvents(name, HistoryFormat.JSONL, events);
        long indeterminate = h.operations().stream().filter(dev.remora.check.Operation::isIndeterminate).count();
        events = null;
        System.gc();
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        long base = pools.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        long cpu0 = processCpuNs();
        long s = System.nanoTime();
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withTimeLimitSeconds(60));
        double ms = (System.nanoTime() - s) / 1e6;
        double cpuMs = (processCpuNs() - cpu0) / 1e6;
        long peak = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        if (print) {
            System.out.printf(Locale.ROOT, "%s (%d ops, %d indeterminate): %s%s in %.0f ms wall, %.0f ms CPU (all"
                    + " threads, GC included), %d partitions, %d states; heap before %d MiB (history held), peak %d MiB%n",
                    name, h.size(), indeterminate, r.verdict().cliName(), r.cause() == null ? "" : " (" + r.cause() + ")",
                    ms, cpuMs, r.partitions(), r.statesExplored(), base >> 20, peak >> 20);
        }
    }
}
