package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.PublicationLostException;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CasSpinLock} when verbs time out, queue pairs fail and are replaced: a timed acquire bounds its verbs and
 * returns TIMED_OUT, a CAS that took effect after the handle gave up is recognised (never an orphaned lock), close()
 * undoes it, and an ordered release never reports success when a replaced queue pair may still carry the critical
 * section's WRITEs.
 */
class CasSpinLockFailureTest {
    /** Far above the timeout, so that a loaded machine cannot make the completion come in time. */
    private static final long RTT_NS = TimeUnit.MILLISECONDS.toNanos(150);
    private static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(15);

    private static SimFabric slow() {
        return SimFabric.open(new SimContext().roundTripLatencyNs(RTT_NS));
    }

    @Test
    void shouldReturnTimedOutWithinTheLocksTimeoutAndThenFindTheLateAcquisition() {
        try (SimFabric fabric = slow()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                CasSpinLock first = CasSpinLock.attach(a, word, 1);
                CasSpinLock second = CasSpinLock.attach(b, word, 2);
                long start = System.nanoTime();
                assertEquals(LockResult.TIMED_OUT, first.lock(15, TimeUnit.MILLISECONDS),
                    "the lock's timeout bounds its CAS (the verbs' own timeout is 30 s)");
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "it did not wait for the verb");
                assertFalse(first.isHeld());
                assertEquals(LockResult.CONTENDED, second.tryLock(), "the late CAS took the lock");
                assertEquals(1, CasSpinLock.inspect(b, word));
                assertEquals(LockResult.ACQUIRED, first.tryLock(), "the handle settles its CAS and holds the lock");
                assertTrue(first.isHeld());
                first.unlock();
                assertEquals(LockResult.ACQUIRED, second.tryLock());
                second.unlock();
                first.close();
                second.close();
            }
        }
    }

    @Test
    void shouldTimeOutATryLockWhoseCasIsLateAndHoldTheLockOnTheNextCall() {
        try (SimFabric fabric = slow()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home).address();
            Endpoint.Context quick = new Endpoint.Context().operationTimeoutNs(TIMEOUT_NS);
            try (Endpoint a = Endpoint.open(c, quick)) {
                CasSpinLock l = CasSpinLock.attach(a, word, 7);
                assertEquals(LockResult.TIMED_OUT, l.tryLock(), "a late completion is a timeout, not an exception");
                // The next attempt waits (within its budget) for the earlier CAS before posting anything new.
                LockResult r = LockResult.TIMED_OUT;
                for (int i = 0; i < 10 && r == LockResult.TIMED_OUT; i++) {
                    r = l.tryLock();
                }
                assertEquals(LockResult.ACQUIRED, r, "never CONTENDED by its own orphaned acquisition");
                assertEquals(0, l.unresolvedAcquires());
            }
        }
    }

    @Test
    void shouldUndoALateAcquisitionWhenTheHandleIsClosed() {
        try (SimFabric fabric = slow()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                CasSpinLock gaveUp = CasSpinLock.attach(a, word, 1);
                // A 20 ms round trip against a 15 ms timeout: the CAS's completion comes late, unless this thread was
                // descheduled past the completion (a loaded machine): then it holds the lock; try again.
                LockResult r = gaveUp.lock(15, TimeUnit.MILLISECONDS);
                for (int tries = 1; r == LockResult.ACQUIRED && tries < 20; tries++) {
                    gaveUp.unlock();
                    r = gaveUp.lock(15, TimeUnit.MILLISECONDS);
                }
                assertEquals(LockResult.TIMED_OUT, r);
                gaveUp.close();
                CasSpinLock other = CasSpinLock.attach(b, word, 2);
                assertEquals(LockResult.ACQUIRED, other.lock(1, TimeUnit.SECONDS), "close gave the lock back");
                other.unlock();
                other.close();
            }
        }
    }

    @Test
    void shouldDetectASecondHandleWithTheSameOwnerId() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                CasSpinLock one = CasSpinLock.attach(a, word, 5);
                CasSpinLock twin = CasSpinLock.attach(b, word, 5);
                one.lock();
                IllegalStateException e = assertThrows(IllegalStateException.class, twin::tryLock);
                assertTrue(e.getMessage().contains("owner id"), e.getMessage());
                one.unlock();
            }
        }
    }

    // ------------------------------------------------------------------ publication across a replaced queue pair

    private static final int WRITES = 16;
    private static final int WORDS = WRITES * 64;

    private record Run(long ackStep, int qpNumber, String unlock, int staleWordsSeen) {
    }

    /**
     * Holder t1 WRITEs 1,024 words to the lock's home in one doorbell (the critical section's data lives with the lock,
     * so the ordered release flushes nothing: R6 and R7 order its WRITEs before the release on the same queue pair),
     * then unlocks; t2, on another node, waits for the lock and reads the data.
     */
    private static Run run(long seed, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults).maxSteps(300_000));
        Node home = f.addNode("home");
        Node n1 = f.addNode("n1");
        Node n2 = f.addNode("n2");
        RemoteAddress word = CasSpinLock.create(home).address();
        MemoryRegion data = home.allocate(WORDS * 8L, Access.ALL);
        long[] ackStep = {-1};
        int[] qp = new int[1];
        String[] unlock = {"not reached"};
        int[] stale = {-1};
        boolean[] holds = new boolean[1];
        f.spawn(n1, "t1", () -> {
            try (Endpoint ep = Endpoint.open(n1)) {
                CasSpinLock l = CasSpinLock.attach(ep, word, 1);
                l.lock();
                holds[0] = true;
                MemoryRegion src = n1.allocate(WORDS * 8L, Access.LOCAL_WRITE);
                for (int i = 0; i < WORDS; i++) {
                    src.putLong(i * 8L, i + 1);
                }
                QueuePair q = ep.queuePair(home.id());
                qp[0] = q.qpNumber();
                WaitTag tag = ep.newTag("cs");
                WorkRequest[] w = new WorkRequest[WRITES];
                for (int i = 0; i < WRITES; i++) {
                    w[i] = new WorkRequest().write(src, i * 512L, 512, data.remote(i * 512L));
                }
                ep.markWritten(data.remote(0));
                tag.post(q, w, WRITES);
                if (tag.await(Long.MAX_VALUE) != WaitStatus.COMPLETED) {
                    unlock[0] = "critical section failed";
                    l.unlockWeak();
                    return;
                }
                ackStep[0] = f.steps();
                String outcome = null;
                while (l.isHeld()) {
                    try {
                        if (outcome == null) {
                            l.unlock();
                            outcome = "returned";
                        } else {
                            l.unlockWeak(); // the holder gives up on publication and frees the lock
                        }
                    } catch (PublicationLostException e) {
                        outcome = "publication lost, held=" + l.isHeld();
                    } catch (RemoteAccessException e) {
                        // the release failed with its queue pair: the retry settles it
                    }
                }
                unlock[0] = outcome;
            }
        });
        f.spawn(n2, "t2", () -> {
            try (Endpoint ep = Endpoint.open(n2)) {
                CasSpinLock l = CasSpinLock.attach(ep, word, 2);
                // t2 enters second: it waits until t1 holds the lock (each READ gives the other thread turns).
                while (!holds[0]) {
                    ep.readLong(word);
                }
                l.lock();
                MemoryRegion dst = n2.allocate(WORDS * 8L, Access.LOCAL_WRITE);
                int n = 0;
                // Last chunk first: the holder's WRITEs are placed in posting order (R6), so the end lags most.
                for (int i = WORDS - 64; i >= 0; i -= 64) {
                    ep.read(data.remote(i * 8L), dst, i * 8L, 512);
                }
                for (int i = 0; i < WORDS; i++) {
                    n += dst.getLong(i * 8L) == i + 1 ? 0 : 1;
                }
                stale[0] = n;
                l.unlock();
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), () -> "seed " + seed + ": " + r);
        return new Run(ackStep[0], qp[0], unlock[0], stale[0]);
    }

    @Test
    void shouldNeverReportAnOrderedReleaseWhoseQueuePairWasReplacedUnderItsWrites() {
        int lost = 0;
        for (long seed = 1; seed <= 5; seed++) {
            Run healthy = run(seed, FaultPlan.NONE);
            assertEquals("returned", healthy.unlock());
            assertEquals(0, healthy.staleWordsSeen(), "seed " + seed + ": the next holder sees the data");
            for (long at = healthy.ackStep() - 3; at <= healthy.ackStep() + 1; at++) {
                Run faulted = run(seed, FaultPlan.of(new FaultPlan.QueuePairError(at, healthy.qpNumber())));
                if (faulted.unlock().equals("returned")) {
                    assertEquals(0, faulted.staleWordsSeen(), "seed " + seed + ", fault at step " + at
                        + ": unlock() returned normally and the next holder read " + faulted.staleWordsSeen()
                        + " stale words of " + WORDS);
                } else if (faulted.unlock().startsWith("publication lost")) {
                    assertEquals("publication lost, held=true", faulted.unlock(), "the handle still holds the lock");
                    lost++;
                }
            }
        }
        assertTrue(lost > 0, "no run replaced the queue pair under the critical section's WRITEs");
    }
}
