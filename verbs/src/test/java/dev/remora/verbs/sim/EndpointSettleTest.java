package dev.remora.verbs.sim;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blocking helper whose wait ends before its completion (a 150 ms round trip, a 15 ms timeout) leaves its request
 * unsettled, not forgotten: the request takes effect, and its late completion, collected by
 * {@link UnsettledRequest#settle(long)}, says so and carries its result. The endpoint's deadline bounds every wait.
 */
class EndpointSettleTest {
    /** Far above the timeout, so that a loaded machine cannot make the completion come in time. */
    private static final long RTT_NS = TimeUnit.MILLISECONDS.toNanos(150);
    private static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(15);

    private static SimFabric slowFabric() {
        return SimFabric.open(new SimContext().roundTripLatencyNs(RTT_NS));
    }

    @Test
    void shouldSettleATimedOutCompareAndSwapWithItsLateResult() {
        try (SimFabric fabric = slowFabric()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion word = home.allocate(8, Access.ALL);
            word.putLong(0, 7);
            try (Endpoint ep = Endpoint.open(client, new Endpoint.Context().operationTimeoutNs(TIMEOUT_NS))) {
                QueuePair qp = ep.queuePair(home.id());
                VerbsTimeoutException e = assertThrows(VerbsTimeoutException.class,
                    () -> ep.cas(word.remote(0), 7, 42));
                assertTrue(e.isIndeterminate());
                UnsettledRequest u = e.request();
                assertNotNull(u);
                assertEquals(UnsettledRequest.Outcome.PENDING, u.outcome());
                assertEquals(1, ep.unsettled().size());
                assertTrue(u.settle(TimeUnit.SECONDS.toNanos(5)), "the late completion is collected");
                assertEquals(UnsettledRequest.Outcome.SUCCEEDED, u.outcome());
                assertEquals(WcStatus.SUCCESS, u.status());
                assertEquals(7, u.value(), "the CAS's old value: it swapped");
                assertEquals(42, word.getLongVolatile(0), "the timed-out CAS took effect");
                assertTrue(ep.unsettled().isEmpty());
                assertSame(qp, ep.queuePair(home.id()), "a timeout does not replace the queue pair");
                assertEquals(0, ep.queuePairEpoch(home.id()));
            }
        }
    }

    @Test
    void shouldLetTheDeadlineCutAWaitShorterThanTheOperationTimeoutAndRefuseToPostPastIt() {
        try (SimFabric fabric = slowFabric()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion word = home.allocate(8, Access.ALL);
            try (Endpoint ep = Endpoint.open(client)) {
                assertEquals(Long.MAX_VALUE, ep.deadline());
                long previous = ep.deadline(ep.nanoTime() + TIMEOUT_NS);
                assertEquals(Long.MAX_VALUE, previous);
                VerbsTimeoutException e = assertThrows(VerbsTimeoutException.class, () -> ep.faa(word.remote(0), 1));
                assertNotNull(e.request(), "posted, so its outcome is unknown");
                assertTrue(e.getMessage().contains("deadline"), e.getMessage());
                // Past the deadline nothing is posted: a clean failure.
                VerbsTimeoutException late = assertThrows(VerbsTimeoutException.class,
                    () -> ep.faa(word.remote(0), 100));
                assertNull(late.request());
                assertFalse(late.isIndeterminate());
                ep.deadline(previous);
                assertTrue(e.request().settle(TimeUnit.SECONDS.toNanos(5)));
                assertEquals(0, e.request().value());
                assertEquals(1, ep.faa(word.remote(0), 1), "the second FETCH_ADD was never posted");
                assertEquals(2, word.getLongVolatile(0));
            }
        }
    }

    @Test
    void shouldKeepTheResultsOfTwoUnsettledRequestsApart() {
        try (SimFabric fabric = slowFabric()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion words = home.allocate(16, Access.ALL);
            words.putLong(0, 10);
            words.putLong(8, 20);
            try (Endpoint ep = Endpoint.open(client, new Endpoint.Context().operationTimeoutNs(TIMEOUT_NS))) {
                UnsettledRequest a = assertThrows(VerbsTimeoutException.class, () -> ep.faa(words.remote(0), 1))
                    .request();
                UnsettledRequest b = assertThrows(VerbsTimeoutException.class, () -> ep.faa(words.remote(8), 1))
                    .request();
                assertEquals(2, ep.unsettled().size());
                assertTrue(b.settle(TimeUnit.SECONDS.toNanos(5)));
                assertTrue(a.settle(TimeUnit.SECONDS.toNanos(5)));
                assertEquals(10, a.value());
                assertEquals(20, b.value());
            }
        }
    }

    @Test
    void shouldSettleARequestToACrashedPeerAsIndeterminate() {
        try (SimFabric fabric = SimFabric.open(new SimContext().roundTripLatencyNs(RTT_NS)
            .retryTimeoutNs(TimeUnit.MILLISECONDS.toNanos(400)))) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            MemoryRegion word = home.allocate(8, Access.ALL);
            try (Endpoint ep = Endpoint.open(client, new Endpoint.Context().operationTimeoutNs(TIMEOUT_NS))) {
                fabric.crash(home);
                UnsettledRequest u = assertThrows(VerbsTimeoutException.class, () -> ep.cas(word.remote(0), 0, 1))
                    .request();
                assertTrue(u.settle(TimeUnit.SECONDS.toNanos(5)), "the transport gives up and says so");
                assertEquals(UnsettledRequest.Outcome.INDETERMINATE, u.outcome());
                assertEquals(WcStatus.RETRY_EXC_ERR, u.status());
                assertThrows(IllegalStateException.class, u::value);
            }
        }
    }
}
