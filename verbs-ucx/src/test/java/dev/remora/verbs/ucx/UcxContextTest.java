package dev.remora.verbs.ucx;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The UCX fabric's settings read from properties and validated: its own names beside the ones every listening
 * provider shares, its defaults and limits (no UCX needed to run this).
 */
class UcxContextTest {

    @Test
    void shouldReadItsOwnAndTheSharedProperties() {
        UcxContext c = UcxContext.fromProperties(Map.of("tls", "shm", "ordering", "Flush", "idleSpinNs", "1000",
            "connectTimeoutNs", "3", "maxSendBytes", "1048576")).conclude();
        assertEquals("shm", c.transports());
        assertEquals(UcxContext.Ordering.FLUSH, c.ordering());
        assertEquals(1000, c.idleSpinNs());
        assertEquals(3, c.connectTimeoutNs());
        assertEquals(1 << 20, c.maxSendBytes());
    }

    @Test
    void shouldKeepTheDefaultsOfTheUcxFabric() {
        UcxContext c = new UcxContext();
        assertNull(c.transports());
        assertEquals(UcxContext.Ordering.AUTO, c.ordering());
        assertEquals(5_000_000_000L, c.connectTimeoutNs());
        assertEquals(64 * 1024, c.maxSendBytes());
        assertEquals(256, c.maxInlineBytes());
    }

    @Test
    void shouldNameWhatIsWrong() {
        assertEquals("ucx fabric property ordering=sometimes is not one of auto, fence, flush",
            assertThrows(IllegalArgumentException.class,
                () -> UcxContext.fromProperties(Map.of("ordering", "sometimes"))).getMessage());
        assertEquals("ucx fabric property idleSpinNs=x is not a number", assertThrows(IllegalArgumentException.class,
            () -> UcxContext.fromProperties(Map.of("idleSpinNs", "x"))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> UcxContext.fromProperties(Map.of("roundTripDelayNs", "1"))).getMessage()
            .startsWith("unknown ucx fabric property 'roundTripDelayNs'"));
        assertEquals("maxInlineBytes must be 0..4096", assertThrows(IllegalArgumentException.class,
            () -> new UcxContext().maxInlineBytes(4097).conclude()).getMessage());
        assertEquals("maxSendBytes must be 0..1048576", assertThrows(IllegalArgumentException.class,
            () -> new UcxContext().maxSendBytes((1 << 20) + 1).conclude()).getMessage());
        assertEquals("tls must name UCX transports, e.g. shm or tcp", assertThrows(IllegalArgumentException.class,
            () -> new UcxContext().transports(" ").conclude()).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new UcxContext().host("0.0.0.0").conclude())
            .getMessage().startsWith("ucx fabric host 0.0.0.0 is the wildcard address"));
    }
}
