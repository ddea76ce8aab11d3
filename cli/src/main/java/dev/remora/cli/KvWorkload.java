package dev.remora.cli;

import dev.remora.check.CheckOptions;
import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap;
import dev.remora.testkit.YcsbDriver;
import dev.remora.testkit.Zipf;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import org.HdrHistogram.Histogram;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The demo's kv workload: a {@link CuckooMap} on the home node, loaded with {@value #KEYS} keys (by default), then
 * YCSB-B (95 %
 * GET, 5 % update, keys drawn Zipf 0.99, 8-byte keys, 32-byte values) from several threads, each with its own endpoint
 * and handle, for a while; then one thread alone GETs and updates {@value #PROBES} keys each, its round trips counted
 * per call. Every operation, the load's puts included, is recorded with a {@link HistoryRecorder} in the terms of the
 * checker's map model ({@link MapCalls}: a GET as {@code get} of its value, {@code null} on a miss; the load's PUTs
 * and the updates with the value each replaced; BUSY as {@code fail}, a verb error as {@code info}) and the history is
 * checked with the map model, every key starting absent: every update's previous value is checked, so a lost update
 * would be refuted.
 */
final class KvWorkload {
    /** Keys loaded and drawn from, by default. */
    static final int KEYS = 10_000;
    /** Bytes of every value. */
    static final int VALUE_BYTES = 32;
    /** GETs, then updates, of the uncontended probe. */
    static final int PROBES = 100;
    /** Most workload operations recorded, over every thread (the history's size, which the checker holds). */
    static final long MAX_OPERATIONS = 1_000_000;

    private KvWorkload() {
    }

    /**
     * What the workload measured and the checker's verdict.
     *
     * @param loadNanos the load's wall time
     * @param operations workload operations (GETs and updates, BUSY included)
     * @param nanos the workload's wall time
     * @param gets GETs
     * @param updates updates
     * @param getRoundTrips round trips of every GET
     * @param updateRoundTrips round trips of every update
     * @param busy BUSY answers
     * @param capped whether the workload stopped at {@link #MAX_OPERATIONS} before its time
     * @param latency every workload operation's latency in ns
     * @param probeGet the probe GETs' fewest and most round trips per call
     * @param probeUpdate the probe updates' fewest and most round trips per call
     * @param history operations in the history
     * @param check the checker's result
     * @param checkNanos the check's time
     * @param failure the first thread failure, or null
     */
    record Outcome(long loadNanos, long operations, long nanos, long gets, long updates, long getRoundTrips,
                   long updateRoundTrips, long busy, boolean capped, Histogram latency, long[] probeGet,
                   long[] probeUpdate, long history, CheckResult check, long checkNanos, Throwable failure) {
        /** @return whether every probe GET took exactly 1 round trip and every probe update exactly 2 */
        boolean roundTripsAsDocumented() {
            return probeGet[0] == 1 && probeGet[1] == 1 && probeUpdate[0] == 2 && probeUpdate[1] == 2;
        }
    }

    /**
     * @param keys keys to hold
     * @return the fewest rows of 4 slots, a power of two, that hold them at 70 % load or less (4,096 for 10,000)
     */
    static int rowsFor(int keys) {
        int rows = 2;
        while (rows * 4L * 7 < keys * 10L) {
            rows <<= 1;
        }
        return rows;
    }

