package dev.remora.check;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.remora.check.io.HistoryReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Records the operations of a running program as a history, from any number of threads.
 *
 * <p>Each operation is wrapped: its invocation is recorded before the operation starts and its
 * completion after it returns, each appended under one lock, so the order of the events is the
 * real-time order (the position of an event, not its time, decides which operations overlap; see
 * {@code docs/history-format.md}). A normal return is {@code ok} with the value returned; an
 * exception is {@code fail} (the operation did not take effect), unless the caller has marked it
 * as an unknown outcome ({@link Builder#unknownOutcomeOn}, {@link Builder#unknownOutcomeWhen};
 * any {@link Error} too), such as a timeout: then it is {@code info}, never {@code fail}. Times
 * are nanoseconds from one clock, read under the lock.
 *
 * <p>Each thread is a process, with an integer id; after an {@code info} the thread gets a fresh
 * id, since a crashed process may not invoke again. A thread has at most one open operation.
 * Where processes are not threads (several simulated processes on one thread, or an operation
 * completed on another thread), each takes a {@link #client()} of its own.
 *
 * <p>Events are kept in memory ({@link #inMemory()}) or streamed as Remora's JSON Lines to a file
 * ({@link Builder#writeTo}), through a bounded buffer and without keeping them, for histories of
 * millions of operations. Either way {@link #history()} gives a {@link History} for
 * {@link Checker#check}.
 *
 * <pre>{@code
 * HistoryRecorder rec = HistoryRecorder.builder().unknownOutcomeOn(TimeoutException.class).build();
 * long v = rec.call("read", null, null, () -> register.read());
 * rec.run("write", null, 3, () -> register.write(3));
 * CheckResult r = Checker.check(rec.history(), Models.register(0));
 * }</pre>
 */
public final class HistoryRecorder implements AutoCloseable {
    /**
     * An operation that returns a value.
     *
     * @param <T> the result type
     * @param <E> what it throws
     */
    @FunctionalInterface
    public interface Action<T, E extends Throwable> {
        /**
         * Runs the operation.
         *
         * @return its result
         * @throws E its failure
         */
        T run() throws E;
    }

    /**
     * An operation that returns nothing.
     *
     * @param <E> what it throws
     */
    @FunctionalInterface
    public interface VoidAction<E extends Throwable> {
        /**
         * Runs the operation.
         *
         * @throws E its failure
         */
        void run() throws E;
    }

    /** Settings of a recorder. */
    public static final class Builder {
        private Predicate<? super Throwable> unknown = t -> false;
        private LongSupplier clock = System::nanoTime;
        private Path file;
        private boolean flushEveryEvent;
        private String name = "recorded";

        private Builder() {
        }

        /**
         * Marks exceptions of these types (and their subtypes) as unknown outcomes: the operation
         * may or may not have taken effect, and is recorded as {@code info}.
         *
         * @param types the exception types
         * @return this builder
         */
        public Builder unknownOutcomeOn(Class<?>... types) {
            Class<?>[] copy = types.clone();
            for (Class<?> c : copy) {
                if (!Throwable.class.isAssignableFrom(c)) {
                    throw new IllegalArgumentException(c.getName() + " is not an exception type");
                }
            }
            return unknownOutcomeWhen(t -> {
                for (Class<?> c : copy) {
                    if (c.isInstance(t)) {
                        return true;
                    }
                }
                return false;
            });
        }

        /**
         * Marks exceptions the predicate accepts as unknown outcomes (recorded as {@code info});
         * combined with earlier marks by "or".
         *
         * @param predicate the test
         * @return this builder
         */
        public Builder unknownOutcomeWhen(Predicate<? super Throwable> predicate) {
            Objects.requireNonNull(predicate);
            Predicate<? super Throwable> before = unknown;
            unknown = t -> before.test(t) || predicate.test(t);
            return this;
        }

        /**
         * Sets the clock (default {@link System#nanoTime}).
         *
         * @param nanos the clock, in nanoseconds
         * @return this builder
         */
        public Builder clock(LongSupplier nanos) {
            clock = Objects.requireNonNull(nanos);
            return this;
        }

        /**
         * Streams the events as JSON Lines to a file (created or truncated), keeping none in
         * memory.
         *
         * @param path the file
         * @return this builder
         */
        public Builder writeTo(Path path) {
            file = Objects.requireNonNull(path);
            return this;
        }

        /**
         * Flushes the file after every event (with {@link #writeTo}), so that the history of a
         * process killed without warning survives up to its last event: each event reaches the
         * operating system whole (its line ends the write) before the recorder returns. Costs a
         * write system call per event.
         *
         * @return this builder
         */
        public Builder flushEveryEvent() {
            flushEveryEvent = true;
            return this;
        }

        /**
         * Names the history for messages (default: the file name, or {@code recorded}).
         *
         * @param source the name
         * @return this builder
         */
        public Builder name(String source) {
            name = Objects.requireNonNull(source);
            return this;
        }

        /**
         * Creates the recorder.
         *
         * @return the recorder
         * @throws UncheckedIOException when the file cannot be created
         */
        public HistoryRecorder build() {
            return new HistoryRecorder(this);
        }
    }

    /** A recorded invocation, completed once by {@link #ok}, {@link #fail} or {@link #info}. */
    public final class Invocation {
        private final Client owner;
        private final long process;
        private final String function;
        private final Object key;
        private final Object input;
        private boolean done;

        private Invocation(Client owner, String function, Object key, Object input) {
            this.owner = owner;
            this.process = owner.id;
            this.function = function;
            this.key = key;
            this.input = input;
        }

        /** @return the process id written for this operation */
        public long process() {
            return process;
        }

        /**
         * The operation took effect and returned {@code value} (for a read, the value read).
         *
         * @param value the result
         */
        public void ok(Object value) {
            complete(EventType.OK, value);
        }

        /** The operation certainly did not take effect. */
        public void fail() {
            complete(EventType.FAIL, input);
        }

        /** The outcome is unknown: the operation may take effect at any time, or never. */
        public void info() {
            complete(EventType.INFO, input);
        }

        private void complete(EventType type, Object value) {
            synchronized (lock) {
                if (done) {
                    throw new IllegalStateException(function + " by process " + process + " is already completed");
                }
                done = true;
                append(process, type, function, key, value);
                if (type == EventType.INFO) {
                    owner.id = nextProcess.getAndIncrement(); // a crashed process must not invoke again
                }
                owner.open = false;
            }
        }
    }

    /**
     * A process of the history that is not tied to a thread: a client in Jepsen's sense. Use one
     * per simulated process when the operations of several processes run on one thread (as in a
     * deterministic scheduler), or when an operation starts on one thread and completes on
     * another. Like a thread's process, it has at most one open operation, and after an
     * {@code info} it takes a fresh id. Safe to use from any thread.
     */
    public final class Client {
        /** Guarded by the recorder's lock. */
        private long id;
        /** Guarded by the recorder's lock. */
        private boolean open;

        private Client() {
            this.id = nextProcess.getAndIncrement();
        }

        /** @return the id that this client's next operation is recorded with */
        public long process() {
            synchronized (lock) {
                return id;
            }
        }

        /**
         * Records an invocation by this client; complete it with {@link Invocation#ok},
         * {@link Invocation#fail} or {@link Invocation#info}. Call it before the operation starts.
         *
         * @param function the operation's name, such as {@code read}
         * @param key      the key, or {@code null}
         * @param input    the argument ({@code null} for a read)
         * @return the invocation
         * @throws IllegalStateException when the client has an open operation, or the recorder is closed
         */
        public Invocation invoke(String function, Object key, Object input) {
            Objects.requireNonNull(function, "function");
            synchronized (lock) {
                if (open) {
                    throw new IllegalStateException("process " + id + " (thread " + Thread.currentThread().getName()
                            + ") already has an open operation; expected it to be completed first");
                }
                Invocation inv = new Invocation(this, function, key, input);
                append(id, EventType.INVOKE, function, key, input);
                open = true;
                return inv;
            }
        }

        /**
         * Runs an operation as this client and records it, as {@link HistoryRecorder#call} does.
         *
         * @param function the operation's name
         * @param key      the key, or {@code null}
         * @param input    the argument
         * @param action   the operation
         * @param <T>      its result type
         * @param <E>      what it throws
         * @return its result
         * @throws E its failure
         */
        public <T, E extends Throwable> T call(String function, Object key, Object input, Action<T, E> action)
                throws E {
            Invocation inv = invoke(function, key, input); // before the operation starts
            T result;
            try {
                result = action.run();
            } catch (Throwable t) {
                if (t instanceof Error || unknown.test(t)) {
                    inv.info();
                } else {
                    inv.fail();
                }
                throw t;
            }
            inv.ok(result); // after it returned
            return result;
        }

        /**
         * Runs an operation that returns nothing as this client, as {@link HistoryRecorder#run} does.
         *
         * @param function the operation's name
         * @param key      the key, or {@code null}
         * @param input    the argument
         * @param action   the operation
         * @param <E>      what it throws
         * @throws E its failure
         */
        public <E extends Throwable> void run(String function, Object key, Object input, VoidAction<E> action)
                throws E {
            call(function, key, input, () -> {
                action.run();
                return input;
            });
        }
    }

    private final Object lock = new Object();
    private final Predicate<? super Throwable> unknown;
    private final LongSupplier clock;
    private final Path file;
    private final boolean flushEveryEvent;
    private final String name;
    private final AtomicLong nextProcess = new AtomicLong();
    private final ThreadLocal<Client> processes;
    /** Guarded by the lock; {@code null} when writing to a file. */
    private final List<Event> events;
    /** Guarded by the lock; {@code null} when recording in memory. */
    private final JsonGenerator out;
    private long count;
    private boolean closed;

    private HistoryRecorder(Builder b) {
        this.unknown = b.unknown;
        this.clock = b.clock;
        this.file = b.file;
        this.flushEveryEvent = b.flushEveryEvent;
        this.name = b.file != null && b.name.equals("recorded") ? b.file.toString() : b.name;
        this.processes = ThreadLocal.withInitial(Client::new);
        if (file == null) {
            events = new ArrayList<>();
            out = null;
        } else {
            events = null;
            try {
                Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                out = new JsonFactory().createGenerator(w);
                out.setRootValueSeparator(null);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
    }

    /** @return a new builder */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A recorder that keeps its events in memory, with no exception marked as an unknown outcome.
     *
     * @return the recorder
     */
    public static HistoryRecorder inMemory() {
        return builder().build();
    }

    /**
     * Records an invocation by the current thread's process; complete it with
     * {@link Invocation#ok}, {@link Invocation#fail} or {@link Invocation#info}, from any thread.
     * Call it before the operation starts.
     *
     * @param function the operation's name, such as {@code read}
     * @param key      the key, or {@code null}
     * @param input    the argument ({@code null} for a read)
     * @return the invocation
     * @throws IllegalStateException when the thread has an open operation, or the recorder is closed
     */
    public Invocation invoke(String function, Object key, Object input) {
        return processes.get().invoke(function, key, input);
    }

    /**
     * A new process that is not tied to a thread.
     *
     * @return the client
     */
    public Client client() {
        return new Client();
    }

    /**
     * Runs an operation and records it: {@code ok} with its result, {@code info} when it throws
     * an exception marked as an unknown outcome (or an {@link Error}), otherwise {@code fail}. The
     * exception is rethrown.
     *
     * @param function the operation's name
     * @param key      the key, or {@code null}
     * @param input    the argument
     * @param action   the operation
     * @param <T>      its result type
     * @param <E>      what it throws
     * @return its result
     * @throws E its failure
     */
    public <T, E extends Throwable> T call(String function, Object key, Object input, Action<T, E> action) throws E {
        return processes.get().call(function, key, input, action);
    }

    /**
     * Runs an operation that returns nothing, such as a write, and records it as {@link #call}
     * does; {@code ok} carries the input.
     *
     * @param function the operation's name
     * @param key      the key, or {@code null}
     * @param input    the argument
     * @param action   the operation
     * @param <E>      what it throws
     * @throws E its failure
     */
    public <E extends Throwable> void run(String function, Object key, Object input, VoidAction<E> action) throws E {
        processes.get().run(function, key, input, action);
    }

    /** @return the number of events recorded so far */
    public long size() {
        synchronized (lock) {
            return count;
        }
    }

    /**
     * The history recorded so far (operations still open are indeterminate). In memory it is
     * built from the events; for a file, the file is flushed and read back, streamed.
     *
     * @return the history
     * @throws UncheckedIOException when the file cannot be read back
     */
    public History history() {
        synchronized (lock) {
            if (events != null) {
                return History.fromEvents(name, HistoryFormat.JSONL, new ArrayList<>(events));
            }
            try {
                if (!closed) {
                    out.flush();
                }
                return HistoryReader.read(file, HistoryFormat.JSONL);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read back " + file, e);
            }
        }
    }

    /**
     * Flushes and closes the file; no more operations may be recorded.
     *
     * @throws UncheckedIOException when the file cannot be written
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (out != null) {
                try {
                    out.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write " + file, e);
                }
            }
        }
    }

    /** Appends one event; the caller holds the lock, so the position is the real-time order. */
    private void append(long process, EventType type, String function, Object key, Object value) {
        if (closed) {
            throw new IllegalStateException("the recorder is closed");
        }
        long time = clock.getAsLong();
        count++;
        if (events != null) {
            events.add(new Event(process, type, function, key, value, time, (int) Math.min(count, Integer.MAX_VALUE)));
            return;
        }
        try {
            out.writeStartObject();
            out.writeNumberField("process", process);
            out.writeStringField("type", type.name().toLowerCase(java.util.Locale.ROOT));
            out.writeStringField("f", function);
            if (key != null) {
                out.writeFieldName("key");
                writeValue(key);
            }
            if (value != null) {
                out.writeFieldName("value");
                writeValue(value);
            }
            out.writeNumberField("time", time);
            out.writeEndObject();
            out.writeRaw('\n');
            if (flushEveryEvent) {
                out.flush(); // the whole line, then the write: a killed process leaves no half event
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void writeValue(Object v) throws IOException {
        Object n = Values.normalize(v);
        if (n == null) {
            out.writeNull();
        } else if (n instanceof Boolean) {
            out.writeBoolean((Boolean) n);
        } else if (n instanceof Long) {
            out.writeNumber((Long) n);
        } else if (n instanceof BigInteger) {
            out.writeNumber((BigInteger) n);
        } else if (n instanceof Number) {
            out.writeNumber(((Number) n).doubleValue());
        } else if (n instanceof Keyword) {
            out.writeString(((Keyword) n).name());
        } else if (n instanceof Collection) {
            out.writeStartArray();
            for (Object e : (Collection<?>) n) {
                writeValue(e);
            }
            out.writeEndArray();
        } else if (n instanceof Map) {
            out.writeStartObject();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) n).entrySet()) {
                out.writeFieldName(String.valueOf(e.getKey() instanceof Keyword ? ((Keyword) e.getKey()).name()
                        : e.getKey()));
                writeValue(e.getValue());
            }
            out.writeEndObject();
        } else {
            out.writeString(n.toString());
        }
    }
}
