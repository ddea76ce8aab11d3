package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs TLC on every litmus file under every knob setting that matters for it, and checks:
 * <ul>
 *   <li>an {@code allowed} outcome is reachable: TLC reports {@code FinalNeverReached} violated;</li>
 *   <li>a {@code forbidden} outcome is not: TLC completes with no error (no deadlock either, so
 *       every execution reaches quiescence and the invariant is not vacuous);</li>
 *   <li>the distinct-state count equals the one recorded in {@code spec/manifest.json}.</li>
 * </ul>
 *
 * <p>System properties: {@code remora.spec.updateManifest=true} rewrites the manifest from this
 * run instead of comparing counts (verdicts are still checked); {@code remora.spec.full=true}
 * (profile {@code spec-full}) checks every file under all {@link KnobSettings#all()} settings
 * (state counts are compared only for models in the manifest); {@code remora.spec.tlcTimeoutSec}
 * bounds each TLC run; {@code remora.spec.tlcParallelism} (default 2) is the number of TLC JVMs
 * at once.
 *
 * <p>The models run in {@link TlcWorkerPool}'s warm TLC JVMs, one after another, which takes a fraction of the CPU
 * time of a JVM per model. A warm run whose verdict or state count disagrees with the expectation is run again in a
 * JVM of its own ({@link TlcRunner}), and that run decides: a warm JVM may explore in another order and stop at a
 * violation after another number of states (see {@link TlcWorker}). The manifest is always written from runs in JVMs
 * of their own ({@code remora.spec.updateManifest=true} uses no worker), and {@code remora.spec.tlcWorker=false} runs
 * every model that way.
 */
class LitmusTlcConformanceTest {

    private static final Path LITMUS = Path.of("litmus");
    private static final Path MANIFEST = Path.of("manifest.json");
    private static final Path OUT = Path.of("target", "tlc");

    private static final boolean UPDATE = Boolean.getBoolean("remora.spec.updateManifest");
    private static final boolean FULL = Boolean.getBoolean("remora.spec.full");
    private static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("remora.spec.tlcTimeoutSec", 120));
    private static final int PARALLELISM = Integer.getInteger("remora.spec.tlcParallelism", 2);
    /** A glob over litmus file names, e.g. {@code E*.litmus}: run only those (for working on a few files). */
    private static final String ONLY = System.getProperty("remora.spec.litmus", "");

    /** false: every model in a TLC JVM of its own, as the manifest is written. */
    private static final boolean WORKER = !UPDATE && !"false".equals(System.getProperty("remora.spec.tlcWorker"));

    private static ExecutorService executor;
    private static TlcWorkerPool pool;
    private static TlcProgress progress;
    private static final Map<String, ManifestEntry> RESULTS = new TreeMap<>();
    private static final List<String> TABLE = new ArrayList<>();
    private static boolean allRan = true;

    @TestFactory
    Stream<DynamicTest> shouldAgreeWithTlcOnEveryLitmusFileAndSetting() throws IOException {
        final Map<String, ManifestEntry> manifest = readManifest();
        final LitmusParser parser = new LitmusParser();
        final TlaGenerator generator = new TlaGenerator();
        final TlcRunner runner = new TlcRunner(TlcRunner.locateTlatools(), TIMEOUT);
        final List<Path> files;
        final java.nio.file.PathMatcher only = FileSystemsHolder.matcher(ONLY);
        try (Stream<Path> list = Files.list(LITMUS)) {
            files = list.filter(p -> p.toString().endsWith(".litmus") && only.matches(p.getFileName())).sorted()
                .toList();
        }
        if (ONLY.isEmpty()) {
            assertTrue(files.size() >= 30, "expected at least 30 litmus files, found " + files.size());
        } else {
            assertTrue(!files.isEmpty(), "no litmus file matches -Dremora.spec.litmus=" + ONLY);
        }
        executor = Executors.newFixedThreadPool(PARALLELISM);
        pool = WORKER ? new TlcWorkerPool(TlcRunner.locateTlatools(), TIMEOUT, PARALLELISM, OUT) : null;
        progress = new TlcProgress("litmus models");
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Path file : files) {
            final LitmusTest test = parser.parse(file);
            final List<KnobSettings> settings = FULL ? KnobSettings.all() : test.relevantSettings();
            for (final KnobSettings setting : settings) {
                final String module = generator.write(test, setting, OUT);
                progress.planned();
                final Future<TlcRunner.Result> result = executor.submit(() -> {
                    try {
                        return pool != null ? pool.check(OUT, module) : runner.check(OUT, module);
                    } finally {
                        progress.done();
                    }
                });
                tests.add(DynamicTest.dynamicTest(module, () -> check(test, setting, module, result, manifest,
                    runner)));
            }
        }
        executor.shutdown();
        if (!FULL && !UPDATE && ONLY.isEmpty()) {
            final List<String> generated = tests.stream().map(DynamicTest::getDisplayName).toList();
            tests.add(DynamicTest.dynamicTest("manifest lists only models that are generated", () -> {
                final List<String> stale = manifest.keySet().stream().filter(m -> !generated.contains(m)).toList();
                assertTrue(stale.isEmpty(), "spec/manifest.json lists models no litmus file generates: " + stale
                    + "; rerun with -Dremora.spec.updateManifest=true");
            }));
        }
        return tests.stream();
    }

    private static void check(final LitmusTest test, final KnobSettings setting, final String module,
                              final Future<TlcRunner.Result> future, final Map<String, ManifestEntry> manifest,
                              final TlcRunner runner)
        throws InterruptedException, ExecutionException, IOException {
        final TlcRunner.Result first = future.get();
        TlcRunner.deleteTree(OUT.resolve("states").resolve(module));
        TlcRunner.deleteTree(OUT.resolve("tmp").resolve(module));
        final Verdict expected = test.expected(setting);
        final TlcRunner.Outcome wanted = expected == Verdict.ALLOWED
            ? TlcRunner.Outcome.VIOLATED : TlcRunner.Outcome.HOLDS;
        final boolean inManifestScope = !FULL || test.relevantSettings().contains(setting);
        final ManifestEntry recordedEntry = manifest.get(module);
        final boolean countDiffers = !UPDATE && inManifestScope && recordedEntry != null
            && recordedEntry.distinctStates() != first.distinctStates();
        final TlcRunner.Result result;
        if (pool != null && (first.outcome() != wanted || countDiffers)) {
            // A warm JVM's run disagrees: a run in a JVM of its own, as the manifest's were made, decides.
            result = runner.check(OUT, module);
            TlcRunner.deleteTree(OUT.resolve("states").resolve(module));
            TlcRunner.deleteTree(OUT.resolve("tmp").resolve(module));
            // Only a different verdict is news: a violated model's count is where TLC stopped at its first
            // violation, which depends on the order it explores successors, and a warm JVM's order can differ.
            if (first.outcome() != result.outcome()) {
                System.out.println(module + ": TLC in a warm JVM gave " + first.outcome() + " with "
                    + first.distinctStates() + " distinct states, in a JVM of its own " + result.outcome() + " with "
                    + result.distinctStates());
            }
        } else {
            result = first;
        }
        final ManifestEntry entry = new ManifestEntry(module, test.source().replace('\\', '/'), setting.label(),
            expected.name().toLowerCase(java.util.Locale.ROOT),
            result.outcome().name().toLowerCase(java.util.Locale.ROOT), result.distinctStates());
        synchronized (RESULTS) {
            if (inManifestScope) {
                RESULTS.put(module, entry);
            }
            TABLE.add(String.format("| %s | %s | %s | %s | %d | %.1f s |", test.id(), setting.label(),
                entry.expected(), entry.result(), result.distinctStates(), result.elapsed().toMillis() / 1000.0));
            if (result.outcome() != wanted) {
                allRan = false;
            }
        }
        if (result.outcome() == TlcRunner.Outcome.ERROR || result.outcome() == TlcRunner.Outcome.TIMEOUT) {
            fail(module + ": TLC " + result.outcome() + ": " + result.summary() + " (see " + result.output() + ")");
        }
        assertEquals(wanted, result.outcome(), () -> module + ": " + test.source() + " expects the outcome "
            + expected + " under " + setting.label() + ", but TLC says the invariant " + result.outcome()
            + (result.outcome() == TlcRunner.Outcome.VIOLATED ? " (witness in " + result.output() + ")" : ""));
        if (!UPDATE && inManifestScope) {
            final ManifestEntry recorded = manifest.get(module);
            if (recorded == null) {
                fail(module + " is not in spec/manifest.json; rerun with -Dremora.spec.updateManifest=true");
            }
            assertEquals(recorded.distinctStates(), result.distinctStates(), () -> module
                + ": distinct-state count changed from the manifest; if intended, rerun with "
                + "-Dremora.spec.updateManifest=true and commit spec/manifest.json");
        }
    }

    @AfterAll
    static void writeReportAndManifest() throws IOException, InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            executor.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        }
        if (pool != null) {
            pool.close();
        }
        if (progress != null) {
            progress.close();
        }
        final List<String> rows = new ArrayList<>(TABLE);
        rows.sort(null);
        rows.add(0, "| test | setting | expected | TLC | distinct states | time |");
        rows.add(1, "|---|---|---|---|---|---|");
        Files.createDirectories(OUT);
        Files.write(OUT.resolve("results.md"), rows, StandardCharsets.UTF_8);
        if (UPDATE && allRan && !FULL && ONLY.isEmpty()) {
            writeManifest(RESULTS);
        } else if (UPDATE && allRan) {
            final Map<String, ManifestEntry> merged = new TreeMap<>(readManifest());
            merged.putAll(RESULTS);
            writeManifest(merged);
        }
    }

    /** Compiles the file-name glob of {@code remora.spec.litmus} (empty: every file). */
    static final class FileSystemsHolder {
        private FileSystemsHolder() {
        }

        static java.nio.file.PathMatcher matcher(final String glob) {
            return glob.isEmpty() ? p -> true : java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + glob);
        }
    }

    /**
     * One line of the manifest.
     *
     * @param module         generated module
     * @param litmus         litmus file
     * @param settings       knob setting label
     * @param expected       allowed or forbidden
     * @param result         TLC outcome
     * @param distinctStates distinct states found by TLC
     */
    record ManifestEntry(String module, String litmus, String settings, String expected, String result,
                         long distinctStates) {
    }

    private static Map<String, ManifestEntry> readManifest() throws IOException {
        final Map<String, ManifestEntry> out = new LinkedHashMap<>();
        ModelManifest.read(MANIFEST).forEach((module, f) -> out.put(module, new ManifestEntry(module, f.get("litmus"),
            f.get("settings"), f.get("expected"), f.get("result"), ModelManifest.distinctStates(f))));
        return out;
    }

    private static void writeManifest(final Map<String, ManifestEntry> entries) throws IOException {
        final List<Map<String, Object>> models = new ArrayList<>();
        for (final ManifestEntry e : entries.values()) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("module", e.module());
            m.put("litmus", e.litmus());
            m.put("settings", e.settings());
            m.put("expected", e.expected());
            m.put("result", e.result());
            m.put("distinctStates", e.distinctStates());
            models.add(m);
        }
        ModelManifest.write(MANIFEST, "TLC results of spec/litmus/*.litmus; regenerate with "
            + "mvn -B -pl spec verify -Dremora.spec.updateManifest=true", models);
    }
}
