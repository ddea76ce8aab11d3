package dev.remora.verbs.ucx;

import dev.remora.verbs.spi.NetworkContext;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Settings of the UCX fabric, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and
 * defaults: those of every fabric whose nodes listen for other processes ({@link NetworkContext}: the host and port
 * of the nodes' connection managers, the secret, timeouts, send queue limits; INLINE payloads up to 4 KiB, SENDs up
 * to 1 MiB), UCX's transports, the ordering of WRITEs and the progress thread's spinning. Every time carries its
 * unit in its name. {@link #conclude()} validates.
 *
 * <p>UCX's own settings come from its environment as usual ({@code UCX_TLS}, {@code UCX_NET_DEVICES}, ...);
 * {@link #transports(String)} overrides {@code UCX_TLS} for the fabric's contexts.
 */
public final class UcxContext extends NetworkContext<UcxContext> {
    /** Property name of {@link #transports(String)}. */
    public static final String TRANSPORTS_PROP_NAME = "tls";
    /** Default time to reach a peer's connection manager: 5 s. */
    public static final long CONNECT_TIMEOUT_NS_DEFAULT = 5_000_000_000L;
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

    private String transports;
    private Ordering ordering = Ordering.AUTO;
    private long idleSpinNs = IDLE_SPIN_NS_DEFAULT;

    /** Creates a context with the defaults (the secret from {@value #SECRET_ENV} if set). */
    public UcxContext() {
        super(UcxFabricProvider.NAME, CONNECT_TIMEOUT_NS_DEFAULT, 4096, 1 << 20);
    }

    /**
     * Reads the properties this class names; an unknown name is an error, so that a typo is not silently ignored.
     *
     * @param properties property names and values
     * @return the settings
     * @throws IllegalArgumentException for an unknown name or a malformed value
     */
    public static UcxContext fromProperties(Map<String, String> properties) {
        return new UcxContext().read(properties);
    }

    @Override
    protected UcxContext self() {
        return this;
    }

    @Override
    protected void ownSetters(Map<String, Consumer<String>> setters) {
        setters.put(TRANSPORTS_PROP_NAME, this::transports);
        setters.put(ORDERING_PROP_NAME, v -> ordering(parseOrdering(v)));
        setters.put(IDLE_SPIN_NS_PROP_NAME, v -> idleSpinNs(Long.parseLong(v)));
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

    @Override
    protected void concludeOwn() {
        if (idleSpinNs < 0) {
            throw new IllegalArgumentException(IDLE_SPIN_NS_PROP_NAME + " must not be negative");
        }
        if (transports != null && transports.isBlank()) {
            throw new IllegalArgumentException(TRANSPORTS_PROP_NAME + " must name UCX transports, e.g. shm or tcp");
        }
    }

    /** @return the UCX transports, or null for UCX's default */
    public String transports() {
        return transports;
    }

    /** @return the cluster secret's bytes, or null (for this package's handshake) */
    @Override
    protected byte[] secretBytes() {
        return super.secretBytes();
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
        return "UcxContext{tls=" + (transports == null ? "(UCX default)" : transports) + ", host=" + host() + ", port="
            + port() + ", secret=" + hasSecret() + ", retryTimeoutNs=" + retryTimeoutNs() + ", ordering="
            + ordering.name().toLowerCase(Locale.ROOT) + '}';
    }
}
