package dev.remora.locks.faults;

import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.verbs.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real faults of real processes on loopback: a {@link FaultHome} and {@link FaultClient}s, each its own JVM, and
 * the faults an operating system deals out: SIGKILL of a client inside its critical section, SIGSTOP of the lease
 * holder, SIGKILL of the home, and a home restarted on the same port. The clients' recorded histories of the counter,
 * the lease lock and the fenced register are merged and checked by the linearizability checker (counter, mutex and
 * register models), and the home's memory is read at the end from this JVM.
 */
@Timeout(60)
class ProcessFaultTest {
    /** The lease lock's lease (the home's default) and its holder's renewal period. */
    private static final long LEASE_MS = 300;
    private static final Duration EXIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    private static Matcher await(ChildJvm j, String regex) throws InterruptedException {
        return j.awaitLine(Pattern.compile(regex), FaultCluster.START);
    }

    /** @return the time printed in the first {@code IN_CS} line of {@code j} after {@code ns}, or -1 */
    private static long firstInCsAfter(ChildJvm j, long ns) {
        for (String l : j.stdoutLines()) {
            Matcher m = FaultCluster.IN_CS.matcher(l);
            if (m.find() && Long.parseLong(m.group(3)) > ns) {
                return Long.parseLong(m.group(3));
            }
        }
        return -1;
    }

    @Test
    void aClientKilledInItsCriticalSectionIsTakenOverAfterItsLease() throws Exception {
        try (FaultCluster c = new FaultCluster(dir, List.of(), null)) {
            FaultCluster.Home home = c.startHome();
            ChildJvm a = c.startClient(1, home.address(), "runMs=5000", "holdMs=3000");
            ChildJvm b = c.startClient(2, home.address(), "runMs=2500");
            Matcher inCs = a.awaitLine(FaultCluster.IN_CS, FaultCluster.START);
            long tokenA = Long.parseLong(inCs.group(1));
            long killNs = System.nanoTime();
            a.kill();
            assertEquals(137, a.awaitExit(EXIT));
            Matcher taken = await(b, "^IN_CS (\\d+) LEASE_EXPIRED (\\d+)$");
            long tokenB = Long.parseLong(taken.group(1));
            long takeoverMs = (Long.parseLong(taken.group(2)) - killNs) / 1_000_000;
            assertTrue(tokenB > tokenA, "token " + tokenB + " after " + tokenA);
            // The waiter takes over only after seeing the word unchanged for a lease, which began at the killed
            // holder's last renewal (at most one renewal period, 50 ms, before the kill).
            assertTrue(takeoverMs >= LEASE_MS - 50 && takeoverMs < 3000, "taken over " + takeoverMs + " ms after kill");
            assertEquals(0, b.awaitExit(EXIT), c.outputs());
            FaultCluster.Reading r = c.read(home.address(), "127.0.0.1");
            int counterOps = FaultCluster.checkCounter(c.histories("counter", 0), r.counter());
            FaultHistories lock = c.histories("lock", 0);
            assertEquals(1, lock.open("release"), "the killed holder's lease expiry stays open");
            int lockOps = lock.assertLinearizable(Models.mutex());
            // The check has teeth: without the open expiry the takeover is an acquisition of a held mutex.
            lock.withoutOpen("release").assertVerdict(Models.mutex(), Verdict.NOT_LINEARIZABLE);
            int regOps = c.histories("register", 0).assertLinearizable(Models.register(0L));
            assertTrue(r.registerToken() >= tokenB, "the register carries the newer token: " + r);
            System.out.println("FAULT kill -9 client in CS | LeaseLock | taken over " + takeoverMs
                + " ms after the kill (lease " + LEASE_MS + " ms), token " + tokenA + " -> " + tokenB
                + " | ops: counter "
                + counterOps + ", lock " + lockOps + ", register " + regOps + " | counter " + r.counter());
        }
    }

