package dev.remora.verbs.sim;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.Watchdog;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An unexpected exception inside a request's execution (injected through {@link SimQueuePair#afterEffect}, after the
 * request's memory effect) becomes that request's error completion: the effect happened once and is never repeated,
 * the queue pair goes to ERROR, later requests flush, and whichever thread executed it (the posting thread with no
 * latency, a NIC thread with latency) carries on serving other queue pairs.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SimExecutionFaultTest {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(3);

    @ParameterizedTest(name = "round trip {0} ns")
    @ValueSource(longs = {0, 25_000})
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldTurnAnExceptionAfterTheEffectIntoOneErrorCompletionAndFlushTheRest(long rttNs) {
        try (SimFabric fabric = SimFabric.open(new SimContext().roundTripLatencyNs(rttNs).nicThreads(1))) {
            Node n1 = fabric.addNode("N1");
            Node n2 = fabric.addNode("N2");
            MemoryRegion target = n2.allocate(64, Access.ALL);
            MemoryRegion local = n1.allocate(64, Access.LOCAL_WRITE);
            CompletionQueue cq = n1.createCompletionQueue(16);
            SimQueuePair qp = (SimQueuePair) n1.connect(n2, cq);
            AtomicInteger calls = new AtomicInteger();
            String[] faultingThread = new String[1];
            qp.afterEffect = wrId -> {
                calls.incrementAndGet();
                if (wrId == 2) {
                    faultingThread[0] = Thread.currentThread().getName();
                    throw new IllegalStateException("injected fault after the effect of request 2");
                }
            };
            local.putLong(32, 77);
            WorkRequest[] list = {
                new WorkRequest().faa(local, 0, target.remote(0), 1).wrId(1).flags(WorkRequest.SIGNALED),
                new WorkRequest().faa(local, 8, target.remote(0), 1).wrId(2),
                new WorkRequest().faa(local, 16, target.remote(0), 1).wrId(3),
                new WorkRequest().write(local, 32, 8, target.remote(8)).wrId(4).flags(WorkRequest.SIGNALED),
            };
            assertEquals(QueuePair.POSTED, qp.post(list, 4), "the fault does not escape post");
            if (rttNs > 0) {
                // Nobody polls until the fault has happened, so the NIC thread executes the requests, not a poller.
                long deadline = System.nanoTime() + WAIT_NS;
                while (calls.get() < 2) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the NIC thread did not execute the requests within "
                            + WAIT_NS / 1_000_000 + " ms\n" + Watchdog.dump(List.of()));
                    }
                    Thread.yield();
                }
            }
            List<Completion> got = take(cq, 4);
            assertEquals(rttNs > 0 ? "remora-sim-nic-0" : Thread.currentThread().getName(), faultingThread[0],
                "the thread that executed the faulting request");
            assertEquals(List.of(1L, 2L, 3L, 4L), wrIds(got), "completions in posting order");
            assertEquals(WcStatus.SUCCESS, got.get(0).status());
            assertEquals(WcStatus.GENERAL_ERR, got.get(1).status(), "the faulting request reports GENERAL_ERR");
            assertEquals(WcStatus.WR_FLUSH_ERR, got.get(2).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, got.get(3).status());
            assertEquals(QpState.ERROR, qp.state());
            assertEquals("injected fault after the effect of request 2", qp.executionFailure().getMessage(),
                "the queue pair keeps the exception");
            assertEquals(2, target.getLongVolatile(0), "requests 1 and 2 added once each, the flushed one not at all");
            assertEquals(0, target.getLongVolatile(8), "the flushed WRITE did not land");

            WorkRequest later = new WorkRequest().faa(local, 0, target.remote(0), 1).wrId(5)
                .flags(WorkRequest.SIGNALED);
            for (int i = 0; i < 3; i++) {
                assertEquals(QueuePair.POSTED, qp.post(later));
                Completion c = take(cq, 1).get(0);
                assertEquals(WcStatus.WR_FLUSH_ERR, c.status(), "a later request flushes");
            }
            assertEquals(2, target.getLongVolatile(0), "later posts and polls never execute request 2 again");
            assertEquals(2, calls.get(), "two effects happened: requests 1 and 2");

            // The thread that hit the fault still serves other queue pairs (with latency: the only NIC thread).
            CompletionQueue other = n1.createCompletionQueue(4);
            QueuePair healthy = n1.connect(n2, other);
            assertEquals(QueuePair.POSTED, healthy.post(new WorkRequest().faa(local, 40, target.remote(16), 5)
                .wrId(9).flags(WorkRequest.SIGNALED)));
            Completion c = take(other, 1).get(0);
            assertEquals(WcStatus.SUCCESS, c.status());
            assertEquals(5, target.getLongVolatile(16));
            if (rttNs > 0) {
                assertTrue(nicThreadAlive(), "the NIC thread survived\n" + Watchdog.dump(List.of()));
            }
        }
    }

    private static boolean nicThreadAlive() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("remora-sim-nic-0") && t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /** Exactly {@code n} completions within {@link #WAIT_NS}, or a failure with the fabric's threads' stacks. */
    private static List<Completion> take(CompletionQueue cq, int n) {
        Completion[] out = {new Completion(), new Completion(), new Completion(), new Completion()};
        List<Completion> got = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT_NS;
        while (got.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("expected " + n + " completions within " + WAIT_NS / 1_000_000 + " ms, got "
                    + got + "\n" + Watchdog.dump(List.of()));
            }
            int k = cq.await(out, left);
            for (int i = 0; i < k; i++) {
                got.add(new Completion().copyFrom(out[i]));
            }
        }
        return got;
    }

    private static List<Long> wrIds(List<Completion> cs) {
        List<Long> ids = new ArrayList<>();
        for (Completion c : cs) {
            ids.add(c.wrId());
        }
        return ids;
    }
}
