package dev.remora.stress.objects;

import dev.remora.objects.RemoteRegister;
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
 * {@link RemoteRegister}: client 1 sets 1 and then 2, while client 2 gets twice. A {@code set} returns only once its
 * WRITE is placed (the READ after it on the same queue pair executes after the WRITE, R7), and an aligned word never
 * tears (R18), so each get returns 0, 1 or 2, the second never older than the first, and the home word is 2 at the
 * end.
 *
 * <p>Result: {@code r1}, {@code r2} = client 2's two gets, {@code r3} = the home word after both actors.
 */
@JCStressTest
@State
@Description("RemoteRegister: set vs get from another node returns an old or a new value, never a third")
@Outcome(id = "0, 0, 2", expect = Expect.ACCEPTABLE, desc = "both gets ran before the first WRITE was placed")
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE, desc = "the first get before set(1), the second between the sets")
@Outcome(id = "0, 2, 2", expect = Expect.ACCEPTABLE, desc = "the first get before set(1), the second after set(2)")
@Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE, desc = "both gets between the two sets")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE, desc = "one get between the sets, one after set(2)")
@Outcome(id = "2, 2, 2", expect = Expect.ACCEPTABLE, desc = "both gets after set(2)")
@Outcome(id = "(1, 0|2, [01]), .*", expect = Expect.FORBIDDEN,
    desc = "the second get older than the first: set(1) returned before set(2) started, and a placed value stays "
        + "until the next WRITE (R6, R7): not linearizable")
@Outcome(id = ".*, .*, [01]", expect = Expect.FORBIDDEN,
    desc = "set(2) returned but the home word is older: its flush READ completed before its WRITE was placed (R7)")
@Outcome(expect = Expect.FORBIDDEN, desc = "a value nobody wrote: a torn word (R18)")
public class RemoteRegisterSetGetTest {
    private final int slot = ObjectFabric.takeSlot();
    private final RemoteAddress word = ObjectFabric.remote(slot, 0);

    /** Creates a state with the register at 0. */
    public RemoteRegisterSetGetTest() {
    }

    /** Client 1 sets 1, then 2. */
    @Actor
    public void writer() {
        RemoteRegister register = RemoteRegister.attach(ObjectFabric.client(1), word);
        register.set(1);
        register.set(2);
    }

    /**
     * Client 2 gets twice.
     *
     * @param r the result
     */
    @Actor
    public void reader(JJJ_Result r) {
        RemoteRegister register = RemoteRegister.attach(ObjectFabric.client(2), word);
        r.r1 = register.get();
        r.r2 = register.get();
    }

    /**
     * The home CPU loads the word after both actors.
     *
     * @param r the result
     */
    @Arbiter
    public void home(JJJ_Result r) {
        // set(2) returned after its flush READ, which executed after its WRITE was placed (R7).
        r.r3 = ObjectFabric.homeLoad(slot, 0);
    }
}
