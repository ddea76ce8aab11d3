package dev.remora.kv;

import dev.remora.check.HistoryRecorder;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildArgs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client process of the kv fault test ({@link KvProcessFaultTest}), run as a child JVM against a
 * {@link KvFaultHome}: {@code threads} threads, each with its own endpoint and {@link CuckooMap} handle, get, put,
 * delete and compareAndSet the given keys until told to stop, each call recorded by {@link RecordedMap} (the map model's
 * terms) with a {@link HistoryRecorder} that flushes every event to the process's file, so a killed client's history
 * survives up to its last event and its open operation stays open. A thread whose call throws (a timeout or an error:
 * the home is gone) prints it and stops; the call is recorded {@code info}.
 *
 * <p>Thread 0 can be told to stop at a hook point and wait there to be killed, once armed by the command
 * {@code ARM}: {@code pause=between} at its {@code pauseAfter}-th doorbell 2 of a one-slot update
 * ({@link Point#COMMIT}) after that, before posting any of it, its rows
 * locked (the op wrote nothing: a repair only unlocks); {@code pause=prefix} after posting only the intent log's
 * WRITEs and the slot image of that doorbell and reading back (so they have landed), without the version bumps and the
 * unlocks (the op's log is whole: a repair rolls it forward).
 *
 * <p>Stdin commands: {@code ARM}, {@code RECOVER} (each thread calls {@link CuckooMap#recover()} before its next call and prints
 * {@code RECOVERED <thread> <words> <ms>}), {@code STOP}. Output lines: {@code READY}, {@code WORKING} (after the
 * first 20 calls), {@code PAUSED <mode>}, {@code ERROR <thread> <exception> <status>}, {@code DONE key=value...}.
 * A watchdog halts the process with 3 if it still runs {@code runMs} + 15 s after the start.
 *
 * <p>Arguments, {@code key=value}: {@code home} (host:port), {@code history} (file prefix), {@code keys} (comma
 * separated), {@code id} (1), {@code threads} (2), {@code seed} (id), {@code pause} ({@code none}, {@code between},
 * {@code prefix}), {@code pauseAfter} (1), {@code runMs} (upper bound of the run, 30000), {@code opTimeoutMs} (2000),
 * {@code retryMs} (300), {@code connectMs} (2000).
 */
public final class KvFaultClient {
    private final Map<String, String> args;
    private final int id;
    private final String[] keys;
    private final int threads;
    private final long seed;
    private final SocketFabric fabric;
    private final Node me;
    private final RemoteAddress table;
    private final HistoryRecorder rec;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean[] recover;
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong full = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong repairs = new AtomicLong();
    private final AtomicLong kicks = new AtomicLong();
    private final AtomicLong rolledForward = new AtomicLong();
    private final AtomicLong unlockedOnly = new AtomicLong();
    private final AtomicLong finishedOnly = new AtomicLong();
    private final AtomicLong recovered = new AtomicLong();

    private KvFaultClient(Map<String, String> args) {
        this.args = args;
        this.id = Integer.parseInt(args.getOrDefault("id", "1"));
        this.keys = ChildArgs.required(args, "keys").split(",");
        this.threads = Integer.parseInt(args.getOrDefault("threads", "2"));
        this.seed = Long.parseLong(args.getOrDefault("seed", Integer.toString(id)));
        this.recover = new AtomicBoolean[threads];
        for (int t = 0; t < threads; t++) {
            recover[t] = new AtomicBoolean();
        }
        fabric = SocketFabric.open(new SocketContext().host("127.0.0.1").port(0)
            .retryTimeoutNs(ms("retryMs", 300)).connectTimeoutNs(ms("connectMs", 2000)));
        me = fabric.addNode("kvclient" + id);
        connect(ChildArgs.required(args, "home"));
        table = fabric.lookup(KvFaultHome.TABLE);
        rec = HistoryRecorder.builder().writeTo(Path.of(file(ChildArgs.required(args, "history")))).flushEveryEvent()
            .build();
    }

    /**
     * @param prefix the {@code history} argument
     * @return the history file of the client with that prefix
     */
    static String file(String prefix) {
        return prefix + ".jsonl";
    }

    private long ms(String key, long dflt) {
        return ChildArgs.msAsNanos(args, key, dflt);
    }

    /** The first connection, retried for 10 s: the home may still be starting. */
    private void connect(String home) {
        ChildArgs.connect(fabric, home, 10_000_000_000L, e -> { });
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    private static void sleepMs(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits to be killed. */
    private static void pauseForever(String mode) {
        say("PAUSED " + mode);
        while (true) {
            sleepMs(60_000);
        }
    }

    /** Counts the repair doorbells of a handle, and pauses thread 0 at its hook point once armed, if asked to. */
    private final class Hook implements CuckooMap.Hook {
        private final String pause;
        private final int pauseAfter;
        private final Endpoint ep;
        private int commits;
        private boolean posting;

        Hook(String pause, int pauseAfter, Endpoint ep) {
            this.pause = pause;
            this.pauseAfter = pauseAfter;
            this.ep = ep;
        }

        @Override
        public int beforePost(Point point, int requests) {
            switch (point) {
                case REPAIR_ROLL_FORWARD -> rolledForward.incrementAndGet();
                case REPAIR_UNLOCK -> unlockedOnly.incrementAndGet();
                case REPAIR_FINISH -> finishedOnly.incrementAndGet();
                default -> {
                }
            }
            // A one-slot update's doorbell 2 holds 2 rows: its log WRITE, 1 image, 2 bumps and 2 unlocks, 6 requests
            // (on this table's one-slot rows no other op has 6: a kick holds 3 rows or more, 9 requests or more,
            // whose first 5 would include a bump, and a repair would then only finish the op, not roll it forward).
            if (pause != null && armed.get() && point == Point.COMMIT && requests == 6 && ++commits == pauseAfter) {
                if (pause.equals("between")) {
                    pauseForever("between"); // rows locked, nothing of doorbell 2 posted
                }
                posting = true;
                return requests - 4; // the log and the slot image; no bump, no unlock
            }
            return requests;
        }

        @Override
        public void afterPost(Point point) {
            if (posting) {
                // A READ on the same queue pair completes after the WRITEs posted before it are placed (R7, R11):
                // the log and the image are in the table when PAUSED is printed.
                ep.readLong(table);
                pauseForever("prefix");
            }
        }
    }

    private void work(int t) {
        Endpoint ep = Endpoint.open(me, new Endpoint.Context().operationTimeoutNs(ms("opTimeoutMs", 2000)));
        CuckooMap m = CuckooMap.attach(ep, table);
        String pause = args.getOrDefault("pause", "none");
        m.hook = new Hook(t == 0 && !pause.equals("none") ? pause : null,
            Integer.parseInt(args.getOrDefault("pauseAfter", "1")), ep);
        RecordedMap map = new RecordedMap(m, rec.client()::invoke);
        String tag = "c" + id + "t" + t;
        Random rnd = new Random(seed * 1_000_003L + t);
        String[] seen = new String[keys.length]; // the value last seen, null for absent
        long deadline = System.nanoTime() + ms("runMs", 30_000);
        try {
            for (long i = 0; !stop.get() && System.nanoTime() < deadline; i++) {
                if (recover[t].getAndSet(false)) {
                    long start = System.nanoTime();
                    int words = m.recover();
                    recovered.addAndGet(words);
                    say("RECOVERED " + tag + " " + words + " " + (System.nanoTime() - start) / 1_000_000);
                }
                int k = rnd.nextInt(keys.length);
                String fresh = tag + "-" + i;
                Result r;
                String after = null; // the key's value after an OK
                int what = rnd.nextInt(10);
                if (what < 3) {
                    r = map.get(keys[k]);
                    after = RecordedMap.text(r.value());
                } else if (what < 6) {
                    r = map.put(keys[k], fresh);
                    after = fresh;
                } else if (what < 7) {
                    r = map.delete(keys[k]);
                } else {
                    after = rnd.nextInt(5) == 0 ? null : fresh;
                    r = map.compareAndSet(keys[k], rnd.nextInt(4) == 0 ? null : seen[k], after);
                }
                switch (r.status()) {
                    case OK -> seen[k] = after;
                    case NOT_FOUND -> seen[k] = null;
                    case CAS_MISMATCH -> seen[k] = RecordedMap.text(r.value());
                    case BUSY -> busy.incrementAndGet();
                    case TABLE_FULL -> full.incrementAndGet();
                    default -> {
                    }
                }
                if (ops.incrementAndGet() == 20) {
                    say("WORKING");
                }
            }
        } catch (RuntimeException e) {
            errors.incrementAndGet();
            say("ERROR " + tag + " " + e.getClass().getSimpleName() + " "
                + (e instanceof RemoteAccessException r ? r.status() : "-") + " " + e.getMessage());
        }
        repairs.addAndGet(m.repairs());
        kicks.addAndGet(m.kicks());
    }

    private void run() throws InterruptedException {
        Thread input = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.equals("ARM")) {
                        armed.set(true);
                    } else if (line.equals("RECOVER")) {
                        for (AtomicBoolean b : recover) {
                            b.set(true);
                        }
                    } else if (line.equals("STOP")) {
                        stop.set(true);
                    }
                }
            } catch (IOException e) {
                say("STDIN " + e);
            }
        }, "kv-fault-stdin");
        input.setDaemon(true);
        input.start();
        say("READY");
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int tt = t;
            Thread w = new Thread(() -> work(tt), "kv-fault-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        rec.close();
        say("DONE ops=" + ops + " busy=" + busy + " full=" + full + " errors=" + errors + " repairs=" + repairs
            + " rolled=" + rolledForward + " unlocked=" + unlockedOnly + " finished=" + finishedOnly + " kicks="
            + kicks + " recovered=" + recovered);
    }

    /**
     * @param argv {@code key=value} settings (see the class comment)
     */
    public static void main(String[] argv) {
        Map<String, String> a = ChildArgs.parse(argv);
        long limitMs = Long.parseLong(a.getOrDefault("runMs", "30000")) + 15_000;
        Thread watchdog = new Thread(() -> {
            sleepMs(limitMs);
            say("HUNG: still running " + limitMs + " ms after the start");
            Runtime.getRuntime().halt(3);
        }, "kv-fault-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            new KvFaultClient(a).run();
        } catch (RuntimeException | InterruptedException e) {
            e.printStackTrace();
            System.out.flush();
            Runtime.getRuntime().halt(2);
        }
        // Halt, not exit: nothing (a fabric close waiting on a dead peer) may delay the end of a finished client.
        Runtime.getRuntime().halt(0);
    }
}
