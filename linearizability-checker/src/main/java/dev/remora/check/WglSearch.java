package dev.remora.check;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The search for one partition: Wing and Gong's backtracking over the minimal operations of a
 * history, with Lowe's memoisation of (set of linearized operations, model state) and the
 * refinements of Horn and Kroening (P-compositional partitions; entries kept in a
 * doubly-linked list from which an operation is {@linkplain #lift lifted} when it is linearized
 * and into which it is {@linkplain #unlift put back} in place when the search backtracks).
 *
 * <p>Events live in a linked list sorted by position: a call entry per operation and a return
 * entry per completed operation (indeterminate operations have none: they may stay pending to
 * the end). At each node the candidates are the call entries before the first return entry,
 * tried in order of invocation (trying indeterminate operations last was measured to be far
 * slower: a crashed operation that took effect early then gets tried only after every order of
 * the completed operations around it). The search succeeds once every completed operation is
 * linearized: the indeterminate operations left over are taken never to have happened.
 * Indeterminate operations with equal function, key and input are interchangeable once invoked,
 * so only the earliest of them not yet linearized is ever tried (a symmetry reduction that
 * matters for histories with many crashed writes or dequeues).
 *
 * <p>The set of linearized operations is a bit set with an incremental Zobrist hash. In the
 * cache it is stored compactly, from the word holding its lowest clear bit to its highest set
 * word, because linearized sets are almost always "a prefix plus a few".
 *
 * <p>A search is <em>resumable</em>: {@link #run(long)} explores until the number of memoised
 * states reaches a limit and returns {@link SearchOutcome#PAUSED}, keeping its place; the next
 * call goes on exactly where it stopped. The path of a search, and so its outcome and state
 * count, therefore do not depend on how it is cut into runs: the checker interleaves the
 * partitions in rounds of growing limits. Limits of time ({@link Budget}), of memory (the
 * cache's own estimate against {@link #memoryLimitBytes}, deterministic) and cancellation are
 * polled every 4,096 steps and stop the search for good.
 *
 * @param <S> the model's state type
 */
final class WglSearch<S> {
    private static final int POLL_MASK = 4095;
    private static final int END = -1;

    private final Model<S> model;
    private final Operation[] ops;
    private final Budget budget;
    private final boolean record;
    private final int okCount;
    private final int head;
    private final boolean[] ok;
    /** The entry list: entry {@code 2i} is operation i's call, {@code 2i+1} its return; {@code head} is the head. */
    private final int[] next;
    private final int[] prev;
    /** For an indeterminate operation, the previous indeterminate one of its kind, or -1. */
    private final int[] prevSame;
    private final long[] zobrist;

    private long memoryLimitBytes = Long.MAX_VALUE;
    private BooleanSupplier cancelled = () -> false;

    // The search's place, kept between runs.
    private Bits bits;
    private MemoCache cache;
    private int[] stackOp;
    private Object[] stackState;
    private int sp;
    private int linOk;
    private long hash;
    private S state;
    private int entry;
    private long iter;
    private long explored;
    private SearchOutcome finished;
    private String stopCause;

    private int[] bestLinearization = new int[0];
    private int blocking = -1;
    private boolean keepOrder;

    WglSearch(Model<S> model, S init, List<Operation> ops, Budget budget, boolean record) {
        this.model = model;
        this.ops = ops.toArray(new Operation[0]);
        this.budget = budget;
        this.record = record;
        final int n = this.ops.length;
        this.head = 2 * n;
        int oks = 0;
        ok = new boolean[n];
        for (int i = 0; i < n; i++) {
            ok[i] = this.ops[i].isOk();
            if (ok[i]) {
                oks++;
            }
        }
        this.okCount = oks;
        // Build the entry list sorted by (position, call before return, operation index).
        int entries = n + oks;
        long[] pos = new long[entries];
        int[] id = new int[entries];
        int k = 0;
        for (int i = 0; i < n; i++) {
            pos[k] = this.ops[i].call();
            id[k++] = 2 * i;
            if (ok[i]) {
                pos[k] = this.ops[i].ret();
                id[k++] = 2 * i + 1;
            }
        }
        Integer[] order = new Integer[entries];
        for (int i = 0; i < entries; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compare(pos[a], pos[b]);
            if (c != 0) {
                return c;
            }
            c = Integer.compare(id[a] & 1, id[b] & 1);
            return c != 0 ? c : Integer.compare(id[a], id[b]);
        });
        next = new int[2 * n + 1];
        prev = new int[2 * n + 1];
        int last = head;
        for (int i = 0; i < entries; i++) {
            int e = id[order[i]];
            next[last] = e;
            prev[e] = last;
            last = e;
        }
        next[last] = END;

        // Symmetry: indeterminate operations with the same function, key and input are
        // interchangeable once invoked (none ever returns), so only the earliest one not yet
        // linearized is tried; prevSame links each to the previous one of its kind.
        prevSame = new int[n];
        Map<List<Object>, Integer> lastOfKind = new HashMap<>();
        for (int i = 0; i < n; i++) {
            prevSame[i] = -1;
            if (!ok[i]) {
                Integer before = lastOfKind.put(Arrays.asList(this.ops[i].function(), this.ops[i].key(),
                        this.ops[i].input()), i);
                if (before != null) {
                    prevSame[i] = before;
                }
            }
        }
        zobrist = new long[n];
        SplittableRandom rnd = new SplittableRandom(0x5EED_CAFEL);
        for (int i = 0; i < n; i++) {
            zobrist[i] = rnd.nextLong();
        }
        state = init;
        entry = next[head];
    }

    /**
     * Sets the memory the cache may use; past it the search stops for good with "memory limit
     * reached". Checked every 4,096 steps against the cache's own estimate.
     */
    void memoryLimitBytes(long bytes) {
        this.memoryLimitBytes = bytes;
    }

    /** Sets a condition, polled every 4,096 steps, that stops the search for good ("cancelled"). */
    void cancelWhen(BooleanSupplier condition) {
        this.cancelled = condition;
    }

    /** Makes a search that succeeds keep the order it found ({@link #bestLinearization}) even when not recording. */
    void keepOrder(boolean on) {
        this.keepOrder = on;
    }

    /**
     * @return local indices of the longest partial linearization seen (only when recording), or
     *         of the whole linearization found (when recording or {@linkplain #keepOrder keeping the order})
     */
    int[] bestLinearization() {
        return bestLinearization;
    }

    /** @return local index of the operation whose completion could not be reached, or -1 */
    int blocking() {
        return blocking;
    }

    /** @return the final outcome, or {@link SearchOutcome#PAUSED} while the search may go on */
    SearchOutcome outcome() {
        return finished != null ? finished : okCount == 0 ? SearchOutcome.LINEARIZABLE : SearchOutcome.PAUSED;
    }

    /** @return states memoised so far */
    long explored() {
        return explored;
    }

    /** States memoised so far, published at every poll for progress reports from other threads. */
    private volatile long published;

    /** @return states memoised so far, as of the last poll; safe from any thread */
    long publishedExplored() {
        return published;
    }

    /** @return why the search stopped, when it returned {@link SearchOutcome#STOPPED} */
    String stopCause() {
        return stopCause;
    }

    /** @return the cache's estimated size in bytes, 0 once the search is finished */
    long memoryBytes() {
        return cache == null ? 0 : cache.bytes();
    }

    /** Runs the search to its end, whatever the number of states. */
    SearchOutcome run() {
        return run(Long.MAX_VALUE);
    }

    /**
     * Runs the search until it is decided, stopped, or has memoised {@code stateLimit} states
     * in all (counting earlier runs).
     *
     * @param stateLimit the total number of states after which the run pauses
     * @return the outcome; after a final one, every later call returns it again
     */
    @SuppressWarnings("unchecked")
    SearchOutcome run(long stateLimit) {
        if (finished != null) {
            return finished;
        }
        if (okCount == 0) {
            return finish(SearchOutcome.LINEARIZABLE);
        }
        if (explored >= stateLimit) {
            return SearchOutcome.PAUSED;
        }
        if (cache == null) {
            bits = new Bits(ops.length);
            cache = new MemoCache();
            stackOp = new int[ops.length];
            stackState = new Object[ops.length];
        }
        final int[] next = this.next;
        final int[] prev = this.prev;
        final boolean[] ok = this.ok;
        final Bits bits = this.bits;
        final MemoCache cache = this.cache;
        final int[] stackOp = this.stackOp;
        final Object[] stackState = this.stackState;
        int sp = this.sp;
        int linOk = this.linOk;
        long hash = this.hash;
        S state = this.state;
        int e = this.entry;
        long iter = this.iter;
        long explored = this.explored;
        try {
            while (true) {
                if (linOk == okCount) {
                    if (record || keepOrder) {
                        bestLinearization = Arrays.copyOf(stackOp, sp);
                        blocking = -1;
                    }
                    return finish(SearchOutcome.LINEARIZABLE);
                }
                if ((++iter & POLL_MASK) == 0) {
                    published = explored;
                    String cause = budget.expired();
                    if (cause == null && cancelled.getAsBoolean()) {
                        cause = "cancelled";
                    }
                    if (cause == null && cache.bytes() > memoryLimitBytes) {
                        cause = "memory limit reached";
                    }
                    if (cause != null) {
                        return stop(cause);
                    }
                }
                if (e == END || (e & 1) == 1) {
                    if (record && sp >= bestLinearization.length && e != END) {
                        if (sp > bestLinearization.length || blocking < 0) {
                            bestLinearization = Arrays.copyOf(stackOp, sp);
                            blocking = e >> 1;
                        }
                    }
                    if (sp == 0) {
                        return finish(SearchOutcome.NOT_LINEARIZABLE);
                    }
                    sp--;
                    int op = stackOp[sp];
                    state = (S) stackState[sp];
                    stackState[sp] = null;
                    bits.clear(op);
                    hash ^= zobrist[op];
                    if (ok[op]) {
                        linOk--;
                    }
                    unlift(op);
                    e = next[2 * op];
                    continue;
                }
                int op = e >> 1;
                int same = prevSame[op];
                if (same >= 0 && (bits.words[same >>> 6] & (1L << same)) == 0) {
                    e = next[e];
                    continue;
                }
                S ns = model.step(state, ops[op]);
                if (ns != null) {
                    bits.set(op);
                    long h = hash ^ zobrist[op];
                    if (cache.add(bits, h * 0x9E3779B97F4A7C15L + ns.hashCode(), ns, model.stateBytes(ns))) {
                        explored++;
                        hash = h;
                        stackOp[sp] = op;
                        stackState[sp] = state;
                        sp++;
                        state = ns;
                        if (ok[op]) {
                            linOk++;
                        }
                        lift(op);
                        e = next[head];
                        if (explored >= stateLimit && linOk != okCount) {
                            return SearchOutcome.PAUSED;
                        }
                        continue;
                    }
                    bits.clear(op);
                }
                e = next[e];
            }
        } catch (OutOfMemoryError oom) {
            release();
            return stop("memory limit reached (heap exhausted)");
        } finally {
            this.sp = sp;
            this.linOk = linOk;
            this.hash = hash;
            this.state = state;
            this.entry = e;
            this.iter = iter;
            this.explored = explored;
        }
    }

    /** Removes operation {@code op}'s call entry, then its return entry, from the entry list. */
    private void lift(int op) {
        int c = 2 * op;
        next[prev[c]] = next[c];
        if (next[c] != END) {
            prev[next[c]] = prev[c];
        }
        if (ok[op]) {
            int r = c + 1;
            next[prev[r]] = next[r];
            if (next[r] != END) {
                prev[next[r]] = prev[r];
            }
        }
    }

    /** Puts operation {@code op}'s entries back where {@link #lift} took them from, in reverse order. */
    private void unlift(int op) {
        if (ok[op]) {
            int r = 2 * op + 1;
            next[prev[r]] = r;
            if (next[r] != END) {
                prev[next[r]] = r;
            }
        }
        int c = 2 * op;
        next[prev[c]] = c;
        if (next[c] != END) {
            prev[next[c]] = c;
        }
    }

    private SearchOutcome finish(SearchOutcome outcome) {
        finished = outcome;
        release();
        return outcome;
    }

    private SearchOutcome stop(String cause) {
        stopCause = cause;
        return finish(SearchOutcome.STOPPED);
    }

    /** Stops the search for good ("cancelled") and releases its memory, unless it is finished already. */
    void abandon() {
        if (finished == null) {
            stop("cancelled");
        }
    }

    /** Drops the cache and the stack; a finished search keeps only its result. */
    private void release() {
        bits = null;
        cache = null;
        stackOp = null;
        stackState = null;
        state = null;
    }

    /** A bit set that knows its lowest clear bit and highest non-zero word. */
    static final class Bits {
        final long[] words;
        int firstClear;
        int hiWord = -1;

        Bits(int n) {
            words = new long[((n + 63) >>> 6) + 1];
        }

        void set(int i) {
            int w = i >>> 6;
            words[w] |= 1L << i;
            if (w > hiWord) {
                hiWord = w;
            }
            if (i == firstClear) {
                int fw = w;
                long inv = ~words[fw] & (-1L << i);
                while (inv == 0) {
                    fw++;
                    inv = fw < words.length ? ~words[fw] : 1;
                }
                firstClear = (fw << 6) + Long.numberOfTrailingZeros(inv);
            }
        }

        void clear(int i) {
            int w = i >>> 6;
            words[w] &= ~(1L << i);
            if (i < firstClear) {
                firstClear = i;
            }
            if (w == hiWord) {
                while (hiWord >= 0 && words[hiWord] == 0) {
                    hiWord--;
                }
            }
        }

        int lo() {
            return firstClear >>> 6;
        }

        int len() {
            return Math.max(0, hiWord + 1 - lo());
        }
    }

    /** An open-addressing hash set of (compact bit set, state) pairs. */
    static final class MemoCache {
        private long[] hashes = new long[1024];
        private int[] los = new int[1024];
        private long[][] sets = new long[1024][];
        private Object[] states = new Object[1024];
        private int size;
        private long bytes;

        long bytes() {
            return bytes + 32L * hashes.length;
        }

        boolean add(Bits bits, long hash, Object state, int stateBytes) {
            int lo = bits.lo();
            int len = bits.len();
            long h = hash ^ (hash >>> 29);
            if (h == 0) {
                h = 1;
            }
            int mask = hashes.length - 1;
            int slot = (int) (h ^ (h >>> 32)) & mask;
            while (hashes[slot] != 0) {
                if (hashes[slot] == h && los[slot] == lo && sets[slot].length == len
                        && Arrays.equals(sets[slot], 0, len, bits.words, lo, lo + len) && states[slot].equals(state)) {
                    return false;
                }
                slot = (slot + 1) & mask;
            }
            hashes[slot] = h;
            los[slot] = lo;
            sets[slot] = Arrays.copyOfRange(bits.words, lo, lo + len);
            states[slot] = state;
            bytes += 24 + 8L * len + stateBytes;
            if (++size * 2 > hashes.length) {
                grow();
            }
            return true;
        }

        private void grow() {
            long[] oh = hashes;
            int[] ol = los;
            long[][] os = sets;
            Object[] ost = states;
            int cap = oh.length * 2;
            hashes = new long[cap];
            los = new int[cap];
            sets = new long[cap][];
            states = new Object[cap];
            int mask = cap - 1;
            for (int i = 0; i < oh.length; i++) {
                if (oh[i] != 0) {
                    int slot = (int) (oh[i] ^ (oh[i] >>> 32)) & mask;
                    while (hashes[slot] != 0) {
                        slot = (slot + 1) & mask;
                    }
                    hashes[slot] = oh[i];
                    los[slot] = ol[i];
                    sets[slot] = os[i];
                    states[slot] = ost[i];
                }
            }
        }
    }
}
