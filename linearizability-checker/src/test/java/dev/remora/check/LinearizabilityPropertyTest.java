package dev.remora.check;

import dev.remora.check.model.Models;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

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
        return Arbitraries.of("register", "cas-register", "kv", "counter", "set", "queue", "multi-register", "mutex");
    }

    @Provide
    Arbitrary<String> readableModels() {
        return Arbitraries.of("register", "cas-register", "kv", "counter", "set", "queue", "multi-register");
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
        // A FIFO queue with many crashed enqueues and dequeues is the one case where the search
        // still explodes (which crashed dequeue took which value): keep its crash rate lower.
        History h = simulate(model, seed, processes, ops, model.equals("queue") ? crashPct / 2 : crashPct);
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
        List<Event> events = new ArrayList<>(Simulation.run(obj, rnd, processes, ops,
                model.equals("queue") ? crashPct / 2 : crashPct));
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
    void shouldAgreeWithBruteForceOnSmallHistories(@ForAll("simulatedModels") String model, @ForAll long seed,
                                                   @ForAll @IntRange(min = 1, max = 3) int processes,
                                                   @ForAll @IntRange(min = 1, max = 7) int ops,
                                                   @ForAll @IntRange(min = 0, max = 30) int crashPct) throws Exception {
        Simulation.RealObject obj = Simulation.object(model);
        Random rnd = new Random(seed);
        List<Event> events = new ArrayList<>(Simulation.run(obj, rnd, processes, ops, crashPct));
        // Scramble: swap the outputs of two completions of the same function, or mutate one.
        List<Integer> oks = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).type() == EventType.OK) {
                oks.add(i);
            }
        }
        if (oks.size() >= 2 && rnd.nextBoolean()) {
            int a = oks.get(rnd.nextInt(oks.size()));
            int b = oks.get(rnd.nextInt(oks.size()));
            Event ea = events.get(a);
            Event eb = events.get(b);
            if (ea.function().equals(eb.function())) {
                events.set(a, new Event(ea.process(), ea.type(), ea.function(), ea.key(), eb.value(), ea.timeNs(), ea.line()));
                events.set(b, new Event(eb.process(), eb.type(), eb.function(), eb.key(), ea.value(), eb.timeNs(), eb.line()));
            }
        }
        if (model.equals("mutex") && events.size() > 2 && rnd.nextBoolean()) {
            // Drop one event pair's completion order by reordering a random adjacent pair of events.
            int i = rnd.nextInt(events.size() - 1);
            Event x = events.get(i);
            Event y = events.get(i + 1);
            if (!x.process().equals(y.process())) {
                events.set(i, new Event(y.process(), y.type(), y.function(), y.key(), y.value(), x.timeNs(), x.line()));
                events.set(i + 1, new Event(x.process(), x.type(), x.function(), x.key(), x.value(), y.timeNs(), y.line()));
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
    }
}
