package dev.remora.verbs.socket;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket fabric's settings read from properties and validated: the names every listening provider shares
 * ({@link dev.remora.verbs.spi.NetworkContext}) and the socket fabric's own, each a clear error when wrong.
 */
class SocketContextTest {

    @Test
    void shouldReadEveryProperty() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("host", "localhost");
        p.put("port", "7000");
        p.put("secret", "s3cret");
        p.put("retryTimeoutNs", "5");
        p.put("rnrTimeoutNs", "6");
        p.put("connectTimeoutNs", "7");
        p.put("sendQueueDepth", "8");
        p.put("maxInlineBytes", "9");
        p.put("maxSendBytes", "10");
        p.put("roundTripDelayNs", "11");
        SocketContext c = SocketContext.fromProperties(p).conclude();
        assertEquals("localhost", c.host());
        assertEquals(7000, c.port());
        assertTrue(c.hasSecret());
        assertEquals(5, c.retryTimeoutNs());
        assertEquals(6, c.rnrTimeoutNs());
        assertEquals(7, c.connectTimeoutNs());
        assertEquals(8, c.sendQueueDepth());
        assertEquals(9, c.maxInlineBytes());
        assertEquals(10, c.maxSendBytes());
        assertEquals(11, c.roundTripDelayNs());
        assertEquals("s3cret", new String(c.secretBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void shouldKeepTheDefaultsOfTheSocketFabric() {
        SocketContext c = new SocketContext();
        assertEquals(SocketContext.HOST_DEFAULT, c.host());
        assertEquals(SocketContext.PORT_DEFAULT, c.port());
        assertEquals(2_000_000_000L, c.connectTimeoutNs());
        assertEquals(1_000_000_000L, c.retryTimeoutNs());
        assertEquals(Wire.CHUNK, c.maxSendBytes());
        assertEquals(0, c.roundTripDelayNs());
    }

    @Test
    void shouldNameAnUnknownPropertyAndTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SocketContext.fromProperties(Map.of("retryTimeoutMs", "5")));
        assertTrue(e.getMessage().startsWith("unknown socket fabric property 'retryTimeoutMs' (known: "
            + "[connectTimeoutNs,"), e.getMessage());
        assertTrue(e.getMessage().contains("roundTripDelayNs"), e.getMessage());
    }

    @Test
    void shouldNameAMalformedNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SocketContext.fromProperties(Map.of("port", "seven")));
        assertEquals("socket fabric property port=seven is not a number", e.getMessage());
    }

    @Test
    void shouldRefuseValuesOutOfRange() {
        assertEquals("retryTimeoutNs must be positive, not 0", assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().retryTimeoutNs(0).conclude()).getMessage());
        assertEquals("roundTripDelayNs must not be negative", assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().roundTripDelayNs(-1).conclude()).getMessage());
        assertEquals("maxInlineBytes must be 0.." + Wire.CHUNK, assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().maxInlineBytes(Wire.CHUNK + 1).conclude()).getMessage());
        assertEquals("maxSendBytes must be 0.." + Wire.CHUNK, assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().maxSendBytes(-1).conclude()).getMessage());
        assertEquals("port must be 0..65535, not 65536", assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().port(65536).conclude()).getMessage());
    }

    @Test
    void shouldRefuseTheWildcardAddressAndAnOpenHostWithoutSecret() {
        String wildcard = assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().host("0.0.0.0").conclude()).getMessage();
        assertTrue(wildcard.startsWith("socket fabric host 0.0.0.0 is the wildcard address"), wildcard);
        String open = assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().host("192.0.2.1").secret(null).conclude()).getMessage();
        assertTrue(open.startsWith("listening on 192.0.2.1 (not loopback) needs a cluster secret"), open);
        assertEquals("192.0.2.1", new SocketContext().host("192.0.2.1").secret("x").conclude().host());
    }
}
