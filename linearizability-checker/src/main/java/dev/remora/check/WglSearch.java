package dev.remora.check;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The search for one partition: Wing and Gong's backtracking over the minimal operations of a
 * history, with Lowe's memoisation of (set of linearized operations, model state) and the
 * refinements of Horn and Kroening (P-compositional partitions; entries kept in a
 * doubly-linked list that is lifted and unlifted in place).
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
 * @param <S> the model's state type
 */
final class WglSearch<S> {
    static final int LINEARIZABLE = 0;
    static final int NOT_LINEARIZABLE = 1;
    static final int STOPPED = 2;

    private static final int POLL_MASK = 4095;
    private static final int CHUNK_BYTES = 1 << 20;

    private final Model<S> model;
    private final S init;
    private final Operation[] ops;
    private final Budget budget;
    private final boolean record;

    private int[] bestLinearization = new int[0];
    private int blocking = -1;
    private long explored;
    private long reservedBytes;

    WglSearch(Model<S> model, S init, List<Operation> ops, Budget budget, boolean record) {
        this.model = model;
        this.init = init;
        this.ops = ops.toArray(new Operation[0]);
        this.budget = budget;
        this.record = record;
    }

    /** @return local indices of the longest partial linearization seen (only when recording) */
    int[] bestLinearization() {
        return bestLinearization;
    }

    /** @return local index of the operation whose completion could not be reached, or -1 */
    int blocking() {
        return blocking;
    }

    long explored() {
        return explored;
    }

    @SuppressWarnings("unchecked")
    int run() {
        final int n = ops.length;
        final int head = 2 * n;
        final int end = -1;
        int okCount = 0;
        boolean[] ok = new boolean[n];
        for (int i = 0; i < n; i++) {
            ok[i] = ops[i].isOk();
            if (ok[i]) {
                okCount++;
            }
        }
        if (okCount == 0) {
            return LINEARIZABLE;
        }
        // Build the entry list sorted by (position, call before return, operation index).
        int entries = n + okCount;
        long[] pos = new long[entries];
        int[] id = new int[entries];
        int k = 0;
        for (int i = 0; i < n; i++) {
            pos[k] = ops[i].call();
            id[k++] = 2 * i;
            if (ok[i]) {
                pos[k] = ops[i].ret();
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
        int[] next = new int[2 * n + 1];
        int[] prev = new int[2 * n + 1];
        int last = head;
        for (int i = 0; i < entries; i++) {
            int e = id[order[i]];
            next[last] = e;
            prev[e] = last;
            last = e;
        }
        next[last] = end;

        // Symmetry: indeterminate operations with the same function, key and input are
        // interchangeable once invoked (none ever returns), so only the earliest one not yet
        // linearized is tried; prevSame links each to the previous one of its kind.
        int[] prevSame = new int[n];
        java.util.Map<List<Object>, Integer> lastOfKind = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            prevSame[i] = -1;
            if (!ok[i]) {
                Integer before = lastOfKind.put(Arrays.asList(ops[i].function(), ops[i].key(), ops[i].input()), i);
                if (before != null) {
                    prevSame[i] = before;
                }
            }
        }
        long[] zobrist = new long[n];
        SplittableRandom rnd = new SplittableRandom(0x5EED_CAFEL);
        for (int i = 0; i < n; i++) {
            zobrist[i] = rnd.nextLong();
        }
        Bits bits = new Bits(n);
        MemoCache cache = new MemoCache();
        int[] stackOp = new int[n];
        Object[] stackState = new Object[n];
        int sp = 0;
        int linOk = 0;
        long hash = 0;
        S state = init;
        int e = next[head];
        long iter = 0;
        long cacheBytesAccounted = 0;
        try {
            while (true) {
                if (linOk == okCount) {
                    if (record) {
                        bestLinearization = Arrays.copyOf(stackOp, sp);
                        blocking = -1;
                    }
                    return LINEARIZABLE;
                }
                if ((++iter & POLL_MASK) == 0) {
                    if (budget.expired() != null) {
                        return STOPPED;
                    }
                    long want = cache.bytes() - cacheBytesAccounted;
                    if (want > 0) {
                        long chunk = Math.max(want, CHUNK_BYTES);
                        if (!budget.reserve(chunk)) {
                            reservedBytes += chunk;
                            return STOPPED;
                        }
                        reservedBytes += chunk;
                        cacheBytesAccounted += chunk;
                    }
                }
                if (e == end || (e & 1) == 1) {
                    if (record && sp >= bestLinearization.length && e != end) {
                        if (sp > bestLinearization.length || blocking < 0) {
                            bestLinearization = Arrays.copyOf(stackOp, sp);
                            blocking = e >> 1;
                        }
                    }
                    if (sp == 0) {
                        return NOT_LINEARIZABLE;
                    }
                    sp--;
                    int op = stackOp[sp];
                    state = (S) stackState[sp];
                    stackState[sp] = null;
                    bits.clear(op);
                    hash ^= zobrist[op];
                    // unlift: restore in the reverse order of removal
                    if (ok[op]) {
                        int r = 2 * op + 1;
                        next[prev[r]] = r;
                        if (next[r] != end) {
                            prev[next[r]] = r;
                        }
                        linOk--;
                    }
                    int c = 2 * op;
                    next[prev[c]] = c;
                    if (next[c] != end) {
                        prev[next[c]] = c;
                    }
                    e = next[c];
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
                        // lift: remove the call entry, then the return entry
                        int c = 2 * op;
                        next[prev[c]] = next[c];
                        if (next[c] != end) {
                            prev[next[c]] = prev[c];
                        }
                        if (ok[op]) {
                            int r = c + 1;
                            next[prev[r]] = next[r];
                            if (next[r] != end) {
                                prev[next[r]] = prev[r];
                            }
                            linOk++;
                        }
                        e = next[head];
                        continue;
                    }
                    bits.clear(op);
                }
                e = next[e];
            }
        } finally {
            budget.release(reservedBytes);
            reservedBytes = 0;
        }
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
