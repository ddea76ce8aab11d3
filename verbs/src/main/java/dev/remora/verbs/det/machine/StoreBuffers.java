package dev.remora.verbs.det.machine;

import java.util.Arrays;

/**
 * The TSO store buffers of every thread.
 *
 * <pre>
 * Verbs.tla:  sb[t]: thread t's store buffer, oldest first; entries are stores or doorbells
 *             StoreEntry(l, v) == [loc |-> l, val |-> v, wr |-> 0]
 *             DoorbellEntry(k) == [loc |-> "", val |-> 0, wr |-> k]
 * </pre>
 *
 * Each entry here is three longs: the word (or {@code -1 - k} for the doorbell of work request {@code k}), the value,
 * and a byte mask: a store writes only the bytes of its word the mask selects, as an x86 store of its width does
 * (litmus stores are whole words, {@link DetProgram#WHOLE_WORD}).
 */
final class StoreBuffers {
    private static final int ENTRY = 3;

    private long[][] entries;
    private int[] length;

    StoreBuffers(int threads) {
        entries = new long[threads][];
        length = new int[threads];
        for (int t = 0; t < threads; t++) {
            entries[t] = new long[ENTRY * 4];
        }
    }

    private StoreBuffers(StoreBuffers o) {
        entries = new long[o.entries.length][];
        for (int t = 0; t < entries.length; t++) {
            entries[t] = Arrays.copyOf(o.entries[t], Math.max(ENTRY * 4, ENTRY * o.length[t]));
        }
        length = o.length.clone();
    }

    StoreBuffers copy() {
        return new StoreBuffers(this);
    }

    /** Makes room for one more thread. */
    void addThread() {
        int t = entries.length;
        entries = Arrays.copyOf(entries, t + 1);
        entries[t] = new long[ENTRY * 4];
        length = Arrays.copyOf(length, t + 1);
    }

    /** {@code Append(sb[t], StoreEntry(word, value))}, for the bytes of {@code mask}. */
    void appendStore(int t, int word, long value, long mask) {
        append(t, word, value, mask);
    }

    /** {@code Append(sb[t], DoorbellEntry(k))}. */
    void appendDoorbell(int t, int k) {
        append(t, -1L - k, 0, 0);
    }

    private void append(int t, long loc, long value, long mask) {
        int n = length[t];
        if (ENTRY * (n + 1) > entries[t].length) {
            entries[t] = Arrays.copyOf(entries[t], entries[t].length * 2);
        }
        entries[t][ENTRY * n] = loc;
        entries[t][ENTRY * n + 1] = value;
        entries[t][ENTRY * n + 2] = mask;
        length[t] = n + 1;
    }

    boolean isEmpty(int t) {
        return length[t] == 0;
    }

    /** @return the word of the oldest entry, or {@code -1 - k} for a doorbell */
    long headLocation(int t) {
        return entries[t][0];
    }

    /** @return the oldest entry's value merged into {@code memoryValue} by its mask */
    long headMerged(int t, long memoryValue) {
        long mask = entries[t][2];
        return (memoryValue & ~mask) | (entries[t][1] & mask);
    }

    /** Removes the oldest entry. */
    void pop(int t) {
        int n = --length[t];
        System.arraycopy(entries[t], ENTRY, entries[t], 0, ENTRY * n);
    }

    /** A crashed node's store buffers are lost. */
    void clear(int t) {
        length[t] = 0;
    }

    /**
     * {@code CpuLoad(t, l)}: what a load of {@code word} by thread {@code t} returns, its buffered stores to the word
     * applied oldest first over memory (R1).
     */
    long load(int t, int word, long memoryValue) {
        long v = memoryValue;
        long[] e = entries[t];
        for (int i = 0; i < length[t]; i++) {
            if (e[ENTRY * i] == word) {
                long mask = e[ENTRY * i + 2];
                v = (v & ~mask) | (e[ENTRY * i + 1] & mask);
            }
        }
        return v;
    }

    long hash(long h, int threads) {
        for (int t = 0; t < threads; t++) {
            h = DetMachine.mix(h, length[t]);
            for (int i = 0; i < ENTRY * length[t]; i++) {
                h = DetMachine.mix(h, entries[t][i]);
            }
        }
        return h;
    }
}
