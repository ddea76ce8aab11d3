package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A 64-bit counter split into shards on several nodes, for many writers: an update is one FETCH_ADD to the handle's
 * own shard, so writers on different shards never contend; a read sums the shards, with one READ per home node (all
 * of a node's shards lie in one region, one per cache line, and one READ covers them). Layout:
 * {@link ShardedCounterDescriptor}.
 *
 * <p>An instance is a handle for <em>one thread</em>: it posts through that thread's {@link Endpoint}, owns a small
 * local buffer for the READs ({@link #close()} frees it), and is bound to one shard, chosen at {@link #attach} (round
 * robin over the handles created in this JVM, or given).
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #increment()}, {@link #add(long)}</td><td>one 8-byte FETCH_ADD on the handle's shard</td>
 *       <td>1</td><td>the other FETCH_ADDs on that shard (rao)</td></tr>
 *   <tr><td>{@link #get()}</td><td>one READ of {@code 64 (shardsPerHome - 1) + 8} bytes per home node</td>
 *       <td>number of home nodes</td><td>the FETCH_ADDs each shard word reads from (an aligned 8-byte word never
 *       tears: R18)</td></tr>
 * </table>
 *
 * <p><b>What a read guarantees.</b> Each FETCH_ADD takes effect at one instant between its posting and its completion
 * (remote atomics are totally ordered among themselves: rao). A READ longer than 8 bytes is not a snapshot: its words
 * are read one by one, at their own moments, in any order (R18), and different homes are read by different READs at
 * different times (R10). But each shard word is read whole, at one instant inside the {@code get} call. So
 * {@code get} returns {@code s_1(t_1) + ... + s_n(t_n)}, where {@code s_i(t)} is shard {@code i}'s value at time
 * {@code t} and every {@code t_i} lies between the call's invocation and its response. Hence:
 * <ul>
 *   <li><b>Linearizable when every update is {@link #increment()}</b> (more generally, when every update adds the
 *       same {@code d >= 0}, or every one the same {@code d <= 0}). The true count {@code C(t) = s_1(t) + ... +
 *       s_n(t)} only grows, one at a time, so the sum lies between {@code C(invocation)} and {@code C(response)}, and
 *       every integer in that interval is {@code C(t*)} at some instant {@code t*} inside the call: the read is
 *       linearized there, each increment at its FETCH_ADD.</li>
 *   <li><b>Not linearizable with different deltas</b> (say {@code add(5)} and {@code add(7)}, or {@code +1} and
 *       {@code -1}). If {@code add(5)} on shard A completes before {@code add(7)} on shard B starts, the count is 0,
 *       5, 12 and never 7; a concurrent {@code get} that reads A before the first and B after the second returns 7.
 *       What still holds: every shard on its own is a linearizable counter; a {@code get} with no update concurrent
 *       to it returns the exact count; with non-negative deltas a {@code get} returns a value between the counts at
 *       its invocation and its response, and one thread's successive reads never decrease.</li>
 * </ul>
 * {@code ShardedCounterDeterministicTest} checks both statements with the linearizability checker's counter model.
 *
 * <p><b>Errors.</b> A FETCH_ADD that fails with {@code RETRY_EXC_ERR} (a crashed or unreachable home) has an unknown
 * outcome: it may have counted (record it {@code info}). A {@code get} that fails counted nothing and may be retried.
 * <b>Do not</b> update a shard with the home's CPU or with remote WRITEs while handles are in use: remote atomics are
 * atomic only against other remote atomics (R14).
 */
public final class ShardedCounter implements AutoCloseable {
    /** Spreads the handles of this JVM over the shards. */
    private static final AtomicInteger NEXT_SHARD = new AtomicInteger();

    /**
     * Where a sharded counter lives: the 64-byte-aligned base of each home's shards, and how many shards each home has.
     *
     * @param homes the base address of each home node's region, in shard order (shard {@code h * shardsPerHome + k}
     *     is at {@code homes.get(h) + 64 k})
     * @param shardsPerHome shards on each home, at least 1
     */
    public record Shards(List<RemoteAddress> homes, int shardsPerHome) {
        /** Checks and copies. */
        public Shards {
            homes = List.copyOf(homes);
            if (homes.isEmpty() || shardsPerHome < 1) {
                throw new IllegalArgumentException("a sharded counter needs a home and a shard per home");
            }
            for (RemoteAddress h : homes) {
                if (h.address() % ShardedCounterDescriptor.ALIGNMENT != 0) {
                    throw new IllegalArgumentException("a home's first shard must start a cache line: " + h);
                }
            }
        }

        /** @return the number of shards */
        public int count() {
            return homes.size() * shardsPerHome;
        }

        /**
         * @param i a shard index, {@code 0 <= i < count()}
         * @return the shard's word
         */
        public RemoteAddress shard(int i) {
            Objects.checkIndex(i, count());
            return homes.get(i / shardsPerHome).plus(ShardedCounterDescriptor.shardOffset(i % shardsPerHome));
        }
    }

    private final Endpoint endpoint;
    private final Shards shards;
    private final int shard;
    private final RemoteAddress word;
    private final MemoryRegion buffer;

    private ShardedCounter(Endpoint endpoint, Shards shards, int shard) {
        this.endpoint = endpoint;
        this.shards = shards;
        this.shard = shard;
        this.word = shards.shard(shard);
        this.buffer = endpoint.node().allocate(ShardedCounterDescriptor.readLength(shards.shardsPerHome()),
            Access.LOCAL_WRITE);
    }

    /**
     * Allocates a zeroed sharded counter: {@code shardsPerHome} shards on each of {@code homes}.
     *
     * @param shardsPerHome shards per node, at least 1
     * @param homes the nodes that hold shards, at least one
     * @return the layout to hand to {@link #attach}
     */
    public static Shards create(int shardsPerHome, Node... homes) {
        if (shardsPerHome < 1 || homes.length == 0) {
            throw new IllegalArgumentException("a sharded counter needs a home and a shard per home");
        }
        List<RemoteAddress> bases = new ArrayList<>();
        for (Node home : homes) {
            MemoryRegion region = home.allocate(ShardedCounterDescriptor.allocationLength(shardsPerHome),
                Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
            RemoteAddress first = region.remote(0);
            bases.add(first.plus(ShardedCounterDescriptor.alignmentPadding(first.address())));
        }
        return new Shards(bases, shardsPerHome);
    }

    /**
     * A handle bound to the next shard in round robin over the handles this JVM created.
     *
     * @param endpoint the calling thread's endpoint
     * @param shards the counter
     * @return the handle
     */
    public static ShardedCounter attach(Endpoint endpoint, Shards shards) {
        Objects.requireNonNull(shards, "shards");
        return attach(endpoint, shards, Math.floorMod(NEXT_SHARD.getAndIncrement(), shards.count()));
    }

    /**
     * A handle bound to a given shard (give each concurrent writer its own for no contention).
     *
     * @param endpoint the calling thread's endpoint
     * @param shards the counter
     * @param shard the shard its updates go to, {@code 0 <= shard < shards.count()}
     * @return the handle
     */
    public static ShardedCounter attach(Endpoint endpoint, Shards shards, int shard) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(shards, "shards");
        Objects.checkIndex(shard, shards.count());
        return new ShardedCounter(endpoint, shards, shard);
    }

    /** @return the counter's layout */
    public Shards shards() {
        return shards;
    }

    /** @return the index of the shard this handle updates */
    public int shard() {
        return shard;
    }

    /**
     * Adds one to the handle's shard. One FETCH_ADD, one round trip. Reads stay linearizable as long as every update
     * is an increment.
     *
     * @throws dev.remora.verbs.RemoteAccessException if the shard's home cannot be reached (the increment may or may
     *     not have happened: record it as indeterminate)
     */
    public void increment() {
        endpoint.faa(word, 1);
    }

    /**
     * Adds {@code delta} to the handle's shard (two's complement wrap-around). One FETCH_ADD, one round trip. Mixing
     * deltas makes {@link #get()} not linearizable (see the class comment).
     *
     * @param delta the addend
     */
    public void add(long delta) {
        endpoint.faa(word, delta);
    }

    /**
     * Sums the shards: one READ per home node, in home order. Each shard word is read whole at one instant inside the
     * call (R18); what that makes of the sum is in the class comment.
     *
     * @return the sum
     */
    public long get() {
        int perHome = shards.shardsPerHome();
        int length = ShardedCounterDescriptor.readLength(perHome);
        long sum = 0;
        for (RemoteAddress home : shards.homes()) {
            endpoint.read(home, buffer, 0, length);
            for (int k = 0; k < perHome; k++) {
                // R4, R11: the READ completed, so its local writes (done late, word by word) are visible to this CPU.
                sum += buffer.getLong(ShardedCounterDescriptor.shardOffset(k));
            }
        }
        return sum;
    }

    /** Frees the handle's READ buffer; the counter itself stays. */
    @Override
    public void close() {
        buffer.close();
    }
}
