package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
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
     * A slow waiter of a released round passes even when a later round is broken already. Two parties: the waiter
     * arrives first in round 0 (ticket 0); before its first READ, the other party arrives last (releasing round 0:
     * state 1), arrives in round 1 and times out, breaking it (state BROKEN | 1). The waiter's READ then finds
     * BROKEN | 1, and its round 0 was released. The other party's steps are its verbs on the barrier's words, posted
     * here before the waiter's await: the waiter's FETCH_ADD and READ return exactly what they return in that
     * interleaving (its FETCH_ADD touches only the count, which the other party's steps leave at 0 before it). Found
     * by TLC (spec/objects/RemoteBarrier, MCRemoteBarrierDeadline); a waiter that looked at the broken bit first
     * returned BROKEN for a round the other party passed.
     */
    @Test
    void aSlowWaiterOfAReleasedRoundPassesWhenALaterRoundIsBroken() {
        try (Cluster c = Cluster.fast("home", "waiter", "other")) {
            RemoteAddress barrier = RemoteBarrier.create(c.node("home"));
            Endpoint other = c.endpoint("other");
            RemoteAddress state = barrier.plus(RemoteBarrierDescriptor.STATE_OFFSET);
            assertEquals(0, other.cas(state, 0, 1), "the other party releases round 0");
            assertEquals(1, other.cas(state, 1, RemoteBarrierDescriptor.BROKEN | 1), "and breaks round 1");
            RemoteBarrier waiter = RemoteBarrier.attach(c.endpoint("waiter"), barrier, 2);
            RemoteBarrier.Result polled = waiter.await(LONG_WAIT_NS);
            assertEquals(new RemoteBarrier.Result(RemoteBarrier.Status.PASSED, 0, 0), polled,
                "round 0 was released: its waiter passed");
            // Its next arrival (ticket 1, the last of round 0 by the count) finds the barrier broken.
            assertFalse(waiter.await(0).passed());
        }
    }

    /**
     * Five parties on three nodes, 300 rounds. Before arriving in round r a party counts itself in {@code arrived[r]};
     * after passing it checks that all five did (nobody passes before everybody arrived), that the round number is
     * r (the barrier is reused round after round), and records its arrival index (each round's are 0 .. 4).
     */
    @Test
    void shouldReleaseNobodyBeforeEveryPartyArrivedRoundAfterRound() throws Exception {
        int parties = 5;
        int rounds = 300;
        try (Cluster c = Cluster.fastTwoMicroseconds("home", "n0", "n1")) {
            Node[] nodes = {c.node("n0"), c.node("n1"), c.node("home")};
            RemoteAddress barrier = RemoteBarrier.create(c.node("home"));
            AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
            AtomicIntegerArray indices = new AtomicIntegerArray(rounds);
            AtomicReference<String> problem = new AtomicReference<>();
            Parallel.run(parties, Duration.ofSeconds(50), p -> {
                RemoteBarrier b = RemoteBarrier.attach(c.endpoint(nodes[p % nodes.length]), barrier, parties);
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
            });
            assertNull(problem.get());
            for (int r = 0; r < rounds; r++) {
                assertEquals((1 << parties) - 1, indices.get(r), "round " + r + "'s arrival indices are 0 .. 4");
            }
            assertEquals(rounds, RemoteBarrier.attach(c.endpoint("n0"), barrier, parties).generation());
        }
    }

    @Test
    void shouldCostAFetchAddAndACasForTheLastArrival() {
        try (Cluster c = Cluster.fast("home", "client")) {
            Endpoint ep = c.endpoint("client");
            RemoteBarrier b = RemoteBarrier.attach(ep, RemoteBarrier.create(c.node("home")), 1);
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

    /**
     * Three parties, one never comes: the two others return BROKEN, the first within about its timeout; a party that
     * arrives afterwards sees BROKEN at once, and so does every later round.
     */
    @Test
    void shouldBreakTheRoundWhenAPartyDoesNotComeAndTellLateArrivalsAtOnce() throws Exception {
        long timeout = 200_000_000L;
        try (Cluster c = Cluster.fast("home", "client")) {
            RemoteAddress barrier = RemoteBarrier.create(c.node("home"));
            AtomicReference<RemoteBarrier.Result> other = new AtomicReference<>();
            Endpoint otherEndpoint = c.endpoint("client");
            Thread second = new Thread(() -> other.set(RemoteBarrier.attach(otherEndpoint, barrier, 3)
                .await(LONG_WAIT_NS)));
            Endpoint ep = c.endpoint("client");
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

    @Test
    void shouldRejectBadArguments() {
        try (Cluster c = Cluster.fast("home")) {
            Node home = c.node("home");
            Endpoint ep = c.endpoint(home);
            RemoteAddress b = RemoteBarrier.create(home);
            assertThrows(IllegalArgumentException.class, () -> RemoteBarrier.attach(ep, b, 0));
            assertThrows(IllegalArgumentException.class, () -> RemoteBarrier.attach(ep, b.plus(4), 2));
            assertEquals(2, RemoteBarrier.attach(ep, b, 2).parties());
        }
    }
}