    static byte[] key(long k) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) k;
            k >>>= 8;
        }
        return b;
    }

    /** A 32-character value naming its writer and count, as recorded; its bytes are its ASCII characters. */
    static String value(String writer, long count) {
        StringBuilder sb = new StringBuilder(VALUE_BYTES).append(writer).append('-').append(count);
        while (sb.length() < VALUE_BYTES) {
            sb.append('.');
        }
        return sb.toString();
    }

    /**
     * Runs the load, the workload and the probe, then checks the history.
     *
     * @param home the node holding the table
     * @param clients the client nodes, used in turn by the threads
     * @param threads workload threads
     * @param seconds how long the workload runs
     * @param keys keys loaded and drawn from
     * @return what it measured
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    static Outcome run(Node home, Node[] clients, int threads, double seconds, int keys) throws InterruptedException {
        RemoteAddress table = CuckooMap.allocate(home, new CuckooMap.Params().rows(rowsFor(keys)).slotsPerRow(4)
            .keyCapacity(16).valueCapacity(VALUE_BYTES).clients(2 * threads + 4));
        HistoryRecorder rec = HistoryRecorder.builder().name("demo-kv").build();
        Zipf zipf = new Zipf(keys, Zipf.YCSB_THETA);
        YcsbDriver.Result r = YcsbDriver.run(YcsbDriver.Mix.B, threads,
            id -> new Worker(rec, clients[id % clients.length], table, id, threads, keys), zipf, seconds,
            id -> 17L * id + 5, MAX_OPERATIONS);
        Throwable failure = r.failure();

        long[] probeGet = {Long.MAX_VALUE, 0};
        long[] probeUpdate = {Long.MAX_VALUE, 0};
        if (failure == null) {
            try (Endpoint ep = Endpoint.open(clients[0]); CuckooMap map = CuckooMap.attach(ep, table)) {
                SplittableRandom rnd = new SplittableRandom(99);
                for (int i = 0; i < 2 * PROBES; i++) {
                    long k = rnd.nextInt(keys);
                    boolean read = i < PROBES;
                    long rt0 = ep.statistics().roundTrips();
                    if (read) {
                        recorded(rec, "get", k, null, () -> map.lookup(key(k)));
                    } else {
                        String v = value("probe", i);
                        recorded(rec, "update", k, v, () -> map.update(key(k), v.getBytes(StandardCharsets.US_ASCII)));
                    }
                    long rt = ep.statistics().roundTrips() - rt0;
                    long[] into = read ? probeGet : probeUpdate;
                    into[0] = Math.min(into[0], rt);
                    into[1] = Math.max(into[1], rt);
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        long checkStart = System.nanoTime();
        CheckResult check = Checker.check(rec.history(), Models.map(),
            CheckOptions.DEFAULTS.withTimeLimitSeconds(60));
        long checkNanos = System.nanoTime() - checkStart;
        return new Outcome(r.readyNanos(), r.operations(), r.nanos(), r.gets(), r.updates(), r.getRoundTrips(),
            r.updateRoundTrips(), r.busy(), r.capped(), r.latency(), probeGet, probeUpdate, check.operations(), check,
            checkNanos, failure);
    }

    /**
     * One workload thread: its own endpoint and map handle on a client node; it loads every {@code threads}-th key
     * from its number on before the clock starts, then GETs and updates, each recorded.
     */
    private static final class Worker implements YcsbDriver.Session {
        private final HistoryRecorder rec;
        private final int id;
        private final int threads;
        private final int keys;
        private final Endpoint ep;
        private final CuckooMap map;

        Worker(HistoryRecorder rec, Node node, RemoteAddress table, int id, int threads, int keys) {
            this.rec = rec;
            this.id = id;
            this.threads = threads;
            this.keys = keys;
            this.ep = Endpoint.open(node);
            CuckooMap m;
            try {
                m = CuckooMap.attach(ep, table);
            } catch (RuntimeException | Error e) {
                ep.close();
                throw e;
            }
            this.map = m;
        }

        @Override
        public void prepare() {
            for (long k = id; k < keys; k += threads) {
                long key = k;
                String v = value("load", k);
                recorded(rec, "put", k, v, () -> map.put(key(key), v.getBytes(StandardCharsets.US_ASCII)));
            }
        }

        @Override
        public YcsbDriver.Outcome read(long k) {
            return outcome(recorded(rec, "get", k, null, () -> map.lookup(key(k))).status());
        }

        @Override
        public YcsbDriver.Outcome update(long k, long count) {
            String v = value("t" + id, count);
            return outcome(recorded(rec, "update", k, v, () -> map.update(key(k),
                v.getBytes(StandardCharsets.US_ASCII))).status());
        }

        private static YcsbDriver.Outcome outcome(CuckooMap.Status s) {
            return s == CuckooMap.Status.BUSY ? YcsbDriver.Outcome.BUSY
                : s == CuckooMap.Status.OK ? YcsbDriver.Outcome.OK : YcsbDriver.Outcome.MISS;
        }

        @Override
        public long roundTrips() {
            return ep.statistics().roundTrips();
        }

        @Override
        public void close() {
            try {
                map.close();
            } finally {
                ep.close();
            }
        }
    }

    /**
     * Runs one operation and records it in the map model's terms ({@link MapCalls}): {@code get} OK with the value
     * read, or {@code null} on NOT_FOUND; {@code put} (the load) and {@code update} (the workload's writes) OK with the
     * value they replaced; BUSY as fail (nothing changed); a verb error as info (the outcome is unknown), rethrown. An
     * UPDATE that finds no key is a defect here (every key is loaded before the workload, none is deleted): recorded
     * (an update of an absent key, which the check then refutes) and thrown.
     */
    private static CuckooMap.Result recorded(HistoryRecorder rec, String function, long key, String input,
                                             Supplier<CuckooMap.Result> op) {
        CuckooMap.Result r = MapCalls.record(rec.invoke(function, key, input), function, StandardCharsets.US_ASCII,
            e -> true, op);
        boolean get = function.equals("get");
        switch (r.status()) {
            case OK, BUSY -> {
            }
            case NOT_FOUND -> {
                if (!get) {
                    throw new IllegalStateException("an update of key " + key + " found no key: every key was loaded");
                }
            }
            default -> throw new IllegalStateException(function + " of key " + key + " answered " + r.status());
        }
        return r;
    }
}
