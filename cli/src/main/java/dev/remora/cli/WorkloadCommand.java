package dev.remora.cli;

import dev.remora.check.HistoryRecorder;
import dev.remora.kv.CuckooMap;
import dev.remora.locks.RemoteLock;
import dev.remora.locks.CasSpinLock;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code remora workload}: runs a recorded workload against a served node on any provider and writes its history
 * for {@code remora check}. It opens the provider's fabric with a local node, connects to the served node at
 * {@code --connect}, looks the object up by its published name, and runs {@code --threads} threads (each with its
 * own endpoint) for {@code --seconds}, recording every operation with the checker's {@link HistoryRecorder}: an
 * operation that returned is {@code ok}, one the object refused (a kv table full or busy) {@code fail}, one that
 * threw an indeterminate verbs error (a timeout, a broken queue pair) {@code info}, never {@code fail}.
 *
 * <ul>
 *   <li>{@code counter}: a {@code RemoteCounter}; {@code add 1} (one FETCH_ADD) and, one in eight, {@code read};
 *       checked with {@code --model counter --init V}, V the count read before the run.</li>
 *   <li>{@code lock}: a ticket or CAS spin lock ({@code --lock-kind}); {@code acquire} and {@code release}, with a
 *       READ and WRITE of the served word {@code --data} inside the critical section if given; checked with
 *       {@code --model mutex}.</li>
 *   <li>{@code kv}: a {@code CuckooMap} table; {@code get}, {@code put}, {@code delete} and {@code cas} on
 *       {@code --keys} keys named afresh for the run (so every key starts absent), each write recorded with the value
 *       it replaced ({@link MapCalls}); checked with {@code --model map}. Each thread takes one of the table's client ids, which are never
 *       reused.</li>
 * </ul>
 */
@Command(name = "workload", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = WorkloadCommand.EXIT_USAGE,
    description = "Runs a recorded workload (counter, lock or kv) against an object a served node publishes, on any "
        + "provider, and writes its history for 'remora check'.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the workload ran and its history was written", "1:a thread failed outside a recorded "
        + "operation, or the node or the object could not be reached", "64:usage error"})
public final class WorkloadCommand implements Callable<Integer> {
    /** Usage error. */
    static final int EXIT_USAGE = 64;

    /** What to run. */
    enum Kind {
        counter, lock, kv
    }

    @Option(names = "--fabric", paramLabel = "PROVIDER", defaultValue = "socket", description = "The provider: socket "
        + "(default), disni, ucx, or any on the class path.")
    String fabric;

    @Option(names = "--connect", required = true, paramLabel = "ADDRESS", description = "The served node's address, "
        + "as 'remora serve' printed it.")
    String connect;

    @Option(names = "--object", required = true, paramLabel = "KIND", description = "counter, lock or kv.")
    Kind object;

    @Option(names = "--name", required = true, paramLabel = "NAME", description = "The object's published name.")
    String name;

    @Option(names = "--lock-kind", defaultValue = "ticket", paramLabel = "KIND", description = "For --object lock: "
        + "ticket (default) or cas, as the node serves it.")
    String lockKind;

    @Option(names = "--data", paramLabel = "NAME", description = "For --object lock: a served word incremented (READ "
        + "then WRITE) inside each critical section.")
    String data;

    @Option(names = "--keys", defaultValue = "8", description = "For --object kv: how many keys (default "
        + "${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--seconds", defaultValue = "5", description = "How long (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--threads", defaultValue = "2", description = "Threads, each with its own endpoint (default "
        + "${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--history", required = true, paramLabel = "FILE", description = "Where to write the history "
        + "(JSON Lines).")
    Path history;

    @Option(names = "--host", description = "The interface this process's node listens on (a fabric property).")
    String host;

    @CommandLine.Mixin
    SecretFileOption secret;

    @CommandLine.Mixin
    PropertyOptions properties;

