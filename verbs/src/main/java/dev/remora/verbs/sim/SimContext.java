package dev.remora.verbs.sim;

import java.util.Map;

/**
 * Settings of the software fabric, with property names for {@link dev.remora.verbs.Fabric#open(String, Map)} and
 * defaults. Every time carries its unit in its name. {@link #conclude()} validates.
 */
public final class SimContext {
    /** Property name of {@link #roundTripLatencyNs(long)}. */
    public static final String ROUND_TRIP_LATENCY_NS_PROP_NAME = "roundTripLatencyNs";
    /** Default round-trip latency: none, requests execute on the posting thread. */
    public static final long ROUND_TRIP_LATENCY_NS_DEFAULT = 0;
    /** The round trip of the {@link #twoMicrosecondRoundTrip()} preset: a typical RDMA READ on one switch hop. */
    public static final long TWO_MICROSECONDS_NS = 2_000;

    /** Property name of {@link #retryTimeoutNs(long)}. */
    public static final String RETRY_TIMEOUT_NS_PROP_NAME = "retryTimeoutNs";
    /** Default transport retry timeout: 200 ms. */
    public static final long RETRY_TIMEOUT_NS_DEFAULT = 200_000_000L;

    /** Property name of {@link #rnrTimeoutNs(long)}. */
    public static final String RNR_TIMEOUT_NS_PROP_NAME = "rnrTimeoutNs";
    /** Default receiver-not-ready timeout: 200 ms. */
    public static final long RNR_TIMEOUT_NS_DEFAULT = 200_000_000L;

    /** Property name of {@link #nicThreads(int)}. */
    public static final String NIC_THREADS_PROP_NAME = "nicThreads";
    /** Default number of NIC threads (they only run when latency is injected or a timer is pending). */
    public static final int NIC_THREADS_DEFAULT = 1;

    /** Property name of {@link #sendQueueDepth(int)}. */
    public static final String SEND_QUEUE_DEPTH_PROP_NAME = "sendQueueDepth";
    /** Default send queue depth ({@code max_send_wr}). */
    public static final int SEND_QUEUE_DEPTH_DEFAULT = 1024;

    /** Property name of {@link #maxInlineBytes(int)}. */
    public static final String MAX_INLINE_BYTES_PROP_NAME = "maxInlineBytes";
    /** Default {@code max_inline_data}. */
    public static final int MAX_INLINE_BYTES_DEFAULT = 256;

    /** Property name of {@link #spinBeforeParkNs(long)}. */
    public static final String SPIN_BEFORE_PARK_NS_PROP_NAME = "spinBeforeParkNs";
    /** Default: a NIC thread spins for waits shorter than 50 µs and parks for longer ones. */
    public static final long SPIN_BEFORE_PARK_NS_DEFAULT = 50_000;

    private long roundTripLatencyNs = ROUND_TRIP_LATENCY_NS_DEFAULT;
    private long retryTimeoutNs = RETRY_TIMEOUT_NS_DEFAULT;
    private long rnrTimeoutNs = RNR_TIMEOUT_NS_DEFAULT;
    private int nicThreads = NIC_THREADS_DEFAULT;
    private int sendQueueDepth = SEND_QUEUE_DEPTH_DEFAULT;
    private int maxInlineBytes = MAX_INLINE_BYTES_DEFAULT;
    private long spinBeforeParkNs = SPIN_BEFORE_PARK_NS_DEFAULT;

    /** Creates a context with the defaults. */
    public SimContext() {
    }

    /**
     * The preset that models a 2 µs round trip: each request's remote effect happens 1 µs after posting and its
     * completion 2 µs after posting, performed by NIC threads.
     *
     * @return a new context
     */
    public static SimContext twoMicrosecondRoundTrip() {
        return new SimContext().roundTripLatencyNs(TWO_MICROSECONDS_NS);
    }

