package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Format detection and the meaning of each format's events. */
class HistoryReaderTest {
    @Test
    void shouldDetectEachFormat() {
        assertEquals(HistoryFormat.KNOSSOS_EDN, HistoryFormat.detect("; comment\n[{:process 1}]"));
        assertEquals(HistoryFormat.KNOSSOS_EDN, HistoryFormat.detect("({:process 1})"));
        assertEquals(HistoryFormat.KV_LOG, HistoryFormat.detect("{:process 0, :type :invoke}\n"));
        assertEquals(HistoryFormat.JSONL, HistoryFormat.detect("{\"process\":0}\n"));
        assertEquals(HistoryFormat.JEPSEN_LOG, HistoryFormat.detect("INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]\n"));
        assertNull(HistoryFormat.detect("hello"));
    }

    @Test
    void shouldTreatKnossosFailAsNotHappenedAndInfoAsIndeterminate() throws Exception {
        History h = HistoryReader.read("k.edn", "[{:process 0 :type :invoke :f :cas :value [1 2]}\n"
                + "{:process 0 :type :fail :f :cas :value [1 2]}\n"
                + "{:process 1 :type :invoke :f :write :value 3}\n"
                + "{:process 1 :type :info :f :write :value 3}\n"
                + "{:process :nemesis :type :info :f :start :value nil}]", null);
        assertEquals(1, h.size());
        Operation w = h.operations().get(0);
        assertEquals("write", w.function());
        assertTrue(w.isIndeterminate());
        assertEquals(Operation.INFINITY, w.ret());
    }

    @Test
    void shouldTreatJepsenFailedCasAsCompletedFalseAndTimedOutAsIndeterminate() throws Exception {
        History h = HistoryReader.read("j.log", "INFO  jepsen.util - 1\t:invoke\t:cas\t[0 3]\n"
                + "INFO  jepsen.util - 1\t:fail\t:cas\t[0 3]\n"
                + "INFO  jepsen.util - 3   :invoke :read   nil\n"
                + "INFO  jepsen.util - 3   :fail   :read   :timed-out\n"
                + "INFO  jepsen.util - 4\t:invoke\t:write\t4\n"
                + "INFO  jepsen.util - 4\t:info\t:write\t:timed-out\n", null);
        assertEquals(HistoryFormat.JEPSEN_LOG, h.format());
        List<Operation> ops = h.operations();
        assertEquals(3, ops.size());
        assertEquals(Boolean.FALSE, ops.get(0).output());
        assertEquals(2, ops.get(0).returnLine());
        assertTrue(ops.get(1).isIndeterminate());
        assertTrue(ops.get(2).isIndeterminate());
        assertEquals(4L, ops.get(2).input());
    }

    @Test
    void shouldReadEdnCommentsDiscardsSetsTagsAndNumbers() throws Exception {
        dev.remora.check.io.EdnParser p = new dev.remora.check.io.EdnParser("t", "; c\n[1 -2 +3 4N 2.5 #_ :gone"
                + " #{:a} #inst \"2020\" \"q\\\"\" nil true :k sym {:x [1 (2)]}]", 1);
        Object v = p.read();
        assertEquals(13, ((List<?>) v).size(), v::toString);
        List<?> l = (List<?>) v;
        assertEquals(1L, l.get(0));
        assertEquals(-2L, l.get(1));
        assertEquals(3L, l.get(2));
        assertEquals(4L, l.get(3));
        assertEquals(2.5, l.get(4));
        assertEquals(Set.of(new Keyword("a")), l.get(5));
        assertEquals("2020", l.get(6));
        assertEquals("q\"", l.get(7));
        assertNull(l.get(8));
        assertEquals(Boolean.TRUE, l.get(9));
        assertEquals(new Keyword("k"), l.get(10));
        assertEquals("sym", l.get(11));
        assertEquals(Map.of(new Keyword("x"), List.of(1L, List.of(2L))), l.get(12));
    }

    @Test
    void shouldReadKvLogKeysAndPositionJsonEventsByLineNotTime() throws Exception {
        History kv = HistoryReader.read("c.txt", "{:process 0, :type :invoke, :f :get, :key \"9\", :value nil}\n"
                + "{:process 0, :type :ok, :f :get, :key \"9\", :value \"x 1 y\"}\n", null);
        assertEquals("9", kv.operations().get(0).key());
        assertEquals("x 1 y", kv.operations().get(0).output());
        History js = HistoryReader.read("t.jsonl", "{\"process\":\"a\",\"type\":\"invoke\",\"f\":\"read\",\"time\":100}\n"
                + "{\"process\":\"a\",\"type\":\"ok\",\"f\":\"read\",\"value\":5,\"time\":250}\n", null);
        Operation op = js.operations().get(0);
        assertEquals(0, op.call()); // positions are event indices; times are informational
        assertEquals(1, op.ret());
        assertEquals(5L, op.output());
    }
}
