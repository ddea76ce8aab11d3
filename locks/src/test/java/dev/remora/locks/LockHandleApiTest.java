package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
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
            RemoteAddress word = CasSpinLock.create(home).address();
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
            RemoteAddress base = TicketLock.create(home).address();
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
            RemoteAddress word = CasSpinLock.create(home).address();
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

    @Test
    void shouldRefuseAnMcsIndexInUseAndReuseItOnceClosed() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = McsLock.create(home, 2).address();
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c); Endpoint probe = Endpoint.open(c)) {
                McsLock first = McsLock.attach(a, lock, 2, 0);
                IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> McsLock.attach(b, lock, 2, 0), "a second live handle with index 0");
                assertTrue(e.getMessage().contains("in use"), e.getMessage());
                McsLock other = McsLock.attach(b, lock, 2, 1);
                // The other handle learns index 0's queue node while it waits behind the first handle.
                first.lock();
                assertEquals(LockResult.CONTENDED, other.tryLock());
                first.unlock();
                assertEquals(LockResult.ACQUIRED, other.tryLock());
                other.unlock();
                first.close();
                // Closed, index 0 is free again: a new handle with a new queue node takes it, and the other handle,
                // which cached the old queue node's address, hands over to the new one.
                McsLock second = McsLock.attach(a, lock, 2, 0);
                other.lock();
                Thread waiter = new Thread(second::lock, "second");
                waiter.start();
                awaitTail(probe, lock, second);
                other.unlock();
                assertDoesNotThrow(() -> waiter.join(10_000));
                assertFalse(waiter.isAlive(), "the handover reached the new handle's queue node");
                assertTrue(second.isHeld());
                second.unlock();
                second.close();
                other.close();
                // A crashed handle's index: the operator gives it back.
                McsLock crashed = McsLock.attach(a, lock, 2, 1);
                assertThrows(IllegalStateException.class, () -> McsLock.attach(b, lock, 2, 1));
                assertTrue(McsLock.releaseIndex(b, lock, 2, 1));
                assertFalse(McsLock.releaseIndex(b, lock, 2, 1), "already free");
                McsLock.attach(b, lock, 2, 1).close();
                assertFalse(crashed.isHeld());
            }
        }
    }

    @Test
    void shouldFreeTheHomeMemoryWhenTheLockHomeCloses() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            try (Endpoint a = Endpoint.open(c)) {
                LockHome lock = TicketLock.create(home);
                try (lock; TicketLock handle = TicketLock.attach(a, lock.address())) {
                    assertTrue(lock.isOpen());
                    assertEquals(home, lock.node());
                    handle.lock();
                    handle.unlock();
                }
                assertFalse(lock.isOpen(), "closing the home deregistered its memory");
                // The memory is gone: a handle's verbs on it complete with a remote access error, never hang.
                try (TicketLock late = TicketLock.attach(a, lock.address())) {
                    RemoteAccessException e = assertThrows(RemoteAccessException.class, late::tryLock);
                    assertEquals(WcStatus.REM_ACCESS_ERR, e.status(), e.getMessage());
                }
                lock.close(); // idempotent
            }
        }
    }

    /** Waits until {@code waiter} has swapped itself into the tail. */
    private static void awaitTail(Endpoint ep, RemoteAddress lock, McsLock waiter) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (McsLockDescriptor.index(ep.readLong(lock.plus(McsLock.TAIL_OFFSET))) != waiter.index()) {
            assertTrue(System.nanoTime() < deadline, "the waiter never queued");
            Thread.onSpinWait();
        }
    }
}
