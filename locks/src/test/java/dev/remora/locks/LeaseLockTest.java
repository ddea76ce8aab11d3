package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaseLockTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000);

    @Test
    void shouldHandOutStrictlyIncreasingTokensAndRefuseStaleFencedWrites() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home);
            RemoteAddress register = FencedRegister.create(home);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                LeaseLock first = LeaseLock.attach(a, lock, TimeUnit.MILLISECONDS.toNanos(20), 1_000_000);
                LeaseLock second = LeaseLock.attach(b, lock, TimeUnit.MILLISECONDS.toNanos(20), 1_000_000);
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
                assertFalse(first.renew(), "the stalled holder knows its lease expired");
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
            RemoteAddress lock = LeaseLock.create(home);
            RemoteAddress register = FencedRegister.create(home);
            List<String> events = new ArrayList<>();
            long lease = 200_000; // virtual ns
            f.spawn(n1, "holder", () -> {
                try (Endpoint ep = Endpoint.open(n1)) {
                    LeaseLock l = LeaseLock.attach(ep, lock, lease, lease / 4);
                    l.lock();
                    events.add("holder-acquired");
                    FencedRegister.attach(ep, register).write(l.fencingToken(), 1);
                    l.unlock();
                }
            });
            f.spawn(n2, "waiter", () -> {
                try (Endpoint ep = Endpoint.open(n2)) {
                    LeaseLock l = LeaseLock.attach(ep, lock, lease, lease / 4);
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

    @Test
    void shouldRejectBadLeaseSettings() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            try (Endpoint ep = Endpoint.open(home)) {
                RemoteAddress lock = LeaseLock.create(home);
                assertThrows(IllegalArgumentException.class, () -> LeaseLock.attach(ep, lock, 10, 10));
                assertThrows(IllegalArgumentException.class, () -> LeaseLock.attach(ep, lock, 0, 0));
                assertThrows(IllegalArgumentException.class,
                    () -> FencedRegister.attach(ep, FencedRegister.create(home)).write(0, 1));
            }
        }
    }

    @Test
    void shouldLetReadersShareAndKeepWritersOut() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = RemoteReadWriteLock.create(home);
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
