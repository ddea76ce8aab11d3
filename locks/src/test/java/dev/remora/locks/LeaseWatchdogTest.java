package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.remora.locks.LeaseLockDescriptor.generation;
import static dev.remora.locks.LeaseLockDescriptor.word;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LeaseWatchdog}: renewal while held, a takeover reported to the holder, late renewals, misuse. */
class LeaseWatchdogTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void shouldKeepALongHoldingAliveWithoutTheHolderRenewing() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, 1_000 * MS, 200 * MS).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c);
                 LeaseLock holder = LeaseLock.attach(a, lock); LeaseLock other = LeaseLock.attach(b, lock)) {
                assertEquals(LockResult.ACQUIRED, holder.tryLock());
                LeaseWatchdog watchdog = holder.startWatchdog(100 * MS, token -> { });
                // Two and a half leases: without renewals the waiter would take over after one.
                assertEquals(LockResult.TIMED_OUT, other.lock(2_500, TimeUnit.MILLISECONDS),
                    "the watchdog's renewals keep the lease");
                assertTrue(holder.isLeaseValid());
                assertTrue(watchdog.renewals() >= 2, "renewals: " + watchdog.renewals());
                assertTrue(holder.renew(), "renew() answers for the watchdog");
                holder.unlock();
                assertFalse(watchdog.isRunning(), "the release stopped the watchdog");
                assertEquals(LockResult.ACQUIRED, other.tryLock(), "the release freed the renewed word");
                other.unlock();
            }
        }
    }

    @Test
    void shouldReportATakeoverToTheHolder() throws Exception {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, 10_000 * MS, 1_000 * MS).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c);
                 LeaseLock holder = LeaseLock.attach(a, lock)) {
                assertEquals(LockResult.ACQUIRED, holder.tryLock());
                AtomicLong reported = new AtomicLong();
                CountDownLatch takenOver = new CountDownLatch(1);
                LeaseWatchdog watchdog = holder.startWatchdog(10 * MS, token -> {
                    reported.set(token);
                    takenOver.countDown();
                });
                // A waiter whose clock ran fast takes over (as only a broken timing assumption allows).
                long w;
                do {
                    w = b.readLong(lock);
                } while (b.cas(lock, w, word(generation(w) + 2, 0)) != w);
                assertTrue(takenOver.await(10, TimeUnit.SECONDS), "the watchdog reported the takeover");
                assertEquals(holder.fencingToken(), reported.get(), "with the lost token");
                assertFalse(holder.isLeaseValid(), "the holder no longer trusts its lease");
                assertFalse(holder.renew());
                assertFalse(holder.isHeld());
                IllegalStateException e = assertThrows(IllegalStateException.class, holder::unlock);
                assertTrue(e.getMessage().contains("taken over"), e.getMessage());
                watchdog.close();
                assertFalse(watchdog.isRunning());
                assertEquals(word(generation(w) + 2, 0), b.readLong(lock), "the failed renewal wrote nothing");
            }
        }
    }

    @Test
    void shouldSettleRenewalsWhoseCompletionComesAfterThePeriod() {
        // Every renewal's completion comes after the watchdog's period (its verb timeout): each is settled before the
        // next is posted, and the release finds the word the last one installed.
        try (SimFabric fabric = SimFabric.open(new SimContext().roundTripLatencyNs(30 * MS))) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, 5_000 * MS, 1_000 * MS).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c);
                 LeaseLock holder = LeaseLock.attach(a, lock); LeaseLock other = LeaseLock.attach(b, lock)) {
                assertEquals(LockResult.ACQUIRED, holder.tryLock());
                LeaseWatchdog watchdog = holder.startWatchdog(20 * MS, token -> { });
                long deadline = System.nanoTime() + 10_000 * MS;
                while (watchdog.renewals() < 3) {
                    assertTrue(System.nanoTime() < deadline, "renewals: " + watchdog.renewals());
                    Thread.onSpinWait();
                }
                assertTrue(holder.isLeaseValid());
                holder.unlock();
                assertFalse(watchdog.isRunning());
                assertEquals(LockResult.ACQUIRED, other.tryLock());
                other.unlock();
            }
        }
    }

    @Test
    void shouldRefuseMisuseAndStopWhenTheHandleCloses() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = LeaseLock.create(home, 1_000 * MS, 200 * MS).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c);
                 LeaseLock other = LeaseLock.attach(b, lock)) {
                LeaseLock holder = LeaseLock.attach(a, lock);
                assertThrows(IllegalStateException.class, () -> holder.startWatchdog(100 * MS, t -> { }),
                    "not held");
                assertEquals(LockResult.ACQUIRED, holder.tryLock());
                assertThrows(IllegalArgumentException.class, () -> holder.startWatchdog(800 * MS, t -> { }),
                    "a period of lease - margin renews too late");
                assertThrows(IllegalArgumentException.class, () -> holder.startWatchdog(0, t -> { }));
                LeaseWatchdog watchdog = holder.startWatchdog(100 * MS, t -> { });
                assertThrows(IllegalStateException.class, () -> holder.startWatchdog(100 * MS, t -> { }),
                    "one watchdog per holding");
                holder.close();
                assertFalse(watchdog.isRunning(), "closing the handle stopped its watchdog");
                assertEquals(LockResult.ACQUIRED, other.tryLock(), "and released the lock");
                other.unlock();
            }
        }
    }
}
