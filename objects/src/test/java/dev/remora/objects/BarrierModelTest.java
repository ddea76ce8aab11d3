package dev.remora.objects;

import dev.remora.objects.ModelChains.Opened;
import dev.remora.objects.ModelChains.Step;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.remora.objects.ModelChains.action;
import static dev.remora.objects.ModelChains.assertNamedError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model-based test of {@link RemoteBarrier}: 1 to 3 parties on three nodes (the barrier on a fourth), driven round by
 * round, each party in a thread of its own; the sequential model counts arrivals (tickets), released rounds and
 * whether the barrier is broken. A full round passes everybody (or, once broken, nobody) with the round and arrival
 * index its ticket gives, and each party then READs the words every party WRITEd to a fifth node before arriving; a
 * round that some party misses breaks at the first timeout, for good. Every wait is bounded. Bad input is a step too.
 * Chains per property: {@link ModelChains#CHAINS}; at most {@value #LENGTH} steps.
 */
@AddLifecycleHook(ModelChains.class)
class BarrierModelTest {
    static final int LENGTH = 20;
    /** The timeout of a full round's parties: never reached unless the barrier is wrong. */
    private static final long LONG_WAIT_NS = 10_000_000_000L;
    /** The timeout of a round some party misses: how long its parties wait before they break it. */
    private static final long SHORT_WAIT_NS = 2_000_000L;

    private final Opened opened = new Opened();
    /** The current chain's party count: a parameter of the property, read by the chain's initial state. */
    private int parties;

    /** What one party saw: its await's result and, after passing, the data words of every party. */
    record Seen(RemoteBarrier.Result result, long[] words) {
    }

    final class Barrier {
        final int parties;
        final Node home;
        final RemoteAddress base;
        final Endpoint[] endpoints;
        final RemoteBarrier[] handles;
        final RemoteAddress data;
        final ExecutorService threads;
        long tickets;
        long released;
        boolean broken;
        long token;

        Barrier(int parties) {
            this.parties = parties;
            Fabric fabric = opened.add(SimFabric.open());
            home = fabric.addNode("home");
            base = RemoteBarrier.create(home);
            Node dataNode = fabric.addNode("data");
            MemoryRegion words = dataNode.allocate(8L * parties, Access.ALL);
            opened.add(words);
            data = words.remote(0);
            Node[] nodes = {fabric.addNode("n0"), fabric.addNode("n1"), fabric.addNode("n2")};
            endpoints = new Endpoint[parties];
            handles = new RemoteBarrier[parties];
            for (int p = 0; p < parties; p++) {
                endpoints[p] = opened.add(Endpoint.open(nodes[p]));
                handles[p] = RemoteBarrier.attach(endpoints[p], base, parties);
            }
            ExecutorService pool = Executors.newFixedThreadPool(parties, r -> {
                Thread t = new Thread(r, "barrier-party");
                t.setDaemon(true);
                return t;
            });
            threads = pool;
            opened.add(() -> {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "party threads did not end");
            });
        }

        /**
         * Parties {@code 0 .. arriving - 1} each WRITE the round's token to their data word, then await, each in its own
         * thread; a party that passes then READs every data word.
         *
         * @return what each saw
         */
        List<Seen> round(int arriving, long timeoutNs) {
            long value = ++token;
            List<Future<Seen>> futures = new ArrayList<>();
            for (int p = 0; p < arriving; p++) {
                int party = p;
                futures.add(threads.submit(() -> {
                    Endpoint ep = endpoints[party];
                    ep.writeLong(data.plus(8L * party), value);
                    RemoteBarrier.Result r = handles[party].await(timeoutNs);
                    long[] words = new long[parties];
                    if (r.passed()) {
                        for (int q = 0; q < parties; q++) {
                            words[q] = ep.readLong(data.plus(8L * q));
                        }
                    }
                    return new Seen(r, words);
                }));
            }
            List<Seen> seen = new ArrayList<>();
            for (Future<Seen> f : futures) {
                try {
                    seen.add(f.get(30, TimeUnit.SECONDS));
                } catch (Exception e) {
                    throw new AssertionError(this + ": a party did not return from await", e);
                }
            }
            return seen;
        }

        /**
         * The results carry the rounds and arrival indices of tickets {@code tickets .. tickets + n - 1}, in some order.
         */
        void assertTickets(List<Seen> seen, Object step) {
            List<Long> expected = new ArrayList<>();
            List<Long> got = new ArrayList<>();
            for (int i = 0; i < seen.size(); i++) {
                expected.add(tickets + i);
                RemoteBarrier.Result r = seen.get(i).result();
                got.add(r.round() * parties + r.arrivalIndex());
            }
            got.sort(null);
            assertEquals(expected, got, () -> this + ": " + step + ": tickets (round * parties + arrival index)");
            tickets += seen.size();
        }

        /** The state word: released rounds, or -1 once broken. */
        void invariant() {
            assertEquals(broken ? -1 : released, handles[0].generation(), () -> this + ": generation()");
        }

        @Override
        public String toString() {
            return "barrier of " + parties + (parties == 1 ? " party" : " parties") + (broken ? ", broken" : "");
        }
    }

    /** Every party arrives: all pass and see every party's WRITE; or, once broken, all find it broken at once. */
    record FullRound() implements Step<Barrier> {
        @Override
        public void apply(Barrier s) {
            long start = System.nanoTime();
            List<Seen> seen = s.round(s.parties, LONG_WAIT_NS);
            long took = System.nanoTime() - start;
            s.assertTickets(seen, this);
            long[] all = new long[s.parties];
            Arrays.fill(all, s.token);
            for (Seen x : seen) {
                assertEquals(s.broken ? RemoteBarrier.Status.BROKEN : RemoteBarrier.Status.PASSED, x.result().status(),
                    () -> s + ": " + this + ": " + x.result());
                if (!s.broken) {
                    // R7, R11: every party's WRITE was placed before its arrival counted (await flushes first), and these READs
                    // were posted after the READ or CAS that saw the release completed.
                    assertArrayEquals(all, x.words(), () -> s + ": " + this + ": the data words after passing");
                }
            }
            assertTrue(took < LONG_WAIT_NS / 2, () -> s + ": " + this + ": took " + took + " ns");
            if (!s.broken) {
                s.released++;
            }
        }

        @Override
        public String toString() {
            return "every party arrives";
        }
    }

    /**
     * Only {@code min(arriving, parties - 1)} of the parties arrive, with a short timeout: the round breaks, and stays
     * broken.
     */
    record PartialRound(int arriving) implements Step<Barrier> {
        @Override
        public void apply(Barrier s) {
            int arriving = Math.min(this.arriving, s.parties - 1);
            List<Seen> seen = s.round(arriving, SHORT_WAIT_NS);
            s.assertTickets(seen, this);
            for (Seen x : seen) {
                assertEquals(RemoteBarrier.Status.BROKEN, x.result().status(), () -> s + ": " + this + ": "
                    + x.result());
            }
            s.broken = true;
        }

        @Override
        public String toString() {
            return "min(" + arriving + ", parties - 1) parties arrive, the others never do";
        }
    }

    record Generation(int party) implements Step<Barrier> {
        @Override
        public void apply(Barrier s) {
            int p = party % s.parties;
            assertEquals(s.broken ? -1 : s.released, s.handles[p].generation(), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "generation() by party " + party + " (mod parties)";
        }
    }

    record BadAttach(int parties, int offset) implements Step<Barrier> {
        @Override
        public void apply(Barrier s) {
            assertNamedError(IllegalArgumentException.class, "needs at least one party",
                () -> RemoteBarrier.attach(s.endpoints[0], s.base, parties), this::toString);
            assertNamedError(IllegalArgumentException.class, "must be 8-byte aligned",
                () -> RemoteBarrier.attach(s.endpoints[0], s.base.plus(offset), 1), this::toString);
        }

        @Override
        public String toString() {
            return "attach(" + parties + " parties), attach(base + " + offset + ") fail";
        }
    }

    @Provide
    Arbitrary<ActionChain<Barrier>> barrierChains() {
        Action.Independent<Barrier> partial = new Action.Independent<>() {
            @Override
            public boolean precondition(Barrier s) {
                return s.parties > 1;
            }

            @Override
            public Arbitrary<Transformer<Barrier>> transformer() {
                return Arbitraries.integers().between(1, 2).map(PartialRound::new)
                    .map(step -> Transformer.mutate(step.toString(), step::apply));
            }
        };
        return ActionChain.<Barrier>startWith(() -> new Barrier(parties))
            .withAction(6, action(Arbitraries.just(new FullRound())))
            .withAction(1, partial)
            .withAction(1, action(Arbitraries.integers().between(0, 2).map(Generation::new)))
            .withAction(1, action(Combinators.combine(Arbitraries.integers().between(-2, 0),
                Arbitraries.integers().between(1, 7)).as(BadAttach::new)))
            .withMaxTransformations(LENGTH);
    }

    /** Not shrunk: the chain ran with this many parties. */
    @Provide
    Arbitrary<Integer> partyCounts() {
        return Arbitraries.integers().between(1, 3).dontShrink();
    }

    @Property
    void barrierBehavesAsRoundsOfArrivals(@ForAll("partyCounts") int parties,
                                          @ForAll("barrierChains") ActionChain<Barrier> chain) {
        this.parties = parties;
        ModelChains.run(chain.withInvariant("generation() is the model's", Barrier::invariant), opened);
    }
}
