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
 * Litmus L14 (RFAA vs RFAA): two clients on different nodes, each through its own endpoint and queue pair,
 * FETCH_ADD 1 to the same home word. Remote atomics to one node are mutually exclusive (rao, docs/memory-model.md R14),
 * so neither increment is lost and the two returned old values differ.
 *
 * <p>Result: {@code r1} = client 1's old value, {@code r2} = client 2's old value, {@code r3} = the word at the end.
 */
@JCStressTest
@State
@Description("L14: two remote FETCH_ADDs on one word never lose an update")
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE, desc = "client 1's FAA first, client 2's FAA sees its increment")
@Outcome(id = "1, 0, 2", expect = Expect.ACCEPTABLE, desc = "client 2's FAA first, client 1's FAA sees its increment")
@Outcome(id = "0, 0, 1", expect = Expect.FORBIDDEN,
    desc = "lost update: both FAAs read 0 (read phases interleaved), which L14 forbids")
@Outcome(expect = Expect.FORBIDDEN, desc = "any other value: an FAA was lost, duplicated or torn")
public class FaaVsFaaTest {
    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress word = StressFabric.remote(offset + StressFabric.WORD_A);

    /** Creates a state with its word at 0. */
    public FaaVsFaaTest() {
    }

    /**
     * Client 1's FETCH_ADD.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJJ_Result r) {
        r.r1 = StressFabric.client(1).faa(word, 1);
    }

    /**
     * Client 2's FETCH_ADD.
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
