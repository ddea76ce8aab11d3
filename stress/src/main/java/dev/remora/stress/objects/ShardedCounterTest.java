package dev.remora.stress.objects;

import dev.remora.objects.ShardedCounter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.util.List;

/**
 * {@link ShardedCounter} with two shards on the home node (one cache line each): client 1 increments shard 0 while
 * client 2 gets, increments shard 1 and gets again. (Two actors, not three: jcstress schedules at most one actor per
 * CPU, and CI has two; the second incrementer is also the reader.) Each increment is one FETCH_ADD (rao, R14); a get
 * is one 72-byte READ of both shards, not a snapshot, but each shard word in it is read whole at one instant (R18), so
 * with increments only a get lies between the counts at its start and its end. Client 2's first get is 0 or 1
 * (client 1's increment or not), its second includes its own increment and whatever the first saw: 1 or 2, and at
 * least one more than the first. After both actors the sum is 2.
 *
 * <p>Result: {@code r1}, {@code r2} = client 2's gets before and after its increment, {@code r3} = a get after both
 * actors.
 */
@JCStressTest
@State
@Description("ShardedCounter: two increments on two shards and a reader; reads stay within 0..2, the final sum is 2")
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE,
    desc = "both gets read shard 0 before client 1's increment; the second saw client 2's own")
@Outcome(id = "0, 2, 2", expect = Expect.ACCEPTABLE,
    desc = "client 1's increment landed between the two gets")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE, desc = "client 1's increment landed before the first get")
@Outcome(id = "[0-2], [0-2], [013-9]", expect = Expect.FORBIDDEN,
    desc = "an increment lost, or counted twice: each FETCH_ADD adds once (rao, R14)")
@Outcome(id = "[0-2], [0-2], 2", expect = Expect.FORBIDDEN,
    desc = "the second get missed client 2's own completed increment, or went back on client 1's: a shard word "
        + "only grows, and a READ after a FETCH_ADD's completion sees it (R9, R11)")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "a get outside 0..2: a torn shard word (R18), or a word outside the shards summed")
public class ShardedCounterTest {
    private static final ThreadLocal<Object[]> WRITERS = ObjectFabric.handleTable();
    private static final ThreadLocal<Object[]> READERS = ObjectFabric.handleTable();

    private final int slot = ObjectFabric.takeSlot();

    /** Creates a state with both shards at 0. */
    public ShardedCounterTest() {
    }

    /** The counter in a slot: its first two cache lines, shard 0 at offset 0 and shard 1 at offset 64. */
    private static ShardedCounter handle(ThreadLocal<Object[]> table, int clientId, int slot, int shard) {
        return ObjectFabric.handle(table, slot, s -> ShardedCounter.attach(ObjectFabric.client(clientId),
            new ShardedCounter.Shards(List.of(ObjectFabric.remote(s, 0)), 2), shard));
    }

    /** Client 1 increments shard 0. */
    @Actor
    public void incrementer() {
        handle(WRITERS, 1, slot, 0).increment();
    }

    /**
     * Client 2 gets, increments shard 1, and gets again.
     *
     * @param r the result
     */
    @Actor
    public void incrementerAndReader(JJJ_Result r) {
        ShardedCounter counter = handle(READERS, 2, slot, 1);
        r.r1 = counter.get();
        counter.increment();
        r.r2 = counter.get();
    }

    /**
     * A get after both actors.
     *
     * @param r the result
     */
    @Arbiter
    public void after(JJJ_Result r) {
        r.r3 = handle(READERS, 2, slot, 1).get();
    }
}
