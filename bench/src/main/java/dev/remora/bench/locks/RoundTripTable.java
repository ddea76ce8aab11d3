package dev.remora.bench.locks;

import dev.remora.locks.RemoteLock;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Part (a): the verbs and round trips of an uncontended acquire and release of each lock, from
 * {@link Endpoint#statistics()} deltas averaged over many iterations, beside the design's minimum.
 *
 * <p>Three nodes: the lock's home, a client whose thread takes the lock, and a data node. Four measurements per lock:
 * an empty critical section released with {@link RemoteLock#unlock()} (acquire and release apart); a critical
 * section that WRITEs one word to the data node, released with {@code unlock()} (the ordered release's flush READ
 * shows) and with {@link RemoteLock#unlockWeak()}; and an empty critical section from the home node's own thread,
 * through a loopback queue pair.
 */
final class RoundTripTable {

    /** One lock's measurements, each per operation. */
    record Row(LockDesign design, VerbsStatistics acquire, VerbsStatistics release, VerbsStatistics orderedAfterWrite,
               VerbsStatistics weakAfterWrite, VerbsStatistics fromHome, int iterations) {

        double acquireRoundTrips() {
            return perOp(acquire.roundTrips());
        }

        double releaseRoundTrips() {
            return perOp(release.roundTrips());
        }

        double perOp(long count) {
            return (double) count / iterations;
        }

        boolean reachesMinimum() {
            return acquireRoundTrips() <= design.minAcquireRoundTrips
                && releaseRoundTrips() <= design.minReleaseRoundTrips;
        }
    }

    private RoundTripTable() {
    }

    /**
     * Measures every design.
     *
     * @param context the fabric's settings
     * @param iterations acquire/release pairs per measurement
     * @return one row per design
     */
    static List<Row> measure(SimContext context, int iterations) {
        return measure(() -> SimFabric.open(context), iterations);
    }

    /**
     * Measures every design on any provider (the counts are a property of each protocol, not of the fabric).
     *
     * @param fabrics opens a fresh fabric
     * @param iterations acquire/release pairs per measurement
     * @return one row per design
     */
    static List<Row> measure(java.util.function.Supplier<Fabric> fabrics, int iterations) {
        List<Row> rows = new ArrayList<>();
        for (LockDesign d : LockDesign.values()) {
            rows.add(measure(d, fabrics, iterations));
        }
        return rows;
    }

    private static Row measure(LockDesign design, java.util.function.Supplier<Fabric> fabrics, int iterations) {
        try (Fabric fabric = fabrics.get()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            Node data = fabric.addNode("data");
            RemoteAddress lock = design.create(home, 2);
            RemoteAddress word = data.allocate(Long.BYTES, Access.ALL).remote(0);
            VerbsStatistics acquire = VerbsStatistics.ZERO;
            VerbsStatistics release = VerbsStatistics.ZERO;
            VerbsStatistics ordered = VerbsStatistics.ZERO;
            VerbsStatistics weak = VerbsStatistics.ZERO;
            try (Endpoint ep = Endpoint.open(client)) {
                RemoteLock l = design.attach(ep, lock, 2, 0);
                // Warm-up: connects the queue pairs (and, for MCS, leaves the slot WRITEs of attach behind us).
                l.lock();
                l.unlock();
                for (int i = 0; i < iterations; i++) {
                    VerbsStatistics s0 = ep.statistics();
                    l.lock();
                    VerbsStatistics s1 = ep.statistics();
                    l.unlock();
                    VerbsStatistics s2 = ep.statistics();
                    acquire = acquire.plus(s1.minus(s0));
                    release = release.plus(s2.minus(s1));
                }
                if (design.exclusive) {
                    for (int i = 0; i < iterations; i++) {
                        l.lock();
                        ep.writeLong(word, i);
                        VerbsStatistics s1 = ep.statistics();
                        l.unlock();
                        ordered = ordered.plus(ep.statistics().minus(s1));
                    }
                    for (int i = 0; i < iterations; i++) {
                        l.lock();
                        ep.writeLong(word, i);
                        VerbsStatistics s1 = ep.statistics();
                        l.unlockWeak();
                        weak = weak.plus(ep.statistics().minus(s1));
                    }
                }
            }
            VerbsStatistics fromHome = VerbsStatistics.ZERO;
            try (Endpoint ep = Endpoint.open(home)) {
                // The home's own thread: through a loopback queue pair like everyone else, never CPU atomics (R14).
                RemoteLock l = design.attach(ep, lock, 2, 1);
                l.lock();
                l.unlock();
                VerbsStatistics s0 = ep.statistics();
                for (int i = 0; i < iterations; i++) {
                    l.lock();
                    l.unlock();
                }
                fromHome = ep.statistics().minus(s0);
            }
            return new Row(design, acquire, release, ordered, weak, fromHome, iterations);
        }
    }

    /**
     * Prints the table.
     *
     * @param out where
     * @param rows the measurements
     */
    static void print(PrintStream out, List<Row> rows) {
        out.printf(Locale.ROOT, "%-24s %-14s %-14s %6s %6s %7s %7s  %-18s %-18s %9s%n", "lock", "acquire verbs",
            "release verbs", "acq RT", "rel RT", "minimum", "reached", "CS WRITE, unlock()", "CS WRITE, weak",
            "from home");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-24s %-14s %-14s %6s %6s %7s %7s  %-18s %-18s %9s%n", r.design.label,
                verbs(r.acquire, r.iterations), verbs(r.release, r.iterations), number(r.acquireRoundTrips()),
                number(r.releaseRoundTrips()),
                r.design.minAcquireRoundTrips + "+" + r.design.minReleaseRoundTrips, r.reachesMinimum() ? "yes" : "NO",
                r.design.exclusive ? release(r.orderedAfterWrite, r.iterations) : "n/a",
                r.design.exclusive ? release(r.weakAfterWrite, r.iterations) : "n/a",
                number(r.perOp(r.fromHome.roundTrips())));
        }
        out.println("(RT = round trips per operation, averaged; minimum = acquire+release for this design;");
        out.println(" CS WRITE = the release's verbs and RT after a critical section that WROTE one word to a third");
        out.println(" node: the ordered unlock() adds one flush READ, unlockWeak() does not; from home = RT of");
        out.println(" acquire+release by the home node's own thread through its loopback queue pair)");
        out.println("why these minimums:");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "  %-24s %s%n", r.design.label, r.design.why);
        }
    }

    private static String release(VerbsStatistics s, int iterations) {
        return verbs(s, iterations) + ", " + number((double) s.roundTrips() / iterations) + " RT";
    }

    /** Verbs per operation, e.g. {@code FAA+READ}; a fractional count shows as {@code 1.02 CAS}. */
    static String verbs(VerbsStatistics s, int iterations) {
        StringBuilder b = new StringBuilder();
        // The order the locks post them in: a ticket's FAA before its READ, a flush READ before a CAS or WRITE.
        append(b, s.fetchAndAdds(), iterations, "FAA");
        append(b, s.reads(), iterations, "READ");
        append(b, s.compareAndSwaps(), iterations, "CAS");
        append(b, s.writes(), iterations, "WRITE");
        return b.length() == 0 ? "none" : b.toString();
    }

    private static void append(StringBuilder b, long count, int iterations, String verb) {
        if (count == 0) {
            return;
        }
        if (b.length() > 0) {
            b.append('+');
        }
        double each = (double) count / iterations;
        if (each != 1.0) {
            b.append(number(each)).append(' ');
        }
        b.append(verb);
    }

    /** An integer without decimals, anything else with two. */
    static String number(double x) {
        return x == Math.rint(x) ? Long.toString((long) x) : String.format(Locale.ROOT, "%.2f", x);
    }
}
