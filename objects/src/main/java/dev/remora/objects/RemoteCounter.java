package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A linearizable 64-bit counter in one node's memory, updated by remote FETCH_ADD from any number of nodes and
 * threads. Layout: {@link RemoteCounterDescriptor}.
 *
 * <p>An instance is a handle for <em>one thread</em>: it posts through that thread's {@link Endpoint}. Create one
 * handle per thread over the same {@link RemoteAddress}; handles are cheap and may run concurrently on any nodes.
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #incrementAndGet()}, {@link #addAndGet(long)}, {@link #getAndAdd(long)}</td>
 *       <td>one 8-byte FETCH_ADD</td><td>1</td><td>every other FETCH_ADD on the word (rao: remote atomics to one
 *       node are totally ordered and mutually exclusive)</td></tr>
 *   <tr><td>{@link #get()}</td><td>one 8-byte READ</td><td>1</td><td>the FETCH_ADDs it reads from: an aligned
 *       8-byte word never tears (R18), and a FETCH_ADD's write is a single 8-byte store</td></tr>
 * </table>
 *
 * <p><b>Linearizability.</b> Each FETCH_ADD takes effect at one instant between posting and completion, and
 * increments never interleave with each other (rao), so every update is linearizable, and {@code get} reads a value
 * some prefix of them produced. <b>Do not</b> update the word with the home node's CPU ({@code getAndAddLong} on the
 * region) or with remote WRITEs while handles are in use: remote atomics are atomic only against other remote
 * atomics (R14, litmus L11–L13, L16), so such an update or an increment can be lost.
 */
public final class RemoteCounter {
    private final Endpoint endpoint;
    private final RemoteAddress word;

    private RemoteCounter(Endpoint endpoint, RemoteAddress word) {
        this.endpoint = endpoint;
        this.word = word;
    }

    /**
     * Allocates a zeroed counter in {@code home}'s memory.
     *
     * @param home the node that holds the counter
     * @return the address to hand to {@link #attach}
     */
    public static RemoteAddress create(Node home) {
        MemoryRegion region = home.allocate(RemoteCounterDescriptor.LENGTH,
            Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        return region.remote(RemoteCounterDescriptor.VALUE_OFFSET);
    }

    /**
     * A handle on an existing counter, for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param word the counter's value word
     * @return the handle
     * @throws IllegalArgumentException if the word is not 8-byte aligned
     */
    public static RemoteCounter attach(Endpoint endpoint, RemoteAddress word) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(word, "word");
        if (!word.isWordAligned()) {
            throw new IllegalArgumentException("a counter word must be 8-byte aligned: " + word);
        }
        return new RemoteCounter(endpoint, word);
    }

    /** @return the counter's value word */
    public RemoteAddress address() {
        return word;
    }

    /**
     * Adds one. One FETCH_ADD, one round trip.
     *
     * @return the value after the increment
     * @throws dev.remora.verbs.RemoteAccessException if the home node cannot be reached (the increment may or may not
     *     have happened: record it as indeterminate)
     */
    public long incrementAndGet() {
        return endpoint.faa(word, 1) + 1;
    }

    /**
     * Adds {@code delta} (two's complement wrap-around). One FETCH_ADD, one round trip.
     *
     * @param delta the addend
     * @return the value after the addition
     */
    public long addAndGet(long delta) {
        return endpoint.faa(word, delta) + delta;
    }

    /**
     * Adds {@code delta}. One FETCH_ADD, one round trip.
     *
     * @param delta the addend
     * @return the value before the addition
     */
    public long getAndAdd(long delta) {
        return endpoint.faa(word, delta);
    }

    /**
     * Reads the value. One 8-byte READ, one round trip.
     *
     * @return the current value
     */
    public long get() {
        return endpoint.readLong(word);
    }
}
