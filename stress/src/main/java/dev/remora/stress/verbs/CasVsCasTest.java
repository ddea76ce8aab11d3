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
 * Litmus L15 (RCAS mutex): client 1 CASes the home word 0 to 1 while client 2 CASes it 0 to 2, each through its own
 * queue pair. Remote atomics are mutually exclusive (rao), so exactly one wins; the loser's CAS returns the winner's
 * value (the failure witness) and writes nothing (R16).
 *
 * <p>Result: {@code r1} = client 1's old value, {@code r2} = client 2's old value, {@code r3} = the word at the end.
 */
@JCStressTest
@State
@Description("L15: of two remote CASes from 0, exactly one wins")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE,
    desc = "client 1 won (saw 0); client 2 failed and its witness is client 1's 1")
@Outcome(id = "2, 0, 2", expect = Expect.ACCEPTABLE,
    desc = "client 2 won (saw 0); client 1 failed and its witness is client 2's 2")
@Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "both CASes saw 0: two winners, the mutex of L15 is broken")
@Outcome(expect = Expect.FORBIDDEN, desc = "any other value: a failed CAS wrote (R16), or a witness is wrong")
public class CasVsCasTest {
    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress word = StressFabric.remote(offset + StressFabric.WORD_A);

    /** Creates a state with its word at 0. */
    public CasVsCasTest() {
    }

    /**
     * Client 1's CAS 0 to 1.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJJ_Result r) {
        r.r1 = StressFabric.client(1).cas(word, 0, 1);
    }

    /**
     * Client 2's CAS 0 to 2.
     *
     * @param r the result
     */
    @Actor
    public void client2(JJJ_Result r) {
        r.r2 = StressFabric.client(2).cas(word, 0, 2);
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
