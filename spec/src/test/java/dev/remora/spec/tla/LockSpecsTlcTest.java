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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs TLC on every lock model under {@code spec/locks/<Lock>/MC*.cfg} and checks that the safe models hold every
 * invariant and property, that each {@code *Unsafe} (and other expected-failure) model fails with the expected
 * violated property, and that the distinct-state counts equal those recorded in {@code spec/locks/manifest.json}.
 *
 * <p>Models whose name ends in {@code Full} run only with {@code -Dremora.spec.full=true} (profile
 * {@code spec-full}). {@code -Dremora.spec.updateManifest=true} rewrites the manifest from this run (expected results
 * are still checked). Each model runs in its own directory under {@code target/tlc-locks/}, with
 * {@code locks/BlockingVerbs.tla} copied next to it.
 */
class LockSpecsTlcTest {

    private static final Path LOCKS = Path.of("locks");
    private static final Path MANIFEST = LOCKS.resolve("manifest.json");
    private static final Path OUT = Path.of("target", "tlc-locks");

    private static final boolean UPDATE = Boolean.getBoolean("remora.spec.updateManifest");
    private static final boolean FULL = Boolean.getBoolean("remora.spec.full");
    private static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("remora.spec.tlcTimeoutSec", 120));
    private static final int PARALLELISM = Integer.getInteger("remora.spec.tlcParallelism", 2);

    /** Models expected to fail, with the property TLC must report ("temporal" for a liveness property). */
    private static final Map<String, String> EXPECTED_VIOLATIONS = Map.ofEntries(
        Map.entry("MCCasSpinLockUnsafe", "MutualExclusion"),
        Map.entry("MCCasSpinLockWeak", "Publication"),
        // The current CasSpinLock under faults: a WRITE on a replaced QP lands after the release; a retired CAS that
        // lands leaves the word set with nobody holding it; the fix as first designed takes its own id for the lock.
        Map.entry("MCCasSpinLockReplacedQp", "Publication"),
        Map.entry("MCCasSpinLockOrphan", "temporal"),
        Map.entry("MCCasSpinLockOwnRelease", "MutualExclusion"),
        Map.entry("MCTicketLockUnsafe", "Publication"),
        Map.entry("MCTicketLockSkip", "FifoOrder"),
        // TicketLock under faults: a ticket the current lock() gave up, and (fixed) a ticket of a FETCH_ADD with an
        // unknown outcome, stall the lock.
        Map.entry("MCTicketLockDropped", "temporal"),
        Map.entry("MCTicketLockStall", "temporal"),
        Map.entry("MCMcsLockUnsafe", "Publication"),
        Map.entry("MCMcsLockDoorway", "temporal"),
        // McsLock under faults, the reviewed code: an unlock() that spins for ever on a crashed waiter's link, a
        // release that let go before the flush, a forgotten timed-out tail CAS (the retry links behind itself), a
        // slot never written again after its QP broke.
        Map.entry("MCMcsLockUnboundedUnlock", "UnlockCanEnd"),
        Map.entry("MCMcsLockUnboundedUnlockFull", "temporal"),
        Map.entry("MCMcsLockReleaseFirst", "LockNotLost"),
        Map.entry("MCMcsLockSelfLink", "NoSelfLink"),
        Map.entry("MCMcsLockSlotNeverFull", "SlotsPlaced"),
        // McsLock under faults, the code before the fix (twins: the fix's knob off): the slot check missed a QP that
        // broke after the slot WRITE; a timed-out release CAS was settled by the next lock() as its own; a release CAS
        // or handover with an unknown outcome left a handle that "still held" a lock it may have passed on, and one
        // posted again after a timeout (handover, link) landed in a later tenure.
        Map.entry("MCMcsLockSlotEpoch", "SlotsPlaced"),
        Map.entry("MCMcsLockRelCasTimeout", "NoSelfLink"),
        Map.entry("MCMcsLockReleaseError", "HeldExclusive"),
        Map.entry("MCMcsLockHandoverTimeoutFull", "MutualExclusion"),
        Map.entry("MCMcsLockLinkTimeoutFull", "LockNotLost"),
        // McsLock under faults, the fixed code: after a release verb's timeout the handle says it holds the lock until
        // the next unlock() settles the late verb, which may have passed it on already.
        Map.entry("MCMcsLockReleaseTimeoutFull", "HeldExclusive"),
        Map.entry("MCLeaseLockUnsafe", "LeaseSafety"),
        Map.entry("MCReadWriteLockUnsafe", "Exclusion"),
        // RemoteReadWriteLock under faults: before the fix a timed-out announcement was taken as not made and made
        // again (a leaked waiting count blocks readers); the current handle forgets a timed-out acquiring CAS (it
        // lands, and the writer bit stays set with nobody holding it).
        Map.entry("MCReadWriteLockLeak", "temporal"),
        Map.entry("MCReadWriteLockForgotten", "temporal"),
        // LeaseLock under faults: an acquisition with an unknown outcome resolved by reading the word takes another
        // client's acquisition for its own (the same word, the same token).
        Map.entry("MCLeaseLockResolveByRead", "UniqueTokens"));

    /** The lease lock's timing twins, one per hazard (kept apart: {@code Map.of} takes at most ten entries). */
    private static final Map<String, String> LEASE_LOCK_VIOLATIONS = Map.of(
        "MCLeaseLockWaitAfterRead", "MutualExclusionWhileLeasesHold",
        "MCLeaseLockMarginZero", "MutualExclusionWhileLeasesHold",
        "MCLeaseLockRenewBlind", "RenewalDetectsTakeover",
        "MCLeaseLockPerHandleLease", "MutualExclusionWhileLeasesHold");

    private static final Pattern INVARIANT = Pattern.compile("Error: (?:Invariant|Action property) (\\w+) is violated");
    private static final Pattern STATES = Pattern.compile("(\\d+) states generated, (\\d+) distinct states found");

    private static ExecutorService executor;
    private static final Map<String, Entry> RESULTS = new TreeMap<>();
    private static final List<String> TABLE = new ArrayList<>();
    private static boolean allAsExpected = true;

    @TestFactory
    Stream<DynamicTest> shouldHoldOrFailAsExpectedForEveryLockModel() throws IOException {
        final Map<String, Entry> manifest = readManifest(MANIFEST);
        final TlcRunner runner = new TlcRunner(TlcRunner.locateTlatools(), TIMEOUT);
        final List<Path> configs;
        try (Stream<Path> walk = Files.walk(LOCKS, 2)) {
            configs = walk.filter(p -> p.getFileName().toString().matches("MC\\w+\\.cfg")).sorted().toList();
        }
        assertTrue(configs.size() >= 10, "expected at least 10 lock models, found " + configs.size());
        executor = Executors.newFixedThreadPool(PARALLELISM);
        final List<DynamicTest> tests = new ArrayList<>();
        final List<String> run = new ArrayList<>();
        for (final Path cfg : configs) {
            final String module = cfg.getFileName().toString().replace(".cfg", "");
            if (module.endsWith("Full") && !FULL) {
                continue;
            }
            run.add(module);
            final Path dir = prepare(cfg.getParent(), module);
            final Future<TlcRunner.Result> result = executor.submit(() -> runner.check(dir, module));
            final String folder = cfg.getParent().getFileName().toString();
            tests.add(DynamicTest.dynamicTest(module, () -> check(folder, module, dir, result, manifest)));
        }
        executor.shutdown();
        final List<String> expectedHere = EXPECTED_VIOLATIONS.keySet().stream()
            .filter(m -> FULL || !m.endsWith("Full")).toList();
        assertTrue(run.containsAll(expectedHere) && run.containsAll(LEASE_LOCK_VIOLATIONS.keySet()),
            "an expected-failure model is missing: " + EXPECTED_VIOLATIONS.keySet() + LEASE_LOCK_VIOLATIONS.keySet()
                + " vs " + run);
        if (!UPDATE && !FULL) {
            tests.add(DynamicTest.dynamicTest("manifest lists only models that exist", () -> {
                final List<String> stale = manifest.keySet().stream()
                    .filter(m -> !run.contains(m) && !m.endsWith("Full")).toList();
                assertTrue(stale.isEmpty(), "spec/locks/manifest.json lists models that do not exist: " + stale
                    + "; rerun with -Dremora.spec.updateManifest=true");
            }));
        }
        return tests.stream();
    }

    private static Path prepare(final Path folder, final String module) throws IOException {
        final Path dir = Files.createDirectories(OUT.resolve(module));
        // The shared layers (BlockingVerbs.tla and the failure model on top of it) sit one level up.
        try (Stream<Path> shared = Files.list(LOCKS)) {
            for (final Path f : shared.filter(p -> p.toString().endsWith(".tla")).toList()) {
                Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
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

    private static void check(final String folder, final String module, final Path dir,
                              final Future<TlcRunner.Result> future, final Map<String, Entry> manifest)
        throws InterruptedException, ExecutionException, IOException {
        final TlcRunner.Result result = future.get();
        TlcRunner.deleteTree(dir.resolve("states"));
        TlcRunner.deleteTree(dir.resolve("tmp"));
        final String text = Files.readString(result.output(), StandardCharsets.UTF_8);
        final String actual = verdict(text);
        final String violated = EXPECTED_VIOLATIONS.getOrDefault(module, LEASE_LOCK_VIOLATIONS.get(module));
        final String expected = violated != null ? "violated:" + violated : "holds";
        final long distinct = distinct(text);
        final double seconds = result.elapsed().toMillis() / 1000.0;
        synchronized (RESULTS) {
            RESULTS.put(module, new Entry(module, folder, expected, actual, distinct));
            TABLE.add(String.format("| %s | %s | %s | %s | %d | %.1f s |", folder, module, expected, actual,
                distinct, seconds));
            if (!expected.equals(actual)) {
                allAsExpected = false;
            }
        }
        if (result.outcome() == TlcRunner.Outcome.TIMEOUT) {
            fail(module + ": TLC timed out after " + TIMEOUT + " (see " + result.output() + ")");
        }
        assertEquals(expected, actual, () -> module + ": TLC " + result.summary() + " (see " + result.output() + ")");
        if (!UPDATE) {
            final Entry recorded = manifest.get(module);
            if (recorded == null) {
                fail(module + " is not in spec/locks/manifest.json; rerun with -Dremora.spec.updateManifest=true");
            }
            assertEquals(recorded.distinctStates(), distinct, () -> module + ": distinct-state count changed from "
                + "spec/locks/manifest.json; if intended, rerun with -Dremora.spec.updateManifest=true");
        }
    }

    /**
     * Classifies TLC's output: {@code holds}, {@code violated:<property>}, {@code violated:temporal}, or
     * {@code error:<first error line>} (a parse error, a deadlock, a type error in an unexpected place).
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

    @AfterAll
    static void writeReportAndManifest() throws IOException, InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            executor.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        }
        final List<String> rows = new ArrayList<>(TABLE);
        rows.sort(null);
        rows.add(0, "| lock | model | expected | TLC | distinct states | time |");
        rows.add(1, "|---|---|---|---|---|---|");
        Files.createDirectories(OUT);
        Files.write(OUT.resolve("results.md"), rows, StandardCharsets.UTF_8);
        if (UPDATE && allAsExpected) {
            final Map<String, Entry> merged = new TreeMap<>(readManifest(MANIFEST));
            merged.putAll(RESULTS);
            writeManifest(MANIFEST, merged);
        }
    }

    /**
     * One model of the manifest.
     *
     * @param module         the MC module
     * @param lock           its folder under spec/locks
     * @param expected       {@code holds} or {@code violated:<property>}
     * @param result         TLC's verdict
     * @param distinctStates distinct states found by TLC
     */
    record Entry(String module, String lock, String expected, String result, long distinctStates) {
    }

    static Map<String, Entry> readManifest(final Path file) throws IOException {
        final Map<String, Entry> out = new LinkedHashMap<>();
        ModelManifest.read(file).forEach((module, f) -> out.put(module, new Entry(module, f.get("lock"),
            f.get("expected"), f.get("result"), ModelManifest.distinctStates(f))));
        return out;
    }

    static void writeManifest(final Path file, final Map<String, Entry> entries) throws IOException {
        final List<Map<String, Object>> models = new ArrayList<>();
        for (final Entry e : entries.values()) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("module", e.module());
            m.put("lock", e.lock());
            m.put("expected", e.expected());
            m.put("result", e.result());
            m.put("distinctStates", e.distinctStates());
            models.add(m);
        }
        ModelManifest.write(file, "TLC results of spec/locks/*/MC*.cfg; regenerate with "
            + "mvn -B -pl spec test -Dtest=LockSpecsTlcTest -Dremora.spec.updateManifest=true", models);
    }
}
