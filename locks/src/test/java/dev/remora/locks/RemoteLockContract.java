package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every lock must do, on the fabrics a subclass opens: {@link RemoteLockContractTest} on the fast software
 * fabric, {@link RemoteLockContractCrossProcessTest} on the socket fabric between two processes. Every test adds a
 * node named {@code home} that holds the lock (and {@code data}, the protected counter) and client nodes; a subclass
 * may place them apart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RemoteLockContract {

    /** A named way to open a fresh fabric. */
    protected record Setting(String label, Supplier<Fabric> opener) {
        @Override
        public String toString() {
            return label;
        }
    }

    /** @return the fabrics the read-modify-write test runs on */
    protected abstract List<Setting> settings();

    /** @return a fresh fabric for the other tests */
    protected abstract Fabric openFabric();

    Stream<Arguments> locksAndFabrics() {
        List<Arguments> out = new ArrayList<>();
        for (LockKind k : LockKind.values()) {
            for (Setting s : settings()) {
                out.add(Arguments.of(k, s));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("locksAndFabrics")
    void shouldProtectANonAtomicRemoteReadModifyWrite(LockKind kind, Setting setting) throws Exception {
        try (Fabric fabric = setting.opener().get()) {
            Node home = fabric.addNode("home");
            Node data = fabric.addNode("data");
            Node[] clients = {fabric.addNode("c1"), fabric.addNode("c2"), home};
            int threads = 4;
            int each = 150;
            RemoteAddress lock = kind.create(home, threads);
            MemoryRegion counters = data.allocate(16, Access.ALL);
            List<Throwable> failures = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                Node node = clients[t % clients.length];
                workers.add(new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node)) {
                        RemoteLock l = kind.attach(ep, lock, threads, index);
                        for (int i = 0; i < each; i++) {
                            l.lock();
                            // A read-modify-write that is only correct under mutual exclusion, on another node.
                            long v = ep.readLong(counters.remote(0));
                            ep.writeLong(counters.remote(0), v + 1);
                            l.unlock();
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (Thread w : workers) {
                w.join();
            }
            assertTrue(failures.isEmpty(), failures.toString());
            assertEquals((long) threads * each, counters.getLongVolatile(0), "no increment lost under the lock");
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void shouldReportContentionAndTimeOutWhileHeld(LockKind kind) {
        try (Fabric fabric = openFabric()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = kind.create(home, 2);
            try (Endpoint a = Endpoint.open(c); Endpoint b = Endpoint.open(c)) {
                RemoteLock first = kind.attach(a, lock, 2, 0);
                RemoteLock second = kind.attach(b, lock, 2, 1);
                assertEquals(LockResult.ACQUIRED, first.tryLock());
                assertTrue(first.isHeld());
                assertEquals(LockResult.CONTENDED, second.tryLock());
                assertEquals(LockResult.TIMED_OUT, second.lock(2, TimeUnit.MILLISECONDS));
                assertFalse(second.isHeld());
                assertThrows(IllegalStateException.class, second::unlock, "unlocking a lock it does not hold");
                assertThrows(IllegalStateException.class, first::tryLock, "acquiring twice");
                first.unlockWeak();
                assertEquals(LockResult.ACQUIRED, second.lock(1, TimeUnit.SECONDS));
                second.unlock();
                assertThrows(IllegalStateException.class, second::unlock);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void shouldCostTheMinimumRoundTripsUncontended(LockKind kind) {
        try (Fabric fabric = openFabric()) {
            Node home = fabric.addNode("home");
            Node c = fabric.addNode("c");
            RemoteAddress lock = kind.create(home, 1);
            try (Endpoint ep = Endpoint.open(c)) {
                RemoteLock l = kind.attach(ep, lock, 1, 0);
                VerbsStatistics before = ep.statistics();
                l.lock();
                l.unlock();
                assertEquals(kind.minRoundTrips(), ep.statistics().minus(before).roundTrips());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void shouldRejectMisalignedLocks(LockKind kind) {
        try (Fabric fabric = openFabric()) {
            Node home = fabric.addNode("home");
            try (Endpoint ep = Endpoint.open(home)) {
                RemoteAddress lock = kind.create(home, 1).plus(4);
                assertThrows(IllegalArgumentException.class, () -> kind.attach(ep, lock, 1, 0));
            }
        }
    }
}
