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
import net.jqwik.api.statistics.StatisticsReport;
import net.jqwik.api.statistics.StatisticsReport.StatisticsReportMode;
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
    @StatisticsReport(StatisticsReportMode.OFF) // the coverage check below still fails the property
    void behavesLikeAHashMap(@ForAll("sequences") List<Op> ops) {
        Map<Integer, byte[]> model = new HashMap<>();
        // A fresh table for each sequence, on one fabric for the whole property.
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(8).slotsPerRow(2).clients(1))) {
            for (Op op : ops) {
                apply(m, op, model, op + " in " + ops);
            }
            Statistics.label("a sequence kicked").collect(m.kicks() > 0);
            // The table is small enough that most sequences move keys (about 85 % measured); fail if half do not.
            Statistics.label("a sequence kicked").coverage(c -> c.check(true).percentage(p -> p >= 50));
            for (int k = 0; k < KEYS; k++) {
                assertArrayEquals(model.get(k), m.get(key(k)), "key " + k + " at the end of " + ops);
            }
        }
    }

    /** Runs one operation on {@code m}, checks its answer against the model and applies it there. */
    private static void apply(CuckooMap m, Op op, Map<Integer, byte[]> model, String where) {
        byte[] k = key(op.key());
        byte[] cur = model.get(op.key());
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

    /**
     * An operation run by a client that crashes at its {@code doorbell}-th doorbell (0 = the first), having posted
     * {@code prefix} of that doorbell's requests (-1: all of them; 0: none), after which the handle is never used
     * again; if the operation rings fewer doorbells it simply completes.
     */
    record Crash(Op op, int doorbell, int prefix) {
        @Override
        public String toString() {
            return op + " crashing at doorbell " + doorbell + " with " + (prefix < 0 ? "all" : prefix) + " posted";
        }
    }

    /** A step of a crash sequence: an operation of the surviving client, or one whose client crashes. */
    record Step(Op op, Crash crash) {
        @Override
        public String toString() {
            return crash != null ? crash.toString() : op.toString();
        }
    }

    @Provide
    Arbitrary<List<Step>> crashSequences() {
        Arbitrary<Op> op = Combinators.combine(
            Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7).map(i -> KINDS[i]),
            Arbitraries.integers().between(0, KEYS - 1),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(32),
            Arbitraries.of(true, false)).as(Op::new);
        // Most updates ring 2 doorbells; kicks and repairs more.
        Arbitrary<Integer> doorbell = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4,
            Arbitraries.integers().between(0, 1)), net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(2, 7)));
        Arbitrary<Crash> crash = Combinators.combine(op.filter(o -> o.kind() != 0), doorbell,
            Arbitraries.integers().between(-1, 3)).as(Crash::new);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, op.map(o -> new Step(o, null))),
            net.jqwik.api.Tuple.of(1, crash.map(c -> new Step(null, c))));
        return step.list().ofMinSize(50).ofMaxSize(100);
    }

    private static final long LEASE_NS = 4_000_000;
    private static final long MARGIN_NS = 2_000_000;

    /**
     * Model-based with crashes: as {@link #behavesLikeAHashMap}, and now and then an update is run by another client
     * that crashes at a chosen doorbell (its lock CASes, a release, a kick search, doorbell 2, any doorbell of a
     * repair it makes), having posted a chosen prefix of its requests. The surviving client then runs
     * {@link CuckooMap#recover()} (a lease of 4 ms) and GETs every key: the crashed update took effect whole or not at
     * all (the key holds its value before or its value after), every other key is as the model says, and the table's
     * memory is quiescent (no row locked, no slot torn or unpublished, no key twice).
     */
    @Property(tries = 30)
    @StatisticsReport(StatisticsReportMode.OFF) // the coverage check below still fails the property
    void crashAtAnyStepThenRepairLeavesAHashMap(@ForAll("crashSequences") List<Step> steps) {
        Map<Integer, byte[]> model = new HashMap<>();
        Params params = new Params().rows(8).slotsPerRow(2).clients(128).lease(LEASE_NS, MARGIN_NS);
        dev.remora.verbs.MemoryRegion region = CuckooMap.allocateRegion(home, params);
        int crashes = 0;
        try (CuckooMap m = CuckooMap.attach(ep, region.remote(0))) {
            for (Step step : steps) {
                String where = step + " in " + steps;
                if (step.crash() == null) {
                    apply(m, step.op(), model, where);
                    continue;
                }
                Op op = step.crash().op();
                byte[] before = model.get(op.key());
                CuckooMap victim = CuckooMap.attach(ep, region.remote(0));
                victim.hook = CrashHooks.atDoorbell(step.crash().doorbell(), step.crash().prefix());
                try {
                    apply(victim, op, model, where);
                    victim.close(); // it completed before the chosen doorbell: an ordinary operation
                    continue;
                } catch (CrashHooks.ClientCrashed e) {
                    crashes++;
                }
                m.recover();
                byte[] now = m.get(key(op.key()));
                byte[] after = outcome(op, before);
                assertTrue(Arrays.equals(now, before) || Arrays.equals(now, after), "crashed " + where
                    + ": the key holds neither its value before nor after");
                if (now == null) {
                    model.remove(op.key());
                } else {
                    model.put(op.key(), now);
                }
                for (int k = 0; k < KEYS; k++) {
                    assertArrayEquals(model.get(k), m.get(key(k)), "key " + k + " after the repair of " + where);
                }
                TableMemory.checkQuiescent(region::getLong, params);
            }
            Statistics.label("crashes in a sequence").collect(crashes == 0 ? "0" : crashes < 3 ? "1-2" : "3+");
            Statistics.label("crashes in a sequence").coverage(c -> c.check("0").percentage(p -> p <= 25));
            for (int k = 0; k < KEYS; k++) {
                assertArrayEquals(model.get(k), m.get(key(k)), "key " + k + " at the end of " + steps);
            }
        } finally {
            region.deregister();
        }
    }

    /** @return the key's value after {@code op} applied to {@code before} (null: absent) */
    private static byte[] outcome(Op op, byte[] before) {
        return switch (op.kind()) {
            case 1 -> op.value();
            case 2 -> before == null ? null : op.value();
            case 3 -> null;
            case 4, 5 -> {
                byte[] expected = op.kind() == 5 ? null : op.expectCurrent() ? before : op.value();
                byte[] replacement = op.kind() == 5 && op.expectCurrent() ? null : op.value();
                yield Arrays.equals(expected, before) ? replacement : before;
            }
            default -> before;
        };
    }
}
