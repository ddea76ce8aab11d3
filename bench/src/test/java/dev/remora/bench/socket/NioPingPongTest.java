package dev.remora.bench.socket;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link NioPingPong#run} against an in-JVM server of each kind: the count, sane values, and a clean stop. */
@Timeout(20)
class NioPingPongTest {
    @ParameterizedTest
    @EnumSource(NioPingPong.ServerKind.class)
    void runRecordsEachMeasuredRoundTrip(NioPingPong.ServerKind kind) throws Exception {
        NioPingPong.Server server = NioPingPong.Server.open(kind);
        Thread t = new Thread(() -> {
            try {
                server.serve();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "server-" + kind);
        t.start();
        try {
            Histogram h = NioPingPong.run("127.0.0.1", server.port(), 200, 2_000);
            assertEquals(2_000, h.getTotalCount());
            assertTrue(h.getMinValue() > 0, "a round trip takes time");
            // A second client after the first one left: the server serves connections one after another.
            assertEquals(10, NioPingPong.run("127.0.0.1", server.port(), 0, 10).getTotalCount());
        } finally {
            server.close();
            t.join(5_000);
        }
        assertFalse(t.isAlive(), "close() stops serve()");
    }
}
