package dev.remora.cli;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.Verdict;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code remora demo --fabric socket}: the demo with real OS processes on the socket fabric. One home process
 * ({@code remora serve} holding the counter, the ticket lock and the lock's data word) and two client processes
 * ({@code remora demo-client}), all started from this JVM's class path; this process waits for the clients (bounded),
 * reads the final count and the data word from the home itself, measures the round trip of an 8-byte READ to the
 * home, stops the home with SIGTERM, merges the clients' lock histories by time and checks them.
 */
final class SocketDemo {
    /** Name of the demo's counter. */
    static final String COUNTER = "demo-hits";
    /** Name of the demo's ticket lock. */
    static final String LOCK = "demo-lock";
    /** Name of the word incremented inside the lock's critical section. */
    static final String DATA = "demo-lock-data";
    /** The merged lock history's file name in the history directory. */
    static final String MERGED = "lock-history.jsonl";
    /** READs timed for the round trip (after as many to warm up). */
    static final int RTT_READS = 5_000;
    private static final Pattern LISTENING = Pattern.compile("listening at (\\S+) ");
    /** Lines of a child's output quoted when it fails. */
    private static final int KEPT = 40;

    private final PrintWriter out;
    private final List<Child> children = new CopyOnWriteArrayList<>();

    SocketDemo(PrintWriter out) {
        this.out = out;
    }

    /** A child process and the lines it printed. */
    private static final class Child {
        final String name;
        final Process process;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final ArrayDeque<String> kept = new ArrayDeque<>();
        final Writer stdin;

        Child(String name, Process process) {
            this.name = name;
            this.process = process;
            this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
            reader(process.getInputStream(), true);
            reader(process.getErrorStream(), false);
        }

        private void reader(InputStream stream, boolean queue) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        keep((queue ? "" : "[stderr] ") + line);
                        if (queue) {
                            lines.add(line);
                        }
                    }
                } catch (IOException e) {
                    // the child is gone
                }
            }, name + (queue ? "-stdout" : "-stderr"));
            t.setDaemon(true);
            t.start();
        }

        private synchronized void keep(String line) {
            kept.addLast(line.length() <= 200 ? line : line.substring(0, 200) + "...");
            if (kept.size() > KEPT) {
                kept.removeFirst();
            }
        }

        synchronized String output() {
            return kept.isEmpty() ? "    (no output)" : "    " + String.join("\n    ", kept);
        }

        void send(String line) throws IOException {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        }

        /** The next stdout line starting with {@code prefix}; other lines are skipped. */
        String await(String prefix, long deadlineNs) throws DemoFailure, InterruptedException {
            while (true) {
                long left = deadlineNs - System.nanoTime();
                String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
                if (line == null) {
                    String state = process.isAlive() ? "still running: killed" : "exited " + process.exitValue();
                    throw new DemoFailure(name + " printed no '" + prefix + "' line in time (" + state
                        + "); its last output:\n" + output());
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
                if (line.startsWith("FAILED")) {
                    throw new DemoFailure(name + " failed: " + line.substring(6).strip() + "\n" + output());
                }
            }
        }
    }

    /** The demo cannot go on; the message says what happened. */
    static final class DemoFailure extends Exception {
        private static final long serialVersionUID = 1L;

        DemoFailure(String message) {
            super(message);
        }
    }

    private Child start(String name, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        String classPath = System.getProperty("java.class.path");
        if (classPath.length() > 8_000) {
            // Command lines have OS limits; the JVM reads options from an @argfile.
            Path argFile = Files.createTempFile("remora-demo-cp", ".args");
            argFile.toFile().deleteOnExit();
            Files.writeString(argFile, "-cp \"" + classPath.replace("\\", "\\\\") + "\"\n", StandardCharsets.UTF_8);
            command.add("@" + argFile);
        } else {
            command.add("-cp");
            command.add(classPath);
        }
        command.add(RemoraMain.class.getName());
        command.addAll(args);
        Process p = new ProcessBuilder(command).start();
        Child c = new Child(name, p);
        children.add(c);
        return c;
    }

    private void killAll() {
        for (Child c : children) {
            c.process.destroyForcibly();
        }
    }

    /**
     * Runs the demo.
     *
     * @param seconds the counter workload's length
     * @param threads counter threads over both clients
     * @param lockAcquisitions acquisitions in the lock workload, over every lock thread
     * @param historyDir where to keep the lock histories, or {@code null} for a temporary directory removed at the
     *     end (kept on a failure)
     * @param timeoutSeconds how long the clients may take beyond the workload before they are killed
     * @return the exit code: 0 for PASS
     * @throws Exception if this process cannot do its part
     */
    int run(double seconds, int threads, int lockAcquisitions, Path historyDir, long timeoutSeconds) throws Exception {
        Path dir = historyDir != null ? Files.createDirectories(historyDir)
            : Files.createTempDirectory("remora-demo-");
        Thread reaper = new Thread(this::killAll, "remora-demo-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        boolean pass = false;
        try {
            pass = demo(seconds, threads, lockAcquisitions, dir, timeoutSeconds);
            return pass ? 0 : 1;
        } catch (DemoFailure e) {
            out.println("FAIL: " + e.getMessage());
            return 1;
        } finally {
            killAll();
            for (Child c : children) {
                c.process.waitFor(10, TimeUnit.SECONDS);
            }
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs anyway
            }
            if (historyDir == null && pass) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(dir);
            } else if (Files.exists(dir.resolve(MERGED))) {
                out.println("histories kept in " + dir + " (check: remora check --model mutex "
                    + dir.resolve(MERGED) + ")");
            } else {
                out.println("the clients' files are kept in " + dir);
            }
            out.flush();
        }
    }

    private boolean demo(double seconds, int threads, int lockAcquisitions, Path dir, long timeoutSeconds)
        throws Exception {
        int lockThreads = Math.min(threads, 4);
        int perThread = lockAcquisitions / lockThreads;
        long acquisitions = (long) perThread * lockThreads;
        Child home = start("home", List.of("serve", "--name", "home", "--counter", COUNTER, "--lock", "ticket:" + LOCK,
            "--word", DATA));
        String listening = home.await(ServeCommand.LISTENING, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
        Matcher m = LISTENING.matcher(listening);
        if (!m.find()) {
            throw new DemoFailure("home printed an unexpected line: " + listening);
        }
        String address = m.group(1);
        out.printf(Locale.ROOT, "Remora demo: RemoteCounter on the socket fabric, 3 processes (home pid %d at %s, "
            + "clients pids ", home.process.pid(), address);
        Child[] clients = new Child[2];
        for (int i = 0; i < 2; i++) {
            int counterThreads = threads / 2 + (i < threads % 2 ? 1 : 0);
            int lt = lockThreads / 2 + (i < lockThreads % 2 ? 1 : 0);
            clients[i] = start("client-" + (i + 1), List.of("demo-client", "--home", address, "--id",
                String.valueOf(i + 1), "--threads", String.valueOf(counterThreads), "--lock-threads",
                String.valueOf(lt), "--seconds", String.valueOf(seconds), "--acquisitions", String.valueOf(perThread),
                "--record", dir.resolve("client-" + (i + 1) + ".jsonl").toString(), "--go-on-stdin"));
        }
        out.printf(Locale.ROOT, "%d and %d)%n", clients[0].process.pid(), clients[1].process.pid());
        out.printf(Locale.ROOT, "  home process holds the counter; %d threads over the two client processes%n",
            threads);
        out.flush();
        long budget = TimeUnit.SECONDS.toNanos(timeoutSeconds) + (long) (seconds * 1e9);
        long deadline = System.nanoTime() + budget;
        for (Child c : clients) {
            c.await("READY counter", deadline);
        }
        for (Child c : clients) {
            c.send("go");
        }
        List<Map<String, String>> counterReports = reports(clients, "COUNTER ", deadline);
        for (Child c : clients) {
            c.await("READY lock", deadline);
        }
        for (Child c : clients) {
            c.send("go");
        }
        List<Map<String, String>> lockReports = reports(clients, "LOCK ", deadline);
        for (Child c : clients) {
            c.await("DONE", deadline);
            long left = deadline - System.nanoTime();
            if (!c.process.waitFor(Math.max(left, 1), TimeUnit.NANOSECONDS)) {
                throw new DemoFailure(c.name + " did not exit in time: killed");
            }
            if (c.process.exitValue() != 0) {
                throw new DemoFailure(c.name + " exited " + c.process.exitValue() + "\n" + c.output());
            }
        }

        long acknowledged = 0;
        long roundTrips = 0;
        long fetchAndAdds = 0;
        long elapsedNs = 0;
        Histogram latency = new Histogram(3);
        for (Map<String, String> r : counterReports) {
            acknowledged += Long.parseLong(r.get("acknowledged"));
            roundTrips += Long.parseLong(r.get("roundTrips"));
            fetchAndAdds += Long.parseLong(r.get("fetchAndAdds"));
            elapsedNs = Math.max(elapsedNs, Long.parseLong(r.get("elapsedNs")));
            latency.add(Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(r.get("histogram"))), 0));
        }
        long lockNs = 0;
        long acquired = 0;
        for (Map<String, String> r : lockReports) {
            lockNs = Math.max(lockNs, Long.parseLong(r.get("elapsedNs")));
            acquired += Long.parseLong(r.get("acquisitions"));
        }

        // This process reads the home's words itself: a count the clients could not have made up. Each client's
        // FETCH_ADDs completed, and atomics complete after they took effect (R11); its WRITEs to the data word were
        // placed before its last READ completed (R7): all before it exited, so these READs see every one of them.
        long finalCount;
        long counted;
        Histogram rtt = new Histogram(3);
        try (SocketFabric fabric = SocketFabric.open(new SocketContext())) {
            Node me = fabric.addNode("demo");
            fabric.connect(address);
            RemoteAddress counter = fabric.lookup(COUNTER);
            RemoteAddress data = fabric.lookup(DATA);
            try (Endpoint ep = Endpoint.open(me)) {
                finalCount = ep.readLong(counter);
                counted = ep.readLong(data);
                for (int i = 0; i < 2 * RTT_READS; i++) {
                    long t0 = System.nanoTime();
                    ep.readLong(counter);
                    if (i >= RTT_READS) {
                        rtt.recordValue(System.nanoTime() - t0);
                    }
                }
            }
        }
        // SIGTERM through the process handle: Process.destroy would also close the pipes, losing the home's last line.
        home.process.toHandle().destroy();
        boolean homeExited = home.process.waitFor(10, TimeUnit.SECONDS);
        String homeExit = homeExited ? "exit " + home.process.exitValue() + " after SIGTERM"
            : "did not exit within 10 s of SIGTERM: killed";
        if (homeExited) {
            try {
                String line = home.await("remora serve: node", System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
                homeExit += line.contains("closed on a termination signal") ? ", its fabric closed" : " (" + line + ")";
            } catch (DemoFailure e) {
                homeExit += " (it printed no closing line)";
            }
        }

        boolean countOk = finalCount == acknowledged;
        out.println();
        DemoCommand.row(out, "duration", String.format(Locale.ROOT, "%.2f s", elapsedNs / 1e9));
        DemoCommand.row(out, "increments acknowledged", String.format(Locale.ROOT, "%,d", acknowledged));
        DemoCommand.row(out, "final count (READ)", String.format(Locale.ROOT, "%,d", finalCount));
        DemoCommand.row(out, "count check", countOk ? "PASS (final count = acknowledged increments)"
            : "FAIL (final count differs from acknowledged increments by " + (finalCount - acknowledged) + ")");
        DemoCommand.row(out, "throughput", String.format(Locale.ROOT, "%,.0f increments/s",
            acknowledged / (elapsedNs / 1e9)));
        DemoCommand.row(out, "round trips per increment", String.format(Locale.ROOT, "%.3f",
            acknowledged == 0 ? 0.0 : (double) roundTrips / acknowledged));
        DemoCommand.row(out, "verbs per increment", String.format(Locale.ROOT, "%.3f FETCH_ADD",
            acknowledged == 0 ? 0.0 : (double) fetchAndAdds / acknowledged));
        DemoCommand.row(out, "latency p50", DemoCommand.micros(latency.getValueAtPercentile(50)));
        DemoCommand.row(out, "latency p99", DemoCommand.micros(latency.getValueAtPercentile(99)));
        DemoCommand.row(out, "latency max", DemoCommand.micros(latency.getMaxValue()));
        DemoCommand.row(out, "8-byte READ round trip", String.format(Locale.ROOT, "p50 %s, p99 %s (%,d READs, "
            + "this process to the home)", DemoCommand.micros(rtt.getValueAtPercentile(50)),
            DemoCommand.micros(rtt.getValueAtPercentile(99)), RTT_READS));
        out.flush();

        Path merged = dir.resolve(MERGED);
        long operations = MergeCommand.merge(List.of(dir.resolve("client-1.jsonl"), dir.resolve("client-2.jsonl")),
            merged);
        long checkStart = System.nanoTime();
        History history = HistoryReader.read(merged, HistoryFormat.JSONL);
        CheckResult verdict = Checker.check(history, Models.mutex(), CheckOptions.DEFAULTS.withTimeLimitSeconds(30));
        long checkNs = System.nanoTime() - checkStart;
        boolean dataOk = counted == acquisitions && acquired == acquisitions;
        out.println();
        out.printf(Locale.ROOT, "Lock workload: TicketLock on the home process, %d threads over the two client "
            + "processes, a word on the home incremented inside the critical section%n", lockThreads);
        DemoCommand.row(out, "acquisitions", String.format(Locale.ROOT, "%,d in %.2f s", acquired,
            lockNs / 1e9));
        DemoCommand.row(out, "counter check", dataOk ? "PASS (counter = acquisitions)"
            : "FAIL (counter " + counted + " after " + acquired + " acquisitions, " + acquisitions
                + " expected)");
        DemoCommand.row(out, "history", String.format(Locale.ROOT, "%,d operations (acquire/release) from 2 "
            + "processes, %,d events merged by time", verdict.operations(), operations));
        DemoCommand.row(out, "checker (mutex model)", verdict.verdict().name().toLowerCase(Locale.ROOT)
            .replace('_', '-') + String.format(Locale.ROOT, " in %.2f s", checkNs / 1e9)
            + (verdict.cause() == null ? "" : " (" + verdict.cause() + ")"));
        DemoCommand.row(out, "home process", homeExit);
        boolean pass = countOk && dataOk && verdict.verdict() == Verdict.LINEARIZABLE && homeExited
            && home.process.exitValue() == 0;
        out.println();
        out.println(pass ? "PASS" : "FAIL");
        out.flush();
        return pass;
    }

    private static List<Map<String, String>> reports(Child[] clients, String prefix, long deadline)
        throws Exception {
        List<Map<String, String>> r = new ArrayList<>();
        for (int i = 0; i < clients.length; i++) {
            String line = clients[i].await(prefix, deadline);
            Map<String, String> fields = new HashMap<>();
            for (String kv : line.substring(prefix.length()).trim().split(" ")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    fields.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            r.add(fields);
        }
        return r;
    }
}
