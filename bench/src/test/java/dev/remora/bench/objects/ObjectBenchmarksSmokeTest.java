package dev.remora.bench.objects;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each objects benchmark with tiny parameters: its rows are printed, and the round-trip check passes. */
class ObjectBenchmarksSmokeTest {

    private static String printed(java.util.function.Consumer<PrintStream> body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            body.accept(out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(20)
    void roundTripsStayWithinTheStatedCountsOnBothFabrics() {
        boolean[] ok = {false};
        String out = printed(o -> ok[0] = ObjectRoundTrips.run(o, 5));
        assertTrue(ok[0], out);
        assertTrue(out.contains("every method within its stated round trips"), out);
        for (String method : List.of("RemoteRegister.set", "CasRegister.getAndSet (stale guess)",
            "SingleWriterVersionedRegister.set (handle's first)", "MultiWriterVersionedRegister.set (stale guess)",
            "RemoteCounter.getAndAdd", "ShardedCounter.get", "RemoteBarrier.await", "SpscRing.offer (batch",
            "SpscRing.poll", "SpscRing.offer (64 B, wrapping", "MpscRing.offer (64 B)", "MpscRing.poll",
            "MpscRing.offer (64 B, wrapping")) {
            assertEquals(2, out.lines().filter(l -> l.contains(method) && l.endsWith(" ok")).count(),
                method + " on the fast and the socket fabric:\n" + out);
        }
    }

    @Test
    void aCountAboveTheStatedOneFailsTheCheck() {
        ObjectRoundTrips.Row r = new ObjectRoundTrips.Row("fast", "x", 1, 1.5, 2, 2, 2);
        assertTrue(!r.withinStated());
        String out = printed(o -> ObjectRoundTrips.print(o, List.of(r)));
        assertTrue(out.contains("ABOVE STATED"), out);
    }

    @Test
    @Timeout(20)
    void ringThroughputPrintsEveryRingAndTheBatchRatio() throws Exception {
        List<RingThroughput.Row> rows = RingThroughput.measure(15);
        assertEquals(14, rows.size());
        for (RingThroughput.Row r : rows) {
            assertTrue(r.messages() > 0 && r.rate() > 0, r.toString());
        }
        String out = printed(o -> RingThroughput.print(o, rows));
        assertEquals(1 + 14 + 2, out.lines().count(), out);
        assertTrue(out.contains("MPSC") && out.contains("AGRONA_MANY_TO_ONE") && out.contains("batched/single"), out);
    }

    @Test
    @Timeout(20)
    void versionedRegisterReadsPrintsEveryCase() throws Exception {
        List<VersionedRegisterReads.Row> rows = VersionedRegisterReads.measure(20, 64);
        assertEquals(6, rows.size());
        for (VersionedRegisterReads.Row r : rows) {
            assertTrue(r.reads() > 0, r.toString());
            assertTrue(r.writers() == 0 ? r.writes() == 0 : r.writes() > 0, r.toString());
            assertTrue(r.retriesPerRead() >= 0, r.toString());
        }
        assertEquals(0, rows.get(1).retriesPerRead(), "no writer, no torn snapshot");
        String out = printed(o -> VersionedRegisterReads.print(o, rows));
        assertEquals(7, out.lines().count(), out);
    }
}
