package dev.remora.objects;

import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.model.CounterModel;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.det.NodeCrashedException;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RemoteCounter, unchanged, on the deterministic fabric under the weak model, many seeds, with and without faults,
 * every history checked by the checker's counter model. Seeds: 500 without faults, 200 with the home crashing, 100
 * with a client's node crashing and 200 with a cut link; -Pthorough (remora.test.seeds) raises them five times.
 */
class RemoteCounterDeterministicTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 2;
    private static final int CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 5;
    private static final int CLIENT_CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 10;
    private static final int CUT_LINK_SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 5;
    private static final int CLIENTS = 3;
    /** Increments per client, with a read between the first two. */
    private static final int EACH = 2;

    private record Outcome(long finalValue, long acknowledged, long indeterminate, boolean distinct,
                           DetFabric.Result run, History history) {
    }

    private static Outcome run(long seed, FaultPlan faults, DetKnobs knobs) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults).knobs(knobs));
        Node home = f.addNode("home");
        MemoryRegion region = home.allocate(RemoteCounterDescriptor.LENGTH, Access.ALL);
        RemoteAddress word = region.remote(RemoteCounterDescriptor.VALUE_OFFSET);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
            .unknownOutcomeWhen(e -> e instanceof RemoteAccessException r && r.isIndeterminate()
                || e instanceof NodeCrashedException) // a crashed client's open increment: outcome unknown
            .build();
        long[] acked = new long[1];
        long[] unknown = new long[1];
        Set<Long> values = new HashSet<>();
        boolean[] distinct = {true};
        for (int c = 0; c < CLIENTS; c++) {
            Node n = f.addNode("c" + c);
            HistoryRecorder.Client process = history.client();
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    RemoteCounter counter = RemoteCounter.attach(ep, word);
                    for (int i = 0; i < EACH; i++) {
                        try {
                            long[] got = new long[1];
                            process.run("add", null, 1L, () -> got[0] = counter.incrementAndGet());
                            distinct[0] &= values.add(got[0]);
                            acked[0]++;
                        } catch (RemoteAccessException e) {
                            assertEquals(WcStatus.RETRY_EXC_ERR, e.status());
                            unknown[0]++;
                        } catch (NodeCrashedException e) {
                            unknown[0]++; // its FETCH_ADD may be in flight, and land (R20)
                            throw e;
                        }
                        if (i == 0) {
                            try {
                                process.call("read", null, null, counter::get);
                            } catch (RemoteAccessException e) {
                                assertEquals(WcStatus.RETRY_EXC_ERR, e.status()); // recorded info; no effect
                            }
                        }
                    }
                }
            });
        }
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe());
        return new Outcome(f.peek(region, 0), acked[0], unknown[0], distinct[0], r, history.history());
    }

    @Test
    void shouldCountExactlyUnderTheWeakModelForEverySeed() {
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            Outcome o = run(seed, FaultPlan.NONE, DetKnobs.WEAK);
            assertEquals(CLIENTS * EACH, o.finalValue(), o.run().describe());
            assertEquals(CLIENTS * EACH, o.acknowledged());
            assertTrue(o.distinct(), "every increment returned a distinct value");
            assertEquals(Verdict.LINEARIZABLE, check(o.history()), o.history().operations().toString());
        });
    }

    /** A client's node crashes at a step drawn from the seed: its open increment may or may not count. */
    @Test
    void shouldCountEveryAcknowledgedIncrementOnceWhenAClientCrashes() {
        AtomicLong open = new AtomicLong();
        DetRuns.forEachSeedInParallel(1, CLIENT_CRASH_SEEDS, seed -> {
            SplittableRandom r = new SplittableRandom(seed ^ 0xC11E);
            // clients are nodes 1 to 3; a run without faults takes some 100 to 200 steps
            Outcome o = run(seed, FaultPlan.of(new FaultPlan.Crash(r.nextLong(10, 150), 1 + r.nextInt(CLIENTS), false)),
                DetKnobs.WEAK);
            assertTrue(o.finalValue() >= o.acknowledged(), "an acknowledged increment is never lost: "
                + o.run().describe());
            assertTrue(o.finalValue() <= o.acknowledged() + o.indeterminate(), "no increment counted twice");
            assertTrue(o.distinct());
            assertEquals(Verdict.LINEARIZABLE, check(o.history()), o.history().operations().toString());
            open.addAndGet(o.indeterminate());
        });
        assertTrue(open.get() > 0, "no crash left an increment open");
    }

    @Test
    void shouldNeverCountMoreThanWasAttemptedWhenTheHomeCrashes() {
        AtomicLong indeterminate = new AtomicLong();
        DetRuns.forEachSeedInParallel(1, CRASH_SEEDS, seed -> {
            // The home crashes (keeping its memory: a counter is not durable across a reboot) at a step drawn from
            // the seed, and a client NIC may be slow for a while.
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            FaultPlan plan = FaultPlan.of(new FaultPlan.Crash(r.nextLong(120), 0, false),
                new FaultPlan.DelayNic(r.nextLong(60), 1 + r.nextInt(CLIENTS), r.nextLong(1, 80)));
            Outcome o = run(seed, plan, DetKnobs.WEAK);
            assertTrue(o.finalValue() >= o.acknowledged(), "an acknowledged increment is never lost: "
                + o.run().describe());
            assertTrue(o.finalValue() <= o.acknowledged() + o.indeterminate(), "no increment counted twice");
            assertTrue(o.distinct());
            assertEquals(Verdict.LINEARIZABLE, check(o.history()), o.history().operations().toString());
            indeterminate.addAndGet(o.indeterminate());
        });
        assertTrue(indeterminate.get() > 0, "the crashes made some increments indeterminate");
    }

    /**
     * Three clients increment and read the counter while the link from client c0 to the home is cut at a step drawn
     * from the seed. Every operation is recorded by a {@link HistoryRecorder}: ok with its result; {@code info} when
     * the exception says the outcome is unknown (RETRY_EXC_ERR: the FETCH_ADD may have executed at the home, its
     * answer lost with the link), if the recorder is told so; fail otherwise. After an {@code info} the recorder
     * continues the client as a new process, since a crashed process does not invoke again.
     *
     * @param unknownAsInfo whether the recorder marks an indeterminate {@link RemoteAccessException} as an unknown
     *                      outcome (the right way) or lets it be recorded as failed (the control)
     * @return the history
     */
    private static History recordUnderACutLink(long seed, boolean unknownAsInfo) {
        SplittableRandom random = new SplittableRandom(seed);
        FaultPlan plan = FaultPlan.of(new FaultPlan.CutLink(random.nextLong(20, 160), 0, 1));
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(plan));
        Node home = f.addNode("home");
        MemoryRegion region = home.allocate(RemoteCounterDescriptor.LENGTH, Access.ALL);
        RemoteAddress word = region.remote(RemoteCounterDescriptor.VALUE_OFFSET);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
            .unknownOutcomeWhen(e -> unknownAsInfo && e instanceof RemoteAccessException r && r.isIndeterminate())
            .build();
        for (int c = 0; c < CLIENTS; c++) {
            Node n = f.addNode("c" + c);
            HistoryRecorder.Client process = history.client();
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    RemoteCounter counter = RemoteCounter.attach(ep, word);
                    for (int i = 0; i < 2 * EACH; i++) {
                        try {
                            if (i % 2 == 1) {
                                process.call("read", null, null, counter::get);
                            } else {
                                process.run("add", null, 1L, counter::incrementAndGet);
                            }
                        } catch (RemoteAccessException e) {
                            // recorded as info or fail; the client goes on
                        }
                    }
                }
            });
        }
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        return history.history();
    }

    private static Verdict check(History history) {
        return Checker.check(history, new CounterModel(0)).verdict();
    }

    @Test
    void shouldRecordIncrementsWithUnknownOutcomeAsInfoAndStayLinearizable() {
        int unknown = 0;
        for (long seed = 1; seed <= CUT_LINK_SEEDS; seed++) {
            History h = recordUnderACutLink(seed, true);
            assertEquals(Verdict.LINEARIZABLE, check(h), "seed " + seed + ": " + h.operations());
            unknown += (int) h.operations().stream().filter(Operation::isIndeterminate).count();
        }
        assertTrue(unknown > 0, "the cut link made some operations indeterminate");
    }

    /** The control: recording the same operations as failed is wrong, and the checker says so for some seed. */
    @Test
    void shouldBeNonLinearizableWhenIndeterminateIncrementsAreRecordedAsFailed() {
        long refuted = 0;
        for (long seed = 1; seed <= CUT_LINK_SEEDS && refuted == 0; seed++) {
            if (check(recordUnderACutLink(seed, false)) == Verdict.NOT_LINEARIZABLE) {
                refuted++;
            }
        }
        assertTrue(refuted > 0, "no seed had an increment that failed with RETRY_EXC_ERR yet took effect");
    }
}
