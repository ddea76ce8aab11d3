package dev.remora.verbs.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM started as a separate OS process by a test: a memory node, a client, or any other {@code main}, which the
 * test can then wait on, talk to through stdin, and kill with SIGKILL.
 *
 * <p>The child runs the same {@code java} binary as the current JVM with the current test class path, so every class
 * of the test sources is a possible main class. Its stdout and stderr are read on daemon threads into bounded buffers
 * (the last {@value #KEPT_LINES} lines of each), which {@link #awaitLine} watches and every failure message quotes.
 * {@link #close()} kills the child if it is still alive and waits for it; each started child is also killed by a JVM
 * shutdown hook, so a failing or interrupted test does not leave a process behind.
 *
 * <pre>
 * try (ChildJvm node = ChildJvm.builder(MemoryNodeMain.class).args("--port", "0").echo("node").start()) {
 *     Matcher listening = node.awaitLine(Pattern.compile("LISTENING (\\d+)"), Duration.ofSeconds(10));
 *     int port = Integer.parseInt(listening.group(1));
 *     ...
 *     node.kill();
 *     assertEquals(137, node.awaitExit(Duration.ofSeconds(5)));
 * }
 * </pre>
 */
public final class ChildJvm implements AutoCloseable {
    /** Lines of stdout and of stderr kept for {@link #awaitLine} and failure messages. */
    public static final int KEPT_LINES = 500;
    /** The JVM options of a child unless the builder sets others: small heap, quick start. */
    public static final List<String> DEFAULT_JVM_OPTIONS =
        List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    /** A class path longer than this is passed in an {@code @argfile} (command lines have OS limits). */
    private static final int ARGFILE_THRESHOLD = 8_000;
    /** Lines of each stream quoted in a failure message. */
    private static final int QUOTED_LINES = 40;

    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ChildJvm c : LIVE) {
                c.process.toHandle().destroyForcibly();
            }
        }, "ChildJvm-reaper"));
    }

    private final String name;
    private final Process process;
    private final List<String> command;
    private final Path argFileDir;
    /** The last lines of stdout and of stderr, oldest first; guarded by {@code this}. */
    private final ArrayDeque<String> out = new ArrayDeque<>();
    private final ArrayDeque<String> err = new ArrayDeque<>();
    /** Lines ever read from stdout (kept or dropped), so {@link #awaitLine} matches each line once; guarded by this. */
    private long outSeen;
    /** The number of the stdout line after the one {@link #awaitLine} returned last; guarded by {@code this}. */
    private long cursor;
    /** The stdout reader reached the end of the stream (the child closed it or died); guarded by {@code this}. */
    private boolean outEnded;
    private final Thread outReader;
    private final Thread errReader;

    private ChildJvm(String name, Process process, List<String> command, Path argFileDir, String echoPrefix) {
        this.name = name;
        this.process = process;
        this.command = command;
        this.argFileDir = argFileDir;
        String echo = echoPrefix;
        this.outReader = reader(process.getInputStream(), out, true, echo == null ? null : echo + " out| ");
        this.errReader = reader(process.getErrorStream(), err, false, echo == null ? null : echo + " err| ");
        outReader.start();
        errReader.start();
    }

    /**
     * @param mainClass the class whose {@code main} the child runs
     * @return a builder for a child JVM running it
     */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(mainClass.getName());
    }

    /**
     * @param mainClass the fully qualified name of the class whose {@code main} the child runs
     * @return a builder for a child JVM running it
     */
    public static Builder builder(String mainClass) {
        return new Builder(mainClass);
    }

    /** Options of a child JVM; {@link #start()} starts it. */
    public static final class Builder {
        private final String mainClass;
        private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
        private final List<String> extraJvmOptions = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private final List<String> prefix = new ArrayList<>();
        private String classPath = System.getProperty("java.class.path");
        private String echoPrefix;
        private String name;

        private Builder(String mainClass) {
            this.mainClass = Objects.requireNonNull(mainClass);
        }

        /**
         * Replaces the default JVM options ({@link #DEFAULT_JVM_OPTIONS}).
         *
         * @param options the options, e.g. {@code -Xmx64m}
         * @return this
         */
        public Builder jvmOptions(String... options) {
            this.jvmOptions = List.of(options);
            return this;
        }

        /**
         * Adds JVM options after the default ones, e.g. system properties.
         *
         * @param options the options, e.g. {@code -Dremora.x=1}
         * @return this
         */
        public Builder addJvmOptions(String... options) {
            extraJvmOptions.addAll(Arrays.asList(options));
            return this;
        }

        /**
         * @param arguments the main class's arguments
         * @return this
         */
        public Builder args(String... arguments) {
            args.addAll(Arrays.asList(arguments));
            return this;
        }

        /**
         * Runs the JVM through a command, e.g. {@code ip netns exec NS} ({@link NetNs.Topology#commandPrefix}). The
         * prefix must end by exec'ing the JVM (as {@code ip netns exec} does), so that {@link #pid()} and
         * {@link #kill()} reach the JVM itself.
         *
         * @param words the command words put before {@code java}
         * @return this
         */
        public Builder prefix(List<String> words) {
            prefix.addAll(words);
            return this;
        }

        /**
         * @param path the class path of the child; the current JVM's class path unless set
         * @return this
         */
        public Builder classPath(String path) {
            this.classPath = Objects.requireNonNull(path);
            return this;
        }

        /**
         * Copies every line of the child's output to {@code System.err}, each line prefixed with
         * {@code prefix out| } or {@code prefix err| }.
         *
         * @param linePrefix the prefix, e.g. the child's role
         * @return this
         */
        public Builder echo(String linePrefix) {
            this.echoPrefix = linePrefix;
            return this;
        }

        /**
         * @param childName the child's name in messages; the main class's simple name unless set
         * @return this
         */
        public Builder name(String childName) {
            this.name = childName;
            return this;
        }

        /**
         * Starts the child.
         *
         * @return its handle
         * @throws UncheckedIOException if the process cannot be started
         */
        public ChildJvm start() {
            List<String> cmd = new ArrayList<>(prefix);
            cmd.add(javaBinary());
            cmd.addAll(jvmOptions);
            cmd.addAll(extraJvmOptions);
            Path dir = null;
            try {
                if (classPath.length() > ARGFILE_THRESHOLD) {
                    dir = Files.createTempDirectory("childjvm");
                    Path file = dir.resolve("classpath.args");
                    // In an @argfile a quoted argument keeps its spaces; backslashes and quotes are escaped.
                    String quoted = "\"" + classPath.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
                    Files.writeString(file, "-cp\n" + quoted + "\n", StandardCharsets.UTF_8);
                    cmd.add("@" + file);
                } else if (!classPath.isEmpty()) {
                    cmd.add("-cp");
                    cmd.add(classPath);
                }
                cmd.add(mainClass);
                cmd.addAll(args);
                Process p = new ProcessBuilder(cmd).start();
                String n = name != null ? name : mainClass.substring(mainClass.lastIndexOf('.') + 1);
                ChildJvm c = new ChildJvm(n + "[" + p.pid() + "]", p, List.copyOf(cmd), dir, echoPrefix);
                LIVE.add(c);
                return c;
            } catch (IOException e) {
                deleteQuietly(dir);
                throw new UncheckedIOException("cannot start " + cmd, e);
            }
        }
    }

    /** @return the {@code java} binary of the current JVM */
    static String javaBinary() {
        return ProcessHandle.current().info().command()
            .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    }

    private Thread reader(InputStream in, ArrayDeque<String> buffer, boolean stdout, String echo) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (echo != null) {
                        System.err.println(echo + line);
                    }
                    synchronized (this) {
                        if (buffer.size() == KEPT_LINES) {
                            buffer.removeFirst();
                        }
                        buffer.addLast(line);
                        if (stdout) {
                            outSeen++;
                            notifyAll();
                        }
                    }
                }
            } catch (IOException e) {
                // The stream closes when the process dies: the end of its output.
            } finally {
                if (stdout) {
                    synchronized (this) {
                        outEnded = true;
                        notifyAll();
                    }
                }
            }
        }, "ChildJvm-" + (stdout ? "out-" : "err-") + process.pid());
        t.setDaemon(true);
        return t;
    }

    /** @return the child's name in messages, e.g. {@code EchoMain[1234]} */
    public String name() {
        return name;
    }

    /** @return the OS process id of the child (of the JVM itself when the prefix exec's it) */
    public long pid() {
        return process.pid();
    }

    /** @return whether the child is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** @return the command line that started the child */
    public List<String> command() {
        return command;
    }

    /** @return the process, e.g. to write to its stdin */
    public Process process() {
        return process;
    }

    /**
     * Writes one line to the child's stdin and flushes it.
     *
     * @param line the line, without its line separator
     * @throws UncheckedIOException if the child's stdin is closed (it exited)
     */
    public void send(String line) {
        try {
            OutputStream os = process.getOutputStream();
            os.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            os.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot write to stdin" + describeOutput(), e);
        }
    }

    /** Closes the child's stdin: a child reading it sees end of file. */
    public void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the kept stdout and stderr lines, under headers, for messages and logs */
    public String output() {
        synchronized (this) {
            return "--- stdout of " + name + " (last " + out.size() + " lines)\n" + String.join("\n", out)
                + "\n--- stderr of " + name + " (last " + err.size() + " lines)\n" + String.join("\n", err);
        }
    }

    /**
     * @param children child JVMs
     * @return each one's {@link #output()}, one after the other, for a failure message
     */
    public static String outputs(Iterable<ChildJvm> children) {
        StringBuilder b = new StringBuilder();
        for (ChildJvm c : children) {
            b.append(c.output()).append('\n');
        }
        return b.toString();
    }

    /** @return the kept stdout lines */
    public synchronized List<String> stdoutLines() {
        return List.copyOf(out);
    }

    /** @return the kept stderr lines */
    public synchronized List<String> stderrLines() {
        return List.copyOf(err);
    }

    /**
     * Waits for a line of the child's stdout that matches (with {@link Matcher#find()}) the pattern. The lines are
     * read like a stream: a call looks at the lines after the one the previous successful call returned (from the
     * first line the child printed, for the first call), in order, so a test can ask the child something again and
     * again and await each answer. A line that has fallen out of the kept {@value #KEPT_LINES} is not looked at.
     *
     * @param pattern what to look for
     * @param timeout how long to wait
     * @return the matcher of the first matching line, its groups ready to read
     * @throws IllegalStateException if the child exits or the time passes first, with its last output and exit code
     * @throws InterruptedException if the test thread is interrupted
     */
    public Matcher awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            long next = cursor; // the stdout line (counted from the child's first) to look at next
            while (true) {
                long first = outSeen - out.size(); // the number of the oldest kept line
                next = Math.max(next, first);
                var it = out.iterator();
                for (long k = first; k < next; k++) {
                    it.next();
                }
                while (it.hasNext()) {
                    Matcher m = pattern.matcher(it.next());
                    next++;
                    if (m.find()) {
                        cursor = next;
                        return m;
                    }
                }
                if (outEnded) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException(name + ": no line matching /" + pattern + "/ within " + timeout
                        + " (still running)" + describeOutput());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        // The child's stdout ended without the line: report how it exited (it may take a moment after EOF).
        Integer code = exitCodeWithin(Duration.ofSeconds(2));
        throw new IllegalStateException(name + ": exited with " + (code == null ? "(unknown: closed its stdout)" : code)
            + " before printing a line matching /" + pattern + "/" + describeOutput());
    }

    /**
     * Waits for the child to exit.
     *
     * @param timeout how long to wait
     * @return its exit code (128 + the signal number when a signal ended it, e.g. 137 for SIGKILL)
     * @throws IllegalStateException if it is still running after the timeout, with its last output
     * @throws InterruptedException if the test thread is interrupted
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException(name + ": still running after " + timeout + describeOutput());
        }
        finished();
        return process.exitValue();
    }

    private Integer exitCodeWithin(Duration d) throws InterruptedException {
        if (process.waitFor(d.toNanos(), TimeUnit.NANOSECONDS)) {
            finished();
            return process.exitValue();
        }
        return null;
    }

    /** Lets the readers drain what the dead child printed last, so messages quote it. */
    private void finished() throws InterruptedException {
        LIVE.remove(this);
        outReader.join(1000);
        errReader.join(1000);
    }

    /**
     * Sends SIGKILL: the child ends at once, without running shutdown hooks. The signal goes through
     * {@link ProcessHandle#destroyForcibly()}, not {@link Process#destroyForcibly()}, which would also close the pipes
     * to the child: its stdin would reach end of file (a second cause of exit racing the signal) and what it printed
     * last would be lost to {@link #output()}.
     */
    public void kill() {
        process.toHandle().destroyForcibly();
    }

    /**
     * Sends SIGTERM: the child runs its shutdown hooks and exits, normally with 143. Through
     * {@link ProcessHandle#destroy()}, for the reason given at {@link #kill()}.
     */
    public void terminate() {
        process.toHandle().destroy();
    }

    /** Kills the child if it is still alive and waits for it to be gone. */
    @Override
    public void close() {
        kill();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!process.waitFor(10, TimeUnit.SECONDS)) {
                        System.err.println(name + ": still alive 10 s after SIGKILL");
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            try {
                finished();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        } finally {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // already closed
            }
            deleteQuietly(argFileDir);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String describeOutput() {
        String exit = process.isAlive() ? "alive" : "exit code " + process.exitValue();
        synchronized (this) {
            return "\n[" + exit + "; command: " + abbreviate(command) + "]\n" + tail("stdout", out)
                + tail("stderr", err);
        }
    }

    private String tail(String what, ArrayDeque<String> lines) {
        List<String> all = new ArrayList<>(lines);
        List<String> last = all.subList(Math.max(0, all.size() - QUOTED_LINES), all.size());
        return "--- last " + last.size() + " lines of " + what + " of " + name + "\n"
            + (last.isEmpty() ? "" : String.join("\n", last) + "\n");
    }

    private static String abbreviate(List<String> cmd) {
        List<String> shown = new ArrayList<>();
        boolean cp = false;
        for (String w : cmd) {
            shown.add(cp && w.length() > 200 ? w.substring(0, 200) + "...(" + w.length() + " chars)" : w);
            cp = w.equals("-cp");
        }
        return String.join(" ", shown);
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (var s = Files.walk(dir)) {
            s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
