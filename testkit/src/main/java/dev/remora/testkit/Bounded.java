package dev.remora.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A loop bound: at most a number of iterations and at most a time, whichever ends first, so that no test or
 * benchmark loop can run forever.
 *
 * <pre>{@code
 * Bounded b = Bounded.of(10_000, Duration.ofSeconds(5));
 * while (b.next()) {
 *     counter.increment();
 * }
 * b.requireAllIterations("increments"); // fails if the deadline came first
 *
 * byte[] m = Bounded.poll(consumer::poll, Duration.ofSeconds(10), "message 7"); // yields between tries
 * }</pre>
 *
 * <p>Not thread-safe: one bound per loop and thread.
 */
public final class Bounded {
    private final long maxIterations;
    private final long deadline;
    private final LongSupplier clock;
    private long iterations;
    private boolean timedOut;

    private Bounded(long maxIterations, long timeoutNs, LongSupplier clock) {
        if (maxIterations < 0 || timeoutNs < 0) {
            throw new IllegalArgumentException("negative bound: " + maxIterations + " iterations, " + timeoutNs + " ns");
        }
        this.maxIterations = maxIterations;
        this.clock = Objects.requireNonNull(clock, "clock");
        long now = clock.getAsLong();
        this.deadline = timeoutNs > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + timeoutNs;
    }

    /**
     * A bound on {@link System#nanoTime()}.
     *
     * @param maxIterations at most this many iterations
     * @param timeout and at most this long from now
     * @return the bound
     */
    public static Bounded of(long maxIterations, Duration timeout) {
        return of(maxIterations, timeout.toNanos(), System::nanoTime);
    }

    /**
     * A bound on a given clock (a deterministic fabric's virtual time, say).
     *
     * @param maxIterations at most this many iterations
     * @param timeoutNs and at most this many nanoseconds of {@code clock} from now
     * @param clock the clock
     * @return the bound
     */
    public static Bounded of(long maxIterations, long timeoutNs, LongSupplier clock) {
        return new Bounded(maxIterations, timeoutNs, clock);
    }

    /**
     * A bound in time only.
     *
     * @param timeout at most this long from now
     * @return the bound
     */
    public static Bounded within(Duration timeout) {
        return of(Long.MAX_VALUE, timeout);
    }

    /**
     * Starts the next iteration if the bound allows it.
     *
     * @return true if another iteration may run (and counts it); false once the iterations are used up or the
     *     deadline passed
     */
    public boolean next() {
        if (iterations >= maxIterations) {
            return false;
        }
        if (clock.getAsLong() - deadline >= 0) {
            timedOut = true;
            return false;
        }
        iterations++;
        return true;
    }

    /** @return the iterations started so far */
    public long iterations() {
        return iterations;
    }

    /** @return whether {@link #next()} stopped the loop because the deadline passed */
    public boolean timedOut() {
        return timedOut;
    }

    /** @return the nanoseconds of the clock left before the deadline (negative once past it) */
    public long remainingNs() {
        return deadline - clock.getAsLong();
    }

    /**
     * Fails if the loop ended by its deadline instead of running all its iterations.
     *
     * @param what the loop, for the message
     * @throws AssertionError if it timed out
     */
    public void requireAllIterations(String what) {
        if (iterations < maxIterations) {
            throw new AssertionError(what + ": only " + iterations + " of " + maxIterations + " iterations before the"
                + " deadline");
        }
    }

    /**
     * Waits until a condition holds, yielding between tries.
     *
     * @param condition the condition
     * @param timeout how long to wait at most
     * @param what what is waited for, for the message
     * @throws AssertionError if the condition still does not hold after {@code timeout}
     */
    public static void await(BooleanSupplier condition, Duration timeout, String what) {
        Bounded b = within(timeout);
        while (!condition.getAsBoolean()) {
            if (!b.next()) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.yield();
        }
    }

    /**
     * Polls until a value comes (not null), yielding between tries.
     *
     * @param poll returns the value or null
     * @param timeout how long to poll at most
     * @param what what is polled for, for the message
     * @param <T> the value's type
     * @return the first non-null value
     * @throws AssertionError if none came within {@code timeout}
     */
    public static <T> T poll(Supplier<T> poll, Duration timeout, String what) {
        Bounded b = within(timeout);
        while (true) {
            T v = poll.get();
            if (v != null) {
                return v;
            }
            if (!b.next()) {
                throw new AssertionError("timed out after " + timeout + " polling for " + what);
            }
            Thread.yield();
        }
    }
}
