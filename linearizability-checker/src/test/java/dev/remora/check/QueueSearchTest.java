package dev.remora.check;

import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FIFO queues whose producers run ahead of their consumers: many concurrent enqueues long
 * before their dequeues. A search that learns the queue's order only at the dequeues explores one
 * queue order per interleaving of the enqueues; the queue model prunes an enqueue behind a value
 * whose dequeue must come later, at the enqueue.
 */
class QueueSearchTest {
    private static final CheckOptions FIVE_SECONDS = CheckOptions.DEFAULTS.withTimeLimitSeconds(5);

    private static List<Event> simulate(long seed, int processes, int ops, int crashPct) {
        return Simulation.run(Simulation.object("queue"), new Random(seed), processes, ops, crashPct);
    }

    @Test
    void shouldDecideTheQueueWithCrashedOperationsThatWasUndecidedAfterMillionsOfStates() {
        // 5 processes, 119 operations, 7 crashed (3 enqueues, 4 dequeues): before the pruning,
        // undecided after 3.3 million states (the 20 s time limit) and 9.4 million states without one.
        History h = History.fromEvents("queue-42", HistoryFormat.JSONL, simulate(-42, 5, 119, 4));
        CheckResult r = Checker.check(h, Models.queue(), FIVE_SECONDS);
        assertEquals(Verdict.LINEARIZABLE, r.verdict(), r::toString);
        assertTrue(r.statesExplored() < 10_000, () -> r.statesExplored() + " states");
    }

    @Test
    void shouldDecideLongCrowdedQueuesBothWays() {
        for (long seed = 1; seed <= 6; seed++) {
            List<Event> events = simulate(seed, 8, 600, 5);
            CheckResult ok = Checker.check(History.fromEvents("queue", HistoryFormat.JSONL, events), Models.queue(),
                    FIVE_SECONDS);
            long s = seed;
            assertEquals(Verdict.LINEARIZABLE, ok.verdict(), () -> "seed " + s + ": " + ok);

            // Swap the outputs of two dequeues that are in real-time order, of values whose
            // enqueues are in real-time order too: a FIFO violation that only the order of the
            // enqueues reveals, many operations after them.
            List<Operation> ops = History.fromEvents("queue", HistoryFormat.JSONL, events).operations();
            Map<Object, Operation> enqueueOf = new HashMap<>();
            List<Operation> dequeues = new ArrayList<>();
            for (Operation op : ops) {
                if (op.isOk() && op.function().equals("enqueue")) {
                    enqueueOf.put(op.input(), op);
                } else if (op.isOk() && op.function().equals("dequeue") && op.output() != null) {
                    dequeues.add(op);
                }
            }
            Operation first = null;
            Operation second = null;
            for (int i = dequeues.size() - 1; i > 0 && first == null; i--) {
                Operation d2 = dequeues.get(i);
                for (int j = i - 1; j >= 0; j--) {
                    Operation d1 = dequeues.get(j);
                    Operation e1 = enqueueOf.get(d1.output());
                    Operation e2 = enqueueOf.get(d2.output());
                    if (d1.ret() < d2.call() && e1 != null && e2 != null && e1.ret() < e2.call()) {
                        first = d1;
                        second = d2;
                        break;
                    }
                }
            }
            assertTrue(first != null, "seed " + seed + ": no dequeues in real-time order");
            List<Event> bad = new ArrayList<>(events);
            swapOutputs(bad, first, second);
            CheckResult r = Checker.check(History.fromEvents("queue-bad", HistoryFormat.JSONL, bad), Models.queue(),
                    FIVE_SECONDS);
            assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict(), () -> "seed " + s + ": " + r);
            assertTrue(r.failure().reason().contains("overtakes " + first.output()), r.failure()::reason);

            // A dequeue that finds the queue empty while a value enqueued before it began is
            // still in the queue until after it ends.
            Operation mid = null;
            for (int i = dequeues.size() / 2; i < dequeues.size() && mid == null; i++) {
                Operation d = dequeues.get(i);
                for (Operation x : dequeues) {
                    Operation ex = enqueueOf.get(x.output());
                    if (x != d && ex != null && ex.ret() < d.call() && x.call() > d.ret()) {
                        mid = d;
                        break;
                    }
                }
            }
            assertTrue(mid != null, "seed " + seed + ": no dequeue with a value surely in the queue");
            List<Event> empty = new ArrayList<>(events);
            int at = completion(empty, mid);
            Event em = empty.get(at);
            empty.set(at, new Event(em.process(), em.type(), em.function(), em.key(), null, em.timeNs(), em.line()));
            CheckResult re = Checker.check(History.fromEvents("queue-empty", HistoryFormat.JSONL, empty),
                    Models.queue(), FIVE_SECONDS);
            assertEquals(Verdict.NOT_LINEARIZABLE, re.verdict(), () -> "seed " + s + ": " + re);
            assertTrue(re.failure().reason().contains("finds the queue empty"), re.failure()::reason);
        }
    }

    private static void swapOutputs(List<Event> events, Operation a, Operation b) {
        int ia = completion(events, a);
        int ib = completion(events, b);
        Event ea = events.get(ia);
        Event eb = events.get(ib);
        events.set(ia, new Event(ea.process(), ea.type(), ea.function(), ea.key(), eb.value(), ea.timeNs(), ea.line()));
        events.set(ib, new Event(eb.process(), eb.type(), eb.function(), eb.key(), ea.value(), eb.timeNs(), eb.line()));
    }

    private static int completion(List<Event> events, Operation op) {
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (e.type() == EventType.OK && e.line() == op.returnLine()) {
                return i;
            }
        }
        throw new AssertionError("no completion at line " + op.returnLine());
    }
}
