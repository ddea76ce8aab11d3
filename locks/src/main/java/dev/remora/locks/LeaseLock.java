package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;

import java.util.Objects;

/**
 * A lock whose holder keeps it only while it renews a lease; a crashed or stalled holder's lock is taken over once
 * its lease has expired. Every acquisition returns a strictly increasing fencing token for {@link FencedRegister}, so
 * a holder that lost its lease cannot overwrite its successor's data.
 *
 * <p>The layout, one lease word packing (generation, beat) and the lock's lease length and margin, is drawn in
 * {@link LeaseLockDescriptor}. The lease length and margin belong to the lock: {@link #create} stores them and every
 * handle reads them at {@link #attach}, so no two handles can disagree about how long a lease lasts.
 *
 * <h2>Timing (docs/locks.md, "Lease timing without a shared clock")</h2>
 * No node compares its clock with another's ({@link Endpoint#nanoTime()}, the fabric's clock). The assumption is a
 * bound ρ on every clock's rate drift and a bound δ on how late a verb lands after it is posted; the margin must
 * cover {@code 2ρ·lease + δ}.
 * <ul>
 *   <li>A <b>holder</b> trusts its lease ({@link #isLeaseValid()}) while its own clock shows less than
 *       {@code lease − margin} since the reading it took <em>before posting</em> the CAS that installed its current
 *       word (the acquisition or the last successful {@link #renew()}).</li>
 *   <li>A <b>waiter</b> takes over only after it has seen the same held word for a whole lease by its own clock,
 *       measured from a reading taken <em>after</em> the READ that first returned the word completed to a reading
 *       taken <em>before posting</em> a later READ that returned it again; the takeover is a CAS expecting that very
 *       word, so a renewal that landed in the meantime makes it fail.</li>
 * </ul>
 * Under the assumption no waiter takes over while the holder trusts its lease, and the verbs the holder posts while
 * it trusts it land before any takeover. Fencing covers every timing: a stale holder's fenced writes are refused.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #attach}</td><td>two READs (lease length, margin)</td><td>2</td></tr>
 *   <tr><td>{@link #tryLock()}</td><td>READ of the lease word, CAS(g, 0 → g + 1, 0)</td><td>2</td></tr>
 *   <tr><td>{@link #renew()}</td><td>CAS(g, b → g, b + 1)</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>flush READs, CAS(g, b → g + 1, 0)</td><td>1 (+1 per node written)</td></tr>
 * </table>
 *
 * <p>A holder with a long critical section can leave renewal to a {@link LeaseWatchdog} ({@link #startWatchdog}), a
 * thread that renews while the handle holds the lock and reports a takeover.
 *
 * <p>A handle is {@link AutoCloseable}: {@link #close()} releases a lock it still holds (as {@link #unlock()}), stops
 * its watchdog and makes the handle unusable. It owns no registered memory of its own.
 *
 * <p><b>Timeouts, errors, crashes.</b> A CAS whose completion comes late (acquire, renewal, release) is settled by the
 * handle's next call: an acquisition that landed is found, a renewal that landed moves the lease word this holder
 * knows (its lease is extended only from the reading taken before that renewal was posted), a release that landed is
 * done. A CAS whose queue pair failed leaves its outcome unknown; the handle then READs the lease word to learn
 * whether the lock is still the word it installed. A crashed holder's lease expires and a waiter takes over; a
 * stray acquisition that lands after its handle gave up is a held word nobody renews, taken over after one lease.
 */
