package dev.remora.stress.objects;

import dev.remora.objects.RemoteBarrier;
import dev.remora.verbs.RemoteAddress;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link RemoteBarrier} of two parties, one round: each party writes a plain field saying it arrived, awaits (timeout
 * 2 s), and then loads the other's field. The barrier's contract: round {@code r} releases nobody before all its
 * parties' arrivals are counted; the arrival FETCH_ADDs are totally ordered (rao, R14), so one party draws index 0 and
 * the other index 1, and only index 1's release CAS opens the round. A party that passes therefore does so after the
 * other's FETCH_ADD, which followed the other's store to its field in program order; the fast fabric's atomics are
 * volatile read-modify-writes of the home memory and its READs acquire loads of it, so that store happens-before the
 * passer's load of the field.
 *
 * <p>A round is released for both or broken for both (the release and the breaking CAS expect the same value: exactly
 * one wins). Broken needs a party to wait the whole timeout for the other, which jcstress's actor threads, each
 * walking the same states in order, do not make it do; it is allowed but reported.
 *
 * <p>Result: {@code r1}, {@code r2} = party 1's and party 2's ending (1 = passed and saw the other's arrival, -1 =
 * passed without it, 2 = broken), {@code r3}, {@code r4} = their arrival indices.
 */
@JCStressTest
@State
@Description("RemoteBarrier: two parties, one round; both pass, neither before the other arrived")
@Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE,
    desc = "party 1 arrived first and waited; party 2's arrival was the last and released the round")
@Outcome(id = "1, 1, 1, 0", expect = Expect.ACCEPTABLE,
    desc = "party 2 arrived first and waited; party 1's arrival was the last and released the round")
@Outcome(id = "2, 2, (0, 1|1, 0)", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "the first arrival waited its 2 s timeout and broke the round; the last arrival's release CAS then failed")
@Outcome(id = "-1, .*|.*, -1, .*", expect = Expect.FORBIDDEN,
    desc = "a party passed before the other had arrived: the barrier's contract (nobody passes a round before every "
        + "party arrived in it; rao orders the FETCH_ADDs, R14)")
@Outcome(id = "(1, 2|2, 1), .*", expect = Expect.FORBIDDEN,
    desc = "one party passed and the other was broken: the release and the breaking CAS both succeeded (rao, R14)")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "both parties drew the same arrival index: two FETCH_ADDs returned one value (rao, R14)")
public class RemoteBarrierTest {
    /** How long a party waits for the other. */
    static final long TIMEOUT_NS = 2_000_000_000L;

    private final RemoteAddress base = ObjectFabric.remote(ObjectFabric.takeSlot(), 0);
    private int arrived1;
    private int arrived2;

    /** Creates a state with the barrier at round 0, no arrival. */
    public RemoteBarrierTest() {
    }

    /**
     * Party 1, on client 1.
     *
     * @param r the result
     */
    @Actor
    public void party1(IIII_Result r) {
        arrived1 = 1; // before the arrival FETCH_ADD: a volatile RMW on the fast fabric, so the passer sees it
        RemoteBarrier.Result result = RemoteBarrier.attach(ObjectFabric.client(1), base, 2).await(TIMEOUT_NS);
        r.r1 = ending(result, arrived2);
        r.r3 = result.arrivalIndex();
    }

    /**
     * Party 2, on client 2.
     *
     * @param r the result
     */
    @Actor
    public void party2(IIII_Result r) {
        arrived2 = 1; // before the arrival FETCH_ADD: a volatile RMW on the fast fabric, so the passer sees it
        RemoteBarrier.Result result = RemoteBarrier.attach(ObjectFabric.client(2), base, 2).await(TIMEOUT_NS);
        r.r2 = ending(result, arrived1);
        r.r4 = result.arrivalIndex();
    }

    private static int ending(RemoteBarrier.Result result, int otherArrived) {
        if (!result.passed()) {
            return 2;
        }
        return otherArrived == 1 ? 1 : -1;
    }
}
