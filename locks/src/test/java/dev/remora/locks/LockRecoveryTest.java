package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator recovery paths of the locks that cannot tolerate a crashed participant: a holder (or a ticket) that
 * vanished stalls the lock until an operator, knowing it is gone, resets it; live waiters then proceed.
 */
class LockRecoveryTest {

    @Test
    void shouldFreeACasSpinLockWhoseHolderVanishedAndOnlyForThatOwner() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = CasSpinLock.create(home).address();
            try (Endpoint gone = Endpoint.open(c); Endpoint live = Endpoint.open(c); Endpoint operator = Endpoint.open(c)) {
                CasSpinLock.attach(gone, word, 3).lock(); // the holder vanishes without releasing
                CasSpinLock waiter = CasSpinLock.attach(live, word, 4);
                assertEquals(LockResult.TIMED_OUT, waiter.lock(20, TimeUnit.MILLISECONDS), "stalled");
                assertEquals(3, CasSpinLock.inspect(operator, word), "the operator sees who holds it");
                assertFalse(CasSpinLock.reset(operator, word, 4), "a reset for another owner changes nothing");
                assertTrue(CasSpinLock.reset(operator, word, 3));
                assertEquals(LockResult.ACQUIRED, waiter.lock(1, TimeUnit.SECONDS));
                waiter.unlock();
            }
        }
    }

    @Test
    void shouldSkipAStalledTicketAndLetASkippedWaiterDrawAgain() throws Exception {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress base = TicketLock.create(home).address();
            try (Endpoint gone = Endpoint.open(c); Endpoint live = Endpoint.open(c); Endpoint operator = Endpoint.open(c)) {
                TicketLock.attach(gone, base).lock(); // ticket 0, never released
                AtomicLong acquiredWith = new AtomicLong(-1);
                Thread waiter = new Thread(() -> {
                    TicketLock l = TicketLock.attach(live, base);
                    l.lock(); // draws ticket 1 and waits behind the vanished ticket 0
                    acquiredWith.set(l.ticket());
                    l.unlock();
                });
                waiter.start();
                waiter.join(300);
                assertTrue(waiter.isAlive(), "the waiter is stalled behind the vanished holder");
                long serving = TicketLock.reset(operator, base); // skips tickets 0 and 1
                assertEquals(2, serving);
                waiter.join(10_000);
                assertFalse(waiter.isAlive(), "the skipped waiter did not draw again");
                assertEquals(2, acquiredWith.get(), "it drew a new ticket after its own was skipped");
                TicketLock next = TicketLock.attach(operator, base);
                assertEquals(LockResult.ACQUIRED, next.tryLock(), "the lock works after the reset");
                next.unlock();
            }
        }
    }

    @Test
    void shouldResetAReadWriteLockLeftByAVanishedReader() {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress word = RemoteReadWriteLock.create(home).address();
            try (Endpoint gone = Endpoint.open(c); Endpoint live = Endpoint.open(c); Endpoint operator = Endpoint.open(c)) {
                RemoteReadWriteLock.attach(gone, word).readLock().lock(); // a reader vanishes inside
                RemoteLock writer = RemoteReadWriteLock.attach(live, word).writeLock();
                assertEquals(LockResult.TIMED_OUT, writer.lock(20, TimeUnit.MILLISECONDS), "blocked by the reader");
                assertEquals(ReadWriteLockDescriptor.READER, RemoteReadWriteLock.reset(operator, word, 0),
                    "the word held one reader");
                assertEquals(LockResult.ACQUIRED, writer.lock(1, TimeUnit.SECONDS));
                writer.unlock();
            }
        }
    }
}
