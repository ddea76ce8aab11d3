package dev.remora.bench.check;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.Model;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

/**
 * The hard key-value shape of {@link HistoryGenerator#kvAppendsHard}: 2,024 operations (4,048
 * events) of 50 and of 100 clients over 10 keys, not linearizable. Writes each history in
 * Porcupine's key-value log format (for {@code remora check --model kv FILE}) and checks it in
 * process with 1, 2 and 4 threads, printing verdict, wall time, states and peak heap. Usage:
 * {@code HardKvBench OUT_DIR [TIME_LIMIT_SECONDS]}.
 */
public final class HardKvBench {
    private HardKvBench() {
    }

    /**
     * Entry point.
     *
     * @param args the directory to write the histories to, and optionally a time limit
     * @throws Exception on unexpected errors
     */
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args.length > 0 ? args[0] : ".");
        double limit = args.length > 1 ? Double.parseDouble(args[1]) : 120;
        Files.createDirectories(dir);
        Model<?> kv = Models.create("kv", null, false);
        for (int clients : new int[] {50, 100}) {
            Path file = dir.resolve("kv-append-" + clients + "c.txt");
            Files.writeString(file, HistoryGenerator.toKvLog(HistoryGenerator.kvAppendsHard(clients, 10, 2024, clients)));
            History h = HistoryReader.read(file, null);
            Checker.validate(h, kv);
            for (int threads : new int[] {1, 2, 4}) {
                System.gc();
                List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
                        .filter(p -> p.getType() == MemoryType.HEAP).toList();
                pools.forEach(MemoryPoolMXBean::resetPeakUsage);
                long s = System.nanoTime();
                CheckResult r = Checker.check(h, kv, CheckOptions.DEFAULTS.withParallelism(threads)
                        .withTimeLimitSeconds(limit));
                double ms = (System.nanoTime() - s) / 1e6;
                long peak = pools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
                System.out.printf(Locale.ROOT, "%s: %d ops, %d threads: %s%s in %.0f ms, %d states, peak heap %d MiB%n",
                        file.getFileName(), h.size(), threads, r.verdict().cliName(),
                        r.cause() == null ? "" : " (" + r.cause() + ")", ms, r.statesExplored(), peak >> 20);
            }
        }
    }
}
