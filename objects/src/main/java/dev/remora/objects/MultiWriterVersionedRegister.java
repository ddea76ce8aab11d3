package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

/**
 * A linearizable register of values up to {@code maxLength} bytes (fixed at creation, at most
 * {@value VersionedRegisterDescriptor#MAX_LENGTH_LIMIT}) in one node's memory, for any number of writers and readers
 * on any nodes. Layout and the argument for it: {@link VersionedRegisterDescriptor}.
 *
 * <p>A handle registers a small local buffer (the size of the data words) on its endpoint's node, which
 * {@link #close()} frees.
 *
 * <p>An instance is a handle for one thread; create one per thread over the same address.
 *
 * <table>
 *   <caption>Verbs and cost per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th><th>synchronizes with</th></tr>
 *   <tr><td>{@link #get()}</td><td>one READ of the {@code 1 + ceil(maxLength/4)} data words; again after a torn
 *       snapshot, with back-off, at most 64 times</td><td>1</td><td>the
 *       {@code set} whose tag every word carries</td></tr>
 *   <tr><td>{@link #set(byte[])}</td><td>CAS the control word from even {@code v} to {@code v+1} (take the write),
 *       one WRITE of the data words tagged {@code v+1}, CAS {@code v+1} to {@code v+2} (release)</td><td>3 when the
 *       handle's guess of {@code v} is right (it is the value it saw last), one more per writer ahead of it; while
 *       another write is in progress, READs of the control word with back-off</td><td>the previous and next
 *       {@code set} through the control word (rao, R14); every later {@code get}: the release CAS executes after
 *       the WRITE is placed (R7), so it is also the flush</td></tr>
 * </table>
 *
 * <p><b>Writers serialise through the control word</b>, changed only by CAS (R14): even = idle, odd = a write in
 * progress, and the odd value is the tag of that write, so tags are unique. A write's WRITE is posted only after its
 * CAS took the word, which the previous writer released only after its own WRITE was placed (R7): the writes' words
 * land in tag order, and each word's tag only moves forward.
 *
 * <p><b>A crashed writer does not block forever: the lease.</b> A writer that finds the same odd value in the control
 * word for {@code leaseNs} on its own clock (no clock agreement between nodes is needed: it measures how long one
 * value stayed) takes the write over by CAS from that odd {@code v} to {@code v+2}, a fresh odd tag. The writer it
 * overtook, if it was only slow, finds its release CAS failing and throws {@link WriteOvertakenException}
 * (indeterminate: record {@code info}). Readers still never return a mix (the tags differ) nor a value nobody wrote;
 * but a slow writer's WRITE that lands after its successor's leaves the words mixed until the next write, and reads
 * fail with {@link RegisterContendedException} meanwhile. Choose {@code leaseNs} well above the longest pause a
 * writer may take between its two CAS (GC, scheduling): the default is {@value #LEASE_NS_DEFAULT} ns.
 *
 * <p>{@code set} gives up with {@link RegisterContendedException}, having changed nothing, after
 * {@value #MAX_WRITE_ATTEMPTS} attempts at the control word. A {@code set} that throws an indeterminate
 * {@link dev.remora.verbs.RemoteAccessException} may have taken effect and may have left the control word odd (the
 * next writer takes it over after the lease): record it as {@code info}.
 */
public final class MultiWriterVersionedRegister implements AutoCloseable {
    /** Default lease: how long a writer waits on one odd control value before it takes the write over. */
    public static final long LEASE_NS_DEFAULT = 100_000_000L;
    /** Attempts at the control word {@link #set} makes before it gives up. */
    public static final int MAX_WRITE_ATTEMPTS = 1 << 16;

    private final VersionedAccess access;
    private final RemoteAddress control;
    private final long leaseNs;
    /** The control value this handle saw last: the guess of its next take. */
    private long lastControl;

