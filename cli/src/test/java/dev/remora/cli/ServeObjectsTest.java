package dev.remora.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The config file of {@code remora serve}: what it accepts, and errors that name the line and the field. */
class ServeObjectsTest {

    private static List<String> parse(String... lines) throws ServeObjects.ConfigException {
        ServeObjects o = new ServeObjects();
        o.parseConfig("c.conf", List.of(lines));
        return o.specs().stream().map(ServeObjects.Spec::toString).toList();
    }

    private static String error(String... lines) {
        return assertThrows(ServeObjects.ConfigException.class, () -> parse(lines)).getMessage();
    }

    @Test
    void shouldReadObjectsSkippingCommentsAndBlankLines() throws Exception {
        assertEquals(List.of("counter:hits", "word:data", "ticket:L1", "cas:L2", "mcs:L3", "lease:L4", "rw:L5"),
            parse("# the demo's objects", "counter hits", "", "  word   data   # a plain word", "lock ticket L1",
                "lock cas L2", "lock mcs L3", "\tlock lease L4", "lock rw L5"));
    }

    @Test
    void shouldNameTheLineAndTheFieldOfAnError() {
        assertEquals("c.conf line 2: field 1 (object): unknown object 'counters' (known: counter, word, lock)",
            error("counter a", "counters b"));
        assertEquals("c.conf line 1: field 2 (kind): unknown lock kind 'spin' (known: cas, ticket, mcs, lease, rw)",
            error("lock spin L"));
        assertEquals("c.conf line 3: field 3 (name) is missing: expected 'lock ticket NAME'",
            error("# x", "", "lock ticket"));
        assertEquals("c.conf line 1: field 2 (kind) is missing: expected 'lock KIND NAME' with KIND one of cas, "
            + "ticket, mcs, lease, rw", error("lock"));
        assertEquals("c.conf line 1: field 2 (name) is missing: expected 'counter NAME'", error("counter # none"));
        assertEquals("c.conf line 1: field 3 ('b') is extra: expected 'word NAME'", error("word a b"));
        assertEquals("c.conf line 1: field 4 ('x') is extra: expected 'lock rw NAME'", error("lock rw L x"));
        assertEquals("c.conf line 2, field 3 (name): the name 'a' is used twice", error("counter a", "lock cas a"));
    }

    @Test
    void shouldReserveTheFenceNameOfALeaseLock() {
        assertEquals("c.conf line 2, field 2 (name): the name 'L.fence' is used twice",
            error("lock lease L", "counter L.fence"));
    }

    @Test
    void shouldParseLockFlags() throws Exception {
        assertEquals("mcs:M", ServeObjects.parseLockFlag("mcs:M").toString());
        assertEquals("--lock M: expected KIND:NAME with KIND one of cas, ticket, mcs, lease, rw",
            assertThrows(ServeObjects.ConfigException.class, () -> ServeObjects.parseLockFlag("M")).getMessage());
        assertEquals("--lock spin:M: unknown lock kind 'spin' (known: cas, ticket, mcs, lease, rw)",
            assertThrows(ServeObjects.ConfigException.class, () -> ServeObjects.parseLockFlag("spin:M")).getMessage());
    }
}
