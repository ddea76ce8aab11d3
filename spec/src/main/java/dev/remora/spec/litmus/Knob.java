package dev.remora.spec.litmus;

import java.util.List;

/**
 * A configuration knob of the RDMA memory model: one TLA+ {@code CONSTANT} of {@code Verbs.tla}
 * and the configuration field of the same name in the deterministic fabric.
 *
 * <p>Each knob has a finite set of values and a default. The default is the catalogue's weak
 * model (docs/memory-model.md §7); where the papers leave a verdict open (the tests marked {@code *})
 * the default is the weaker reading, because verifying algorithms under the weaker model is the
 * safe choice.
 */
public enum Knob {
    /** R15: {@code HCA} (remote atomics atomic only among themselves) or {@code GLOB}. */
    ATOMIC_CAP(List.of("HCA", "GLOB"), "HCA", false),
    /** R11: a put completes when the target NIC acks it ({@code ON_ACK}) or once placed. */
    PUT_COMPLETION(List.of("ON_ACK", "ON_PLACEMENT"), "ON_ACK", false),
    /** R8: may a later put's remote write pass an earlier get's remote read on one QP. */
    READ_PASSABLE_BY_WRITE(List.of("TRUE", "FALSE"), "TRUE", true),
    /** R19: the target memory region is registered with {@code IBV_ACCESS_RELAXED_ORDERING}. */
    RELAXED_ORDERING(List.of("FALSE", "TRUE"), "FALSE", true),
    /** R18: {@code ibv_query_qp_data_in_order} reports {@code WHOLE_MSG}: words land in order. */
    DATA_IN_ORDER(List.of("FALSE", "TRUE"), "FALSE", true),
    /** Section 3: the strong model RDMA^SC_RMW, one global interleaving of whole operations. */
    SC_MODE(List.of("FALSE", "TRUE"), "FALSE", true);

    private final List<String> values;
    private final String defaultValue;
    private final boolean bool;

    Knob(final List<String> values, final String defaultValue, final boolean bool) {
        this.values = values;
        this.defaultValue = defaultValue;
        this.bool = bool;
    }

    /**
     * The values this knob may take, default first.
     *
     * @return an immutable list of upper-case value names
     */
    public List<String> choices() {
        return values;
    }

    /**
     * The value used when a test or configuration does not set this knob.
     *
     * @return the default value
     */
    public String defaultValue() {
        return defaultValue;
    }

    /**
     * Whether the knob is a TLA+ {@code BOOLEAN} (values {@code TRUE}/{@code FALSE}) rather than
     * a string-valued enumeration.
     *
     * @return true for boolean knobs
     */
    public boolean isBoolean() {
        return bool;
    }

    /**
     * Renders a value of this knob as a TLA+ expression: {@code TRUE}, {@code FALSE} or a string.
     *
     * @param value one of {@link #choices()}
     * @return the TLA+ literal
     */
    public String tlaLiteral(final String value) {
        requireValue(value);
        return bool ? value : '"' + value + '"';
    }

    /**
     * Checks that a value belongs to this knob.
     *
     * @param value a candidate value
     * @return the value, upper-cased
     * @throws IllegalArgumentException if the value is not one of {@link #choices()}
     */
    public String requireValue(final String value) {
        final String upper = value.toUpperCase(java.util.Locale.ROOT);
        if (!values.contains(upper)) {
            throw new IllegalArgumentException(name() + " takes one of " + values + ", not " + value);
        }
        return upper;
    }
}
