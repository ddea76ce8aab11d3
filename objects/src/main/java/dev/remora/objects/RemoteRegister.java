package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A linearizable 64-bit read/write register in one node's memory, read and written by remote READ and WRITE from any
 * number of nodes and threads. Layout: {@link RemoteRegisterDescriptor}.
 *
 * <p>An instance is a handle for <em>one thread</em>: it posts through that thread's {@link Endpoint}. Create one
 * handle per thread over the same {@link RemoteAddress}.
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #get()}</td><td>one 8-byte READ</td><td>1</td><td>the {@code set} whose WRITE it reads: an aligned
 *       8-byte word never tears (R18)</td></tr>
 *   <tr><td>{@link #set(long)}</td><td>one inline 8-byte WRITE, then one 8-byte READ of the same word on the same
 *       queue pair</td><td>2</td><td>every later {@code get}: the READ executes only after the WRITE is placed (R7),
 *       so when {@code set} returns the value is visible to every node</td></tr>
 * </table>
 *
 * <p><b>Why {@code set} costs two round trips.</b> A completed WRITE means the target's NIC acknowledged it, not that
 * it is in memory (R11, litmus L05b, L09a): a {@code get} from another node that starts after the WRITE completed may
 * still read the old value, which a linearizable register must not allow. The READ that follows on the same queue
 * pair executes only after the WRITE has been placed (R7, litmus L05a), so once it completes the value is in memory.
 * Each {@code set} then takes effect at its WRITE's placement, which is between its invocation and its return, and
 * each {@code get} at its READ of the word: the register is linearizable.
 *
 * <p><b>Do not</b> mix CAS or FETCH_ADD on this word with these WRITEs (a WRITE may land between an atomic's read and
 * write phases and be lost, R14): use {@link CasRegister} when you need compare-and-set.
 *
 * <p>A {@code set} that throws an indeterminate {@link dev.remora.verbs.RemoteAccessException} may have taken effect,
 * and may still (its WRITE may land later): record it as {@code info}.
 */
public final class RemoteRegister {
    private final Endpoint endpoint;
    private final RemoteAddress word;

    private RemoteRegister(Endpoint endpoint, RemoteAddress word) {
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
            Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        return region.remote(RemoteRegisterDescriptor.VALUE_OFFSET);
    }

    /**
     * A handle on an existing register, for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param word the register's value word
     * @return the handle
     * @throws IllegalArgumentException if the word is not 8-byte aligned
     */
    public static RemoteRegister attach(Endpoint endpoint, RemoteAddress word) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(word, "word");
        if (!word.isWordAligned()) {
            throw new IllegalArgumentException("a register word must be 8-byte aligned: " + word);
        }
        return new RemoteRegister(endpoint, word);
    }

    /** @return the register's value word */
    public RemoteAddress address() {
        return word;
    }

    /**
     * Reads the value. One 8-byte READ, one round trip.
     *
     * @return the value of the last {@code set} placed before the READ (0 initially)
     */
    public long get() {
        return endpoint.readLong(word);
    }

    /**
     * Writes the value and waits until every node can see it. One inline WRITE and one READ on the same queue pair: two
     * round trips.
     *
     * @param value the new value
     * @throws dev.remora.verbs.RemoteAccessException if the home cannot be reached (the WRITE may or may not land)
     */
    public void set(long value) {
        // Not remembered for Endpoint.flush: the READ below is this WRITE's own flush.
        endpoint.writeLong(word, value, false);
        // The READ executes only after the WRITE before it on this queue pair is placed (R7): acknowledged is not
        // placed (R11). Both go to one node through the endpoint's one queue pair to it; had it been replaced in
        // between, a request on it would have failed and thrown.
        endpoint.readLong(word);
    }
}
