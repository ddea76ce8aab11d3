package dev.remora.verbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs contract: what every provider must do, written once. A provider's test extends this class and says how
 * to open a fabric (with short timeouts) and how to crash a node.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class VerbsContract {
    /** Timeout used by waits in these tests; far above any provider's retry timeout in test settings. */
    protected static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);

    protected Fabric fabric;
    protected Node n1;
    protected Node n2;
    protected Node n3;

    /**
     * Opens a fresh fabric whose transport retry and receiver-not-ready timeouts are at most {@link #retryTimeoutNs()}.
     *
     * @return the fabric
     */
    protected abstract Fabric newFabric();

    /** @return the provider's retry timeout in this test's settings */
    protected abstract long retryTimeoutNs();

    /**
     * Crashes a node so that it no longer answers.
     *
     * @param node the node
     */
    protected abstract void crash(Node node);

    /**
     * Opens a fresh fabric like {@link #newFabric()}, except that every request takes at least {@code roundTripNs}
     * from posting to completion and has its remote effect no earlier than half of it after posting, so that a test
     * can act while a request is in flight. A provider that cannot slow its requests down returns null, and the
     * tests that need it are skipped.
     *
     * @param roundTripNs the round trip, in nanoseconds
     * @return the fabric, or null
     */
    protected Fabric newFabricWithRoundTripNs(long roundTripNs) {
        return null;
    }

    @BeforeEach
    void openFabric() {
        fabric = newFabric();
        n1 = fabric.addNode("N1");
        n2 = fabric.addNode("N2");
        n3 = fabric.addNode("N3");
    }

    @AfterEach
    void closeFabric() {
        if (fabric != null) { // null when newFabric() skipped the test (a provider that cannot run here)
            fabric.close();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A client with its own completion queue and a connected queue pair to a target. */
    protected final class Client {
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion local;
        final Completion[] out = newCompletions(64);

        Client(Node from, Node to, int cqDepth) {
            cq = from.createCompletionQueue(cqDepth);
            qp = from.connect(to, cq);
            local = from.allocate(4096, Access.LOCAL_WRITE);
        }

        Client(Node from, Node to) {
            this(from, to, 256);
        }

        /** Waits for exactly {@code n} completions and returns them in arrival order. */
        List<Completion> take(int n) {
            List<Completion> got = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT_NS;
            while (got.size() < n) {
                int k = cq.await(out, Math.max(1, deadline - System.nanoTime()));
                for (int i = 0; i < k; i++) {
                    got.add(new Completion().copyFrom(out[i]));
                }
                if (k == 0 && System.nanoTime() > deadline) {
                    throw new AssertionError("expected " + n + " completions, got " + got);
                }
            }
            return got;
        }

        Completion one(WorkRequest wr) {
            assertEquals(QueuePair.POSTED, qp.post(wr.flags(wr.flags() | WorkRequest.SIGNALED)));
            List<Completion> c = take(1);
            return c.get(0);
        }

        /** Asserts that no completion arrives within a short while. */
        void expectNoMore() {
            assertEquals(0, cq.await(out, TimeUnit.MILLISECONDS.toNanos(20)), "unexpected completion");
        }
    }

    protected static Completion[] newCompletions(int n) {
        Completion[] c = new Completion[n];
        for (int i = 0; i < n; i++) {
            c[i] = new Completion();
        }
        return c;
    }

    // ---------------------------------------------------------------- data path

    @Test
    void shouldWriteThenReadBackBytes() {
        MemoryRegion target = n2.allocate(256, Access.ALL);
        Client c = new Client(n1, n2);
        byte[] payload = new byte[64];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7 + 1);
        }
        c.local.putBytes(0, payload, 0, 64);
        assertEquals(WcStatus.SUCCESS, c.one(new WorkRequest().write(c.local, 0, 64, target.remote(64))).status());
        Completion read = c.one(new WorkRequest().read(c.local, 128, 64, target.remote(64)));
        assertEquals(WcStatus.SUCCESS, read.status());
        assertEquals(Opcode.READ, read.opcode());
        assertEquals(64, read.byteLength());
        byte[] back = new byte[64];
        c.local.getBytes(128, back, 0, 64);
        assertArrayEquals(payload, back);
        byte[] atTarget = new byte[64];
        target.getBytes(64, atTarget, 0, 64);
        assertArrayEquals(payload, atTarget, "the target's CPU sees the WRITE after a later READ completed (R7)");
    }

    @Test
    void shouldCompareAndSwapOnlyWhenExpectedMatches() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLong(8, 5);
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.SUCCESS, c.one(new WorkRequest().cas(c.local, 0, target.remote(8), 4, 9)).status());
        assertEquals(5, c.local.getLong(0), "a failed CAS returns the current value");
        assertEquals(5, target.getLongVolatile(8), "a failed CAS writes nothing (R16)");
        assertEquals(WcStatus.SUCCESS, c.one(new WorkRequest().cas(c.local, 0, target.remote(8), 5, 9)).status());
        assertEquals(5, c.local.getLong(0));
        assertEquals(9, target.getLongVolatile(8));
    }

    @Test
    void shouldFetchAndAddReturningPreviousValue() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLongVolatile(16, Long.MAX_VALUE);
        Client c = new Client(n1, n2);
        c.one(new WorkRequest().faa(c.local, 8, target.remote(16), 1));
        assertEquals(Long.MAX_VALUE, c.local.getLong(8));
        assertEquals(Long.MIN_VALUE, target.getLongVolatile(16), "two's complement wrap-around");
    }

    @Test
    void shouldApplyWritesOfOneQueuePairInPostingOrder() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        c.local.putLong(0, 1);
        c.local.putLong(8, 2);
        WorkRequest[] list = {
            new WorkRequest().write(c.local, 0, 8, target.remote(0)),
            new WorkRequest().write(c.local, 8, 8, target.remote(0)),
            new WorkRequest().read(c.local, 16, 8, target.remote(0)).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 3));
        assertEquals(WcStatus.SUCCESS, c.take(1).get(0).status());
        assertEquals(2, c.local.getLong(16), "the later WRITE lands last (R6) and the READ sees it (R7)");
        assertEquals(2, target.getLongVolatile(0));
    }

    @Test
    void shouldDeliverCompletionsInPostingOrder() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        for (int i = 0; i < 20; i++) {
            WorkRequest wr = i % 2 == 0
                ? new WorkRequest().faa(c.local, 0, target.remote(0), 1)
                : new WorkRequest().read(c.local, 8, 8, target.remote(0));
            assertEquals(QueuePair.POSTED, c.qp.post(wr.wrId(100 + i).flags(WorkRequest.SIGNALED)));
        }
        List<Completion> got = c.take(20);
        for (int i = 0; i < 20; i++) {
            assertEquals(100 + i, got.get(i).wrId(), "completion " + i);
            assertEquals(c.qp.qpNumber(), got.get(i).qpNumber());
        }
        assertEquals(10, target.getLongVolatile(0));
    }

    @Test
    void shouldReportOnlySignaledSuccesses() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        WorkRequest[] list = {
            new WorkRequest().faa(c.local, 0, target.remote(0), 1).wrId(1),
            new WorkRequest().faa(c.local, 8, target.remote(0), 1).wrId(2).flags(WorkRequest.SIGNALED),
            new WorkRequest().faa(c.local, 16, target.remote(0), 1).wrId(3),
            new WorkRequest().faa(c.local, 24, target.remote(0), 1).wrId(4).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 4));
        List<Completion> got = c.take(2);
        assertEquals(2, got.get(0).wrId());
        assertEquals(4, got.get(1).wrId());
        c.expectNoMore();
        assertEquals(3, c.local.getLong(24), "the last FAA saw the three earlier ones");
    }

    @Test
    void shouldCountOperationsDoorbellsAndRoundTrips() {
        MemoryRegion target = n2.allocate(128, Access.ALL);
        Client c = new Client(n1, n2);
        WorkRequest[] list = {
            new WorkRequest().write(c.local, 0, 64, target.remote(0)),
            new WorkRequest().write(c.local, 0, 16, target.remote(64)),
            new WorkRequest().cas(c.local, 0, target.remote(0), 0, 1).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 3));
        c.take(1);
        assertEquals(QueuePair.POSTED, c.qp.post(new WorkRequest().write(c.local, 0, 8, target.remote(0))));
        c.one(new WorkRequest().read(c.local, 0, 32, target.remote(0)));
        VerbsStatistics s = c.qp.statistics();
        assertEquals(3, s.writes());
        assertEquals(1, s.reads());
        assertEquals(1, s.compareAndSwaps());
        assertEquals(5, s.operations());
        assertEquals(64 + 16 + 8 + 8 + 32, s.bytes());
        assertEquals(3, s.doorbells());
        assertEquals(2, s.roundTrips(), "the unsignaled doorbell is not a round trip");
        assertEquals(0, s.errors());
        assertTrue(fabric.statistics().operations() >= 5);
    }

    @Test
    void shouldDeliverSendToPostedRecv() {
        CompletionQueue cq1 = n1.createCompletionQueue(16);
        CompletionQueue cq2 = n2.createCompletionQueue(16);
        QueuePair a = n1.createQueuePair(cq1, cq1);
        QueuePair b = n2.createQueuePair(cq2, cq2);
        assertEquals(QpState.RESET, a.state());
        n1.connect(a, b);
        assertEquals(QpState.RTS, a.state());
        assertEquals(QpState.RTS, b.state());
        MemoryRegion src = n1.allocate(64, Access.LOCAL_WRITE);
        MemoryRegion dst = n2.allocate(64, Access.LOCAL_WRITE);
        src.putLong(0, 0x1234_5678_9abcL);
        src.putLong(8, 42);
        assertEquals(QueuePair.POSTED, b.postRecv(new WorkRequest().recv(dst, 0, 64).wrId(77)));
        assertEquals(QueuePair.POSTED, a.post(new WorkRequest().send(src, 0, 16).wrId(5).flags(WorkRequest.SIGNALED)));
        Completion[] out = newCompletions(4);
        assertEquals(1, cq1.await(out, WAIT_NS));
        assertEquals(WcStatus.SUCCESS, out[0].status());
        assertEquals(5, out[0].wrId());
        assertEquals(1, cq2.await(out, WAIT_NS));
        assertEquals(WcStatus.SUCCESS, out[0].status());
        assertEquals(Opcode.RECV, out[0].opcode());
        assertEquals(77, out[0].wrId());
        assertEquals(16, out[0].byteLength());
        assertEquals(0x1234_5678_9abcL, dst.getLong(0));
        assertEquals(42, dst.getLong(8));
    }

    @Test
    void shouldFailSendWithReceiverNotReadyWhenNoRecvIsPosted() {
        Client c = new Client(n1, n2);
        long start = System.nanoTime();
        Completion done = c.one(new WorkRequest().send(c.local, 0, 8));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.status());
        assertTrue(System.nanoTime() - start < WAIT_NS);
        assertEquals(QpState.ERROR, c.qp.state());
    }

    @Test
    void shouldLetTheHomeCpuSeeRemoteWritesAndTheNicSeeCpuWrites() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLong(0, 11);
        Client c = new Client(n1, n2);
        c.one(new WorkRequest().read(c.local, 0, 8, target.remote(0)));
        assertEquals(11, c.local.getLong(0), "posting is ordered after the home CPU's earlier store");
        c.local.putLong(8, 12);
        c.one(new WorkRequest().write(c.local, 8, 8, target.remote(8)));
        c.one(new WorkRequest().read(c.local, 16, 8, target.remote(8)));
        assertEquals(12, target.getLong(8));
    }

    // ---------------------------------------------------------------- errors (R17)

    @Test
    void shouldReportRemoteAccessErrorForWrongRkey() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        MemoryRegion other = n3.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        RemoteAddress foreign = new RemoteAddress(n2.id(), other.rkey(), target.address());
        assertEquals(WcStatus.REM_ACCESS_ERR, c.one(new WorkRequest().read(c.local, 0, 8, foreign)).status());
        assertEquals(QpState.ERROR, c.qp.state());
    }

    @Test
    void shouldReportRemoteAccessErrorOutOfBoundsAndChangeNothing() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLongVolatile(56, 99);
        Client c = new Client(n1, n2);
        c.local.putLong(0, -1);
        c.local.putLong(8, -1);
        RemoteAddress lastWord = target.remote(56);
        assertEquals(WcStatus.REM_ACCESS_ERR, c.one(new WorkRequest().write(c.local, 0, 16, lastWord)).status());
        assertEquals(99, target.getLongVolatile(56), "a WRITE that runs past the region writes nothing");
        Client d = new Client(n1, n2);
        RemoteAddress before = new RemoteAddress(n2.id(), target.rkey(), target.address() - 8);
        assertEquals(WcStatus.REM_ACCESS_ERR, d.one(new WorkRequest().faa(d.local, 0, before, 1)).status());
    }

    @Test
    void shouldReportRemoteAccessErrorForMissingPermission() {
        MemoryRegion readOnly = n2.allocate(64, Access.REMOTE_READ);
        MemoryRegion noAtomic = n2.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        MemoryRegion noRead = n2.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertEquals(WcStatus.REM_ACCESS_ERR, new Client(n1, n2).one(
            new WorkRequest().write(new Client(n1, n2).local, 0, 8, readOnly.remote(0))).status());
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.REM_ACCESS_ERR, c.one(new WorkRequest().cas(c.local, 0, noAtomic.remote(0), 0, 1))
            .status());
        Client d = new Client(n1, n2);
        assertEquals(WcStatus.REM_ACCESS_ERR, d.one(new WorkRequest().read(d.local, 0, 8, noRead.remote(0))).status());
        Client e = new Client(n1, n2);
        assertEquals(WcStatus.SUCCESS, e.one(new WorkRequest().read(e.local, 0, 8, readOnly.remote(0))).status());
    }

    @Test
    void shouldReportRemoteAccessErrorAfterDeregistration() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        RemoteAddress addr = target.remote(0);
        target.deregister();
        assertFalse(target.isRegistered());
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.REM_ACCESS_ERR, c.one(new WorkRequest().read(c.local, 0, 8, addr)).status());
        assertThrows(IllegalStateException.class, () -> target.getLong(0));
    }

    @Test
    void shouldReportInvalidRequestForMisalignedAtomic() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.REM_INV_REQ_ERR, c.one(new WorkRequest().faa(c.local, 0, target.remote(4), 1)).status());
        assertEquals(0, target.getLongVolatile(0));
        assertEquals(0, target.getLongVolatile(8));
        Client d = new Client(n1, n2);
        assertEquals(WcStatus.REM_INV_REQ_ERR, d.one(new WorkRequest().cas(d.local, 0, target.remote(9), 0, 1))
            .status());
    }

    @Test
    void shouldReportLocalProtectionErrorForBadLocalBuffer() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        MemoryRegion otherNodes = n3.allocate(64, Access.ALL);
        MemoryRegion readOnlyLocal = n1.allocate(64, Access.REMOTE_READ);
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.LOC_PROT_ERR, c.one(new WorkRequest().read(otherNodes, 0, 8, target.remote(0)))
            .status(), "a local key of another node");
        Client d = new Client(n1, n2);
        assertEquals(WcStatus.LOC_PROT_ERR, d.one(new WorkRequest().read(readOnlyLocal, 0, 8, target.remote(0)))
            .status(), "a READ needs LOCAL_WRITE on its destination");
        Client e = new Client(n1, n2);
        assertEquals(WcStatus.LOC_PROT_ERR, e.one(new WorkRequest().write(e.local, 4090, 16, target.remote(0)))
            .status(), "local range out of bounds");
        assertEquals(0, target.getLongVolatile(0));
        Client f = new Client(n1, n2);
        MemoryRegion gone = n1.allocate(64, Access.LOCAL_WRITE);
        WorkRequest wr = new WorkRequest().faa(gone, 0, target.remote(0), 1);
        gone.deregister();
        assertEquals(WcStatus.LOC_PROT_ERR, f.one(wr).status(), "a deregistered local region");
        assertEquals(0, target.getLongVolatile(0), "the FAA did not happen");
    }

    @Test
    void shouldFlushEverythingAfterAnError() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        WorkRequest[] list = {
            new WorkRequest().faa(c.local, 0, target.remote(0), 1).wrId(1).flags(WorkRequest.SIGNALED),
            new WorkRequest().faa(c.local, 0, target.remote(3), 1).wrId(2),
            new WorkRequest().faa(c.local, 0, target.remote(0), 1).wrId(3),
            new WorkRequest().faa(c.local, 0, target.remote(0), 1).wrId(4).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 4));
        List<Completion> got = c.take(4);
        assertEquals(WcStatus.SUCCESS, got.get(0).status());
        assertEquals(WcStatus.REM_INV_REQ_ERR, got.get(1).status(), "an unsignaled failure still completes");
        assertEquals(2, got.get(1).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(2).status(), "flushed requests complete even if unsignaled");
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(3).status());
        assertEquals(QpState.ERROR, c.qp.state());
        assertEquals(1, target.getLongVolatile(0), "flushed requests have no effect");
        assertEquals(WcStatus.WR_FLUSH_ERR, c.one(new WorkRequest().faa(c.local, 0, target.remote(0), 1)).status(),
            "requests posted later flush too");
        assertEquals(1, target.getLongVolatile(0));
        assertEquals(4, c.qp.statistics().errors(), "one failure and three flushes");
    }

    @Test
    void shouldReportRetryExceededForCrashedNodeWithinTimeout() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        crash(n2);
        long start = System.nanoTime();
        assertEquals(QueuePair.POSTED, c.qp.post(new WorkRequest().faa(c.local, 0, target.remote(0), 1)
            .flags(WorkRequest.SIGNALED).wrId(1)));
        assertEquals(QueuePair.POSTED, c.qp.post(new WorkRequest().read(c.local, 0, 8, target.remote(0))
            .flags(WorkRequest.SIGNALED).wrId(2)));
        List<Completion> got = c.take(2);
        long took = System.nanoTime() - start;
        assertEquals(WcStatus.RETRY_EXC_ERR, got.get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(1).status());
        assertTrue(took >= retryTimeoutNs() / 2, "a dead peer is detected by timeout, took " + took + " ns");
        assertTrue(took < retryTimeoutNs() + TimeUnit.SECONDS.toNanos(5), "and no later than that, took " + took);
        assertTrue(n2.isCrashed());
    }

    // ---------------------------------------------------------------- error completions of one queue pair (R11, R17)

    /** A remote address with a valid rkey of another node's region: the target rejects it. */
    private RemoteAddress badRkey(MemoryRegion target, long offset) {
        MemoryRegion elsewhere = n3.allocate(64, Access.ALL);
        return new RemoteAddress(target.node().id(), elsewhere.rkey(), target.address() + offset);
    }

    /**
     * Checks the completions of one queue pair after a failure: one per posted request that is signaled or not
     * successful, in posting order; the successes before the failing request, then exactly one error with the
     * expected status, then only WR_FLUSH_ERR.
     */
    private static void assertOneFailureThenFlushes(List<Completion> got, long[] wrIds, int failing,
                                                    WcStatus status) {
        assertEquals(wrIds.length, got.size(), "completions " + got);
        for (int i = 0; i < wrIds.length; i++) {
            Completion c = got.get(i);
            assertEquals(wrIds[i], c.wrId(), "completion " + i + " in posting order: " + got);
            WcStatus expected = i < failing ? WcStatus.SUCCESS : i == failing ? status : WcStatus.WR_FLUSH_ERR;
            assertEquals(expected, c.status(), "completion " + i + ": " + got);
        }
        long errors = got.stream().filter(c -> !c.status().isSuccess() && c.status() != WcStatus.WR_FLUSH_ERR)
            .count();
        assertEquals(1, errors, "exactly one error that is not a flush: " + got);
    }

    @Test
    void shouldCompleteAReadThenFailAWriteWithABadRkeyInOneDoorbell() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLong(0, 0x5eed);
        Client c = new Client(n1, n2);
        c.local.putLong(8, 99);
        WorkRequest[] list = {
            new WorkRequest().read(c.local, 0, 8, target.remote(0)).wrId(1).flags(WorkRequest.SIGNALED),
            new WorkRequest().write(c.local, 8, 8, badRkey(target, 8)).wrId(2),
            new WorkRequest().faa(c.local, 16, target.remote(16), 1).wrId(3),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 3));
        assertOneFailureThenFlushes(c.take(3), new long[] {1, 2, 3}, 1, WcStatus.REM_ACCESS_ERR);
        c.expectNoMore();
        assertEquals(0x5eed, c.local.getLong(0), "the READ before the failure read the right data");
        assertEquals(0, target.getLongVolatile(8), "the failed WRITE wrote nothing");
        assertEquals(0, target.getLongVolatile(16), "the flushed FETCH_ADD had no effect");
        assertEquals(QpState.ERROR, c.qp.state());
    }

    @Test
    void shouldFlushAWriteAfterAReadWithABadRkey() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        c.local.putLong(0, -7);
        c.local.putLong(8, 42);
        WorkRequest[] list = {
            new WorkRequest().read(c.local, 0, 8, badRkey(target, 0)).wrId(1).flags(WorkRequest.SIGNALED),
            new WorkRequest().write(c.local, 8, 8, target.remote(8)).wrId(2),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 2));
        assertOneFailureThenFlushes(c.take(2), new long[] {1, 2}, 0, WcStatus.REM_ACCESS_ERR);
        c.expectNoMore();
        assertEquals(0, target.getLongVolatile(8), "the WRITE after the failure did not land");
        assertEquals(-7, c.local.getLong(0), "the failed READ wrote nothing locally");
    }

    @Test
    void shouldFlushAWriteAfterAFetchAndAddWithABadRkey() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLongVolatile(0, 10);
        Client c = new Client(n1, n2);
        c.local.putLong(0, -7);
        c.local.putLong(8, 42);
        WorkRequest[] list = {
            new WorkRequest().faa(c.local, 0, badRkey(target, 0), 1).wrId(1),
            new WorkRequest().write(c.local, 8, 8, target.remote(8)).wrId(2).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 2));
        assertOneFailureThenFlushes(c.take(2), new long[] {1, 2}, 0, WcStatus.REM_ACCESS_ERR);
        c.expectNoMore();
        assertEquals(10, target.getLongVolatile(0), "the failed FETCH_ADD changed nothing");
        assertEquals(0, target.getLongVolatile(8), "the WRITE after the failure did not land");
        assertEquals(-7, c.local.getLong(0), "the failed FETCH_ADD wrote no result");
    }

    @Test
    void shouldFlushEverythingAfterAMisalignedRemoteAtomic() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLongVolatile(0, 3);
        Client c = new Client(n1, n2);
        c.local.putLong(8, 42);
        WorkRequest[] list = {
            new WorkRequest().faa(c.local, 0, target.remote(0), 1).wrId(1),
            new WorkRequest().cas(c.local, 16, target.remote(4), 0, 1).wrId(2),
            new WorkRequest().faa(c.local, 24, target.remote(0), 1).wrId(3),
            new WorkRequest().write(c.local, 8, 8, target.remote(8)).wrId(4),
            new WorkRequest().read(c.local, 32, 8, target.remote(0)).wrId(5).flags(WorkRequest.SIGNALED),
        };
        assertEquals(QueuePair.POSTED, c.qp.post(list, 5));
        List<Completion> got = c.take(4);
        c.expectNoMore();
        assertOneFailureThenFlushes(got, new long[] {2, 3, 4, 5}, 0, WcStatus.REM_INV_REQ_ERR);
        assertEquals(4, target.getLongVolatile(0), "only the FETCH_ADD before the failure happened");
        assertEquals(0, target.getLongVolatile(8), "the flushed WRITE did not land");
        assertEquals(3, c.local.getLong(0));
        assertEquals(4, c.qp.statistics().errors(), "one failure and three flushes");
    }

    @Test
    void shouldFailARequestWhoseRegionIsDeregisteredWhileItIsInFlight() {
        long roundTripNs = TimeUnit.MILLISECONDS.toNanos(300);
        long windowNs = roundTripNs / 4;
        for (int attempt = 1; ; attempt++) {
            Fabric slow = newFabricWithRoundTripNs(roundTripNs);
            Assumptions.assumeTrue(slow != null, "the provider cannot hold a request in flight");
            try {
                if (deregisterInFlight(slow, windowNs)) {
                    return;
                }
            } finally {
                slow.close();
            }
            if (attempt == 3) {
                Assumptions.abort("three times the deregistration did not happen within " + windowNs
                    + " ns of posting: too loaded a machine to place it while the request is in flight");
            }
        }
    }

    /**
     * Posts a READ from one region and a WRITE to another, deregisters both at once and checks that both fail with
     * REM_ACCESS_ERR having written nothing, and that the requests behind them flush.
     *
     * @return false if the deregistration took longer than {@code windowNs} after posting (inconclusive)
     */
    private boolean deregisterInFlight(Fabric slow, long windowNs) {
        Node a = slow.addNode("A");
        Node b = slow.addNode("B");
        MemoryRegion source = b.allocate(64, Access.ALL);
        source.putLong(0, 11);
        ByteBuffer raw = null;
        MemoryRegion destination;
        try {
            ByteBuffer buffer = ByteBuffer.allocateDirect(64);
            destination = b.register(buffer, Access.ALL);
            raw = buffer;
        } catch (UnsupportedOperationException e) {
            destination = b.allocate(64, Access.ALL);
        }
        Client reader = new Client(a, b);
        Client writer = new Client(a, b);
        reader.local.putLong(0, -1);
        writer.local.putLong(0, 0x77);
        WorkRequest[] reads = {
            new WorkRequest().read(reader.local, 0, 8, source.remote(0)).wrId(1).flags(WorkRequest.SIGNALED),
            new WorkRequest().faa(reader.local, 8, source.remote(8), 1).wrId(2),
        };
        WorkRequest[] writes = {
            new WorkRequest().write(writer.local, 0, 8, destination.remote(0)).wrId(3).flags(WorkRequest.SIGNALED),
            new WorkRequest().write(writer.local, 0, 8, destination.remote(8)).wrId(4),
        };
        long start = System.nanoTime();
        assertEquals(QueuePair.POSTED, reader.qp.post(reads, 2));
        assertEquals(QueuePair.POSTED, writer.qp.post(writes, 2));
        source.deregister();
        destination.deregister();
        boolean inTime = System.nanoTime() - start < windowNs;
        List<Completion> read = reader.take(2);
        List<Completion> written = writer.take(2);
        if (!inTime) {
            return false;
        }
        assertOneFailureThenFlushes(read, new long[] {1, 2}, 0, WcStatus.REM_ACCESS_ERR);
        assertOneFailureThenFlushes(written, new long[] {3, 4}, 0, WcStatus.REM_ACCESS_ERR);
        assertEquals(-1, reader.local.getLong(0), "the READ from a deregistered region wrote nothing locally");
        assertEquals(0, reader.local.getLong(8), "the flushed FETCH_ADD returned nothing");
        if (raw != null) {
            assertEquals(0, raw.getLong(0), "the WRITE to a deregistered region wrote nothing");
            assertEquals(0, raw.getLong(8), "the flushed WRITE wrote nothing");
        }
        return true;
    }

    @Test
    void shouldReturnQueueFullInsteadOfOverrunningTheCompletionQueue() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2, 2);
        WorkRequest wr = new WorkRequest().faa(c.local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED);
        assertEquals(QueuePair.POSTED, c.qp.post(wr));
        assertEquals(QueuePair.POSTED, c.qp.post(wr));
        assertEquals(QueuePair.QUEUE_FULL, c.qp.post(wr));
        c.take(2);
        assertEquals(QueuePair.POSTED, c.qp.post(wr));
        c.take(1);
        assertEquals(3, target.getLongVolatile(0), "the refused post did nothing");
    }

    // ---------------------------------------------------------------- misuse throws

    @Test
    void shouldRejectMalformedRequestsAtOnce() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Client c = new Client(n1, n2);
        assertThrows(NullPointerException.class, () -> c.qp.post((WorkRequest) null));
        IllegalArgumentException noOp = assertThrows(IllegalArgumentException.class,
            () -> c.qp.post(new WorkRequest()));
        assertTrue(noOp.getMessage().contains("no opcode"), noOp.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new WorkRequest().read(c.local, 0, -1, target.remote(0)));
        assertThrows(IllegalArgumentException.class, () -> new WorkRequest().read(c.local, -8, 8, target.remote(0)));
        assertThrows(NullPointerException.class, () -> new WorkRequest().read(null, 0, 8, target.remote(0)));
        assertThrows(IllegalArgumentException.class, () -> c.qp.post(new WorkRequest().recv(c.local, 0, 8)));
        assertThrows(IllegalArgumentException.class, () -> c.qp.post(
            new WorkRequest().read(c.local, 0, 8, target.remote(0)).flags(WorkRequest.INLINE)));
        assertThrows(IllegalArgumentException.class, () -> c.qp.post(
            new WorkRequest().write(c.local, 0, 4000, target.remote(0)).flags(WorkRequest.INLINE)));
        assertThrows(IllegalArgumentException.class, () -> new WorkRequest().flags(1 << 10));
        assertThrows(IllegalArgumentException.class, () -> c.qp.post(new WorkRequest[0], 1));
        assertEquals(QpState.RTS, c.qp.state(), "misuse does not break the queue pair");
        assertEquals(0, c.qp.statistics().operations());
    }

    @Test
    void shouldRejectAnAtomicWithAMisalignedLocalResultAtPostTime() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        target.putLongVolatile(0, 40);
        Client c = new Client(n1, n2);
        WorkRequest faa = new WorkRequest().faa(c.local, 4, target.remote(0), 1).flags(WorkRequest.SIGNALED);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.qp.post(faa));
        String m = e.getMessage();
        assertTrue(m.contains("work request 0") && m.contains("FETCH_ADD")
            && m.contains("0x" + Long.toHexString(c.local.address() + 4)) && m.contains("8-byte"), m);
        WorkRequest[] list = {
            new WorkRequest().read(c.local, 16, 8, target.remote(0)).flags(WorkRequest.SIGNALED),
            new WorkRequest().cas(c.local, 12, target.remote(0), 40, 41).flags(WorkRequest.SIGNALED),
        };
        IllegalArgumentException inList = assertThrows(IllegalArgumentException.class, () -> c.qp.post(list, 2));
        assertTrue(inList.getMessage().contains("work request 1") && inList.getMessage().contains("CAS"),
            inList.getMessage());
        assertEquals(0, c.qp.statistics().operations(), "a rejected list posts nothing, not even its valid prefix");
        assertEquals(QpState.RTS, c.qp.state());
        assertEquals(40, target.getLongVolatile(0), "the remote word is untouched");
        assertEquals(WcStatus.SUCCESS, c.one(new WorkRequest().faa(c.local, 8, target.remote(0), 1)).status(),
            "the queue pair still works");
        assertEquals(40, c.local.getLong(8));
        assertEquals(41, target.getLongVolatile(0), "and nothing applied the rejected atomics meanwhile");
    }

    @Test
    void shouldRejectRegisteringABufferThatIsNotEightByteAligned() {
        ByteBuffer raw = ByteBuffer.allocateDirect(256);
        int aligned = 0;
        while (raw.alignmentOffset(aligned, 8) != 0) {
            aligned++;
        }
        int misaligned = aligned + 3;
        MemoryRegion region;
        try {
            region = n2.register(raw.slice(aligned, 64), Access.ALL);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("the provider does not register caller-owned buffers: " + e.getMessage());
            return;
        }
        IllegalArgumentException slice = assertThrows(IllegalArgumentException.class,
            () -> n2.register(raw.slice(misaligned, 64), Access.ALL));
        assertTrue(slice.getMessage().contains("8-byte"), slice.getMessage());
        ByteBuffer positioned = raw.duplicate().position(misaligned).limit(misaligned + 64);
        IllegalArgumentException position = assertThrows(IllegalArgumentException.class,
            () -> n2.register(positioned, Access.ALL));
        assertTrue(position.getMessage().contains("8-byte"), position.getMessage());
        region.putLong(0, 5);
        assertEquals(5, region.getLong(0));
        Client c = new Client(n1, n2);
        assertEquals(WcStatus.SUCCESS, c.one(new WorkRequest().cas(c.local, 0, region.remote(0), 5, 6)).status());
        assertEquals(5, c.local.getLong(0));
        assertEquals(6, region.getLongVolatile(0));
    }

    @Test
    void shouldRejectBadRegistrations() {
        assertThrows(IllegalArgumentException.class, () -> n1.allocate(64, Access.REMOTE_WRITE));
        assertThrows(IllegalArgumentException.class, () -> n1.allocate(64, Access.REMOTE_ATOMIC));
        assertThrows(IllegalArgumentException.class, () -> n1.allocate(0, Access.ALL));
        assertThrows(IllegalArgumentException.class, () -> n1.allocate(64, 1 << 9));
        assertThrows(IllegalArgumentException.class, () -> n1.createCompletionQueue(0));
        MemoryRegion r = n1.allocate(64, Access.ALL);
        assertThrows(IndexOutOfBoundsException.class, () -> r.getLong(60));
        assertThrows(IndexOutOfBoundsException.class, () -> r.putLong(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> r.compareAndSetLong(4, 0, 1));
    }

    @Test
    void shouldRejectPostingOnUnconnectedQueuePairAndClosedFabric() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        CompletionQueue cq = n1.createCompletionQueue(8);
        QueuePair unconnected = n1.createQueuePair(cq, cq);
        MemoryRegion local = n1.allocate(64, Access.LOCAL_WRITE);
        WorkRequest wr = new WorkRequest().read(local, 0, 8, target.remote(0)).flags(WorkRequest.SIGNALED);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> unconnected.post(wr));
        assertTrue(e.getMessage().contains("not connected"), e.getMessage());
        QueuePair qp = n1.connect(n2, cq);
        fabric.close();
        assertTrue(fabric.isClosed());
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> qp.post(wr));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertThrows(IllegalStateException.class, () -> fabric.addNode("N9"));
    }

    // ---------------------------------------------------------------- wait layer and endpoint

    @Test
    void shouldWaitOnlyForTheCallersOwnOperations() {
        MemoryRegion healthy = n2.allocate(64, Access.ALL);
        MemoryRegion doomed = n3.allocate(64, Access.ALL);
        CompletionQueue cq = n1.createCompletionQueue(64);
        CompletionDispatcher dispatcher = new CompletionDispatcher(cq);
        WaitTag a = dispatcher.newTag("A");
        WaitTag b = dispatcher.newTag("B");
        QueuePair toHealthy = n1.connect(n2, cq);
        QueuePair toDoomed = n1.connect(n3, cq);
        MemoryRegion local = n1.allocate(64, Access.LOCAL_WRITE);
        crash(n3);
        long start = System.nanoTime();
        assertEquals(QueuePair.POSTED, a.post(toDoomed, new WorkRequest().faa(local, 0, doomed.remote(0), 1)));
        assertEquals(QueuePair.POSTED, b.post(toHealthy, new WorkRequest().faa(local, 8, healthy.remote(0), 1)));
        assertEquals(WaitStatus.COMPLETED, b.await(WAIT_NS));
        assertTrue(System.nanoTime() - start < retryTimeoutNs(), "B did not wait for A's dead peer");
        assertEquals(1, a.outstanding(), "A's operation is still outstanding when B's wait returns (L19)");
        assertEquals(WaitStatus.TIMED_OUT, a.await(TimeUnit.MILLISECONDS.toNanos(1)));
        assertEquals(WaitStatus.FAILED, a.await(WAIT_NS));
        assertEquals(WcStatus.RETRY_EXC_ERR, a.lastError());
        assertEquals(0, a.outstanding());
        assertEquals(WaitStatus.COMPLETED, a.await(WAIT_NS), "a failure is reported once");
    }

    @Test
    void shouldRouteCompletionsPolledByAnotherTag() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        Endpoint ep = Endpoint.open(n1);
        WaitTag lib = ep.newTag("library");
        QueuePair qp = ep.queuePair(n2.id());
        MemoryRegion local = n1.allocate(64, Access.LOCAL_WRITE);
        WorkRequest[] list = {
            new WorkRequest().faa(local, 0, target.remote(0), 5),
            new WorkRequest().faa(local, 8, target.remote(0), 5),
        };
        assertEquals(QueuePair.POSTED, lib.post(qp, list, 2));
        assertEquals(10, ep.faa(target.remote(0), 1), "the endpoint's own wait polled the library's completion too");
        assertEquals(0, lib.outstanding());
        assertEquals(WaitStatus.COMPLETED, lib.await(WAIT_NS));
        assertEquals(5, local.getLong(8));
        ep.close();
    }

    @Test
    void shouldOfferBlockingHelpersThatThrowTheProviderStatus() {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        try (Endpoint ep = Endpoint.open(n1)) {
            ep.writeLong(target.remote(0), 40);
            assertEquals(40, ep.faa(target.remote(0), 2));
            assertEquals(42, ep.cas(target.remote(0), 42, 7));
            assertEquals(7, ep.readLong(target.remote(0)));
            RemoteAccessException e = assertThrows(RemoteAccessException.class, () -> ep.faa(target.remote(4), 1));
            assertEquals(WcStatus.REM_INV_REQ_ERR, e.status());
            assertEquals(7, ep.readLong(target.remote(0)), "the next request reconnects");
            MemoryRegion bulk = n1.allocate(128, Access.LOCAL_WRITE);
            bulk.putLong(0, 1);
            bulk.putLong(56, 2);
            ep.write(target.remote(0), bulk, 0, 64);
            ep.read(target.remote(0), bulk, 64, 64);
            assertEquals(1, bulk.getLong(64));
            assertEquals(2, bulk.getLong(120));
            VerbsStatistics s = ep.statistics();
            assertEquals(8, s.operations());
            assertEquals(8, s.roundTrips(), "each blocking helper is one round trip");
            assertEquals(1, s.errors());
        }
    }

    @Test
    void shouldTimeOutABlockingHelperAndKeepWorking() {
        MemoryRegion healthy = n2.allocate(64, Access.ALL);
        MemoryRegion doomed = n3.allocate(64, Access.ALL);
        crash(n3);
        long timeoutNs = Math.max(1, retryTimeoutNs() / 20);
        try (Endpoint ep = Endpoint.open(n1, new Endpoint.Context().operationTimeoutNs(timeoutNs))) {
            assertThrows(VerbsTimeoutException.class, () -> ep.faa(doomed.remote(0), 1));
            assertEquals(0, ep.faa(healthy.remote(0), 1), "the endpoint works after a timeout");
            assertEquals(1, ep.readLong(healthy.remote(0)));
        }
    }

    @Test
    void shouldNotLoseFetchAndAddsUnderContention() throws Exception {
        MemoryRegion target = n2.allocate(64, Access.ALL);
        int threads = 4;
        int each = 2_000;
        long[][] seen = new long[threads][each];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Node from = t % 2 == 0 ? n1 : n3;
            workers.add(new Thread(() -> {
                try (Endpoint ep = Endpoint.open(from)) {
                    for (int i = 0; i < each; i++) {
                        seen[id][i] = ep.faa(target.remote(8), 1);
                    }
                }
            }));
        }
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join();
        }
        assertEquals((long) threads * each, target.getLongVolatile(8));
        Set<Long> distinct = new HashSet<>();
        for (long[] row : seen) {
            for (long v : row) {
                assertTrue(distinct.add(v), "two FETCH_ADDs returned the same old value " + v + " (L14)");
            }
        }
        assertEquals(threads * each, distinct.size());
    }
}
