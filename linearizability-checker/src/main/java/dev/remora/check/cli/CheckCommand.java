package dev.remora.check.cli;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.MalformedHistoryException;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.io.EdnParser;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import dev.remora.check.report.FileReport;
import dev.remora.check.report.HtmlReport;
import dev.remora.check.report.JsonReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code check}: checks history files for linearizability and prints {@code file<TAB>verdict}
 * for each on standard output; explanations of failures and errors go to standard error.
 * Usable on its own ({@link CheckMain}) or as a subcommand; it never calls {@code System.exit}
 * but returns the exit code:
 * <ul>
 *   <li>{@value #EXIT_LINEARIZABLE}: every file is linearizable;</li>
 *   <li>{@value #EXIT_NOT_LINEARIZABLE}: some file is not linearizable;</li>
 *   <li>{@value #EXIT_UNKNOWN}: some file's verdict is unknown (time or memory limit), none is
 *       not linearizable;</li>
 *   <li>{@value #EXIT_USAGE}: usage error (bad option, unknown model or format, missing file);</li>
 *   <li>{@value #EXIT_MALFORMED}: some file is malformed (the message names file, line and what
 *       was expected); this takes precedence over the verdicts of other files.</li>
 * </ul>
 */
@Command(name = "check", mixinStandardHelpOptions = true, version = CheckCommand.VERSION, exitCodeOnInvalidInput = CheckCommand.EXIT_USAGE,
        exitCodeOnExecutionException = 70,
        description = "Checks recorded histories for linearizability.%n"
                + "Prints file<TAB>verdict (linearizable, not-linearizable, unknown) per file.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:all linearizable", "1:some not linearizable", "2:some unknown (time or memory limit)",
            "64:usage error", "65:malformed input"})
public final class CheckCommand implements Callable<Integer> {
    /** What {@code --version} prints. */
    static final String VERSION = "remora check 0.1.0-SNAPSHOT";
    /** Search-cache budget per operation of a history when {@code --memory-limit} is 0. */
    static final long MEMORY_PER_OPERATION = 64L << 10;
    /** The least search-cache budget when {@code --memory-limit} is 0. */
    static final long MEMORY_FLOOR = 128L << 20;
    /** Every file is linearizable. */
    public static final int EXIT_LINEARIZABLE = 0;
    /** Some file is not linearizable. */
    public static final int EXIT_NOT_LINEARIZABLE = 1;
    /** Some file's verdict is unknown. */
    public static final int EXIT_UNKNOWN = 2;
    /** Usage error. */
    public static final int EXIT_USAGE = 64;
    /** Malformed input. */
    public static final int EXIT_MALFORMED = 65;

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "NAME",
            description = "register, cas-register, multi-register, counter, set, queue, mutex, kv or map")
    private String model;

    @Option(names = "--init", paramLabel = "VALUE",
            description = "initial value, an EDN literal (default nil; 0 for counter, \"\" for kv; none for map)")
    private String init;

    @Option(names = "--format", paramLabel = "NAME",
            description = "knossos-edn, jepsen-log, kv-log or jsonl (default: detected per file)")
    private String format;

    @Option(names = "--time-limit", paramLabel = "SECONDS", defaultValue = "600",
            description = "time limit for each file, in seconds (default ${DEFAULT-VALUE}; 0 = none)")
    private double timeLimitSeconds;

    @Option(names = "--memory-limit", paramLabel = "MIB", defaultValue = "0",
            description = "memory limit for the search caches, in MiB (default 0 = 64 KiB per operation"
                    + " of the history, at least 128 MiB, at most half the free heap)")
    private long memoryLimitMib;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "0",
            description = "partitions checked at once (default 0 = one per core)")
    private int threads;

    @Option(names = "--html", paramLabel = "FILE", description = "write a self-contained HTML report")
    private Path html;

    @Option(names = "--json", description = "print one JSON object per file instead of file<TAB>verdict")
    private boolean json;

    @Option(names = "--progress", paramLabel = "SECONDS", defaultValue = "5",
            description = "print a progress line on standard error every SECONDS while a file is checked"
                    + " (default ${DEFAULT-VALUE}; 0 = never)")
    private double progressSeconds;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "history files; - reads standard input")
    private List<Path> files;

    /** Bytes looked at to refuse a binary file before reading it. */
    private static final int SNIFF = 4096;
    private static final Path STDIN = Path.of("-");

    private final InputStream stdin;

    /** Creates the command reading {@code -} from {@code System.in} (for picocli, as a subcommand). */
    public CheckCommand() {
        this(System.in);
    }

    private CheckCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    /**
     * Builds a command line for this command with its exit codes wired in, reading {@code -}
     * from {@code System.in}.
     *
     * @return the command line
     */
    public static CommandLine newCommandLine() {
        return newCommandLine(System.in);
    }

    /**
     * Builds a command line for this command that reads the file {@code -} from {@code stdin}.
     *
     * @param stdin the standard input
     * @return the command line
     */
    public static CommandLine newCommandLine(InputStream stdin) {
        return new CommandLine(new CheckCommand(stdin));
    }

    @Override
    public Integer call() {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** The check itself, with the options already in the fields (by picocli or by {@link PlainArgs}). */
    private int run(PrintWriter out, PrintWriter err) {
        HistoryFormat fmt = null;
        if (format != null) {
            fmt = HistoryFormat.byName(format);
            if (fmt == null) {
                err.println("check: unknown format '" + format + "'; expected knossos-edn, jepsen-log, kv-log or jsonl");
                return EXIT_USAGE;
            }
        }
        Object initValue = null;
        if (init != null) {
            try {
                EdnParser p = new EdnParser("--init", init, 1);
                initValue = p.read();
                if (p.skipSpace()) {
                    throw p.error("expected a single EDN value");
                }
            } catch (MalformedHistoryException e) {
                err.println("check: bad --init '" + init + "': " + e.detail());
                return EXIT_USAGE;
            }
        }
        Model<?> m;
        try {
            m = Models.create(model);
        } catch (IllegalArgumentException e) {
            err.println("check: " + e.getMessage());
            return EXIT_USAGE;
        }
        if (init != null) {
            try {
                m = Models.create(model, initValue, true);
            } catch (IllegalArgumentException e) {
                err.println("check: bad --init '" + init + "': " + e.getMessage());
                return EXIT_USAGE;
            }
        }
        if (timeLimitSeconds < 0 || memoryLimitMib < 0 || threads < 0 || progressSeconds < 0) {
            err.println("check: --time-limit, --memory-limit, --threads and --progress must not be negative");
            return EXIT_USAGE;
        }
        // Everything that can be refused is refused before the first file is checked.
        BufferedInputStream in = null;
        for (Path f : files) {
            String why;
            try {
                why = refusal(f, in);
            } catch (IOException e) {
                why = "cannot read " + f + ": " + e.getMessage() + "; expected a readable history file";
            }
            if (f.equals(STDIN)) {
                if (in != null) {
                    why = "- (standard input) is named twice; expected it at most once";
                } else {
                    in = new BufferedInputStream(stdin, 1 << 16);
                    try {
                        why = refusal(f, in);
                    } catch (IOException e) {
                        why = "cannot read standard input: " + e.getMessage();
                    }
                }
            }
            if (why != null) {
                err.println("check: " + why);
                return EXIT_USAGE;
            }
        }
        if (html != null) {
            String why = unwritable(html);
            if (why != null) {
                err.println("check: cannot write the HTML report " + html + ": " + why + "; expected a writable file");
                return EXIT_USAGE;
            }
        }
        CheckOptions opts = CheckOptions.DEFAULTS
                .withTimeLimitSeconds(timeLimitSeconds == 0 ? Double.MAX_VALUE : timeLimitSeconds)
                .withMemoryLimitBytes(memoryLimitMib << 20);
        if (threads > 0) {
            opts = opts.withParallelism(threads);
        }
        if (html != null) {
            opts = opts.withLinearizations(true); // the time line numbers the steps of linearizable partitions too
        }
        final CheckOptions base = opts;
        List<FileReport> reports = new ArrayList<>();
        boolean malformed = false;
        boolean notLin = false;
        boolean unknown = false;
        for (Path f : files) {
            CheckOptions o = base;
            if (progressSeconds > 0) {
                String name = f.equals(STDIN) ? "-" : f.toString();
                o = base.withProgress(progressSeconds, p -> {
                    err.println(String.format(Locale.ROOT, "check: %s: %,d states explored, %d of %d partitions left,"
                            + " %.1f s elapsed", name, p.statesExplored(), p.partitionsLeft(), p.partitions(),
                            p.elapsedNs() / 1e9));
                    err.flush();
                });
            }
            FileReport r = checkOne(f, f.equals(STDIN) ? in : null, fmt, m, o);
            if (html != null) {
                reports.add(r); // otherwise each history may be collected once reported
            }
            if (r.malformed() != null) {
                malformed = true;
                err.println(r.malformed().getMessage());
                if (json) {
                    out.println(JsonReport.render(r));
                } else {
                    out.println(f + "\tmalformed"); // every file gets its line, so that cut -f2 loses none
                }
                out.flush();
                continue;
            }
            CheckResult res = r.result();
            notLin |= res.verdict() == Verdict.NOT_LINEARIZABLE;
            unknown |= res.verdict() == Verdict.UNKNOWN;
            if (json) {
                out.println(JsonReport.render(r));
            } else {
                out.println(f + "\t" + res.verdict().cliName());
                explain(err, r);
            }
            out.flush();
        }
        if (html != null) {
            try {
                Files.writeString(html, HtmlReport.render(reports));
            } catch (IOException e) {
                err.println("check: cannot write " + html + ": " + e.getMessage());
                return EXIT_USAGE;
            }
        }
        err.flush();
        if (malformed) {
            return EXIT_MALFORMED;
        }
        if (notLin) {
            return EXIT_NOT_LINEARIZABLE;
        }
        return unknown ? EXIT_UNKNOWN : EXIT_LINEARIZABLE;
    }

    /**
     * Runs {@code check} without picocli when the arguments are plain (see {@link PlainArgs}): the
     * same fields, checks, output and exit code as {@link #newCommandLine()}{@code .execute(args)},
     * without the start-up cost of building the command from its annotations.
     *
     * @param args   the arguments of {@code check}
     * @param stdin  the standard input, for the file {@code -}
     * @param out    standard output
     * @param err    standard error
     * @return the exit code, or {@code null} when the arguments are not plain and picocli must parse them
     */
    static Integer runPlain(String[] args, InputStream stdin, PrintWriter out, PrintWriter err) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            out.println(VERSION); // as picocli prints the version of the annotation
            out.flush();
            return EXIT_LINEARIZABLE;
        }
        PlainArgs a = PlainArgs.parse(args);
        if (a == null) {
            return null;
        }
        CheckCommand c = new CheckCommand(stdin);
        c.model = a.model;
        c.init = a.init;
        c.format = a.format;
        c.timeLimitSeconds = a.timeLimitSeconds;
        c.memoryLimitMib = a.memoryLimitMib;
        c.threads = a.threads;
        c.html = a.html;
        c.json = a.json;
        c.progressSeconds = a.progressSeconds;
        c.files = a.files;
        try {
            return c.run(out, err);
        } catch (RuntimeException e) { // as picocli's execute: the trace on standard error, exit code 70
            e.printStackTrace(err);
            err.flush();
            return 70;
        }
    }

    /** @return why {@code f} is refused before any work (a directory, binary), or {@code null} */
    private static String refusal(Path f, BufferedInputStream stdin) throws IOException {
        byte[] head = new byte[SNIFF];
        int n;
        if (f.equals(STDIN)) {
            if (stdin == null) {
                return null;
            }
            stdin.mark(SNIFF);
            n = stdin.readNBytes(head, 0, SNIFF);
            stdin.reset();
        } else {
            if (Files.isDirectory(f)) {
                return f + " is a directory; expected a history file";
            }
            if (!Files.isReadable(f)) {
                return "cannot read " + f + "; expected a readable history file";
            }
            try (InputStream s = Files.newInputStream(f)) {
                n = s.readNBytes(head, 0, SNIFF); // only the first bytes: a binary file is never read whole
            }
        }
        String why = HistoryReader.notText(head, n);
        return why == null ? null : (f.equals(STDIN) ? "standard input" : f.toString()) + " is not a text file ("
                + why + "); expected a history file";
    }

    /** @return why the report could not be written to {@code p}, or {@code null} when it could */
    private static String unwritable(Path p) {
        Path abs = p.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            return "it is a directory";
        }
        Path dir = abs.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return "its directory " + dir + " does not exist";
        }
        if (Files.exists(abs) ? !Files.isWritable(abs) : !Files.isWritable(dir)) {
            return "permission denied";
        }
        return null;
    }

    private static FileReport checkOne(Path f, InputStream stdin, HistoryFormat fmt, Model<?> m, CheckOptions opts) {
        History h;
        try {
            h = stdin != null ? HistoryReader.read("-", stdin, fmt) : HistoryReader.read(f, fmt);
            CheckOptions o = opts.memoryLimitBytes() > 0 ? opts : opts.withMemoryLimitBytes(memoryLimit(h));
            return new FileReport(f.toString(), m, h, Checker.check(h, m, o), null);
        } catch (MalformedHistoryException e) {
            return new FileReport(f.toString(), m, null, null, e);
        } catch (IOException | UncheckedIOException e) {
            return new FileReport(f.toString(), m, null, null,
                    new MalformedHistoryException(f.toString(), 0, "cannot read: " + e.getMessage()));
        }
    }

    /**
     * The search-cache budget of a history when none is given: {@link #MEMORY_PER_OPERATION} per
     * operation, at least {@link #MEMORY_FLOOR}, at most half the free heap (the library's
     * default). The memory a check may take grows with the history, not with how hard its search is:
     * a history of up to 2,048 operations gets 128 MiB (about a million memoised states) on any
     * machine. The budget is counted by the caches' own estimate, so the verdict does not depend
     * on the heap or the collector.
     *
     * @param h the history
     * @return the budget in bytes
     */
    static long memoryLimit(History h) {
        Runtime rt = Runtime.getRuntime();
        long halfFree = Math.max(16L << 20, (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 2);
        return Math.min(halfFree, Math.max(MEMORY_FLOOR, MEMORY_PER_OPERATION * h.size()));
    }

    @SuppressWarnings("unchecked")
    private static void explain(PrintWriter err, FileReport r) {
        CheckResult res = r.result();
        if (res.verdict() == Verdict.UNKNOWN) {
            err.println(r.file() + ": unknown: " + res.cause());
            return;
        }
        if (res.failure() == null) {
            return;
        }
        Model<Object> m = (Model<Object>) r.model();
        var f = res.failure();
        err.println(r.file() + ": " + f.reason());
        err.println("  longest partial linearization (" + f.partialLinearization().size() + " steps, from "
                + f.states().get(0) + "):");
        int from = Math.max(0, f.partialLinearization().size() - 10);
        if (from > 0) {
            err.println("    ... " + from + " earlier steps");
        }
        for (int i = from; i < f.partialLinearization().size(); i++) {
            Operation op = f.partialLinearization().get(i);
            err.println("    " + (i + 1) + ". " + m.describeOperation(op) + "  [line " + op.callLine() + "] => "
                    + f.states().get(i + 1));
        }
        err.println("  smallest failing window: lines " + f.windowFirstLine() + "-" + f.windowLastLine() + ", "
                + f.window().size() + " operations, starting from state " + f.states().get(f.windowStart())
                + " after " + f.windowStart() + " steps");
    }
}
