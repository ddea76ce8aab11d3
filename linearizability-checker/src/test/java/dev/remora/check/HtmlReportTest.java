package dev.remora.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import dev.remora.check.report.FileReport;
import dev.remora.check.report.HtmlReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HTML report: the embedded data, escaping, self-containedness and size. */
class HtmlReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DATA_OPEN = "<script type=\"application/json\" id=\"" + HtmlReport.DATA_ID + "\">";

    @TempDir
    Path tmp;

    private static final String BAD = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":2}\n"
            + "{\"process\":1,\"type\":\"invoke\",\"f\":\"write\",\"value\":3}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":2}\n"
            + "{\"process\":2,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n"
            + "{\"process\":2,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n";

    @Test
    void shouldEmbedEveryOperationWithItsStepAndTheFailingOne() throws Exception {
        Path bad = tmp.resolve("bad.jsonl");
        Files.writeString(bad, BAD);
        Path good = tmp.resolve("good.jsonl");
        Files.writeString(good, BAD.replace("\"read\",\"value\":1", "\"read\",\"value\":3"));
        Path html = tmp.resolve("report.html");
        TestSupport.Run r = TestSupport.cli("--model", "register", "--html", html.toString(), good.toString(),
                bad.toString());
        assertEquals(1, r.exitCode());
        String page = Files.readString(html);
        assertTrue(page.startsWith("<!DOCTYPE html>"));
        assertTrue(page.contains("class=\"v-linearizable\">linearizable<"), "summary row of the good file");
        assertTrue(page.contains("class=\"v-not-linearizable\">not-linearizable<"), "summary row of the bad file");
        assertEquals(2, count(page, "<section class=\"file\""), "a time line for every file, whatever its verdict");
        assertTrue(page.contains("cannot linearize read -&gt; 1 (process 2, line 6)"), "reason");
        assertTrue(page.contains("Longest partial linearization"));
        assertEquals(2, count(page, "<script"), "the data and the script, nothing else");
        assertFalse(Pattern.compile("(src|href)=\"(http|//)").matcher(page).find(), "no external resources");
        assertFalse(page.contains("http://") || page.contains("https://"), "no addresses at all");

        JsonNode files = data(page);
        assertEquals(2, files.size());
        JsonNode g = files.get(0).get("parts").get(0);
        assertEquals("linearizable", g.get("verdict").asText());
        assertEquals(4, g.get("p").size(), "every operation present");
        assertEquals(List.of("0", "1", "2"), strings(g.get("procs")));
        // write 3 is indeterminate and must take effect for the read of 3: all four are linearized.
        List<Integer> order = indices(g.get("lin"));
        assertEquals(4, order.size());
        assertEquals(Set.of(0, 1, 2, 3), new HashSet<>(order));
        assertEquals("read -> 3", desc(g, order.get(3)));
        assertEquals(-1, g.get("w").get(2).asInt(), "write 3 never completes");

        JsonNode b = files.get(1).get("parts").get(0);
        assertEquals("not-linearizable", b.get("verdict").asText());
        assertEquals("read -> 1", desc(b, b.get("fail").asInt()), "the failing operation");
        assertTrue(b.get("reason").asText().startsWith("cannot linearize read -> 1 (process 2, line 6)"));
        List<Integer> partial = indices(b.get("lin"));
        assertEquals("write 1", desc(b, partial.get(0)), "first step of the partial linearization");
        assertFalse(partial.contains(b.get("fail").asInt()));
        assertEquals(partial.size() + 1 - b.get("statesFrom").asInt(), b.get("states").size(), "a state per step");
        // Ordinal slots: 7 events, the read's call is the sixth (slot 5), its return the seventh.
        assertEquals(7, b.get("slots").asInt());
        int fail = b.get("fail").asInt();
        assertEquals(5, sum(b.get("c"), fail));
        assertEquals(1, b.get("w").get(fail).asInt());
        assertEquals(6, sum(b.get("l"), fail), "source line of the read's call");
        assertFalse(files.get(1).get("times").asBoolean(), "no times in these files");
    }

    @Test
    void shouldEscapeValuesSoThatNoScriptEndsEarly() throws Exception {
        String k = "</script><img src=x onerror=alert(1)>";
        String v = "<!-- \u2028 & \"quoted\" \\ </SCRIPT>";
        String text = "{\"process\":0,\"type\":\"invoke\",\"f\":\"get\",\"key\":" + JSON.writeValueAsString(k) + "}\n"
                + "{\"process\":0,\"type\":\"ok\",\"f\":\"get\",\"key\":" + JSON.writeValueAsString(k) + ",\"value\":"
                + JSON.writeValueAsString(v) + "}\n";
        History h = HistoryReader.read("x<y>.jsonl", text, null);
        Model<?> m = Models.create("kv", null, false);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true));
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict());
        String page = HtmlReport.render(List.of(new FileReport("x<y>.jsonl", m, h, r, null)));
        assertEquals(2, count(page.toLowerCase(java.util.Locale.ROOT), "<script"), "no script element from the values");
        assertEquals(2, count(page.toLowerCase(java.util.Locale.ROOT), "</script"), "no early end of a script");
        assertFalse(page.contains("<img"), "no markup from the values");
        assertFalse(page.contains("<!--"), "no comment opener from the values");
        assertTrue(page.contains("x&lt;y&gt;.jsonl"));
        JsonNode part = data(page).get(0).get("parts").get(0);
        assertEquals(Values.show(k), part.get("key").asText(), "the key survives the round trip");
        assertTrue(desc(part, 0).contains("</SCRIPT>") && desc(part, 0).contains("<!-- \u2028 & "),
                "the value survives the round trip: " + desc(part, 0));
        assertEquals("x<y>.jsonl", data(page).get(0).get("file").asText());
    }

    @Test
    void shouldEmbedEveryOperationOfALargeHistoryCompactly() throws Exception {
        StringBuilder sb = new StringBuilder();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            sb.append("{\"process\":").append(i % 4).append(",\"type\":\"invoke\",\"f\":\"write\",\"value\":").append(i)
              .append(",\"time\":").append(1_000L * i).append("}\n{\"process\":").append(i % 4)
              .append(",\"type\":\"ok\",\"f\":\"write\",\"value\":").append(i).append(",\"time\":")
              .append(1_000L * i + 700).append("}\n");
        }
        sb.append("{\"process\":9,\"type\":\"invoke\",\"f\":\"read\",\"value\":null,\"time\":").append(1_000L * n)
          .append("}\n{\"process\":9,\"type\":\"ok\",\"f\":\"read\",\"value\":17,\"time\":").append(1_000L * n + 5)
          .append("}\n");
        Path bad = tmp.resolve("large.jsonl");
        Files.writeString(bad, sb);
        Path html = tmp.resolve("large.html");
        assertEquals(1, TestSupport.cli("--model", "register", "--html", html.toString(), bad.toString()).exitCode());
        String page = Files.readString(html);
        JsonNode part = data(page).get(0).get("parts").get(0);
        assertEquals(n + 1, part.get("p").size(), "every operation present");
        assertEquals(n, part.get("lin").size(), "every write linearized before the read fails");
        assertEquals("read -> 17", desc(part, part.get("fail").asInt()));
        assertTrue(data(page).get(0).get("times").asBoolean());
        assertEquals(700, part.get("u").get(5).asInt() * part.get("unit").asInt(), "duration of an operation");
        assertTrue(page.contains("(" + (n - HtmlReport.MAX_STEPS_LISTED) + " steps omitted)"));
        int values = 0;
        for (JsonNode d : part.get("dict")) {
            values += d.asText().length() + 3;
        }
        double perOp = (page.length() - values - 60_000.0) / (n + 1);
        assertTrue(perOp < 40, "bytes per operation beyond the values and the script: " + perOp);
    }

    @Test
    void shouldDrawAnUndecidedHistoryToo() throws Exception {
        History h = HistoryReader.read("u.jsonl", BAD, null);
        Model<?> m = Models.create("register", null, false);
        CheckResult r = new CheckResult(Verdict.UNKNOWN, "time limit reached", null, 4, 1, 10, 1_000);
        String page = HtmlReport.render(List.of(new FileReport("u.jsonl", m, h, r, null)));
        assertTrue(page.contains("undecided: time limit reached"));
        JsonNode part = data(page).get(0).get("parts").get(0);
        assertEquals("undecided", part.get("verdict").asText());
        assertEquals(4, part.get("p").size());
        assertFalse(part.has("lin"), "no order for an undecided partition");
    }

    @Test
    void shouldRenderAnEmptyHistory() throws Exception {
        History h = HistoryReader.read("empty.jsonl", "", HistoryFormat.JSONL);
        Model<?> m = Models.create("register", null, false);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true));
        JsonNode file = data(HtmlReport.render(List.of(new FileReport("empty.jsonl", m, h, r, null)))).get(0);
        assertEquals("linearizable", file.get("verdict").asText());
        assertEquals(0, file.get("parts").size());
    }

    @Test
    void shouldPutTheFailingPartitionFirst() throws Exception {
        String text = "{\"process\":0,\"type\":\"invoke\",\"f\":\"put\",\"key\":\"a\",\"value\":\"1\"}\n"
                + "{\"process\":0,\"type\":\"ok\",\"f\":\"put\",\"key\":\"a\",\"value\":\"1\"}\n"
                + "{\"process\":1,\"type\":\"invoke\",\"f\":\"get\",\"key\":\"b\"}\n"
                + "{\"process\":1,\"type\":\"ok\",\"f\":\"get\",\"key\":\"b\",\"value\":\"9\"}\n";
        History h = HistoryReader.read("kv.jsonl", text, null);
        Model<?> m = Models.create("kv", null, false);
        CheckResult r = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true).withParallelism(1));
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict());
        JsonNode parts = data(HtmlReport.render(List.of(new FileReport("kv.jsonl", m, h, r, null)))).get(0).get("parts");
        assertEquals(2, parts.size());
        assertEquals("\"b\"", parts.get(0).get("key").asText());
        assertEquals("not-linearizable", parts.get(0).get("verdict").asText());
        assertEquals("\"a\"", parts.get(1).get("key").asText());
    }

    @Test
    void shouldHandBackTheLinearizationOnlyWhenAsked() {
        History h = HistoryReader.read("g.jsonl", BAD.replace("\"read\",\"value\":1", "\"read\",\"value\":3"), null);
        Model<?> m = Models.create("register", null, false);
        assertEquals(List.of(), Checker.check(h, m).linearizations());
        List<List<Operation>> lin = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true)).linearizations();
        assertEquals(1, lin.size());
        List<Integer> ids = new ArrayList<>();
        lin.get(0).forEach(op -> ids.add(op.id()));
        assertEquals(3, ids.indexOf(3), "the read of 3 last: " + ids);
        assertTrue(ids.indexOf(2) < ids.indexOf(3) && ids.indexOf(1) < ids.indexOf(2), "write 2, write 3, read 3: " + ids);
    }

    private static JsonNode data(String page) throws Exception {
        int from = page.indexOf(DATA_OPEN);
        assertTrue(from >= 0, "data embedded");
        from += DATA_OPEN.length();
        return JSON.readTree(page.substring(from, page.indexOf("</script>", from)));
    }

    /** The description of operation {@code op}: the table is in order of first use, 0 its next new entry. */
    private static String desc(JsonNode part, int op) {
        int size = 0;
        int at = 0;
        for (int i = 0; i <= op; i++) {
            int k = part.get("d").get(i).asInt();
            at = k == 0 ? size++ : size - k;
        }
        return part.get("dict").get(at).asText();
    }

    private static int sum(JsonNode deltas, int upTo) {
        int s = 0;
        for (int i = 0; i <= upTo; i++) {
            s += deltas.get(i).asInt();
        }
        return s;
    }

    private static List<Integer> indices(JsonNode deltas) {
        List<Integer> out = new ArrayList<>();
        int at = 0;
        for (JsonNode d : deltas) {
            at += d.asInt();
            out.add(at);
        }
        return out;
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.asText()));
        return out;
    }

    private static int count(String s, String sub) {
        Matcher m = Pattern.compile(Pattern.quote(sub)).matcher(s);
        int c = 0;
        while (m.find()) {
            c++;
        }
        return c;
    }
}
