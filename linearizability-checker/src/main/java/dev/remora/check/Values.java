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
     * Normalizes numbers, deeply: integral values of any Java type ({@link Integer},
     * {@link Short}, {@link Byte}, {@link java.math.BigInteger} within range) become
     * {@link Long}, so that 3 from JSON, EDN or Java code are equal; {@link Float} becomes
     * {@link Double}. Lists, sets and maps are copied only when something inside them changes.
     *
     * @param v the value
     * @return the normalized value
     */
    public static Object normalize(Object v) {
        if (v == null || v instanceof Long || v instanceof String) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Float) {
            return ((Float) v).doubleValue();
        }
        if (v instanceof java.math.BigInteger) {
            java.math.BigInteger b = (java.math.BigInteger) v;
            return b.bitLength() < 64 ? (Object) b.longValue() : b;
        }
        if (v instanceof List) {
            List<?> l = (List<?>) v;
            for (int i = 0; i < l.size(); i++) {
                Object e = l.get(i);
                if (normalize(e) != e) {
                    List<Object> out = new java.util.ArrayList<>(l.size());
                    for (Object x : l) {
                        out.add(normalize(x));
                    }
                    return out;
                }
            }
            return v;
        }
        if (v instanceof Set) {
            Set<?> s = (Set<?>) v;
            for (Object e : s) {
                if (normalize(e) != e) {
                    Set<Object> out = new java.util.LinkedHashSet<>();
                    for (Object x : s) {
                        out.add(normalize(x));
                    }
                    return out;
                }
            }
            return v;
        }
        if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (normalize(e.getKey()) != e.getKey() || normalize(e.getValue()) != e.getValue()) {
                    Map<Object, Object> out = new java.util.LinkedHashMap<>();
                    for (Map.Entry<?, ?> x : m.entrySet()) {
                        out.put(normalize(x.getKey()), normalize(x.getValue()));
                    }
                    return out;
                }
            }
            return v;
        }
        return v;
    }
}
