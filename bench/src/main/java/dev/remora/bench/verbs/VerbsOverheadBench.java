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
 * Runs {@link VerbsOverheadBenchmark} and {@link CasBreakdownBenchmark} and prints, for each verb, the fabric's and
 * the raw operation's time and their ratio, then the CAS breakdown. The goal is a single-threaded blocking CAS within 10x of the raw CAS.
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
            .include(CasBreakdownBenchmark.class.getName() + "\\.")
            .build();
        Collection<RunResult> results = new Runner(options).run();

        Map<String, Double> scores = new TreeMap<>();
        Map<String, Double> best = new TreeMap<>();
        String unit = "ns/op";
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            String name = label.substring(label.lastIndexOf('.') + 1);
            scores.put(name, r.getPrimaryResult().getScore());
            best.put(name, r.getPrimaryResult().getStatistics().getMin());
            unit = r.getPrimaryResult().getScoreUnit();
        }
        System.out.println();
        System.out.println("Fabric overhead (single thread, blocking, no injected latency):");
        System.out.println("(mean over measured iterations; 'best' compares the fastest iteration of each, which is less"
            + " disturbed by other load on the machine)");
        System.out.printf(Locale.ROOT, "%-8s %14s %14s %11s %11s%n", "verb", "fabric " + unit, "raw " + unit,
            "fabric/raw", "best ratio");
        for (String verb : VERBS) {
            Double fabric = scores.get("fabric" + verb);
            Double raw = scores.get("raw" + verb);
            if (fabric == null || raw == null) {
                continue;
            }
            System.out.printf(Locale.ROOT, "%-8s %14.1f %14.1f %10.1fx %10.1fx%n", verb, fabric, raw, fabric / raw,
                best.get("fabric" + verb) / best.get("raw" + verb));
        }
        Double rawCasScore = scores.get("rawCas");
        if (rawCasScore != null && scores.containsKey("endpointCas")) {
            System.out.println();
            System.out.println("Where a fabric CAS's time goes (each row issues the same CAS through fewer layers):");
            System.out.printf(Locale.ROOT, "%-16s %14s %10s%n", "layers", unit, "x raw CAS");
            for (String row : new String[] {"endpointCas", "tagCas", "queuePairCas", "monitorEnterExit", "nanoTime"}) {
                Double score = scores.get(row);
                if (score != null) {
                    System.out.printf(Locale.ROOT, "%-16s %14.1f %9.1fx%n", row, score, score / rawCasScore);
                }
            }
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
