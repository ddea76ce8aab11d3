package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map on the deterministic fabric under the weak model ({@link DetKnobs#WEAK}: READs and WRITEs torn word by word
 * in any order, late source reads and destination writes, the reorderings R8 allows), one seed per schedule: three
 * clients on three nodes put, delete, compareAndSet and get four keys of a table of 4 rows of one slot, each key
 * with its own pair of rows, so inserts kick and TABLE_FULL is answered; each history, recorded by {@link RecordedMap}
 * (every write with the value it replaced; BUSY and TABLE_FULL fail), is checked with the map model. A GET that
 * accepted a torn row, or one read before the version, would return a value no write left there, or a value from
 * before an acknowledged write, and an update that read a stale row would report a stale previous value: the check
 * refutes all three. Seeds: {@code remora.test.seeds} / 100 (10; 50 under {@code -Pthorough}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CuckooMapDeterministicTest {
    private static final int SEEDS = Math.max(10, Integer.getInteger("remora.test.seeds", 1000) / 100);
    private static final int ROWS = 4;
    /** Four keys with four different pairs of the four rows: once three are in, the fourth often has to kick. */
    private static final String[] KEYS = keys();
    /** The operations of clients 1 and 2, shifted by id; client 0 puts every key in turn, so that the rows fill. */
    private static final int[] KINDS = {0, 1, 0, 3, 0, 2};

    private static String[] keys() {
        return KvTestKeys.distinctRowPairs(4, ROWS, ROWS);
    }

    @Test
    void historiesUnderTheWeakModelAreLinearizable() {
        int[] kicked = new int[1];
        DetRuns.forEachSeed(1, SEEDS, seed -> {
            DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK));
            Node home = f.addNode("home");
            RemoteAddress table = CuckooMap.allocate(home, new Params().rows(ROWS).slotsPerRow(1).clients(4));
            HistoryRecorder rec = HistoryRecorder.builder().clock(f::nanoTime).name("kv-det")
                .unknownOutcomeWhen(e -> e instanceof RemoteAccessException r && r.isIndeterminate()).build();
            for (int c = 0; c < 3; c++) {
                Node n = f.addNode("c" + c);
                HistoryRecorder.Client p = rec.client();
                int id = c;
                f.spawn(n, "client" + c, () -> {
                    try (Endpoint ep = Endpoint.open(n); CuckooMap m = CuckooMap.attach(ep, table)) {
                        RecordedMap map = new RecordedMap(m, p::invoke);
                        for (int i = 0; i < KINDS.length; i++) {
                            String key = KEYS[id == 0 ? i % KEYS.length : (id + i) % KEYS.length];
                            String v = "c" + id + "-" + i;
                            switch (id == 0 ? 0 : KINDS[(id + i) % KINDS.length]) {
                                case 0 -> map.put(key, v);
                                case 1 -> map.get(key);
                                case 2 -> map.delete(key);
                                default -> map.compareAndSet(key, "c" + ((id + 1) % 3) + "-" + (i - 1), v);
                            }
                        }
                        synchronized (kicked) {
                            kicked[0] += (int) m.kicks();
                        }
                    }
                });
            }
            DetFabric.Result r = f.run();
            assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
            CheckResult check = Checker.check(rec.history(), Models.map());
            assertEquals(Verdict.LINEARIZABLE, check.verdict(), "seed " + seed + ": " + check.cause() + " "
                + rec.history().operations());
        });
        System.out.println("[kv] deterministic fabric, weak model: " + SEEDS + " seeds linearizable, " + kicked[0]
            + " kicks");
        assertTrue(kicked[0] > 0, "some inserts kicked");
    }

    /**
     * A kick along a path of three keys (five rows held, four slot images) on the deterministic fabric, which moves at
     * most 64 words a request: its intent log (74 words with 16-byte keys and 32-byte values) goes in WRITEs of at
     * most 512 bytes. (Before, the log went in one WRITE, and the fabric refused this insert.) Rows 0 to 3 of eight
     * one-slot rows hold A (rows 0, 2), B (1, 2), C (2, 3) and D (3, 7); N (rows 0, 1) can only go in by moving A to
     * row 2, C to row 3 and D to row 7.
     */
    @Test
    void aKickOfThreeKeysRunsOnTheDeterministicFabric() {
        int rows = 8;
        byte[] c = key(rows, 2, 3, true);
        byte[] d = key(rows, 3, 7, true);
        byte[] a = key(rows, 0, 2, false);
        byte[] b = key(rows, 1, 2, false);
        byte[] n = key(rows, 0, 1, false);
        DetFabric f = DetFabric.open(new DetContext().seed(1).knobs(DetKnobs.WEAK));
        Node home = f.addNode("home");
        RemoteAddress table = CuckooMap.allocate(home, new Params().rows(rows).slotsPerRow(1).clients(2));
        Node node = f.addNode("client");
        long[] kicks = new long[1];
        f.spawn(node, "client", () -> {
            try (Endpoint ep = Endpoint.open(node); CuckooMap m = CuckooMap.attach(ep, table)) {
                for (byte[] k : new byte[][] {c, d, a, b}) {
                    assertEquals(Status.OK, m.put(k, k).status());
                }
                assertEquals(Status.OK, m.put(n, n).status(), "the insert that moves three keys");
                kicks[0] = m.kicks();
                for (byte[] k : new byte[][] {a, b, c, d, n}) {
                    assertEquals(new String(k, StandardCharsets.UTF_8), new String(m.get(k), StandardCharsets.UTF_8));
                }
            }
        });
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe() + " " + f.firstFailure());
        assertEquals(1, kicks[0], "one insert kicked");
    }

    /** @return a key "x0", "x1", ... whose rows are {@code r1} and {@code r2}, h1 first if {@code ordered} */
    private static byte[] key(int rows, int r1, int r2, boolean ordered) {
        for (int i = 0; i < 1_000_000; i++) {
            byte[] k = ("x" + i).getBytes(StandardCharsets.UTF_8);
            int h1 = CuckooMap.row1(k, rows);
            int h2 = CuckooMap.row2(k, h1, rows);
            if (h1 == r1 && h2 == r2 || !ordered && h1 == r2 && h2 == r1) {
                return k;
            }
        }
        throw new IllegalStateException("no key with rows " + r1 + ", " + r2);
    }
}