public final class LeaseLock extends AbstractRemoteLock {
    private final RemoteAddress leaseWord;
    private final long leaseNs;
    private final long marginNs;
    /**
     * The handle held the lock and found it taken over (by a renewal, its watchdog or the release); cleared by the
     * next acquire. Volatile, as are {@link #word} and {@link #leaseStartNs}: a {@link LeaseWatchdog} thread writes
     * them while the holder's thread reads them.
     */
    private volatile boolean lost;
    /** While held: the lease word as this handle (or its watchdog) last installed it. */
    private volatile long word;
    private long token;
    /** While held: the clock reading taken before posting the CAS that installed {@link #word}. */
    private volatile long leaseStartNs;
    /** The watchdog renewing this handle's lease, or null. */
    private volatile LeaseWatchdog watchdog;
    private boolean seen;
    private long seenWord;
    private long seenSinceNs;
    /** A CAS whose completion has not come: what it expected, what it would install, and when it was posted. */
    private UnsettledRequest pending;
    private long pendingExpected;
    private long pendingNext;
    private long pendingBeforeNs;
    private LockResult pendingResult;
    private Kind pendingKind;

    /** What a lease CAS is for. */
    private enum Kind { ACQUIRE, RENEW, RELEASE }

    private LeaseLock(Endpoint endpoint, RemoteAddress base, long leaseNs, long marginNs) {
        super(endpoint, base, new Backoff(1, 1 << 8));
        this.leaseWord = base.plus(LeaseLockDescriptor.LEASE_WORD_OFFSET);
        this.leaseNs = leaseNs;
        this.marginNs = marginNs;
    }

    /**
     * Allocates a free lease lock with its lease length and margin. Call it from a thread of {@code home} (or while
     * setting up, before any other node runs): it stores the two parameters with the home node's CPU.
     *
     * <p>The margin is how much earlier than the lease's end the holder stops trusting it. It must cover the clocks'
     * rate drift over a lease plus the message delay bound: {@code marginNs >= 2ρ·leaseNs + δ}, where every clock
     * runs at a rate within {@code 1 ± ρ} of real time and a verb lands at most {@code δ} after it is posted (see
     * docs/locks.md). A margin of 0 would need perfect clocks and instant verbs, so it is refused.
     *
     * @param home its node
     * @param leaseNs how long a lease lasts without renewal, in nanoseconds of the fabric's clock
     * @param marginNs the margin, in nanoseconds: {@code 0 < marginNs < leaseNs}
     * @return its memory: {@link LockHome#address()} is its base address
     * @throws IllegalArgumentException if the lease or the margin is out of range
     */
    public static LockHome create(Node home, long leaseNs, long marginNs) {
        checkTiming(leaseNs, marginNs);
        MemoryRegion region = home.allocate(LeaseLockDescriptor.LENGTH, Access.ALL);
        region.putLong(LeaseLockDescriptor.LEASE_NS_OFFSET, leaseNs);
        // Store, then mfence: both parameters reach memory before the address is handed out, since a remote READ does
        // not see a store still in the store buffer (R1, R5).
        region.putLongVolatile(LeaseLockDescriptor.MARGIN_NS_OFFSET, marginNs);
        return new LockHome(region, 0);
    }

    private static void checkTiming(long leaseNs, long marginNs) {
        if (leaseNs <= 0 || marginNs <= 0 || marginNs >= leaseNs) {
            throw new IllegalArgumentException("need 0 < marginNs < leaseNs (the margin must cover the clocks' rate "
                + "drift over a lease plus the message delay bound): marginNs " + marginNs + ", leaseNs " + leaseNs);
        }
    }

