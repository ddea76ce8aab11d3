package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A linearizable 64-bit register with compare-and-set in one node's memory, changed only by remote CAS from any
 * number of nodes and threads. Layout: {@link RemoteRegisterDescriptor}.
 *
 * <p>An instance is a handle for <em>one thread</em>: it posts through that thread's {@link Endpoint}. Create one
 * handle per thread over the same {@link RemoteAddress}.
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #get()}</td><td>one 8-byte READ</td><td>1</td><td>the CAS whose write it reads (a CAS's write is
 *       one 8-byte store, and a word never tears: R18)</td></tr>
 *   <tr><td>{@link #compareAndSet(long, long)}</td><td>one CAS</td><td>1</td><td>every other CAS on the word (rao:
 *       remote atomics to one node are totally ordered and mutually exclusive, R14)</td></tr>
 *   <tr><td>{@link #getAndSet(long)}</td><td>CAS until one succeeds, each expecting the value the previous one
 *       returned (the first expects the value this handle saw last)</td><td>1 when this handle saw the current
 *       value last, else 2; one more per concurrent change</td><td>as {@code compareAndSet}</td></tr>
 * </table>
 *
 * <p><b>Writes are CAS only.</b> There is no WRITE-based {@code set}: remote atomics are atomic only against other
 * remote atomics, so a WRITE (or a CPU store at the home) could land between a CAS's read and write phases and be
 * lost, or make a CAS succeed against a value that was already gone (R14, R15, litmus L11–L13). A CAS's effect is
 * in memory when it completes (its read and write phases precede its completion: R9, R11), so no flush is needed. A
 * failed CAS writes nothing (R16).
 *
 * <p>{@code getAndSet} is lock-free, not wait-free: each failed attempt means another CAS succeeded. It gives up after
 * {@link #MAX_ATTEMPTS} attempts with {@link RegisterContendedException}, having changed nothing.
 */
public final class CasRegister {
    /** Attempts {@link #getAndSet} makes before it gives up. */
    public static final int MAX_ATTEMPTS = 1 << 16;

    private final Endpoint endpoint;
    private final RemoteAddress word;
    /** The value this handle saw last: the first guess of {@link #getAndSet}. */
    private long lastSeen;

    private CasRegister(Endpoint endpoint, RemoteAddress word) {
        this.endpoint = endpoint;
        this.word = word;
    }

    /**
     * Allocates a zeroed register in {@code home}'s memory.
     *
     * @param home the node that holds the register
     * @return the address to hand to {@link #attach}
     */
    public static RemoteAddress create(Node home) {
        MemoryRegion region = home.allocate(RemoteRegisterDescriptor.LENGTH,
            Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        return region.remote(RemoteRegisterDescriptor.VALUE_OFFSET);
    }

    /**
     * A handle on an existing register, for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param word the register's value word
     * @return the handle
     * @throws IllegalArgumentException if the word is not 8-byte aligned (a CAS there would fail: R17)
     */
    public static CasRegister attach(Endpoint endpoint, RemoteAddress word) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(word, "word");
        if (!word.isWordAligned()) {
            throw new IllegalArgumentException("a register word must be 8-byte aligned: " + word);
        }
        return new CasRegister(endpoint, word);
    }

    /** @return the register's value word */
    public RemoteAddress address() {
        return word;
    }

    /**
     * Reads the value. One 8-byte READ, one round trip.
     *
     * @return the current value (0 initially)
     */
    public long get() {
        lastSeen = endpoint.readLong(word);
        return lastSeen;
    }

    /**
     * Sets the value to {@code desired} if it is {@code expected}. One CAS, one round trip.
     *
     * @param expected the value the register must hold
     * @param desired the new value
     * @return whether the register held {@code expected} (and now holds {@code desired})
     * @throws dev.remora.verbs.RemoteAccessException if the home cannot be reached (an indeterminate one: the CAS may
     *     have taken effect; record {@code info})
     */
    public boolean compareAndSet(long expected, long desired) {
        long previous = endpoint.cas(word, expected, desired);
        boolean swapped = previous == expected;
        lastSeen = swapped ? desired : previous;
        return swapped;
    }

    /**
     * Sets the value and returns the previous one, by CAS until one succeeds.
     *
     * @param desired the new value
     * @return the value it replaced
     * @throws RegisterContendedException after {@link #MAX_ATTEMPTS} failed CAS (nothing changed)
     */
    public long getAndSet(long desired) {
        long expected = lastSeen;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            long previous = endpoint.cas(word, expected, desired);
            if (previous == expected) {
                lastSeen = desired;
                return previous;
            }
            expected = previous; // the value some other CAS installed: rao orders it before our next attempt (R14)
        }
        lastSeen = expected;
        throw new RegisterContendedException("getAndSet at " + word + " failed " + MAX_ATTEMPTS
            + " CAS in a row", MAX_ATTEMPTS);
    }
}
