package dev.remora.bench.locks;

import dev.remora.verbs.Fabric;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Each lock's uncontended acquire and release round trips on two providers side by side: they must be equal, since
 * the round-trip count is a property of the protocol, not of the fabric.
 */
public final class RoundTripComparison {
    private RoundTripComparison() {
    }

    /**
     * Measures and prints.
     *
     * @param out where
     * @param baseline the reference provider (e.g. the fast in-process fabric)
     * @param baselineName its name
     * @param other the provider compared
     * @param otherName its name
     * @param iterations acquire/release pairs per lock
     * @return whether every lock has the same acquire and release round trips on both
     */
    public static boolean print(PrintStream out, Supplier<Fabric> baseline, String baselineName, Supplier<Fabric> other,
                                String otherName, int iterations) {
        List<RoundTripTable.Row> a = RoundTripTable.measure(baseline, iterations);
        List<RoundTripTable.Row> b = RoundTripTable.measure(other, iterations);
        out.printf(Locale.ROOT, "%-24s %14s %14s %6s%n", "lock (acquire+release RT)", baselineName, otherName, "equal");
        boolean all = true;
        for (int i = 0; i < a.size(); i++) {
            RoundTripTable.Row x = a.get(i);
            RoundTripTable.Row y = b.get(i);
            boolean eq = x.acquire().roundTrips() == y.acquire().roundTrips()
                && x.release().roundTrips() == y.release().roundTrips();
            all &= eq;
            out.printf(Locale.ROOT, "%-24s %14s %14s %6s%n", x.design().label, rt(x), rt(y), eq ? "yes" : "NO");
        }
        return all;
    }

    private static String rt(RoundTripTable.Row r) {
        return String.format(Locale.ROOT, "%.2f+%.2f", r.acquireRoundTrips(), r.releaseRoundTrips());
    }
}
