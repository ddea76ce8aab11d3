package dev.remora.check;

import dev.remora.check.model.Models;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Properties over histories produced by {@link Simulation}: they are linearizable, and changing
 * one read to a value never written makes them not linearizable.
 */
class LinearizabilityPropertyTest {
    @Provide
    Arbitrary<String> simulatedModels() {
        return Arbitraries.of("register", "cas-register", "kv", "counter", "set", "queue", "multi-register", "mutex",
                "map");
    }

    @Provide
    Arbitrary<String> readableModels() {
        return Arbitraries.of("register", "cas-register", "kv", "counter", "set", "queue", "multi-register", "map");
    }

    static History simulate(String model, long seed, int processes, int ops, int crashPct) throws Exception {
        List<Event> events = Simulation.run(Simulation.object(model), new Random(seed), processes, ops, crashPct);
        return History.fromEvents("sim-" + model + "-" + seed, HistoryFormat.JSONL, events);
    }

    @Property(tries = 150)
    void shouldFindSimulatedHistoriesLinearizable(@ForAll("simulatedModels") String model, @ForAll long seed,
                                                  @ForAll @IntRange(min = 1, max = 6) int processes,
                                                  @ForAll @IntRange(min = 1, max = 120) int ops,
                                                  @ForAll @IntRange(min = 0, max = 20) int crashPct) throws Exception {
        History h = simulate(model, seed, processes, ops, crashPct);
        Model<?> m = Models.create(model, null, false);
        Checker.validate(h, m);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withTimeLimitSeconds(20));
        assertEquals(Verdict.LINEARIZABLE, r.verdict(), () -> r + "\n" + h.operations());
    }

    @Property(tries = 150)
    void shouldFindHistoriesWithOneReadOfANeverWrittenValueNotLinearizable(
            @ForAll("readableModels") String model, @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 6) int processes, @ForAll @IntRange(min = 2, max = 120) int ops,
            @ForAll @IntRange(min = 0, max = 20) int crashPct) throws Exception {
        Simulation.RealObject obj = Simulation.object(model);
        Random rnd = new Random(seed);
        List<Event> events = new ArrayList<>(Simulation.run(obj, rnd, processes, ops, crashPct));
        List<Integer> reads = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (e.type() == EventType.OK && obj.neverWritten(e.function(), e.value()) != null) {
                reads.add(i);
            }
        }
        Assume.that(!reads.isEmpty());
        int i = reads.get(rnd.nextInt(reads.size()));
        Event e = events.get(i);
        events.set(i, new Event(e.process(), e.type(), e.function(), e.key(), obj.neverWritten(e.function(), e.value()),
                e.timeNs(), e.line()));
        History h = History.fromEvents("mutated", HistoryFormat.JSONL, events);
        Model<?> m = Models.create(model, null, false);
        Checker.validate(h, m);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withTimeLimitSeconds(20));
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict(), () -> "changed line " + e.line() + "\n" + r);
    }

    /**
     * Small random histories with outputs sometimes scrambled, so that both verdicts occur: the
     * checker agrees with the brute-force oracle for every model.
     */
    @Property(tries = 1000)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // the coverage checks below still fail the property
    void shouldAgreeWithBruteForceOnSmallHistories(@ForAll("simulatedModels") String model, @ForAll long seed,
                                                   @ForAll @IntRange(min = 1, max = 3) int processes,
                                                   @ForAll @IntRange(min = 1, max = 7) int ops,
                                                   @ForAll @IntRange(min = 0, max = 30) int crashPct) throws Exception {
        agreeWithBruteForce(model, seed, processes, ops, crashPct, true);
    }

    /**
     * The queue's search prunes enqueues by the positions of their dequeues (see
     * {@code QueueModel.Observed}); this property holds that pruning to the brute-force oracle
     * on queue histories a little longer and more crowded than the general property's.
     */
    @Property(tries = 600)
    void shouldAgreeWithBruteForceOnSmallQueueHistories(@ForAll long seed,
                                                        @ForAll @IntRange(min = 2, max = 4) int processes,
                                                        @ForAll @IntRange(min = 3, max = 8) int ops,
                                                        @ForAll @IntRange(min = 0, max = 30) int crashPct)
            throws Exception {
        agreeWithBruteForce("queue", seed, processes, ops, crashPct, false);
    }

    /**
     * The map model prunes in {@code prepare} (unobserved values merged, indeterminate writes of them dropped unless an
     * update or a bare {@code false} compare-and-set could need them) and {@code impossible}; this property holds both
     * to the brute-force oracle on crowded map histories of one key with many crashed operations.
     */
    @Property(tries = 600)
    void shouldAgreeWithBruteForceOnSmallMapHistories(@ForAll long seed,
                                                      @ForAll @IntRange(min = 2, max = 4) int processes,
                                                      @ForAll @IntRange(min = 3, max = 8) int ops,
                                                      @ForAll @IntRange(min = 0, max = 40) int crashPct)
            throws Exception {
        agreeWithBruteForce(new Simulation.MapObj(1), "map", seed, processes, ops, crashPct, false);
    }

    private static void agreeWithBruteForce(String model, long seed, int processes, int ops, int crashPct,
                                            boolean statistics) throws Exception {
        agreeWithBruteForce(Simulation.object(model), model, seed, processes, ops, crashPct, statistics);
    }

    private static void agreeWithBruteForce(Simulation.RealObject obj, String model, long seed, int processes, int ops,
                                            int crashPct, boolean statistics) throws Exception {
        Random rnd = new Random(seed);
        List<Event> events = new ArrayList<>(Simulation.run(obj, rnd, processes, ops, crashPct));
        // Scramble: give one or two completions the output of another completion of the same
        // function, or another operation's argument, so that both verdicts occur often.
        List<Integer> oks = new ArrayList<>();
        List<Object> inputs = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).type() == EventType.OK) {
                oks.add(i);
            } else if (events.get(i).type() == EventType.INVOKE && events.get(i).value() != null) {
                inputs.add(events.get(i).value());
            }
        }
        int mutations = oks.isEmpty() || rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(2);
        for (int k = 0; k < mutations; k++) {
            int a = oks.get(rnd.nextInt(oks.size()));
            Event ea = events.get(a);
            List<Object> pool = new ArrayList<>(inputs);
            for (int i : oks) {
                if (events.get(i).function().equals(ea.function())) {
                    pool.add(events.get(i).value());
                }
            }
            if (ea.value() instanceof Long || ea.value() == null) {
                pool.add((long) rnd.nextInt(6));
            }
            Object v = pool.get(rnd.nextInt(pool.size()));
            if (ea.value() instanceof List && model.equals("set")) {
                List<Object> l = new ArrayList<>((List<?>) ea.value());
                if (!l.isEmpty() && rnd.nextBoolean()) {
                    l.remove(rnd.nextInt(l.size()));
                } else {
                    l.add((long) rnd.nextInt(6));
                }
                v = l;
            }
            events.set(a, new Event(ea.process(), ea.type(), ea.function(), ea.key(), v, ea.timeNs(), ea.line()));
        }
        if (model.equals("mutex") && rnd.nextBoolean()) {
            // Forget one completed release: the next acquire then finds the lock held.
            for (int i = events.size() - 1; i >= 0; i--) {
                Event e = events.get(i);
                if (e.type() == EventType.OK && e.function().equals("release")) {
                    for (int j = i - 1; j >= 0; j--) {
                        if (events.get(j).process().equals(e.process()) && events.get(j).type() == EventType.INVOKE) {
                            events.remove(i);
                            events.remove(j);
                            break;
                        }
                    }
                    break;
                }
            }
        }
        History h = History.fromEvents("small", HistoryFormat.JSONL, events);
        @SuppressWarnings("unchecked")
        Model<Object> m = (Model<Object>) Models.create(model, null, false);
        if (h.operations().stream().anyMatch(o -> m.validate(o) != null)) {
            return;
        }
        boolean expected = BruteForce.linearizable(m, h.operations());
        CheckResult r = Checker.check(h, m);
        assertEquals(expected ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE, r.verdict(),
                () -> model + " " + h.operations());
        if (!statistics) {
            return;
        }
        Statistics.label("linearizable").collect(expected);
        Statistics.label("model").collect(model, expected);
        Statistics.label("linearizable").coverage(c -> {
            c.check(true).percentage(p -> p >= 10);
            c.check(false).percentage(p -> p >= 10);
        });
        Statistics.label("model").coverage(c -> {
            for (String name : Simulation.MODELS) {
                c.check(name, false).count(n -> n >= 1);
            }
        });
    }
}
