package dev.remora.objects;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.model.CounterModel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.det.NodeCrashedException;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sharded counter on the deterministic fabric under the weak model (torn multi-word READs, late local writes),
 * with recorded histories checked by the checker's counter model: the claim of {@link ShardedCounter}'s class comment,
 * both ways. Increments of one: linearizable on every seed. Adds of different deltas: the checker finds a
 * non-linearizable read on some seed.
 */
class ShardedCounterDeterministicTest {
    /** Seeds of the linearizable test: 750 in the default build, 3,750 with -Pthorough (-Dremora.test.seeds=N). */
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 3 / 4;
    /** Seeds with a writer's node crashing: 250 in the default build, 1,250 with -Pthorough. */
    private static final int CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 4;

    /**
     * Two homes with two shards each. Each writer adds its deltas in order to its own shard (writer 0 on home 0, writer
     * 1 on home 1); each reader reads a few times. Every operation is recorded.
     *
     * @param seed the seed
     * @param deltas {@code deltas[w]} are writer w's adds, in order
     * @param readers reader threads
     * @param reads reads per reader
     * @return the history
     */
    private static History record(long seed, long[][] deltas, int readers, int reads) {
        return record(seed, deltas, readers, reads, FaultPlan.NONE);
    }

    private static History record(long seed, long[][] deltas, int readers, int reads, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(faults));
        Node h0 = f.addNode("h0");
        Node h1 = f.addNode("h1");
        ShardedCounter.Shards shards = ShardedCounter.create(2, h0, h1);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
            .unknownOutcomeWhen(e -> e instanceof NodeCrashedException // a crashed writer's open add: outcome unknown
                || e instanceof RemoteAccessException r && r.isIndeterminate())
            .build();
        for (int w = 0; w < deltas.length; w++) {
            Node n = f.addNode("w" + w);
            long[] mine = deltas[w];
            int shard = (2 * w + 1) % shards.count(); // writer 0 on shard 1 (home 0), writer 1 on shard 3 (home 1)
            HistoryRecorder.Client process = history.client();
            f.spawn(n, "writer" + w, () -> {
                try (Endpoint ep = Endpoint.open(n); ShardedCounter c = ShardedCounter.attach(ep, shards, shard)) {
                    for (long d : mine) {
                        if (d == 1) {
                            process.run("add", null, 1L, c::increment);
                        } else {
                            process.run("add", null, d, () -> c.add(d));
                        }
                    }
                }
            });
        }
        spawnReaders(f, shards, history, readers, reads);
        DetFabric.Result result = f.run();
        assertTrue(result.finished() && result.failures().isEmpty(), result.describe() + " " + f.firstFailure());
        return history.history();
    }

    private static void spawnReaders(DetFabric f, ShardedCounter.Shards shards, HistoryRecorder history, int readers,
                                     int reads) {
        for (int r = 0; r < readers; r++) {
            Node n = f.addNode("r" + r);
            HistoryRecorder.Client process = history.client();
            f.spawn(n, "reader" + r, () -> {
                try (Endpoint ep = Endpoint.open(n); ShardedCounter c = ShardedCounter.attach(ep, shards, 0)) {
                    for (int i = 0; i < reads; i++) {
                        process.call("read", null, null, c::get);
                    }
                }
            });
        }
    }

    /**
     * One writer adds {@code first} to a shard on home 0 and then, after that FETCH_ADD completed, {@code second} to a
     * shard on home 1 (two handles of one thread, so the two adds are ordered in real time); one reader reads twice.
     * The count is 0, {@code first}, {@code first + second} in that order; a read whose READ of home 0 comes before the
     * first add and whose READ of home 1 comes after the second returns {@code second}.
     */
    private static History recordTwoAddsOnTwoHomes(long seed, long first, long second) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK));
        Node h0 = f.addNode("h0");
        Node h1 = f.addNode("h1");
        ShardedCounter.Shards shards = ShardedCounter.create(1, h0, h1);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run").build();
        Node n = f.addNode("w");
        HistoryRecorder.Client process = history.client();
        f.spawn(n, "writer", () -> {
            try (Endpoint ep = Endpoint.open(n); ShardedCounter a = ShardedCounter.attach(ep, shards, 0);
                 ShardedCounter b = ShardedCounter.attach(ep, shards, 1)) {
                process.run("add", null, first, () -> a.add(first));
                process.run("add", null, second, () -> b.add(second));
            }
        });
        spawnReaders(f, shards, history, 1, 2);
        DetFabric.Result result = f.run();
        assertTrue(result.finished() && result.failures().isEmpty(), result.describe() + " " + f.firstFailure());
        return history.history();
    }

    private static CheckResult check(History h) {
        return Checker.check(h, new CounterModel(0));
    }

    @Test
    void shouldBeLinearizableOnEverySeedWhenEveryUpdateIsAnIncrement() {
        long[][] ones = {{1, 1, 1}, {1, 1, 1}};
        AtomicInteger between = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            History h = record(seed, ones, 2, 3);
            CheckResult c = check(h);
            assertEquals(Verdict.LINEARIZABLE, c.verdict(), "seed " + seed + ": " + c + " " + h.operations());
            boolean partial = h.operations().stream().anyMatch(o -> o.function().equals("read")
                && o.output() instanceof Long v && v > 0 && v < 6);
            if (partial) {
                between.incrementAndGet();
            }
        });
        assertTrue(between.get() > 0, "no read overlapped the increments: the test checked nothing concurrent");
    }

    /**
     * Writer w0's or w1's node (ids 2 and 3) crashes at a step drawn from the seed, possibly with its FETCH_ADD in
     * flight (it may still land, R20): its open add is of unknown outcome, and the history stays linearizable.
     */
    @Test
    void shouldStayLinearizableWhenAWritersNodeCrashes() {
        long[][] ones = {{1, 1, 1}, {1, 1, 1}};
        AtomicInteger open = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, CRASH_SEEDS, seed -> {
            SplittableRandom random = new SplittableRandom(seed ^ 0xBADL);
            // a run without faults takes some 300 to 500 steps
            FaultPlan crash = FaultPlan.of(new FaultPlan.Crash(random.nextLong(10, 400), 2 + random.nextInt(2), false));
            History h = record(seed, ones, 2, 3, crash);
            CheckResult c = check(h);
            assertEquals(Verdict.LINEARIZABLE, c.verdict(), "seed " + seed + ": " + c + " " + h.operations());
            open.addAndGet((int) h.operations().stream().filter(Operation::isIndeterminate).count());
        });
        assertTrue(open.get() > 0, "no crash left an add open");
    }

    /**
     * Different deltas: the checker must refute some seed, for {@code +5, +7} (non-negative deltas are not enough) and
     * for {@code +1, -1}; the same schedule with {@code +1, +1} must stay linearizable on every one of those seeds.
     */
    @Test
    void shouldFindANonLinearizableReadOnSomeSeedWhenDeltasDiffer() {
        int seeds = 400;
        for (long[] deltas : new long[][] {{5, 7}, {1, -1}}) {
            long refutedAt = -1;
            for (long seed = 1; seed <= seeds && refutedAt < 0; seed++) {
                History h = recordTwoAddsOnTwoHomes(seed, deltas[0], deltas[1]);
                if (check(h).verdict() == Verdict.NOT_LINEARIZABLE) {
                    refutedAt = seed;
                    long impossible = deltas[1];
                    assertTrue(h.operations().stream().anyMatch(o -> o.function().equals("read")
                        && Long.valueOf(impossible).equals(o.output())), "the refuted read returned " + impossible
                        + ": " + h.operations());
                }
            }
            System.out.println("ShardedCounterDeterministicTest: adds " + deltas[0] + ", " + deltas[1]
                + " refuted first at seed " + refutedAt);
            assertTrue(refutedAt > 0, "adds " + deltas[0] + ", " + deltas[1] + ": no seed of " + seeds
                + " showed a read that matches no instant's count");
        }
        for (long seed = 1; seed <= seeds; seed++) {
            History h = recordTwoAddsOnTwoHomes(seed, 1, 1);
            assertEquals(Verdict.LINEARIZABLE, check(h).verdict(), "seed " + seed + ": " + h.operations());
        }
    }
}
