package dev.remora.stress.objects;

import dev.remora.objects.RegisterContendedException;
import dev.remora.objects.SingleWriterVersionedRegister;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link SingleWriterVersionedRegister} of 16-byte values (five data words: the header and four words of value
 * bytes): client 1 sets 16 bytes of 1, then 16 bytes of 2, while client 2 gets twice. Value {@code k} carries
 * {@code k} in every byte of every word, so a value mixed from two writes shows in the bytes. A multi-word READ copies
 * its words one by one, so it may return words of two writes (R18); every word carries its write's tag, the reader
 * accepts only one tag, and the one writer's WRITEs land in posting order on its queue pair (R6), so each get returns
 * a whole value, never older than the last one it returned, or gives up with {@link RegisterContendedException}.
 *
 * <p>Result: {@code r1}, {@code r2} = client 2's two gets (0 = the initial empty value, {@code k} = 16 bytes of
 * {@code k}, -1 = anything else, -2 = RegisterContendedException), {@code r3} = a get after both actors.
 */
@JCStressTest
@State
@Description("SingleWriterVersionedRegister: a reader racing the writer returns old or new values whole, never a mix")
@Outcome(id = "0, 0, 2", expect = Expect.ACCEPTABLE, desc = "both gets before the first WRITE was placed")
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE, desc = "the first get before the first set, the second between")
@Outcome(id = "0, 2, 2", expect = Expect.ACCEPTABLE, desc = "the first get before the first set, the second after both")
@Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE, desc = "both gets between the two sets")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE, desc = "one get between the sets, one after both")
@Outcome(id = "2, 2, 2", expect = Expect.ACCEPTABLE, desc = "both gets after both sets")
@Outcome(id = "(-2, [012]|[012], -2|-2, -2), 2", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "a get gave up after 64 torn snapshots in a row (RegisterContendedException: the named retry result)")
@Outcome(id = ".*-1.*", expect = Expect.FORBIDDEN,
    desc = "a get returned a mix of two writes or a bad length: the per-word tags must reject a torn READ (R18)")
@Outcome(id = "(1, 0|2, [01]), .*", expect = Expect.FORBIDDEN,
    desc = "the second get older than the first: each word's tag only moves forward (R6), not linearizable")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "the value after both sets is not the second: a set returned before its WRITE was placed (flush READ, R7)")
public class SingleWriterVersionedRegisterTest {
    /** Bytes of every written value. */
    static final int LENGTH = 16;
    private static final ThreadLocal<Object[]> WRITERS = ObjectFabric.handleTable();
    private static final ThreadLocal<Object[]> READERS = ObjectFabric.handleTable();
    private static final ThreadLocal<Object[]> CHECKERS = ObjectFabric.handleTable();

    private final int slot = ObjectFabric.takeSlot();

    /** Creates a state with the register empty (all words zero: tag 0, length 0). */
    public SingleWriterVersionedRegisterTest() {
    }

    private static SingleWriterVersionedRegister handle(ThreadLocal<Object[]> table, int clientId, int slot) {
        return ObjectFabric.handle(table, slot, s -> SingleWriterVersionedRegister.attach(ObjectFabric.client(clientId),
            ObjectFabric.remote(s, 0), LENGTH));
    }

    /** Client 1, the one writer: sets 16 bytes of 1, then 16 bytes of 2. */
    @Actor
    public void writer() {
        SingleWriterVersionedRegister register = handle(WRITERS, 1, slot);
        register.set(ObjectFabric.filled(1, LENGTH));
        register.set(ObjectFabric.filled(2, LENGTH));
    }

    /**
     * Client 2 gets twice.
     *
     * @param r the result
     */
    @Actor
    public void reader(JJJ_Result r) {
        SingleWriterVersionedRegister register = handle(READERS, 2, slot);
        r.r1 = get(register);
        r.r2 = get(register);
    }

    /**
     * A get after both actors, from client 3.
     *
     * @param r the result
     */
    @Arbiter
    public void after(JJJ_Result r) {
        r.r3 = get(handle(CHECKERS, 3, slot));
    }

    private static long get(SingleWriterVersionedRegister register) {
        try {
            return ObjectFabric.classify(register.get(), LENGTH);
        } catch (RegisterContendedException e) {
            return -2;
        }
    }
}
