package dev.remora.verbs.det.machine;

import dev.remora.verbs.det.DetKnobs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Runs a {@link DetProgram} on the deterministic machine: {@link #exhaustive} enumerates every execution the knobs
 * allow (depth-first, with state hashing: a state reached again is not explored again, but the number of executions
 * through it is still counted), {@link #run} performs one execution chosen by a seed.
 */
public final class DetExplorer {

    private DetExplorer() {
    }

    /**
     * An observable outcome: every word's final value, then every register's.
     *
     * @param values the values, in {@link DetProgram} word order then register order
     */
    public record Outcome(long[] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Outcome other && Arrays.equals(values, other.values);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(values);
        }

        /**
         * Names each value.
         *
         * @param program the program the outcome came from
         * @return location and register names to values
         */
        public Map<String, Long> named(DetProgram program) {
            Map<String, Long> m = new LinkedHashMap<>();
            int w = program.wordNames().size();
            for (int i = 0; i < w; i++) {
                m.put(program.wordNames().get(i), values[i]);
            }
            for (int r = 0; r < program.registerNames().size(); r++) {
                m.put(program.registerNames().get(r), values[w + r]);
            }
            return m;
        }

        @Override
        public String toString() {
            return Arrays.toString(values);
        }
    }

    /**
     * The result of an exhaustive search.
     *
     * @param executions for each reachable quiescent outcome, the number of distinct executions reaching it
     * @param distinctStates states visited
     * @param stuckStates non-quiescent states with no enabled step (a program that can block forever)
     * @param complete false if the search stopped at the state limit
     */
    public record Exhaustive(Map<Outcome, Long> executions, long distinctStates, long stuckStates, boolean complete) {
    }

    /**
     * The result of one seeded execution.
     *
     * @param outcome the final outcome, or null if the execution got stuck
     * @param trace the steps taken, described
     * @param traceHash a hash of the step sequence: the same seed gives the same hash
     */
    public record Run(Outcome outcome, List<String> trace, long traceHash) {
    }

    /**
     * Enumerates every execution.
     *
     * @param program the program
     * @param knobs the memory-model knobs
     * @param maxStates stop (with {@code complete = false}) after this many distinct states
     * @return outcomes with execution counts
     */
    public static Exhaustive exhaustive(DetProgram program, DetKnobs knobs, long maxStates) {
        Search s = new Search(maxStates);
        DetMachine init = new DetMachine(program, knobs);
        Map<Outcome, Long> result = s.explore(init, init.maxDepth(), 0);
        return new Exhaustive(Collections.unmodifiableMap(result), s.memo.size(), s.stuck, !s.truncated);
    }

    private static final class Search {
        final Map<Long, Map<Outcome, Long>> memo = new HashMap<>();
        final long maxStates;
        long stuck;
        boolean truncated;

        Search(long maxStates) {
            this.maxStates = maxStates;
        }

        Map<Outcome, Long> explore(DetMachine m, int maxDepth, int depth) {
            long fp = m.fingerprint();
            Map<Outcome, Long> known = memo.get(fp);
            if (known != null) {
                return known;
            }
            if (memo.size() >= maxStates) {
                truncated = true;
                return Map.of();
            }
            memo.put(fp, Map.of());
            if (depth >= maxDepth) {
                throw new IllegalStateException("execution deeper than " + maxDepth + " steps");
            }
            long[] steps = new long[m.maxSteps()]; // this state's bound: states at one depth differ in it
            int n = m.enabled(steps);
            Map<Outcome, Long> counts = new HashMap<>();
            if (n == 0) {
                if (m.quiescent()) {
                    counts.put(new Outcome(m.outcome()), 1L);
                } else {
                    stuck++;
                }
            }
            for (int i = 0; i < n; i++) {
                DetMachine next = m.copy();
                next.apply(steps[i]);
                for (Map.Entry<Outcome, Long> e : explore(next, maxDepth, depth + 1).entrySet()) {
                    counts.merge(e.getKey(), e.getValue(), Long::sum);
                }
            }
            memo.put(fp, counts);
            return counts;
        }
    }

    /**
     * One execution, each step chosen uniformly among the enabled ones by a generator seeded with {@code seed}.
     *
     * @param program the program
     * @param knobs the memory-model knobs
     * @param seed the seed
     * @return the outcome and the trace
     */
    public static Run run(DetProgram program, DetKnobs knobs, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        DetMachine m = new DetMachine(program, knobs);
        long[] steps = new long[m.maxSteps()];
        List<String> trace = new ArrayList<>();
        long hash = 17;
        while (true) {
            int n = m.enabled(steps);
            if (n == 0) {
                return new Run(m.quiescent() ? new Outcome(m.outcome()) : null, trace, hash);
            }
            long step = steps[random.nextInt(n)];
            trace.add(m.describe(step));
            hash = DetMachine.mix(hash, step);
            m.apply(step);
        }
    }
}
