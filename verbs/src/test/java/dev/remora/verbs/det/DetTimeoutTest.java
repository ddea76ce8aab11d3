package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Timeouts of waits on the deterministic fabric's virtual clock, at the level of the completion queue. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DetTimeoutTest {
    private static final long MS = 1_000_000L;

    /** What the client saw. */
    private static final class Seen {
        long posted;
        int firstWait = -1;
        long gaveUp;
        int laterWait = -1;
        WcStatus status;
        long busyStepsWhenGaveUp = -1;
    }

    @Test
    void shouldTimeOutAWaitWhileAnotherThreadStepsWithoutAnyDelay() {
        // No round-trip delay: the only completion the waiter can get comes from a request another thread posts on a
        // queue pair of the same completion queue after about 30 ms of its own steps.
        for (long seed = 1; seed <= 3; seed++) {
            DetFabric f = DetFabric.open(new DetContext().seed(seed).nanosPerStep(10_000));
            Node home = f.addNode("home");
            Node client = f.addNode("client");
            MemoryRegion target = home.allocate(8, Access.ALL);
            MemoryRegion local = client.allocate(16, Access.ALL);
            CompletionQueue cq = client.createCompletionQueue(4);
            QueuePair qp = client.connect(home, cq);
            int stores = 1_500;
            long[] busy = new long[1];
            Seen seen = new Seen();
            f.spawn(client, "poster", () -> {
                for (int i = 0; i < stores; i++) {
                    local.putLong(8, i);
                    busy[0]++;
                }
                qp.post(new WorkRequest().faa(local, 0, target.remote(0), 1).flags(WorkRequest.SIGNALED));
            });
            f.spawn(client, "waiter", () -> {
                Completion[] out = {new Completion()};
                seen.posted = cq.nanoTime();
                seen.firstWait = cq.await(out, 15 * MS);
                seen.gaveUp = cq.nanoTime();
                seen.busyStepsWhenGaveUp = busy[0];
                seen.laterWait = cq.await(out, 1_000 * MS);
                seen.status = out[0].status();
            });
            DetFabric.Result r = f.run();
            String at = "seed " + seed + ": ";
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            assertEquals(0, seen.firstWait, at + "the 15 ms wait returned only after " + (seen.gaveUp - seen.posted)
                + " ns");
            long gaveUp = seen.gaveUp - seen.posted;
            assertTrue(gaveUp >= 15 * MS && gaveUp < 16 * MS, at + "gave up after " + gaveUp + " ns");
            assertTrue(seen.busyStepsWhenGaveUp < stores, at + "the other thread had finished before the timeout");
            assertEquals(1, seen.laterWait, at);
            assertEquals(WcStatus.SUCCESS, seen.status, at);
        }
    }
}
