package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.remora.locks.LeaseLockDescriptor.LAST_TOKEN;
import static dev.remora.locks.LeaseLockDescriptor.word;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaseLockTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000);
    private static final long TEN_SECONDS = TimeUnit.SECONDS.toNanos(10);
    private static final long ONE_SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldHandOutStrictlyIncreasingTokensAndRefuseStaleFencedWrites() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, TimeUnit.MILLISECONDS.toNanos(20), 1_000_000).address();
            RemoteAddress register = FencedRegister.create(home).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                LeaseLock first = LeaseLock.attach(a, lock);
                LeaseLock second = LeaseLock.attach(b, lock);
                assertEquals(LockResult.ACQUIRED, first.tryLock());
                long t1 = first.fencingToken();
                assertEquals(FencedRegister.WriteResult.WRITTEN, FencedRegister.attach(a, register).write(t1, 1));
                assertTrue(first.renew());
                assertEquals(LockResult.CONTENDED, second.tryLock(), "a live lease is not taken over");
                // The first holder stalls (no renew). The second takes over after a whole lease by its own clock.
                assertEquals(LockResult.LEASE_EXPIRED, second.lock(5, TimeUnit.SECONDS));
                long t2 = second.fencingToken();
                assertTrue(t2 > t1, "tokens strictly increase: " + t1 + " then " + t2);
                assertEquals(FencedRegister.WriteResult.WRITTEN, FencedRegister.attach(b, register).fence(t2),
                    "the new holder fences the register before using it");
                assertEquals(FencedRegister.WriteResult.STALE_TOKEN, FencedRegister.attach(a, register).write(t1, 99),
                    "after the fence, the stale holder cannot write even before the new holder's first write");
                assertEquals(1, FencedRegister.attach(b, register).read());
                assertEquals(FencedRegister.WriteResult.WRITTEN, FencedRegister.attach(b, register).write(t2, 2));
                assertFalse(first.isLeaseValid(), "the stalled holder's own clock says its lease is over");
                assertFalse(first.renew(), "the stalled holder's renewal finds the takeover");
                assertEquals(FencedRegister.WriteResult.STALE_TOKEN, FencedRegister.attach(a, register).write(t1, 3),
                    "the stale holder's late write is refused");
                assertEquals(2, FencedRegister.attach(a, register).read());
                assertThrows(IllegalStateException.class, first::unlock, "releasing a taken-over lease");
                second.unlock();
                assertEquals(LockResult.ACQUIRED, first.tryLock());
                assertTrue(first.fencingToken() > t2);
                first.unlock();
            }
        }
    }

    @Test
    void shouldTakeOverACrashedHoldersLockAndFenceItsLateWritesOnEverySeed() {
        int takeovers = 0;
        int[] counter = {0};
        for (long seed = 1; seed <= SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            // The holder's node (1) crashes, memory kept, somewhere inside or after its critical section.
            FaultPlan plan = FaultPlan.of(new FaultPlan.Crash(20 + random.nextLong(200), 1, false));
            DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(plan).maxSteps(400_000));
            Node home = f.addNode("home");
            Node n1 = f.addNode("n1");
            Node n2 = f.addNode("n2");
            long lease = 200_000; // virtual ns
            RemoteAddress lock = LeaseLock.create(home, lease, lease / 4).address();
            RemoteAddress register = FencedRegister.create(home).address();
            List<String> events = new ArrayList<>();
            f.spawn(n1, "holder", () -> {
                try (Endpoint ep = Endpoint.open(n1)) {
                    LeaseLock l = LeaseLock.attach(ep, lock);
                    l.lock();
                    events.add("holder-acquired");
                    FencedRegister.attach(ep, register).write(l.fencingToken(), 1);
                    l.unlock();
                }
            });
            f.spawn(n2, "waiter", () -> {
                try (Endpoint ep = Endpoint.open(n2)) {
                    LeaseLock l = LeaseLock.attach(ep, lock);
                    LockResult r;
                    do {
                        r = l.lock(100, TimeUnit.MILLISECONDS);
                    } while (!r.acquired());
                    events.add(r == LockResult.LEASE_EXPIRED ? "waiter-took-over" : "waiter-acquired");
                    assertEquals(FencedRegister.WriteResult.WRITTEN,
                        FencedRegister.attach(ep, register).write(l.fencingToken(), 2));
                    l.unlock();
                }
            });
            DetFabric.Result r = f.run();
            long s = seed;
            assertTrue(r.finished() && r.failures().isEmpty(), () -> "seed " + s + ": " + r.describe());
            if (events.contains("waiter-took-over")) {
                takeovers++;
            }
            counter[0]++;
        }
        assertTrue(takeovers > 0, "some seed crashed the holder while it held the lease");
        assertEquals(SEEDS, counter[0]);
    }

    /**
     * A waiter's READ reads the lease word at the home, then its response is slow (its own node's NIC is delayed):
     * meanwhile the holder keeps renewing. The reviewed code ended the wait at a clock reading taken after that slow
     * response and took over with a CAS on the generation alone, so it took over a lease the holder had just renewed
     * (26 of these 30 seeds). The wait now ends before the READ is posted, and the takeover CAS expects the whole
     * word, which the renewals have changed.
     */
    @Test
    void shouldNotTakeOverALeaseTheHolderKeepsRenewingWhenAReadResponseIsSlow() {
        int seeds = 30;
        List<String> violations = new ArrayList<>();
        int takeovers = 0;
        int slowResponses = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long lease = 20_000; // virtual ns: 200 steps of 100 ns
            // Node 2 (the waiter's) performs its NIC's steps, among them its READs' responses, only when nothing else
            // can run, for 250 steps: longer than a lease.
            FaultPlan plan = FaultPlan.of(new FaultPlan.DelayNic(100 + random.nextLong(150), 2, 250));
            DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(plan).maxSteps(200_000));
            Node home = f.addNode("home");
            Node n1 = f.addNode("n1");
            Node n2 = f.addNode("n2");
            RemoteAddress lock = LeaseLock.create(home, lease, lease / 4).address();
            RemoteAddress idle = home.allocate(8, Access.ALL).remote(0); // READ to let time pass
            AtomicReference<LeaseLock> holder = new AtomicReference<>();
            boolean[] takenOver = {false};
            boolean[] renewedAfterTakeover = {true};
            boolean[] slow = {false};
            String[] outcome = {null};
            f.spawn(n1, "holder", () -> {
                try (Endpoint ep = Endpoint.open(n1)) {
                    LeaseLock l = LeaseLock.attach(ep, lock);
                    l.lock();
                    holder.set(l);
                    // A renewal about every 60 steps, well within lease - margin (150 steps).
                    for (int i = 0; i < 12 && l.renew(); i++) {
                        for (int k = 0; k < 8; k++) {
                            ep.readLong(idle);
                        }
                    }
                    while (!takenOver[0]) {
                        ep.readLong(idle); // then it stalls without renewing, until taken over
                    }
                    renewedAfterTakeover[0] = l.renew();
                }
            });
            f.spawn(n2, "waiter", () -> {
                try (Endpoint ep = Endpoint.open(n2)) {
                    LeaseLock l = LeaseLock.attach(ep, lock);
                    while (holder.get() == null) {
                        ep.readLong(idle);
                    }
                    LockResult r;
                    do {
                        long before = ep.nanoTime();
                        r = l.tryLock();
                        slow[0] |= r == LockResult.CONTENDED && ep.nanoTime() - before > lease;
                    } while (!r.acquired());
                    outcome[0] = r + (holder.get().isLeaseValid() ? " while the holder's lease was valid" : "");
                    takenOver[0] = true;
                }
            });
            DetFabric.Result r = f.run();
            long s = seed;
            assertTrue(r.finished() && r.failures().isEmpty(), () -> "seed " + s + ": " + r.describe());
            if (outcome[0].contains("valid")) {
                violations.add("seed " + seed);
            } else if (outcome[0].equals(LockResult.LEASE_EXPIRED.toString())) {
                takeovers++;
            }
            assertFalse(renewedAfterTakeover[0], () -> "seed " + s + ": the taken-over holder renewed");
            if (slow[0]) {
                slowResponses++;
            }
        }
        assertTrue(violations.isEmpty(), violations.size() + " of " + seeds
            + " seeds: a slow READ response let the waiter take over while the holder's lease was valid: "
            + violations);
        assertEquals(seeds, takeovers, "once the holder stops renewing, the waiter takes over on every seed");
        assertTrue(slowResponses >= seeds / 2, "the delay made a READ slower than a lease on only " + slowResponses
            + " of " + seeds + " seeds");
    }

    @Test
    void shouldRejectBadLeaseSettings() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            try (Endpoint ep = Endpoint.open(home)) {
                IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                    () -> LeaseLock.create(home, 1_000_000, 0), "a zero margin covers neither drift nor delay");
                assertTrue(zero.getMessage().contains("drift") && zero.getMessage().contains("delay"),
                    zero.getMessage());
                assertThrows(IllegalArgumentException.class, () -> LeaseLock.create(home, 10, 10));
                assertThrows(IllegalArgumentException.class, () -> LeaseLock.create(home, 10, -1));
                assertThrows(IllegalArgumentException.class, () -> LeaseLock.create(home, 0, 0));
                RemoteAddress notALeaseLock = home.allocate(LeaseLockDescriptor.LENGTH, Access.ALL).remote(0);
                IllegalArgumentException notLock = assertThrows(IllegalArgumentException.class,
                    () -> LeaseLock.attach(ep, notALeaseLock));
                assertTrue(notLock.getMessage().contains("not a lease lock"), notLock.getMessage());
                assertThrows(IllegalArgumentException.class,
                    () -> FencedRegister.attach(ep, FencedRegister.create(home).address()).write(0, 1));
            }
        }
    }

    /**
     * A takeover that happens while the holder still trusts its lease (a waiter whose clock broke the drift bound)
     * must show on the holder's next renewal. The reviewed code renewed with a WRITE of a separate heartbeat word and
     * reported success.
     */
    @Test
    void shouldDetectATakeoverOnTheNextRenewalAndRelease() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, TEN_SECONDS, ONE_SECOND).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                LeaseLock first = LeaseLock.attach(a, lock);
                assertEquals(LockResult.ACQUIRED, first.tryLock());
                long token = first.fencingToken();
                assertTrue(first.renew());
                // The takeover CAS of a waiter with a fast clock: (token, 1) -> (token + 2, 0).
                long renewed = word(token, 1);
                long takenOver = word(token + 2, 0);
                assertEquals(renewed, b.cas(lock, renewed, takenOver));
                assertTrue(first.isLeaseValid(), "by its own clock, the holder cannot know yet");
                assertFalse(first.renew(), "a taken-over holder's renewal must fail");
                assertFalse(first.isHeld());
                assertFalse(first.isLeaseValid(), "a holder that found the takeover no longer trusts its lease");
                assertFalse(first.renew(), "and keeps saying so");
                assertEquals(takenOver, b.readLong(lock), "the failed renewal wrote nothing");
                IllegalStateException e = assertThrows(IllegalStateException.class, first::unlock);
                assertTrue(e.getMessage().contains("taken over"), e.getMessage());
                assertEquals(token, first.fencingToken());

                // The same kind of takeover, found by the release instead.
                assertEquals(takenOver, b.cas(lock, takenOver, word(token + 3, 0))); // its new holder releases
                LeaseLock second = LeaseLock.attach(a, lock);
                assertEquals(LockResult.ACQUIRED, second.tryLock());
                long held = word(second.fencingToken(), 0);
                assertEquals(held, b.cas(lock, held, word(second.fencingToken() + 2, 0)));
                e = assertThrows(IllegalStateException.class, second::unlockWeak);
                assertTrue(e.getMessage().contains("taken over"), e.getMessage());
                assertEquals(word(second.fencingToken() + 2, 0), b.readLong(lock), "the failed release wrote nothing");
            }
        }
    }

    /**
     * The lease length is the lock's. The reviewed code took it per handle, so a handle with a 1 ms lease took over a
     * holder with a 10 s lease that had just renewed.
     */
    @Test
    void shouldTakeTheLeaseLengthFromTheLockInEveryHandle() {
        try (SimFabric fabric = SimFabric.open(new SimContext().roundTripLatencyNs(2_000))) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, TEN_SECONDS, ONE_SECOND).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c);
                 LeaseLock holder = LeaseLock.attach(a, lock); LeaseLock other = LeaseLock.attach(b, lock)) {
                assertEquals(TEN_SECONDS, other.leaseNs());
                assertEquals(ONE_SECOND, other.marginNs());
                assertEquals(LockResult.ACQUIRED, holder.tryLock());
                assertTrue(holder.renew());
                assertEquals(LockResult.TIMED_OUT, other.lock(20, TimeUnit.MILLISECONDS),
                    "no handle may take over a 10 s lease that was just renewed");
                assertTrue(holder.isLeaseValid());
            }
        }
    }

    /** Virtual time: the holder trusts its lease by its own clock only, and a renewal after that restarts it. */
    @Test
    void shouldTrustTheLeaseByItsOwnClockAndRenewALeaseNobodyTookOver() {
        DetFabric f = DetFabric.open(new DetContext().seed(3));
        Node home = f.addNode("home");
        Node n1 = f.addNode("n1");
        long lease = 20_000;
        RemoteAddress lock = LeaseLock.create(home, lease, 5_000).address();
        RemoteAddress idle = home.allocate(8, Access.ALL).remote(0);
        boolean[] checks = new boolean[5];
        f.spawn(n1, "holder", () -> {
            try (Endpoint ep = Endpoint.open(n1); LeaseLock l = LeaseLock.attach(ep, lock)) {
                checks[0] = !l.isLeaseValid(); // not held
                l.lock();
                checks[1] = l.isLeaseValid();
                long acquired = ep.nanoTime();
                while (ep.nanoTime() - acquired < lease - 5_000) {
                    ep.readLong(idle);
                }
                checks[2] = !l.isLeaseValid(); // lease - margin has passed by its clock
                checks[3] = l.renew(); // nobody took over: the CAS lands and the lease restarts
                checks[4] = l.isLeaseValid();
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe());
        assertEquals("[true, true, true, true, true]", Arrays.toString(checks),
            "not held: invalid; acquired: valid; after lease - margin: invalid; renewed: true; then valid");
    }

    @Test
    void shouldReleaseOnCloseAndRefuseUseAfterwards() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, TEN_SECONDS, ONE_SECOND).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                long token;
                try (LeaseLock l = LeaseLock.attach(a, lock)) {
                    assertEquals(LockResult.ACQUIRED, l.tryLock());
                    token = l.fencingToken();
                }
                assertEquals(word(token + 1, 0), b.readLong(lock), "closing the holding handle released the lock");
                LeaseLock closed = LeaseLock.attach(a, lock);
                closed.close();
                closed.close();
                assertThrows(IllegalStateException.class, closed::tryLock);
                assertThrows(IllegalStateException.class, closed::renew);
                assertThrows(IllegalStateException.class, closed::unlock);

                LeaseLock other = LeaseLock.attach(b, lock);
                assertEquals(LockResult.ACQUIRED, other.tryLock());
                long held = word(other.fencingToken(), 0);
                b.cas(lock, held, word(other.fencingToken() + 2, 0)); // taken over behind its back
                assertThrows(IllegalStateException.class, other::close, "close reports the lost lease");
                assertThrows(IllegalStateException.class, other::tryLock, "and the handle is closed anyway");
            }
        }
    }

    @Test
    void shouldPackGenerationAndBeatIntoOneWord() {
        long w = word(7, 3);
        assertEquals(7, LeaseLockDescriptor.generation(w));
        assertEquals(3, LeaseLockDescriptor.beat(w));
        assertTrue(LeaseLockDescriptor.isHeld(w));
        assertFalse(LeaseLockDescriptor.isHeld(word(8, 0)));
        assertEquals(word(7, 4), LeaseLockDescriptor.renewed(w));
        assertEquals(word(7, 0), LeaseLockDescriptor.renewed(word(7, 0xFFFF_FFFFL)), "the beat wraps in its half");
        assertEquals(word(8, 0), LeaseLockDescriptor.released(w));
        assertEquals(word(9, 0), LeaseLockDescriptor.takenOver(w));
        assertEquals(word(9, 0), LeaseLockDescriptor.acquired(word(8, 0)));
        assertEquals(0xFFFF_FFFF_0000_0000L, word(0xFFFF_FFFFL, 0));
        assertThrows(IllegalArgumentException.class, () -> word(1L << 32, 0));
        assertThrows(IllegalArgumentException.class, () -> word(1, 1L << 32));
    }

    @Test
    void shouldHandOutTheLastTokenAndThenRefuse() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            RemoteAddress lock = LeaseLock.create(home, TEN_SECONDS, ONE_SECOND).address();
            RemoteAddress register = FencedRegister.create(home).address();
            try (Endpoint ep = Endpoint.open(home)) {
                long almostUsedUp = word(LAST_TOKEN - 1, 0); // free, one acquisition left
                assertEquals(0, ep.cas(lock, 0, almostUsedUp));
                LeaseLock l = LeaseLock.attach(ep, lock);
                assertEquals(LockResult.ACQUIRED, l.tryLock());
                assertEquals(LAST_TOKEN, l.fencingToken());
                assertEquals(FencedRegister.WriteResult.WRITTEN,
                    FencedRegister.attach(ep, register).write(l.fencingToken(), 1), "the register takes it");
                l.unlock();
                IllegalStateException e = assertThrows(IllegalStateException.class, l::tryLock);
                assertTrue(e.getMessage().contains("last token"), e.getMessage());
                assertEquals(word(LAST_TOKEN + 1, 0), ep.readLong(lock), "nothing was installed");
            }
        }
    }

    @Test
    void shouldLetReadersShareAndKeepWritersOut() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = RemoteReadWriteLock.create(home).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c); Endpoint w = Endpoint.open(c)) {
                RemoteReadWriteLock ra = RemoteReadWriteLock.attach(a, word);
                RemoteReadWriteLock rb = RemoteReadWriteLock.attach(b, word);
                RemoteReadWriteLock writer = RemoteReadWriteLock.attach(w, word);
                assertEquals(LockResult.ACQUIRED, ra.readLock().tryLock());
                assertEquals(LockResult.ACQUIRED, rb.readLock().tryLock(), "readers share");
                assertEquals(LockResult.CONTENDED, writer.writeLock().tryLock());
                assertEquals(LockResult.TIMED_OUT, writer.writeLock().lock(1, TimeUnit.MILLISECONDS));
                ra.readLock().unlock();
                rb.readLock().unlock();
                assertEquals(LockResult.ACQUIRED, writer.writeLock().tryLock());
                assertEquals(LockResult.CONTENDED, ra.readLock().tryLock(), "no reader while a writer holds it");
                writer.writeLock().unlock();
                assertEquals(LockResult.ACQUIRED, ra.readLock().tryLock());
                ra.readLock().unlock();
                assertThrows(IllegalStateException.class, () -> ra.readLock().unlock());
            }
        }
    }
}
