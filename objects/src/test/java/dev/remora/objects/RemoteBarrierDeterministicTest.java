package dev.remora.objects;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The remote barrier on the deterministic fabric under the weak model: three parties on three nodes, two rounds,
 * many seeds; then three rounds with the third party's node crashing at a step drawn from the seed, where the two others
 * must never pass a round the crashed party did not reach and must get BROKEN, all in the same round, within their
 * timeout (plus the breaking CAS).
 */
class RemoteBarrierDeterministicTest {
    /** Seeds without faults: 700 in the default build, 3,500 with -Pthorough (-Dremora.test.seeds=N gives 7 N / 10). */
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 7 / 10;
    /** Seeds with a crash: 300 in the default build, 1,500 with -Pthorough (3 N / 10). */
    private static final int CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 3 / 10;
    private static final int PARTIES = 3;
    /** Rounds of a run without faults (the barrier reused once). */
    private static final int ROUNDS = 2;
    /** Rounds of a run with the crash. */
    private static final int CRASH_ROUNDS = 3;
    /**
     * Virtual nanoseconds a party waits per round: 50 us, 500 steps, over 3 times the longest round (13 us); the
     * crashed runs' live parties spin out this timeout, so it is most of their cost.
     */
    private static final long TIMEOUT_NS = 50_000;
    /** What a BROKEN await may take beyond its timeout: its last READ and the breaking CAS. */
    private static final long SLACK_NS = 10_000;

    /** One await: the round the party meant, what it returned, and how long it took in virtual time. */
    private record Await(int party, int round, RemoteBarrier.Result result, long tookNs, int startedByAll) {
    }

    private record Run(DetFabric.Result result, List<Await> awaits, int[] started) {
    }

    private static Run run(long seed, FaultPlan faults, int rounds) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(faults));
        Node home = f.addNode("home");
        RemoteAddress barrier = RemoteBarrier.create(home);
        List<Await> awaits = new ArrayList<>();
        int[] started = new int[PARTIES];
        for (int p = 0; p < PARTIES; p++) {
            int party = p;
            Node n = f.addNode("p" + p);
            f.spawn(n, "party" + p, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    RemoteBarrier b = RemoteBarrier.attach(ep, barrier, PARTIES);
                    for (int r = 0; r < rounds; r++) {
                        started[party] = r + 1;
                        long start = ep.nanoTime();
                        RemoteBarrier.Result result = b.await(TIMEOUT_NS);
                        int all = 0;
                        for (int s : started) {
                            all += s > r ? 1 : 0;
                        }
                        awaits.add(new Await(party, r, result, ep.nanoTime() - start, all));
                        if (!result.passed()) {
                            return;
                        }
                    }
                }
            });
        }
        return new Run(f.run(), awaits, started);
    }

    @Test
    void shouldPassEveryRoundTogetherOnEverySeed() {
        AtomicLong slowest = new AtomicLong();
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            Run r = run(seed, FaultPlan.NONE, ROUNDS);
            assertTrue(r.result().finished() && r.result().failures().isEmpty(), r.result().describe());
            assertEquals(PARTIES * ROUNDS, r.awaits().size(), r.result().describe());
            int[] indices = new int[ROUNDS];
            for (Await a : r.awaits()) {
                assertTrue(a.result().passed(), a + " " + r.result().describe());
                assertEquals(a.round(), a.result().round(), "the barrier is reused round after round");
                assertEquals(PARTIES, a.startedByAll(), "passed round " + a.round() + " before every party arrived: "
                    + r.result().describe());
                indices[a.round()] |= 1 << a.result().arrivalIndex();
                slowest.accumulateAndGet(a.tookNs(), Math::max);
            }
            for (int round = 0; round < ROUNDS; round++) {
                assertEquals((1 << PARTIES) - 1, indices[round], "arrival indices of round " + round);
            }
        });
        assertTrue(slowest.get() < TIMEOUT_NS / 2, "a round took " + slowest.get() + " ns: the timeout is too short");
        System.out.println("RemoteBarrierDeterministicTest: longest await without faults " + slowest + " virtual ns");
    }

    @Test
    void shouldBreakTheRoundForTheOthersWhenAPartyCrashes() {
        AtomicInteger brokenRuns = new AtomicInteger();
        AtomicInteger passedRuns = new AtomicInteger();
        AtomicLong longestBroken = new AtomicLong();
        AtomicInteger toldByTheBit = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, CRASH_SEEDS, seed -> {
            SplittableRandom random = new SplittableRandom(seed);
            int crashedParty = PARTIES - 1;
            // Node 0 is the home; party p is on node p + 1.
            FaultPlan plan = FaultPlan.of(new FaultPlan.Crash(random.nextLong(600), crashedParty + 1, false));
            Run r = run(seed, plan, CRASH_ROUNDS);
            assertTrue(r.result().finished() && r.result().failures().isEmpty(), r.result().describe());
            Integer brokenRound = null;
            int broken = 0;
            for (Await a : r.awaits()) {
                if (a.party() == crashedParty) {
                    continue;
                }
                if (a.result().passed()) {
                    assertTrue(r.started()[crashedParty] > a.round(), "party " + a.party() + " passed round "
                        + a.round() + ", which the crashed party never reached: " + r.result().describe());
                    assertEquals(PARTIES, a.startedByAll());
                } else {
                    broken++;
                    assertTrue(brokenRound == null || brokenRound == a.round(), "the live parties broke in different "
                        + "rounds: " + r.awaits());
                    brokenRound = a.round();
                    assertTrue(a.tookNs() <= TIMEOUT_NS + SLACK_NS, "BROKEN after " + a.tookNs() + " ns: "
                        + r.result().describe());
                    longestBroken.accumulateAndGet(a.tookNs(), Math::max);
                    if (a.tookNs() < TIMEOUT_NS) {
                        toldByTheBit.incrementAndGet(); // it read the broken bit another waiter set, before its timeout
                    }
                }
            }
            long liveAwaits = r.awaits().stream().filter(a -> a.party() != crashedParty).count();
            if (broken > 0) {
                assertEquals(PARTIES - 1, broken, "both live parties learn that the round broke: " + r.awaits());
                assertNotNull(brokenRound);
                assertEquals(2L * (brokenRound + 1), liveAwaits, "nobody went on after BROKEN");
                brokenRuns.incrementAndGet();
            } else {
                assertEquals(2L * CRASH_ROUNDS, liveAwaits, "the live parties passed every round: " + r.awaits());
                passedRuns.incrementAndGet();
            }
        });
        assertTrue(brokenRuns.get() > 0, "no seed crashed the party before it arrived");
        assertTrue(toldByTheBit.get() > 0, "no waiter learnt of the break from the other's CAS");
        assertTrue(passedRuns.get() > 0 || CRASH_SEEDS < 50, "no seed crashed the party after its last arrival");
        System.out.println("RemoteBarrierDeterministicTest: " + brokenRuns + " runs broken, " + passedRuns
            + " passed, " + toldByTheBit + " BROKEN before their own timeout, longest BROKEN await " + longestBroken
            + " virtual ns (timeout " + TIMEOUT_NS + ")");
    }
}
