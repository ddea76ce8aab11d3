package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.machine.DetProgram.Fault;
import dev.remora.verbs.det.machine.DetProgram.FaultKind;
import dev.remora.verbs.det.machine.DetProgram.Kind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The machine's state is all in its fingerprint and all in its copies: the exhaustive search merges states by
 * fingerprint and explores copies, so a field left out of either makes it explore the wrong state space.
 */
class DetMachineStateTest {

    /** N1 puts two words to N0 and CASes a third; N0 stores locally. */
    private static DetProgram program() {
        DetProgram.Builder b = new DetProgram.Builder();
        int x0 = b.word("x0", 0, 0);
        int x1 = b.word("x1", 0, 0);
        int l = b.word("l", 0, 0);
        int s0 = b.word("s0", 1, 1);
        int s1 = b.word("s1", 1, 2);
        int res = b.word("res", 1, 9);
        int t1 = b.thread(1);
        int t0 = b.thread(0);
        b.post(new DetProgram.Wr(Kind.PUT, t1, 0, new int[] {x0, x1}, new int[] {s0, s1}, 0, 0, -1, false, false, -1));
        b.post(new DetProgram.Wr(Kind.CAS, t1, 0, new int[] {l}, new int[0], 0, 1, res, false, false, -1));
        b.op(t0, new DetProgram.Store(l, 5));
        b.fault(new Fault(FaultKind.CUT, 0, 1));
        return b.build();
    }

    @Test
    void shouldChangeTheFingerprintWhenAFaultHappens() {
        DetMachine m = new DetMachine(program(), DetKnobs.WEAK);
        Set<Long> prints = new HashSet<>();
        prints.add(m.fingerprint());
        for (Fault f : new Fault[] {new Fault(FaultKind.CRASH, 0, 0), new Fault(FaultKind.CUT, 0, 1),
            new Fault(FaultKind.QP_ERROR, DetProgram.litmusQp(0, 0), 0)}) {
            DetMachine c = m.copy();
            c.applyFault(f);
            assertTrue(prints.add(c.fingerprint()), "the fingerprint does not see " + f);
        }
    }

    @Test
    void shouldGiveTheSameFingerprintWhateverTheOrderOfFaults() {
        Fault a = new Fault(FaultKind.CRASH, 2, 0);
        Fault b = new Fault(FaultKind.CUT, 0, 1);
        DetMachine m1 = new DetMachine(program(), DetKnobs.WEAK);
        DetMachine m2 = m1.copy();
        m1.applyFault(a);
        m1.applyFault(b);
        m2.applyFault(b);
        m2.applyFault(a);
        assertEquals(m1.fingerprint(), m2.fingerprint(), "faulted is a set");
    }

    /** A copy taken anywhere behaves as its original for every later step, faults and external threads included. */
    @Test
    void shouldCopyEveryPartOfTheState() {
        for (long seed = 1; seed <= 300; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            DetMachine m = new DetMachine(program(), DetKnobs.WEAK);
            // An external thread on node 1 posting through a queue pair of its own.
            int ext = m.addExternalThread(1);
            int w = m.addWords(2);
            int k = m.addWr(new DetProgram.Wr(Kind.FAA, ext, 0, new int[] {w}, new int[0], 0, 1, w + 1, false, false,
                -1, 77, null));
            m.setPending(ext, new DetProgram.PostAll(new int[] {k}));
            long[] steps = new long[256];
            int copyAt = r.nextInt(12);
            DetMachine copy = null;
            for (int i = 0; ; i++) {
                if (i == copyAt) {
                    copy = m.copy();
                    assertEquals(m.fingerprint(), copy.fingerprint(), "seed " + seed);
                }
                int n = m.enabled(steps);
                if (copy != null) {
                    long[] other = new long[256];
                    int n2 = copy.enabled(other);
                    assertArrayEquals(Arrays.copyOf(steps, n), Arrays.copyOf(other, n2), "seed " + seed + " step " + i
                        + ": the copy offers other steps");
                }
                if (n == 0) {
                    break;
                }
                long step = steps[r.nextInt(n)];
                m.apply(step);
                if (copy != null) {
                    copy.apply(step);
                    assertEquals(m.fingerprint(), copy.fingerprint(), "seed " + seed + " step " + i);
                    assertArrayEquals(m.outcome(), copy.outcome());
                }
            }
        }
    }

    private static Object nonDefault(Class<?> type) {
        if (type == boolean.class) {
            return true;
        }
        if (type == byte.class) {
            return (byte) 2;
        }
        if (type == long.class) {
            return 0x5A5AL;
        }
        if (type == WcStatus.class) {
            return WcStatus.REM_ACCESS_ERR;
        }
        throw new AssertionError("add a non-default value for " + type + " to this test");
    }

    /** Every field of a request's state is copied and hashed (a new field left out of either fails here). */
    @Test
    void shouldCopyAndHashEveryFieldOfARequestsState() throws IllegalAccessException {
        for (Field f : WrTable.State.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            f.setAccessible(true);
            WrTable.State s = new WrTable.State(2, null);
            long before = s.hash(0);
            if (Modifier.isFinal(f.getModifiers())) {
                long[] data = (long[]) f.get(s);
                data[1] = 7;
            } else {
                f.set(s, nonDefault(f.getType()));
            }
            assertNotEquals(before, s.hash(0), "hash ignores " + f.getName());
            WrTable.State c = s.copy();
            assertEquals(s.hash(0), c.hash(0), "copy loses " + f.getName());
            if (f.getType().isArray()) {
                assertArrayEquals((long[]) f.get(s), (long[]) f.get(c), f.getName());
                assertTrue(f.get(s) != f.get(c), "copy shares " + f.getName());
            } else {
                assertEquals(f.get(s), f.get(c), "copy loses " + f.getName());
            }
        }
    }
}
