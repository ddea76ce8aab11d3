package dev.remora.check;

import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Time and memory limits give UNKNOWN with the cause, promptly; verdicts are deterministic. */
class LimitsTest {
    /** Twenty overlapping writes, then reads that no order of them explains: exponential for any checker. */
    static History hard() throws Exception {
        List<Event> ev = new ArrayList<>();
        int n = 20;
        for (int p = 0; p < n; p++) {
            ev.add(new Event((long) p, EventType.INVOKE, "write", null, (long) p, Event.NO_TIME, ev.size() + 1));
        }
        for (int p = 0; p < n; p++) {
            ev.add(new Event((long) p, EventType.OK, "write", null, (long) p, Event.NO_TIME, ev.size() + 1));
        }
        for (long v : new long[] {1, 2, 1}) {
            ev.add(new Event(100L, EventType.INVOKE, "read", null, null, Event.NO_TIME, ev.size() + 1));
            ev.add(new Event(100L, EventType.OK, "read", null, v, Event.NO_TIME, ev.size() + 1));
        }
        return History.fromEvents("hard", HistoryFormat.JSONL, ev);
    }

    @Test
    void shouldReturnUnknownSoonAfterTheTimeLimit() throws Exception {
        History h = hard();
        long start = System.nanoTime();
        CheckResult r = Checker.check(h, Models.create("register", null, false),
                CheckOptions.DEFAULTS.withTimeLimitSeconds(0.3));
        double s = (System.nanoTime() - start) / 1e9;
        assertEquals(Verdict.UNKNOWN, r.verdict());
        assertEquals("time limit reached", r.cause());
        assertTrue(s < 1.5, "took " + s + " s");
    }

    @Test
    void shouldReturnUnknownWhenTheMemoryLimitIsReached() throws Exception {
        CheckResult r = Checker.check(hard(), Models.create("register", null, false),
                CheckOptions.DEFAULTS.withMemoryLimitBytes(4 << 20).withTimeLimitSeconds(60));
        assertEquals(Verdict.UNKNOWN, r.verdict());
        assertEquals("memory limit reached", r.cause());
    }

    /**
     * 30 crashed writes of 1 and 30 of 2, then reads alternating between 1 and 2: each read
     * needs a fresh crashed write. 60 reads are linearizable; 70 need 35 of each, so they are not,
     * which a search without the symmetry reduction could only learn after trying some 2^60
     * subsets of the crashed writes.
     */
    @Test
    void shouldDecideQuicklyWhenManyInterchangeableOperationsCrashed() throws Exception {
        for (int reads : new int[] {60, 70}) {
            List<Event> ev = new ArrayList<>();
            for (int p = 0; p < 60; p++) {
                long v = p < 30 ? 1 : 2;
                ev.add(new Event((long) p, EventType.INVOKE, "write", null, v, Event.NO_TIME, ev.size() + 1));
                ev.add(new Event((long) p, EventType.INFO, "write", null, v, Event.NO_TIME, ev.size() + 1));
            }
            for (int i = 0; i < reads; i++) {
                ev.add(new Event(1000L, EventType.INVOKE, "read", null, null, Event.NO_TIME, ev.size() + 1));
                ev.add(new Event(1000L, EventType.OK, "read", null, i % 2 == 0 ? 1L : 2L, Event.NO_TIME, ev.size() + 1));
            }
            History h = History.fromEvents("crashed-writes", HistoryFormat.JSONL, ev);
            CheckResult r = Checker.check(h, Models.create("cas-register", 0L, true),
                    CheckOptions.DEFAULTS.withTimeLimitSeconds(20));
            assertEquals(reads == 60 ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE, r.verdict(), r::toString);
        }
    }

    @Test
    void shouldGiveTheSameResultWhateverTheParallelism() throws Exception {
        List<Event> ev = Simulation.run(Simulation.object("kv"), new Random(7), 5, 400, 5);
        Event e = ev.stream().filter(x -> x.type() == EventType.OK && x.function().equals("get")).reduce((a, b) -> b)
                .orElseThrow();
        ev = new ArrayList<>(ev);
        ev.set(ev.indexOf(e), new Event(e.process(), e.type(), e.function(), e.key(), "x0;", e.timeNs(), e.line()));
        History h = History.fromEvents("kv", HistoryFormat.JSONL, ev);
        Model<?> m = Models.create("kv", null, false);
        CheckResult one = Checker.check(h, m, CheckOptions.DEFAULTS.withParallelism(1));
        for (int threads : new int[] {2, 4, 8}) {
            CheckResult many = Checker.check(h, m, CheckOptions.DEFAULTS.withParallelism(threads));
            assertEquals(one.verdict(), many.verdict());
            assertEquals(one.statesExplored(), many.statesExplored());
            if (one.failure() != null) {
                assertEquals(one.failure().reason(), many.failure().reason());
                assertEquals(one.failure().partialLinearization(), many.failure().partialLinearization());
            }
        }
    }
}
