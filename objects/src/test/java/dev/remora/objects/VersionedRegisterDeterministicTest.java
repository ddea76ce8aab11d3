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
 * The versioned registers, unchanged, on the deterministic fabric under the weak model ({@link DetKnobs#WEAK}: a
 * multi-word READ or WRITE moves its words one step at a time in any order, R18), over many seeds. Every operation is
 * recorded by a {@link HistoryRecorder} (values as hex strings) and the history is checked against the checker's
 * {@code register} model. A control shows that the test can fail: a reader that checks only the tags of the first
 * and last data word (the two-ended version check of the classic seqlock) is caught returning a mix of two writes.
 */
class VersionedRegisterDeterministicTest {
    /**
     * Seeds of the single-writer register: 750 without faults and 250 with the writer's node crashing (the
     * {@code thorough} profile raises them five times).
     */
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 3 / 4;
    private static final int CRASH_SEEDS = Integer.getInteger("remora.test.seeds", 1000) / 4;
    /**
     * Seeds of the multi-writer test: 700 (with {@link MultiWriterLeaseDeterministicTest}'s 300 crash seeds, 1,000 for
     * the multi-writer register).
     */
    private static final int MULTI_WRITER_SEEDS = Integer.getInteger("remora.test.seeds", 1000) * 7 / 10;
    private static final int MAX_LENGTH = 16;
    private static final HexFormat HEX = HexFormat.of();

    /** How a reader reads: the register's own {@code get}, or the control that checks only the ends. */
    private enum Reader { SAFE, ENDS_ONLY }

    private interface Register {
        byte[] get();

        void set(byte[] value);
    }

    private static Register single(Endpoint ep, RemoteAddress base) {
        SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, base, MAX_LENGTH);
        return new Register() {
            public byte[] get() {
                return r.get();
            }

            public void set(byte[] value) {
                r.set(value);
            }
        };
    }

    private static Register multi(Endpoint ep, RemoteAddress base) {
        MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, MAX_LENGTH);
        return new Register() {
            public byte[] get() {
                return r.get();
            }

            public void set(byte[] value) {
                r.set(value);
            }
        };
    }

    /** The control: one READ, the tags of only the header and the last data word compared. */
    private static byte[] readEndsOnly(VersionedAccess access) {
        for (int attempt = 0; attempt < VersionedAccess.MAX_READ_ATTEMPTS; attempt++) {
            long[] w = access.readWords();
            if (VersionedRegisterDescriptor.tagOf(w[0]) == VersionedRegisterDescriptor.tagOf(w[w.length - 1])) {
                byte[] v = VersionedRegisterDescriptor.decodeUnchecked(w, MAX_LENGTH);
                if (v != null) {
                    return v;
                }
            }
        }
        throw new RegisterContendedException("ends-only read", VersionedAccess.MAX_READ_ATTEMPTS);
    }

    private record Run(History history, int mixes, DetFabric.Result result) {
    }

    /**
     * One seed: {@code writers} writers (each on its own node) write {@code writes} values each, two readers on two
     * other nodes read {@code reads} times each.
     */
    private static Run run(long seed, boolean multiWriter, int writers, int writes, int reads, Reader reader) {
        return run(seed, multiWriter, writers, writes, reads, reader, FaultPlan.NONE);
    }

    private static Run run(long seed, boolean multiWriter, int writers, int writes, int reads, Reader reader,
                           FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(faults));
        Node home = f.addNode("home");
        RemoteAddress base = multiWriter ? MultiWriterVersionedRegister.create(home, MAX_LENGTH)
            : SingleWriterVersionedRegister.create(home, MAX_LENGTH);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("det-run")
            .unknownOutcomeWhen(e -> e instanceof RemoteAccessException r && r.isIndeterminate()
                || e instanceof WriteOvertakenException
                || e instanceof NodeCrashedException) // a crashed writer's open write: outcome unknown
            .build();
        AtomicInteger mixes = new AtomicInteger();
        for (int w = 0; w < writers; w++) {
            Node n = f.addNode("w" + w);
            HistoryRecorder.Client process = history.client();
            int id = w + 1;
            f.spawn(n, "writer" + w, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    Register r = multiWriter ? multi(ep, base) : single(ep, base);
                    for (int s = 1; s <= writes; s++) {
                        byte[] v = RegistersContract.value(id, 3 * s); // 16 bytes: four data words and the header
                        process.run("write", null, HEX.formatHex(v), () -> r.set(v));
                    }
                }
            });
        }
        for (int c = 0; c < 2; c++) {
            Node n = f.addNode("r" + c);
            HistoryRecorder.Client process = history.client();
            f.spawn(n, "reader" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    Register r = multiWriter ? multi(ep, base) : single(ep, base);
                    VersionedAccess raw = new VersionedAccess(ep, base, MAX_LENGTH);
                    for (int i = 0; i < reads; i++) {
                        try {
                            String hex = process.call("read", null, null, () -> {
                                byte[] v = reader == Reader.SAFE ? r.get() : readEndsOnly(raw);
                                return HEX.formatHex(v);
                            });
                            if (RegistersContract.idOf(HEX.parseHex(hex)) < 0) {
                                mixes.incrementAndGet();
                            }
                        } catch (RegisterContendedException e) {
                            // recorded as a failed read, which has no effect; the reader goes on
                        }
                    }
                }
            });
        }
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        return new Run(history.history(), mixes.get(), r);
    }

    private static Verdict check(History h) {
        return Checker.check(h, new RegisterModel(false, "")).verdict();
    }

    @Test
    void singleWriterHistoriesAreLinearizableForEverySeed() {
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            Run run = run(seed, false, 1, 3, 3, Reader.SAFE);
            assertEquals(0, run.mixes(), "a reader returned a mix of two writes: " + run.result().describe());
            assertEquals(Verdict.LINEARIZABLE, check(run.history()), run.history().operations().toString());
        });
    }

    /**
     * The single writer's node (id 1) crashes at a step drawn from the seed, possibly with its WRITE in flight, whose
     * words may still land in any order (R18, R20): no reader returns a mix, and the history (the crashed write open,
     * of unknown outcome) stays linearizable.
     */
    @Test
    void singleWriterHistoriesStayLinearizableWhenTheWriterCrashes() {
        AtomicInteger open = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, CRASH_SEEDS, seed -> {
            SplittableRandom random = new SplittableRandom(seed ^ 0xFEEDL);
            // a run without faults takes some 300 to 500 steps
            Run run = run(seed, false, 1, 3, 3, Reader.SAFE,
                FaultPlan.of(new FaultPlan.Crash(random.nextLong(10, 350), 1, false)));
            assertEquals(0, run.mixes(), "a reader returned a mix of two writes: " + run.result().describe());
            assertEquals(Verdict.LINEARIZABLE, check(run.history()), run.history().operations().toString());
            open.addAndGet((int) run.history().operations().stream().filter(o -> o.isIndeterminate()).count());
        });
        assertTrue(open.get() > 0, "no crash left a write open");
    }

    @Test
    void multiWriterHistoriesAreLinearizableForEverySeed() {
        DetRuns.forEachSeedInParallel(1, MULTI_WRITER_SEEDS, seed -> {
            Run run = run(seed, true, 2, 2, 2, Reader.SAFE);
            assertEquals(0, run.mixes(), "a reader returned a mix of two writes: " + run.result().describe());
            assertEquals(Verdict.LINEARIZABLE, check(run.history()), run.history().operations().toString());
        });
    }

    /** The control: checking only the two ends is not enough when the READ's words come in any order. */
    @Test
    void aReaderThatChecksOnlyTheEndsIsCaught() {
        int caught = 0;
        int refuted = 0;
        for (long seed = 1; seed <= 300 && refuted == 0; seed++) {
            Run run = run(seed, false, 1, 3, 3, Reader.ENDS_ONLY);
            caught += run.mixes() > 0 ? 1 : 0;
            refuted += check(run.history()) == Verdict.NOT_LINEARIZABLE ? 1 : 0;
        }
        assertTrue(caught > 0, "no seed tore a READ between its first and last word");
        assertTrue(refuted > 0, "the checker refuted no history of the ends-only reader");
    }
}
