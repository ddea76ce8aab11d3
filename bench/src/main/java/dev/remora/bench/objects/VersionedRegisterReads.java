package dev.remora.bench.objects;

import dev.remora.objects.MultiWriterVersionedRegister;
import dev.remora.objects.RegisterContendedException;
import dev.remora.objects.RemoteRegister;
import dev.remora.objects.SingleWriterVersionedRegister;
import dev.remora.objects.WriteOvertakenException;
import dev.remora.testkit.Cluster;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Versioned-register read throughput under concurrent writers: one reader thread on its own node reads for a fixed
 * time while 0, 1 or 4 writer threads (each on its own node) overwrite the register as fast as they can, on the fast
 * fabric with the 2 µs round-trip preset. {@link SingleWriterVersionedRegister} with 0 and 1 writer,
 * {@link MultiWriterVersionedRegister} with 0, 1 and 4; the baseline, in the same run, is a
 * {@link RemoteRegister#get()} of one word by the same reader with no writer.
 *
 * <p>Retries per read: a {@code get} posts one READ per attempt, so (READs the reader posted − reads returned −
 * reads given up) / reads is the torn snapshots retried per read; "gave up" counts {@link RegisterContendedException}
 * (64 torn snapshots in a row, no effect). Two ratios: reads/s over the one-word baseline's, and over the same
 * register's with no writer. The multi-writer writers take a 5 s lease instead of the default 100 ms: on a loaded
 * machine a writer descheduled for longer than the lease is taken over ({@link WriteOvertakenException}, counted
 * as "overtaken" and the writer goes on), which is the register's design, but not what this measures.
 *
 * <p>Run: {@code java -cp bench/target/remora-bench.jar dev.remora.bench.objects.VersionedRegisterReads
 * [ms per case] [value bytes]} (default 1000 and 256; each case first reads for a quarter of that, uncounted).
 */
public final class VersionedRegisterReads {
    /** The registers read. */
    public enum Register {
        /** {@link RemoteRegister}, one word: the baseline. */
        WORD,
        /** {@link SingleWriterVersionedRegister}. */
        SINGLE_WRITER,
        /** {@link MultiWriterVersionedRegister}. */
        MULTI_WRITER
    }

    /**
     * One case's result.
     *
     * @param register the register
     * @param writers concurrent writer threads
     * @param reads reads returned
     * @param gaveUp reads that gave up ({@link RegisterContendedException})
     * @param readVerbs READs the reader posted
     * @param writes writes the writers completed
     * @param overtaken writes that ended in {@link WriteOvertakenException} or gave up contended
     * @param seconds the reader's time
     */
    public record Row(Register register, int writers, long reads, long gaveUp, long readVerbs, long writes,
                      long overtaken, double seconds) {
        /** @return reads returned per second */
        public double rate() {
            return reads / seconds;
        }

        /** @return torn snapshots retried per read returned */
        public double retriesPerRead() {
            return reads == 0 ? 0 : (double) (readVerbs - reads - gaveUp) / reads;
        }
    }

    /** A reader's or a writer's handle, closed after the case. */
    private interface Handle extends AutoCloseable {
        void op(int i);

        @Override
        void close();
    }

    private VersionedRegisterReads() {
    }

    private static Row run(Register register, int writers, int length, long durationNs) throws Exception {
        String[] names = new String[writers + 2];
        names[0] = "home";
        names[1] = "reader";
        for (int w = 0; w < writers; w++) {
            names[w + 2] = "w" + w;
        }
        try (Cluster c = Cluster.fastTwoMicroseconds(names)) {
            RemoteAddress base = switch (register) {
                case WORD -> RemoteRegister.create(c.node("home"));
                case SINGLE_WRITER -> SingleWriterVersionedRegister.create(c.node("home"), length);
                case MULTI_WRITER -> MultiWriterVersionedRegister.create(c.node("home"), length);
            };
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder writes = new LongAdder();
            LongAdder overtaken = new LongAdder();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                Handle h = writer(register, c.endpoint("w" + w), base, length, w);
                Thread t = new Thread(() -> {
                    try (h) {
                        for (int i = 0; !stop.get(); i++) {
                            try {
                                h.op(i);
                                writes.increment();
                            } catch (WriteOvertakenException | RegisterContendedException e) {
                                overtaken.increment();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "writer-" + w);
                t.setDaemon(true);
                threads.add(t);
            }
            Endpoint ep = c.endpoint("reader");
            long reads = 0;
            long gaveUp = 0;
            VerbsStatistics before;
            long start;
            long elapsed;
            try (Handle reader = reader(register, ep, base, length)) {
                reader.op(0); // connects the queue pair
                threads.forEach(Thread::start);
                // warm-up: a quarter of the case's time, not counted (the JIT, and the writers under way)
                for (long w0 = System.nanoTime(); System.nanoTime() - w0 < durationNs / 4; ) {
                    try {
                        reader.op(0);
                    } catch (RegisterContendedException e) {
                        // not counted
                    }
                }
                before = ep.statistics();
                start = System.nanoTime();
                while (System.nanoTime() - start < durationNs) {
                    try {
                        reader.op(0);
                        reads++;
                    } catch (RegisterContendedException e) {
                        gaveUp++;
                    }
                }
                elapsed = System.nanoTime() - start;
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(10_000);
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException(register + ": a writer failed", failure.get());
            }
            VerbsStatistics used = ep.statistics().minus(before);
            return new Row(register, writers, reads, gaveUp, used.reads(), writes.sum(), overtaken.sum(),
                elapsed / 1e9);
        }
    }

    private static Handle reader(Register register, Endpoint ep, RemoteAddress base, int length) {
        switch (register) {
            case WORD -> {
                RemoteRegister r = RemoteRegister.attach(ep, base);
                return handle(i -> r.get(), () -> { });
            }
            case SINGLE_WRITER -> {
                SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, base, length);
                return handle(i -> check(r.get(), length), r::close);
            }
            default -> {
                MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, length);
                return handle(i -> check(r.get(), length), r::close);
            }
        }
    }

    private static Handle writer(Register register, Endpoint ep, RemoteAddress base, int length, int id) {
        if (register == Register.SINGLE_WRITER) {
            SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, base, length);
            return handle(i -> r.set(value(length, id, i)), r::close);
        }
        if (register == Register.MULTI_WRITER) {
            MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, length, 5_000_000_000L);
            return handle(i -> r.set(value(length, id, i)), r::close);
        }
        throw new IllegalArgumentException("the baseline has no writer");
    }

    private static Handle handle(java.util.function.IntConsumer op, Runnable close) {
        return new Handle() {
            @Override
            public void op(int i) {
                op.accept(i);
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }

    /** Every byte of a value is one write's: a mix of two writes would show. */
    private static byte[] value(int length, int writer, int i) {
        byte[] v = new byte[length];
        Arrays.fill(v, (byte) (writer * 31 + i));
        return v;
    }

    private static void check(byte[] v, int length) {
        if (v.length != 0 && v.length != length) {
            throw new IllegalStateException("read a value of " + v.length + " bytes");
        }
        for (byte b : v) {
            if (b != v[0]) {
                throw new IllegalStateException("read a mix of two writes");
            }
        }
    }

    /**
     * Measures every case.
     *
     * @param durationMs milliseconds of reading per case
     * @param length value bytes
     * @return the rows: the baseline first
     * @throws Exception on failure
     */
    public static List<Row> measure(long durationMs, int length) throws Exception {
        long d = durationMs * 1_000_000L;
        List<Row> rows = new ArrayList<>();
        rows.add(run(Register.WORD, 0, length, d));
        rows.add(run(Register.SINGLE_WRITER, 0, length, d));
        rows.add(run(Register.SINGLE_WRITER, 1, length, d));
        rows.add(run(Register.MULTI_WRITER, 0, length, d));
        rows.add(run(Register.MULTI_WRITER, 1, length, d));
        rows.add(run(Register.MULTI_WRITER, 4, length, d));
        return rows;
    }

    /**
     * Prints the table.
     *
     * @param out where
     * @param rows the measurements, the baseline first
     */
    public static void print(PrintStream out, List<Row> rows) {
        Row word = rows.get(0);
        out.printf(Locale.ROOT, "%-14s %7s %9s %9s %8s %8s %9s %9s %8s %12s%n", "register", "writers", "reads",
            "reads/s", "retries", "gave up", "writes/s", "overtaken", "vs word", "vs 0 writers");
        for (Row r : rows) {
            Row idle = rows.stream().filter(b -> b.register() == r.register() && b.writers() == 0).findFirst()
                .orElse(r);
            out.printf(Locale.ROOT, "%-14s %7d %9d %9.0f %8.3f %8d %9.0f %9d %8.3f %12.3f%n", r.register(),
                r.writers(), r.reads(), r.rate(), r.retriesPerRead(), r.gaveUp(), r.writes() / r.seconds(),
                r.overtaken(), r.rate() / word.rate(), r.rate() / idle.rate());
        }
    }

    /**
     * @param args {@code [ms per case] [value bytes]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        int length = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        System.out.printf(Locale.ROOT, "VersionedRegisterReads: %d ms per case, %d-byte values, fast fabric with the"
            + " 2 us preset, %s%n", ms, length, RingThroughput.machine());
        print(System.out, measure(ms, length));
    }
}