    private MultiWriterVersionedRegister(VersionedAccess access, long leaseNs) {
        this.access = access;
        this.control = access.base.plus(VersionedRegisterDescriptor.CONTROL_OFFSET);
        this.leaseNs = leaseNs;
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
        MemoryRegion region = home.allocate(VersionedRegisterDescriptor.length(maxLength), Access.ALL);
        return region.remote(0);
    }

    /**
     * A handle with the default lease, for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param base the register's address, from {@link #create}
     * @param maxLength the {@code maxLength} it was created with
     * @return the handle
     */
    public static MultiWriterVersionedRegister attach(Endpoint endpoint, RemoteAddress base, int maxLength) {
        return attach(endpoint, base, maxLength, LEASE_NS_DEFAULT);
    }

    /**
     * A handle for the thread that owns {@code endpoint}.
     *
     * @param endpoint the calling thread's endpoint
     * @param base the register's address, from {@link #create}
     * @param maxLength the {@code maxLength} it was created with
     * @param leaseNs how long one odd control value must stay, on this endpoint's clock, before this handle takes the
     *     write over; positive
     * @return the handle
     */
    public static MultiWriterVersionedRegister attach(Endpoint endpoint, RemoteAddress base, int maxLength,
                                                      long leaseNs) {
        if (leaseNs <= 0) {
            throw new IllegalArgumentException("leaseNs must be positive: " + leaseNs);
        }
        return new MultiWriterVersionedRegister(new VersionedAccess(endpoint, base, maxLength), leaseNs);
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
        return access.read("MultiWriterVersionedRegister.get");
    }

    /**
     * Writes the value and waits until every node can see it.
     *
     * @param value at most {@code maxLength} bytes (copied)
     * @throws IllegalArgumentException if it is too long
     * @throws WriteOvertakenException if another writer took the write over (outcome unknown)
     * @throws RegisterContendedException if the control word could not be taken in
     *     {@value #MAX_WRITE_ATTEMPTS} attempts (nothing changed)
     */
    public void set(byte[] value) {
        access.checkValue(value);
        Endpoint ep = access.endpoint;
        long version = take(ep);
        access.writeWords(value, (int) version);
        // The release CAS's read phase executes only after the WRITE before it on this queue pair is placed (R7), so
        // the value is in memory when the next writer can take the word, and when this set returns.
        long previous = ep.cas(control, version, version + 1);
        if (previous != version) {
            lastControl = previous;
            throw new WriteOvertakenException("MultiWriterVersionedRegister at " + access.base + ": the write tagged "
                + version + " was taken over (control word now " + previous + "); its value may or may not stay");
        }
        lastControl = version + 1;
    }

    /** Takes the control word: returns the odd version (the tag) this write holds it with. */
    private long take(Endpoint ep) {
        long seen = lastControl;
        long stuck = 0;
        long stuckSince = 0;
        boolean waiting = false;
        for (int attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
            if ((seen & 1) == 0) {
                long previous = ep.cas(control, seen, seen + 1); // only CAS changes the word (R14)
                if (previous == seen) {
                    return seen + 1;
                }
                seen = previous;
                continue;
            }
            long now = ep.nanoTime();
            if (!waiting || seen != stuck) {
                waiting = true;
                stuck = seen;
                stuckSince = now;
            } else if (now - stuckSince >= leaseNs) {
                // The same write has held the word for a whole lease: take it over with a fresh odd tag.
                long previous = ep.cas(control, seen, seen + 2);
                if (previous == seen) {
                    return seen + 2;
                }
                seen = previous;
                continue;
            }
            VersionedAccess.pause(Math.min(attempt, 16));
            seen = ep.readLong(control); // a READ of an atomic word races no atomic (R14 concerns writes)
        }
        lastControl = seen;
        throw new RegisterContendedException("MultiWriterVersionedRegister.set at " + access.base + ": the control "
            + "word stayed busy for " + MAX_WRITE_ATTEMPTS + " attempts", MAX_WRITE_ATTEMPTS);
    }

    /** Frees the handle's local buffer; the register itself stays. Idempotent. */
    @Override
    public void close() {
        access.close();
    }
}
