package dev.remora.bench.check;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.Model;
import dev.remora.check.Verdict;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Remora next to Porcupine on Porcupine's test-data shapes. Writes generated histories of those
 * shapes to a directory (83 etcd-style logs, {@link HistoryGenerator#etcdLog}, added to the 19 real
 * ones of the shared histories directory when present to make Porcupine's 102; key-value logs of
 * 10 and 50 clients, ok and bad, of the sizes of Porcupine's {@code c10} and {@code c50}; the hard
 * 50- and 100-client shapes of {@link HardKvBench}), then prints for each workload: the verdicts
 * against the expected ones, Remora in process (read and check, explained as the command line
 * does, after warm-up, median; also with one thread, which on a loaded machine avoids waiting for
 * the second core), Remora's whole process (the real {@code remora check} launcher,
 * median of N runs, with its peak RSS from {@code /usr/bin/time -f %M}) and Porcupine's figures,
 * which are constants measured elsewhere (Porcupine v1.3.0 on this machine by a reviewer), not a
 * run of Porcupine here.
 *
 * <p>Usage: {@code PorcupineSideBySide OUT_DIR [REPO_ROOT [SHARED_HISTORIES_DIR [RUNS]]]}; the
 * repository root (default {@code .}) holds the {@code remora} launcher, the shared histories
 * default to {@code REPO_ROOT/../shared/histories}. Exits 1 when a verdict is not the expected one.
 */
public final class PorcupineSideBySide {
    /** Porcupine's whole-process and in-process figures in ms, measured elsewhere; -1 when none. */
    private static final Map<String, double[]> PORCUPINE = new LinkedHashMap<>();

    static {
        PORCUPINE.put("etcd: 102 logs, one invocation", new double[] {345, 284});
        PORCUPINE.put("etcd: worst single log", new double[] {131, -1});
        PORCUPINE.put("kv c01-ok (58 ops)", new double[] {5, -1});
        PORCUPINE.put("kv c01-bad", new double[] {-1, -1});
        PORCUPINE.put("kv c10-ok (337 ops)", new double[] {-1, -1});
        PORCUPINE.put("kv c10-bad", new double[] {-1, -1});
        PORCUPINE.put("kv c50-ok (1,712 ops)", new double[] {158, 107});
        PORCUPINE.put("kv c50-bad", new double[] {-1, -1});
        PORCUPINE.put("hard kv, 50 clients", new double[] {-1, -1});
        PORCUPINE.put("hard kv, 100 clients", new double[] {-1, -1});
    }

    private PorcupineSideBySide() {
    }

    /** A workload: files, their model and expected verdicts. */
    private record Workload(String name, String model, List<Path> files, List<Boolean> linearizable) {
    }

