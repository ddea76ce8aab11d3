package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetRuns;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Locks whose verbs time out with their effect still to come, on the deterministic fabric: the home's round trip is
 * 20 ms and every thread's first acquire of a round is cut at 15 ms (by {@code lock(timeout)}, or by the endpoint's
 * deadline around {@code lock()}), so the verb lands after its caller gave up. The thread then acquires without a
 * timeout. No lock may be orphaned by the late verb (every run finishes), and mutual exclusion holds.
 */
class LockTimeoutDeterministicTest {
    private static final int SEEDS = Integer.getInteger("remora.test.timeoutSeeds", 30);
    private static final int THREADS = 3;
    private static final int ROUNDS = 2;
    private static final long RTT_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long CUT_NS = TimeUnit.MILLISECONDS.toNanos(15);

    private record Outcome(DetFabric.Result result, long counter, int maxInside, int timeouts) {
    }

    private static Outcome run(LockKind kind, long seed, boolean blocking) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).maxSteps(400_000).nodeRoundTripNs(0, RTT_NS)
            // 100 µs per step: an MCS waiter spins on its own memory, and CPU steps keep the clock from jumping
            .nanosPerStep(100_000));
        Node home = f.addNode("home");
        Node data = f.addNode("data");
        Node[] clients = {f.addNode("c1"), f.addNode("c2")};
        RemoteAddress lock = kind.create(home, THREADS);
        MemoryRegion counter = data.allocate(8, Access.ALL);
        int[] inside = new int[2];
        int[] timeouts = new int[1];
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Node node = clients[t % 2];
            f.spawn(node, "t" + t, () -> {
                try (Endpoint ep = Endpoint.open(node)) {
                    RemoteLock l = kind.attach(ep, lock, THREADS, index);
                    for (int i = 0; i < ROUNDS; i++) {
                        boolean held;
                        if (blocking) {
                            long previous = ep.deadline(ep.nanoTime() + CUT_NS);
                            try {
                                l.lock();
                                held = true;
                            } catch (VerbsTimeoutException e) {
                                held = false;
                            } finally {
                                ep.deadline(previous);
                            }
                        } else {
                            held = l.lock(CUT_NS, TimeUnit.NANOSECONDS).acquired();
                        }
                        if (!held) {
                            timeouts[0]++;
                            l.lock();
                        }
                        inside[0]++;
                        inside[1] = Math.max(inside[1], inside[0]);
                        long v = ep.readLong(counter.remote(0));
                        ep.writeLong(counter.remote(0), v + 1);
                        inside[0]--;
                        l.unlock();
                    }
                    l.close();
                }
            });
        }
        DetFabric.Result r = f.run();
        return new Outcome(r, f.peek(counter, 0), inside[1], timeouts[0]);
    }

    private static void check(LockKind kind, boolean blocking) {
        AtomicInteger timeouts = new AtomicInteger();
        DetRuns.forEachSeedInParallel(1, SEEDS, seed -> {
            Outcome o = run(kind, seed, blocking);
            assertTrue(o.result().finished() && o.result().failures().isEmpty(),
                () -> kind + (blocking ? " lock() cut by a deadline" : " lock(timeout)") + ": "
                    + o.result().describe());
            assertEquals(1, o.maxInside(), "two threads inside the critical section");
            assertEquals(THREADS * ROUNDS, o.counter(), "an increment under the lock was lost");
            timeouts.addAndGet(o.timeouts());
        });
        assertTrue(timeouts.get() > 0, "no acquire timed out: the test did not test anything");
    }

    @Test
    void shouldNeverOrphanACasSpinLockWhenATimedAcquireGivesUp() {
        check(LockKind.CAS_SPIN, false);
    }

    @Test
    void shouldNeverOrphanACasSpinLockWhenADeadlineCutsLock() {
        check(LockKind.CAS_SPIN, true);
    }

    @Test
    void shouldNeverOrphanATicketLockWhenATimedAcquireGivesUp() {
        check(LockKind.TICKET, false);
    }

    @Test
    void shouldNeverOrphanATicketLockWhenADeadlineCutsLock() {
        check(LockKind.TICKET, true);
    }

    @Test
    void shouldNeverQueueAnMcsNodeBehindItselfWhenATimedAcquireGivesUp() {
        check(LockKind.MCS, false);
    }

    @Test
    void shouldNeverQueueAnMcsNodeBehindItselfWhenADeadlineCutsLock() {
        check(LockKind.MCS, true);
    }

    @Test
    void shouldNeverStrandALeaseLockWhenATimedAcquireGivesUp() {
        check(LockKind.LEASE, false);
    }

    @Test
    void shouldNeverLeakAWaitingWriterWhenATimedWriteAcquireGivesUp() {
        check(LockKind.READ_WRITE, false);
    }

    @Test
    void shouldNeverLeakAWaitingWriterWhenADeadlineCutsWriteLock() {
        check(LockKind.READ_WRITE, true);
    }
}
