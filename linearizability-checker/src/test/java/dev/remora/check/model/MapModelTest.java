package dev.remora.check.model;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.Event;
import dev.remora.check.EventType;
import dev.remora.check.History;
import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Nil;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The map model: absence, previous values, compare-and-set outcomes, and what the kv model cannot see. */
class MapModelTest {
    private final MapModel m = Models.map();

    private static Operation op(String f, Object input, Object output) {
        return new Operation(0, 0L, f, "k", input, output, 0, 1, 1, 2);
    }

    private static Operation unknown(String f, Object input) {
        return new Operation(0, 0L, f, "k", input, Operation.UNKNOWN, 0, Operation.INFINITY, 1, 0);
    }

    private static List<Object> pair(Object a, Object b) {
        return Arrays.asList(a, b);
    }

    @Test
    void shouldStepEveryOperationAsAMapWithAbsence() {
        Object absent = m.init();
        assertEquals(Nil.NIL, absent);
        assertEquals(absent, m.step(absent, op("get", null, null)));
        assertNull(m.step(absent, op("get", null, "x")), "a get of a value on an absent key");
        assertNull(m.step("x", op("get", null, null)), "a miss is not a wildcard");
        assertEquals("y", m.step(absent, op("put", "y", null)));
        assertEquals("y", m.step("x", op("put", "y", "x")));
        assertNull(m.step("x", op("put", "y", null)), "a put that reports absence on a present key");
        assertNull(m.step("x", op("put", "y", "z")), "a put that reports another previous value");
        assertEquals("y", m.step("x", op("update", "y", "x")));
        assertEquals(absent, m.step(absent, op("update", "y", null)), "an update of an absent key writes nothing");
        assertNull(m.step("x", op("update", "y", null)));
        assertEquals(absent, m.step("x", op("delete", null, "x")));
        assertEquals(absent, m.step(absent, op("delete", null, null)));
        assertNull(m.step("x", op("delete", null, null)));
        // compare-and-set, in all four outcome shapes, either side possibly absent
        assertEquals("y", m.step("x", op("cas", pair("x", "y"), pair(true, "x"))));
        assertEquals("y", m.step("x", op("cas", pair("x", "y"), true)));
        assertEquals(absent, m.step("x", op("cas", pair("x", null), pair(true, "x"))), "a cas to absent removes");
        assertEquals("y", m.step(absent, op("cas", pair(null, "y"), pair(true, null))), "a cas from absent inserts");
        assertNull(m.step("z", op("cas", pair("x", "y"), true)), "success needs the expected value");
        assertNull(m.step("x", op("cas", pair("x", "y"), pair(true, "z"))), "success reports what it expected");
        assertEquals("z", m.step("z", op("cas", pair("x", "y"), pair(false, "z"))));
        assertEquals("z", m.step("z", op("cas", pair("x", "y"), false)));
        assertEquals(absent, m.step(absent, op("cas", pair("x", "y"), pair(false, null))));
        assertNull(m.step("z", op("cas", pair("x", "y"), pair(false, "w"))), "a mismatch reports the current value");
        assertNull(m.step("x", op("cas", pair("x", "y"), false)), "a mismatch on the expected value");
        assertNull(m.step(absent, op("cas", pair(null, "y"), false)));
    }

    @Test
    void shouldApplyIndeterminateOperationsAsIfTheyTookEffect() {
        Object absent = m.init();
        assertEquals("y", m.step("x", unknown("put", "y")));
        assertEquals(absent, m.step("x", unknown("delete", null)));
        assertEquals("y", m.step("x", unknown("update", "y")));
        assertEquals(absent, m.step(absent, unknown("update", "y")));
        assertEquals("y", m.step("x", unknown("cas", pair("x", "y"))));
        assertNull(m.step("z", unknown("cas", pair("x", "y"))), "a cas that cannot match has no effect to take");
        assertEquals("z", m.step("z", unknown("get", null)));
        assertTrue(m.isReadOnly(unknown("get", null)));
    }

