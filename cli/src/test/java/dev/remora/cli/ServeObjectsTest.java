package dev.remora.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals("c.conf line 2: field 1 (object): unknown object 'counters' (known: counter, word, lock, kv)",
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

    @Test
    void shouldReadCuckooTablesWithTheirSettingsOverTheDefaults() throws Exception {
        ServeObjects o = new ServeObjects();
        o.kvDefaults(new ServeObjects.KvShape(1024, 4, 16, 32, 64));
        o.parseConfig("c.conf", List.of("kv cache", "kv big rows=65536 slots=8 key=24 value=64 clients=2000 # roomy",
            "kv  small   value=40"));
        assertEquals(List.of("kv:cache(rows=1024 slots=4 key=16 value=32 clients=64)",
            "kv:big(rows=65536 slots=8 key=24 value=64 clients=2000)",
            "kv:small(rows=1024 slots=4 key=16 value=40 clients=64)"),
            o.specs().stream().map(ServeObjects.Spec::toString).toList());
    }

    @Test
    void shouldNameTheLineAndTheFieldOfABadTable() {
        assertEquals("c.conf line 2: field 2 (name) is missing: expected 'kv NAME [rows=N] [slots=N] [key=N] "
            + "[value=N] [clients=N]'", error("", "kv"));
        assertEquals("c.conf line 1: field 3 ('rows=100'): rows must be a power of two, at least 2: 100",
            error("kv t rows=100"));
        assertEquals("c.conf line 1: field 4 ('key=8'): keyCapacity must be in 16..255: 8",
            error("kv t rows=64 key=8"));
        assertEquals("c.conf line 1: field 3 ('size=3'): unknown setting 'size' (known: rows, slots, key, value, "
            + "clients)", error("kv t size=3"));
        assertEquals("c.conf line 1: field 3 ('rows'): expected SETTING=N with SETTING one of rows, slots, key, "
            + "value, clients", error("kv t rows"));
        assertEquals("c.conf line 1: field 3 ('rows=many'): 'many' is not a whole number", error("kv t rows=many"));
        assertEquals("c.conf line 1: field 4 ('rows=8'): rows is given twice", error("kv t rows=4 rows=8"));
        assertEquals("c.conf line 1: field 3 ('clients=0'): clients must be in 1..65535: 0", error("kv t clients=0"));
        assertEquals("c.conf line 2, field 2 (name): the name 't' is used twice", error("counter t", "kv t"));
        String tooBig = error("kv t rows=4194304 slots=64");
        assertTrue(tooBig.startsWith("c.conf line 1: field 4 ('slots=64'): the table would need "), tooBig);
        assertTrue(tooBig.endsWith("bytes, more than one region's 2,147,483,639"), tooBig);
    }

    @Test
    void shouldRefuseBadTableFlagsNamingThem() {
        String e = assertThrows(ServeObjects.ConfigException.class, () -> new ServeObjects().kvDefaults(
            new ServeObjects.KvShape(1000, 4, 16, 32, 64))).getMessage();
        assertEquals("--kv-rows, --kv-slots, --kv-key-bytes, --kv-value-bytes, --kv-clients: rows must be a power of "
            + "two, at least 2: 1000", e);
    }
}
