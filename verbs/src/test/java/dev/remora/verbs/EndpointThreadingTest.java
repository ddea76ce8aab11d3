package dev.remora.verbs;

import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An {@link Endpoint} is single-threaded: using it from two threads at once throws {@link IllegalStateException}
 * naming both threads (instead of returning one FETCH_ADD result twice, or deadlocking), while handing it from one
 * thread to another between calls stays legal.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EndpointThreadingTest {
    private static final int ITERATIONS = 20_000;
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(2);
    /** Stop once this many overlapping calls were detected: enough evidence. */
    private static final int ENOUGH_DETECTIONS = 50;

    /** What one hammering thread saw. */
    private static final class Hammer {
        final long[] results = new long[ITERATIONS];
        int successes;
        int rejected;
        String firstMessage;
        Throwable unexpected;
    }

    @ParameterizedTest(name = "round trip {0} ns")
    @ValueSource(longs = {0, 25_000})
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldRejectAnEndpointUsedByTwoThreadsAtOnce(long rttNs) throws Exception {
        try (SimFabric fabric = SimFabric.open(new SimContext().roundTripLatencyNs(rttNs))) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion word = home.allocate(8, Access.ALL);
            RemoteAddress counter = word.remote(0);
            Endpoint shared = Endpoint.open(client, new Endpoint.Context()
                .operationTimeoutNs(TimeUnit.SECONDS.toNanos(2)));
            Watchdog watchdog = new Watchdog("two threads on one endpoint, round trip " + rttNs + " ns",
                TimeUnit.SECONDS.toNanos(3), TimeUnit.SECONDS.toNanos(10));
            AtomicInteger detections = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Hammer[] hammers = {new Hammer(), new Hammer()};
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Hammer h = hammers[t];
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                        long end = System.nanoTime() + RUN_NS;
                        for (int i = 0; i < ITERATIONS && System.nanoTime() < end
                            && detections.get() < ENOUGH_DETECTIONS; i++) {
                            try {
                                h.results[h.successes] = shared.faa(counter, 1);
                                h.successes++;
                            } catch (IllegalStateException e) {
                                if (h.firstMessage == null) {
                                    h.firstMessage = e.getMessage();
                                }
                                h.rejected++;
                                detections.incrementAndGet();
                            }
                            watchdog.progress();
                        }
                    } catch (Throwable e) {
                        h.unexpected = e;
                    }
                }, "endpoint-user-" + t);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            go.countDown();
            watchdog.join(threads);
            Set<Long> distinct = new HashSet<>();
            int successes = 0;
            String message = null;
            for (Hammer h : hammers) {
                if (h.unexpected != null) {
                    throw new AssertionError("a thread failed otherwise than by detection", h.unexpected);
                }
                for (int i = 0; i < h.successes; i++) {
                    assertTrue(distinct.add(h.results[i]), "two FETCH_ADDs returned the same old value "
                        + h.results[i]);
                }
                successes += h.successes;
                message = message == null ? h.firstMessage : message;
            }
            assertTrue(detections.get() > 0, "two threads used one endpoint at once " + successes
                + " times and nothing noticed");
            assertTrue(message.contains("endpoint-user-0") && message.contains("endpoint-user-1"),
                "the message names both threads: " + message);
            assertEquals(successes, word.getLongVolatile(0), "a rejected call posted nothing");
            assertEquals(successes, shared.faa(counter, 0), "the endpoint works for the next single user");
            shared.close();
        }
    }

    @Test
    void shouldAllowHandingAnEndpointFromThreadToThread() throws Exception {
        try (SimFabric fabric = SimFabric.open(SimContext.twoMicrosecondRoundTrip())) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion word = home.allocate(16, Access.ALL);
            RemoteAddress counter = word.remote(0);
            Endpoint ep = Endpoint.open(client);
            Throwable[] failure = new Throwable[1];
            for (int round = 0; round < 3; round++) {
                long base = 100L * round;
                Thread next = new Thread(() -> {
                    try {
                        for (int i = 0; i < 100; i++) {
                            assertEquals(base + i, ep.faa(counter, 1));
                        }
                        assertThrows(RemoteAccessException.class, () -> ep.faa(word.remote(4), 1),
                            "a failing call releases the endpoint too");
                    } catch (Throwable e) {
                        failure[0] = e;
                    }
                }, "endpoint-holder-" + round);
                next.start();
                next.join(TimeUnit.SECONDS.toMillis(10));
                if (next.isAlive()) {
                    throw new AssertionError("round " + round + " did not finish\n" + Watchdog.dump(List.of(next)));
                }
                if (failure[0] != null) {
                    throw new AssertionError("round " + round, failure[0]);
                }
            }
            assertEquals(300, ep.faa(counter, 1), "back on the thread that opened it");
            assertEquals(301, ep.readLong(counter));
            ep.close();
        }
    }
}
