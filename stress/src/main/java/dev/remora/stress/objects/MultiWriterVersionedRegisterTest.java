package dev.remora.stress.objects;

import dev.remora.objects.MultiWriterVersionedRegister;
import dev.remora.objects.RegisterContendedException;
import dev.remora.objects.WriteOvertakenException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * {@link MultiWriterVersionedRegister} of 16-byte values: client 1 sets A (16 bytes of 1) while client 2 gets, sets B
 * (16 bytes of 2) and gets again. (Two actors, not three: jcstress schedules at most one actor per CPU, and CI has
 * two; the second writer is also the reader.) The writers take the control word in turn by CAS (rao, R14) and each
 * releases it only after its WRITE is placed (the release CAS executes after it, R7), so their words land one write
 * after the other; every word carries its write's tag, and a reader accepts only one tag (R18). So every get returns
 * the empty initial value, A or B whole, in an order some sequence of the two sets explains: a first get of A means A
 * came before B, so the second get and the final value are B; a second get of A means A came after B, so the final
 * value is A. The lease is 10 s, far longer than any pause here, so no writer is overtaken.
 *
 * <p>Result: {@code r1}, {@code r2} = client 2's gets before and after its set (0 = empty, 1 = A, 2 = B, -1 =
 * anything else, -2 = RegisterContendedException), {@code r3} = a get after both actors, {@code r4} = what the sets
 * threw (0 nothing, 1 RegisterContendedException, 2 WriteOvertakenException; the larger if both threw).
 */
@JCStressTest
@State
@Description("MultiWriterVersionedRegister: two writers, one also reading; every value seen is one writer's, whole")
@Outcome(id = "0, 1, 1, 0", expect = Expect.ACCEPTABLE,
    desc = "B, then A placed between B and the second get; A is the final value")
@Outcome(id = "0, 2, 1, 0", expect = Expect.ACCEPTABLE,
    desc = "B, then A placed after the second get; A is the final value")
@Outcome(id = "0, 2, 2, 0", expect = Expect.ACCEPTABLE,
    desc = "A placed after the first get and before B; B is the final value")
@Outcome(id = "1, 2, 2, 0", expect = Expect.ACCEPTABLE, desc = "A placed before the first get, then B")
@Outcome(id = "(-2, 1, 1|-2, 2, [12]|0, -2, [12]|1, -2, 2|-2, -2, [12]), 0", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "a get gave up after 64 torn snapshots in a row (RegisterContendedException: the named retry result)")
@Outcome(id = "(-2|0|1|2), (-2|0|1|2), [12], [12]", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "a set gave up (RegisterContendedException) or was overtaken after the 10 s lease (WriteOvertakenException)")
@Outcome(id = ".*-1.*", expect = Expect.FORBIDDEN,
    desc = "a get returned a mix of A and B or a bad length: the per-word tags must reject a torn READ (R18)")
@Outcome(id = "[-0-9]+, [-0-9]+, (0|-2), 0", expect = Expect.FORBIDDEN,
    desc = "both sets returned but the register is empty: a release CAS ran before its WRITE was placed (R7)")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "an order no sequence of the two sets explains (A seen before B but A final, B's own set not seen, A seen "
        + "after B but B final): two writers held the control word at once (R14), or a value placed late (R7)")
public class MultiWriterVersionedRegisterTest {
    /** Bytes of every written value. */
    static final int LENGTH = 16;
    /** The writers' lease: long enough that no writer is ever taken over in this test. */
    static final long LEASE_NS = 10_000_000_000L;
    private static final ThreadLocal<Object[]> WRITERS = ObjectFabric.handleTable();
    private static final ThreadLocal<Object[]> READERS = ObjectFabric.handleTable();

    private final int slot = ObjectFabric.takeSlot();
    private volatile int thrown1;
    private volatile int thrown2;

    /** Creates a state with the register empty and the control word 0 (idle). */
    public MultiWriterVersionedRegisterTest() {
    }

    private static MultiWriterVersionedRegister handle(ThreadLocal<Object[]> table, int clientId, int slot) {
        return ObjectFabric.handle(table, slot, s -> MultiWriterVersionedRegister.attach(ObjectFabric.client(clientId),
            ObjectFabric.remote(s, 0), LENGTH, LEASE_NS));
    }

    /** Client 1 sets A. */
    @Actor
    public void writerA() {
        thrown1 = set(handle(WRITERS, 1, slot), 1);
    }

    /**
     * Client 2 gets, sets B, gets.
     *
     * @param r the result
     */
    @Actor
    public void writerBAndReader(JJJJ_Result r) {
        MultiWriterVersionedRegister register = handle(READERS, 2, slot);
        r.r1 = get(register);
        thrown2 = set(register, 2);
        r.r2 = get(register);
    }

    /**
     * A get after both actors, and what the sets threw.
     *
     * @param r the result
     */
    @Arbiter
    public void after(JJJJ_Result r) {
        r.r3 = get(handle(READERS, 2, slot));
        r.r4 = Math.max(thrown1, thrown2);
    }

    private static int set(MultiWriterVersionedRegister register, int k) {
        try {
            register.set(ObjectFabric.filled(k, LENGTH));
            return 0;
        } catch (RegisterContendedException e) {
            return 1;
        } catch (WriteOvertakenException e) {
            return 2;
        }
    }

    private static long get(MultiWriterVersionedRegister register) {
        try {
            return ObjectFabric.classify(register.get(), LENGTH);
        } catch (RegisterContendedException e) {
            return -2;
        }
    }
}
