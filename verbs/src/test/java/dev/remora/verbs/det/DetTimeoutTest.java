package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionDispatcher;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timeouts of waits on the deterministic fabric's virtual clock, at the level of the completion queue and the wait
 * tag: a request whose round trip ({@link DetContext#linkRoundTripNs}) is longer than its waiter's timeout takes effect
 * and completes after the waiter gave up, and a later poll finds the completion.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DetTimeoutTest {
    private static final long MS = 1_000_000L;
    private static final int SEEDS = 40;
    /** The home node's id: nodes are numbered from 0 in the order they are added. */
    private static final int HOME = 0;
    private static final int CLIENT = 1;

    /** What the client saw. */
    private static final class Seen {
        long posted;
        int firstWait = -1;
        long gaveUp;
        boolean effectWhenGaveUp;
        int laterWait = -1;
        WcStatus status;
        long wrId;
        long completedAt;
        long result = -1;
        WaitStatus tagFirst;
        WaitStatus tagLater;
        long outstandingAfterTimeout = -1;
        long outstandingAtEnd = -1;
        long busyStepsWhenGaveUp = -1;
    }

    /** A run: the client's view, the target word after the run, and the run itself. */
    private record Outcome(Seen seen, long target, DetFabric.Result run) {
    }

    /**
     * The client posts one signaled CAS (0 to 7) to the home word, waits {@code firstTimeoutNs} on the completion
     * queue, then up to a second for the rest.
     */
    private static Outcome casOnQueue(long seed, long roundTripNs, long firstTimeoutNs, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults)
            .linkRoundTripNs(HOME, CLIENT, roundTripNs));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion target = home.allocate(8, Access.ALL);
        MemoryRegion local = client.allocate(8, Access.ALL);
        local.putLong(0, -1);
        Seen seen = new Seen();
        f.spawn(client, "client", () -> {
            CompletionQueue cq = client.createCompletionQueue(4);
            QueuePair qp = client.connect(home, cq); // queue pair 1 (its passive peer is 2)
            Completion[] out = {new Completion()};
            seen.posted = cq.nanoTime();
            qp.post(new WorkRequest().cas(local, 0, target.remote(0), 0, 7).wrId(42).flags(WorkRequest.SIGNALED));
            seen.firstWait = cq.await(out, firstTimeoutNs);
            seen.gaveUp = cq.nanoTime();
            seen.effectWhenGaveUp = f.peek(target, 0) == 7; // an oracle outside the model: memory at that moment
            seen.laterWait = seen.firstWait == 1 ? 1 : cq.await(out, 1_000 * MS);
            seen.completedAt = cq.nanoTime();
            seen.status = out[0].status();
            seen.wrId = out[0].wrId();
            if (seen.status == WcStatus.SUCCESS) {
                seen.result = local.getLong(0); // the completed CAS's result is visible to the poster (R11)
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        return new Outcome(seen, f.peek(target, 0), r);
    }

    @Test
    void shouldTimeOutAWaitWhileTheCasIsInFlightAndDeliverItsCompletionToALaterPoll() {
        int effectBefore = 0;
        int effectAfter = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = casOnQueue(seed, 20 * MS, 15 * MS, FaultPlan.NONE);
            Seen s = o.seen();
            String at = "seed " + seed + ": ";
            assertEquals(0, s.firstWait, at + "the 15 ms wait returned a completion of a 20 ms round trip");
            assertTrue(s.gaveUp - s.posted >= 15 * MS && s.gaveUp - s.posted < 20 * MS,
                at + "gave up after " + (s.gaveUp - s.posted) + " ns");
            assertEquals(1, s.laterWait, at + "a later wait finds the late completion");
            assertEquals(WcStatus.SUCCESS, s.status, at);
            assertEquals(42, s.wrId, at);
            assertTrue(s.completedAt - s.posted >= 20 * MS, at + "completed after " + (s.completedAt - s.posted));
            assertEquals(0, s.result, at + "the CAS read 0");
            assertEquals(7, o.target(), at + "the CAS took effect");
            if (s.effectWhenGaveUp) {
                effectBefore++;
            } else {
                effectAfter++;
            }
        }
        assertTrue(effectBefore > 0, "no seed let the CAS land before the waiter gave up");
        assertTrue(effectAfter > 0, "no seed let the CAS land after the waiter gave up");
    }

    @Test
    void shouldCompleteNormallyWhenTheRoundTripIsShorterThanTheTimeout() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = casOnQueue(seed, 10 * MS, 15 * MS, FaultPlan.NONE);
            Seen s = o.seen();
            String at = "seed " + seed + ": ";
            assertEquals(1, s.firstWait, at + "a 10 ms round trip timed out a 15 ms wait");
            assertEquals(WcStatus.SUCCESS, s.status, at);
            long took = s.completedAt - s.posted;
            assertTrue(took >= 10 * MS && took < 15 * MS, at + "completed after " + took + " ns, not within 10..15 ms");
            assertEquals(7, o.target(), at);
        }
    }

    @Test
    void shouldChooseBetweenTimingOutAndCompletingWhenTheDeadlineMeetsTheRoundTrip() {
        // Deadline and completion fall on the same virtual nanosecond: which comes first is the scheduler's choice.
        int timedOut = 0;
        int completed = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = casOnQueue(seed, 20 * MS, 20 * MS, FaultPlan.NONE);
            if (o.seen().firstWait == 0) {
                timedOut++;
            } else {
                completed++;
            }
            assertEquals(WcStatus.SUCCESS, o.seen().status, "seed " + seed);
            assertEquals(7, o.target(), "seed " + seed);
        }
        assertTrue(timedOut > 0, "no seed timed the waiter out at its deadline");
        assertTrue(completed > 0, "no seed delivered the completion at the deadline first");
    }

    @Test
    void shouldReplayTheSameTimeoutForTheSameSeed() {
        for (long seed : new long[] {3, 17, 29}) {
            Outcome a = casOnQueue(seed, 20 * MS, 15 * MS, FaultPlan.NONE);
            Outcome b = casOnQueue(seed, 20 * MS, 15 * MS, FaultPlan.NONE);
            assertEquals(0, a.seen().firstWait, "seed " + seed + " timed out");
            assertEquals(a.run().traceHash(), b.run().traceHash(), "trace hash of seed " + seed);
            assertEquals(a.run().steps(), b.run().steps(), "steps of seed " + seed);
            assertEquals(a.seen().gaveUp, b.seen().gaveUp, "give-up time of seed " + seed);
            assertEquals(a.seen().effectWhenGaveUp, b.seen().effectWhenGaveUp, "effect order of seed " + seed);
        }
    }

    @Test
    void shouldTimeOutAndThenDeliverTheLateErrorOfABrokenQueuePair() {
        // The client's queue pair is forced into ERROR, or the home crashes, while the CAS is in flight: the waiter
        // times out first (nothing completes before the round trip), and a later wait gets the error, whose outcome
        // at the target is unknown (R20).
        int landed = 0;
        int lost = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            boolean crash = seed % 2 == 0;
            long at = 2 + seed % 3;
            FaultPlan plan = crash ? FaultPlan.of(new FaultPlan.Crash(at, HOME, false))
                : FaultPlan.of(new FaultPlan.QueuePairError(at, 1));
            Outcome o = casOnQueue(seed, 20 * MS, 15 * MS, plan);
            Seen s = o.seen();
            String where = "seed " + seed + (crash ? " (home crashed): " : " (queue pair error): ");
            assertEquals(0, s.firstWait, where + "the wait did not time out");
            assertEquals(1, s.laterWait, where + "a later wait finds the late error");
            assertEquals(crash ? WcStatus.RETRY_EXC_ERR : WcStatus.WR_FLUSH_ERR, s.status, where);
            assertTrue(s.completedAt - s.posted >= 20 * MS, where + "the error came after " + (s.completedAt
                - s.posted) + " ns");
            assertTrue(o.target() == 0 || o.target() == 7, where + "target " + o.target());
            if (o.target() == 7) {
                landed++;
            } else {
                lost++;
            }
        }
        assertTrue(landed > 0, "no seed let the indeterminate CAS land");
        assertTrue(lost > 0, "no seed lost the indeterminate CAS");
    }

    @Test
    void shouldTimeOutAWaitTagAndCountTheLateCompletionAtTheNextAwait() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            // A slow home: every request to or from it has the round trip.
            DetFabric f = DetFabric.open(new DetContext().seed(seed).nodeRoundTripNs(HOME, 20 * MS));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            target.putLong(0, 40);
            MemoryRegion local = client.allocate(8, Access.ALL);
            Seen seen = new Seen();
            f.spawn(client, "client", () -> {
                CompletionQueue cq = client.createCompletionQueue(4);
                WaitTag tag = new CompletionDispatcher(cq).newTag("faa");
                QueuePair qp = client.connect(home, cq);
                seen.posted = cq.nanoTime();
                assertEquals(QueuePair.POSTED, tag.post(qp, new WorkRequest().faa(local, 0, target.remote(0), 2)));
                seen.tagFirst = tag.await(15 * MS);
                seen.gaveUp = cq.nanoTime();
                seen.outstandingAfterTimeout = tag.outstanding();
                seen.tagLater = tag.await(1_000 * MS);
                seen.completedAt = cq.nanoTime();
                seen.outstandingAtEnd = tag.outstanding();
                seen.result = local.getLong(0); // after the completion, the result is visible to the poster (R11)
            });
            DetFabric.Result r = f.run();
            String at = "seed " + seed + ": ";
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(WaitStatus.TIMED_OUT, seen.tagFirst, at + "the tag's 15 ms wait on a 20 ms FETCH_ADD");
            long gaveUp = seen.gaveUp - seen.posted;
            assertTrue(gaveUp >= 15 * MS && gaveUp < 20 * MS, at + "gave up after " + gaveUp + " ns");
            assertEquals(1, seen.outstandingAfterTimeout, at);
            assertEquals(WaitStatus.COMPLETED, seen.tagLater, at + "the next await collects the late completion");
            assertEquals(0, seen.outstandingAtEnd, at);
            assertTrue(seen.completedAt - seen.posted >= 20 * MS, at);
            assertEquals(40, seen.result, at + "FETCH_ADD result");
            assertEquals(42, f.peek(target, 0), at + "the FETCH_ADD took effect");
        }
    }

    @Test
    void shouldTimeOutWhileAnotherThreadKeepsStepping() {
        // A home thread keeps storing to its own memory, so something is always enabled and the clock never jumps:
        // it moves one step at a time (10 us per step here), and the waiter still times out when it passes 15 ms.
        for (long seed = 1; seed <= 3; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed).nanosPerStep(10_000)
                .linkRoundTripNs(HOME, CLIENT, 20 * MS));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            MemoryRegion scratch = home.allocate(8, Access.ALL);
            MemoryRegion local = client.allocate(8, Access.ALL);
            int stores = 1_500; // with its drains about 30 ms of steps
            long[] busy = new long[1];
            Seen seen = new Seen();
            f.spawn(home, "busy", () -> {
                for (int i = 0; i < stores; i++) {
                    scratch.putLong(0, i);
                    busy[0]++;
                }
            });
            f.spawn(client, "client", () -> {
                CompletionQueue cq = client.createCompletionQueue(4);
                QueuePair qp = client.connect(home, cq);
                Completion[] out = {new Completion()};
                seen.posted = cq.nanoTime();
                qp.post(new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED));
                seen.firstWait = cq.await(out, 15 * MS);
                seen.gaveUp = cq.nanoTime();
                seen.busyStepsWhenGaveUp = busy[0];
                seen.laterWait = cq.await(out, 1_000 * MS);
                seen.status = out[0].status();
            });
            DetFabric.Result r = f.run();
            String at = "seed " + seed + ": ";
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(0, seen.firstWait, at + "the wait did not time out");
            long gaveUp = seen.gaveUp - seen.posted;
            assertTrue(gaveUp >= 15 * MS && gaveUp < 20 * MS, at + "gave up after " + gaveUp + " ns");
            assertTrue(seen.busyStepsWhenGaveUp < stores, at + "the other thread had finished before the timeout");
            assertEquals(1, seen.laterWait, at);
            assertEquals(WcStatus.SUCCESS, seen.status, at);
            assertEquals(1, f.peek(target, 0), at);
        }
    }
    @Test
    void shouldTimeOutAWaitWhileAnotherThreadStepsWithoutAnyDelay() {
        // No round-trip delay: the only completion the waiter can get comes from a request another thread posts on a
        // queue pair of the same completion queue after about 30 ms of its own steps.
        for (long seed = 1; seed <= 3; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed).nanosPerStep(10_000));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            MemoryRegion local = client.allocate(16, Access.ALL);
            CompletionQueue cq = client.createCompletionQueue(4);
            QueuePair qp = client.connect(home, cq);
            int stores = 1_500;
            long[] busy = new long[1];
            Seen seen = new Seen();
            f.spawn(client, "poster", () -> {
                for (int i = 0; i < stores; i++) {
                    local.putLong(8, i);
                    busy[0]++;
                }
                qp.post(new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED));
            });
            f.spawn(client, "waiter", () -> {
                Completion[] out = {new Completion()};
                seen.posted = cq.nanoTime();
                seen.firstWait = cq.await(out, 15 * MS);
                seen.gaveUp = cq.nanoTime();
                seen.busyStepsWhenGaveUp = busy[0];
                seen.laterWait = cq.await(out, 1_000 * MS);
                seen.status = out[0].status();
            });
            DetFabric.Result r = f.run();
            String at = "seed " + seed + ": ";
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(0, seen.firstWait, at + "the 15 ms wait returned only after " + (seen.gaveUp - seen.posted)
                + " ns");
            long gaveUp = seen.gaveUp - seen.posted;
            assertTrue(gaveUp >= 15 * MS && gaveUp < 16 * MS, at + "gave up after " + gaveUp + " ns");
            assertTrue(seen.busyStepsWhenGaveUp < stores, at + "the other thread had finished before the timeout");
            assertEquals(1, seen.laterWait, at);
            assertEquals(WcStatus.SUCCESS, seen.status, at);
        }
    }

    @Test
    void shouldStillApplyADelayedCasWhoseLocalRegionIsDeregisteredAfterItLeftTheNic() {
        // The waiter gives up and deregisters the CAS's result region: the sender's NIC checked that key when it took
        // the request, so the CAS still lands and completes (as when an endpoint is closed after a timeout).
        for (long seed = 1; seed <= SEEDS; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed).linkRoundTripNs(HOME, CLIENT, 20 * MS));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            MemoryRegion local = client.allocate(8, Access.ALL);
            Seen seen = new Seen();
            f.spawn(client, "client", () -> {
                CompletionQueue cq = client.createCompletionQueue(4);
                QueuePair qp = client.connect(home, cq);
                Completion[] out = {new Completion()};
                qp.post(new WorkRequest().cas(local, 0, target.remote(0), 0, 7).flags(WorkRequest.SIGNALED));
                seen.firstWait = cq.await(out, 15 * MS);
                local.deregister(); // the doorbell drained before the clock could jump to the deadline (R2)
                seen.laterWait = cq.await(out, 1_000 * MS);
                seen.status = out[0].status();
            });
            DetFabric.Result r = f.run();
            String at = "seed " + seed + ": ";
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(0, seen.firstWait, at + "the wait did not time out");
            assertEquals(1, seen.laterWait, at);
            assertEquals(WcStatus.SUCCESS, seen.status, at);
            assertEquals(7, f.peek(target, 0), at + "the CAS was refused after it had left the sender's NIC");
        }
    }

    @Test
    void shouldTakeTheLargestOfTheLinkAndNodeRoundTrips() {
        DetContext c = new DetContext().linkRoundTripNs(0, 1, 5).nodeRoundTripNs(1, 7).nodeRoundTripNs(2, 3)
            .linkRoundTripNs(2, 0, 9);
        assertEquals(7, c.roundTripNs(0, 1));
        assertEquals(7, c.roundTripNs(1, 0), "a link's round trip holds both ways");
        assertEquals(7, c.roundTripNs(2, 1));
        assertEquals(9, c.roundTripNs(0, 2));
        assertEquals(0, c.roundTripNs(0, 3));
        assertTrue(c.hasRoundTrips());
        assertFalse(new DetContext().linkRoundTripNs(0, 1, 0).hasRoundTrips());
        assertThrows(IllegalArgumentException.class, () -> new DetContext().linkRoundTripNs(0, 1, -1));
        assertThrows(IllegalArgumentException.class, () -> new DetContext().nodeRoundTripNs(-1, 5));
        assertThrows(IllegalArgumentException.class, () -> new DetContext().emptyPollNs(0).conclude());
    }
}
