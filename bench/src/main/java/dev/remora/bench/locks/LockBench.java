package dev.remora.bench.locks;

import dev.remora.verbs.sim.SimContext;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The remote locks' benchmark driver (see the package comment). Usage:
 * <pre>
 * java -cp bench/target/remora-bench.jar dev.remora.bench.locks.LockBench [--seconds S] [--threads 2,4,8,16]
 *     [--locks cas,ticket,mcs,lease,rw-write] [--warmup-seconds S] [--nic-threads N] [--iterations N]
 *     [--round-trips-only]
 * </pre>
 * {@code --seconds} is the time per contention point (2 by default), {@code --iterations} the acquire/release pairs
 * averaged in the round-trip table (1,000). Prints a {@code FAIL} line and exits with status 1 when a counter does not
 * equal its number of acquisitions or a run does not finish in time; a watchdog ends the JVM with status 2 if the
 * whole run overruns its budget.
 */
public final class LockBench {
    private static final long NS_PER_S = 1_000_000_000L;
    /** How long a contention point may take to wind down after its deadline before it counts as stuck. */
    private static final long GRACE_NS = 20 * NS_PER_S;

    private LockBench() {
    }

    /** Parsed command line. */
    private record Options(double seconds, int[] threads, List<LockDesign> locks, double warmupSeconds,
                           int nicThreads, int iterations, boolean roundTripsOnly) {

        static Options parse(String[] args) {
            double seconds = 2;
            int[] threads = {2, 4, 8, 16};
            List<LockDesign> locks = List.of(LockDesign.CAS_SPIN, LockDesign.TICKET, LockDesign.MCS,
                LockDesign.LEASE, LockDesign.RW_WRITE);
            double warmup = 0.5;
            int nic = SimContext.NIC_THREADS_DEFAULT;
            int iterations = 1_000;
            boolean roundTripsOnly = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--seconds" -> seconds = Double.parseDouble(value(args, ++i, a));
                    case "--warmup-seconds" -> warmup = Double.parseDouble(value(args, ++i, a));
                    case "--nic-threads" -> nic = Integer.parseInt(value(args, ++i, a));
                    case "--iterations" -> iterations = Integer.parseInt(value(args, ++i, a));
                    case "--round-trips-only" -> roundTripsOnly = true;
                    case "--threads" -> {
                        String[] parts = value(args, ++i, a).split(",");
                        threads = new int[parts.length];
                        for (int k = 0; k < parts.length; k++) {
                            threads[k] = Integer.parseInt(parts[k].trim());
                        }
                    }
                    case "--locks" -> {
                        List<LockDesign> chosen = new ArrayList<>();
                        for (String k : value(args, ++i, a).split(",")) {
                            LockDesign d = LockDesign.byKey(k.trim());
                            if (!d.exclusive) {
                                throw new IllegalArgumentException(k + " does not exclude: its counter would lose"
                                    + " updates by design, so it has no contention point");
                            }
                            chosen.add(d);
                        }
                        locks = chosen;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (seconds <= 0 || warmup < 0 || iterations < 1 || threads.length == 0) {
                throw new IllegalArgumentException("need --seconds > 0, --warmup-seconds >= 0, --iterations >= 1");
            }
            for (int t : threads) {
                if (t < 1 || t > 1024) {
                    throw new IllegalArgumentException("thread counts must be in 1..1024: " + t);
                }
            }
            return new Options(seconds, threads, locks, warmup, nic, iterations, roundTripsOnly);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }

        long durationNs() {
            return (long) (seconds * NS_PER_S);
        }

        long warmupNs() {
            return (long) (warmupSeconds * NS_PER_S);
        }

        /** Every point at its duration plus its grace, the warm-ups, and a minute for the rest. */
        long budgetNs() {
            long points = (long) threads.length * (locks.size() + 1);
            return roundTripsOnly ? 60 * NS_PER_S
                : points * (durationNs() + GRACE_NS) + locks.size() * (warmupNs() + GRACE_NS) + 60 * NS_PER_S;
        }
    }

    /**
     * Runs both parts and prints the tables.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("LockBench: " + e.getMessage());
            System.exit(64);
            return;
        }
        startWatchdog(o.budgetNs());
        PrintStream out = System.out;
        SimContext context = SimContext.twoMicrosecondRoundTrip().nicThreads(o.nicThreads());
        out.printf(Locale.ROOT, "LockBench: JVM %s, %d cores, load average %s; fabric %s%n",
            System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), loadAverage(), context);

        out.println();
        out.println("(a) Uncontended lock()+unlock(), client node -> home node, " + o.iterations() + " iterations");
        List<RoundTripTable.Row> rows = RoundTripTable.measure(context, o.iterations());
        RoundTripTable.print(out, rows);
        boolean ok = true;
        if (o.roundTripsOnly()) {
            out.println();
            out.println("load average at the end: " + loadAverage());
            return;
        }

        out.println();
        out.printf(Locale.ROOT, "(b) Contention: %.1f s per point; each thread on its own client node; critical section ="
            + " READ+WRITE of a counter on a third node; ordered unlock(); baseline = ReentrantLock (non-fair) on a"
            + " local long, same shape%n", o.seconds());
        for (LockDesign d : o.locks()) {
            if (o.warmupNs() > 0) {
                ContentionRun.Result w = ContentionRun.remote(d, context, 4, o.warmupNs(), GRACE_NS);
                if (!w.ok()) {
                    out.println("FAIL warm-up " + d.label + ": " + w.failures());
                    ok = false;
                }
            }
        }
        if (o.warmupNs() > 0) {
            ContentionRun.baseline(4, o.warmupNs(), GRACE_NS);
        }
        out.printf(Locale.ROOT, "%7s  %-24s %12s %12s %7s %9s %9s %7s  %s%n", "threads", "lock", "ops/s",
            "x baseline", "Jain", "min/thr", "max/thr", "RT/op", "counter check");
        for (int threads : o.threads()) {
            ContentionRun.Result base = ContentionRun.baseline(threads, o.durationNs(), GRACE_NS);
            ok &= print(out, threads, "ReentrantLock (local)", base, base);
            for (LockDesign d : o.locks()) {
                ContentionRun.Result r = ContentionRun.remote(d, context, threads, o.durationNs(), GRACE_NS);
                ok &= print(out, threads, d.label, r, base);
            }
            out.println("         load average " + loadAverage());
        }
        out.println("(ops/s = acquisitions completed before the deadline per second; x baseline = ops/s over"
            + " ReentrantLock's at the same thread count; Jain = (sum x)^2 / (n sum x^2) over per-thread"
            + " acquisitions, 1 = perfectly fair, 1/n = one thread got everything; RT/op = the fabric's round trips"
            + " per acquisition, every thread's, the critical section's READ and WRITE and the failed attempts and"
            + " polls included; uncontended it is acquire + 2 + flush READ + release)");
        out.println("load average at the end: " + loadAverage());
        if (!ok) {
            out.println("FAIL: see the lines above");
            System.exit(1);
        }
    }

    private static boolean print(PrintStream out, int threads, String label, ContentionRun.Result r,
                                 ContentionRun.Result base) {
        if (!r.ok()) {
            out.printf(Locale.ROOT, "%7d  %-24s FAIL %s%n", threads, label, r.failures());
            return false;
        }
        double rt = r.roundTripsPerOp();
        out.printf(Locale.ROOT, "%7d  %-24s %12.0f %12s %7.3f %9d %9d %7s  ok (%d = %d)%n", threads, label,
            r.opsPerSecond(), ratio(r.opsPerSecond() / base.opsPerSecond()), r.jain(), r.min(), r.max(),
            Double.isNaN(rt) ? "-" : String.format(Locale.ROOT, "%.1f", rt), r.counter(), r.total());
        return true;
    }

    /** Three significant digits, without switching to exponents for small ratios. */
    private static String ratio(double x) {
        if (x >= 1) {
            return String.format(Locale.ROOT, "%.2f", x);
        }
        int decimals = Math.min(8, 2 - (int) Math.floor(Math.log10(x)));
        return String.format(Locale.ROOT, "%." + decimals + "f", x);
    }

    private static String loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unavailable" : String.format(Locale.ROOT, "%.2f", load);
    }

    private static void startWatchdog(long budgetNs) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(budgetNs / 1_000_000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("FAIL: LockBench overran its time budget of " + budgetNs / NS_PER_S + " s");
            System.out.flush();
            Runtime.getRuntime().halt(2);
        }, "lock-bench-watchdog");
        t.setDaemon(true);
        t.start();
    }
}
