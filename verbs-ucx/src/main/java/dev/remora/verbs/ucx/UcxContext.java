package dev.remora.verbs.ucx;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings of the UCX fabric, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and
 * defaults. Every time carries its unit in its name. {@link #conclude()} validates.
 *
 * <p>UCX's own settings come from its environment as usual ({@code UCX_TLS}, {@code UCX_NET_DEVICES}, ...);
 * {@link #transports(String)} overrides {@code UCX_TLS} for the fabric's contexts.
 */
public final class UcxContext {
    /** Property name of {@link #transports(String)}. */
    public static final String TRANSPORTS_PROP_NAME = "tls";
    /** Property name of {@link #host(String)}. */
    public static final String HOST_PROP_NAME = "host";
    /** Default listening host of the nodes' connection managers: loopback. */
    public static final String HOST_DEFAULT = "127.0.0.1";
    /** Property name of {@link #port(int)}. */
    public static final String PORT_PROP_NAME = "port";
    /** Property name of {@link #secret(String)}; the environment variable {@value #SECRET_ENV} is the fallback. */
    public static final String SECRET_PROP_NAME = "secret";
    /** Environment variable read when no secret property is given (the socket fabric's too). */
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
    /** Default time to reach a peer's connection manager: 5 s. */
    public static final long CONNECT_TIMEOUT_NS_DEFAULT = 5_000_000_000L;
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
    public static final int MAX_SEND_BYTES_DEFAULT = 64 * 1024;
    /** Property name of {@link #ordering(Ordering)}. */
    public static final String ORDERING_PROP_NAME = "ordering";
    /** Property name of {@link #idleSpinNs(long)}. */
    public static final String IDLE_SPIN_NS_PROP_NAME = "idleSpinNs";
    /**
     * Default time the progress thread polls after its last event before it sleeps on the workers' events: none
     * (on a machine with few cores, a spinning progress thread takes the CPU the peers' requests need; measured in
     * docs/ucx.md).
     */
    public static final long IDLE_SPIN_NS_DEFAULT = 0L;

    /** How a queue pair keeps a WRITE ahead of the requests posted after it (R6, R7). */
    public enum Ordering {
        /**
         * {@link #FENCE} on an endpoint whose requests all travel on one UCX lane, {@link #FLUSH} on one with several
         * (the default). The lanes are read from {@code ucp_ep_print_info} once the endpoint is wired up.
         */
        AUTO,
        /**
         * {@code ucp_worker_fence} between a WRITE and the next request that must not pass it. UCX 1.13's fence
         * keeps the operations of each lane apart, not those of two lanes: it orders only an endpoint with one lane
         * for its requests (the provider asks UCX for one RMA lane: {@code MAX_RNDV_RAILS=1}).
         */
        FENCE,
        /**
         * {@code ucp_ep_flush_nbx}, waited for, between a WRITE and the next request that must not pass it: the
         * WRITE is placed at the target before the next one starts, whatever lanes UCX chose (a round trip each).
         */
        FLUSH
    }

    private static final Set<String> NAMES = Set.of(TRANSPORTS_PROP_NAME, HOST_PROP_NAME, PORT_PROP_NAME,
        SECRET_PROP_NAME, RETRY_TIMEOUT_NS_PROP_NAME, RNR_TIMEOUT_NS_PROP_NAME, CONNECT_TIMEOUT_NS_PROP_NAME,
        SEND_QUEUE_DEPTH_PROP_NAME, MAX_INLINE_BYTES_PROP_NAME, MAX_SEND_BYTES_PROP_NAME, ORDERING_PROP_NAME,
        IDLE_SPIN_NS_PROP_NAME);

    private String transports;
    private String host = HOST_DEFAULT;
    private int port;
    private byte[] secret;
    private long retryTimeoutNs = RETRY_TIMEOUT_NS_DEFAULT;
    private long rnrTimeoutNs = RNR_TIMEOUT_NS_DEFAULT;
    private long connectTimeoutNs = CONNECT_TIMEOUT_NS_DEFAULT;
    private int sendQueueDepth = SEND_QUEUE_DEPTH_DEFAULT;
    private int maxInlineBytes = MAX_INLINE_BYTES_DEFAULT;
    private int maxSendBytes = MAX_SEND_BYTES_DEFAULT;
    private Ordering ordering = Ordering.AUTO;
    private long idleSpinNs = IDLE_SPIN_NS_DEFAULT;
    private InetAddress bindAddress;

    /** Creates a context with the defaults (the secret from {@value #SECRET_ENV} if set). */
    public UcxContext() {
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
    public static UcxContext fromProperties(Map<String, String> properties) {
        UcxContext c = new UcxContext();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            if (!NAMES.contains(k)) {
                throw new IllegalArgumentException("unknown ucx fabric property '" + k + "' (known: "
                    + new TreeSet<>(NAMES) + ")");
            }
            try {
                switch (k) {
                    case TRANSPORTS_PROP_NAME -> c.transports(v);
                    case HOST_PROP_NAME -> c.host(v);
                    case PORT_PROP_NAME -> c.port(Integer.parseInt(v));
                    case SECRET_PROP_NAME -> c.secret(v);
                    case RETRY_TIMEOUT_NS_PROP_NAME -> c.retryTimeoutNs(Long.parseLong(v));
                    case RNR_TIMEOUT_NS_PROP_NAME -> c.rnrTimeoutNs(Long.parseLong(v));
                    case CONNECT_TIMEOUT_NS_PROP_NAME -> c.connectTimeoutNs(Long.parseLong(v));
                    case SEND_QUEUE_DEPTH_PROP_NAME -> c.sendQueueDepth(Integer.parseInt(v));
                    case MAX_INLINE_BYTES_PROP_NAME -> c.maxInlineBytes(Integer.parseInt(v));
                    case MAX_SEND_BYTES_PROP_NAME -> c.maxSendBytes(Integer.parseInt(v));
                    case IDLE_SPIN_NS_PROP_NAME -> c.idleSpinNs(Long.parseLong(v));
                    default -> c.ordering(parseOrdering(v));
                }
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("ucx fabric property " + k + "=" + v + " is not a number", ex);
            }
        }
        return c;
    }

    private static Ordering parseOrdering(String v) {
        try {
            return Ordering.valueOf(v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ucx fabric property " + ORDERING_PROP_NAME + "=" + v + " is not one "
                + "of auto, fence, flush", e);
        }
    }

    /**
     * @param value UCX transports for the fabric's contexts ({@code UCX_TLS} syntax, e.g. {@code shm} or
     *     {@code tcp}); null for UCX's default (its environment)
     * @return this
     */
    public UcxContext transports(String value) {
        transports = value;
        return this;
    }

    /**
     * @param value the host or IP address the nodes' connection managers listen on (loopback by default; any other
     *     needs a secret)
     * @return this
     */
    public UcxContext host(String value) {
        host = Objects.requireNonNull(value, "host");
        return this;
    }

    /**
     * @param value the first node's port; later nodes take the next ports; 0 for ephemeral ports
     * @return this
     */
    public UcxContext port(int value) {
        port = value;
        return this;
    }

    /**
     * @param value the cluster secret shared by every process of the fabric, or null for none
     * @return this
     */
    public UcxContext secret(String value) {
        secret = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /**
     * @param value how long a request may go uncompleted before it completes {@code RETRY_EXC_ERR}
     * @return this
     */
    public UcxContext retryTimeoutNs(long value) {
        retryTimeoutNs = value;
        return this;
    }

    /**
     * @param value how long a SEND is retried while the peer has no receive posted before it completes
     *     {@code RNR_RETRY_EXC_ERR}
     * @return this
     */
    public UcxContext rnrTimeoutNs(long value) {
        rnrTimeoutNs = value;
        return this;
    }

    /**
     * @param value how long reaching a peer's connection manager may take, handshake included
     * @return this
     */
    public UcxContext connectTimeoutNs(long value) {
        connectTimeoutNs = value;
        return this;
    }

    /**
     * @param value the most outstanding requests per queue pair
     * @return this
     */
    public UcxContext sendQueueDepth(int value) {
        sendQueueDepth = value;
        return this;
    }

    /**
     * @param value the largest INLINE payload
     * @return this
     */
    public UcxContext maxInlineBytes(int value) {
        maxInlineBytes = value;
        return this;
    }

    /**
     * @param value the largest SEND payload
     * @return this
     */
    public UcxContext maxSendBytes(int value) {
        maxSendBytes = value;
        return this;
    }

    /**
     * @param value how WRITEs are kept ahead of later requests of their queue pair
     * @return this
     */
    public UcxContext ordering(Ordering value) {
        ordering = Objects.requireNonNull(value, "ordering");
        return this;
    }

    /**
     * @param value how long the progress thread keeps polling after its last event before it sleeps on the
     *     workers' event descriptors (latency against CPU)
     * @return this
     */
    public UcxContext idleSpinNs(long value) {
        idleSpinNs = value;
        return this;
    }

    /**
     * Validates the settings and resolves the host.
     *
     * @return this
     * @throws IllegalArgumentException for a value out of range, an unknown host, or a non-loopback host without a
     *     secret
     */
    public UcxContext conclude() {
        positive(retryTimeoutNs, RETRY_TIMEOUT_NS_PROP_NAME);
        positive(rnrTimeoutNs, RNR_TIMEOUT_NS_PROP_NAME);
        positive(connectTimeoutNs, CONNECT_TIMEOUT_NS_PROP_NAME);
        positive(sendQueueDepth, SEND_QUEUE_DEPTH_PROP_NAME);
        if (idleSpinNs < 0) {
            throw new IllegalArgumentException(IDLE_SPIN_NS_PROP_NAME + " must not be negative");
        }
        if (maxInlineBytes < 0 || maxInlineBytes > 4096) {
            throw new IllegalArgumentException(MAX_INLINE_BYTES_PROP_NAME + " must be 0..4096");
        }
        if (maxSendBytes < 0 || maxSendBytes > 1 << 20) {
            throw new IllegalArgumentException(MAX_SEND_BYTES_PROP_NAME + " must be 0..1048576");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(PORT_PROP_NAME + " must be 0..65535, not " + port);
        }
        if (transports != null && transports.isBlank()) {
            throw new IllegalArgumentException(TRANSPORTS_PROP_NAME + " must name UCX transports, e.g. shm or tcp");
        }
        try {
            bindAddress = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("ucx fabric host '" + host + "' is unknown", e);
        }
        if (bindAddress.isAnyLocalAddress()) {
            throw new IllegalArgumentException("ucx fabric host " + host + " is the wildcard address: name the "
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

    /** @return the UCX transports, or null for UCX's default */
    public String transports() {
        return transports;
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

    /** @return how WRITEs are kept ahead of later requests */
    public Ordering ordering() {
        return ordering;
    }

    /** @return how long the progress thread polls before it sleeps */
    public long idleSpinNs() {
        return idleSpinNs;
    }

    @Override
    public String toString() {
        return "UcxContext{tls=" + (transports == null ? "(UCX default)" : transports) + ", host=" + host + ", port="
            + port + ", secret=" + (secret != null) + ", retryTimeoutNs=" + retryTimeoutNs + ", ordering="
            + ordering.name().toLowerCase(Locale.ROOT) + '}';
    }
}
