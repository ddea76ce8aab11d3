package dev.remora.verbs.socket;

import dev.remora.verbs.spi.NetworkContext;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Settings of the socket fabric, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and
 * defaults: those of every fabric whose nodes listen for other processes ({@link NetworkContext}: host, port,
 * secret, timeouts, send queue limits; INLINE and SEND payloads up to a 64 KiB frame), and an injected round trip
 * for tests. Every time carries its unit in its name. {@link #conclude()} validates.
 */
public final class SocketContext extends NetworkContext<SocketContext> {
    /** Default time to establish a connection, handshake included: 2 s. */
    public static final long CONNECT_TIMEOUT_NS_DEFAULT = 2_000_000_000L;
    /** Property name of {@link #roundTripDelayNs(long)}. */
    public static final String ROUND_TRIP_DELAY_NS_PROP_NAME = "roundTripDelayNs";

    private long roundTripDelayNs;

    /** Creates a context with the defaults (the secret from {@value #SECRET_ENV} if set). */
    public SocketContext() {
        super(SocketFabricProvider.NAME, CONNECT_TIMEOUT_NS_DEFAULT, Wire.CHUNK, Wire.CHUNK);
    }

    /**
     * Reads the properties this class names; an unknown name is an error, so that a typo is not silently ignored.
     *
     * @param properties property names and values
     * @return the settings
     * @throws IllegalArgumentException for an unknown name or a malformed value
     */
    public static SocketContext fromProperties(Map<String, String> properties) {
        return new SocketContext().read(properties);
    }

    @Override
    protected SocketContext self() {
        return this;
    }

    @Override
    protected void ownSetters(Map<String, Consumer<String>> setters) {
        setters.put(ROUND_TRIP_DELAY_NS_PROP_NAME, v -> roundTripDelayNs(Long.parseLong(v)));
    }

    /**
     * Injects latency, for tests that must act while a request is in flight: a request is sent no earlier than half
     * of this after posting, and completes no earlier than this after posting (in order). The service thread's
     * timer resolution (about an eighth of the shortest timeout, at least 1 ms) applies.
     *
     * @param value the round trip to add, 0 for none (the default)
     * @return this
     */
    public SocketContext roundTripDelayNs(long value) {
        roundTripDelayNs = value;
        return this;
    }

    /** @return the injected round trip, 0 for none */
    public long roundTripDelayNs() {
        return roundTripDelayNs;
    }

    @Override
    protected void concludeOwn() {
        if (roundTripDelayNs < 0) {
            throw new IllegalArgumentException(ROUND_TRIP_DELAY_NS_PROP_NAME + " must not be negative");
        }
    }

    /** @return the cluster secret's bytes, or null (for this package's handshake) */
    @Override
    protected byte[] secretBytes() {
        return super.secretBytes();
    }

    @Override
    public String toString() {
        return "SocketContext{host=" + host() + ", port=" + port() + ", secret=" + hasSecret() + ", retryTimeoutNs="
            + retryTimeoutNs() + ", rnrTimeoutNs=" + rnrTimeoutNs() + ", connectTimeoutNs=" + connectTimeoutNs() + '}';
    }
}
