package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Errors on the deterministic fabric, through the public API, over many seeds (the scheduler decides which of the
 * requests' sub-actions come first): completions stay in posting order, exactly one request carries the error, every
 * request before it completes as it would have, every request after it is flushed with no effect at the target, and
 * rkeys are checked when the NIC takes a request, not when it is posted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DetFabricErrorTest {
    private static final int SEEDS = 200;

    /** What one run of a two-request list produced. */
    private record Outcome(List<WcStatus> statuses, long target, long local, DetFabric.Result run) {
    }

    /**
     * A client posts two signaled requests in one doorbell to a home region {@code target} (value 5 at offset 0, 0 at
     * offset 8) and collects both completions.
     *
     * @param requests builds the two requests from (local region, target region)
     */
    private static Outcome twoRequests(long seed, BiFunction<MemoryRegion, MemoryRegion, WorkRequest[]> requests) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion target = home.allocate(16, Access.ALL);
        target.putLong(0, 5);
        MemoryRegion local = client.allocate(16, Access.ALL);
        local.putLong(8, 7);
        List<WcStatus> statuses = new ArrayList<>();
        f.spawn(client, "client", () -> {
            CompletionQueue cq = client.createCompletionQueue(8);
            QueuePair qp = client.connect(home, cq);
            WorkRequest[] list = requests.apply(local, target);
            for (int i = 0; i < list.length; i++) {
                list[i].wrId(i).flags(list[i].flags() | WorkRequest.SIGNALED);
            }
            assertEquals(QueuePair.POSTED, qp.post(list, list.length));
            Completion[] out = {new Completion(), new Completion()};
            while (statuses.size() < list.length) {
                int n = cq.await(out, 10_000_000_000L);
                for (int i = 0; i < n; i++) {
                    assertEquals(statuses.size(), out[i].wrId(), "completions in posting order");
                    statuses.add(out[i].status());
                }
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        return new Outcome(statuses, f.peek(target, 8), f.peek(local, 0), r);
    }

    private static RemoteAddress badKey(MemoryRegion region) {
        return new RemoteAddress(region.node().id(), region.rkey() + (1 << 20), region.address());
    }

    @Test
    void shouldCompleteAnEarlierReadNormallyWhenALaterWriteIsRefused() {
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            Outcome o = twoRequests(seed, (local, target) -> new WorkRequest[] {
                new WorkRequest().read(local, 0, 8, target.remote(0)),
                new WorkRequest().write(local, 8, 8, badKey(target).plus(8))});
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.REM_ACCESS_ERR), o.statuses(), o.run().describe());
            assertEquals(5, o.local(), "the READ before the refused WRITE returned its data");
            assertEquals(0, o.target());
        });
    }

    @Test
    void shouldFlushAWriteBehindARefusedReadWithoutApplyingIt() {
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            Outcome o = twoRequests(seed, (local, target) -> new WorkRequest[] {
                new WorkRequest().read(local, 0, 8, badKey(target)),
                new WorkRequest().write(local, 8, 8, target.remote(8))});
            assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), o.statuses(), o.run().describe());
            assertEquals(0, o.target(), "the flushed WRITE landed");
            assertEquals(0, o.local(), "the refused READ wrote its destination");
        });
    }

    @Test
    void shouldFlushAWriteBehindARefusedAtomicWithoutApplyingIt() {
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            Outcome o = twoRequests(seed, (local, target) -> new WorkRequest[] {
                new WorkRequest().faa(local, 0, badKey(target), 1),
                new WorkRequest().write(local, 8, 8, target.remote(8))});
            assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), o.statuses(), o.run().describe());
            assertEquals(0, o.target(), "the flushed WRITE landed");
        });
    }

    @Test
    void shouldFlushAWriteBehindAMisalignedAtomicWithoutApplyingIt() {
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            Outcome o = twoRequests(seed, (local, target) -> new WorkRequest[] {
                new WorkRequest().cas(local, 0, target.remote(4), 0, 1),
                new WorkRequest().write(local, 8, 8, target.remote(8))});
            assertEquals(List.of(WcStatus.REM_INV_REQ_ERR, WcStatus.WR_FLUSH_ERR), o.statuses(), o.run().describe());
            assertEquals(0, o.target(), "the flushed WRITE landed");
        });
    }

    /**
     * A client WRITEs a home word while a home thread deregisters the region: whichever the scheduler runs first
     * decides the outcome, and a WRITE the NIC takes after the deregistration is refused with no effect.
     */
    @Test
    void shouldRefuseAWriteWhoseRegionIsDeregisteredBeforeTheNicTakesIt() {
        int refused = 0;
        int landed = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            MemoryRegion local = client.allocate(8, Access.ALL);
            local.putLong(0, 9);
            WcStatus[] status = new WcStatus[1];
            f.spawn(client, "writer", () -> {
                CompletionQueue cq = client.createCompletionQueue(4);
                QueuePair qp = client.connect(home, cq);
                qp.post(new WorkRequest().write(local, 0, 8, target.remote(0)).flags(WorkRequest.SIGNALED));
                Completion[] out = {new Completion()};
                assertEquals(1, cq.await(out, 10_000_000_000L));
                status[0] = out[0].status();
            });
            f.spawn(home, "deregister", target::deregister);
            DetFabric.Result r = f.run();
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            long value = f.peek(target, 0);
            if (status[0] == WcStatus.SUCCESS) {
                assertEquals(9, value, "seed " + seed);
                landed++;
            } else {
                assertEquals(WcStatus.REM_ACCESS_ERR, status[0], "seed " + seed);
                assertEquals(0, value, "seed " + seed + ": a refused WRITE changed memory");
                refused++;
            }
        }
        assertTrue(refused > 0, "no seed deregistered the region before the NIC took the WRITE");
        assertTrue(landed > 0, "no seed ran the WRITE before the deregistration");
    }

    @Test
    void shouldFailAReadWhoseLocalRegionIsDeregisteredBeforeItsDataLands() {
        int protectionErrors = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion source = home.allocate(8, Access.ALL);
            source.putLong(0, 3);
            WcStatus[] status = new WcStatus[1];
            f.spawn(client, "reader", () -> {
                MemoryRegion local = client.allocate(8, Access.ALL);
                CompletionQueue cq = client.createCompletionQueue(4);
                QueuePair qp = client.connect(home, cq);
                qp.post(new WorkRequest().read(local, 0, 8, source.remote(0)).flags(WorkRequest.SIGNALED));
                local.deregister();
                Completion[] out = {new Completion()};
                assertEquals(1, cq.await(out, 10_000_000_000L));
                status[0] = out[0].status();
            });
            DetFabric.Result r = f.run();
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertTrue(status[0] == WcStatus.SUCCESS || status[0] == WcStatus.LOC_PROT_ERR, "seed " + seed + ": "
                + status[0]);
            if (status[0] == WcStatus.LOC_PROT_ERR) {
                protectionErrors++;
            }
        }
        assertTrue(protectionErrors > 0, "no seed deregistered the destination before the NIC took the READ");
    }

    /** x86 stores are atomic at their width: two threads storing the two halves of one word both land. */
    @Test
    void shouldNotLoseAConcurrentStoreToTheOtherHalfOfAWord() {
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            DetFabric f = DetFabric.open(new DetContext().seed(seed));
            Node n = f.addNode("n");
            MemoryRegion word = n.allocate(16, Access.ALL);
            f.spawn(n, "low", () -> word.putInt(0, 0x1111_1111));
            f.spawn(n, "high", () -> word.putInt(4, 0x2222_2222));
            f.spawn(n, "bytes", () -> word.putBytes(9, new byte[] {7, 7}, 0, 2));
            f.spawn(n, "byte", () -> word.putBytes(15, new byte[] {5}, 0, 1));
            DetFabric.Result r = f.run();
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(0x2222_2222_1111_1111L, f.peek(word, 0), "a store to the other half was lost");
            assertEquals(0x0500_0000_0007_0700L, f.peek(word, 8), "a byte store was lost");
        });
    }
}
