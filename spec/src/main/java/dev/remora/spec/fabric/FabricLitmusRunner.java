package dev.remora.spec.fabric;

import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import dev.remora.verbs.det.machine.DetExplorer;
import dev.remora.verbs.det.machine.DetProgram;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs litmus tests on the deterministic fabric, exhaustively or for a number of seeds, and says which verdict the
 * fabric observed.
 */
public final class FabricLitmusRunner {
    /** Default bound of the exhaustive search. */
    public static final long MAX_STATES_DEFAULT = 2_000_000;

    private FabricLitmusRunner() {
    }

    /**
     * What the fabric observed for one test under one knob setting.
     *
     * @param test the test
     * @param settings the knob setting
     * @param outcomes each observed outcome (locations and registers) with its count: executions in exhaustive
     *     mode, seeds in seeded mode
     * @param distinctStates states the exhaustive search visited (0 for seeded runs)
     * @param stuck executions that blocked before quiescence
     * @param complete false if the exhaustive search hit its bound
     * @param firstSeeds in seeded mode, the first seed that produced each outcome (empty when exhaustive)
     */
    public record Result(LitmusTest test, KnobSettings settings, Map<Map<String, Long>, Long> outcomes,
                         long distinctStates, long stuck, boolean complete, Map<Map<String, Long>, Long> firstSeeds) {

        /** @return ALLOWED if some observed outcome satisfies the final predicate, else FORBIDDEN */
        public Verdict observed() {
            for (Map<String, Long> o : outcomes.keySet()) {
                if (test.outcomeMatches(o)) {
                    return Verdict.ALLOWED;
                }
            }
            return Verdict.FORBIDDEN;
        }

        /** @return the verdict the test file expects under these settings */
        public Verdict expected() {
            return test.expected(settings);
        }

        /**
         * Whether the fabric agrees with the file: exhaustively, the verdicts are equal; with seeds, a forbidden
         * outcome was never observed (an allowed one may simply not have been hit).
         *
         * @param exhaustive whether the result came from an exhaustive search
         * @return true when they agree
         */
        public boolean agrees(boolean exhaustive) {
            if (stuck > 0 || !complete) {
                return false;
            }
            return exhaustive ? observed() == expected() : expected() == Verdict.ALLOWED || observed() == Verdict.FORBIDDEN;
        }
    }

    /**
     * Enumerates every execution of a test.
     *
     * @param test the test
     * @param settings the knob setting
     * @param maxStates bound of the search
     * @return what was observed
     */
    public static Result exhaustive(LitmusTest test, KnobSettings settings, long maxStates) {
        DetProgram program = LitmusPrograms.toProgram(test);
        DetExplorer.Exhaustive e = DetExplorer.exhaustive(program, LitmusPrograms.knobs(settings), maxStates);
        Map<Map<String, Long>, Long> named = new LinkedHashMap<>();
        e.executions().forEach((o, n) -> named.merge(o.named(program), n, Long::sum));
        return new Result(test, settings, named, e.distinctStates(), e.stuckStates(), e.complete(), Map.of());
    }

    /**
     * Runs a test once per seed, {@code firstSeed} to {@code firstSeed + seeds - 1}.
     *
     * @param test the test
     * @param settings the knob setting
     * @param firstSeed the first seed
     * @param seeds how many seeds
     * @return what was observed
     */
    public static Result seeded(LitmusTest test, KnobSettings settings, long firstSeed, int seeds) {
        DetProgram program = LitmusPrograms.toProgram(test);
        Map<Map<String, Long>, Long> named = new LinkedHashMap<>();
        Map<Map<String, Long>, Long> first = new LinkedHashMap<>();
        long stuck = 0;
        for (int i = 0; i < seeds; i++) {
            DetExplorer.Run r = DetExplorer.run(program, LitmusPrograms.knobs(settings), firstSeed + i);
            if (r.outcome() == null) {
                stuck++;
            } else {
                Map<String, Long> o = r.outcome().named(program);
                named.merge(o, 1L, Long::sum);
                first.putIfAbsent(o, firstSeed + i);
            }
        }
        return new Result(test, settings, named, 0, stuck, true, first);
    }
}
