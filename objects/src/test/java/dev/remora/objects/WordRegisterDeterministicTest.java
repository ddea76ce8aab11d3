package dev.remora.objects;

import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
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

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemoteRegister} and {@link CasRegister} on the deterministic fabric under the weak model (a WRITE may
 * complete before it is placed: {@code PUT_COMPLETION = ON_ACK}, R11), histories checked with the checker's
 * {@code register} and {@code cas-register} models. The control: a {@code set} that stops at the WRITE's completion,
 * without the flush READ, is caught by the checker on some seed (a read that starts after it returned misses it).
 * Seeds per register: 700 without faults and 300 with a client's node crashing at a step drawn from the seed (its open
 * operation then of unknown outcome); -Pthorough (remora.test.seeds) raises them five times.
 */
class WordRegisterDeterministicTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 7 / 10;
    private static final int CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 3 / 10;
    /** Runs of either register take some 150 to 300 steps: a crash drawn below this hits most of them mid-run. */
    private static final long CRASH_HORIZON = 250;

    private enum Setter { FLUSHED, ACK_ONLY }

    /** One of the three clients' nodes (ids 1 to 3) crashes at a step drawn from the seed. */
    private static FaultPlan clientCrash(long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0xC0FFEE);
        return FaultPlan.of(new FaultPlan.Crash(r.nextLong(10, CRASH_HORIZON), 1 + r.nextInt(3), false));
    }

    private static History runPlain(long seed, Setter setter) {
        return runPlain(seed, setter, FaultPlan.NONE);
    }

    private static History runPlain(long seed, Setter setter, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(faults));
        RemoteAddress word = RemoteRegister.create(f.addNode("home"));
        HistoryRecorder history = recorder(f);
        for (int c = 0; c < 3; c++) {
            Node n = f.addNode("c" + c);
            HistoryRecorder.Client process = history.client();
            int id = c;
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    RemoteRegister r = RemoteRegister.attach(ep, word);
                    for (int i = 1; i <= 3; i++) {
                        if (id == 0) {
                            long v = i;
                            process.run("write", null, v, () -> {
                                if (setter == Setter.FLUSHED) {
                                    r.set(v);
                                } else {
                                    ep.writeLong(word, v, false); // acknowledged, maybe not placed (R11)
                                }
                            });
                        } else {
                            process.call("read", null, null, r::get);
                        }
                    }
                }
            });
        }
        finish(f);
        return history.history();
    }

    private static History runCas(long seed, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(faults));
        RemoteAddress word = CasRegister.create(f.addNode("home"));
        HistoryRecorder history = recorder(f);
        for (int c = 0; c < 3; c++) {
            Node n = f.addNode("c" + c);
            HistoryRecorder.Client process = history.client();
            int id = c;
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    CasRegister r = CasRegister.attach(ep, word);
                    for (int i = 0; i < 3; i++) {
                        long expected = i;
                        long desired = 10L * (id + 1) + i;
                        switch ((id + i) % 3) {
                            case 0 -> process.call("cas", null, List.of(expected, desired),
                                () -> r.compareAndSet(expected, desired));
                            case 1 -> process.call("read", null, null, r::get);
                            // getAndSet recorded as the write it is (the model has no swap; its result is unchecked)
                            default -> process.run("write", null, desired, () -> r.getAndSet(desired));
                        }
                    }
                }
            });
        }
        finish(f);
        return history.history();
    }

    private static HistoryRecorder recorder(DetFabric f) {
        return HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
            .unknownOutcomeWhen(e -> e instanceof RemoteAccessException r && r.isIndeterminate()
                || e instanceof NodeCrashedException) // a crashed client's open operation: outcome unknown
            .build();
    }

    private static void finish(DetFabric f) {
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
    }

    @Test
    void remoteRegisterHistoriesAreLinearizable() {
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            History h = runPlain(seed, Setter.FLUSHED);
            assertEquals(Verdict.LINEARIZABLE, Checker.check(h, new RegisterModel(false, 0L)).verdict(),
                h.operations().toString());
        });
    }

    @Test
    void casRegisterHistoriesAreLinearizable() {
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            History h = runCas(seed, FaultPlan.NONE);
            assertEquals(Verdict.LINEARIZABLE, Checker.check(h, new RegisterModel(true, 0L)).verdict(),
                h.operations().toString());
        });
    }

    /** A client's node crashes mid-run: its open operation is of unknown outcome, and the history stays linearizable. */
    @Test
    void historiesStayLinearizableWhenAClientCrashes() {
        AtomicInteger open = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, CRASH_SEEDS, seed -> {
            History plain = runPlain(seed, Setter.FLUSHED, clientCrash(seed));
            assertEquals(Verdict.LINEARIZABLE, Checker.check(plain, new RegisterModel(false, 0L)).verdict(),
                plain.operations().toString());
            History cas = runCas(seed, clientCrash(seed));
            assertEquals(Verdict.LINEARIZABLE, Checker.check(cas, new RegisterModel(true, 0L)).verdict(),
                cas.operations().toString());
            open.addAndGet((int) (plain.operations().stream().filter(Operation::isIndeterminate).count()
                + cas.operations().stream().filter(Operation::isIndeterminate).count()));
        });
        assertTrue(open.get() > 0, "no crash left an operation open");
    }

    /** The control: without the flush READ a completed WRITE is only acknowledged (R11), and a later read misses it. */
    @Test
    void aSetWithoutTheFlushIsCaught() {
        int refuted = 0;
        for (long seed = 1; seed <= SEEDS && refuted == 0; seed++) {
            History h = runPlain(seed, Setter.ACK_ONLY);
            refuted += Checker.check(h, new RegisterModel(false, 0L)).verdict() == Verdict.NOT_LINEARIZABLE ? 1 : 0;
        }
        assertTrue(refuted > 0, "no seed had a read miss an acknowledged WRITE");
    }
}
