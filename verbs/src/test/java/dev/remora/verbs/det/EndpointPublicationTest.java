package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.PublicationLostException;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.RemoteAccessException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The endpoint never hides a replaced queue pair that carried unplaced WRITEs: on the deterministic fabric a thread
 * WRITEs a region to another node (eight WRITEs in one doorbell, placed in order, R6), its queue pair is forced to ERROR one step after the WRITE was acknowledged, and
 * the thread flushes. The flush READ goes on a new queue pair, which orders nothing before the old one's WRITEs (R10),
 * so a flush that returned normally would claim a publication it does not have.
 */
class EndpointPublicationTest {
    /** Eight WRITEs of 64 words (the most the deterministic fabric moves in one request), in one doorbell. */
    private static final int WRITES = 8;
    private static final int WORDS = WRITES * 64;
    private static final int SEEDS = 12;

    /** What one run saw: the step right after the WRITE was acknowledged, the queue pair it used, the flush. */
    private record Run(long ackStep, int qpNumber, boolean flushReturned, boolean publicationLost, int placedAtFlush,
                       int[] lostNodes) {
    }

    private static Run run(long seed, FaultPlan faults) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults).maxSteps(2_000_000));
        Node client = f.addNode("client");
        Node data = f.addNode("data");
        MemoryRegion target = data.allocate(WORDS * 8L, Access.ALL);
        long[] ackStep = new long[1];
        int[] qp = new int[1];
        boolean[] returned = new boolean[1];
        boolean[] lost = new boolean[1];
        int[] placed = {-1};
        int[][] lostNodes = {new int[0]};
        f.spawn(client, "writer", () -> {
            try (Endpoint ep = Endpoint.open(client)) {
                MemoryRegion source = client.allocate(WORDS * 8L, Access.LOCAL_WRITE);
                for (int i = 0; i < WORDS; i++) {
                    source.putLong(i * 8L, i + 1);
                }
                QueuePair q = ep.queuePair(data.id());
                qp[0] = q.qpNumber();
                WaitTag tag = ep.newTag("writes");
                WorkRequest[] writes = new WorkRequest[WRITES];
                for (int w = 0; w < WRITES; w++) {
                    writes[w] = new WorkRequest().write(source, w * 512L, 512, target.remote(w * 512L));
                }
                ep.markWritten(target.remote(0));
                assertEquals(QueuePair.POSTED, tag.post(q, writes, WRITES));
                if (tag.await(Long.MAX_VALUE) != WaitStatus.COMPLETED) {
                    return; // the fault came before the WRITEs' completions: the caller knows they failed
                }
                ackStep[0] = f.steps();
                try {
                    ep.flush(-1);
                    returned[0] = true;
                } catch (PublicationLostException e) {
                    lost[0] = true;
                    lostNodes[0] = e.nodeIds();
                } catch (RemoteAccessException e) {
                    // the flush READ itself failed (the fault came after it was posted): not a return either
                }
                int n = 0;
                for (int i = 0; i < WORDS; i++) {
                    n += f.peek(target, i * 8L) == i + 1 ? 1 : 0;
                }
                placed[0] = n;
                source.deregister();
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), () -> "seed " + seed + " did not finish cleanly: " + r);
        return new Run(ackStep[0], qp[0], returned[0], lost[0], placed[0], lostNodes[0]);
    }

    @Test
    void shouldNeverReturnFromAFlushWithWritesOfAReplacedQueuePairUnplaced() {
        int lostSeen = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Run healthy = run(seed, FaultPlan.NONE);
            assertTrue(healthy.flushReturned(), "seed " + seed + ": a flush without faults returns");
            assertEquals(WORDS, healthy.placedAtFlush(), "seed " + seed + ": a returned flush means every word placed");
            // Faults from just before the WRITE's completion is polled to just after the thread resumed.
            for (long at = healthy.ackStep() - 3; at <= healthy.ackStep() + 1; at++) {
                Run faulted = run(seed, FaultPlan.of(new FaultPlan.QueuePairError(at, healthy.qpNumber())));
                if (faulted.flushReturned()) {
                    assertEquals(WORDS, faulted.placedAtFlush(), "seed " + seed + ": flush returned normally with "
                        + faulted.placedAtFlush() + " of " + WORDS + " words placed after its queue pair was replaced");
                } else if (faulted.publicationLost()) {
                    assertArrayEquals(new int[] {1}, faulted.lostNodes(), "the data node is named");
                    lostSeen++;
                }
            }
        }
        assertTrue(lostSeen > 0, "no seed replaced a queue pair with unplaced WRITEs: the test did not test anything");
    }
}
