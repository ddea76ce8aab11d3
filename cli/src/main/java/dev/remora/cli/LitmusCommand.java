package dev.remora.cli;

import dev.remora.spec.fabric.FabricLitmusRunner;
import dev.remora.spec.fabric.ProviderLitmusRunner;
import dev.remora.spec.litmus.Expr;
import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusSyntaxException;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import dev.remora.spec.tla.TlaGenerator;
import dev.remora.spec.tla.TlcRunner;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code remora litmus}: runs litmus files on the deterministic fabric (exhaustively, or for a number of seeds) and,
 * with {@code --tlc}, with TLC on the TLA+ model, and says whether they agree with each other and with the file's
 * expected verdicts. It returns the exit status:
 * <ul>
 *   <li>{@value #EXIT_AGREE}: every setting agrees;</li>
 *   <li>{@value #EXIT_DISAGREE}: a forbidden outcome was observed or a verdict disagrees;</li>
 *   <li>{@value #EXIT_UNKNOWN}: some verdict is unknown (a search stopped at {@code --max-states}), none
 *       disagrees;</li>
 *   <li>{@value #EXIT_USAGE}: usage error (bad option or {@code --knob}, missing file); nothing was run;</li>
 *   <li>{@value #EXIT_MALFORMED}: some file is malformed, a directory or not text; the other files were run, and
 *       this takes precedence over {@value #EXIT_DISAGREE} and {@value #EXIT_UNKNOWN}.</li>
 * </ul>
 */
@Command(name = "litmus", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = LitmusCommand.EXIT_USAGE,
    description = "Runs memory-model litmus tests on the deterministic fabric (and TLC with --tlc), or many times on "
        + "a real provider (--fabric socket, sim, disni, ucx), writing a machine-readable result (--result) that "
        + "--compare reads back: the conformance kit for a new NIC.%n"
        + "Prints each outcome with its count and whether the final predicate holds; the last line says agree, "
        + "DISAGREE or UNKNOWN, and for which settings. A directory, a file that is not text or a malformed file "
        + "is reported on one line of standard error and the other files still run; a missing file is a usage "
        + "error and nothing runs.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every setting agrees (the fabric, and TLC with --tlc, with the file's verdicts)",
        "1:a forbidden outcome was observed or a verdict disagrees",
        "2:some verdict unknown (search stopped at --max-states), none disagrees",
        "64:usage error (bad option or --knob, missing file); nothing is run",
        "65:some file malformed, a directory or not text; the other files still run, and 65 takes precedence "
            + "over 1 and 2"})
public final class LitmusCommand implements Callable<Integer> {
    /** Every setting agrees: the fabric (and TLC) with the file, no forbidden outcome observed. */
    static final int EXIT_AGREE = 0;
    /** A forbidden outcome was observed or a verdict disagrees. */
    static final int EXIT_DISAGREE = 1;
    /** Some verdict is unknown because a search stopped at {@code --max-states}; none disagrees. */
    static final int EXIT_UNKNOWN = 2;
    /** Usage error: a bad option or a missing file; nothing was run. */
    static final int EXIT_USAGE = 64;
    /** Some file is malformed, a directory or not text; the other files were run. */
    static final int EXIT_MALFORMED = 65;

    @Option(names = "--knob", paramLabel = "NAME=VALUE", description = "Run only this knob setting (repeatable), "
        + "e.g. --knob ATOMIC_CAP=GLOB. Default: every setting the file's verdicts depend on.")
    List<String> knobs = new ArrayList<>();

    @Option(names = "--seeds", paramLabel = "N", description = "Run N seeded executions instead of the exhaustive "
        + "search.")
    Integer seeds;

    @Option(names = "--first-seed", defaultValue = "1", description = "First seed with --seeds (default "
        + "${DEFAULT-VALUE}).")
    long firstSeed;

    @Option(names = "--exhaustive", description = "Enumerate every execution (the default).")
    boolean exhaustive;

    @Option(names = "--tlc", description = "Also model-check each file and setting with TLC and compare verdicts.")
    boolean tlc;

    @Option(names = "--max-states", defaultValue = "2000000", description = "Bound of the exhaustive search "
        + "(default ${DEFAULT-VALUE}). A search stopped there leaves the verdict unknown unless it found an outcome "
        + "satisfying final.")
    long maxStates;

    @Option(names = "--fabric", paramLabel = "PROVIDER", defaultValue = "det", description = "Where to run: det (the "
        + "deterministic fabric, every execution or seeds; default), or a real provider (socket, sim): each test's "
        + "threads run on their nodes --runs times, like litmus7 on CPUs, and the outcomes are counted.")
    String fabric;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1000", description = "Runs per test on a real "
        + "provider (default 1000).")
    int runs;

    @CommandLine.Mixin
    PropertyOptions properties;

    @Option(names = "--result", paramLabel = "FILE", description = "With a real provider (--fabric socket, sim, "
        + "disni, ucx): where to write the machine-readable result (JSON Lines: the run's fabric, device, firmware, "
        + "host, JDK, knobs, runs and date, then each test's outcomes classified by the model). Default: "
        + "litmus-PROVIDER-DATE.jsonl in the current directory.")
    Path result;

    @Option(names = "--compare", paramLabel = "RESULT", description = "Read a result file back (validating it) and "
        + "say, per test, whether the provider stayed inside the model and which weak outcomes it showed. Takes no "
        + "litmus files.")
    Path compare;

    @Parameters(paramLabel = "FILE", arity = "0..*", description = "Litmus files (see spec/litmus/README.md).")
    List<Path> files = new ArrayList<>();

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public LitmusCommand() {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (compare != null) {
            if (!files.isEmpty() || result != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--compare takes a result file and no "
                    + "litmus files or --result");
            }
            return LitmusCompare.run(compare, out, err);
        }
        if (files.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'FILE'");
        }
        if (seeds != null && exhaustive) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds and --exhaustive exclude each other");
        }
        if (seeds != null && seeds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds must be positive: " + seeds);
        }
        KnobSettings only = knobs.isEmpty() ? null : KnobSettings.defaults();
        for (String k : knobs) {
            try {
                only = withKnob(only, k);
            } catch (IllegalArgumentException e) {
                err.println("bad --knob '" + k + "': " + e.getMessage() + "; known knobs: " + knownKnobs());
                err.flush();
                return EXIT_USAGE;
            }
        }
        boolean missing = false;
        for (Path f : files) {
            if (!Files.exists(f)) {
                err.println(f + ": no such file");
                missing = true;
            }
        }
        if (missing) {
            err.flush();
            return EXIT_USAGE;
        }
        LitmusParser parser = new LitmusParser();
        List<LitmusTest> tests = new ArrayList<>();
        for (Path f : files) {
            LitmusTest test = load(parser, f, err);
            if (test != null) {
                tests.add(test);
            }
        }
        err.flush();
        int notRun = files.size() - tests.size();
        if (result != null && fabric.equals("det")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--result applies to a real provider "
                + "(--fabric socket, sim, disni, ucx), not to the deterministic fabric");
        }
        if (!fabric.equals("det")) {
            if (tlc || seeds != null || !knobs.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tlc, --seeds and --knob apply to the "
                    + "deterministic fabric, not to --fabric " + fabric);
            }
            if (runs < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--runs must be positive: " + runs);
            }
            return onProvider(tests, notRun, out);
        }
        TlcRunner runner = tlc ? new TlcRunner(TlcRunner.locateTlatools(), Duration.ofMinutes(5)) : null;
        Path tlcDir = tlc ? Files.createTempDirectory("remora-litmus-tlc") : null;
        if (tlc) {
            TlaGenerator.copyModelModules(tlcDir);
        }
        List<String> disagreeing = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        int settingsRun = 0;
        for (LitmusTest test : tests) {
            List<KnobSettings> settings = only != null ? List.of(only) : test.relevantSettings();
            for (KnobSettings s : settings) {
                settingsRun++;
                FabricLitmusRunner.Result r = seeds == null
                    ? FabricLitmusRunner.exhaustive(test, s, maxStates)
                    : FabricLitmusRunner.seeded(test, s, firstSeed, seeds);
                Verdict expected = r.expected();
                out.printf(Locale.ROOT, "%s [%s] %s: final %s is expected %s%n", test.id(), s.label(),
                    test.source(), show(test.finalPredicate()), lower(expected));
                for (Map.Entry<Map<String, Long>, Long> e : sorted(r.outcomes()).entrySet()) {
                    boolean matches = test.outcomeMatches(e.getKey());
                    String mark = !matches ? "" : expected == Verdict.ALLOWED ? "  <- final holds (allowed)"
                        : "  <- final holds: FORBIDDEN OUTCOME OBSERVED";
                    Long seed = r.firstSeeds().get(e.getKey());
                    if (matches && expected == Verdict.FORBIDDEN && seed != null) {
                        mark += "; first with seed " + seed + ", replay: remora litmus --seeds 1 --first-seed " + seed
                            + knobArgs(s) + " " + test.source();
                    }
                    out.printf(Locale.ROOT, "  %-60s %8d %s%s%n", e.getKey(), e.getValue(),
                        seeds == null ? "executions" : "seeds", mark);
                }
                if (r.stuck() > 0) {
                    out.printf(Locale.ROOT, "  %d executions blocked before finishing%n", r.stuck());
                }
                String line;
                boolean ok;
                boolean undecided = false;
                if (seeds != null) {
                    line = "  fabric: " + (r.observed() == Verdict.ALLOWED ? "allowed"
                        : "not observed in " + seeds + " seeds");
                    ok = r.agrees(false);
                } else if (r.complete()) {
                    line = "  fabric: " + lower(r.observed()) + " (" + r.distinctStates() + " states)";
                    ok = r.agrees(true);
                } else if (r.observed() == Verdict.ALLOWED) {
                    // what a cut-short search found are real executions, so a witness still decides the verdict
                    line = "  fabric: allowed (witness found; search stopped at " + r.distinctStates()
                        + " states, --max-states)";
                    ok = r.stuck() == 0 && expected == Verdict.ALLOWED;
                } else {
                    line = "  fabric: search stopped at " + r.distinctStates() + " states (--max-states); verdict "
                        + "unknown";
                    ok = r.stuck() == 0;
                    undecided = true;
                }
                if (tlc) {
                    String module = new TlaGenerator().write(test, s, tlcDir);
                    TlcRunner.Result t = runner.check(tlcDir, module);
                    Verdict tlcVerdict = t.outcome() == TlcRunner.Outcome.VIOLATED ? Verdict.ALLOWED
                        : t.outcome() == TlcRunner.Outcome.HOLDS ? Verdict.FORBIDDEN : null;
                    line += "   tlc: " + (tlcVerdict == null ? t.outcome() + " " + t.summary() : lower(tlcVerdict))
                        + " (" + t.distinctStates() + " states)";
                    // when the fabric agrees with the file, TLC agreeing with the file means it agrees with both
                    ok &= tlcVerdict == expected;
                }
                String label = test.id() + " [" + s.label() + "]";
                if (!ok) {
                    disagreeing.add(label);
                } else if (undecided) {
                    unknown.add(label);
                }
                out.println(line + (ok ? "" : "   <- DISAGREE"));
            }
        }
        if (tlc) {
            if (disagreeing.isEmpty()) {
                TlcRunner.deleteTree(tlcDir); // the generated models and TLC's output are only worth keeping as evidence
            } else {
                out.println("TLC models and output (witnesses) kept in " + tlcDir);
            }
        }
        out.println(summary(tests.size(), settingsRun, disagreeing, unknown)
            + (notRun == 0 ? "" : "; " + count(notRun, "file") + " not run"));
        out.flush();
        if (notRun > 0) {
            return EXIT_MALFORMED;
        }
        return !disagreeing.isEmpty() ? EXIT_DISAGREE : !unknown.isEmpty() ? EXIT_UNKNOWN : EXIT_AGREE;
    }

    /** Runs the tests on a real provider and prints each one's outcome histogram. */
    private int onProvider(List<LitmusTest> tests, int notRun, PrintWriter out) {
        Map<String, String> props = properties.toMap();
        java.util.function.Supplier<dev.remora.verbs.Fabric> fabrics =
            () -> dev.remora.verbs.Fabric.open(fabric, props);
        try {
            fabrics.get().close();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } catch (IllegalStateException e) {
            spec.commandLine().getErr().println("litmus: fabric " + fabric + " cannot run: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return EXIT_USAGE;
        }
        Path resultFile = result != null ? result : Path.of("litmus-" + fabric + "-"
            + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .format(java.time.LocalDateTime.now()) + ".jsonl");
        com.fasterxml.jackson.databind.node.ObjectNode header = LitmusResult.header(fabric, runs);
        List<com.fasterxml.jackson.databind.node.ObjectNode> lines = new ArrayList<>();
        List<String> forbidden = new ArrayList<>();
        List<String> weak = new ArrayList<>();
        int skipped = 0;
        for (LitmusTest test : tests) {
            ProviderLitmusRunner.Result r = ProviderLitmusRunner.run(test, fabrics, runs);
            out.printf(Locale.ROOT, "%s %s on %s: final %s is expected %s%n", test.id(), test.source(), fabric,
                show(test.finalPredicate()), lower(r.expected()));
            LitmusResult.ModelOutcomes model = r.skipped() == null ? LitmusResult.ModelOutcomes.of(test) : null;
            lines.add(LitmusResult.testLine(r, model));
            if (r.skipped() != null) {
                skipped++;
                out.println("  not run: " + r.skipped());
                continue;
            }
            boolean outside = false;
            for (Map<String, Long> o : r.outcomes().keySet()) {
                outside |= model.judge(test, o) == LitmusResult.Model.FORBIDDEN;
            }
            if (outside && !r.forbiddenObserved()) {
                forbidden.add(test.id());
                out.println("  an outcome the model cannot reach was observed (see the result file)");
            }
            for (Map.Entry<Map<String, Long>, Long> e : sorted(r.outcomes()).entrySet()) {
                boolean matches = test.outcomeMatches(e.getKey());
                String mark = !matches ? "" : r.expected() == Verdict.ALLOWED ? "  <- final holds (allowed)"
                    : "  <- final holds: FORBIDDEN OUTCOME OBSERVED";
                out.printf(Locale.ROOT, "  %8d  %s%s%n", e.getValue(), e.getKey(), mark);
            }
            if (r.forbiddenObserved()) {
                forbidden.add(test.id());
            } else if (r.expected() == Verdict.ALLOWED && r.finalOutcomeObserved()) {
                weak.add(test.id());
            }
        }
        try {
            LitmusResult.write(resultFile, header, lines);
        } catch (IOException e) {
            spec.commandLine().getErr().println("cannot write the result file " + resultFile + ": " + e.getMessage());
            spec.commandLine().getErr().flush();
            return EXIT_USAGE;
        }
        out.println("weak outcomes the model allows and " + fabric + " exhibited: " + (weak.isEmpty() ? "none" : weak));
        out.println("result written to " + resultFile + " (read it back with: remora litmus --compare "
            + resultFile + ")");
        if (!forbidden.isEmpty()) {
            out.println("FORBIDDEN outcome observed on " + fabric + ": " + forbidden);
        } else {
            out.println("no forbidden outcome in " + runs + " runs of each of " + (tests.size() - skipped) + " files on "
                + fabric + (skipped == 0 ? "" : "; " + skipped + " not run (faults need the deterministic fabric)")
                + (notRun == 0 ? "" : "; " + notRun + " files unreadable"));
        }
        out.flush();
        return !forbidden.isEmpty() ? EXIT_DISAGREE : notRun > 0 ? EXIT_MALFORMED : EXIT_AGREE;
    }

    /**
     * Applies one {@code --knob NAME=VALUE} argument; names and values are case-insensitive.
     *
     * @param settings the settings so far
     * @param arg the argument
     * @return the settings with that knob set
     * @throws IllegalArgumentException if the argument is not NAME=VALUE, names no knob or gives a value the knob
     *     does not take; the message says which
     */
    private static KnobSettings withKnob(KnobSettings settings, String arg) {
        int eq = arg.indexOf('=');
        if (eq < 0) {
            throw new IllegalArgumentException("expected NAME=VALUE");
        }
        String name = arg.substring(0, eq).trim().toUpperCase(Locale.ROOT);
        String value = arg.substring(eq + 1).trim().toUpperCase(Locale.ROOT);
        for (Knob k : Knob.values()) {
            if (k.name().equals(name)) {
                if (!k.choices().contains(value)) {
                    throw new IllegalArgumentException(k.name() + " takes " + String.join("|", k.choices())
                        + ", not " + arg.substring(eq + 1).trim());
                }
                return settings.with(k, value);
            }
        }
        throw new IllegalArgumentException("no knob " + arg.substring(0, eq).trim());
    }

    /**
     * Every knob with its values, default first.
     *
     * @return for example {@code ATOMIC_CAP (HCA|GLOB), PUT_COMPLETION (ON_ACK|ON_PLACEMENT), ...}
     */
    static String knownKnobs() {
        List<String> all = new ArrayList<>();
        for (Knob k : Knob.values()) {
            all.add(k.name() + " (" + String.join("|", k.choices()) + ")");
        }
        return String.join(", ", all);
    }

    /**
     * Reads and parses one litmus file, or says on one line why it cannot be run.
     *
     * @param parser the parser
     * @param f the file
     * @param err where to say what is wrong with it
     * @return the test, or null if the file is a directory, unreadable, not text or malformed
     */
    private static LitmusTest load(LitmusParser parser, Path f, PrintWriter err) {
        if (Files.isDirectory(f)) {
            err.println(f + ": is a directory, not a litmus file");
            return null;
        }
        String text;
        try {
            text = text(Files.readAllBytes(f));
        } catch (NoSuchFileException e) {
            err.println(f + ": no such file");
            return null;
        } catch (AccessDeniedException e) {
            err.println(f + ": cannot read: permission denied");
            return null;
        } catch (IOException e) {
            err.println(f + ": cannot read: " + e.getMessage());
            return null;
        }
        if (text == null) {
            err.println(f + ": not a text file");
            return null;
        }
        try {
            return parser.parse(f.toString(), text);
        } catch (LitmusSyntaxException e) {
            err.println(e.getMessage());
            return null;
        }
    }

    /**
     * Decodes a litmus file's bytes.
     *
     * @param bytes the file's contents
     * @return the text, or null if the bytes contain a NUL or are not valid UTF-8
     */
    private static String text(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /**
     * The last line of a run: what agreed, which settings disagreed and which could not be decided.
     *
     * @param filesRun files whose settings were run
     * @param settingsRun settings run, over all files
     * @param disagreeing the settings that disagree, as {@code ID [label]}
     * @param unknown the settings left undecided by {@code --max-states}, as {@code ID [label]}
     * @return the line
     */
    private String summary(int filesRun, int settingsRun, List<String> disagreeing, List<String> unknown) {
        if (filesRun == 0) {
            return "nothing run";
        }
        String undecided = "undecided (" + String.join(", ", unknown) + "): search stopped at --max-states";
        if (!disagreeing.isEmpty()) {
            return "DISAGREE: " + disagreeing.size() + " of " + count(settingsRun, "setting") + " ("
                + String.join(", ", disagreeing) + ")" + (unknown.isEmpty() ? "" : "; " + unknown.size() + " "
                + undecided);
        }
        if (!unknown.isEmpty()) {
            int agreed = settingsRun - unknown.size();
            return "UNKNOWN: " + unknown.size() + " of " + count(settingsRun, "setting") + " " + undecided + "; "
                + agreed + (agreed == 1 ? " agrees" : " agree");
        }
        return "agree: " + (tlc ? "fabric and TLC, " : "") + count(filesRun, "file") + ", "
            + count(settingsRun, "setting");
    }

    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** Renders a final predicate in the litmus notation. */
    static String show(Expr e) {
        if (e instanceof Expr.Num n) {
            return Long.toString(n.value());
        }
        if (e instanceof Expr.Bool b) {
            return Boolean.toString(b.value());
        }
        if (e instanceof Expr.Ref r) {
            return r.name();
        }
        if (e instanceof Expr.Cmp c) {
            return show(c.left()) + " " + c.op().text() + " " + show(c.right());
        }
        if (e instanceof Expr.And a) {
            return "(" + show(a.left()) + " /\\ " + show(a.right()) + ")";
        }
        if (e instanceof Expr.Or o) {
            return "(" + show(o.left()) + " \\/ " + show(o.right()) + ")";
        }
        return "~" + show(((Expr.Not) e).operand());
    }

    private static String knobArgs(KnobSettings s) {
        StringBuilder b = new StringBuilder();
        for (Knob k : Knob.values()) {
            if (!s.get(k).equals(k.defaultValue())) {
                b.append(" --knob ").append(k.name()).append('=').append(s.get(k));
            }
        }
        return b.toString();
    }

    private static String lower(Verdict v) {
        return v.name().toLowerCase(Locale.ROOT);
    }

    private static Map<Map<String, Long>, Long> sorted(Map<Map<String, Long>, Long> outcomes) {
        List<Map.Entry<Map<String, Long>, Long>> entries = new ArrayList<>(outcomes.entrySet());
        entries.sort((a, b) -> a.getKey().toString().compareTo(b.getKey().toString()));
        Map<Map<String, Long>, Long> m = new LinkedHashMap<>();
        entries.forEach(e -> m.put(e.getKey(), e.getValue()));
        return m;
    }

}
