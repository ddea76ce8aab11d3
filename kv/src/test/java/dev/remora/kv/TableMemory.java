package dev.remora.kv;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * A cuckoo table read word by word straight from its memory (after a run, by the test), and the invariants a
 * quiescent table keeps once every crashed op is repaired: no row locked, every slot whole (one tag) and published
 * (its tag not above its row's version), every key in one of its two rows and in one slot only.
 */
final class TableMemory {
    private TableMemory() {
    }

    /**
     * Checks the invariants and returns the table's contents.
     *
     * @param word the word at a byte offset of the table region
     * @param p the table's shape
     * @return every key in the table (UTF-8) and its value
     * @throws AssertionError naming the first invariant broken
     */
    static Map<String, String> checkQuiescent(LongUnaryOperator word, CuckooMap.Params p) {
        int k = p.keyCapacity();
        int v = p.valueCapacity();
        int slotWords = CuckooTableDescriptor.slotWords(k, v);
        Map<String, String> contents = new HashMap<>();
        Map<String, String> where = new HashMap<>();
        for (int r = 0; r < p.rows(); r++) {
            long row = CuckooTableDescriptor.rowOffset(r, p.slotsPerRow(), p.clients(), k, v);
            long lock = word.applyAsLong(row + CuckooTableDescriptor.LOCK_IN_ROW);
            if (lock != 0) {
                throw new AssertionError("row " + r + " is still locked with 0x" + Long.toHexString(lock));
            }
            long version = word.applyAsLong(row + CuckooTableDescriptor.VERSION_IN_ROW);
            for (int s = 0; s < p.slotsPerRow(); s++) {
                long at = row + CuckooTableDescriptor.slotInRow(s, k, v);
                long[] w = new long[slotWords];
                for (int i = 0; i < slotWords; i++) {
                    w[i] = word.applyAsLong(at + 8L * i);
                }
                int tag = CuckooTableDescriptor.tagOf(w[0]);
                for (int i = 1; i < slotWords; i++) {
                    if (CuckooTableDescriptor.tagOf(w[i]) != tag) {
                        throw new AssertionError("row " + r + " slot " + s + " is torn: word " + i + " tagged "
                            + CuckooTableDescriptor.tagOf(w[i]) + ", word 0 " + tag);
                    }
                }
                if (!CuckooTableDescriptor.tagNotAfter(tag, version)) {
                    throw new AssertionError("row " + r + " slot " + s + " tagged " + tag + " above the row's version "
                        + version + ": written and never published");
                }
                int header = CuckooTableDescriptor.dataOf(w[0]);
                if (CuckooTableDescriptor.kindOf(header) != CuckooTableDescriptor.KIND_INLINE) {
                    continue;
                }
                byte[] key = bytes(w, 1, CuckooTableDescriptor.keyLengthOf(header));
                byte[] value = bytes(w, CuckooTableDescriptor.valueWordIndex(k),
                    CuckooTableDescriptor.valueLengthOf(header));
                int r1 = CuckooMap.row1(key, p.rows());
                int r2 = CuckooMap.row2(key, r1, p.rows());
                String name = new String(key, StandardCharsets.UTF_8);
                if (r != r1 && r != r2) {
                    throw new AssertionError("key " + name + " in row " + r + ", not one of its rows " + r1 + ", " + r2);
                }
                String was = where.put(name, r + "/" + s);
                if (was != null) {
                    throw new AssertionError("key " + name + " in two slots: " + was + " and " + r + "/" + s);
                }
                contents.put(name, new String(value, StandardCharsets.UTF_8));
            }
        }
        return contents;
    }

    private static byte[] bytes(long[] w, int from, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            int low = CuckooTableDescriptor.dataOf(w[from + i / CuckooTableDescriptor.BYTES_PER_WORD]);
            b[i] = (byte) (low >>> (8 * (i % CuckooTableDescriptor.BYTES_PER_WORD)));
        }
        return b;
    }
}