    @Test
    void shouldValidateShapesWithMessagesSayingWhatWasExpected() {
        assertNull(m.validate(op("cas", pair(null, null), pair(false, "x"))));
        assertNull(m.validate(op("cas", pair("a", "b"), true)));
        assertEquals("cas value [expected new] (nil for absent), found [\"a\"]",
                m.validate(op("cas", List.of("a"), true)));
        assertEquals("cas result [true previous], [false current], true or false, found \"x\"",
                m.validate(op("cas", pair("a", "b"), "x")));
        assertEquals("put value a value (absence is written by delete), found nil", m.validate(op("put", null, null)));
        assertEquals("function get, put, update, delete or cas for model map, found :append",
                m.validate(op("append", "x", "x")));
        assertEquals("a :key on every map operation, found none on :get",
                m.validate(new Operation(0, 0L, "get", null, null, null, 0, 1, 1, 2)));
    }

    @Test
    void shouldDescribeOperationsAndStatesReadably() {
        assertEquals("[\"k\"] get -> absent", m.describeOperation(op("get", null, null)));
        assertEquals("[\"k\"] get -> \"x\"", m.describeOperation(op("get", null, "x")));
        assertEquals("[\"k\"] put \"y\" (was \"x\")", m.describeOperation(op("put", "y", "x")));
        assertEquals("[\"k\"] put \"y\" (was absent)", m.describeOperation(op("put", "y", null)));
        assertEquals("[\"k\"] update \"y\" (was absent: nothing written)", m.describeOperation(op("update", "y", null)));
        assertEquals("[\"k\"] delete (was \"x\")", m.describeOperation(op("delete", null, "x")));
        assertEquals("[\"k\"] delete -> ? (indeterminate)", m.describeOperation(unknown("delete", null)));
        assertEquals("[\"k\"] cas absent->\"y\" = ok", m.describeOperation(op("cas", pair(null, "y"), pair(true, null))));
        assertEquals("[\"k\"] cas \"x\"->absent = mismatch, holds \"z\"",
                m.describeOperation(op("cas", pair("x", null), pair(false, "z"))));
        assertEquals("[\"k\"] cas \"x\"->\"y\" = mismatch", m.describeOperation(op("cas", pair("x", "y"), false)));
        assertEquals("absent", m.describeState(m.init()));
        assertEquals("\"x\"", m.describeState("x"));
    }

