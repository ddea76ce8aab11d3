package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HTML report: content, self-containedness and size. */
class HtmlReportTest {
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
    void shouldDrawTimelinesPartialLinearizationAndHighlightTheFailingOperation() throws Exception {
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
        assertTrue(page.contains("<svg"), "time line");
        for (String p : List.of("p 0", "p 1", "p 2")) {
            assertTrue(page.contains(">" + p + "</text>"), "row for " + p);
        }
        assertTrue(page.contains("<g class=\"op blocking\"><title>✗ read -&gt; 1"), "failing read highlighted");
        assertEquals(1, count(page, "class=\"op blocking\""));
        assertTrue(page.contains("<g class=\"op linearized\"><title>1. write 1"), "first linearized step numbered");
        assertTrue(page.contains("Longest partial linearization"));
        assertTrue(page.contains("cannot linearize read -&gt; 1 (process 2, line 6)"), "reason");
        assertTrue(page.contains("stroke-dasharray"), "indeterminate write 3 drawn dashed");
        assertFalse(page.contains("<script"), "no scripts");
        assertFalse(Pattern.compile("(src|href)=\"(http|//)").matcher(page).find(), "no external resources");
    }

    @Test
    void shouldShowOnlyAWindowOfALargeFailingHistory() throws Exception {
        StringBuilder sb = new StringBuilder();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            sb.append("{\"process\":").append(i % 4).append(",\"type\":\"invoke\",\"f\":\"write\",\"value\":").append(i)
              .append("}\n{\"process\":").append(i % 4).append(",\"type\":\"ok\",\"f\":\"write\",\"value\":").append(i)
              .append("}\n");
        }
        sb.append("{\"process\":9,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n");
        sb.append("{\"process\":9,\"type\":\"ok\",\"f\":\"read\",\"value\":17}\n");
        Path bad = tmp.resolve("large.jsonl");
        Files.writeString(bad, sb);
        Path html = tmp.resolve("large.html");
        assertEquals(1, TestSupport.cli("--model", "register", "--html", html.toString(), bad.toString()).exitCode());
        String page = Files.readString(html);
        int drawn = count(page, "<g class=\"op ");
        assertTrue(drawn > 1 && drawn <= dev.remora.check.report.HtmlReport.MAX_DRAWN, "drawn " + drawn);
        assertTrue(page.length() < 200_000, "page size " + page.length());
        assertTrue(page.contains("(" + (n - dev.remora.check.report.HtmlReport.MAX_STEPS_LISTED) + " steps omitted)"));
    }

    @Test
    void shouldEscapeValuesInTheReport() throws Exception {
        History h = HistoryReader.read("x<y>.jsonl", "{\"process\":0,\"type\":\"invoke\",\"f\":\"get\",\"key\":\"<k>\"}\n"
                + "{\"process\":0,\"type\":\"ok\",\"f\":\"get\",\"key\":\"<k>\",\"value\":\"<script>\"}\n", null);
        Model<?> m = Models.create("kv", null, false);
        CheckResult r = Checker.check(h, m);
        assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict());
        List<dev.remora.check.report.FileReport> reps = new ArrayList<>();
        reps.add(new dev.remora.check.report.FileReport("x<y>.jsonl", m, h, r, null));
        String page = dev.remora.check.report.HtmlReport.render(reps);
        assertFalse(page.contains("<script"), page);
        assertTrue(page.contains("&lt;script&gt;"));
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