    /**
     * A handle for the thread owning {@code endpoint}: reads the lock's lease length and margin (two READs).
     *
     * @param endpoint the thread's endpoint
     * @param base the lock, from {@link #create}
     * @return the handle
     * @throws IllegalArgumentException if {@code base} is misaligned or holds no valid lease settings (not a lease
     *     lock)
     */
    public static LeaseLock attach(Endpoint endpoint, RemoteAddress base) {
        Objects.requireNonNull(endpoint, "endpoint");
        aligned(base, "lock");
        long leaseNs = endpoint.readLong(base.plus(LeaseLockDescriptor.LEASE_NS_OFFSET));
        long marginNs = endpoint.readLong(base.plus(LeaseLockDescriptor.MARGIN_NS_OFFSET));
        try {
            checkTiming(leaseNs, marginNs);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a lease lock made by LeaseLock.create: " + base + " holds lease "
                + leaseNs + " ns, margin " + marginNs + " ns", e);
        }
        return new LeaseLock(endpoint, base, leaseNs, marginNs);
    }

    /** @return the lock's lease length in nanoseconds of the fabric's clock, as stored in the lock */
    public long leaseNs() {
        return leaseNs;
    }

    /** @return the lock's margin in nanoseconds, as stored in the lock */
    public long marginNs() {
        return marginNs;
    }

    /**
     * One attempt: a READ of the lease word, then a CAS if the lock is free or its lease has expired.
     *
     * @return {@link LockResult#ACQUIRED}, {@link LockResult#LEASE_EXPIRED} (taken over: fence the registers you use,
     *     {@link FencedRegister#fence}) or {@link LockResult#CONTENDED}
     * @throws IllegalStateException if the lock has handed out its last token ({@link LeaseLockDescriptor#LAST_TOKEN})
     */
    @Override
    protected LockResult attempt() {
        if (pending != null && pendingKind == Kind.ACQUIRE) {
            LockResult r = settleAcquire();
            if (r != null) {
                return r; // the late CAS took the lock
            }
        }
        // Taken before posting: the READ reads the word after this (R2: the NIC sees a request only once posted).
        long postedNs = endpoint.nanoTime();
        long w = endpoint.readLong(leaseWord);
        // Taken after completion: the READ read the word before this (R11: a READ completes after its remote read).
        long completedNs = endpoint.nanoTime();
        if (!LeaseLockDescriptor.isHeld(w)) {
            return acquire(w, LeaseLockDescriptor.acquired(w), LockResult.ACQUIRED);
        }
        if (!seen || w != seenWord) {
            seen = true; // the holder renewed, or a new holder: its lease starts no later than we saw it
            seenWord = w;
            seenSinceNs = completedNs;
            return LockResult.CONTENDED;
        }
        // The word was unchanged from before seenSinceNs (its first READ) to after postedNs (this READ): the wait ends
        // at postedNs, not after this READ's possibly slow response.
        if (postedNs - seenSinceNs < leaseNs) {
            return LockResult.CONTENDED;
        }
        // Take over, keeping the word odd (held); the CAS expects the very word we waited on, so a renewal that landed
        // after this READ makes it fail.
        return acquire(w, LeaseLockDescriptor.takenOver(w), LockResult.LEASE_EXPIRED);
    }

    private LockResult acquire(long expected, long next, LockResult result) {
        if (LeaseLockDescriptor.generation(next) > LeaseLockDescriptor.LAST_TOKEN) {
            throw new IllegalStateException("the lease lock has handed out its last token ("
                + LeaseLockDescriptor.LAST_TOKEN + "): create a new lock");
        }
        // Taken before posting: the lease starts when the CAS lands, after this (R2); it errs early.
        long beforeNs = endpoint.nanoTime();
        if (cas(Kind.ACQUIRE, expected, next, beforeNs, result) != expected) {
            return LockResult.CONTENDED; // the word changed since our READ; our failed CAS wrote nothing (R16)
        }
        return acquired(next, beforeNs, result);
    }

    private LockResult acquired(long next, long beforeNs, LockResult result) {
        lost = false;
        word = next;
        token = LeaseLockDescriptor.generation(next);
        leaseStartNs = beforeNs;
        seen = false;
        return result;
    }

    /** A lease CAS whose late completion, if it times out, is kept to be settled. */
    private long cas(Kind kind, long expected, long next, long beforeNs, LockResult result) {
        try {
            return endpoint.cas(leaseWord, expected, next);
        } catch (RemoteAccessException e) {
            // The queue pair failed with the CAS's outcome unknown. A renewal or a release installs a word only this
            // holder can install (its generation with the next beat, or the generation after its own), so the word
            // tells whether it landed. An acquisition does not: every competitor for the same word would install the
            // same one, so it is left unknown; if it lands, it is a held word nobody renews, taken over after a lease.
            if (e.isIndeterminate() && kind != Kind.ACQUIRE && endpoint.readLong(leaseWord) == next) {
                return expected;
            }
            throw e;
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pending = e.request();
                pendingKind = kind;
                pendingExpected = expected;
                pendingNext = next;
                pendingBeforeNs = beforeNs;
                pendingResult = result;
            }
            throw e;
        }
    }

    /**
     * Settles a late CAS: whether it installed its word. An unknown outcome is learnt from the lease word itself.
     *
     * @return whether the CAS took effect
     */
    private boolean settle() {
        UnsettledRequest u = pending;
        settleWithinBudget(endpoint, u, "CAS at " + leaseWord);
        pending = null;
        return switch (u.outcome()) {
            case SUCCEEDED -> u.value() == pendingExpected;
            case REFUSED -> false;
            // The queue pair failed: for a renewal or release, read the word (only this holder installs that word);
            // an acquisition stays unknown (competitors install the same word): not held, taken over after a lease
            // if it lands.
            default -> pendingKind != Kind.ACQUIRE && endpoint.readLong(leaseWord) == pendingNext;
        };
    }

    private LockResult settleAcquire() {
        return settle() ? acquired(pendingNext, pendingBeforeNs, pendingResult) : null;
    }

    /**
     * Extends the lease: one CAS that advances the beat of the word this holder installed. It fails if the word
     * changed, which only a takeover can do while this handle holds the lock: the handle then no longer holds it
     * ({@link #isHeld()} is false) and must stop. On success the new lease runs from a clock reading taken before the
     * CAS was posted, whether or not the previous one had expired by this holder's clock (no one took over, or the CAS
     * would have failed). Renew well within {@link #leaseNs()} − {@link #marginNs()} of the last renewal. A renewal
     * whose completion comes late throws {@link VerbsTimeoutException}; the next call settles it.
     *
     * @return true if renewed; false if the lock was taken over (also on every later call)
     * @throws IllegalStateException if this handle neither holds the lock nor lost it to a takeover, or is closed
     */
    public boolean renew() {
        if (lost) {
            if (isHeld()) {
                dropHeld(); // the watchdog found the takeover
            }
            return false;
        }
        checkHeld();
        if (watchdog != null) {
            return true; // the watchdog renews (two renewers of one word would make each other's CAS fail)
        }
        if (pending != null && pendingKind == Kind.RENEW) {
            if (settle()) {
                word = pendingNext;
                leaseStartNs = pendingBeforeNs;
                return true;
            }
        }
        long next = LeaseLockDescriptor.renewed(word);
        // Taken before posting: the extension starts when the CAS lands, after this (R2).
        long beforeNs = endpoint.nanoTime();
        // A CAS, not a WRITE: it races a takeover's CAS on the same word (rao, R14), and if it loses it writes nothing
        // (R16), so the new holder's word is untouched.
        if (cas(Kind.RENEW, word, next, beforeNs, null) != word) {
            dropHeld();
            lost = true;
            return false;
        }
        word = next;
        leaseStartNs = beforeNs;
        return true;
    }

    /**
     * What this handle knows without asking the home: whether it holds the lock and, by its own clock, less than
     * {@link #leaseNs()} − {@link #marginNs()} has passed since the reading it took before posting its acquisition or
     * its last successful {@link #renew()}. Under the timing assumption of the class comment nobody else can have
     * taken over while this is true. A takeover (possible only when the assumption fails) is detected only by the next
     * {@link #renew()} or release; fencing tokens cover that case.
     *
     * @return whether this handle may trust its lease
     */
    public boolean isLeaseValid() {
        return isHeld() && !lost && endpoint.nanoTime() - leaseStartNs < leaseNs - marginNs;
    }

    /**
     * Starts a {@link LeaseWatchdog} that renews this handle's lease every {@code periodNs} while the handle holds the
     * lock, from its own thread and endpoint, and reports a takeover to {@code onTakeover} (with the lost fencing
     * token). While it runs, {@link #renew()} posts nothing and answers whether the watchdog still holds the lease.
     * Releasing the lock or closing the handle stops it.
     *
     * @param periodNs how often to renew: positive and below {@link #leaseNs()} − {@link #marginNs()} (a third of it
     *     leaves two renewals' slack)
     * @param onTakeover called once, from the watchdog's thread, if the lock was taken over
     * @return the running watchdog
     * @throws IllegalStateException if this handle does not hold the lock or already has a watchdog
     * @throws IllegalArgumentException if the period is out of range
     */
    public LeaseWatchdog startWatchdog(long periodNs, java.util.function.LongConsumer onTakeover) {
        checkHeld();
        if (lost) {
            throw new IllegalStateException(notHeldMessage());
        }
        if (watchdog != null) {
            throw new IllegalStateException("this handle's lease already has a watchdog");
        }
        if (periodNs <= 0 || periodNs >= leaseNs - marginNs) {
            throw new IllegalArgumentException("the watchdog's period must be positive and below lease - margin ("
                + (leaseNs - marginNs) + " ns): " + periodNs);
        }
        if (pending != null && pendingKind == Kind.RENEW && settle()) {
            word = pendingNext; // a late renewal of this handle landed: the watchdog renews from its word
            leaseStartNs = pendingBeforeNs;
        }
        LeaseWatchdog w = new LeaseWatchdog(this, endpoint, periodNs, onTakeover);
        watchdog = w;
        w.start();
        return w;
    }

    RemoteAddress leaseWordAddress() {
        return leaseWord;
    }

    long watchdogWord() {
        return word;
    }

    boolean watchdogLost() {
        return lost;
    }

    void watchdogRenewed(long next, long beforeNs) {
        word = next;
        leaseStartNs = beforeNs;
    }

    void watchdogFoundTakeover() {
        lost = true;
    }

    void watchdogStopped(LeaseWatchdog w) {
        if (watchdog == w) {
            watchdog = null;
        }
    }

    private void stopWatchdog() {
        LeaseWatchdog w = watchdog;
        if (w != null) {
            w.close();
        }
    }

    /** @return the fencing token of the current (or last) acquisition: strictly increasing across acquisitions */
    public long fencingToken() {
        return token;
    }

    @Override
    protected void release() {
        stopWatchdog();
        if (lost) {
            dropHeld();
            throw new IllegalStateException(notHeldMessage());
        }
        if (pending != null && pendingKind == Kind.RENEW && settle()) {
            word = pendingNext; // a late renewal landed: release the word it installed
        }
        if (pending != null && pendingKind == Kind.RELEASE) {
            if (settle()) {
                return; // a late release landed
            }
        }
        // The critical section's WRITEs were placed by the base class's flush (R7); the releasing CAS's read phase
        // also follows the earlier WRITEs of its own queue pair (R7).
        long old = cas(Kind.RELEASE, word, LeaseLockDescriptor.released(word), 0, null);
        if (old == LeaseLockDescriptor.renewed(word)) {
            // A renewal (the watchdog's, still unsettled when it stopped) landed since: only this holder installs
            // that word, so release it.
            word = old;
            old = cas(Kind.RELEASE, word, LeaseLockDescriptor.released(word), 0, null);
        }
        if (old != word) {
            dropHeld();
            lost = true; // taken over; our failed CAS wrote nothing (R16)
            throw new IllegalStateException("lease expired: the lock was taken over (token " + token + ")");
        }
    }

    @Override
    protected String notHeldMessage() {
        return lost ? "lease expired: the lock was taken over (token " + token + ")"
            : super.notHeldMessage();
    }

    @Override
    protected void closeHandle() {
        stopWatchdog();
        if (pending != null && pendingKind == Kind.ACQUIRE) {
            try {
                if (settleAcquire() != null) {
                    release(); // taken after the handle gave up: give it back
                }
            } catch (RuntimeException e) {
                // unknown: a stray acquisition is a held word nobody renews, taken over after one lease
            }
        }
    }
}
