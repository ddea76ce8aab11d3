package dev.remora.stress.objects;

import dev.remora.objects.CasRegister;
import dev.remora.verbs.RemoteAddress;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * {@link CasRegister}: client 1 runs {@code compareAndSet(0, 1)} then {@code getAndSet(3)}, client 2
 * {@code compareAndSet(0, 2)} then {@code getAndSet(4)}. Remote atomics on one word are totally ordered and mutually
 * exclusive (rao, R14) and a failed CAS writes nothing (R16), so exactly one {@code compareAndSet} wins, and it comes
 * before the loser's (which saw its value) and so before both {@code getAndSet}s. Those two are then ordered: the first
 * returns the winner's value, the second the first's, and the final value is the second's. The loser's handle guesses
 * the winner's value and the winner's its own, so one {@code getAndSet} always fails its first CAS and retries with
 * the value that CAS returned: the retry path runs in every state.
 *
 * <p>Result: {@code r1} = which compareAndSet won (1, 2; 0 for neither, 3 for both), {@code r2} = client 1's
 * getAndSet, {@code r3} = client 2's getAndSet, {@code r4} = the home word after both.
 */
@JCStressTest
@State
@Description("CasRegister: of two compareAndSet from 0 exactly one wins; two getAndSet see distinct previous values")
@Outcome(id = "1, 1, 3, 4", expect = Expect.ACCEPTABLE,
    desc = "client 1's CAS won; client 1's getAndSet replaced its 1, then client 2's replaced that 3")
@Outcome(id = "1, 4, 1, 3", expect = Expect.ACCEPTABLE,
    desc = "client 1's CAS won; client 2's getAndSet replaced the 1, then client 1's replaced that 4")
@Outcome(id = "2, 2, 3, 4", expect = Expect.ACCEPTABLE,
    desc = "client 2's CAS won; client 1's getAndSet replaced the 2, then client 2's replaced that 3")
@Outcome(id = "2, 4, 2, 3", expect = Expect.ACCEPTABLE,
    desc = "client 2's CAS won; client 2's getAndSet replaced its 2, then client 1's replaced that 4")
@Outcome(id = "[03], .*", expect = Expect.FORBIDDEN,
    desc = "no compareAndSet or both won: two CAS from one expected value both succeeded, or a failed CAS wrote "
        + "(rao, R14, R16)")
@Outcome(id = "[12], (.*), \\1, .*", expect = Expect.FORBIDDEN,
    desc = "both getAndSet returned the same previous value: one update was lost (rao, R14)")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "a final value that is not the later getAndSet's, or a previous value nobody installed")
public class CasRegisterRaceTest {
    private final int slot = ObjectFabric.takeSlot();
    private final RemoteAddress word = ObjectFabric.remote(slot, 0);
    private volatile boolean won1;
    private volatile boolean won2;

    /** Creates a state with the register at 0. */
    public CasRegisterRaceTest() {
    }

    /**
     * Client 1: {@code compareAndSet(0, 1)}, then {@code getAndSet(3)}.
     *
     * @param r the result
     */
    @Actor
    public void client1(JJJJ_Result r) {
        CasRegister register = CasRegister.attach(ObjectFabric.client(1), word);
        won1 = register.compareAndSet(0, 1);
        r.r2 = register.getAndSet(3);
    }

    /**
     * Client 2: {@code compareAndSet(0, 2)}, then {@code getAndSet(4)}.
     *
     * @param r the result
     */
    @Actor
    public void client2(JJJJ_Result r) {
        CasRegister register = CasRegister.attach(ObjectFabric.client(2), word);
        won2 = register.compareAndSet(0, 2);
        r.r3 = register.getAndSet(4);
    }

    /**
     * Names the winner and reads the final value after both actors.
     *
     * @param r the result
     */
    @Arbiter
    public void arbiter(JJJJ_Result r) {
        r.r1 = (won1 ? 1 : 0) + (won2 ? 2 : 0);
        r.r4 = ObjectFabric.homeLoad(slot, 0); // a CAS's write is in memory when it completes (R9, R11)
    }
}