    @Test
    void shouldReportAnOperationNoStateAllowsBeforeSearching() {
        List<Operation> ops = List.of(
                new Operation(0, 0L, "put", "k", "x", null, 0, 1, 1, 2),
                new Operation(1, 1L, "cas", "k", pair("x", "y"), pair(true, "z"), 2, 5, 3, 6),
                new Operation(2, 2L, "get", "k", null, "never", 3, 4, 4, 5));
        ImpossibleOperation i = m.impossible(m.prepare(ops));
        assertNotNull(i);
        assertEquals(2, i.index(), "the first to complete");
        assertEquals("get of \"never\", a value that no operation of this key writes", i.reason());
        ImpossibleOperation cas = m.impossible(m.prepare(ops.subList(0, 2)));
        assertEquals("compare-and-set that succeeded reporting \"z\" as the value before, not the \"x\" it expected",
                cas.reason());
        ImpossibleOperation put = m.impossible(m.prepare(List.of(new Operation(0, 0L, "put", "k", "x", "w", 0, 1, 1, 2))));
        assertEquals("put reporting \"w\" as the value before, a value that no operation of this key writes",
                put.reason());
        CheckResult r = Checker.check(new History("h", null, List.of(new Operation(0, 0L, "put", "k", "x", "w", 0, 1, 1,
                2))), m);
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict());
        assertEquals("cannot linearize [\"k\"] put \"x\" (was \"w\") (process 0, line 1) on key \"k\": it is impossible "
                + "in every state, being a put reporting \"w\" as the value before, a value that no operation of this key "
                + "writes", r.failure().reason());
        assertNull(m.impossible(m.prepare(ops.subList(0, 1))));
    }

    /**
     * Two overlapping puts that both report the value before either, then a read of the later one's value: one
     * update was lost. As a register (the kv model, which ignores what a put returns) the history is linearizable;
     * the map model refutes it.
     */
    @Test
    void shouldRefuteALostUpdateThatTheKvModelAccepts() {
        List<Event> map = new ArrayList<>(List.of(
                new Event(0L, EventType.INVOKE, "put", "k", "x", 1),
                new Event(0L, EventType.OK, "put", "k", null, 2),
                new Event(1L, EventType.INVOKE, "put", "k", "y", 3),
                new Event(2L, EventType.INVOKE, "put", "k", "z", 4),
                new Event(1L, EventType.OK, "put", "k", "x", 5),
                new Event(2L, EventType.OK, "put", "k", "x", 6),
                new Event(0L, EventType.INVOKE, "get", "k", null, 7),
                new Event(0L, EventType.OK, "get", "k", "z", 8)));
        CheckResult r = Checker.check(History.fromEvents("lost", map), Models.map());
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict());
        List<Event> kv = new ArrayList<>();
        for (Event e : map) {
            Object v = e.function().equals("put") ? (e.type() == EventType.OK ? "" : e.value()) : e.value();
            kv.add(new Event(e.process(), e.type(), e.function(), e.key(), v, e.line()));
        }
        assertEquals(Verdict.LINEARIZABLE, Checker.check(History.fromEvents("lost-as-kv", kv), Models.kv()).verdict());
        // The same history with the second put reporting the first's value is linearizable for the map model too.
        map.set(5, new Event(2L, EventType.OK, "put", "k", "y", 6));
        assertEquals(Verdict.LINEARIZABLE, Checker.check(History.fromEvents("chained", map), Models.map()).verdict());
    }

    /**
     * A crashed write of a value nobody observes can still matter: it can be the value an update then replaces, or the
     * "something else" a compare-and-set answering a bare false needs; the pruning keeps such writes then.
     */
    @Test
    void shouldKeepCrashedWritesOfUnobservedValuesWhenAnUpdateOrABareMismatchCanNeedThem() {
        History update = History.fromEvents("update", List.of(
                new Event(0L, EventType.INVOKE, "put", "k", "u", 1),
                new Event(0L, EventType.INFO, "put", "k", "u", 2),
                new Event(1L, EventType.INVOKE, "update", "k", "w", 3),
                new Event(1L, EventType.INFO, "update", "k", "w", 4),
                new Event(2L, EventType.INVOKE, "get", "k", null, 5),
                new Event(2L, EventType.OK, "get", "k", "w", 6)));
        assertEquals(Verdict.LINEARIZABLE, Checker.check(update, m).verdict(), "put u, then update w, then get w");
        History mismatch = History.fromEvents("mismatch", List.of(
                new Event(0L, EventType.INVOKE, "put", "k", "e", 1),
                new Event(0L, EventType.OK, "put", "k", null, 2),
                new Event(1L, EventType.INVOKE, "put", "k", "u", 3),
                new Event(1L, EventType.INFO, "put", "k", "u", 4),
                new Event(2L, EventType.INVOKE, "cas", "k", pair("e", "x"), 5),
                new Event(2L, EventType.OK, "cas", "k", false, 6)));
        assertEquals(Verdict.LINEARIZABLE, Checker.check(mismatch, m).verdict(), "put u, then the cas finds u");
        // Without either, such a write is dropped, and the verdict is the same as the search without it.
        History plain = History.fromEvents("plain", List.of(
                new Event(0L, EventType.INVOKE, "put", "k", "e", 1),
                new Event(0L, EventType.OK, "put", "k", null, 2),
                new Event(1L, EventType.INVOKE, "put", "k", "u", 3),
                new Event(1L, EventType.INFO, "put", "k", "u", 4),
                new Event(2L, EventType.INVOKE, "cas", "k", pair("e", "x"), 5),
                new Event(2L, EventType.OK, "cas", "k", pair(false, "e"), 6)));
        assertEquals(2, m.prepare(plain.operations()).size());
        assertEquals(Verdict.NOT_LINEARIZABLE, Checker.check(plain, m).verdict());
    }

    @Test
    void shouldRefuseAnInitialValue() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Models.create("map", "x", true));
        assertEquals("model map takes no initial value: every key starts absent", e.getMessage());
        assertEquals("map", Models.create("map").name());
    }
}
