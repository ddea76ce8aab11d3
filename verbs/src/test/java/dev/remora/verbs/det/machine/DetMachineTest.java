package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.machine.DetProgram.Fault;
import dev.remora.verbs.det.machine.DetProgram.FaultKind;
import dev.remora.verbs.det.machine.DetProgram.Kind;
import dev.remora.verbs.det.machine.DetProgram.Wr;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deterministic machine through its own API: the parts the litmus conformance tests cannot reach (the
 * deterministic fabric's external threads, late refusals, partial-word stores, locked compare-and-set, step
 * attribution to NICs), the contracts of {@link DetMachine#quiescent()}, {@link DetMachine#maxSteps()} and
 * {@link DetMachine#maxDepth()} at states that are not final, and the explorer's bookkeeping.
 */
class DetMachineTest {

    private static final int NO_TAG = -1;

    private static Wr put(int thread, int node, int[] dst, int[] src) {
        return new Wr(Kind.PUT, thread, node, dst, src, 0, 0, -1, false, false, NO_TAG);
    }

    private static Wr get(int thread, int node, int[] dst, int[] src) {
        return new Wr(Kind.GET, thread, node, dst, src, 0, 0, -1, false, false, NO_TAG);
    }

    private static Wr tagged(Kind kind, int thread, int node, int dst, int src, int tag, WcStatus refusal) {
        return new Wr(kind, thread, node, new int[] {dst}, new int[] {src}, 0, 0, -1, false, false, tag,
            DetProgram.litmusQp(thread, node), refusal);
    }

    private static int[] range(int first, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = first + i;
        }
        return r;
    }

    private static long[] enabled(DetMachine m) {
        long[] out = new long[4096];
        return Arrays.copyOf(out, m.enabled(out));
    }

    private static boolean isEnabled(DetMachine m, long step) {
        for (long s : enabled(m)) {
            if (s == step) {
                return true;
            }
        }
        return false;
    }

    /** Applies a step after checking that it is enabled. */
    private static void step(DetMachine m, int kind, int index, int word) {
        long s = Steps.of(kind, index, word);
        assertTrue(isEnabled(m, s), () -> m.describe(s) + " is not enabled");
        m.apply(s);
    }

    /** Visits every state reachable from {@code start} (depth first, states told apart by fingerprint). */
    private static void forEachReachable(DetMachine start, Consumer<DetMachine> visit) {
        Set<Long> seen = new HashSet<>();
        Deque<DetMachine> todo = new ArrayDeque<>();
        todo.push(start);
        while (!todo.isEmpty()) {
            DetMachine m = todo.pop();
            if (!seen.add(m.fingerprint())) {
                continue;
            }
            visit.accept(m);
            for (long s : enabled(m)) {
                DetMachine next = m.copy();
                next.apply(s);
                todo.push(next);
            }
        }
    }

    private static DetExplorer.Exhaustive exhaustive(DetProgram p) {
        return DetExplorer.exhaustive(p, DetKnobs.WEAK, 1_000_000);
    }

    // ------------------------------------------------------------------ accessors and growth

    @Test
    void shouldExposeItsProgramKnobsAndSizes() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 7);
        int y = b.word("y", 0, 0);
        int t = b.thread(0);
        b.post(put(t, 1, new int[] {x}, new int[] {y}));
        b.thread(2);
        DetProgram p = b.build();
        DetMachine m = new DetMachine(p, DetKnobs.SC);
        assertSame(p, m.program());
        assertSame(DetKnobs.SC, m.knobs());
        assertEquals(2, m.threadCount());
        assertEquals(1, m.wrCount());
        assertEquals(7, m.memory(x));
        m.setMemory(x, 9);
        assertEquals(9, m.memory(x));
        assertEquals(9, m.copy().memory(x));
    }

    @Test
    void shouldAddZeroedWordsAndRequestsWhileRunning() {
        DetProgram.Builder b = new DetProgram.Builder();
        b.word("x", 0, 5);
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        int first = m.addWords(40);
        assertEquals(1, first);
        assertEquals(41, m.addWords(3));
        for (int w = 1; w < 44; w++) {
            assertEquals(0, m.memory(w), "word " + w);
        }
        m.setMemory(43, 11);
        assertEquals(11, m.memory(43));
        assertEquals(5, m.memory(0));
        int t = m.addExternalThread(0);
        assertEquals(0, m.addWr(put(t, 1, new int[] {2}, new int[] {0})));
        assertEquals(1, m.addWr(put(t, 1, new int[] {3}, new int[] {0})));
        assertEquals(2, m.wrCount());
    }

    // ------------------------------------------------------------------ quiescence

    @Test
    void shouldBeQuiescentOnlyOnceThreadsBuffersAndRequestsAreDone() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int y = b.word("y", 1, 0);
        int t = b.thread(0);
        b.op(t, new DetProgram.Store(x, 1));
        int k = b.post(put(t, 1, new int[] {y}, new int[] {x}));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        assertFalse(m.quiescent(), "a thread with operations left");
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.THREAD, t, 0);
        assertFalse(m.storeBufferEmpty(t));
        assertFalse(m.quiescent(), "stores and a doorbell in the store buffer");
        step(m, Steps.DRAIN, t, 0);
        step(m, Steps.DRAIN, t, 0);
        assertTrue(m.storeBufferEmpty(t));
        assertFalse(m.quiescent(), "a request at the NIC, not completed");
        step(m, Steps.PUT_SOURCE_READ, k, 0);
        assertArrayEquals(new long[] {1}, m.dataOf(k));
        step(m, Steps.COMPLETE, k, 0);
        assertFalse(m.quiescent(), "a put completed on its ack but not placed");
        step(m, Steps.PUT_REMOTE_WRITE, k, 0);
        assertTrue(m.quiescent());
        assertEquals(1, m.memory(y));
        assertNull(m.status(k));
    }

    @Test
    void shouldLoseACrashedSendersStoreBufferAndStillFinish() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int y = b.word("y", 1, 0);
        int t = b.thread(0);
        b.op(t, new DetProgram.Store(x, 1));
        b.post(put(t, 1, new int[] {y}, new int[] {x}));
        b.fault(new Fault(FaultKind.CRASH, 0, 0));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.THREAD, t, 0);
        assertFalse(m.isDown(0));
        step(m, Steps.FAULT, 0, 0);
        assertTrue(m.isDown(0));
        assertFalse(m.isDown(1));
        assertTrue(m.storeBufferEmpty(t), "the store buffer dies with its CPU");
        assertEquals(0, enabled(m).length);
        assertTrue(m.quiescent(), "a doorbell lost with its sender is never posted; nothing waits for it");
        assertEquals(0, m.memory(x));
    }

    @Test
    void shouldCountAStateThatBlocksForeverAsStuckWithNoOutcome() {
        DetProgram.Builder b = new DetProgram.Builder();
        b.word("x", 0, 0);
        int t = b.thread(0);
        b.op(t, new DetProgram.Poll(1));
        DetExplorer.Exhaustive e = exhaustive(b.build());
        assertTrue(e.complete());
        assertEquals(1, e.distinctStates());
        assertEquals(1, e.stuckStates());
        assertTrue(e.executions().isEmpty());
        assertNull(DetExplorer.run(b.build(), DetKnobs.WEAK, 1).outcome());
    }

    // ------------------------------------------------------------------ the explorer

    private static DetProgram race() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int r = b.register("a");
        int t0 = b.thread(0);
        b.op(t0, new DetProgram.Store(x, 1));
        int t1 = b.thread(0);
        b.op(t1, new DetProgram.Load(r, x));
        return b.build();
    }

    @Test
    void shouldTellOutcomesApartAndCountTheirExecutions() {
        DetExplorer.Exhaustive e = exhaustive(race());
        assertEquals(2, e.executions().size(), e.executions().toString());
        Map<String, Long> seen = new java.util.TreeMap<>();
        e.executions().forEach((o, n) -> seen.put(o.named(race()).toString(), n));
        assertEquals(Map.of("{x=1, a=0}", 2L, "{x=1, a=1}", 1L), seen);
        DetExplorer.Outcome one = new DetExplorer.Outcome(new long[] {1, 0});
        assertEquals(one, new DetExplorer.Outcome(new long[] {1, 0}));
        assertEquals(one.hashCode(), new DetExplorer.Outcome(new long[] {1, 0}).hashCode());
        assertNotEquals(one, new DetExplorer.Outcome(new long[] {1, 1}));
        assertNotEquals(one, "[1, 0]");
    }

    @Test
    void shouldStopExactlyAtTheStateLimit() {
        long all = exhaustive(race()).distinctStates();
        assertTrue(all > 3, "race has " + all + " states");
        DetExplorer.Exhaustive full = DetExplorer.exhaustive(race(), DetKnobs.WEAK, all);
        assertTrue(full.complete());
        assertEquals(all, full.distinctStates());
        DetExplorer.Exhaustive cut = DetExplorer.exhaustive(race(), DetKnobs.WEAK, all - 1);
        assertFalse(cut.complete());
        assertEquals(all - 1, cut.distinctStates());
    }

    // ------------------------------------------------------------------ bounds

    /** Random walks: every state has at most maxSteps() steps enabled, every execution at most maxDepth() steps. */
    private static void assertBounds(DetProgram p) {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            DetMachine m = new DetMachine(p, DetKnobs.WEAK);
            int depth = 0;
            while (true) {
                long[] steps = enabled(m);
                int bound = m.maxSteps();
                assertTrue(steps.length <= bound, steps.length + " steps enabled, bound " + bound);
                if (steps.length == 0) {
                    break;
                }
                m.apply(steps[random.nextInt(steps.length)]);
                depth++;
            }
            assertTrue(m.quiescent());
            int maxDepth = new DetMachine(p, DetKnobs.WEAK).maxDepth();
            assertTrue(depth <= maxDepth, "an execution of " + depth + " steps, bound " + maxDepth);
        }
    }

    @Test
    void shouldBoundTheStepsOfManyThreadsAndFaults() {
        DetProgram.Builder b = new DetProgram.Builder();
        for (int t = 0; t < 5; t++) {
            int w = b.word("x" + t, t, 0);
            b.thread(t);
            b.op(t, new DetProgram.Store(w, 1));
            b.op(t, new DetProgram.Store(w, 2));
            b.fault(new Fault(FaultKind.CRASH, 10 + t, 0));
        }
        DetProgram p = b.build();
        DetMachine m = new DetMachine(p, DetKnobs.WEAK);
        for (int t = 0; t < 5; t++) {
            step(m, Steps.THREAD, t, 0);
        }
        long[] steps = new long[m.maxSteps()];
        assertEquals(15, m.enabled(steps), "5 stores, 5 drains and 5 faults");
        assertBounds(p);
    }

    @Test
    void shouldBoundTheStepsAndDepthOfALongTransfer() {
        DetProgram.Builder b = new DetProgram.Builder();
        int[] src = new int[16];
        int[] dst = new int[16];
        for (int i = 0; i < 16; i++) {
            src[i] = b.word("s" + i, 0, i + 1);
            dst[i] = b.word("d" + i, 1, 0);
        }
        int t = b.thread(0);
        int k = b.post(put(t, 1, dst, src));
        DetProgram p = b.build();
        DetMachine m = new DetMachine(p, DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.DRAIN, t, 0);
        long[] steps = new long[m.maxSteps()];
        assertEquals(16, m.enabled(steps), "one source read per word");
        for (int i = 0; i < 16; i++) {
            assertEquals(Steps.of(Steps.PUT_SOURCE_READ, k, i), steps[i]);
        }
        assertBounds(p);
    }

    @Test
    void shouldBoundTheDepthOfLongThreadsAndManyFaults() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int t = b.thread(0);
        for (int i = 0; i < 30; i++) {
            b.op(t, new DetProgram.Store(x, i));
        }
        assertBounds(b.build());
        DetProgram.Builder f = new DetProgram.Builder();
        int y = f.word("y", 0, 0);
        int u = f.thread(0);
        f.op(u, new DetProgram.Store(y, 1));
        for (int n = 1; n <= 30; n++) {
            f.fault(new Fault(FaultKind.CRASH, n, 0));
        }
        assertBounds(f.build());
    }

    // ------------------------------------------------------------------ torn transfers

    @Test
    void shouldReadEachWordOfATransferOnce() {
        DetProgram.Builder b = new DetProgram.Builder();
        int[] s = {b.word("s0", 0, 1), b.word("s1", 0, 2)};
        int[] d = {b.word("d0", 1, 0), b.word("d1", 1, 0)};
        int[] r = {b.word("r0", 0, 0), b.word("r1", 0, 0)};
        int t = b.thread(0);
        int kp = b.post(put(t, 1, d, s));
        int t2 = b.thread(0);
        int kg = b.post(get(t2, 1, r, d));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.THREAD, t2, 0);
        step(m, Steps.DRAIN, t, 0);
        step(m, Steps.DRAIN, t2, 0);
        step(m, Steps.PUT_SOURCE_READ, kp, 1);
        step(m, Steps.GET_REMOTE_READ, kg, 1);
        assertFalse(isEnabled(m, Steps.of(Steps.PUT_SOURCE_READ, kp, 1)), "word 1 of the put was read already");
        assertTrue(isEnabled(m, Steps.of(Steps.PUT_SOURCE_READ, kp, 0)));
        assertFalse(isEnabled(m, Steps.of(Steps.GET_REMOTE_READ, kg, 1)), "word 1 of the get was read already");
        assertTrue(isEnabled(m, Steps.of(Steps.GET_REMOTE_READ, kg, 0)));
        assertArrayEquals(new long[] {0, 2}, m.dataOf(kp));
    }

    @Test
    void shouldNeverOfferAWordBeyondA64WordTransfer() {
        DetProgram.Builder b = new DetProgram.Builder();
        int[] src = new int[64];
        int[] dst = new int[64];
        int[] loc = new int[64];
        for (int i = 0; i < 64; i++) {
            src[i] = b.word("s" + i, 0, i);
            dst[i] = b.word("d" + i, 1, 0);
            loc[i] = b.word("r" + i, 0, 0);
        }
        int t = b.thread(0);
        int kp = b.post(put(t, 1, dst, src));
        int t2 = b.thread(0);
        int kg = b.post(get(t2, 1, loc, dst));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.THREAD, t2, 0);
        step(m, Steps.DRAIN, t, 0);
        step(m, Steps.DRAIN, t2, 0);
        step(m, Steps.PUT_SOURCE_READ, kp, 0);
        step(m, Steps.GET_REMOTE_READ, kg, 0);
        long[] steps = enabled(m);
        List<String> remoteWrites = new ArrayList<>();
        List<String> localWrites = new ArrayList<>();
        for (long s : steps) {
            assertTrue(Steps.word(s) < 64, () -> m.describe(s));
            if (Steps.kind(s) == Steps.PUT_REMOTE_WRITE) {
                remoteWrites.add(m.describe(s));
            } else if (Steps.kind(s) == Steps.GET_LOCAL_WRITE) {
                localWrites.add(m.describe(s));
            }
        }
        assertEquals(List.of("wr0.remoteWrite[0]"), remoteWrites);
        assertEquals(List.of("wr1.localWrite[0]"), localWrites);
    }

    // ------------------------------------------------------------------ CPU operations

    @Test
    void shouldMergePartialStoresByteMaskAsX86Does() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0x1111);
        int r = b.register("a");
        int t = b.thread(0);
        b.op(t, new DetProgram.Store(x, 0xAA00, 0xFF00));
        b.op(t, new DetProgram.Store(x, 0x00BB, 0x00FF));
        b.op(t, new DetProgram.Load(r, x));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        assertEquals(0xAA11, m.cpuLoad(t, x), "the buffered bytes over memory");
        assertEquals(0x1111, m.memory(x));
        step(m, Steps.THREAD, t, 0);
        assertEquals(0xAABB, m.cpuLoad(t, x));
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.DRAIN, t, 0);
        assertEquals(0xAA11, m.memory(x));
        step(m, Steps.DRAIN, t, 0);
        assertEquals(0xAABB, m.memory(x));
        assertArrayEquals(new long[] {0xAABB, 0xAABB}, m.outcome());

        DetMachine sc = new DetMachine(b.build(), DetKnobs.SC);
        step(sc, Steps.THREAD, t, 0);
        assertEquals(0xAA11, sc.memory(x), "under SC_MODE a store reaches memory at once, bytes merged");
        step(sc, Steps.THREAD, t, 0);
        assertEquals(0xAABB, sc.memory(x));
    }

    @Test
    void shouldBufferManyStoresInOrder() {
        DetProgram.Builder b = new DetProgram.Builder();
        int[] w = {b.word("x", 0, 0), b.word("y", 0, 0), b.word("z", 0, 0)};
        int t = b.thread(0);
        for (int i = 0; i < 12; i++) {
            b.op(t, new DetProgram.Store(w[i % 3], 100 + i));
        }
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        for (int i = 0; i < 12; i++) {
            step(m, Steps.THREAD, t, 0);
            assertEquals(100 + i, m.cpuLoad(t, w[i % 3]));
        }
        DetMachine copy = m.copy();
        for (int i = 0; i < 12; i++) {
            assertEquals(i < 3 ? 0 : 100 + i - 3, m.memory(w[i % 3]), "memory before drain " + i);
            step(m, Steps.DRAIN, t, 0);
            assertEquals(100 + i, m.memory(w[i % 3]), "drain " + i);
        }
        assertTrue(m.storeBufferEmpty(t));
        assertFalse(copy.storeBufferEmpty(t), "a copy keeps its own store buffer");
        assertEquals(109, copy.cpuLoad(t, w[0]));
        assertEquals(0, copy.memory(w[0]));
    }

    @Test
    void shouldAddAndReturnTheOldValueInALockedAdd() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 5);
        int r = b.register("a");
        int t = b.thread(0);
        b.op(t, new DetProgram.LockedAdd(x, 3, r));
        b.op(t, new DetProgram.LockedAdd(x, 4, -1));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        assertEquals(8, m.memory(x));
        step(m, Steps.THREAD, t, 0);
        assertArrayEquals(new long[] {12, 5}, m.outcome(), "x, then register a (register 0) with the old value");
    }

    @Test
    void shouldCompareAndSetInALockedCasAndReturnTheOldValue() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 5);
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        int t = m.addExternalThread(0);
        m.setPending(t, new DetProgram.LockedCas(x, 4, 9));
        step(m, Steps.THREAD, t, 0);
        assertEquals(5, m.result(t));
        assertEquals(5, m.memory(x), "a failed comparison writes nothing");
        m.setPending(t, new DetProgram.LockedCas(x, 5, 9));
        step(m, Steps.THREAD, t, 0);
        assertEquals(5, m.result(t));
        assertEquals(9, m.memory(x));
        m.setPending(t, new DetProgram.Store(x, 1));
        step(m, Steps.THREAD, t, 0);
        m.setPending(t, new DetProgram.LockedCas(x, 9, 2));
        assertFalse(isEnabled(m, Steps.of(Steps.THREAD, t, 0)), "a locked operation waits for an empty buffer");
        step(m, Steps.DRAIN, t, 0);
        step(m, Steps.THREAD, t, 0);
        assertEquals(1, m.result(t));
        assertEquals(1, m.memory(x));
    }

    @Test
    void shouldRunAnExternalThreadOneOperationAtATime() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 3);
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        int t = m.addExternalThread(0);
        assertEquals(0, t);
        assertFalse(m.hasPending(t));
        assertNull(m.pendingOp(t));
        assertEquals(0, enabled(m).length, "an external thread with nothing pending has no step");
        DetProgram.Op load = new DetProgram.Load(-1, x);
        m.setPending(t, load);
        assertTrue(m.hasPending(t));
        assertSame(load, m.pendingOp(t));
        assertThrows(IllegalStateException.class, () -> m.setPending(t, new DetProgram.MFence()));
        step(m, Steps.THREAD, t, 0);
        assertFalse(m.hasPending(t));
        assertEquals(3, m.result(t));
        m.setPending(t, new DetProgram.MFence());
        m.completeExternally(t, 42);
        assertFalse(m.hasPending(t));
        assertEquals(42, m.result(t));
        m.setPending(t, new DetProgram.MFence());
        m.clearPending(t);
        assertFalse(m.hasPending(t));
        assertEquals(42, m.result(t), "a dropped operation has no result");
        int u = m.addExternalThread(1);
        assertEquals(1, u);
        assertEquals(2, m.threadCount());
    }

    // ------------------------------------------------------------------ completions: poll and wait

    /** The statuses the only register takes in the program's final states. */
    private static Set<Long> finalRegister(DetProgram p) {
        DetExplorer.Exhaustive e = exhaustive(p);
        assertTrue(e.complete());
        assertEquals(0, e.stuckStates(), "executions that block forever");
        Set<Long> values = new HashSet<>();
        e.executions().keySet().forEach(o -> values.add(o.values()[o.values().length - 1]));
        return values;
    }

    @Test
    void shouldRetireOnlyTheWaitedTagSoAPollGetsTheOtherRequest() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int y = b.word("y", 1, 0);
        int one = b.word("one", 0, 1);
        int s = b.register("s");
        int t = b.thread(0);
        b.post(tagged(Kind.PUT, t, 1, x, one, 1, WcStatus.REM_ACCESS_ERR));
        b.post(tagged(Kind.PUT, t, 1, y, one, 2, null));
        b.op(t, new DetProgram.Wait(2));
        b.op(t, new DetProgram.Poll(1, s));
        assertEquals(Set.of((long) DetMachine.statusCode(WcStatus.REM_ACCESS_ERR)), finalRegister(b.build()));
    }

    @Test
    void shouldNotRetireARequestThatIsNotPostedYet() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int y = b.word("y", 1, 0);
        int one = b.word("one", 0, 1);
        int s = b.register("s");
        int t = b.thread(0);
        b.post(tagged(Kind.PUT, t, 1, x, one, 2, WcStatus.REM_ACCESS_ERR));
        b.op(t, new DetProgram.Wait(2));
        b.post(tagged(Kind.PUT, t, 1, y, one, 2, null));
        b.op(t, new DetProgram.Poll(1, s));
        assertEquals(Set.of((long) DetMachine.statusCode(WcStatus.WR_FLUSH_ERR)), finalRegister(b.build()));
    }

    @Test
    void shouldRetireOnlyTheWaitingThreadsRequests() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 2, 0);
        int z = b.word("z", 2, 0);
        int one = b.word("one", 0, 1);
        int two = b.word("two", 1, 2);
        int s = b.register("s");
        int t0 = b.thread(0);
        b.post(tagged(Kind.PUT, t0, 2, x, one, 2, null));
        b.op(t0, new DetProgram.Wait(2));
        int t1 = b.thread(1);
        b.post(tagged(Kind.PUT, t1, 2, z, two, 2, null));
        b.op(t1, new DetProgram.Poll(2, s));
        assertEquals(Set.of(0L), finalRegister(b.build()));
    }

    // ------------------------------------------------------------------ late refusals (the fabric)

    private static DetProgram twoPuts() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int y = b.word("y", 1, 0);
        int one = b.word("one", 0, 1);
        int t = b.thread(0);
        b.post(put(t, 1, new int[] {x}, new int[] {one}));
        b.post(put(t, 1, new int[] {y}, new int[] {one}));
        return b.build();
    }

    @Test
    void shouldRefuseARequestTheNicHasNotTakenAndFlushItsSuccessors() {
        DetMachine m = new DetMachine(twoPuts(), DetKnobs.WEAK);
        int qp = m.wrAt(0).qp();
        assertFalse(m.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR), "not posted yet");
        assertNull(m.wrAt(0).refusal());
        step(m, Steps.THREAD, 0, 0);
        step(m, Steps.THREAD, 0, 0);
        Wr before = m.wrAt(0);
        assertSame(before, m.wrAt(0), "unchanged while not refused");
        assertTrue(m.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR));
        assertTrue(m.refuseIfUntaken(0, WcStatus.LOC_PROT_ERR), "refused already");
        assertEquals(WcStatus.REM_ACCESS_ERR, m.wrAt(0).refusal());
        assertFalse(m.isQueuePairInError(qp));
        List<String> problems = new ArrayList<>();
        forEachReachable(m, s -> {
            for (long st : enabled(s)) {
                int kind = Steps.kind(st);
                if (Steps.index(st) <= 1 && (kind == Steps.PUT_SOURCE_READ || kind == Steps.PUT_REMOTE_WRITE)) {
                    problems.add(s.describe(st));
                }
            }
            if (s.quiescent()) {
                if (s.status(0) != WcStatus.REM_ACCESS_ERR || s.status(1) != WcStatus.WR_FLUSH_ERR) {
                    problems.add("statuses " + s.status(0) + ", " + s.status(1));
                }
                if (!s.isQueuePairInError(qp)) {
                    problems.add("queue pair not in error");
                }
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void shouldNotRefuseARequestOnceItOrALaterOneOfItsQueuePairStarted() {
        DetMachine m = new DetMachine(twoPuts(), DetKnobs.WEAK);
        step(m, Steps.THREAD, 0, 0);
        step(m, Steps.THREAD, 0, 0);
        step(m, Steps.DRAIN, 0, 0);
        step(m, Steps.DRAIN, 0, 0);
        DetMachine read = m.copy();
        step(read, Steps.PUT_SOURCE_READ, 0, 0);
        assertFalse(read.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR), "its source was read");
        assertTrue(read.copy().refuseIfUntaken(1, WcStatus.REM_ACCESS_ERR), "the later put has not started");
        DetMachine done = read.copy();
        step(done, Steps.PUT_SOURCE_READ, 1, 0);
        step(done, Steps.PUT_REMOTE_WRITE, 0, 0);
        step(done, Steps.COMPLETE, 0, 0);
        assertFalse(done.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR), "completed");
        assertNull(done.wrAt(0).refusal());

        // A get passed by a later put of its queue pair was checked already (R8 lets the put's source read go first).
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int r = b.word("r", 0, 0);
        int one = b.word("one", 0, 1);
        int t = b.thread(0);
        b.post(get(t, 1, new int[] {r}, new int[] {x}));
        b.post(put(t, 1, new int[] {x}, new int[] {one}));
        DetMachine g = new DetMachine(b.build(), DetKnobs.WEAK);
        for (int i = 0; i < 2; i++) {
            step(g, Steps.THREAD, t, 0);
        }
        for (int i = 0; i < 2; i++) {
            step(g, Steps.DRAIN, t, 0);
        }
        step(g, Steps.PUT_SOURCE_READ, 1, 0);
        assertFalse(g.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR));
        assertNull(g.wrAt(0).refusal());
    }

    @Test
    void shouldRefuseAnInlinePutUntilItIsPlaced() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int one = b.word("one", 0, 1);
        int t = b.thread(0);
        b.post(new Wr(Kind.PUT, t, 1, new int[] {x}, new int[] {one}, 0, 0, -1, false, true, NO_TAG));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        assertArrayEquals(new long[] {1}, m.dataOf(0), "copied at post");
        step(m, Steps.DRAIN, t, 0);
        assertTrue(m.copy().refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR), "copied at post, not taken by the NIC");
        step(m, Steps.PUT_REMOTE_WRITE, 0, 0);
        assertFalse(m.refuseIfUntaken(0, WcStatus.REM_ACCESS_ERR), "placed");
    }

    @Test
    void shouldNotRefuseARequestThatHasItsStatus() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 1, 0);
        int one = b.word("one", 0, 1);
        int t = b.thread(0);
        b.post(tagged(Kind.PUT, t, 1, x, one, NO_TAG, WcStatus.REM_ACCESS_ERR));
        b.post(tagged(Kind.PUT, t, 1, x, one, NO_TAG, null));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        for (int i = 0; i < 2; i++) {
            step(m, Steps.THREAD, t, 0);
        }
        for (int i = 0; i < 2; i++) {
            step(m, Steps.DRAIN, t, 0);
        }
        step(m, Steps.FAIL, 0, 0);
        step(m, Steps.FAIL, 1, 0);
        assertEquals(WcStatus.WR_FLUSH_ERR, m.status(1));
        assertFalse(m.refuseIfUntaken(1, WcStatus.LOC_PROT_ERR), "flushed already");
        assertNull(m.wrAt(1).refusal());
        assertTrue(m.isQueuePairInError(m.wrAt(0).qp()));
    }

    @Test
    void shouldPutAQueuePairInErrorWhenAFaultForcesIt() {
        DetMachine m = new DetMachine(twoPuts(), DetKnobs.WEAK);
        int qp = m.wrAt(0).qp();
        assertFalse(m.isQueuePairInError(qp));
        m.applyFault(new Fault(FaultKind.QP_ERROR, qp + 1, 0));
        assertFalse(m.isQueuePairInError(qp));
        m.applyFault(new Fault(FaultKind.QP_ERROR, qp, 0));
        assertTrue(m.isQueuePairInError(qp));
    }

    // ------------------------------------------------------------------ step attribution

    @Test
    void shouldAttributeEachStepToTheNicThatPerformsIt() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 5, 0);
        int r = b.word("r", 3, 0);
        int t = b.thread(3);
        b.post(put(t, 5, new int[] {x}, new int[] {r}));
        b.fault(new Fault(FaultKind.CRASH, 5, 0));
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        for (int kind : new int[] {Steps.THREAD, Steps.DRAIN, Steps.FAULT}) {
            assertEquals(-1, m.nicNode(Steps.of(kind, 0, 0)), "kind " + kind);
        }
        for (int kind : new int[] {Steps.PUT_REMOTE_WRITE, Steps.GET_REMOTE_READ, Steps.ATOMIC_READ,
            Steps.ATOMIC_WRITE}) {
            assertEquals(5, m.nicNode(Steps.of(kind, 0, 0)), "the target's NIC, kind " + kind);
        }
        for (int kind : new int[] {Steps.PUT_SOURCE_READ, Steps.GET_LOCAL_WRITE, Steps.ATOMIC_LOCAL_WRITE,
            Steps.FAIL, Steps.COMPLETE, Steps.ABANDON}) {
            assertEquals(3, m.nicNode(Steps.of(kind, 0, 0)), "the sender's NIC, kind " + kind);
        }
        assertEquals(0, m.threadOf(Steps.of(Steps.THREAD, 0, 0)));
        assertEquals(7, m.threadOf(Steps.of(Steps.DRAIN, 7, 0)));
        for (int kind = Steps.PUT_SOURCE_READ; kind <= Steps.FAULT; kind++) {
            assertEquals(-1, m.threadOf(Steps.of(kind, 7, 0)), "kind " + kind);
        }
    }

    // ------------------------------------------------------------------ program building and validation

    @Test
    void shouldBuildProgramsThatKnowTheirNodes() {
        DetProgram.Builder b = new DetProgram.Builder();
        assertEquals(0, b.word("x", 4, 0));
        assertEquals(1, b.word("y", 2, 0));
        assertEquals(0, new DetProgram.Builder().build().nodes());
        DetProgram.Builder c = new DetProgram.Builder();
        c.word("x", 4, 0);
        assertEquals(5, c.build().nodes());
        int t = c.thread(6);
        assertEquals(7, c.build().nodes());
        assertSame(c, c.op(t, new DetProgram.MFence()).op(t, new DetProgram.MFence()));
        assertEquals(0, c.post(put(t, 8, new int[] {0}, new int[] {0})));
        assertEquals(1, c.post(put(t, 8, new int[] {0}, new int[] {0})));
        assertEquals(9, c.build().nodes());
        Fault crash = new Fault(FaultKind.CRASH, 4, 0);
        assertSame(c, c.fault(crash));
        assertThrows(IllegalArgumentException.class, () -> c.fault(crash));
        DetProgram p = c.build();
        assertEquals(4, p.threadOps().get(t).size(), "two fences and two posts");
        assertEquals(List.of(crash), p.faults());
    }

    @Test
    void shouldAcceptTransfersOfOneTo64WordsAndAtomicsWithAnyResultWord() {
        assertEquals(64, put(0, 1, range(0, 64), range(64, 64)).words());
        assertThrows(IllegalArgumentException.class, () -> put(0, 1, range(0, 65), range(65, 65)));
        assertThrows(IllegalArgumentException.class, () -> put(0, 1, new int[0], new int[0]));
        assertThrows(IllegalArgumentException.class, () -> put(0, 1, range(0, 2), range(2, 1)));
        Wr faa = new Wr(Kind.FAA, 0, 1, new int[] {1}, new int[0], 0, 1, 0, false, false, NO_TAG);
        assertEquals(0, faa.res());
        assertTrue(faa.isAtomic());
        assertThrows(IllegalArgumentException.class,
            () -> new Wr(Kind.FAA, 0, 1, new int[] {1}, new int[0], 0, 1, -1, false, false, NO_TAG));
        assertThrows(IllegalArgumentException.class,
            () -> new Wr(Kind.CAS, 0, 1, new int[] {1, 2}, new int[0], 0, 1, 0, false, false, NO_TAG));
    }

    @Test
    void shouldTellCutLinksApart() {
        FaultState f = new FaultState();
        f.add(new Fault(FaultKind.CUT, 2, 0));
        assertTrue(f.cut(0, 2));
        assertTrue(f.cut(2, 0));
        assertFalse(f.cut(1, 2));
        assertFalse(f.cut(0, 1));
        assertTrue(f.broken(2, 0, 99));
        assertFalse(f.broken(1, 2, 99));
        assertEquals(WcStatus.RETRY_EXC_ERR, f.breakStatus(0, 2));
        assertEquals(WcStatus.WR_FLUSH_ERR, f.breakStatus(1, 2));
    }

    /**
     * Thirty puts of 1, 2, ... 30 to one word on one queue pair, in one doorbell, and the reads that flush them:
     * whatever the schedule, the word ends at 30 (R6) and the read after them sees 30 (R7). Many requests of one queue
     * pair are in flight at once here, so its bookkeeping grows.
     */
    @Test
    void shouldPlaceManyPutsOfOneQueuePairInPostingOrder() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int r = b.word("r", 1, 0);
        int[] src = new int[30];
        for (int i = 0; i < src.length; i++) {
            src[i] = b.word("v" + i, 1, i + 1);
        }
        int t = b.thread(1);
        DetProgram p0 = b.build();
        List<Wr> wrs = new ArrayList<>();
        for (int i = 0; i < src.length; i++) {
            wrs.add(put(t, 0, new int[] {x}, new int[] {src[i]}));
        }
        wrs.add(get(t, 0, new int[] {r}, new int[] {x}));
        int[] all = range(0, wrs.size());
        DetProgram p = new DetProgram(p0.nodes(), p0.wordNames(), p0.wordNodes(), p0.initial(), p0.registerNames(),
            p0.threadNodes(), List.of(List.of(new DetProgram.PostAll(all))), wrs, List.of());
        for (long seed = 1; seed <= 50; seed++) {
            DetExplorer.Run run = DetExplorer.run(p, DetKnobs.WEAK, seed);
            assertTrue(run.outcome() != null, "seed " + seed + " got stuck");
            assertEquals(30, run.outcome().values()[x], "seed " + seed + ": puts of one queue pair landed out of order");
            assertEquals(30, run.outcome().values()[r], "seed " + seed + ": the read passed an earlier put");
        }
    }

    /** A request another queue pair has overtaken is still untaken: the responder checks each queue pair in order. */
    @Test
    void shouldRefuseARequestWhenOnlyAnotherQueuePairsLaterRequestStarted() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 0);
        int y = b.word("y", 2, 0);
        int s = b.word("s", 1, 1);
        DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
        int ext = m.addExternalThread(1);
        int toX = m.addWr(new Wr(Kind.PUT, ext, 0, new int[] {x}, new int[] {s}, 0, 0, -1, false, false, NO_TAG, 1,
            null));
        int toY = m.addWr(new Wr(Kind.PUT, ext, 2, new int[] {y}, new int[] {s}, 0, 0, -1, false, false, NO_TAG, 2,
            null));
        m.setPending(ext, new DetProgram.PostAll(new int[] {toX, toY}));
        step(m, Steps.THREAD, ext, 0);
        step(m, Steps.DRAIN, ext, 0);
        step(m, Steps.DRAIN, ext, 0);
        step(m, Steps.PUT_SOURCE_READ, toY, 0);
        assertTrue(m.refuseIfUntaken(toX, WcStatus.REM_ACCESS_ERR), "a later request of another queue pair started");
    }

    /**
     * Puts of 1 to 12 to one word on one queue pair, added while the machine runs (as the fabric adds them) in three
     * doorbells of four, with a random number of steps between the doorbells: the queue pair's list of unfinished
     * requests fills, and requests finished at its front make room for later ones. Whatever the schedule the word ends
     * at 12 (R6).
     */
    @Test
    void shouldKeepPostingOrderWhenFinishedRequestsMakeRoomForLaterOnes() {
        for (long seed = 1; seed <= 200; seed++) {
            DetProgram.Builder b = new DetProgram.Builder();
            int x = b.word("x", 0, 0);
            int[] src = new int[12];
            for (int i = 0; i < src.length; i++) {
                src[i] = b.word("v" + i, 1, i + 1);
            }
            DetMachine m = new DetMachine(b.build(), DetKnobs.WEAK);
            int ext = m.addExternalThread(1);
            SplittableRandom random = new SplittableRandom(seed);
            for (int d = 0; d < 3; d++) {
                int[] batch = new int[4];
                for (int i = 0; i < 4; i++) {
                    batch[i] = m.addWr(new Wr(Kind.PUT, ext, 0, new int[] {x}, new int[] {src[4 * d + i]}, 0, 0, -1,
                        false, false, NO_TAG, 1, null));
                }
                m.setPending(ext, new DetProgram.PostAll(batch));
                step(m, Steps.THREAD, ext, 0);
                int budget = d == 2 ? 10_000 : random.nextInt(24);
                for (int i = 0; i < budget; i++) {
                    long[] e = enabled(m);
                    if (e.length == 0) {
                        break;
                    }
                    m.apply(e[random.nextInt(e.length)]);
                }
            }
            assertEquals(0, enabled(m).length, "seed " + seed + " did not finish");
            assertEquals(12, m.memory(x), "seed " + seed + ": puts of one queue pair landed out of order");
        }
    }

    /**
     * A fetch-and-add whose atomic is done when its queue pair breaks never writes its result (the requester side of
     * a broken queue pair does nothing), so once it has failed nothing is left to happen: the machine is quiescent.
     */
    @Test
    void shouldBeQuiescentWhenABrokenQueuePairsAtomicIsDoneButNeverReturnsItsResult() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x = b.word("x", 0, 5);
        int res = b.word("res", 1, 0);
        int t = b.thread(1);
        DetProgram p0 = b.build();
        List<Wr> wrs = List.of(new Wr(Kind.FAA, t, 0, new int[] {x}, new int[0], 0, 1, res, false, false, NO_TAG));
        DetProgram p = new DetProgram(p0.nodes(), p0.wordNames(), p0.wordNodes(), p0.initial(), p0.registerNames(),
            p0.threadNodes(), List.of(List.of(new DetProgram.PostAll(new int[] {0}))), wrs, List.of());
        DetMachine m = new DetMachine(p, DetKnobs.WEAK);
        step(m, Steps.THREAD, t, 0);
        step(m, Steps.DRAIN, t, 0);
        step(m, Steps.ATOMIC_READ, 0, 0);
        step(m, Steps.ATOMIC_WRITE, 0, 0);
        m.applyFault(new Fault(FaultKind.QP_ERROR, m.wrAt(0).qp(), 0));
        assertFalse(isEnabled(m, Steps.of(Steps.ATOMIC_LOCAL_WRITE, 0, 0)), "a broken queue pair returns no result");
        assertFalse(m.quiescent(), "the request has not completed yet");
        step(m, Steps.FAIL, 0, 0);
        step(m, Steps.COMPLETE, 0, 0);
        assertEquals(6, m.memory(x), "the atomic took effect");
        assertEquals(0, m.memory(res), "its result never came back");
        assertTrue(m.quiescent(), () -> "nothing is left to happen: " + Arrays.stream(enabled(m)).mapToObj(m::describe).toList());
    }
}
