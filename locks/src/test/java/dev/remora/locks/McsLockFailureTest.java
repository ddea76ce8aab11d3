package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link McsLock} when a waiter vanishes mid-queue, when the ordered release's flush fails, and when a release CAS
 * times out.
 */
class McsLockFailureTest {

    /**
     * The release CAS's wait is cut (a 20 ms round trip to the home, a 15 ms deadline): unlock() throws and the handle
     * still holds the lock; the next unlock() settles that CAS (it freed the tail) instead of leaving it to the next
     * lock(), which took its result, the handle's own index, for an acquiring CAS's and queued the node behind itself
     * (TLA+ model spec/locks/McsLock/MCMcsLockRelCasTimeout: NoSelfLink).
     */
    @Test
    void shouldSettleATimedOutReleaseCasInTheNextUnlockNotInTheNextLock() {
        DetFabric f = DetFabric.open(new DetContext().seed(1).maxSteps(20_000)
            .nodeRoundTripNs(0, TimeUnit.MILLISECONDS.toNanos(20)).nanosPerStep(100_000));
        Node home = f.addNode("home");
        Node c = f.addNode("c");
        MemoryRegion region = home.allocate(McsLock.length(2), Access.ALL);
        RemoteAddress lock = region.remote(0);
        boolean[] seen = new boolean[3];
        f.spawn(c, "t", () -> {
            try (Endpoint ep = Endpoint.open(c)) {
                McsLock l = McsLock.attach(ep, lock, 2, 0);
                l.lock();
                long previous = ep.deadline(ep.nanoTime() + TimeUnit.MILLISECONDS.toNanos(15));
                try {
                    l.unlock();
                } catch (VerbsTimeoutException e) {
                    seen[0] = true; // the release CAS is still in flight
                } finally {
                    ep.deadline(previous);
                }
                seen[1] = l.isHeld();
                if (l.isHeld()) {
                    l.unlock();
                }
                l.lock(); // before the fix: queued behind itself, spinning for ever
                seen[2] = l.isHeld();
                l.unlock();
                l.close();
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r::describe);
        assertTrue(seen[0], "the release CAS did not time out: the test did not test anything");
        assertTrue(seen[1], "an unlock() that threw left the handle holding the lock");
        assertTrue(seen[2], "the lock() after the settled release acquired");
        assertEquals(0, f.peek(region, McsLock.TAIL_OFFSET), "the tail is free");
    }

    @Test
    void shouldBoundTheWaitForASuccessorThatSwappedTheTailButNeverLinks() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = McsLock.create(home, 2).address();
            Endpoint.Context quick = new Endpoint.Context().operationTimeoutNs(TimeUnit.MILLISECONDS.toNanos(50));
            try (Endpoint a = Endpoint.open(c, quick); Endpoint ghost = Endpoint.open(c)) {
                McsLock holder = McsLock.attach(a, lock, 2, 0);
                holder.lock();
                // A waiter with index 1 swaps the tail and crashes before it links behind the holder.
                long holderId = McsLockDescriptor.id(0, 1);
                long ghostId = McsLockDescriptor.id(1, 1);
                assertEquals(holderId, ghost.cas(lock.plus(McsLock.TAIL_OFFSET), holderId, ghostId));
                VerbsTimeoutException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(VerbsTimeoutException.class, holder::unlock),
                    "unlock() waited for ever for a successor that never links");
                assertTrue(e.getMessage().contains("has not linked"), e.getMessage());
                assertTrue(holder.isHeld(), "nothing was released, so the holder still holds the lock");
                // The operator, knowing the waiter is gone, frees the tail; the holder's next release finds it free.
                assertEquals(ghostId, McsLock.reset(ghost, lock));
                holder.unlock();
                McsLock next = McsLock.attach(ghost, lock, 2, 1);
                assertEquals(LockResult.ACQUIRED, next.tryLock());
                next.unlock();
            }
        }
    }

    @Test
    void shouldKeepTheLockWhenTheOrderedReleasesFlushFails() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            Node d = fabric.addNode("d");
            RemoteAddress lock = McsLock.create(home, 2).address();
            // The critical section writes a region that cannot be read remotely: the flush READ is refused.
            MemoryRegion writeOnly = d.allocate(8, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                McsLock first = McsLock.attach(a, lock, 2, 0);
                McsLock second = McsLock.attach(b, lock, 2, 1);
                first.lock();
                a.writeLong(writeOnly.remote(0), 42);
                RemoteAccessException e = assertThrows(RemoteAccessException.class, first::unlock);
                assertTrue(e.getMessage().contains("READ"), e.getMessage());
                assertTrue(first.isHeld(), "a failed flush released nothing");
                assertEquals(LockResult.CONTENDED, second.tryLock(), "nobody else got in");
                first.unlockWeak(); // the holder gives up on publication and frees the lock
                assertEquals(LockResult.ACQUIRED, second.tryLock());
                second.unlock();
            }
        }
    }

    /**
     * The release CAS's queue pair fails (the home stops answering: RETRY_EXC_ERR, outcome unknown). The CAS may have
     * freed the tail and another handle may hold the lock, so the handle must not keep claiming it: before the fix it
     * still reported {@code isHeld()} (TLA+ twin spec/locks/McsLock/MCMcsLockReleaseError: HeldExclusive).
     */
    @Test
    void shouldNotClaimTheLockAfterAReleaseCasWithAnUnknownOutcome() {
        try (SimFabric fabric = SimFabric.open(new SimContext().retryTimeoutNs(TimeUnit.MILLISECONDS.toNanos(5)))) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = McsLock.create(home, 2).address();
            try (Endpoint a = Endpoint.open(c)) {
                McsLock holder = McsLock.attach(a, lock, 2, 0);
                holder.lock();
                fabric.crash(home);
                RemoteAccessException e = assertThrows(RemoteAccessException.class, holder::unlock);
                assertTrue(e.isIndeterminate(), e.getMessage());
                assertFalse(holder.isHeld(), "the release may have happened: the handle must not claim the lock");
                assertTrue(holder.isPositionUnknown());
                assertThrows(IllegalStateException.class, holder::tryLock, "the handle refuses further use");
            }
        }
    }

    /**
     * The handover WRITE's queue pair fails (the successor's node stops answering): the WRITE may still land, so the
     * handle no longer holds the lock and does not post the handover again.
     */
    @Test
    void shouldNotClaimTheLockAfterAHandoverWithAnUnknownOutcome() {
        try (SimFabric fabric = SimFabric.open(new SimContext().retryTimeoutNs(TimeUnit.MILLISECONDS.toNanos(5)))) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            Node w = fabric.addNode("w");
            RemoteAddress lock = McsLock.create(home, 2).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(w)) {
                McsLock holder = McsLock.attach(a, lock, 2, 0);
                McsLock.attach(b, lock, 2, 1); // the successor's slot names its queue node on w
                holder.lock();
                // The successor queues by hand, as its lock() would: it swaps the tail and links behind the holder.
                long holderId = McsLockDescriptor.id(0, 1);
                long successorId = McsLockDescriptor.id(1, 1);
                assertEquals(holderId, b.cas(lock.plus(McsLock.TAIL_OFFSET), holderId, successorId));
                RemoteAddress slot = McsLockDescriptor.slot(lock, 0);
                long key = b.readLong(slot.plus(McsLockDescriptor.SLOT_KEY_OFFSET));
                RemoteAddress qnode = McsLockDescriptor.qnode(key,
                    b.readLong(slot.plus(McsLockDescriptor.SLOT_ADDRESS_OFFSET)));
                b.writeLong(qnode.plus(McsLock.QNODE_NEXT_OFFSET), successorId);
                b.flush(-1); // placed before the holder reads its next word (R7)
                fabric.crash(w);
                RemoteAccessException e = assertThrows(RemoteAccessException.class, holder::unlock);
                assertTrue(e.isIndeterminate(), e.getMessage());
                assertFalse(holder.isHeld(), "the handover may have landed: the handle must not claim the lock");
                assertTrue(holder.isPositionUnknown());
            }
        }
    }
}
