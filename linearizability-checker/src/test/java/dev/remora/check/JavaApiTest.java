package dev.remora.check;

import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java API without the CLI: typed models, integers of any type, unchecked errors, validation always on. */
class JavaApiTest {
    private static Event ev(Object process, EventType type, String f, Object value, int line) {
        return new Event(process, type, f, null, value, line);
    }

    @Test
    void shouldHaveATypedConstructorForEveryModelTheFactoryKnows() {
        Map<String, Model<?>> typed = Map.of(
                "register", Models.register(0), "cas-register", Models.casRegister(0),
                "multi-register", Models.multiRegister(), "counter", Models.counter(0),
                "set", Models.set(), "queue", Models.queue(), "mutex", Models.mutex(), "kv", Models.kv(),
                "map", Models.map());
        assertEquals(Models.NAMES.size(), typed.size());
        for (String name : Models.NAMES) {
            assertEquals(name, typed.get(name).name());
            assertEquals(name, Models.create(name).name());
        }
        assertEquals(7L, Models.counter(7).init());
    }

    @Test
    void shouldAcceptIntegersOfAnyJavaTypeAsInitialAndEventValues() {
        assertEquals(0L, Models.create("counter", 0, true).init());
        assertEquals(3L, Models.create("counter", (short) 3, true).init());
        assertEquals(5L, Models.create("counter", BigInteger.valueOf(5), true).init());
        // Integer values everywhere: an add of an Integer, a read of an Integer, a cas of Integers.
        History h = History.fromEvents("ints", List.of(
                ev(0, EventType.INVOKE, "add", 2, 1), ev(0, EventType.OK, "add", 2, 2),
                ev(1, EventType.INVOKE, "read", null, 3), ev(1, EventType.OK, "read", 3, 4)));
        assertEquals(Verdict.LINEARIZABLE, Checker.check(h, Models.counter(1)).verdict());
        History cas = History.fromEvents("cas", List.of(
                ev(0, EventType.INVOKE, "cas", List.of(1, 2), 1), ev(0, EventType.OK, "cas", true, 2),
                ev(1, EventType.INVOKE, "read", null, 3), ev(1, EventType.OK, "read", (byte) 2, 4)));
        assertEquals(Verdict.LINEARIZABLE, Checker.check(cas, Models.casRegister(1)).verdict());
        assertEquals(Verdict.NOT_LINEARIZABLE, Checker.check(cas, Models.casRegister(7L)).verdict());
    }

    @Test
    void shouldNameNoCliFlagInLibraryMessages() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Models.create("counter", "abc", true));
        assertEquals("the initial value of model counter must be an integer, found \"abc\"", e.getMessage());
        History h = History.fromEvents("h", List.of(ev(0, EventType.INVOKE, "cas", List.of(1, 2), 1)));
        MalformedHistoryException m = assertThrows(MalformedHistoryException.class,
                () -> Checker.check(h, Models.register()));
        assertFalse(m.getMessage().contains("--"), m.getMessage());
    }

    @Test
    void shouldThrowUncheckedExceptionsForBadInMemoryHistories() {
        // No throws clause and no try: fromEvents's exception is unchecked.
        RuntimeException e = assertThrows(RuntimeException.class, () -> History.fromEvents("mem", List.of(
                ev(0, EventType.OK, "read", 1, 1))));
        assertTrue(e instanceof MalformedHistoryException, e.toString());
        assertEquals("mem:1: unmatched :ok completion of process 0; expected an :invoke of that process before it",
                e.getMessage());
        assertThrows(MalformedHistoryException.class, () -> History.fromEvents("mem", List.of(
                ev(null, EventType.INVOKE, "read", null, 1))));
    }

    @Test
    void shouldRefuseAFunctionTheModelDoesNotHaveInsteadOfGivingAVerdict() {
        History h = History.fromEvents("h", List.of(
                ev(0, EventType.INVOKE, "write", 1, 1), ev(0, EventType.OK, "write", 1, 2),
                ev(1, EventType.INVOKE, "cas", List.of(1, 2), 3), ev(1, EventType.OK, "cas", true, 4)));
        for (CheckOptions o : List.of(CheckOptions.DEFAULTS, CheckOptions.DEFAULTS.withExplain(false))) {
            MalformedHistoryException e = assertThrows(MalformedHistoryException.class,
                    () -> Checker.check(h, Models.register(), o));
            assertEquals(3, e.line());
            assertEquals("h:3: operation cas [1 2] (process 1, function cas) does not fit model register; expected"
                    + " function read or write for model register, found :cas (model cas-register has cas)",
                    e.getMessage());
        }
        assertEquals(Verdict.LINEARIZABLE, Checker.check(h, Models.casRegister()).verdict());
    }
}
