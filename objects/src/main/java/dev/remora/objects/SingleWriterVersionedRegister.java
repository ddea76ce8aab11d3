package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

/**
 * A linearizable register of values up to {@code maxLength} bytes (fixed at creation, at most
 * {@value VersionedRegisterDescriptor#MAX_LENGTH_LIMIT}) in one node's memory, for <em>one writer</em> and any number
 * of readers on any nodes. Layout and the argument for it: {@link VersionedRegisterDescriptor}.
 *
 * <p>A handle registers a small local buffer (the size of the data words) on its endpoint's node, which
 * {@link #close()} frees.
 *
 * <p>An instance is a handle for one thread. At most one handle may call {@link #set} at a time, over the register's
 * whole life, and a handle holds the writer's role once: to hand the role over (after the last {@code set} returned),
 * the new writer attaches a new handle, whose first {@code set} learns the last tag. A handle that gave the role away
 * must not {@code set} again, even when the role comes back to its thread: its tag counter has not seen the writes
 * made meanwhile, so it would reuse a tag, and a reader concurrent with that {@code set} could take words of both
 * writes for one value. Any handle may {@link #get}.
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #get()}</td><td>one READ of the {@code 1 + ceil(maxLength/4)} data words; again after a torn
 *       snapshot, with back-off, at most 64 times</td><td>1</td><td>the
 *       {@code set} whose tag every word carries</td></tr>
 *   <tr><td>{@link #set(byte[])}</td><td>one WRITE of the data words, then one 8-byte READ of the header on the same
 *       queue pair (the flush); the handle's first {@code set} first READs the data words once to learn the last
 *       tag</td><td>2 (3 for the handle's first)</td><td>every later {@code get}: the flush READ executes after the
 *       WRITE is placed (R7)</td></tr>
 * </table>
 *
 * <p>Every write's words carry a fresh tag; a reader accepts a snapshot only when all its words carry the same tag,
 * which no order of the READ's words can fake (R18), and the single writer's WRITEs land in posting order on its one
 * queue pair (R6), so each word's tag only moves forward.
 *
 * <p>A {@code get} that finds 64 torn snapshots in a row (writes faster than
 * one READ, or a writer that failed in the middle of a WRITE and never wrote again) throws
 * {@link RegisterContendedException}; it had no effect. A {@code set} that throws an indeterminate
 * {@link dev.remora.verbs.RemoteAccessException} may have taken effect: record it as {@code info}.
 */
public final class SingleWriterVersionedRegister implements AutoCloseable {
    private final VersionedAccess access;
    /** The tag of this handle's last write; {@code lastTagKnown} is false until it has read or written one. */
    private int lastTag;
    private boolean lastTagKnown;

    private SingleWriterVersionedRegister(VersionedAccess access) {
        this.access = access;
    }

    /**
     * Allocates an empty register (its value is the empty byte array) in {@code home}'s memory.
     *
     * @param home the node that holds it
     * @param maxLength the largest value it will hold, in bytes
     * @return the address to hand to {@link #attach}
     */
    public static RemoteAddress create(Node home, int maxLength) {
        VersionedRegisterDescriptor.checkMaxLength(maxLength);
        MemoryRegion region = home.allocate(VersionedRegisterDescriptor.length(maxLength),
            Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        return region.remote(0);
    }

    /**
     * A handle for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param base the register's address, from {@link #create}
     * @param maxLength the {@code maxLength} it was created with
     * @return the handle
     */
    public static SingleWriterVersionedRegister attach(Endpoint endpoint, RemoteAddress base, int maxLength) {
        return new SingleWriterVersionedRegister(new VersionedAccess(endpoint, base, maxLength));
    }

    /** @return the register's address */
    public RemoteAddress address() {
        return access.base;
    }

    /** @return the largest value it holds, in bytes */
    public int maxLength() {
        return access.maxLength;
    }

    /**
     * Reads the value: one READ, repeated while it returns words of more than one write.
     *
     * @return a copy of the value of the last write placed (the empty array initially)
     * @throws RegisterContendedException after 64 torn snapshots
     */
    public byte[] get() {
        return access.read("SingleWriterVersionedRegister.get");
    }

    /**
     * Writes the value and waits until every node can see it: one WRITE, one flush READ.
     *
     * @param value at most {@code maxLength} bytes (copied)
     * @throws IllegalArgumentException if it is too long
     */
    public void set(byte[] value) {
        access.checkValue(value);
        if (!lastTagKnown) {
            // The last writer's tag: the largest in the words (all equal unless a writer stopped in mid-WRITE).
            int max = 0;
            for (long w : access.readWords()) {
                int t = VersionedRegisterDescriptor.tagOf(w);
                max = Integer.compareUnsigned(t, max) > 0 ? t : max;
            }
            lastTag = max;
            lastTagKnown = true;
        }
        int tag = lastTag + 1;
        lastTag = tag; // used even if the WRITE fails: it may land later, so no other write may reuse its tag
        access.writeWords(value, tag);
        // The flush: a READ on the WRITE's queue pair executes only after the WRITE is placed (R7); completed is only
        // acknowledged (R11). The next set's WRITE lands after this one's on the same queue pair anyway (R6).
        access.endpoint.readLong(access.data);
    }

    /** Frees the handle's local buffer; the register itself stays. Idempotent. */
    @Override
    public void close() {
        access.close();
    }
}
