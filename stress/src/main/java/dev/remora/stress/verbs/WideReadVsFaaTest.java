package dev.remora.stress.verbs;

import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.RemoteAddress;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * A 16-byte RDMA READ of words A and B races a FETCH_ADD on word B; both words start at -1. A READ longer than 8
 * bytes is not atomic as a whole, but each aligned 8-byte word in it is copied untorn (R18), so B is read either
 * before the FAA (-1) or after it (0), and A, which nobody changes, is read as -1. This exercises the fabric's
 * multi-word copy path, which the 8-byte READ of {@link ReadVsFaaTest} does not take.
 *
 * <p>Result: {@code r1} = the FAA's old value, {@code r2} = word A as read, {@code r3} = word B as read.
 */
@JCStressTest
@State
@Description("R18: each aligned word of a 16-byte READ racing a FETCH_ADD is read untorn")
@Outcome(id = "-1, -1, -1", expect = Expect.ACCEPTABLE, desc = "the READ copied word B before the FAA")
@Outcome(id = "-1, -1, 0", expect = Expect.ACCEPTABLE, desc = "the READ copied word B after the FAA")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "a torn word (bytes of -1 and of 0 mixed), or word A changed though nobody wrote it")
public class WideReadVsFaaTest {
    private static final ThreadLocal<MemoryRegion> DESTINATION =
        ThreadLocal.withInitial(() -> StressFabric.clientNode(2).allocate(2 * Long.BYTES, Access.LOCAL_WRITE));

    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress wordA = StressFabric.remote(offset + StressFabric.WORD_A);
    private final RemoteAddress wordB = StressFabric.remote(offset + StressFabric.WORD_B);

    /** Creates a state with words A and B at -1. */
    public WideReadVsFaaTest() {
        StressFabric.home().putLongVolatile(offset + StressFabric.WORD_A, -1L);
        StressFabric.home().putLongVolatile(offset + StressFabric.WORD_B, -1L);
    }

    /**
     * Client 1's FETCH_ADD 1 on word B: -1 becomes 0.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJJ_Result r) {
        r.r1 = StressFabric.client(1).faa(wordB, 1);
    }

    /**
     * Client 2's 16-byte READ of words A and B into its own region.
     *
     * @param r the result
     */
    @Actor
    public void client2(JJJ_Result r) {
        MemoryRegion destination = DESTINATION.get();
        StressFabric.client(2).read(wordA, destination, 0, 2 * Long.BYTES);
        r.r2 = destination.getLong(0);
        r.r3 = destination.getLong(Long.BYTES);
    }
}
