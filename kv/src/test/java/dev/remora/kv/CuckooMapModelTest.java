package dev.remora.kv;

import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.sim.SimFabric;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model-based: random sequences of get, put, update, delete and compareAndSet on a small table (8 rows of 2 slots,
 * 40 keys, so rows fill, kicks happen and TABLE_FULL is answered) give the answers of a {@link HashMap} that applies
 * the same operations, except that a put the map refuses with TABLE_FULL is not applied (and must be of a new key).
 * After every sequence each key's GET agrees with the model.
 */
class CuckooMapModelTest {
    private static final int KEYS = 40;
    /** The operation kinds, puts three times as likely as the others so that rows fill. */
    private static final int[] KINDS = {0, 1, 1, 1, 2, 3, 4, 5};

    private static Fabric fabric;
    private static Node home;
    private static Endpoint ep;

    @BeforeContainer
    static void open() {
        fabric = SimFabric.open();
        home = fabric.addNode("home");
        ep = Endpoint.open(fabric.addNode("client"));
    }

    @AfterContainer
    static void close() {
        ep.close();
        fabric.close();
    }

    /** One operation: what, on which key, with which value bytes. */
    record Op(int kind, int key, byte[] value, boolean expectCurrent) {
        @Override
        public String toString() {
            String[] names = {"get", "put", "update", "delete", "cas", "cas-null"};
            return names[kind] + "(k" + key + (kind == 0 || kind == 3 ? "" : ", " + value.length + "B")
                + (kind == 4 ? (expectCurrent ? ", current" : ", other") : "") + ")";
        }
    }

    @Provide
    Arbitrary<List<Op>> sequences() {
        Arbitrary<Op> op = Combinators.combine(
            Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7).map(i -> KINDS[i]),
            Arbitraries.integers().between(0, KEYS - 1),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(32),
            Arbitraries.of(true, false)).as(Op::new);
        return op.list().ofMinSize(50).ofMaxSize(120);
    }

    private static byte[] key(int k) {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    @Property(tries = 40)
    void behavesLikeAHashMap(@ForAll("sequences") List<Op> ops) {
        Map<Integer, byte[]> model = new HashMap<>();
        // A fresh table for each sequence, on one fabric for the whole property.
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(8).slotsPerRow(2).clients(1))) {
            for (Op op : ops) {
                byte[] k = key(op.key());
                byte[] cur = model.get(op.key());
                String where = op + " in " + ops;
                switch (op.kind()) {
                    case 0 -> assertArrayEquals(cur, m.get(k), where);
                    case 1 -> {
                        Result r = m.put(k, op.value());
                        if (r.status() == Status.TABLE_FULL) {
                            assertNull(cur, "TABLE_FULL for a key already in the map: " + where);
                        } else {
                            assertEquals(new Result(Status.OK, cur), r, where);
                            model.put(op.key(), op.value());
                        }
                    }
                    case 2 -> {
                        Result r = m.update(k, op.value());
                        assertEquals(cur == null ? new Result(Status.NOT_FOUND, null) : new Result(Status.OK, cur), r,
                            where);
                        if (cur != null) {
                            model.put(op.key(), op.value());
                        }
                    }
                    case 3 -> {
                        assertEquals(cur == null ? new Result(Status.NOT_FOUND, null) : new Result(Status.OK, cur),
                            m.delete(k), where);
                        model.remove(op.key());
                    }
                    case 4, 5 -> {
                        byte[] expected = op.kind() == 5 ? null : op.expectCurrent() ? cur : op.value();
                        byte[] replacement = op.kind() == 5 && op.expectCurrent() ? null : op.value();
                        Result r = m.compareAndSet(k, expected, replacement);
                        if (!Arrays.equals(expected, cur)) {
                            assertEquals(new Result(Status.CAS_MISMATCH, cur), r, where);
                        } else if (r.status() == Status.TABLE_FULL) {
                            assertTrue(cur == null && replacement != null, "TABLE_FULL with no insert: " + where);
                        } else {
                            assertEquals(new Result(Status.OK, cur), r, where);
                            if (replacement == null) {
                                model.remove(op.key());
                            } else {
                                model.put(op.key(), replacement);
                            }
                        }
                    }
                    default -> throw new AssertionError(op);
                }
            }
            Statistics.label("a sequence kicked").collect(m.kicks() > 0);
            // The table is small enough that most sequences move keys (about 85 % measured); fail if half do not.
            Statistics.label("a sequence kicked").coverage(c -> c.check(true).percentage(p -> p >= 50));
            for (int k = 0; k < KEYS; k++) {
                assertArrayEquals(model.get(k), m.get(key(k)), "key " + k + " at the end of " + ops);
            }
        }
    }
}
