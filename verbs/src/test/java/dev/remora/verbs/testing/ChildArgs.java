package dev.remora.verbs.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * The {@code key=value} arguments the tests' child JVMs take ({@link ChildJvm}): a fault test's home and clients
 * read their settings from them.
 */
public final class ChildArgs {
    private ChildArgs() {
    }

    /**
     * @param args {@code key=value} words
     * @return them as a map
     * @throws IllegalArgumentException for a word without {@code =} or with an empty key
     */
    public static Map<String, String> parse(String[] args) {
        Map<String, String> m = new HashMap<>();
        for (String w : args) {
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value: " + w);
            }
            m.put(w.substring(0, eq), w.substring(eq + 1));
        }
        return m;
    }

    /**
     * @param args parsed arguments
     * @param key a key that must be given
     * @return its value
     * @throws IllegalArgumentException if it is missing
     */
    public static String required(Map<String, String> args, String key) {
        String v = args.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing argument " + key + "=...");
        }
        return v;
    }

    /**
     * @param args parsed arguments
     * @param key a key whose value is milliseconds
     * @param defaultMs the milliseconds if it is missing
     * @return the value in nanoseconds
     * @throws NumberFormatException if it is not a whole number
     */
    public static long msAsNanos(Map<String, String> args, String key, long defaultMs) {
        return Long.parseLong(args.getOrDefault(key, Long.toString(defaultMs))) * 1_000_000L;
    }
}
