package dev.remora.verbs.spi;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Settings a fabric whose nodes listen at {@code host:port} for peers of other processes shares with the others of
 * its kind, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and defaults: the listening
 * host and first port, the cluster secret, the retry, receiver-not-ready and connect timeouts, and the send queue's
 * limits. Every time carries its unit in its name. A provider's context extends it with its own settings
 * ({@link #ownSetters}, {@link #concludeOwn}) and its own connect timeout and size limits; {@link #conclude()}
 * validates. Not thread-safe; a fabric concludes its context when it opens and reads it after.
 *
 * @param <C> the provider's context type, which the setters return
 */
public abstract class NetworkContext<C extends NetworkContext<C>> {
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
    /** Property name of {@link #connectTimeoutNs(long)}; its default is the provider's. */
    public static final String CONNECT_TIMEOUT_NS_PROP_NAME = "connectTimeoutNs";
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

    private final String provider;
    private final int maxInlineBytesLimit;
    private final int maxSendBytesLimit;
    private String host = HOST_DEFAULT;
    private int port = PORT_DEFAULT;
    private byte[] secret;
    private long retryTimeoutNs = RETRY_TIMEOUT_NS_DEFAULT;
    private long rnrTimeoutNs = RNR_TIMEOUT_NS_DEFAULT;
    private long connectTimeoutNs;
    private int sendQueueDepth = SEND_QUEUE_DEPTH_DEFAULT;
    private int maxInlineBytes = MAX_INLINE_BYTES_DEFAULT;
    private int maxSendBytes = MAX_SEND_BYTES_DEFAULT;
    private InetAddress bindAddress;

    /**
     * Creates settings with the defaults (the secret from {@value #SECRET_ENV} if set).
     *
     * @param provider the provider's name, for messages
     * @param connectTimeoutNsDefault the provider's default connect timeout
     * @param maxInlineBytesLimit the largest {@link #maxInlineBytes(int)} the provider accepts
     * @param maxSendBytesLimit the largest {@link #maxSendBytes(int)} the provider accepts
     */
    protected NetworkContext(String provider, long connectTimeoutNsDefault, int maxInlineBytesLimit,
                             int maxSendBytesLimit) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.connectTimeoutNs = connectTimeoutNsDefault;
        this.maxInlineBytesLimit = maxInlineBytesLimit;
        this.maxSendBytesLimit = maxSendBytesLimit;
        String env = System.getenv(SECRET_ENV);
        if (env != null && !env.isEmpty()) {
            secret = env.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** @return this, as the provider's type */
    protected abstract C self();

    /**
     * Reads the properties this class and the provider's context name ({@link FabricProperties#apply}).
     *
     * @param properties property names and values
     * @return this
     * @throws IllegalArgumentException for an unknown name or a malformed value
     */
    protected final C read(Map<String, String> properties) {
        Map<String, Consumer<String>> setters = new HashMap<>();
        setters.put(HOST_PROP_NAME, this::host);
        setters.put(PORT_PROP_NAME, v -> port(Integer.parseInt(v)));
        setters.put(SECRET_PROP_NAME, this::secret);
        setters.put(RETRY_TIMEOUT_NS_PROP_NAME, v -> retryTimeoutNs(Long.parseLong(v)));
        setters.put(RNR_TIMEOUT_NS_PROP_NAME, v -> rnrTimeoutNs(Long.parseLong(v)));
        setters.put(CONNECT_TIMEOUT_NS_PROP_NAME, v -> connectTimeoutNs(Long.parseLong(v)));
        setters.put(SEND_QUEUE_DEPTH_PROP_NAME, v -> sendQueueDepth(Integer.parseInt(v)));
        setters.put(MAX_INLINE_BYTES_PROP_NAME, v -> maxInlineBytes(Integer.parseInt(v)));
        setters.put(MAX_SEND_BYTES_PROP_NAME, v -> maxSendBytes(Integer.parseInt(v)));
        ownSetters(setters);
        FabricProperties.apply(provider, properties, setters);
        return self();
    }

    /**
     * Adds the setters of the provider's own properties.
     *
     * @param setters property name to setter, to add to
     */
    protected abstract void ownSetters(Map<String, Consumer<String>> setters);

    /**
     * @param value the host or IP address the nodes listen on (a loopback address by default; any other needs a
     *     secret)
     * @return this
     */
    public final C host(String value) {
        host = Objects.requireNonNull(value, "host");
        return self();
    }

    /**
     * @param value the first node's port; later nodes take the next ports; 0 for ephemeral ports
     * @return this
     */
    public final C port(int value) {
        port = value;
        return self();
    }

    /**
     * @param value the cluster secret shared by every process of the fabric, or null for none
     * @return this
     */
    public final C secret(String value) {
        secret = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return self();
    }

    /**
     * @param value how long a request may go uncompleted before it completes {@code RETRY_EXC_ERR}
     * @return this
     */
    public final C retryTimeoutNs(long value) {
        retryTimeoutNs = value;
        return self();
    }

    /**
     * @param value how long a SEND waits for the peer to post a receive before it completes
     *     {@code RNR_RETRY_EXC_ERR}
     * @return this
     */
    public final C rnrTimeoutNs(long value) {
        rnrTimeoutNs = value;
        return self();
    }

    /**
     * @param value how long connecting to a peer may take, handshake included
     * @return this
     */
    public final C connectTimeoutNs(long value) {
        connectTimeoutNs = value;
        return self();
    }

    /**
     * @param value the most outstanding requests per queue pair
     * @return this
     */
    public final C sendQueueDepth(int value) {
        sendQueueDepth = value;
        return self();
    }

    /**
     * @param value the largest INLINE payload
     * @return this
     */
    public final C maxInlineBytes(int value) {
        maxInlineBytes = value;
        return self();
    }

    /**
     * @param value the largest SEND payload
     * @return this
     */
    public final C maxSendBytes(int value) {
        maxSendBytes = value;
        return self();
    }

    /**
     * Validates the settings and resolves the host: the timeouts and the send queue depth are positive, the
     * provider's own settings are valid ({@link #concludeOwn}), the sizes are within the provider's limits, the port
     * is 0..65535, the host is known and not the wildcard address, and a host other than loopback has a secret.
     *
     * @return this
     * @throws IllegalArgumentException for a value out of range, an unknown host, or a non-loopback host without a
     *     secret
     */
    public final C conclude() {
        positive(retryTimeoutNs, RETRY_TIMEOUT_NS_PROP_NAME);
        positive(rnrTimeoutNs, RNR_TIMEOUT_NS_PROP_NAME);
        positive(connectTimeoutNs, CONNECT_TIMEOUT_NS_PROP_NAME);
        positive(sendQueueDepth, SEND_QUEUE_DEPTH_PROP_NAME);
        concludeOwn();
        if (maxInlineBytes < 0 || maxInlineBytes > maxInlineBytesLimit) {
            throw new IllegalArgumentException(MAX_INLINE_BYTES_PROP_NAME + " must be 0.." + maxInlineBytesLimit);
        }
        if (maxSendBytes < 0 || maxSendBytes > maxSendBytesLimit) {
            throw new IllegalArgumentException(MAX_SEND_BYTES_PROP_NAME + " must be 0.." + maxSendBytesLimit);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(PORT_PROP_NAME + " must be 0..65535, not " + port);
        }
        try {
            bindAddress = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(provider + " fabric host '" + host + "' is unknown", e);
        }
        if (bindAddress.isAnyLocalAddress()) {
            throw new IllegalArgumentException(provider + " fabric host " + host + " is the wildcard address: name "
                + "the interface the nodes listen on, so that their addresses (and node ids) are ones peers can reach");
        }
        if (!bindAddress.isLoopbackAddress() && secret == null) {
            throw new IllegalArgumentException("listening on " + host + " (not loopback) needs a cluster secret: set "
                + "property '" + SECRET_PROP_NAME + "' or the environment variable " + SECRET_ENV);
        }
        return self();
    }

    /**
     * Validates the provider's own settings ({@link #conclude()} calls it after checking the timeouts).
     *
     * @throws IllegalArgumentException for a value out of range
     */
    protected abstract void concludeOwn();

    private static void positive(long v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, not " + v);
        }
    }

    /** @return the listening host */
    public final String host() {
        return host;
    }

    /** @return the first node's port (0: ephemeral) */
    public final int port() {
        return port;
    }

    /** @return whether a cluster secret is set */
    public final boolean hasSecret() {
        return secret != null;
    }

    /** @return the cluster secret's UTF-8 bytes, or null for none (for the provider's handshake) */
    protected byte[] secretBytes() {
        return secret;
    }

    /** @return the host resolved by {@link #conclude()}, or null before */
    protected InetAddress bindAddress() {
        return bindAddress;
    }

    /** @return the retry timeout */
    public final long retryTimeoutNs() {
        return retryTimeoutNs;
    }

    /** @return the receiver-not-ready timeout */
    public final long rnrTimeoutNs() {
        return rnrTimeoutNs;
    }

    /** @return the connect timeout */
    public final long connectTimeoutNs() {
        return connectTimeoutNs;
    }

    /** @return the send queue depth */
    public final int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** @return the largest INLINE payload */
    public final int maxInlineBytes() {
        return maxInlineBytes;
    }

    /** @return the largest SEND payload */
    public final int maxSendBytes() {
        return maxSendBytes;
    }
}
