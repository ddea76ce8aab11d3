package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * What {@link LockSpecsTlcTest} and {@link ObjectSpecsTlcTest} share: a folder of hand-written TLA+ specs, one
 * sub-folder per lock or object, each holding {@code MC*.cfg} models, run by TLC (one worker each, several at once)
 * and checked against an expected result and the distinct-state count recorded in the folder's
 * {@code manifest.json}.
 *
 * <p>Models whose name ends in {@code Full} run only with {@code -Dremora.spec.full=true} (profile
 * {@code spec-full}). {@code -Dremora.spec.updateManifest=true} rewrites the manifest from this run (expected results
 * are still checked, and nothing is written unless every model gave its expected result). Each model runs in its own
 * directory under {@code target/<out>/}, with the shared modules (every {@code .tla} of the given shared folders)
 * copied next to it.
 *
 * <p>Models with no temporal property (no {@code PROPERTY} in the {@code .cfg}) run in {@link TlcWorkerPool}'s warm
 * TLC JVMs, the others each in a JVM of its own ({@link TlcRunner}): the liveness checker keeps state between runs
 * that the worker does not put back. A warm run whose verdict or state count disagrees with the expectation or the
 * manifest is run again in a JVM of its own, which decides (a warm JVM may explore in another order, and stop at
 * another violation or after another number of states). {@code remora.spec.updateManifest=true} and
 * {@code remora.spec.tlcWorker=false} use no worker.
 */
final class SpecModelSuite {