    @Test
    void aTicketLockWhoseHolderWasKilledStallsUntilAnOperatorResetsIt() throws Exception {
        try (FaultCluster c = new FaultCluster(dir, List.of(), null)) {
            FaultCluster.Home home = c.startHome();
            ChildJvm a = c.startClient(1, home.address(), "runMs=5000", "holdMs=3000", "lockKind=ticket");
            ChildJvm b = c.startClient(2, home.address(), "runMs=3000", "lockKind=ticket", "lockTimeoutMs=300");
            a.awaitLine(FaultCluster.IN_CS, FaultCluster.START);
            long killNs = System.nanoTime();
            a.kill();
            assertEquals(137, a.awaitExit(EXIT));
            // No lease: the waiter times out again and again (lock timeout 300 ms), and never gets in.
            Thread.sleep(1200);
            assertEquals(-1, firstInCsAfter(b, killNs), "the waiter got in while the dead holder had the lock");
            assertTrue(b.stdoutLines().stream().anyMatch(l -> l.equals("WAITING TIMED_OUT")), c.outputs());
            long stalledMs = (System.nanoTime() - killNs) / 1_000_000;
            long resetNs = System.nanoTime();
            long serving = c.resetTicket(home.address());
            long inAfterKill = -1;
            for (long end = System.nanoTime() + 10_000_000_000L; inAfterKill < 0 && System.nanoTime() < end; ) {
                Thread.sleep(20);
                inAfterKill = firstInCsAfter(b, resetNs);
            }
            assertTrue(inAfterKill > resetNs, "the waiter did not get in after the reset\n" + c.outputs());
            long afterResetMs = (inAfterKill - resetNs) / 1_000_000;
            assertEquals(0, b.awaitExit(EXIT), c.outputs());
            FaultHistories lock = c.histories("lock", 0);
            // Without the operator's reset the history is not linearizable: the dead holder never released.
            lock.assertVerdict(Models.mutex(), Verdict.NOT_LINEARIZABLE);
            int lockOps = lock.addOkSince("release", resetNs).assertLinearizable(Models.mutex());
            FaultCluster.Reading r = c.read(home.address(), "127.0.0.1");
            int counterOps = FaultCluster.checkCounter(c.histories("counter", 0), r.counter());
            System.out.println("FAULT kill -9 client in CS | TicketLock | stalled (waiter TIMED_OUT) for " + stalledMs
                + " ms until TicketLock.reset (serving " + serving + "), waiter in " + afterResetMs
                + " ms after it | ops: lock " + lockOps + " (with the reset as the release), counter " + counterOps);
        }
    }

    @Test
    void aStoppedHoldersLateWriteIsRefusedByTheFence() throws Exception {
        try (FaultCluster c = new FaultCluster(dir, List.of(), null)) {
            FaultCluster.Home home = c.startHome();
            ChildJvm a = c.startClient(1, home.address(), "runMs=3000", "holdMs=1500");
            ChildJvm b = c.startClient(2, home.address(), "runMs=2500");
            Matcher inCs = a.awaitLine(FaultCluster.IN_CS, FaultCluster.START);
            long tokenA = Long.parseLong(inCs.group(1));
            FaultCluster.signal(a, "STOP");
            long stopNs = System.nanoTime();
            Matcher taken = await(b, "^IN_CS (\\d+) LEASE_EXPIRED (\\d+)$");
            long tokenB = Long.parseLong(taken.group(1));
            long takeoverMs = (Long.parseLong(taken.group(2)) - stopNs) / 1_000_000;
            Matcher wrote = await(b, "^WROTE " + tokenB + " (\\d+)$");
            FaultCluster.signal(a, "CONT");
            long stoppedMs = (System.nanoTime() - stopNs) / 1_000_000;
            Matcher refused = await(a, "^REFUSED " + tokenA + " (\\d+)$");
            int lateValue = Integer.parseInt(refused.group(1));
            FaultCluster.Reading r = c.read(home.address(), "127.0.0.1");
            assertTrue(r.registerToken() >= tokenB, "the register carries the newer token: " + r);
            assertNotEquals(lateValue, r.registerValue(), "the late write landed: " + r);
            assertEquals(0, a.awaitExit(EXIT), c.outputs());
            assertEquals(0, b.awaitExit(EXIT), c.outputs());
            FaultHistories reg = c.histories("register", 0);
            String refusal = "\"type\":\"fail\",\"f\":\"write\",\"value\":" + lateValue + ",";
            assertTrue(reg.text().contains(refusal), "the refusal is recorded as fail");
            int regOps = reg.assertLinearizable(Models.register(0L));
            int lockOps = c.histories("lock", 0).assertLinearizable(Models.mutex());
            FaultCluster.Reading end = c.read(home.address(), "127.0.0.1");
            int counterOps = FaultCluster.checkCounter(c.histories("counter", 0), end.counter());
            System.out.println("FAULT SIGSTOP holder " + stoppedMs + " ms | LeaseLock + FencedRegister | taken over "
                + takeoverMs + " ms after the stop, token " + tokenA + " -> " + tokenB + " (wrote " + wrote.group(1)
                + "); late write of " + lateValue + " with token " + tokenA + " refused, register " + r
                + " | ops: counter " + counterOps + ", lock " + lockOps + ", register " + regOps);
        }
    }

