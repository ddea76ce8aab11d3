package dev.remora.verbs.testing;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the tests' child JVMs ({@link ChildJvm}) share: their {@code key=value} arguments, from which a fault test's
 * home and clients read their settings, and the first connection to a home that may still be starting.
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

    /**
     * Connects to a node that may still be starting: {@link Fabric#connect} retried every 50 ms while it fails.
     *
     * @param fabric this process's fabric
     * @param address the node's address
     * @param timeoutNs how long to keep trying
     * @param retrying told each failure that is retried
     * @return the node
     * @throws IllegalStateException the last failure, once the time is up
     */
    public static Node connect(Fabric fabric, String address, long timeoutNs,
                               Consumer<IllegalStateException> retrying) {
        long deadline = System.nanoTime() + timeoutNs;
        while (true) {
            try {
                return fabric.connect(address);
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                retrying.accept(e);
                try {
                    TimeUnit.MILLISECONDS.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