    static final boolean UPDATE = Boolean.getBoolean("remora.spec.updateManifest");
    static final boolean FULL = Boolean.getBoolean("remora.spec.full");
    /** false: every model in a TLC JVM of its own, as the manifest is written. */
    private static final boolean WORKER = !UPDATE && !"false".equals(System.getProperty("remora.spec.tlcWorker"));
    private static final Pattern TEMPORAL = Pattern.compile("^\\s*PROPERT(?:Y|IES)\\b", Pattern.MULTILINE);
    private static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("remora.spec.tlcTimeoutSec", 120));
    private static final int PARALLELISM = Integer.getInteger("remora.spec.tlcParallelism", 2);

    private static final Pattern INVARIANT = Pattern.compile("Error: (?:Invariant|Action property) (\\w+) is violated");
    private static final Pattern STATES = Pattern.compile("(\\d+) states generated, (\\d+) distinct states found");

    private final String kind;
    private final Path root;
    private final List<Path> shared;
    private final Path out;
    private final Path manifestFile;
    private final String regenerate;
    private final Function<Path, String> expectation;
    private final Map<String, Entry> results = new TreeMap<>();
    private final List<String> table = new ArrayList<>();
    private final List<String> run = new ArrayList<>();
    private ExecutorService executor;
    private TlcProgress progress;
    private TlcWorkerPool pool;
    private boolean allAsExpected = true;

    /**
     * A suite.
     *
     * @param kind        the manifest field naming a model's folder ({@code lock}, {@code object}), also the results
     *                    table's first column
     * @param root        the specs' folder ({@code locks}, {@code objects}), relative to the module
     * @param shared      folders whose {@code .tla} files are copied next to every model
     * @param out         the work directory ({@code target/tlc-locks})
     * @param regenerate  the command that regenerates the manifest, for its comment
     * @param expectation a model's expected result from its {@code .cfg}: {@code holds}, {@code violated:<property>}
     *                    or {@code violated:temporal}; it may throw {@link AssertionError} to fail the suite
     */
    SpecModelSuite(final String kind, final Path root, final List<Path> shared, final Path out,
                   final String regenerate, final Function<Path, String> expectation) {
        this.kind = kind;
        this.root = root;
        this.shared = shared;
        this.out = out;
        this.manifestFile = root.resolve("manifest.json");
        this.regenerate = regenerate;
        this.expectation = expectation;
    }

    /** @return the models started by {@link #tests} (those that ran or are running) */
    List<String> modelsRun() {
        return run;
    }

    /**
     * Starts TLC on every model (its {@code Full} ones only with {@code remora.spec.full}) and returns one test per
     * model, and one that the manifest lists no model that does not exist.
     *
     * @param minModels the least number of models the folder must hold
     * @return the tests
     * @throws IOException if a model cannot be copied
     */
    List<DynamicTest> tests(final int minModels) throws IOException {
        final Map<String, Entry> manifest = readManifest();
        final TlcRunner runner = new TlcRunner(TlcRunner.locateTlatools(), TIMEOUT);
        final List<Path> configs;
        try (Stream<Path> walk = Files.walk(root, 2)) {
            configs = walk.filter(p -> p.getFileName().toString().matches("MC\\w+\\.cfg")).sorted().toList();
        }
        assertTrue(configs.size() >= minModels,
            "expected at least " + minModels + " models under " + root + ", found " + configs.size());
        // Every expectation is read before TLC starts, so that a cfg without one fails at once.
        final Map<Path, String> expected = new LinkedHashMap<>();
        for (final Path cfg : configs) {
            expected.put(cfg, expectation.apply(cfg));
        }
        executor = Executors.newFixedThreadPool(PARALLELISM);
        progress = new TlcProgress(kind + " models");
        pool = WORKER ? new TlcWorkerPool(TlcRunner.locateTlatools(), TIMEOUT, PARALLELISM, out) : null;
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Path cfg : configs) {
            final String module = cfg.getFileName().toString().replace(".cfg", "");
            if (module.endsWith("Full") && !FULL) {
                continue;
            }
            run.add(module);
            final Path dir = prepare(cfg.getParent(), module);
            final boolean warm = pool != null
                && !TEMPORAL.matcher(Files.readString(cfg, StandardCharsets.UTF_8)).find();
            progress.planned();
            final Future<TlcRunner.Result> result = executor.submit(() -> {
                try {
                    return warm ? pool.check(dir, module) : runner.check(dir, module);
                } finally {
                    progress.done();
                }
            });
            final String folder = cfg.getParent().getFileName().toString();
            final String want = expected.get(cfg);
            tests.add(DynamicTest.dynamicTest(module, () -> check(folder, module, want, dir, result, manifest,
                warm ? runner : null)));
        }
        executor.shutdown();
        if (!UPDATE && !FULL) {
            tests.add(DynamicTest.dynamicTest("manifest lists only models that exist", () -> {
                final List<String> stale = manifest.keySet().stream()
                    .filter(m -> !run.contains(m) && !m.endsWith("Full")).toList();
                assertTrue(stale.isEmpty(), "spec/" + manifestFile + " lists models that do not exist: " + stale
                    + "; rerun with -Dremora.spec.updateManifest=true");
            }));
        }
        return tests;
    }

    private Path prepare(final Path folder, final String module) throws IOException {
        final Path dir = Files.createDirectories(out.resolve(module));
        for (final Path sharedFolder : shared) {
            try (Stream<Path> files = Files.list(sharedFolder)) {
                for (final Path f : files.filter(p -> p.toString().endsWith(".tla")).toList()) {
                    Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        try (Stream<Path> files = Files.list(folder)) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".tla") || p.toString().endsWith(".cfg"))
                .toList()) {
                Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    /** @param cold the runner that decides when a warm run disagrees, or null when the run was not warm */
    private void check(final String folder, final String module, final String expected, final Path dir,
                       final Future<TlcRunner.Result> future, final Map<String, Entry> manifest, final TlcRunner cold)
        throws InterruptedException, ExecutionException, IOException {
        TlcRunner.Result result = future.get();
        TlcRunner.deleteTree(dir.resolve("states"));
        TlcRunner.deleteTree(dir.resolve("tmp"));
        String text = Files.readString(result.output(), StandardCharsets.UTF_8);
        String actual = verdict(text);
        long distinct = distinct(text);
        final Entry recordedEntry = manifest.get(module);
        if (cold != null && result.outcome() != TlcRunner.Outcome.TIMEOUT && (!expected.equals(actual)
            || !UPDATE && recordedEntry != null && recordedEntry.distinctStates() != distinct)) {
            // A warm JVM's run disagrees: a run in a JVM of its own, as the manifest's were made, decides.
            final String warmVerdict = actual;
            final long warmDistinct = distinct;
            result = cold.check(dir, module);
            TlcRunner.deleteTree(dir.resolve("states"));
            TlcRunner.deleteTree(dir.resolve("tmp"));
            text = Files.readString(result.output(), StandardCharsets.UTF_8);
            actual = verdict(text);
            distinct = distinct(text);
            // Only a different verdict is news: a violated model's count is where TLC stopped at its first
            // violation, which depends on the order it explores successors, and a warm JVM's order can differ.
            if (!warmVerdict.equals(actual)) {
                System.out.println(module + ": TLC in a warm JVM gave " + warmVerdict + " with " + warmDistinct
                    + " distinct states, in a JVM of its own " + actual + " with " + distinct);
            }
        }
        final TlcRunner.Result decided = result;
        final String verdictDecided = actual;
        final long distinctDecided = distinct;
        final double seconds = decided.elapsed().toMillis() / 1000.0;
        synchronized (results) {
            results.put(module, new Entry(module, folder, expected, verdictDecided, distinctDecided));
            table.add(String.format("| %s | %s | %s | %s | %d | %.1f s |", folder, module, expected, verdictDecided,
                distinctDecided, seconds));
            if (!expected.equals(verdictDecided)) {
                allAsExpected = false;
            }
        }
        if (decided.outcome() == TlcRunner.Outcome.TIMEOUT) {
            fail(module + ": TLC timed out after " + TIMEOUT + " (see " + decided.output() + ")");
        }
        assertEquals(expected, verdictDecided, () -> module + ": TLC " + decided.summary() + " (see "
            + decided.output() + ")");
        if (!UPDATE) {
            final Entry recorded = manifest.get(module);
            if (recorded == null) {
                fail(module + " is not in spec/" + manifestFile + "; rerun with -Dremora.spec.updateManifest=true");
            }
            assertEquals(recorded.distinctStates(), distinctDecided, () -> module + ": distinct-state count changed "
                + "from spec/" + manifestFile + "; if intended, rerun with -Dremora.spec.updateManifest=true");
        }
    }

    /**
     * Classifies TLC's output: {@code holds}, {@code violated:<property>}, {@code violated:temporal}, or
     * {@code error:<first error line>} (a parse error, a deadlock, a type error in an unexpected place).
     *
     * @param text TLC's output
     * @return the verdict
     */
    static String verdict(final String text) {
        final Matcher m = INVARIANT.matcher(text);
        if (m.find()) {
            return "violated:" + m.group(1);
        }
        if (text.contains("Error: Temporal properties were violated.")) {
            return "violated:temporal";
        }
        final String firstError = text.lines().filter(l -> l.startsWith("Error:")).findFirst().orElse("");
        if (firstError.isEmpty() && text.contains("Model checking completed. No error has been found.")) {
            return "holds";
        }
        return "error:" + (firstError.isEmpty() ? "no verdict" : firstError);
    }

    private static long distinct(final String text) {
        long last = -1;
        final Matcher m = STATES.matcher(text);
        while (m.find()) {
            last = Long.parseLong(m.group(2));
        }
        return last;
    }

    /**
     * Stops the runs still going, writes {@code results.md} (a table of this run) and, with
     * {@code remora.spec.updateManifest} and every model as expected, merges this run into the manifest.
     *
     * @throws IOException if a file cannot be written
     * @throws InterruptedException if interrupted while waiting for TLC
     */
    void finish() throws IOException, InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            executor.awaitTermination(1, TimeUnit.MINUTES);
        }
        if (progress != null) {
            progress.close();
        }
        if (pool != null) {
            pool.close();
        }
        final List<String> rows = new ArrayList<>(table);
        rows.sort(null);
        rows.add(0, "| " + kind + " | model | expected | TLC | distinct states | time |");
        rows.add(1, "|---|---|---|---|---|---|");
        Files.createDirectories(out);
        Files.write(out.resolve("results.md"), rows, StandardCharsets.UTF_8);
        if (UPDATE && allAsExpected) {
            final Map<String, Entry> merged = new TreeMap<>(readManifest());
            merged.putAll(results);
            writeManifest(merged);
        }
    }

    /**
     * One model of the manifest.
     *
     * @param module         the MC module
     * @param folder         its folder under the specs' folder
     * @param expected       {@code holds} or {@code violated:<property>}
     * @param result         TLC's verdict
     * @param distinctStates distinct states found by TLC
     */
    record Entry(String module, String folder, String expected, String result, long distinctStates) {
    }

    Map<String, Entry> readManifest() throws IOException {
        final Map<String, Entry> entries = new LinkedHashMap<>();
        ModelManifest.read(manifestFile).forEach((module, f) -> entries.put(module, new Entry(module, f.get(kind),
            f.get("expected"), f.get("result"), ModelManifest.distinctStates(f))));
        return entries;
    }

    private void writeManifest(final Map<String, Entry> entries) throws IOException {
        final List<Map<String, Object>> models = new ArrayList<>();
        for (final Entry e : entries.values()) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("module", e.module());
            m.put(kind, e.folder());
            m.put("expected", e.expected());
            m.put("result", e.result());
            m.put("distinctStates", e.distinctStates());
            models.add(m);
        }
        ModelManifest.write(manifestFile, "TLC results of spec/" + root + "/*/MC*.cfg; regenerate with " + regenerate,
            models);
    }
}
