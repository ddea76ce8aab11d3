package dev.remora.kv;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/** Keys for the kv tests, chosen by the rows they hash to. */
final class KvTestKeys {
    private KvTestKeys() {
    }

    /**
     * The first keys {@code k0, k1, ...} whose two rows in a table of {@code rows} rows are both below
     * {@code rowLimit}, no two keys with the same pair of rows: with a limit below the rows, they crowd a few rows,
     * so that inserts must kick.
     *
     * @param n how many keys
     * @param rows the table's rows
     * @param rowLimit the rows the keys may use
     * @return the keys
     * @throws IllegalStateException if the first 100,000 candidates do not hold them
     */
    static String[] distinctRowPairs(int n, int rows, int rowLimit) {
        String[] keys = new String[n];
        Set<Long> pairs = new HashSet<>();
        for (int i = 0, found = 0; found < n; i++) {
            if (i >= 100_000) {
                throw new IllegalStateException("no " + n + " keys with distinct pairs of rows below " + rowLimit);
            }
            byte[] kb = ("k" + i).getBytes(StandardCharsets.UTF_8);
            int r1 = CuckooMap.row1(kb, rows);
            int r2 = CuckooMap.row2(kb, r1, rows);
            if (r1 < rowLimit && r2 < rowLimit && pairs.add((long) Math.min(r1, r2) << 32 | Math.max(r1, r2))) {
                keys[found++] = "k" + i;
            }
        }
        return keys;
    }
}
