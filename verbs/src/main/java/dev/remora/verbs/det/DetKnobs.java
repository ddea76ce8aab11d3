package dev.remora.verbs.det;

import java.util.Map;
import java.util.Objects;

/**
 * The memory-model knobs of the deterministic fabric: the same names and values as the TLA+ {@code CONSTANTS} of
 * {@code spec/rdma/Verbs.tla}. {@link #WEAK} (the defaults) is the weak model of docs/memory-model.md §7 with the
 * weaker reading of every unconfirmed rule; algorithms are verified under it.
 *
 * @param atomicCap R15: {@code HCA} (remote atomics atomic only among themselves) or {@code GLOB}
 * @param putCompletion R11: a WRITE completes once acknowledged ({@code ON_ACK}) or once placed
 * @param readPassableByWrite R8: a later WRITE's remote write may pass an earlier READ's remote read on one queue pair
 * @param relaxedOrdering R19: target memory registered with relaxed ordering, so R6 is dropped
 * @param dataInOrder R18: the words of one multi-word WRITE land in address order
 * @param scMode §3: the strong model, one global interleaving of whole operations, no store buffers
 */
public record DetKnobs(AtomicCap atomicCap, PutCompletion putCompletion, boolean readPassableByWrite,
                       boolean relaxedOrdering, boolean dataInOrder, boolean scMode) {

    /** R15 values. */
    public enum AtomicCap {
        /** {@code IBV_ATOMIC_HCA}: CPU stores and other queue pairs' WRITEs may land inside a remote atomic. */
        HCA,
        /** {@code IBV_ATOMIC_GLOB}: a remote atomic is one indivisible step. */
        GLOB
    }

    /** R11 values. */
    public enum PutCompletion {
        /** A WRITE completes once its data has been read and acknowledged, perhaps before it is placed. */
        ON_ACK,
        /** A WRITE completes only once every word is placed. */
        ON_PLACEMENT
    }

    /** The defaults: the weak model. */
    public static final DetKnobs WEAK = new DetKnobs(AtomicCap.HCA, PutCompletion.ON_ACK, true, false, false, false);

    /** The strong model RDMA^SC_RMW. */
    public static final DetKnobs SC = WEAK.withScMode(true);

    /** Validates. */
    public DetKnobs {
        Objects.requireNonNull(atomicCap, "atomicCap");
        Objects.requireNonNull(putCompletion, "putCompletion");
    }

    /**
     * Reads knobs by their TLA+ names ({@code ATOMIC_CAP=GLOB}, {@code SC_MODE=TRUE}, ...); absent ones keep the
     * weak defaults.
     *
     * @param values knob name to value, upper or lower case
     * @return the knobs
     * @throws IllegalArgumentException naming an unknown knob or value
     */
    public static DetKnobs fromNames(Map<String, String> values) {
        DetKnobs k = WEAK;
        for (Map.Entry<String, String> e : values.entrySet()) {
            String v = e.getValue().trim().toUpperCase(java.util.Locale.ROOT);
            switch (e.getKey().trim().toUpperCase(java.util.Locale.ROOT)) {
                case "ATOMIC_CAP" -> k = new DetKnobs(enumValue(AtomicCap.class, "ATOMIC_CAP", v), k.putCompletion,
                    k.readPassableByWrite, k.relaxedOrdering, k.dataInOrder, k.scMode);
                case "PUT_COMPLETION" -> k = new DetKnobs(k.atomicCap, enumValue(PutCompletion.class, "PUT_COMPLETION",
                    v), k.readPassableByWrite, k.relaxedOrdering, k.dataInOrder, k.scMode);
                case "READ_PASSABLE_BY_WRITE" -> k = new DetKnobs(k.atomicCap, k.putCompletion, bool(e.getKey(), v),
                    k.relaxedOrdering, k.dataInOrder, k.scMode);
                case "RELAXED_ORDERING" -> k = new DetKnobs(k.atomicCap, k.putCompletion, k.readPassableByWrite,
                    bool(e.getKey(), v), k.dataInOrder, k.scMode);
                case "DATA_IN_ORDER" -> k = new DetKnobs(k.atomicCap, k.putCompletion, k.readPassableByWrite,
                    k.relaxedOrdering, bool(e.getKey(), v), k.scMode);
                case "SC_MODE" -> k = k.withScMode(bool(e.getKey(), v));
                default -> throw new IllegalArgumentException("unknown knob '" + e.getKey() + "' (known: ATOMIC_CAP, "
                    + "PUT_COMPLETION, READ_PASSABLE_BY_WRITE, RELAXED_ORDERING, DATA_IN_ORDER, SC_MODE)");
            }
        }
        return k;
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String knob, String v) {
        try {
            return Enum.valueOf(type, v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("knob " + knob + " takes " + java.util.Arrays.toString(
                type.getEnumConstants()) + ", not '" + v + "'", e);
        }
    }

    private static boolean bool(String knob, String v) {
        if (v.equals("TRUE")) {
            return true;
        }
        if (v.equals("FALSE")) {
            return false;
        }
        throw new IllegalArgumentException("knob " + knob + " takes TRUE or FALSE, not '" + v + "'");
    }

    /**
     * @param sc the new SC_MODE
     * @return a copy with SC_MODE changed
     */
    public DetKnobs withScMode(boolean sc) {
        return new DetKnobs(atomicCap, putCompletion, readPassableByWrite, relaxedOrdering, dataInOrder, sc);
    }

    /** @return the knobs in TLA+ form, e.g. {@code ATOMIC_CAP=HCA, ...} */
    public String describe() {
        return "ATOMIC_CAP=" + atomicCap + ", PUT_COMPLETION=" + putCompletion + ", READ_PASSABLE_BY_WRITE="
            + up(readPassableByWrite) + ", RELAXED_ORDERING=" + up(relaxedOrdering) + ", DATA_IN_ORDER="
            + up(dataInOrder) + ", SC_MODE=" + up(scMode);
    }

    private static String up(boolean b) {
        return b ? "TRUE" : "FALSE";
    }
}