    @Option(names = "--node-name", description = "This process's node name (default workload-PID).")
    String nodeName;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public WorkloadCommand() {
    }

    /** Whether an exception leaves its operation's outcome unknown: the verbs' indeterminate errors. */
    static boolean unknownOutcome(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof RemoteAccessException r && r.isIndeterminate()
                || c instanceof VerbsTimeoutException v && v.isIndeterminate()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (threads < 1 || threads > 1024) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be in 1..1024: " + threads);
        }
        if (!(seconds > 0) || seconds > 86_400) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seconds must be in (0, 86400]: " + seconds);
        }
        if (keys < 1 || keys > 1_000_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keys must be in 1..1000000: " + keys);
        }
        if (!lockKind.equals("ticket") && !lockKind.equals("cas")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--lock-kind is ticket or cas, not "
                + lockKind);
        }
        Map<String, String> props = properties.toMap();
        if (host != null) {
            props.put("host", host);
        }
        String s = secret.read();
        if (s != null) {
            props.put("secret", s);
        }
        Fabric f;
        try {
            f = Fabric.open(fabric, props);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } catch (IllegalStateException e) {
            err.println("remora workload: fabric " + fabric + ": " + e.getMessage());
            err.flush();
            return 1;
        }
        try (Fabric fab = f) {
            Node me = fab.addNode(nodeName != null ? nodeName : "workload-" + ProcessHandle.current().pid());
            RemoteAddress target;
            RemoteAddress dataWord = null;
            try {
                fab.connect(connect);
                target = fab.lookup(name);
                if (data != null) {
                    dataWord = fab.lookup(data);
                }
            } catch (IllegalArgumentException | IllegalStateException | NoSuchElementException e) {
                err.println("remora workload: " + connect + ": " + e.getMessage());
                err.flush();
                return 1;
            }
            return run(out, err, me, target, dataWord);
        }
    }

    private int run(PrintWriter out, PrintWriter err, Node me, RemoteAddress target, RemoteAddress dataWord)
        throws IOException, InterruptedException {
        String source = me.name();
        long[] init = {0};
        if (object == Kind.counter) {
            try (Endpoint ep = Endpoint.open(me)) {
                init[0] = RemoteCounter.attach(ep, target).get();
            }
        }
        // Keys named afresh for this run (at most 14 bytes: w, 6 hex digits, -, the key's number), so each starts
        // absent, as the map model's keys do, whatever earlier runs left in the table.
        String prefix = "w" + Integer.toHexString(new Random().nextInt(1 << 24)) + "-";
        AtomicLong ops = new AtomicLong();
        List<Throwable> failures = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        try (HistoryRecorder rec = HistoryRecorder.builder().name(source).writeTo(history)
            .unknownOutcomeWhen(WorkloadCommand::unknownOutcome).build()) {
            List<Thread> running = new ArrayList<>();
            CountDownLatch ready = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(me)) {
                        ready.countDown();
                        ready.await();
                        switch (object) {
                            case counter -> counter(ep, target, rec, deadline, ops, id);
                            case lock -> lock(ep, target, dataWord, rec, deadline, ops, id);
                            default -> kv(ep, target, rec, deadline, ops, id, prefix);
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }, "workload-" + t);
                running.add(th);
                th.start();
            }
            for (Thread th : running) {
                th.join();
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        if (!failures.isEmpty()) {
            err.println("remora workload: a thread failed: " + failures.get(0));
            err.flush();
        }
        String model = switch (object) {
            case counter -> "counter --init " + init[0];
            case lock -> "mutex";
            default -> "map";
        };
        out.printf(Locale.ROOT, "workload %s '%s' on %s from %s: %d operations by %d threads in %.1f s; history "
            + "in %s%n", object, name, fabric, me.name(), ops.get(), threads, secs, history);
        out.println("check it with: remora check --model " + model + " " + history
            + " (several processes' histories: remora merge first)");
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    private static void counter(Endpoint ep, RemoteAddress word, HistoryRecorder rec, long deadline, AtomicLong ops,
                                int id) {
        RemoteCounter c = RemoteCounter.attach(ep, word);
        Random rnd = new Random(id);
        while (System.nanoTime() < deadline) {
            try {
                if (rnd.nextInt(8) == 0) {
                    rec.call("read", null, null, c::get);
                } else {
                    rec.run("add", null, 1L, c::incrementAndGet);
                }
            } catch (RuntimeException e) {
                if (!unknownOutcome(e)) {
                    throw e;
                }
                // recorded info; the endpoint's queue pair is replaced on its next use
            }
            ops.incrementAndGet();
        }
    }

    private void lock(Endpoint ep, RemoteAddress word, RemoteAddress dataWord, HistoryRecorder rec, long deadline,
                      AtomicLong ops, int id) {
        long owner = (ProcessHandle.current().pid() & 0xFFFFFF) << 12 | id + 1;
        RemoteLock l = lockKind.equals("cas") ? CasSpinLock.attach(ep, word, owner)
            : TicketLock.attach(ep, word);
        while (System.nanoTime() < deadline) {
            rec.run("acquire", null, null, l::lock);
            if (dataWord != null) {
                long v = ep.readLong(dataWord);
                // The WRITE and the release's WRITE go to the lock's home on one queue pair when the word is there,
                // so they land in this order (R6).
                ep.writeLong(dataWord, v + 1);
            }
            rec.run("release", null, null, l::unlock);
            ops.addAndGet(2);
        }
    }

    private void kv(Endpoint ep, RemoteAddress table, HistoryRecorder rec, long deadline, AtomicLong ops, int id,
                    String prefix) {
        try (CuckooMap m = CuckooMap.attach(ep, table)) {
            Random rnd = new Random(id * 7919L + System.nanoTime());
            String[] seen = new String[keys]; // the value last seen, null for absent
            for (long i = 0; System.nanoTime() < deadline; i++) {
                int k = rnd.nextInt(keys);
                String key = prefix + k;
                byte[] kb = key.getBytes(StandardCharsets.UTF_8);
                String fresh = "t" + id + "-" + i;
                int what = rnd.nextInt(4);
                try {
                    if (what == 0) {
                        CuckooMap.Result r = kvCall(rec, "get", key, null, () -> m.lookup(kb));
                        if (r.status() != CuckooMap.Status.BUSY) {
                            seen[k] = text(r.value());
                        }
                    } else if (what == 1) {
                        kvCall(rec, "put", key, fresh, () -> m.put(kb, bytes(fresh)));
                    } else if (what == 2) {
                        kvCall(rec, "delete", key, null, () -> m.delete(kb));
                    } else {
                        String expected = rnd.nextInt(4) == 0 ? null : seen[k];
                        String replacement = rnd.nextInt(5) == 0 ? null : fresh;
                        CuckooMap.Result r = kvCall(rec, "cas", key, java.util.Arrays.asList(expected, replacement),
                            () -> m.compareAndSet(kb, bytes(expected), bytes(replacement)));
                        if (r.status() == CuckooMap.Status.CAS_MISMATCH) {
                            seen[k] = text(r.value());
                        } else if (r.status() == CuckooMap.Status.OK) {
                            seen[k] = replacement;
                        }
                    }
                } catch (RuntimeException e) {
                    if (!unknownOutcome(e)) {
                        throw e;
                    }
                    // recorded info; the handle refuses further calls after a timeout or a failed write doorbell
                    if (m.isBroken()) {
                        return;
                    }
                }
                ops.incrementAndGet();
            }
        }
    }

    private static CuckooMap.Result kvCall(HistoryRecorder rec, String function, String key, Object input,
                                           java.util.function.Supplier<CuckooMap.Result> call) {
        return MapCalls.record(rec.invoke(function, key, input), function, StandardCharsets.UTF_8,
            WorkloadCommand::unknownOutcome, call);
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
