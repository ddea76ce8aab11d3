package dev.remora.verbs.disni;

import dev.remora.verbs.spi.FabricProperties;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Settings of a DiSNI fabric, also accepted as {@link dev.remora.verbs.Fabric#open} properties under the names of
 * the {@code …_PROP_NAME} constants.
 *
 * <ul>
 *   <li>{@code host}: the IP address of the RDMA interface (RoCE netdev or IPoIB) the nodes listen on; every node
 *       of the process listens there, the control channel on TCP and RDMA CM on its own port space. Default: the
 *       environment variable {@value #HOST_ENV}, else 127.0.0.1.</li>
 *   <li>{@code port}: the control channel's TCP port of the first node (0: ephemeral), the next nodes take the
 *       following ones.</li>
 *   <li>{@code secret}: the cluster secret of the control channel (as for the socket fabric; needed off
 *       loopback).</li>
 *   <li>{@code sendQueueDepth}, {@code recvQueueDepth}: {@code max_send_wr} and {@code max_recv_wr}.</li>
 *   <li>{@code maxInlineBytes}: {@code max_inline_data}.</li>
 *   <li>{@code retryCount}, {@code rnrRetryCount}: {@code rdma_conn_param.retry_count} and
 *       {@code rnr_retry_count} (0..7; 7 retries receiver-not-ready forever, so the default is 6).</li>
 *   <li>{@code connectTimeoutMs}: the most an address or route resolution or a connection may take.</li>
 * </ul>
 * Not thread-safe; a fabric copies what it needs when it opens.
 */
public final class DisniContext {
    /** Property name of {@link #host(String)}. */
    public static final String HOST_PROP_NAME = "host";
    /** Property name of {@link #port(int)}. */
    public static final String PORT_PROP_NAME = "port";
    /** Property name of {@link #secret(String)}. */
    public static final String SECRET_PROP_NAME = "secret";
    /** Property name of {@link #sendQueueDepth(int)}. */
    public static final String SEND_QUEUE_DEPTH_PROP_NAME = "sendQueueDepth";
    /** Property name of {@link #recvQueueDepth(int)}. */
    public static final String RECV_QUEUE_DEPTH_PROP_NAME = "recvQueueDepth";
    /** Property name of {@link #maxInlineBytes(int)}. */
    public static final String MAX_INLINE_BYTES_PROP_NAME = "maxInlineBytes";
    /** Property name of {@link #retryCount(int)}. */
    public static final String RETRY_COUNT_PROP_NAME = "retryCount";
    /** Property name of {@link #rnrRetryCount(int)}. */
    public static final String RNR_RETRY_COUNT_PROP_NAME = "rnrRetryCount";
    /** Property name of {@link #connectTimeoutMs(int)}. */
    public static final String CONNECT_TIMEOUT_MS_PROP_NAME = "connectTimeoutMs";

    /** Environment variable giving the default {@link #host(String)}: the RDMA interface's address. */
    public static final String HOST_ENV = "REMORA_DISNI_HOST";

    private String host = System.getenv().getOrDefault(HOST_ENV, "127.0.0.1");
    private int port;
    private String secret;
    private int sendQueueDepth = 256;
    private int recvQueueDepth = 64;
    private int maxInlineBytes = 64;
    private int retryCount = 7;
    private int rnrRetryCount = 6;
    private int connectTimeoutMs = 2000;

    /** Creates a context with the defaults. */
    public DisniContext() {
    }

    /**
     * Reads settings from fabric properties.
     *
     * @param properties names as the {@code …_PROP_NAME} constants
     * @return the settings
     * @throws IllegalArgumentException for an unknown name or a bad value, naming it
     */
    public static DisniContext fromProperties(Map<String, String> properties) {
        DisniContext c = new DisniContext();
        Map<String, Consumer<String>> setters = new HashMap<>();
        setters.put(HOST_PROP_NAME, c::host);
        setters.put(PORT_PROP_NAME, v -> c.port(Integer.parseInt(v)));
        setters.put(SECRET_PROP_NAME, c::secret);
        setters.put(SEND_QUEUE_DEPTH_PROP_NAME, v -> c.sendQueueDepth(Integer.parseInt(v)));
        setters.put(RECV_QUEUE_DEPTH_PROP_NAME, v -> c.recvQueueDepth(Integer.parseInt(v)));
        setters.put(MAX_INLINE_BYTES_PROP_NAME, v -> c.maxInlineBytes(Integer.parseInt(v)));
        setters.put(RETRY_COUNT_PROP_NAME, v -> c.retryCount(Integer.parseInt(v)));
        setters.put(RNR_RETRY_COUNT_PROP_NAME, v -> c.rnrRetryCount(Integer.parseInt(v)));
        setters.put(CONNECT_TIMEOUT_MS_PROP_NAME, v -> c.connectTimeoutMs(Integer.parseInt(v)));
        FabricProperties.apply(DisniFabricProvider.NAME, properties, setters);
        return c;
    }

    private static int range(String name, int v, int lo, int hi) {
        if (v < lo || v > hi) {
            throw new IllegalArgumentException(name + " must be in " + lo + ".." + hi + ": " + v);
        }
        return v;
    }

    /** @param value the RDMA interface's IP address @return this */
    public DisniContext host(String value) {
        this.host = java.util.Objects.requireNonNull(value, "host");
        return this;
    }

    /** @param value the first node's control port, 0 for ephemeral @return this */
    public DisniContext port(int value) {
        this.port = range("port", value, 0, 65535);
        return this;
    }

    /** @param value the cluster secret of the control channel @return this */
    public DisniContext secret(String value) {
        this.secret = value;
        return this;
    }

    /** @param value {@code max_send_wr} @return this */
    public DisniContext sendQueueDepth(int value) {
        this.sendQueueDepth = range("sendQueueDepth", value, 1, 1 << 15);
        return this;
    }

    /** @param value {@code max_recv_wr} @return this */
    public DisniContext recvQueueDepth(int value) {
        this.recvQueueDepth = range("recvQueueDepth", value, 1, 1 << 15);
        return this;
    }

    /** @param value {@code max_inline_data} @return this */
    public DisniContext maxInlineBytes(int value) {
        this.maxInlineBytes = range("maxInlineBytes", value, 0, 1024);
        return this;
    }

    /** @param value {@code retry_count}, 0..7 @return this */
    public DisniContext retryCount(int value) {
        this.retryCount = range("retryCount", value, 0, 7);
        return this;
    }

    /** @param value {@code rnr_retry_count}, 0..7 (7: forever) @return this */
    public DisniContext rnrRetryCount(int value) {
        this.rnrRetryCount = range("rnrRetryCount", value, 0, 7);
        return this;
    }

    /** @param value milliseconds, 1..600000 @return this */
    public DisniContext connectTimeoutMs(int value) {
        this.connectTimeoutMs = range("connectTimeoutMs", value, 1, 600_000);
        return this;
    }

    /** @return the RDMA interface's IP address */
    public String host() {
        return host;
    }

    /** @return the first node's control port */
    public int port() {
        return port;
    }

    /** @return the cluster secret, or null */
    public String secret() {
        return secret;
    }

    /** @return {@code max_send_wr} */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** @return {@code max_recv_wr} */
    public int recvQueueDepth() {
        return recvQueueDepth;
    }

    /** @return {@code max_inline_data} */
    public int maxInlineBytes() {
        return maxInlineBytes;
    }

    /** @return {@code retry_count} */
    public int retryCount() {
        return retryCount;
    }

    /** @return {@code rnr_retry_count} */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /** @return the connection timeout in milliseconds */
    public int connectTimeoutMs() {
        return connectTimeoutMs;
    }

    @Override
    public String toString() {
        return "DisniContext{host=" + host + ", port=" + port + ", secret=" + (secret == null ? "none" : "set")
            + ", sendQueueDepth=" + sendQueueDepth + ", recvQueueDepth=" + recvQueueDepth + ", maxInlineBytes="
            + maxInlineBytes + ", retryCount=" + retryCount + ", rnrRetryCount=" + rnrRetryCount
            + ", connectTimeoutMs=" + connectTimeoutMs + '}';
    }
}
