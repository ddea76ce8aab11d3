package dev.remora.stress.verbs;

import dev.remora.verbs.RemoteAddress;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * An 8-byte RDMA READ from client 2 races a FETCH_ADD from client 1 on the same aligned home word, which starts at
 * -1 (every bit set); adding 1 makes it 0 (every bit clear). Aligned 8-byte words are never torn by the NIC (R18),
 * so the READ returns the whole word before or the whole word after the FAA, never a mix of their bytes.
 *
 * <p>Result: {@code r1} = the FAA's old value, {@code r2} = the value the READ returned.
 */
@JCStressTest
@State
@Description("R18: an 8-byte READ racing a FETCH_ADD on the word returns the word before or after, untorn")
@Outcome(id = "-1, -1", expect = Expect.ACCEPTABLE, desc = "the READ executed before the FAA")
@Outcome(id = "-1, 0", expect = Expect.ACCEPTABLE, desc = "the READ executed after the FAA")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "torn word (some bytes 0xff, some 0x00) or a FAA that did not return the initial -1")
public class ReadVsFaaTest {
    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress word = StressFabric.remote(offset + StressFabric.WORD_A);

    /** Creates a state with its word at -1. */
    public ReadVsFaaTest() {
        StressFabric.home().putLongVolatile(offset + StressFabric.WORD_A, -1L);
    }

    /**
     * Client 1's FETCH_ADD 1: -1 becomes 0.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJ_Result r) {
        r.r1 = StressFabric.client(1).faa(word, 1);
    }

    /**
     * Client 2's 8-byte READ.
     *
     * @param r the result
     */
    @Actor
    public void client2(JJ_Result r) {
        r.r2 = StressFabric.client(2).readLong(word);
    }
}
