package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java-facing API of lock handles: the {@link Lock} view, the guard, close, and misuse detection. */
class LockHandleApiTest {

    @Test
    void shouldOfferAJavaUtilConcurrentLockView() throws Exception {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                Lock first = CasSpinLock.attach(a, word, 1).asLock();
                Lock second = CasSpinLock.attach(b, word, 2).asLock();
                first.lock();
                assertFalse(second.tryLock());
                assertFalse(second.tryLock(10, TimeUnit.MILLISECONDS));
                first.unlock();
                assertTrue(second.tryLock(1, TimeUnit.SECONDS));
                assertThrows(UnsupportedOperationException.class, second::newCondition);
                // lockInterruptibly gives up when the waiting thread is interrupted.
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                CountDownLatch started = new CountDownLatch(1);
                Thread waiter = new Thread(() -> {
                    started.countDown();
                    try {
                        first.lockInterruptibly();
                        outcome.set(new AssertionError("acquired a held lock"));
                    } catch (Throwable t) {
                        outcome.set(t);
                    }
                });
                waiter.start();
                started.await();
                waiter.interrupt();
                waiter.join(10_000);
                assertFalse(waiter.isAlive(), "lockInterruptibly ignored the interrupt");
                assertInstanceOf(InterruptedException.class, outcome.get());
                second.unlock();
            }
        }
    }

    @Test
    @SuppressWarnings("try") // the guard is only closed
    void shouldReleaseThroughTheGuardAndOnClose() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress base = TicketLock.create(home);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                TicketLock first = TicketLock.attach(a, base);
                TicketLock second = TicketLock.attach(b, base);
                try (RemoteLock.Guard g = first.guard()) {
                    assertTrue(first.isHeld());
                    assertEquals(LockResult.CONTENDED, second.tryLock());
                    assertTrue(first.isHeld());
                }
                assertFalse(first.isHeld(), "the guard released the lock");
                assertEquals(LockResult.ACQUIRED, second.tryLock());
                second.close(); // closing a held handle releases the lock
                assertFalse(second.isHeld());
                assertThrows(IllegalStateException.class, second::tryLock, "a closed handle");
                assertEquals(LockResult.ACQUIRED, first.tryLock(), "close released the lock");
                first.close();
                first.close();
                assertEquals(LockResult.ACQUIRED, TicketLock.attach(b, base).tryLock(), "and close released it");
            }
        }
    }

    @Test
    void shouldDetectAHandleUsedByTwoThreadsAtOnce() throws Exception {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                CasSpinLock holder = CasSpinLock.attach(a, word, 1);
                CasSpinLock shared = CasSpinLock.attach(b, word, 2);
                holder.lock();
                Thread blocked = new Thread(shared::lock, "first-user");
                blocked.start();
                // The first thread spins inside shared.lock() for as long as the holder holds the lock.
                Thread.sleep(300);
                assertTrue(blocked.isAlive());
                IllegalStateException e = assertThrows(IllegalStateException.class, shared::tryLock);
                assertTrue(e.getMessage().contains("two threads"), e.getMessage());
                holder.unlock();
                blocked.join(10_000);
                assertFalse(blocked.isAlive());
                assertTrue(shared.isHeld());
                shared.unlock();
            }
        }
    }
}
