package dev.remora.check;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Helpers for history values, which are {@code null} (nil), {@link Boolean}, {@link Long},
 * {@link Double}, {@link String}, {@link Keyword}, {@link List}, {@link Set} and {@link Map}.
 */
public final class Values {
    private Values() {
    }

    /**
     * Renders a value in EDN syntax.
     *
     * @param v the value
     * @return its EDN text
     */
    public static String show(Object v) {
        if (v == null) {
            return "nil";
        }
        if (v instanceof String) {
            return '"' + ((String) v).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        }
        if (v instanceof List) {
            return ((List<?>) v).stream().map(Values::show).collect(Collectors.joining(" ", "[", "]"));
        }
        if (v instanceof Set) {
            return ((Set<?>) v).stream().map(Values::show).sorted().collect(Collectors.joining(" ", "#{", "}"));
        }
        if (v instanceof Map) {
            return ((Map<?, ?>) v).entrySet().stream().map(e -> show(e.getKey()) + " " + show(e.getValue()))
                    .collect(Collectors.joining(", ", "{", "}"));
        }
        return String.valueOf(v);
    }

    /**
     * Tests whether a value is a list of exactly {@code n} elements.
     *
     * @param v the value
     * @param n the length
     * @return whether it is such a list
     */
    public static boolean isTuple(Object v, int n) {
        return v instanceof List && ((List<?>) v).size() == n;
    }

    /**
     * Normalizes numbers: integral values become {@link Long}, so that 3 from JSON equals 3
     * from EDN.
     *
     * @param v the value
     * @return the normalized value
     */
    public static Object normalize(Object v) {
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof java.math.BigInteger) {
            java.math.BigInteger b = (java.math.BigInteger) v;
            return b.bitLength() < 64 ? (Object) b.longValue() : b;
        }
        return v;
    }
}