    @Test
    void clientsOfAKilledHomeFinishWithUnknownOutcomes() throws Exception {
        try (FaultCluster c = new FaultCluster(dir, List.of(), null)) {
            FaultCluster.Home home = c.startHome();
            ChildJvm a = c.startClient(1, home.address(), "runMs=2500");
            ChildJvm b = c.startClient(2, home.address(), "runMs=2500");
            await(a, "^WROTE ");
            await(b, "^WROTE ");
            long killNs = System.nanoTime();
            home.jvm().kill();
            assertEquals(137, home.jvm().awaitExit(EXIT));
            long bound = killNs + Duration.ofSeconds(5).toNanos();
            for (ChildJvm j : List.of(a, b)) {
                assertEquals(0, j.awaitExit(Duration.ofNanos(Math.max(1, bound - System.nanoTime()))), c.outputs());
            }
            long doneMs = (System.nanoTime() - killNs) / 1_000_000;
            FaultHistories counter = c.histories("counter", 0);
            FaultHistories lock = c.histories("lock", 0);
            FaultHistories reg = c.histories("register", 0);
            long unknown = counter.count("info", "add") + lock.count("info", "acquire") + reg.count("info", "write");
            assertTrue(unknown > 0, "no operation in flight at the kill was recorded info");
            long killMarginNs = 50_000_000L; // an operation that completed just before the kill may be recorded after
            long okAfter = counter.countAfter("ok", "add", killNs + killMarginNs)
                + lock.countAfter("ok", "acquire", killNs + killMarginNs)
                + reg.countAfter("ok", "write", killNs + killMarginNs);
            assertEquals(0, okAfter, "an operation succeeded on a dead home");
            assertEquals(0, counter.countAfter("fail", "add", killNs), "an increment on a dead home was called off"
                + " as certain not to have happened; its outcome is unknown (info)");
            int counterOps = counter.assertLinearizable(Models.counter());
            int lockOps = lock.assertLinearizable(Models.mutex());
            int regOps = reg.assertLinearizable(Models.register(0L));
            System.out.println("FAULT kill -9 home | RemoteCounter, LeaseLock, FencedRegister | both clients done "
                + doneMs + " ms after the kill, " + unknown + " info (" + counter.count("info", "add") + " adds) | ops:"
                + " counter " + counterOps + ", lock " + lockOps + ", register " + regOps);
        }
    }

    @Test
    void aRestartedHomesOldAddressesAreRefusedAndANewLookupWorks() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (FaultCluster c = new FaultCluster(dir, List.of(), null)) {
            FaultCluster.Home first = c.startHome("port=" + port);
            ChildJvm a = c.startClient(1, first.address(), "runMs=3500", "relookup=true");
            await(a, "^WROTE ");
            long killNs = System.nanoTime();
            first.jvm().kill();
            assertEquals(137, first.jvm().awaitExit(EXIT));
            FaultCluster.Home second = c.startHome("port=" + port);
            assertEquals(first.address(), second.address());
            long upMs = (System.nanoTime() - killNs) / 1_000_000;
            Matcher refused = await(a, "^ERROR (\\w+) REM_ACCESS_ERR$");
            await(a, "^RELOOKUP 1$");
            Matcher epoch1 = await(a, "^EPOCH 1 acked (\\d+) info (\\d+)$");
            assertEquals(0, a.awaitExit(EXIT), c.outputs());
            long acked = Long.parseLong(epoch1.group(1));
            assertTrue(acked > 0, "no increment acknowledged after the new lookup");
            FaultCluster.Reading r = c.read(second.address(), "127.0.0.1");
            int counterOps = FaultCluster.checkCounter(c.histories("counter", 1), r.counter());
            int lockOps = c.histories("lock", 1).assertLinearizable(Models.mutex());
            int regOps = c.histories("register", 1).assertLinearizable(Models.register(0L));
            int oldOps = c.histories("counter", 0).assertLinearizable(Models.counter());
            System.out.println("FAULT restarted home (same port, up " + upMs + " ms after the kill) | RemoteCounter,"
                + " LeaseLock, FencedRegister | old address: " + refused.group(1) + " REM_ACCESS_ERR, new lookup works,"
                + " new counter " + r.counter() + " = " + acked + " acknowledged (+" + epoch1.group(2) + " info) |"
                + " ops: epoch 0 counter " + oldOps + "; epoch 1 counter " + counterOps + ", lock " + lockOps
                + ", register " + regOps);
        }
    }
}
