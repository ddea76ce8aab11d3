package dev.remora.cli;

import dev.remora.check.HistoryRecorder;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code remora demo-client} (hidden): one client process of {@code remora demo --fabric socket}. It connects to the
 * home node, looks up the counter, the lock and the lock's data word by name, runs the counter workload and then the
 * ticket-lock workload (each after a {@code go} line on stdin with {@code --go-on-stdin}, so that the clients of a
 * run overlap), records the lock's acquire/release history as JSON Lines, and reports on stdout in lines the parent
 * parses: {@code READY counter}, {@code COUNTER ...}, {@code READY lock}, {@code LOCK ...}, {@code DONE}, or
 * {@code FAILED reason}.
 */
@Command(name = "demo-client", hidden = true, exitCodeOnInvalidInput = ServeCommand.EXIT_USAGE,
    description = "One client process of 'remora demo --fabric socket'.")
public final class DemoClientCommand implements Callable<Integer> {
    @Option(names = "--home", required = true, paramLabel = "HOST:PORT", description = "The home node's address.")
    String home;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "The interface this client's node listens on "
        + "(default ${DEFAULT-VALUE}); any other than loopback needs the cluster secret.")
    String host;

    @Option(names = "--id", defaultValue = "1", description = "This client's number, for its node's name.")
    int id;

    @Option(names = "--threads", defaultValue = "4", description = "Counter threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--lock-threads", defaultValue = "2", description = "Lock threads (default ${DEFAULT-VALUE}).")
    int lockThreads;

    @Option(names = "--seconds", defaultValue = "3", description = "Counter workload length (default "
        + "${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--acquisitions", defaultValue = "1000", description = "Acquisitions per lock thread (default "
        + "${DEFAULT-VALUE}).")
    int acquisitions;

    @Option(names = "--record", required = true, paramLabel = "FILE", description = "Where to write the lock's "
        + "history (JSON Lines).")
    Path record;

    @Option(names = "--counter", defaultValue = SocketDemo.COUNTER, description = "The counter's name.")
    String counterName;

    @Option(names = "--lock", defaultValue = SocketDemo.LOCK, description = "The ticket lock's name.")
    String lockName;

    @Option(names = "--data", defaultValue = SocketDemo.DATA, description = "The word incremented under the lock.")
    String dataName;

    @CommandLine.Mixin
    SecretFileOption secret;

    @Option(names = "--go-on-stdin", description = "Wait for a 'go' line on stdin before each workload.")
    boolean goOnStdin;

    /** Creates the command (called by picocli). */
    public DemoClientCommand() {
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        SocketContext context = new SocketContext().host(host);
        String s = secret.read();
        if (s != null) {
            context.secret(s);
        }
        try (SocketFabric fabric = SocketFabric.open(context)) {
            Node me = fabric.addNode("client-" + id);
            Node peer = fabric.connect(home);
            RemoteAddress counter = fabric.lookup(counterName);
            RemoteAddress lock = fabric.lookup(lockName);
            RemoteAddress data = fabric.lookup(dataName);
            out.println("demo-client " + id + ": node " + me.name() + " at " + me.address() + " connected to "
                + peer.name() + " at " + peer.address());
            awaitGo(out, in, "counter");
            counterWorkload(out, me, counter);
            awaitGo(out, in, "lock");
            lockWorkload(out, me, lock, data);
            out.println("DONE");
            out.flush();
            return 0;
        } catch (Exception | AssertionError e) {
            out.println("FAILED " + e);
            out.flush();
            return 1;
        }
    }

    private void awaitGo(PrintStream out, BufferedReader in, String phase) throws Exception {
        out.println("READY " + phase);
        out.flush();
        if (goOnStdin) {
            String line = in.readLine();
            if (!"go".equals(line)) {
                throw new IllegalStateException("expected 'go' on stdin before the " + phase + " workload, read "
                    + line);
            }
        }
    }

    /** What one counter thread measured. */
    private static final class Worker {
        final Histogram latency = new Histogram(3);
        long acknowledged;
        VerbsStatistics statistics = VerbsStatistics.ZERO;
        Throwable failure;
    }

    private void counterWorkload(PrintStream out, Node me, RemoteAddress word) throws Exception {
        List<Worker> workers = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        for (int t = 0; t < threads; t++) {
            Worker w = new Worker();
            workers.add(w);
            Thread thread = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(me)) {
                    RemoteCounter c = RemoteCounter.attach(ep, word);
                    c.get(); // connects the queue pair before the clock starts
                    VerbsStatistics before = ep.statistics();
                    ready.countDown();
                    go.await();
                    long end = deadline[0];
                    long now = System.nanoTime();
                    while (now < end) {
                        c.incrementAndGet();
                        long after = System.nanoTime();
                        w.latency.recordValue(after - now);
                        w.acknowledged++;
                        now = after;
                    }
                    w.statistics = ep.statistics().minus(before);
                } catch (Throwable e) {
                    w.failure = e;
                    ready.countDown();
                }
            }, "demo-client-" + t);
            running.add(thread);
            thread.start();
        }
        ready.await();
        long start = System.nanoTime();
        deadline[0] = start + (long) (seconds * 1e9);
        go.countDown();
        for (Thread thread : running) {
            thread.join();
        }
        long elapsedNs = System.nanoTime() - start;
        Histogram all = new Histogram(3);
        long acknowledged = 0;
        VerbsStatistics stats = VerbsStatistics.ZERO;
        for (Worker w : workers) {
            if (w.failure != null) {
                throw new IllegalStateException("a counter thread failed: " + w.failure, w.failure);
            }
            all.add(w.latency);
            acknowledged += w.acknowledged;
            stats = stats.plus(w.statistics);
        }
        ByteBuffer buffer = ByteBuffer.allocate(all.getNeededByteBufferCapacity());
        int length = all.encodeIntoCompressedByteBuffer(buffer, 9);
        byte[] encoded = new byte[length];
        buffer.flip();
        buffer.get(encoded);
        out.println("COUNTER acknowledged=" + acknowledged + " elapsedNs=" + elapsedNs + " roundTrips="
            + stats.roundTrips() + " fetchAndAdds=" + stats.fetchAndAdds() + " histogram="
            + Base64.getEncoder().encodeToString(encoded));
        out.flush();
    }

    private void lockWorkload(PrintStream out, Node me, RemoteAddress lock, RemoteAddress data) throws Exception {
        Throwable failure;
        long start = System.nanoTime();
        // System.nanoTime is the host's monotonic clock in every JVM of the host, so the parent can merge the clients'
        // files by time; an exception from the fabric leaves the operation's outcome unknown (info).
        try (HistoryRecorder recorder = HistoryRecorder.builder().name("client-" + id).writeTo(record)
            .unknownOutcomeOn(RemoteAccessException.class, VerbsTimeoutException.class).build()) {
            failure = LockWorkload.run(lockThreads, t -> me, lock, data, acquisitions, recorder, true);
        }
        long elapsedNs = System.nanoTime() - start;
        if (failure != null) {
            throw new IllegalStateException("a lock thread failed: " + failure, failure);
        }
        out.println("LOCK acquisitions=" + (long) acquisitions * lockThreads + " elapsedNs=" + elapsedNs);
        out.flush();
    }
}