    /**
     * Entry point.
     *
     * @param args output directory, optionally the repository root, the shared histories and the runs
     * @throws Exception on unexpected errors
     */
    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args.length > 0 ? args[0] : "target/porcupine-shapes");
        Path root = Paths.get(args.length > 1 ? args[1] : ".").toAbsolutePath().normalize();
        Path shared = args.length > 2 ? Paths.get(args[2]) : root.resolve("../shared/histories").normalize();
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 7;
        Files.createDirectories(out);
        Map<String, Boolean> expected = expected(shared);
        System.out.printf(Locale.ROOT, "JVM %s, %d cores, load average %.2f; shared histories %s%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                expected.isEmpty() ? "absent (" + shared + "): generated files only" : shared);

        List<Path> etcd = new ArrayList<>();
        List<Boolean> etcdLin = new ArrayList<>();
        if (!expected.isEmpty()) {
            try (Stream<Path> s = Files.list(shared.resolve("jepsen-etcd"))) {
                s.filter(p -> p.toString().endsWith(".log")).sorted().forEach(p -> {
                    etcd.add(p);
                    etcdLin.add(expected.get("jepsen-etcd/" + p.getFileName()));
                });
            }
        }
        int generated = 102 - etcd.size();
        long seed = 1;
        for (int i = 0; i < generated; i++) {
            boolean bad = i % 6 != 0; // 70 of 83 not linearizable, as 16 of the 19 real logs are
            String text = null;
            while (text == null) {
                text = HistoryGenerator.etcdLog(77 + (int) (seed % 11), seed, bad);
                seed++;
            }
            Path p = out.resolve(String.format(Locale.ROOT, "etcd-gen-%03d.log", i));
            Files.writeString(p, text);
            etcd.add(p);
            etcdLin.add(!bad);
        }

        List<Workload> ws = new ArrayList<>();
        ws.add(new Workload("etcd: 102 logs, one invocation", "cas-register", etcd, etcdLin));
        ws.add(null); // the worst single log, chosen below
        if (!expected.isEmpty()) {
            for (String f : new String[] {"c01-ok", "c01-bad"}) {
                ws.add(new Workload("kv " + f + (f.endsWith("ok") ? " (58 ops)" : ""), "kv",
                        List.of(shared.resolve("kv/" + f + ".txt")), List.of(expected.get("kv/" + f + ".txt"))));
            }
        }
        for (int[] shape : new int[][] {{10, 337}, {50, 1712}}) {
            for (boolean bad : new boolean[] {false, true}) {
                String name = "c" + shape[0] + (bad ? "-bad" : "-ok");
                Path p = out.resolve("kv-gen-" + name + ".txt");
                Files.writeString(p, HistoryGenerator.porcupineKv(shape[0], shape[1], shape[0] * 31L + (bad ? 7 : 0), bad));
                ws.add(new Workload("kv " + name + (bad ? "" : String.format(Locale.ROOT, " (%,d ops)", shape[1])),
                        "kv", List.of(p), List.of(!bad)));
            }
        }
        for (int clients : new int[] {50, 100}) {
            Path p = out.resolve("kv-append-" + clients + "c.txt");
            Files.writeString(p, HistoryGenerator.toKvLog(HistoryGenerator.kvAppendsHard(clients, 10, 2024, clients)));
            ws.add(new Workload("hard kv, " + clients + " clients", "kv", List.of(p), List.of(false)));
        }

        // The worst single etcd log: the slowest in process.
        Model<?> cas = Models.create("cas-register");
        Path worst = null;
        double worstMs = -1;
        for (int pass = 0; pass < 3; pass++) {
            for (Path p : etcd) {
                double ms = timeOnce(p, cas);
                if (pass == 2 && ms > worstMs) {
                    worstMs = ms;
                    worst = p;
                }
            }
        }
        ws.set(1, new Workload("etcd: worst single log", "cas-register", List.of(worst),
                List.of(etcdLin.get(etcd.indexOf(worst)))));

        Path launcher = root.resolve("remora");
        boolean cli = Files.isExecutable(launcher);
        if (cli) {
            run(launcher, "check", "--version"); // builds the jar and the class-data archive when needed
        }
        System.out.println();
        System.out.println("| workload | files, ops | verdicts (expected) | Remora in process, median | Remora CLI, whole"
                + " process, median of " + runs + " | peak RSS | Porcupine whole process / in process (measured elsewhere) |");
        System.out.println("|---|---|---|---|---|---|---|");
        boolean allMatch = true;
        for (Workload w : ws) {
            Model<?> m = Models.create(w.model());
            int ops = 0;
            StringBuilder got = new StringBuilder();
            boolean match = true;
            for (int i = 0; i < w.files().size(); i++) {
                var h = HistoryReader.read(w.files().get(i), null);
                ops += h.size();
                CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS);
                boolean lin = r.verdict() == Verdict.LINEARIZABLE;
                match &= r.verdict() != Verdict.UNKNOWN && lin == w.linearizable().get(i);
            }
            long nLin = w.linearizable().stream().filter(b -> b).count();
            got.append(match ? "as expected: " : "MISMATCH: expected ").append(nLin).append(" linearizable, ")
                    .append(w.files().size() - nLin).append(" not");
            allMatch &= match;
            double inProcess = median(inProcess(w.files(), m, CheckOptions.DEFAULTS));
            double oneThread = median(inProcess(w.files(), m, CheckOptions.DEFAULTS.withParallelism(1)));
            String cliMs = "-";
            String rss = "-";
            if (cli) {
                double[] times = new double[runs];
                long peak = 0;
                for (int k = 0; k < runs; k++) {
                    List<String> cmd = new ArrayList<>(List.of("check", "--model", w.model()));
                    w.files().forEach(f -> cmd.add(f.toString()));
                    long[] res = run(launcher, cmd.toArray(new String[0]));
                    times[k] = res[0] / 1e6;
                    peak = Math.max(peak, res[1]);
                    int code = (int) res[2];
                    boolean want = w.linearizable().stream().allMatch(b -> b);
                    if (code != (want ? 0 : 1)) {
                        got.append("; CLI exit code ").append(code);
                        allMatch = false;
                    }
                }
                cliMs = String.format(Locale.ROOT, "%.0f ms", median(times));
                rss = peak > 0 ? String.format(Locale.ROOT, "%.0f MiB", peak / 1024.0) : "-";
            }
            double[] pc = PORCUPINE.get(w.name());
            String name = w.name().equals("etcd: worst single log") ? w.name() + " (" + worst.getFileName() + ")" : w.name();
            System.out.printf(Locale.ROOT, "| %s | %d, %,d | %s | %.2f ms (1 thread: %.2f ms) | %s | %s | %s / %s |%n", name,
                    w.files().size(), ops, got, inProcess, oneThread, cliMs, rss, pc[0] < 0 ? "-" : String.format(Locale.ROOT, "%.0f ms", pc[0]),
                    pc[1] < 0 ? "-" : String.format(Locale.ROOT, "%.0f ms", pc[1]));
        }
        if (cli) {
            // Bare start-up, and every etcd log as a command of its own (one run each): the slowest.
            double[] bare = new double[runs];
            long bareRss = 0;
            for (int k = 0; k < runs; k++) {
                long[] res = run(launcher, "check", "--version");
                bare[k] = res[0] / 1e6;
                bareRss = Math.max(bareRss, res[1]);
            }
            System.out.printf(Locale.ROOT, "| bare start-up: remora check --version | - | - | - | %.0f ms | %.0f MiB | - |%n",
                    median(bare), bareRss / 1024.0);
            double slowest = 0;
            long slowestRss = 0;
            Path slowestFile = null;
            for (Path f : etcd) {
                long[] res = run(launcher, "check", "--model", "cas-register", f.toString());
                slowestRss = Math.max(slowestRss, res[1]);
                if (res[0] / 1e6 > slowest) {
                    slowest = res[0] / 1e6;
                    slowestFile = f;
                }
            }
            System.out.printf(Locale.ROOT, "| etcd: the slowest of the 102 logs run one command each (%s) | 102 commands"
                    + " | - | - | %.0f ms (one run each) | %.0f MiB (largest) | - |%n", slowestFile.getFileName(), slowest,
                    slowestRss / 1024.0);
        }
        System.out.printf(Locale.ROOT, "%nload average %.2f at the end; %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                cli ? "CLI runs: " + launcher + " check --model M FILE..." : "no launcher at " + launcher + ": CLI column skipped");
        if (!allMatch) {
            System.out.println("some verdict is not the expected one");
            System.exit(1);
        }
    }

    /** Reads and checks {@code f} once (explained, as the command line does); returns milliseconds. */
    private static double timeOnce(Path f, Model<?> m) throws Exception {
        long s = System.nanoTime();
        Checker.check(HistoryReader.read(f, null), m, CheckOptions.DEFAULTS);
        return (System.nanoTime() - s) / 1e6;
    }

    /** Warms up for about two seconds, then times 15 passes over the files; milliseconds a pass. */
    private static double[] inProcess(List<Path> files, Model<?> m, CheckOptions opts) throws Exception {
        long until = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < until) {
            for (Path f : files) {
                timeOnce(f, m);
            }
        }
        double[] t = new double[15];
        for (int k = 0; k < t.length; k++) {
            long s = System.nanoTime();
            for (Path f : files) {
                Checker.check(HistoryReader.read(f, null), m, opts);
            }
            t[k] = (System.nanoTime() - s) / 1e6;
        }
        return t;
    }

    /**
     * Runs the launcher (under {@code /usr/bin/time}, which passes the exit code on and writes the
     * peak RSS as the last line of its file); returns {wall ns, peak RSS KiB (0 when unknown), exit code}.
     */
    private static long[] run(Path launcher, String... args) throws IOException, InterruptedException {
        Path time = Paths.get("/usr/bin/time");
        Path rssFile = Files.createTempFile("rss", ".txt");
        List<String> cmd = new ArrayList<>();
        boolean timed = Files.isExecutable(time);
        if (timed) {
            cmd.addAll(List.of(time.toString(), "-o", rssFile.toString(), "-f", "%M"));
        }
        cmd.add(launcher.toString());
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        long s = System.nanoTime();
        int code = pb.start().waitFor();
        long ns = System.nanoTime() - s;
        long rss = 0;
        if (timed) {
            List<String> lines = Files.readAllLines(rssFile, StandardCharsets.UTF_8);
            if (!lines.isEmpty()) {
                String last = lines.get(lines.size() - 1).strip();
                rss = last.matches("[0-9]+") ? Long.parseLong(last) : 0;
            }
        }
        Files.deleteIfExists(rssFile);
        return new long[] {ns, rss, code};
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    /** The expected verdicts of the shared histories, by path relative to their directory; empty when absent. */
    private static Map<String, Boolean> expected(Path shared) throws IOException {
        Map<String, Boolean> m = new LinkedHashMap<>();
        Path tsv = shared.resolve("expected.tsv");
        if (!Files.isRegularFile(tsv)) {
            return m;
        }
        for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (f.length >= 5 && !f[0].equals("file")) {
                m.put(f[0], Boolean.parseBoolean(f[4]));
            }
        }
        return m;
    }
}
