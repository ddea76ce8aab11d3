package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The blocking helpers of {@link Endpoint} on the deterministic fabric with a round-trip delay: with a 20 ms round
 * trip and a 15 ms operation timeout a CAS or FETCH_ADD throws {@link VerbsTimeoutException} and still takes effect;
 * with a 10 ms round trip it returns normally. The assertions hold whether a timed-out helper keeps its queue pair or
 * replaces it: they look only at the exception, the clock and memory.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DetEndpointTimeoutTest {
    private static final long MS = 1_000_000L;
    private static final int SEEDS = 30;
    private static final int HOME = 0;
    private static final int CLIENT = 1;

    /** What the client saw. */
    private static final class Seen {
        long start;
        long end;
        Long returned;
        VerbsTimeoutException timeout;
        boolean effectWhenGaveUp;
    }

    private record Outcome(Seen seen, long target, DetFabric.Result run) {
    }

    /**
     * One helper call from the client to a home word holding 5: {@code cas(5 -> 7)} or {@code faa(+2)}, both leaving
     * 7, under a 15 ms operation timeout.
     */
    private static Outcome helper(long seed, long roundTripNs, boolean cas) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).linkRoundTripNs(HOME, CLIENT, roundTripNs));
        Node home = f.addNode("home");
        Node client = f.addNode("client");
        MemoryRegion target = home.allocate(8, Access.ALL);
        target.putLong(0, 5);
        RemoteAddress word = target.remote(0);
        Seen seen = new Seen();
        f.spawn(client, "client", () -> {
            try (Endpoint ep = Endpoint.open(client, new Endpoint.Context().operationTimeoutNs(15 * MS))) {
                seen.start = ep.nanoTime();
                try {
                    seen.returned = cas ? ep.cas(word, 5, 7) : ep.faa(word, 2);
                } catch (VerbsTimeoutException e) {
                    seen.timeout = e;
                    seen.effectWhenGaveUp = f.peek(target, 0) == 7; // an oracle outside the model
                }
                seen.end = ep.nanoTime();
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        return new Outcome(seen, f.peek(target, 0), r);
    }

    private static void assertTimesOutAndLands(boolean cas) {
        String verb = cas ? "CAS" : "FETCH_ADD";
        int effectBefore = 0;
        int effectAfter = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = helper(seed, 20 * MS, cas);
            Seen s = o.seen();
            String at = "seed " + seed + ": ";
            assertTrue(s.timeout != null, at + "a " + verb + " with a 20 ms round trip returned " + s.returned
                + " within a 15 ms operation timeout, after " + (s.end - s.start) + " ns");
            assertTrue(s.timeout.getMessage().startsWith(verb + " at "), s.timeout.getMessage());
            long waited = s.end - s.start;
            assertTrue(waited >= 15 * MS && waited < 20 * MS, at + "gave up after " + waited + " ns");
            assertEquals(7, o.target(), at + "the timed-out " + verb + " took effect");
            if (s.effectWhenGaveUp) {
                effectBefore++;
            } else {
                effectAfter++;
            }
        }
        assertTrue(effectBefore > 0, "no seed let the " + verb + " land before the helper gave up");
        assertTrue(effectAfter > 0, "no seed let the " + verb + " land after the helper gave up");
    }

    @Test
    void shouldTimeOutACasWhoseRoundTripExceedsTheOperationTimeoutAndStillApplyIt() {
        assertTimesOutAndLands(true);
    }

    @Test
    void shouldTimeOutAFetchAddWhoseRoundTripExceedsTheOperationTimeoutAndStillApplyIt() {
        assertTimesOutAndLands(false);
    }

    @Test
    void shouldCompleteNormallyWhenTheRoundTripIsShorterThanTheOperationTimeout() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            for (boolean cas : new boolean[] {true, false}) {
                Outcome o = helper(seed, 10 * MS, cas);
                Seen s = o.seen();
                String at = "seed " + seed + (cas ? " CAS: " : " FETCH_ADD: ");
                assertNull(s.timeout, at + "a 10 ms round trip timed out");
                assertEquals(5, s.returned, at);
                long took = s.end - s.start;
                assertTrue(took >= 10 * MS && took < 15 * MS, at + "returned after " + took + " ns, not within the "
                    + "10 ms round trip and the 15 ms timeout");
                assertEquals(7, o.target(), at);
            }
        }
    }

    @Test
    void shouldReplayTheSameRunForTheSameSeed() {
        for (long seed : new long[] {2, 11, 23}) {
            Outcome a = helper(seed, 20 * MS, true);
            Outcome b = helper(seed, 20 * MS, true);
            assertTrue(a.seen().timeout != null, "seed " + seed + " timed out");
            assertEquals(a.run().traceHash(), b.run().traceHash(), "trace hash of seed " + seed);
            assertEquals(a.run().steps(), b.run().steps(), "steps of seed " + seed);
            assertEquals(a.seen().end, b.seen().end, "give-up time of seed " + seed);
            assertEquals(a.seen().effectWhenGaveUp, b.seen().effectWhenGaveUp, "effect order of seed " + seed);
        }
    }
}
