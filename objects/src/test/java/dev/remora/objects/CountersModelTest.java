package dev.remora.objects;

import dev.remora.objects.ModelChains.Opened;
import dev.remora.objects.ModelChains.Step;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimFabric;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.state.ActionChain;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static dev.remora.objects.ModelChains.action;
import static dev.remora.objects.ModelChains.assertNamedError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model-based tests of the counters: random chains of operations from three clients on two nodes, applied to the
 * counter on the fast software fabric and to a sequential model (a {@code long}; a {@code long} per shard), whose
 * answers must agree; after every step an invariant reads the counter's words raw. Bad input is a step too: it must
 * fail with the named error. Chains per property: {@link ModelChains#CHAINS}; at most {@value #LENGTH} steps.
 */
@AddLifecycleHook(ModelChains.class)
class CountersModelTest {
    static final int LENGTH = 30;
    private static final int CLIENTS = 3;

    private final Opened opened = new Opened();
    /** The sharded counter's shape for the current chain: parameters of the property, read by its initial state. */
    private int homes;
    private int shardsPerHome;

    private static Arbitrary<Integer> client() {
        return Arbitraries.integers().between(0, CLIENTS - 1);
    }

    /** Deltas: small ones, and the extremes, so that the counter wraps around. */
    private static Arbitrary<Long> deltas() {
        return Arbitraries.oneOf(Arbitraries.longs().between(-3, 3), Arbitraries.longs());
    }

    private static VerbsStatistics cost(Endpoint ep, VerbsStatistics before) {
        return ep.statistics().minus(before);
    }

    private static void assertOneRoundTrip(VerbsStatistics used, Object step) {
        assertEquals(1, used.operations(), step + ": verbs");
        assertEquals(1, used.roundTrips(), step + ": round trips");
    }

    // ------------------------------------------------------------------ RemoteCounter: a long

    /** A {@link RemoteCounter} with a handle per client; the model is one long. */
    final class Single {
        final RemoteAddress word;
        final Endpoint[] clients;
        final Endpoint observer;
        final RemoteCounter[] handles = new RemoteCounter[CLIENTS];
        long model;

        Single() {
            Fabric fabric = opened.add(SimFabric.open());
            word = RemoteCounter.create(fabric.addNode("home"));
            clients = ModelChains.clients(fabric, opened, CLIENTS);
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            for (int i = 0; i < CLIENTS; i++) {
                handles[i] = RemoteCounter.attach(clients[i], word);
            }
        }

        void invariant() {
            assertEquals(model, observer.readLong(word), "the counter's word");
        }
    }

    enum Kind { GET, INCREMENT_AND_GET, ADD_AND_GET, GET_AND_ADD }

    record CounterOp(int c, Kind kind, long delta) implements Step<Single> {
        @Override
        public void apply(Single s) {
            RemoteCounter h = s.handles[c];
            VerbsStatistics before = s.clients[c].statistics();
            long expected;
            long got;
            switch (kind) {
                case GET -> {
                    expected = s.model;
                    got = h.get();
                }
                case INCREMENT_AND_GET -> {
                    s.model++;
                    expected = s.model;
                    got = h.incrementAndGet();
                }
                case ADD_AND_GET -> {
                    s.model += delta;
                    expected = s.model;
                    got = h.addAndGet(delta);
                }
                case GET_AND_ADD -> {
                    expected = s.model;
                    s.model += delta;
                    got = h.getAndAdd(delta);
                }
                default -> throw new AssertionError(kind);
            }
            assertEquals(expected, got, this::toString);
            assertOneRoundTrip(cost(s.clients[c], before), this);
        }

        @Override
        public String toString() {
            return switch (kind) {
                case GET -> "get(c" + c + ")";
                case INCREMENT_AND_GET -> "incrementAndGet(c" + c + ")";
                case ADD_AND_GET -> "addAndGet(c" + c + ", " + delta + ")";
                case GET_AND_ADD -> "getAndAdd(c" + c + ", " + delta + ")";
            };
        }
    }

    record CounterMisaligned(int c, int offset) implements Step<Single> {
        @Override
        public void apply(Single s) {
            assertNamedError(IllegalArgumentException.class, "must be 8-byte aligned",
                () -> RemoteCounter.attach(s.clients[c], s.word.plus(offset)), this::toString);
        }

        @Override
        public String toString() {
            return "attach(c" + c + ", word + " + offset + ") fails";
        }
    }

    @Provide
    Arbitrary<ActionChain<Single>> counterChains() {
        return ActionChain.<Single>startWith(Single::new)
            .withAction(8, action(Combinators.combine(client(), Arbitraries.of(Kind.class), deltas())
                .as(CounterOp::new)))
            .withAction(1, action(Combinators.combine(client(), Arbitraries.integers().between(1, 7))
                .as(CounterMisaligned::new)))
            .withMaxTransformations(LENGTH);
    }

    @Property
    void remoteCounterBehavesAsALong(@ForAll("counterChains") ActionChain<Single> chain) {
        ModelChains.run(chain.withInvariant("the word holds the model", Single::invariant), opened);
    }

    // ------------------------------------------------------------------ ShardedCounter: a long per shard

    /**
     * A {@link ShardedCounter} of {@code shardsPerHome} shards on each of {@code homes} nodes; handles are attached
     * per client and shard as the steps need them. The model is a long per shard.
     */
    final class Sharded {
        final Node[] homeNodes;
        final ShardedCounter.Shards shards;
        final Endpoint[] clients;
        final Endpoint observer;
        final Map<Long, ShardedCounter> handles = new HashMap<>();
        final long[] model;

        Sharded(int homes, int shardsPerHome) {
            Fabric fabric = opened.add(SimFabric.open());
            homeNodes = new Node[homes];
            for (int h = 0; h < homes; h++) {
                homeNodes[h] = fabric.addNode("home" + h);
            }
            shards = ShardedCounter.create(shardsPerHome, homeNodes);
            clients = ModelChains.clients(fabric, opened, CLIENTS);
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            model = new long[shards.count()];
        }

        /** @return client {@code c}'s handle bound to {@code shard} */
        ShardedCounter handle(int c, int shard) {
            return handles.computeIfAbsent((long) c << 32 | shard,
                k -> opened.add(ShardedCounter.attach(clients[c], shards, shard)));
        }

        /** Every shard word, read raw, holds the model's value for it. */
        void invariant() {
            for (int i = 0; i < model.length; i++) {
                assertEquals(model[i], observer.readLong(shards.shard(i)), "shard " + i);
            }
        }

        long sum() {
            return Arrays.stream(model).sum();
        }

        @Override
        public String toString() {
            return homeNodes.length + " homes of " + shards.shardsPerHome() + " shards";
        }
    }

    /** Shard {@code k % shards}: drawn without the state, so that the chain shrinks. */
    record ShardAdd(int c, int k, boolean increment, long delta) implements Step<Sharded> {
        @Override
        public void apply(Sharded s) {
            int shard = k % s.model.length;
            ShardedCounter h = s.handle(c, shard);
            VerbsStatistics before = s.clients[c].statistics();
            if (increment) {
                h.increment();
                s.model[shard]++;
            } else {
                h.add(delta);
                s.model[shard] += delta;
            }
            VerbsStatistics used = cost(s.clients[c], before);
            assertEquals(1, used.fetchAndAdds(), () -> s + ": " + this + ": FETCH_ADDs");
            assertOneRoundTrip(used, this);
        }

        @Override
        public String toString() {
            String shard = "shard " + k + " % shards";
            return (increment ? "increment(c" + c + ", " + shard : "add(c" + c + ", " + shard + ", " + delta) + ")";
        }
    }

    record ShardGet(int c, int k) implements Step<Sharded> {
        @Override
        public void apply(Sharded s) {
            ShardedCounter h = s.handle(c, k % s.model.length);
            VerbsStatistics before = s.clients[c].statistics();
            assertEquals(s.sum(), h.get(), () -> s + ": " + this);
            VerbsStatistics used = cost(s.clients[c], before);
            // One READ per home node, whatever the number of shards on it.
            assertEquals(s.homeNodes.length, used.reads(), () -> s + ": " + this + ": READs");
            assertEquals(s.homeNodes.length, used.roundTrips(), () -> s + ": " + this + ": round trips");
        }

        @Override
        public String toString() {
            return "get(c" + c + " via shard " + k + " % shards)";
        }
    }

    /** A handle bound by round robin: its shard is in range, and its increment lands there. */
    record ShardRoundRobin(int c) implements Step<Sharded> {
        @Override
        public void apply(Sharded s) {
            try (ShardedCounter h = ShardedCounter.attach(s.clients[c], s.shards)) {
                int shard = h.shard();
                assertTrue(shard >= 0 && shard < s.model.length, () -> s + ": " + this + ": shard " + shard);
                h.increment();
                s.model[shard]++;
            }
        }

        @Override
        public String toString() {
            return "increment(c" + c + ", a round-robin handle)";
        }
    }

    /** Shard {@code -1 - j} ({@code below}) or {@code shards + j}. */
    record ShardBadIndex(int c, boolean below, int j) implements Step<Sharded> {
        @Override
        public void apply(Sharded s) {
            int shard = below ? -1 - j : s.model.length + j;
            assertNamedError(IndexOutOfBoundsException.class, "out of bounds for length " + s.model.length,
                () -> ShardedCounter.attach(s.clients[c], s.shards, shard), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "attach(c" + c + ", shard " + (below ? Integer.toString(-1 - j) : "shards + " + j) + ") fails";
        }
    }

    record ShardBadShape(int shardsPerHome) implements Step<Sharded> {
        @Override
        public void apply(Sharded s) {
            assertNamedError(IllegalArgumentException.class, "needs a home and a shard per home",
                () -> ShardedCounter.create(shardsPerHome, s.homeNodes), this::toString);
            assertNamedError(IllegalArgumentException.class, "needs a home and a shard per home",
                () -> ShardedCounter.create(1), this::toString);
        }

        @Override
        public String toString() {
            return "create(" + shardsPerHome + " shards per home) and create(no homes) fail";
        }
    }

    @Provide
    Arbitrary<ActionChain<Sharded>> shardedChains() {
        return ActionChain.<Sharded>startWith(() -> new Sharded(homes, shardsPerHome))
            .withAction(6, action(Combinators.combine(client(), Arbitraries.integers().between(0, 5),
                Arbitraries.of(true, true, false), deltas()).as(ShardAdd::new)))
            .withAction(3, action(Combinators.combine(client(), Arbitraries.integers().between(0, 5))
                .as(ShardGet::new)))
            .withAction(1, action(client().map(ShardRoundRobin::new)))
            .withAction(1, action(Combinators.combine(client(), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 2)).as(ShardBadIndex::new)))
            .withAction(1, action(Arbitraries.integers().between(-2, 0).map(ShardBadShape::new)))
            .withMaxTransformations(LENGTH);
    }

    /** Not shrunk: the chain ran on this shape (its shard indices are taken modulo the shard count). */
    @Provide
    Arbitrary<Integer> homeCounts() {
        return Arbitraries.integers().between(1, 2).dontShrink();
    }

    @Provide
    Arbitrary<Integer> shardsPerHome() {
        return Arbitraries.integers().between(1, 3).dontShrink();
    }

    @Property
    void shardedCounterBehavesAsALongPerShard(@ForAll("homeCounts") int homes,
                                              @ForAll("shardsPerHome") int shardsPerHome,
                                              @ForAll("shardedChains") ActionChain<Sharded> chain) {
        this.homes = homes;
        this.shardsPerHome = shardsPerHome;
        ModelChains.run(chain.withInvariant("every shard word holds the model's", Sharded::invariant), opened);
    }
}