    /**
     * Reads settings from properties named by the {@code *_PROP_NAME} constants; absent ones keep their defaults.
     *
     * @param properties name to value
     * @return a new context
     * @throws IllegalArgumentException for an unknown name or a value that is not a number
     */
    public static SimContext fromProperties(Map<String, String> properties) {
        SimContext c = new SimContext();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case ROUND_TRIP_LATENCY_NS_PROP_NAME -> c.roundTripLatencyNs(parse(e.getKey(), v));
                case RETRY_TIMEOUT_NS_PROP_NAME -> c.retryTimeoutNs(parse(e.getKey(), v));
                case RNR_TIMEOUT_NS_PROP_NAME -> c.rnrTimeoutNs(parse(e.getKey(), v));
                case NIC_THREADS_PROP_NAME -> c.nicThreads((int) parse(e.getKey(), v));
                case SEND_QUEUE_DEPTH_PROP_NAME -> c.sendQueueDepth((int) parse(e.getKey(), v));
                case MAX_INLINE_BYTES_PROP_NAME -> c.maxInlineBytes((int) parse(e.getKey(), v));
                case SPIN_BEFORE_PARK_NS_PROP_NAME -> c.spinBeforeParkNs(parse(e.getKey(), v));
                default -> throw new IllegalArgumentException("unknown sim fabric property '" + e.getKey() + "'");
            }
        }
        return c;
    }

    private static long parse(String name, String value) {
        try {
            return Long.parseLong(value.trim().replace("_", ""));
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException("property '" + name + "' needs a whole number, got '" + value + "'", ex);
        }
    }

    /**
     * @param nanos round-trip latency injected into every request; 0 executes requests on the posting thread
     * @return this
     */
    public SimContext roundTripLatencyNs(long nanos) {
        this.roundTripLatencyNs = nanos;
        return this;
    }

    /**
     * @param nanos how long after posting a request to a crashed node completes with RETRY_EXC_ERR
     * @return this
     */
    public SimContext retryTimeoutNs(long nanos) {
        this.retryTimeoutNs = nanos;
        return this;
    }

    /**
     * @param nanos how long a SEND waits for the peer to post a RECV before RNR_RETRY_EXC_ERR
     * @return this
     */
    public SimContext rnrTimeoutNs(long nanos) {
        this.rnrTimeoutNs = nanos;
        return this;
    }

    /**
     * @param threads NIC threads serving queue pairs (a queue pair always uses the same one)
     * @return this
     */
    public SimContext nicThreads(int threads) {
        this.nicThreads = threads;
        return this;
    }

    /**
     * @param depth requests a send queue holds until they complete
     * @return this
     */
    public SimContext sendQueueDepth(int depth) {
        this.sendQueueDepth = depth;
        return this;
    }

    /**
     * @param bytes the largest INLINE WRITE or SEND
     * @return this
     */
    public SimContext maxInlineBytes(int bytes) {
        this.maxInlineBytes = bytes;
        return this;
    }

    /**
     * @param nanos a NIC thread spins for waits shorter than this and parks for longer ones
     * @return this
     */
    public SimContext spinBeforeParkNs(long nanos) {
        this.spinBeforeParkNs = nanos;
        return this;
    }

    /** @return the injected round-trip latency in nanoseconds */
    public long roundTripLatencyNs() {
        return roundTripLatencyNs;
    }

    /** @return the transport retry timeout in nanoseconds */
    public long retryTimeoutNs() {
        return retryTimeoutNs;
    }

    /** @return the receiver-not-ready timeout in nanoseconds */
    public long rnrTimeoutNs() {
        return rnrTimeoutNs;
    }

    /** @return the number of NIC threads */
    public int nicThreads() {
        return nicThreads;
    }

    /** @return the send queue depth */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** @return the largest inline payload in bytes */
    public int maxInlineBytes() {
        return maxInlineBytes;
    }

    /** @return the NIC threads' spin threshold in nanoseconds */
    public long spinBeforeParkNs() {
        return spinBeforeParkNs;
    }

    /**
     * Validates the settings.
     *
     * @return this
     * @throws IllegalArgumentException naming the first bad setting
     */
    public SimContext conclude() {
        require(roundTripLatencyNs >= 0, ROUND_TRIP_LATENCY_NS_PROP_NAME + " must be >= 0: " + roundTripLatencyNs);
        require(retryTimeoutNs > 0, RETRY_TIMEOUT_NS_PROP_NAME + " must be > 0: " + retryTimeoutNs);
        require(rnrTimeoutNs > 0, RNR_TIMEOUT_NS_PROP_NAME + " must be > 0: " + rnrTimeoutNs);
        require(nicThreads >= 1 && nicThreads <= 64, NIC_THREADS_PROP_NAME + " must be in 1..64: " + nicThreads);
        require(sendQueueDepth >= 1, SEND_QUEUE_DEPTH_PROP_NAME + " must be >= 1: " + sendQueueDepth);
        require(maxInlineBytes >= 0, MAX_INLINE_BYTES_PROP_NAME + " must be >= 0: " + maxInlineBytes);
        require(spinBeforeParkNs >= 0, SPIN_BEFORE_PARK_NS_PROP_NAME + " must be >= 0: " + spinBeforeParkNs);
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    @Override
    public String toString() {
        return "SimContext{roundTripLatencyNs=" + roundTripLatencyNs + ", retryTimeoutNs=" + retryTimeoutNs
            + ", rnrTimeoutNs=" + rnrTimeoutNs + ", nicThreads=" + nicThreads + ", sendQueueDepth=" + sendQueueDepth
            + ", maxInlineBytes=" + maxInlineBytes + ", spinBeforeParkNs=" + spinBeforeParkNs + '}';
    }
}
