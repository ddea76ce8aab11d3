package dev.remora.stress.verbs;

import dev.remora.verbs.RemoteAddress;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * A remote CAS 0 to 10 races a remote FETCH_ADD 1 on the same home word, from two nodes. Remote atomics to one node
 * are totally ordered and mutually exclusive (rao, R14), so the result is one of the two serial orders: never a lost
 * increment and never a CAS that succeeds on a word the FAA already changed.
 *
 * <p>Result: {@code r1} = the CAS's old value, {@code r2} = the FAA's old value, {@code r3} = the word at the end.
 */
@JCStressTest
@State
@Description("rao: a remote CAS and a remote FETCH_ADD on one word are serialised")
@Outcome(id = "0, 10, 11", expect = Expect.ACCEPTABLE, desc = "CAS first and succeeds (0 to 10); FAA then sees 10")
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
    desc = "FAA first (0 to 1); CAS then fails with witness 1 and writes nothing")
@Outcome(id = "0, 0, 10", expect = Expect.FORBIDDEN, desc = "lost FAA: the CAS's write overwrote the increment")
@Outcome(id = "0, 0, 1", expect = Expect.FORBIDDEN, desc = "lost CAS: the FAA's write overwrote the swap")
@Outcome(expect = Expect.FORBIDDEN, desc = "any other value: not a serial order of the two atomics")
public class CasVsFaaTest {
    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress word = StressFabric.remote(offset + StressFabric.WORD_A);

    /** Creates a state with its word at 0. */
    public CasVsFaaTest() {
    }

    /**
     * Client 1's CAS 0 to 10.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJJ_Result r) {
        r.r1 = StressFabric.client(1).cas(word, 0, 10);
    }

    /**
     * Client 2's FETCH_ADD 1.
     *
     * @param r the result
     */
    @Actor
    public void client2(JJJ_Result r) {
        r.r2 = StressFabric.client(2).faa(word, 1);
    }

    /**
     * The home CPU reads the word after both.
     *
     * @param r the result
     */
    @Arbiter
    public void home(JJJ_Result r) {
        r.r3 = StressFabric.home().getLongVolatile(offset + StressFabric.WORD_A);
    }
}
