package dev.remora.verbs.sim;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.Watchdog;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Eight threads drive the fast fabric through the blocking helpers of {@link Endpoint} and through raw
 * {@link CompletionQueue#await} loops, under every round-trip preset from none to 100 µs, with one and two NIC
 * threads. Each case is bounded in operations and in time; a {@link Watchdog} fails it with a thread dump as soon as
 * no thread completed anything for {@link #STALL_NS}, so a lock-order deadlock or a lost wake-up shows up as a
 * failure naming the stuck threads, not as a hung build. Every count is checked exactly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimFabricStallTest {
    private static final long[] ROUND_TRIPS_NS = {0, 2_000, 10_000, 25_000, 40_000, 100_000};
    private static final int THREADS = 8;
    /** Each case stops issuing new operations after this long. */
    private static final long RUN_NS = TimeUnit.MILLISECONDS.toNanos(600);
    private static final int MAX_ITERATIONS = 4_000;
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(3);
    private static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(10);
    /** A single raw await waits longer than the stall limit, so a lost wake-up is reported by the watchdog. */
    private static final long AWAIT_NS = TimeUnit.SECONDS.toNanos(6);

    static Stream<Arguments> presets() {
        List<Arguments> all = new ArrayList<>();
        for (long rtt : ROUND_TRIPS_NS) {
            for (int nics = 1; nics <= 2; nics++) {
                all.add(Arguments.of(rtt, nics));
            }
        }
        return all.stream();
    }

    private static SimFabric open(long rttNs, int nicThreads) {
        return SimFabric.open(new SimContext().roundTripLatencyNs(rttNs).nicThreads(nicThreads));
    }

    /** What one worker did; read by the test thread after joining it. */
    private static final class Tally {
        final long[] fetched = new long[MAX_ITERATIONS * 4];
        int fetches;
        long casWins;
        Throwable failure;
    }

    @ParameterizedTest(name = "round trip {0} ns, {1} NIC thread(s)")
    @MethodSource("presets")
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldNeverStallTheBlockingHelpers(long rttNs, int nicThreads) throws Exception {
        try (SimFabric fabric = open(rttNs, nicThreads)) {
            Node home = fabric.addNode("home");
            Node[] clients = {fabric.addNode("c1"), fabric.addNode("c2")};
            MemoryRegion words = home.allocate(8 * (2 + THREADS), Access.ALL);
            RemoteAddress counter = words.remote(0);
            RemoteAddress casWord = words.remote(8);
            Watchdog watchdog = new Watchdog("blocking helpers, round trip " + rttNs + " ns, " + nicThreads
                + " NIC thread(s)", STALL_NS, LIMIT_NS);
            Tally[] tallies = new Tally[THREADS];
            List<Thread> workers = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < THREADS; t++) {
                Tally tally = tallies[t] = new Tally();
                Node from = clients[t % 2];
                RemoteAddress mine = words.remote(16 + 8L * t);
                workers.add(worker("stall-helpers-" + t, tally, () -> {
                    try (Endpoint ep = Endpoint.open(from)) {
                        go.await();
                        long end = System.nanoTime() + RUN_NS;
                        long guess = 0;
                        for (int i = 1; i <= MAX_ITERATIONS && System.nanoTime() < end; i++) {
                            tally.fetched[tally.fetches++] = ep.faa(counter, 1);
                            watchdog.progress();
                            ep.writeLong(mine, i);
                            watchdog.progress();
                            long back = ep.readLong(mine);
                            if (back != i) {
                                throw new AssertionError("read back " + back + " after writing " + i);
                            }
                            watchdog.progress();
                            long seen = ep.cas(casWord, guess, guess + 1);
                            if (seen == guess) {
                                tally.casWins++;
                                guess++;
                            } else {
                                guess = seen;
                            }
                            watchdog.progress();
                        }
                    }
                }));
            }
            go.countDown();
            watchdog.join(workers);
            checkFetchAdds(tallies, words.getLongVolatile(0));
            long wins = 0;
            for (Tally t : tallies) {
                wins += t.casWins;
            }
            assertEquals(wins, words.getLongVolatile(8), "every successful CAS incremented the word exactly once");
        }
    }

    @ParameterizedTest(name = "round trip {0} ns, {1} NIC thread(s)")
    @MethodSource("presets")
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldNeverStallRawCompletionQueueAwait(long rttNs, int nicThreads) throws Exception {
        try (SimFabric fabric = open(rttNs, nicThreads)) {
            Node home = fabric.addNode("home");
            Node[] clients = {fabric.addNode("c1"), fabric.addNode("c2")};
            MemoryRegion words = home.allocate(64, Access.ALL);
            RemoteAddress counter = words.remote(0);
            Watchdog watchdog = new Watchdog("raw CompletionQueue.await, round trip " + rttNs + " ns, " + nicThreads
                + " NIC thread(s)", STALL_NS, LIMIT_NS);
            Tally[] tallies = new Tally[THREADS];
            List<Thread> workers = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < THREADS; t++) {
                Tally tally = tallies[t] = new Tally();
                Node from = clients[t % 2];
                workers.add(worker("stall-await-" + t, tally, () -> {
                    CompletionQueue cq = from.createCompletionQueue(16);
                    QueuePair qp = from.connect(home, cq);
                    MemoryRegion local = from.allocate(64, Access.LOCAL_WRITE);
                    Completion[] out = {new Completion(), new Completion()};
                    WorkRequest[] list = new WorkRequest[4];
                    for (int k = 0; k < list.length; k++) {
                        list[k] = new WorkRequest().faa(local, 8L * k, counter, 1);
                    }
                    go.await();
                    long end = System.nanoTime() + RUN_NS;
                    for (int i = 1; i <= MAX_ITERATIONS && System.nanoTime() < end; i++) {
                        // Every fourth iteration posts three unsignaled FETCH_ADDs and a signaled one in one doorbell.
                        int batch = i % 4 == 0 ? 4 : 1;
                        for (int k = 0; k < batch; k++) {
                            list[k].wrId(i).flags(k == batch - 1 ? WorkRequest.SIGNALED : 0);
                        }
                        if (qp.post(list, batch) != QueuePair.POSTED) {
                            throw new AssertionError("queue full with nothing outstanding");
                        }
                        int n;
                        while ((n = cq.await(out, AWAIT_NS)) == 0) {
                            Thread.onSpinWait();
                        }
                        if (n != 1 || out[0].status() != WcStatus.SUCCESS || out[0].wrId() != i) {
                            throw new AssertionError("iteration " + i + ": got " + n + " completions, first " + out[0]);
                        }
                        for (int k = 0; k < batch; k++) {
                            tally.fetched[tally.fetches++] = local.getLong(8L * k);
                        }
                        watchdog.progress();
                    }
                    qp.close();
                    cq.close();
                }));
            }
            go.countDown();
            watchdog.join(workers);
            checkFetchAdds(tallies, words.getLongVolatile(0));
        }
    }

    /** A task that may throw, run by a worker thread. */
    private interface Body {
        void run() throws Exception;
    }

    private static Thread worker(String name, Tally tally, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                tally.failure = e;
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Every FETCH_ADD returned a distinct old value, and together they are exactly the counter's final value. */
    private static void checkFetchAdds(Tally[] tallies, long counter) {
        Set<Long> distinct = new HashSet<>();
        long total = 0;
        for (int t = 0; t < tallies.length; t++) {
            Tally tally = tallies[t];
            if (tally.failure != null) {
                throw new AssertionError("worker " + t + " failed", tally.failure);
            }
            assertTrue(tally.fetches > 0, "worker " + t + " completed no FETCH_ADD");
            for (int i = 0; i < tally.fetches; i++) {
                long v = tally.fetched[i];
                assertTrue(distinct.add(v), "two FETCH_ADDs returned the same old value " + v);
            }
            total += tally.fetches;
        }
        assertEquals(total, counter, "the counter equals the number of FETCH_ADDs that completed");
        for (long v = 0; v < total; v++) {
            assertTrue(distinct.contains(v), "no FETCH_ADD returned " + v);
        }
    }
}
