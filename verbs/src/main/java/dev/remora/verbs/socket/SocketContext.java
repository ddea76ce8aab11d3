package dev.remora.verbs.socket;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of the socket fabric, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and
 * defaults. Every time carries its unit in its name. {@link #conclude()} validates.
 */
public final class SocketContext {
    /** Property name of {@link #host(String)}. */
    public static final String HOST_PROP_NAME = "host";
    /** Default listening host: loopback, reachable from this machine only. */
    public static final String HOST_DEFAULT = "127.0.0.1";
    /** Property name of {@link #port(int)}. */
    public static final String PORT_PROP_NAME = "port";
    /** Default port: 0, an ephemeral port per node. */
    public static final int PORT_DEFAULT = 0;
    /** Property name of {@link #secret(String)}; the environment variable {@value #SECRET_ENV} is the fallback. */
    public static final String SECRET_PROP_NAME = "secret";
    /** Environment variable read when no secret property is given. */
    public static final String SECRET_ENV = "REMORA_SECRET";
    /** Property name of {@link #retryTimeoutNs(long)}. */
    public static final String RETRY_TIMEOUT_NS_PROP_NAME = "retryTimeoutNs";
    /** Default transport retry timeout: 1 s. */
    public static final long RETRY_TIMEOUT_NS_DEFAULT = 1_000_000_000L;
    /** Property name of {@link #rnrTimeoutNs(long)}. */
    public static final String RNR_TIMEOUT_NS_PROP_NAME = "rnrTimeoutNs";
    /** Default receiver-not-ready timeout: 200 ms. */
    public static final long RNR_TIMEOUT_NS_DEFAULT = 200_000_000L;
    /** Property name of {@link #connectTimeoutNs(long)}. */
    public static final String CONNECT_TIMEOUT_NS_PROP_NAME = "connectTimeoutNs";
    /** Default time to establish a connection, handshake included: 2 s. */
    public static final long CONNECT_TIMEOUT_NS_DEFAULT = 2_000_000_000L;
    /** Property name of {@link #sendQueueDepth(int)}. */
    public static final String SEND_QUEUE_DEPTH_PROP_NAME = "sendQueueDepth";
    /** Default send queue depth ({@code max_send_wr}). */
    public static final int SEND_QUEUE_DEPTH_DEFAULT = 1024;
    /** Property name of {@link #maxInlineBytes(int)}. */
    public static final String MAX_INLINE_BYTES_PROP_NAME = "maxInlineBytes";
    /** Default {@code max_inline_data}. */
    public static final int MAX_INLINE_BYTES_DEFAULT = 256;
    /** Property name of {@link #maxSendBytes(int)}. */
    public static final String MAX_SEND_BYTES_PROP_NAME = "maxSendBytes";
    /** Default largest SEND: 64 KiB. */
    public static final int MAX_SEND_BYTES_DEFAULT = Wire.CHUNK;

    /** Property name of {@link #roundTripDelayNs(long)}. */
    public static final String ROUND_TRIP_DELAY_NS_PROP_NAME = "roundTripDelayNs";

    private static final Set<String> NAMES = Set.of(ROUND_TRIP_DELAY_NS_PROP_NAME, HOST_PROP_NAME, PORT_PROP_NAME, SECRET_PROP_NAME,
        RETRY_TIMEOUT_NS_PROP_NAME, RNR_TIMEOUT_NS_PROP_NAME, CONNECT_TIMEOUT_NS_PROP_NAME, SEND_QUEUE_DEPTH_PROP_NAME,
        MAX_INLINE_BYTES_PROP_NAME, MAX_SEND_BYTES_PROP_NAME);

    private String host = HOST_DEFAULT;
    private int port = PORT_DEFAULT;
    private byte[] secret;
    private long retryTimeoutNs = RETRY_TIMEOUT_NS_DEFAULT;
    private long rnrTimeoutNs = RNR_TIMEOUT_NS_DEFAULT;
    private long connectTimeoutNs = CONNECT_TIMEOUT_NS_DEFAULT;
    private int sendQueueDepth = SEND_QUEUE_DEPTH_DEFAULT;
    private int maxInlineBytes = MAX_INLINE_BYTES_DEFAULT;
    private int maxSendBytes = MAX_SEND_BYTES_DEFAULT;
    private long roundTripDelayNs;
    private InetAddress bindAddress;

    /** Creates a context with the defaults (the secret from {@value #SECRET_ENV} if set). */
    public SocketContext() {
        String env = System.getenv(SECRET_ENV);
        if (env != null && !env.isEmpty()) {
            secret = env.getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Reads the properties this class names; an unknown name is an error, so that a typo is not silently ignored.
     *
     * @param properties property names and values
     * @return the settings
     * @throws IllegalArgumentException for an unknown name or a malformed value
     */
    public static SocketContext fromProperties(Map<String, String> properties) {
        SocketContext c = new SocketContext();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            if (!NAMES.contains(k)) {
                throw new IllegalArgumentException("unknown socket fabric property '" + k + "' (known: "
                    + new java.util.TreeSet<>(NAMES) + ")");
            }
            try {
                switch (k) {
                    case HOST_PROP_NAME -> c.host(v);
                    case PORT_PROP_NAME -> c.port(Integer.parseInt(v));
                    case SECRET_PROP_NAME -> c.secret(v);
                    case RETRY_TIMEOUT_NS_PROP_NAME -> c.retryTimeoutNs(Long.parseLong(v));
                    case RNR_TIMEOUT_NS_PROP_NAME -> c.rnrTimeoutNs(Long.parseLong(v));
                    case CONNECT_TIMEOUT_NS_PROP_NAME -> c.connectTimeoutNs(Long.parseLong(v));
                    case SEND_QUEUE_DEPTH_PROP_NAME -> c.sendQueueDepth(Integer.parseInt(v));
                    case MAX_INLINE_BYTES_PROP_NAME -> c.maxInlineBytes(Integer.parseInt(v));
                    case ROUND_TRIP_DELAY_NS_PROP_NAME -> c.roundTripDelayNs(Long.parseLong(v));
                    default -> c.maxSendBytes(Integer.parseInt(v));
                }
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("socket fabric property " + k + "=" + v + " is not a number", ex);
            }
        }
        return c;
    }

    /**
     * @param value the host or IP address the nodes listen on (a loopback address by default; any other needs a
     *     secret)
     * @return this
     */
    public SocketContext host(String value) {
        host = Objects.requireNonNull(value, "host");
        return this;
    }

    /**
     * @param value the first node's port; later nodes take the next ports; 0 for ephemeral ports
     * @return this
     */
    public SocketContext port(int value) {
        port = value;
        return this;
    }

    /**
     * @param value the cluster secret shared by every process of the fabric, or null for none
     * @return this
     */
    public SocketContext secret(String value) {
        secret = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /**
     * @param value how long a request may go unanswered before it completes {@code RETRY_EXC_ERR}
     * @return this
     */
    public SocketContext retryTimeoutNs(long value) {
        retryTimeoutNs = value;
        return this;
    }

    /**
     * @param value how long a SEND waits for a posted receive before it completes {@code RNR_RETRY_EXC_ERR}
     * @return this
     */
    public SocketContext rnrTimeoutNs(long value) {
        rnrTimeoutNs = value;
        return this;
    }

    /**
     * @param value how long connecting to a peer may take, handshake included
     * @return this
     */
    public SocketContext connectTimeoutNs(long value) {
        connectTimeoutNs = value;
        return this;
    }

    /**
     * @param value the most outstanding requests per queue pair
     * @return this
     */
    public SocketContext sendQueueDepth(int value) {
        sendQueueDepth = value;
        return this;
    }

    /**
     * @param value the largest INLINE payload
     * @return this
     */
    public SocketContext maxInlineBytes(int value) {
        maxInlineBytes = value;
        return this;
    }

    /**
     * @param value the largest SEND payload
     * @return this
     */
    public SocketContext maxSendBytes(int value) {
        maxSendBytes = value;
        return this;
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

    /**
     * Validates the settings and resolves the host.
     *
     * @return this
     * @throws IllegalArgumentException for a value out of range, an unknown host, or a non-loopback host without a
     *     secret
     */
    public SocketContext conclude() {
        positive(retryTimeoutNs, RETRY_TIMEOUT_NS_PROP_NAME);
        positive(rnrTimeoutNs, RNR_TIMEOUT_NS_PROP_NAME);
        positive(connectTimeoutNs, CONNECT_TIMEOUT_NS_PROP_NAME);
        positive(sendQueueDepth, SEND_QUEUE_DEPTH_PROP_NAME);
        if (roundTripDelayNs < 0) {
            throw new IllegalArgumentException(ROUND_TRIP_DELAY_NS_PROP_NAME + " must not be negative");
        }
        if (maxInlineBytes < 0 || maxInlineBytes > Wire.CHUNK) {
            throw new IllegalArgumentException(MAX_INLINE_BYTES_PROP_NAME + " must be 0.." + Wire.CHUNK);
        }
        if (maxSendBytes < 0 || maxSendBytes > Wire.CHUNK) {
            throw new IllegalArgumentException(MAX_SEND_BYTES_PROP_NAME + " must be 0.." + Wire.CHUNK);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(PORT_PROP_NAME + " must be 0..65535, not " + port);
        }
        try {
            bindAddress = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("socket fabric host '" + host + "' is unknown", e);
        }
        if (bindAddress.isAnyLocalAddress()) {
            throw new IllegalArgumentException("socket fabric host " + host + " is the wildcard address: name the "
                + "interface the nodes listen on, so that their addresses (and node ids) are ones peers can reach");
        }
        if (!bindAddress.isLoopbackAddress() && secret == null) {
            throw new IllegalArgumentException("listening on " + host + " (not loopback) needs a cluster secret: set "
                + "property '" + SECRET_PROP_NAME + "' or the environment variable " + SECRET_ENV);
        }
        return this;
    }

    private static void positive(long v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, not " + v);
        }
    }

    /** @return the listening host */
    public String host() {
        return host;
    }

    /** @return the first node's port (0: ephemeral) */
    public int port() {
        return port;
    }

    /** @return whether a cluster secret is set */
    public boolean hasSecret() {
        return secret != null;
    }

    byte[] secretBytes() {
        return secret;
    }

    InetAddress bindAddress() {
        return bindAddress;
    }

    /** @return the retry timeout */
    public long retryTimeoutNs() {
        return retryTimeoutNs;
    }

    /** @return the receiver-not-ready timeout */
    public long rnrTimeoutNs() {
        return rnrTimeoutNs;
    }

    /** @return the connect timeout */
    public long connectTimeoutNs() {
        return connectTimeoutNs;
    }

    /** @return the send queue depth */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** @return the largest INLINE payload */
    public int maxInlineBytes() {
        return maxInlineBytes;
    }

    /** @return the largest SEND payload */
    public int maxSendBytes() {
        return maxSendBytes;
    }

    @Override
    public String toString() {
        return "SocketContext{host=" + host + ", port=" + port + ", secret=" + (secret != null) + ", retryTimeoutNs="
            + retryTimeoutNs + ", rnrTimeoutNs=" + rnrTimeoutNs + ", connectTimeoutNs=" + connectTimeoutNs + '}';
    }
}
