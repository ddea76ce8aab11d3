package dev.remora.spec.fabric;

import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import dev.remora.spec.tla.ModelManifest;
import dev.remora.spec.tla.TlaGenerator;
import dev.remora.verbs.det.machine.DetExplorer;
import dev.remora.verbs.det.machine.DetMachine;
import dev.remora.verbs.det.machine.Steps;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deterministic fabric runs every litmus file exhaustively under every knob setting the file's verdicts depend
 * on (the same settings TLC checks; every setting under {@code -Pspec-full}), and must observe an allowed outcome and
 * never a forbidden one. For a forbidden outcome both TLC and the fabric explore the whole reachable state space, so
 * the fabric's distinct-state count must equal the one TLC recorded in {@code spec/manifest.json}: the machine and
 * Verbs.tla have the same states, not just the same verdicts.
 */
class LitmusFabricConformanceTest {
    private static final Path LITMUS = Path.of("litmus");
    /** Profile spec-full: every file under every knob setting, as TLC checks them there. */
    private static final boolean FULL = Boolean.getBoolean("remora.spec.full");

    static List<LitmusTest> tests() throws IOException {
        LitmusParser parser = new LitmusParser();
        List<LitmusTest> tests = new ArrayList<>();
        try (Stream<Path> files = Files.list(LITMUS)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".litmus")).sorted().toList()) {
                tests.add(parser.parse(f));
            }
        }
        return tests;
    }

    @TestFactory
    Stream<DynamicTest> shouldAgreeWithEveryLitmusVerdictExhaustively() throws IOException {
        Map<String, Map<String, String>> manifest = ModelManifest.read(Path.of("manifest.json"));
        List<DynamicTest> cases = new ArrayList<>();
        for (LitmusTest test : tests()) {
            for (KnobSettings settings : FULL ? KnobSettings.all() : test.relevantSettings()) {
                cases.add(DynamicTest.dynamicTest(test.id() + " [" + settings.label() + "]", () -> {
                    FabricLitmusRunner.Result r = FabricLitmusRunner.exhaustive(test, settings,
                        FabricLitmusRunner.MAX_STATES_DEFAULT);
                    String where = test.id() + " [" + settings.label() + "]";
                    assertTrue(r.complete(), where + ": search bounded");
                    assertEquals(0, r.stuck(), where + ": executions that block forever");
                    assertEquals(r.expected(), r.observed(), () -> test.id() + " under " + settings.label()
                        + ": expected " + r.expected() + ", fabric observed outcomes " + r.outcomes().keySet());
                    Map<String, String> tlc = manifest.get(TlaGenerator.moduleName(test, settings));
                    if (r.expected() == Verdict.FORBIDDEN && tlc != null) {
                        assertEquals(ModelManifest.distinctStates(tlc), r.distinctStates(), where
                            + ": the fabric's reachable states differ from TLC's");
                    }
                }));
            }
        }
        assertTrue(cases.size() >= 30, "at least 30 litmus checks, found " + cases.size());
        return cases.stream();
    }

    @Test
    void shouldReplayTheSameTraceForTheSameSeed() throws IOException {
        for (LitmusTest test : tests()) {
            var program = LitmusPrograms.toProgram(test);
            var knobs = LitmusPrograms.knobs(KnobSettings.defaults());
            Set<Long> hashes = new HashSet<>();
            for (long seed = 1; seed <= 20; seed++) {
                DetExplorer.Run a = DetExplorer.run(program, knobs, seed);
                DetExplorer.Run b = DetExplorer.run(program, knobs, seed);
                assertEquals(a.traceHash(), b.traceHash(), test.id() + " seed " + seed);
                assertEquals(a.trace(), b.trace());
                assertEquals(a.outcome(), b.outcome());
                hashes.add(a.traceHash());
            }
            long executions = DetExplorer.exhaustive(program, knobs, FabricLitmusRunner.MAX_STATES_DEFAULT)
                .executions().values().stream().mapToLong(Long::longValue).sum();
            if (executions > 20) {
                assertTrue(hashes.size() > 1, test.id() + ": " + executions + " executions, 20 seeds gave one trace");
            }
        }
    }

    /**
     * In every reachable state of every litmus program (default knobs), the machine is quiescent exactly when nothing
     * but faults that have not happened can still step: quiescence is decided at states that are not final too (the
     * search only asks at final ones), and no state short of quiescence lacks a step.
     */
    @Test
    void shouldBeQuiescentExactlyWhenOnlyFaultsCanStillStep() throws IOException {
        long visited = 0;
        for (LitmusTest test : tests()) {
            DetMachine init = new DetMachine(LitmusPrograms.toProgram(test),
                LitmusPrograms.knobs(KnobSettings.defaults()));
            Set<Long> seen = new HashSet<>();
            Deque<DetMachine> todo = new ArrayDeque<>(List.of(init));
            long[] steps = new long[4096];
            while (!todo.isEmpty()) {
                DetMachine m = todo.pop();
                if (!seen.add(m.fingerprint())) {
                    continue;
                }
                int n = m.enabled(steps);
                boolean onlyFaults = true;
                for (int i = 0; i < n; i++) {
                    onlyFaults &= Steps.kind(steps[i]) == Steps.FAULT;
                    DetMachine next = m.copy();
                    next.apply(steps[i]);
                    todo.push(next);
                }
                assertEquals(onlyFaults, m.quiescent(), () -> test.id() + ": quiescent() at a state with steps "
                    + java.util.Arrays.stream(steps, 0, n).mapToObj(m::describe).toList());
            }
            visited += seen.size();
        }
        assertTrue(visited > 1000, "states visited: " + visited);
    }

    @Test
    void shouldNeverObserveAForbiddenOutcomeWithSeeds() throws IOException {
        for (LitmusTest test : tests()) {
            for (KnobSettings settings : test.relevantSettings()) {
                FabricLitmusRunner.Result r = FabricLitmusRunner.seeded(test, settings, 1, 200);
                assertTrue(r.agrees(false), test.id() + " [" + settings.label() + "] observed " + r.outcomes());
            }
        }
    }
}
