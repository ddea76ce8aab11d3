package dev.remora.objects;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The remote barrier on the fast software fabric: many rounds of parties on several nodes, cost, timeouts. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RemoteBarrierTest {
    private static final long LONG_WAIT_NS = 20_000_000_000L;

    /**
     * Five parties on three nodes, 300 rounds. Before arriving in round r a party counts itself in {@code arrived[r]};
     * after passing it checks that all five did (nobody passes before everybody arrived), that the round number is
     * r (the barrier is reused round after round), and records its arrival index (each round's are 0 .. 4).
     */
    @Test
    void shouldReleaseNobodyBeforeEveryPartyArrivedRoundAfterRound() throws Exception {
        int parties = 5;
        int rounds = 300;
        try (Fabric fabric = SimFabric.open(SimContext.twoMicrosecondRoundTrip().nicThreads(2))) {
            Node home = fabric.addNode("home");
            Node[] nodes = {fabric.addNode("n0"), fabric.addNode("n1"), home};
            RemoteAddress barrier = RemoteBarrier.create(home);
            AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
            AtomicIntegerArray indices = new AtomicIntegerArray(rounds);
            AtomicReference<String> problem = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < parties; p++) {
                Node node = nodes[p % nodes.length];
                threads.add(new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node)) {
                        RemoteBarrier b = RemoteBarrier.attach(ep, barrier, parties);
                        for (int r = 0; r < rounds && problem.get() == null; r++) {
                            arrived.incrementAndGet(r);
                            RemoteBarrier.Result result = b.await(LONG_WAIT_NS);
                            int seen = arrived.get(r);
                            if (!result.passed() || result.round() != r || seen != parties) {
                                problem.compareAndSet(null, "round " + r + ": " + result + " with " + seen
                                    + " arrivals counted");
                            }
                            indices.getAndAdd(r, 1 << result.arrivalIndex());
                        }
                    } catch (RuntimeException e) {
                        problem.compareAndSet(null, e.toString());
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(problem.get());
            for (int r = 0; r < rounds; r++) {
                assertEquals((1 << parties) - 1, indices.get(r), "round " + r + "'s arrival indices are 0 .. 4");
            }
            try (Endpoint ep = Endpoint.open(nodes[0])) {
                assertEquals(rounds, RemoteBarrier.attach(ep, barrier, parties).generation());
            }
        }
    }

    @Test
    void shouldCostAFetchAddAndACasForTheLastArrival() {
        try (Fabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            try (Endpoint ep = Endpoint.open(client)) {
                RemoteBarrier b = RemoteBarrier.attach(ep, RemoteBarrier.create(home), 1);
                VerbsStatistics before = ep.statistics();
                for (int r = 0; r < 10; r++) {
                    assertEquals(new RemoteBarrier.Result(RemoteBarrier.Status.PASSED, r, 0), b.await(LONG_WAIT_NS));
                }
                VerbsStatistics used = ep.statistics().minus(before);
                assertEquals(20, used.roundTrips());
                assertEquals(10, used.fetchAndAdds());
                assertEquals(10, used.compareAndSwaps());
                assertEquals(0, used.reads());
            }
        }
    }

    /**
     * Three parties, one never comes: the two others return BROKEN, the first within about its timeout; a party that
     * arrives afterwards sees BROKEN at once, and so does every later round.
     */
    @Test
    void shouldBreakTheRoundWhenAPartyDoesNotComeAndTellLateArrivalsAtOnce() throws Exception {
        long timeout = 200_000_000L;
        try (Fabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            RemoteAddress barrier = RemoteBarrier.create(home);
            AtomicReference<RemoteBarrier.Result> other = new AtomicReference<>();
            Thread second = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(client)) {
                    other.set(RemoteBarrier.attach(ep, barrier, 3).await(LONG_WAIT_NS));
                }
            });
            try (Endpoint ep = Endpoint.open(client)) {
                RemoteBarrier b = RemoteBarrier.attach(ep, barrier, 3);
                second.start();
                long start = System.nanoTime();
                RemoteBarrier.Result r = b.await(timeout);
                long took = System.nanoTime() - start;
                assertEquals(RemoteBarrier.Status.BROKEN, r.status());
                assertEquals(0, r.round());
                assertTrue(took >= timeout && took < timeout + 5_000_000_000L, "returned after " + took + " ns");
                second.join(10_000);
                assertFalse(second.isAlive(), "the other waiter learnt that the round broke");
                assertEquals(RemoteBarrier.Status.BROKEN, other.get().status(), "its wait was 20 s: it saw the bit");
                assertEquals(-1, b.generation());

                long lateStart = System.nanoTime();
                RemoteBarrier.Result late = b.await(LONG_WAIT_NS);
                assertEquals(new RemoteBarrier.Result(RemoteBarrier.Status.BROKEN, 0, 2), late,
                    "the latecomer completes the broken round and finds it broken");
                RemoteBarrier.Result next = b.await(LONG_WAIT_NS);
                assertEquals(RemoteBarrier.Status.BROKEN, next.status());
                assertEquals(1, next.round());
                assertTrue(System.nanoTime() - lateStart < 5_000_000_000L, "late arrivals do not wait");
            }
        }
    }

    @Test
    void shouldRejectBadArguments() {
        try (Fabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            try (Endpoint ep = Endpoint.open(home)) {
                RemoteAddress b = RemoteBarrier.create(home);
                assertThrows(IllegalArgumentException.class, () -> RemoteBarrier.attach(ep, b, 0));
                assertThrows(IllegalArgumentException.class, () -> RemoteBarrier.attach(ep, b.plus(4), 2));
                assertEquals(2, RemoteBarrier.attach(ep, b, 2).parties());
            }
        }
    }
}
