package dev.remora.bench.verbs;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs {@link VerbsOverheadBenchmark} and prints, for each verb, the fabric's and the raw operation's time and their
 * ratio. The goal is a single-threaded blocking CAS within 10x of the raw CAS.
 *
 * <p>Arguments are JMH's command line options, e.g.
 * {@code java -cp bench/target/remora-bench.jar dev.remora.bench.verbs.VerbsOverheadBench -wi 3 -i 5 -f 1 -w 1s
 * -r 1s}; with none, the benchmark's annotations apply (3 warm-up and 5 measured one-second iterations, one fork).
 */
public final class VerbsOverheadBench {
    /** The goal for fabric CAS / raw CAS. */
    static final double CAS_RATIO_GOAL = 10.0;

    private static final String[] VERBS = {"Cas", "Faa", "Read64", "Write64"};

    private VerbsOverheadBench() {
    }

    /**
     * Runs the benchmarks and prints the table.
     *
     * @param args JMH command line options
     * @throws RunnerException if JMH fails
     * @throws CommandLineOptionException if the options are malformed
     */
    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        CommandLineOptions cli = new CommandLineOptions(args);
        Options options = new OptionsBuilder()
            .parent(cli)
            .include(VerbsOverheadBenchmark.class.getName() + "\\.")
            .build();
        Collection<RunResult> results = new Runner(options).run();

        Map<String, Double> scores = new TreeMap<>();
        String unit = "ns/op";
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            scores.put(label.substring(label.lastIndexOf('.') + 1), r.getPrimaryResult().getScore());
            unit = r.getPrimaryResult().getScoreUnit();
        }
        System.out.println();
        System.out.println("Fabric overhead (single thread, blocking, no injected latency):");
        System.out.printf(Locale.ROOT, "%-8s %14s %14s %10s%n", "verb", "fabric " + unit, "raw " + unit,
            "fabric/raw");
        for (String verb : VERBS) {
            Double fabric = scores.get("fabric" + verb);
            Double raw = scores.get("raw" + verb);
            if (fabric == null || raw == null) {
                continue;
            }
            System.out.printf(Locale.ROOT, "%-8s %14.1f %14.1f %9.1fx%n", verb, fabric, raw, fabric / raw);
        }
        Double fabricCas = scores.get("fabricCas");
        Double rawCas = scores.get("rawCas");
        if (fabricCas != null && rawCas != null) {
            double ratio = fabricCas / rawCas;
            System.out.printf(Locale.ROOT, "CAS goal (within %.0fx of raw): %s (%.1fx)%n", CAS_RATIO_GOAL,
                ratio <= CAS_RATIO_GOAL ? "met" : "NOT met", ratio);
        }
    }
}
