package dev.remora.objects;

import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.model.RegisterModel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.det.NodeCrashedException;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MultiWriterVersionedRegister} when a writer's node crashes at a step drawn from the seed, possibly while it
 * holds the control word or with its WRITE in flight (which may still land, R20): the other writer finishes every
 * write, taking the write over after the lease when it must, and the history (the crashed writer's last operation
 * open, so of unknown outcome) stays linearizable. Seeds: 300 (with {@link VersionedRegisterDeterministicTest}'s 700
 * without faults, 1,000 for the multi-writer register); -Pthorough (remora.test.seeds) raises them five times.
 */
class MultiWriterLeaseDeterministicTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 3 / 10;
    private static final int MAX_LENGTH = 16;
    /** 200 steps of the fabric's virtual clock (100 ns a step). */
    private static final long LEASE_NS = 20_000;
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void theSurvivingWriterFinishesAndHistoriesStayLinearizable() {
        AtomicInteger tookOver = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            SplittableRandom random = new SplittableRandom(seed);
            DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK)
                .faults(FaultPlan.of(new FaultPlan.Crash(random.nextLong(10, 400), 1, false))));
            Node home = f.addNode("home");
            RemoteAddress base = MultiWriterVersionedRegister.create(home, MAX_LENGTH);
            HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
                .unknownOutcomeWhen(e -> e instanceof RemoteAccessException r && r.isIndeterminate()
                    || e instanceof WriteOvertakenException
                    || e instanceof NodeCrashedException) // the crashed writer's open write: outcome unknown
                .build();
            int[] finished = {0};
            long[] longestSet = {0};
            for (int w = 0; w < 2; w++) {
                Node n = f.addNode("w" + w); // w0 is node 1, the one that crashes
                HistoryRecorder.Client process = history.client();
                int id = w + 1;
                f.spawn(n, "writer" + w, () -> {
                    try (Endpoint ep = Endpoint.open(n);
                         MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, MAX_LENGTH,
                             LEASE_NS)) {
                        for (int s = 1; s <= 3; s++) {
                            byte[] v = RegistersContract.value(id, 3 * s);
                            long start = ep.nanoTime();
                            process.run("write", null, HEX.formatHex(v), () -> r.set(v));
                            if (id == 2) {
                                longestSet[0] = Math.max(longestSet[0], ep.nanoTime() - start);
                                finished[0]++;
                            }
                        }
                    }
                });
            }
            Node rn = f.addNode("r");
            HistoryRecorder.Client reader = history.client();
            f.spawn(rn, "reader", () -> {
                try (Endpoint ep = Endpoint.open(rn);
                     MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, MAX_LENGTH)) {
                    for (int i = 0; i < 4; i++) {
                        try {
                            reader.call("read", null, null, () -> HEX.formatHex(r.get()));
                        } catch (RegisterContendedException e) {
                            // a failed read has no effect
                        }
                    }
                }
            });
            DetFabric.Result result = f.run();
            assertTrue(result.finished(), result.describe());
            assertEquals(3, finished[0], "the surviving writer finished every write: " + result.describe() + " "
                + f.firstFailure());
            History h = history.history();
            assertEquals(Verdict.LINEARIZABLE, Checker.check(h, new RegisterModel(false, "")).verdict(),
                h.operations().toString());
            tookOver.addAndGet(longestSet[0] >= LEASE_NS ? 1 : 0); // a set that waited a whole lease took it over
        });
        assertTrue(tookOver.get() > 0, "no seed crashed the writer while it held the control word");
    }
}
