package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DetFabricTest {

    /** Three clients each add 1 four times through Endpoint.faa; returns the fabric's result and the final value. */
    private static long[] countWithSeed(long seed, FaultPlan faults, List<String> failures) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults));
        Node home = f.addNode("home");
        MemoryRegion counter = home.allocate(8, Access.ALL);
        RemoteAddress word = counter.remote(0);
        long[] acked = new long[1];
        Set<Long> seen = new HashSet<>();
        for (int c = 0; c < 3; c++) {
            Node n = f.addNode("c" + c);
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    for (int i = 0; i < 4; i++) {
                        try {
                            long old = ep.faa(word, 1);
                            if (!seen.add(old)) {
                                failures.add("old value " + old + " returned twice");
                            }
                            acked[0]++;
                        } catch (RemoteAccessException e) {
                            failures.add("indeterminate: " + e.status());
                        }
                    }
                }
            });
        }
        DetFabric.Result r = f.run();
        assertTrue(r.finished(), r.describe());
        assertTrue(r.failures().isEmpty(), r.describe());
        return new long[] {r.traceHash(), f.peek(counter, 0), acked[0], r.steps()};
    }

    @Test
    void shouldRunApplicationCodeUnchangedAndCountExactlyOverManySeeds() {
        Set<Long> traces = new HashSet<>();
        for (long seed = 1; seed <= 200; seed++) {
            List<String> failures = new ArrayList<>();
            long[] r = countWithSeed(seed, FaultPlan.NONE, failures);
            assertTrue(failures.isEmpty(), "seed " + seed + ": " + failures);
            assertEquals(12, r[1], "seed " + seed);
            assertEquals(12, r[2], "seed " + seed);
            traces.add(r[0]);
        }
        assertTrue(traces.size() > 150, "seeds explore different interleavings: " + traces.size() + " distinct");
    }

    @Test
    void shouldReplayTheSameExecutionForTheSameSeed() {
        for (long seed : new long[] {3, 77, 1234}) {
            long[] a = countWithSeed(seed, FaultPlan.NONE, new ArrayList<>());
            long[] b = countWithSeed(seed, FaultPlan.NONE, new ArrayList<>());
            assertEquals(a[0], b[0], "trace hash of seed " + seed);
            assertEquals(a[3], b[3], "steps of seed " + seed);
        }
    }

    @Test
    void shouldTurnACrashedHomeIntoRetryExceededCompletions() {
        int indeterminate = 0;
        for (long seed = 1; seed <= 50; seed++) {
            List<String> failures = new ArrayList<>();
            long[] r = countWithSeed(seed, FaultPlan.of(new FaultPlan.Crash(30, 0, false)), failures);
            for (String f : failures) {
                assertEquals("indeterminate: RETRY_EXC_ERR", f, "seed " + seed);
            }
            indeterminate += failures.size();
            assertTrue(r[1] >= r[2], "every acknowledged increment is in memory, seed " + seed);
            assertTrue(r[1] <= 12);
        }
        assertTrue(indeterminate > 0, "the crash made some increments fail");
    }

    @Test
    void shouldStopTheThreadsOfACrashedNode() {
        DetFabric f = DetFabric.open(new DetContext().seed(5).faults(FaultPlan.of(new FaultPlan.Crash(10, 1, true))));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion local = client.allocate(64, Access.ALL);
        f.spawn(client, "spinner", () -> {
            for (int i = 0; i < 1_000; i++) {
                local.putLong(0, i);
            }
        });
        DetFabric.Result r = f.run();
        assertEquals(List.of("spinner"), r.crashed());
        assertTrue(home.fabric() == f);
        assertEquals(0, f.peek(local, 0), "the crash lost the node's memory");
    }

    @Test
    void shouldReportHardwareErrorStatusesAndFlush() {
        DetFabric f = DetFabric.open(new DetContext().seed(9));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion target = home.allocate(64, Access.ALL);
        MemoryRegion readOnly = home.allocate(64, Access.REMOTE_READ);
        List<WcStatus> statuses = new ArrayList<>();
        List<QpState> states = new ArrayList<>();
        f.spawn(client, "client", () -> {
            MemoryRegion local = client.allocate(64, Access.LOCAL_WRITE);
            CompletionQueue cq = client.createCompletionQueue(16);
            Completion[] out = {new Completion(), new Completion(), new Completion()};
            QueuePair qp = client.connect(home, cq);
            RemoteAddress bad = new RemoteAddress(home.id(), target.rkey(), target.address() + 64);
            WorkRequest[] list = {
                new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED).wrId(1),
                new WorkRequest().read(local, 8, 8, bad).wrId(2),
                new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED).wrId(3),
            };
            assertEquals(QueuePair.POSTED, qp.post(list, 3));
            int got = 0;
            while (got < 3) {
                int n = cq.await(out, 1_000_000_000L);
                for (int i = 0; i < n; i++) {
                    statuses.add(out[i].status());
                }
                got += n;
            }
            states.add(qp.state());
            QueuePair qp2 = client.connect(home, cq);
            qp2.post(new WorkRequest().faa(local, 0, target.remote(4), 1).flags(WorkRequest.SIGNALED));
            qp2.post(new WorkRequest().write(local, 0, 8, readOnly.remote(0)).flags(WorkRequest.SIGNALED));
            for (int k = 0; k < 2; ) {
                int n = cq.await(out, 1_000_000_000L);
                for (int i = 0; i < n; i++) {
                    statuses.add(out[i].status());
                }
                k += n;
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.failures().isEmpty(), r.describe());
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR,
            WcStatus.REM_INV_REQ_ERR, WcStatus.WR_FLUSH_ERR), statuses);
        assertEquals(List.of(QpState.ERROR), states);
        assertEquals(1, f.peek(target, 0), "failed and flushed requests change nothing");
        assertEquals(0, f.peek(readOnly, 0));
    }

    @Test
    void shouldExhibitMessagePassingReorderingAcrossQueuePairsThroughTheApi() {
        // L05 through the public API: data on N2, flag on N3, written by two puts on two QPs. A reader on N3 that
        // sees the flag can still read stale data from N2 (R10); on one QP it cannot (R6).
        int stale = 0;
        for (long seed = 1; seed <= 400; seed++) {
            if (messagePassing(seed, false)) {
                stale++;
            }
            assertFalse(messagePassing(seed, true), "same QP: flag seen but data stale, seed " + seed);
        }
        assertTrue(stale > 0, "two QPs: some seed shows the flag before the data (L05)");
    }

    /** @return whether the reader saw flag=1 and data=0 */
    private static boolean messagePassing(long seed, boolean sameQp) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed));
        Node writer = f.addNode("N1");
        Node dataHome = f.addNode("N2");
        Node flagHome = sameQp ? dataHome : f.addNode("N3");
        MemoryRegion data = dataHome.allocate(8, Access.ALL);
        MemoryRegion flag = flagHome.allocate(8, Access.ALL);
        boolean[] staleSeen = new boolean[1];
        f.spawn(writer, "writer", () -> {
            MemoryRegion one = writer.allocate(8, Access.LOCAL_WRITE);
            one.putLong(0, 1);
            CompletionQueue cq = writer.createCompletionQueue(8);
            QueuePair toData = writer.connect(dataHome, cq);
            QueuePair toFlag = sameQp ? toData : writer.connect(flagHome, cq);
            toData.post(new WorkRequest().write(one, 0, 8, data.remote(0)));
            toFlag.post(new WorkRequest().write(one, 0, 8, flag.remote(0)));
        });
        f.spawn(flagHome, "reader", () -> {
            long seenFlag = sameQp ? data.getLong(0) * 0 + flag.getLong(0) : flag.getLong(0);
            if (seenFlag == 1) {
                long d;
                if (sameQp) {
                    d = data.getLong(0);
                } else {
                    try (Endpoint ep = Endpoint.open(flagHome)) {
                        d = ep.readLong(data.remote(0));
                    }
                }
                staleSeen[0] = d == 0;
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.failures().isEmpty(), r.describe());
        return staleSeen[0];
    }

    /** One client posts four signaled FETCH_ADDs on one queue pair to a home; returns their statuses in order. */
    private static List<WcStatus> fourAdds(FaultPlan faults, long[] finalValue) {
        DetFabric f = DetFabric.open(new DetContext().seed(11).faults(faults));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion target = home.allocate(8, Access.ALL);
        List<WcStatus> statuses = new ArrayList<>();
        f.spawn(client, "client", () -> {
            MemoryRegion local = client.allocate(8, Access.LOCAL_WRITE);
            CompletionQueue cq = client.createCompletionQueue(8);
            QueuePair qp = client.connect(home, cq);
            Completion[] out = {new Completion()};
            for (int i = 0; i < 4; i++) {
                qp.post(new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED));
                assertEquals(1, cq.await(out, 10_000_000_000L));
                statuses.add(out[0].status());
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe());
        finalValue[0] = f.peek(target, 0);
        return statuses;
    }

    @Test
    void shouldFailRequestsAcrossACutLink() {
        long[] value = new long[1];
        List<WcStatus> s = fourAdds(FaultPlan.of(new FaultPlan.CutLink(0, 0, 1)), value);
        assertEquals(WcStatus.RETRY_EXC_ERR, s.get(0));
        assertEquals(List.of(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR), s.subList(1, 4));
        assertEquals(0, value[0]);
    }

    @Test
    void shouldFlushAfterAQueuePairIsForcedToError() {
        long[] value = new long[1];
        List<WcStatus> healthy = fourAdds(FaultPlan.NONE, value);
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), healthy);
        assertEquals(4, value[0]);
        // Queue pairs are numbered per fabric in creation order: the client's is number 1.
        List<WcStatus> failed = fourAdds(FaultPlan.of(new FaultPlan.QueuePairError(0, 1)), value);
        assertEquals(List.of(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR,
            WcStatus.WR_FLUSH_ERR), failed);
        assertEquals(0, value[0]);
    }

    @Test
    void shouldRejectMisuse() {
        DetFabric f = DetFabric.open(new DetContext());
        Node n = f.addNode("N");
        Node m = f.addNode("M");
        MemoryRegion r = n.allocate(16, Access.ALL);
        r.putLong(8, 5);
        assertEquals(5, r.getLong(8), "set-up code accesses memory directly");
        assertThrows(IllegalArgumentException.class, () -> r.getLong(4));
        assertThrows(IndexOutOfBoundsException.class, () -> r.getLong(16));
        CompletionQueue cq = n.createCompletionQueue(4);
        QueuePair qp = n.connect(m, cq);
        assertThrows(IllegalStateException.class,
            () -> qp.post(new WorkRequest().faa(r, 0, r.remote(0), 1)), "posting outside run()");
        assertThrows(IllegalArgumentException.class, () -> f.addNode("N"));
        assertThrows(UnsupportedOperationException.class, () -> n.register(java.nio.ByteBuffer.allocateDirect(8), 0));
        assertNull(f.firstFailure());
    }

    @Test
    void shouldRejectAnAtomicWithAMisalignedLocalResultAtPostTimeLikeEveryProvider() {
        DetFabric f = DetFabric.open(new DetContext());
        Node n = f.addNode("N");
        Node m = f.addNode("M");
        MemoryRegion local = n.allocate(16, Access.ALL);
        MemoryRegion target = m.allocate(8, Access.ALL);
        QueuePair qp = n.connect(m, n.createCompletionQueue(4));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> qp.post(new WorkRequest().faa(local, 4, target.remote(0), 1)), "checked before anything else");
        assertTrue(e.getMessage().contains("work request 0: FETCH_ADD result address 0x"), e.getMessage());
        assertEquals(0, f.peek(target, 0));
    }

    @Test
    void shouldBeSelectableByProviderName() {
        try (Fabric f = Fabric.open("det", Map.of("seed", "4", "ATOMIC_CAP", "GLOB"))) {
            assertEquals("det", f.providerName());
            assertEquals(DetKnobs.AtomicCap.GLOB, ((DetFabric) f).context().knobs().atomicCap());
            assertEquals(4, ((DetFabric) f).context().seed());
        }
    }
}
