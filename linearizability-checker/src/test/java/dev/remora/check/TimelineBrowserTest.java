package dev.remora.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.remora.check.model.Models;
import dev.remora.check.report.FileReport;
import dev.remora.check.report.HtmlReport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The HTML report's time line in a real headless Chromium, driven through the DevTools protocol
 * ({@link Cdp}): the failing operation in view on load, zoom, pan, the axis switch, the tooltip,
 * a 10<sup>5</sup>-operation page, and no script errors. Skipped when Chromium is not installed.
 * With {@code -Dremora.screenshot=docs/img/checker-timeline.png} (relative to the repository) it
 * also writes a screenshot of the failing report.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TimelineBrowserTest {
    private static final Path CHROMIUM = Paths.get(System.getProperty("remora.chromium", "/usr/bin/chromium"));
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int WIDTH = 1280;
    private static final int HEIGHT = 900;
    /** The stale value the failing read returns. */
    private static final int STALE = 41;

    private static Path dir;
    private static Cdp browser;
    private static Path failingPage;
    private static Path singlePage;
    /** The failing file's time line is the third of its page. */
    private static final int FAIL_VIEW = 2;

    @BeforeAll
    static void startBrowser() throws IOException {
        if (!Files.isExecutable(CHROMIUM)) {
            return; // every test is then skipped with the reason, in requireBrowser
        }
        dir = Files.createTempDirectory("remora-timeline");
        String name = "register-stale-read.jsonl";
        History h = history(name, 1_200, 4, 600, 1);
        Model<?> m = Models.create("register");
        CheckResult res = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true));
        assertEquals(Verdict.NOT_LINEARIZABLE, res.verdict());
        FileReport failing = new FileReport(name, m, h, res, null);
        List<FileReport> reports = new ArrayList<>();
        for (int i = 1; i <= FAIL_VIEW; i++) {
            // Linearizable files first, so that the failing time line starts below the first screen.
            History ok = history("register-" + i + ".jsonl", 300, 3, -1, 10 + i);
            CheckResult okRes = Checker.check(ok, m, CheckOptions.DEFAULTS.withLinearizations(true));
            assertEquals(Verdict.LINEARIZABLE, okRes.verdict());
            reports.add(new FileReport("register-" + i + ".jsonl", m, ok, okRes, null));
        }
        reports.add(failing);
        failingPage = dir.resolve("failing.html");
        Files.writeString(failingPage, HtmlReport.render(reports));
        singlePage = dir.resolve("single.html");
        Files.writeString(singlePage, HtmlReport.render(List.of(failing)));
        browser = Cdp.start(CHROMIUM, WIDTH, HEIGHT, TIMEOUT);
    }

    @BeforeEach
    void requireBrowser() {
        assumeTrue(browser != null, "browser test skipped: no Chromium at " + CHROMIUM
                + " (install the Debian package chromium, or set -Dremora.chromium=PATH)");
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (dir != null) {
                try (var s = Files.walk(dir)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Test
    @Order(1)
    void shouldShowTheFailingOperationInViewOnLoad() throws IOException {
        browser.navigate(failingPage.toUri().toString());
        JsonNode st = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        assertEquals(1_201, st.get("ops").asInt(), "every operation of the partition is in the page");
        JsonNode rect = browser.eval("remoraTimeline.failingRect()");
        assertNotNull(rect, "failing operation drawn");
        assertTrue(rect.isObject(), "failing operation drawn: " + rect);
        JsonNode win = browser.eval("({w: innerWidth, h: innerHeight, sx: scrollX, sy: scrollY})");
        double left = rect.get("left").asDouble();
        double right = rect.get("right").asDouble();
        double top = rect.get("top").asDouble();
        double bottom = rect.get("bottom").asDouble();
        assertTrue(left >= 0 && right <= win.get("w").asDouble() && top >= 0 && bottom <= win.get("h").asDouble(),
                "failing operation " + rect + " inside the viewport " + win);
        assertTrue(right - left >= 20, "failing operation zoomed to at least 20 pixels: " + rect);
        assertTrue(win.get("sy").asDouble() > 0, "the page scrolled itself to the failing time line: " + win);
        assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
    }

    @Test
    @Order(2)
    void shouldShowTheFailingOperationsValuesOnHover() throws IOException {
        JsonNode rect = browser.eval("remoraTimeline.failingRect()");
        browser.mouse("mouseMoved", rect.get("x").asDouble(), rect.get("y").asDouble(), null);
        JsonNode st = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        String tip = st.path("tip").asText("");
        assertTrue(tip.contains("read -> " + STALE), "tooltip shows the values: " + tip);
        assertTrue(tip.contains("cannot be linearized"), "tooltip shows the step: " + tip);
        assertTrue(tip.contains("process 9"), "tooltip shows the process: " + tip);
        assertTrue(tip.contains("time "), "tooltip shows the times: " + tip);
        browser.mouse("mouseMoved", 5, 5, null);
        assertTrue(browser.eval("remoraTimeline.state(" + FAIL_VIEW + ").tip").isNull(), "tooltip hidden away from the bars");
        assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
    }

    @Test
    @Order(3)
    void shouldZoomWithTheWheelAndPanByDragging() throws IOException {
        JsonNode rect = browser.eval("remoraTimeline.failingRect()");
        double x = rect.get("x").asDouble();
        double y = rect.get("y").asDouble();
        JsonNode before = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        double span0 = before.get("x1").asDouble() - before.get("x0").asDouble();
        browser.mouse("mouseWheel", x, y, Cdp.params().put("deltaX", 0).put("deltaY", -300));
        JsonNode zoomed = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        double span1 = zoomed.get("x1").asDouble() - zoomed.get("x0").asDouble();
        assertTrue(span1 < span0 * 0.8, "zoomed in: visible span " + span0 + " -> " + span1);
        browser.mouse("mouseWheel", x, y, Cdp.params().put("deltaX", 0).put("deltaY", 600));
        double span2 = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ").x1 - remoraTimeline.state(" + FAIL_VIEW + ").x0").asDouble();
        assertTrue(span2 > span1 * 1.5, "zoomed out: " + span1 + " -> " + span2);
        double x0 = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ").x0").asDouble();
        browser.mouse("mousePressed", x, y, Cdp.params().put("button", "left").put("buttons", 1).put("clickCount", 1));
        browser.mouse("mouseMoved", x - 100, y, Cdp.params().put("button", "left").put("buttons", 1));
        browser.mouse("mouseMoved", x - 300, y, Cdp.params().put("button", "left").put("buttons", 1));
        browser.mouse("mouseReleased", x - 300, y, Cdp.params().put("button", "left").put("buttons", 0)
                .put("clickCount", 1));
        JsonNode panned = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        assertTrue(panned.get("x0").asDouble() > x0, "dragging left pans right: " + x0 + " -> " + panned);
        assertEquals(span2, panned.get("x1").asDouble() - panned.get("x0").asDouble(), span2 * 1e-6, "pan keeps the span");
        browser.eval("document.querySelectorAll('.tl-wrap')[" + FAIL_VIEW + "].dispatchEvent(new KeyboardEvent('keydown', {key: 'f'}))");
        assertNotNull(browser.eval("remoraTimeline.failingRect()").get("x"), "f brings the failing operation back");
        assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
    }

    @Test
    @Order(4)
    void shouldSwitchTheAxis() throws IOException {
        JsonNode ord = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        assertEquals("ord", ord.get("axis").asText());
        browser.eval("(() => { const s = document.querySelectorAll('.tl-axis')[" + FAIL_VIEW + "]; s.value = 'time';"
                + " s.dispatchEvent(new Event('change')); })()");
        JsonNode time = browser.eval("remoraTimeline.state(" + FAIL_VIEW + ")");
        assertEquals("time", time.get("axis").asText());
        assertNotEquals(ord.get("x1").asDouble(), time.get("x1").asDouble(), "range in time units");
        String label = browser.eval("document.querySelectorAll('.tl-range')[" + FAIL_VIEW + "].textContent").asText();
        assertTrue(label.matches(".*\\d (ns|µs|ms|s) .*"), "time range label: " + label);
        assertTrue(browser.eval("remoraTimeline.failingRect()").isObject(), "failing operation still in view");
        browser.eval("document.querySelectorAll('.tl-wrap')[" + FAIL_VIEW + "].dispatchEvent(new KeyboardEvent('keydown', {key: 'a'}))");
        assertEquals("ord", browser.eval("remoraTimeline.state(" + FAIL_VIEW + ").axis").asText(), "a switches back");
        assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
        Path shot = screenshotPath();
        if (shot != null) {
            // The documentation's picture: the failing file alone, its failing operation hovered.
            browser.navigate(singlePage.toUri().toString());
            JsonNode r = browser.eval("remoraTimeline.failingRect()");
            browser.mouse("mouseMoved", r.get("x").asDouble(), r.get("y").asDouble(), null);
            Files.createDirectories(shot.toAbsolutePath().getParent());
            Files.write(shot, browser.screenshot());
            assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
        }
    }

    @Test
    @Order(5)
    void shouldLoadAHundredThousandOperationsQuicklyAndDrawOnlyWhatIsVisible() throws IOException {
        History h = history("large.jsonl", 100_000, 8, -1, 2);
        Model<?> m = Models.create("register");
        CheckResult res = Checker.check(h, m, CheckOptions.DEFAULTS.withLinearizations(true));
        assertEquals(Verdict.LINEARIZABLE, res.verdict());
        Path page = dir.resolve("large.html");
        Files.writeString(page, HtmlReport.render(List.of(new FileReport("large.jsonl", m, h, res, null))));
        long size = Files.size(page);
        long start = System.nanoTime();
        browser.navigate(page.toUri().toString());
        JsonNode st = browser.eval("remoraTimeline.state(0)");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(seconds < 15, "loaded in " + seconds + " s");
        assertEquals(100_001, st.get("ops").asInt());
        int width = browser.eval("document.querySelector('.tl-wrap canvas').clientWidth").asInt();
        int rows = Math.min(20, st.get("rows").asInt());
        int bound = rows * (width + 1) + 3;
        int drawn = st.get("drawn").asInt();
        assertTrue(drawn > 0 && drawn <= bound, "drawn " + drawn + " bars, bound " + bound);
        // Zoomed in, far fewer are drawn; the linearization's steps are numbered.
        for (int i = 0; i < 12; i++) {
            browser.eval("document.querySelectorAll('.tl-wrap')[0].dispatchEvent(new KeyboardEvent('keydown', {key: '+'}))");
        }
        JsonNode in = browser.eval("remoraTimeline.state(0)");
        assertTrue(in.get("drawn").asInt() < 2_000, "zoomed in: " + in);
        String desc = browser.eval("remoraTimeline.views[0].describe(50000).join('\\n')").asText();
        assertTrue(desc.contains("of the linearization found (100001 steps)"), desc);
        assertTrue(browser.errors().isEmpty(), "script errors: " + browser.errors());
        System.out.printf("10^5-operation page: %,d bytes, loaded in %.2f s, %d bars drawn (bound %d)%n", size, seconds,
                drawn, bound);
    }

    private static Path screenshotPath() {
        String p = System.getProperty("remora.screenshot");
        if (p == null || p.isBlank()) {
            return null;
        }
        Path path = Paths.get(p);
        if (path.isAbsolute()) {
            return path;
        }
        Path here = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        Path root = Files.isDirectory(here.resolve("docs")) || here.getParent() == null ? here : here.getParent();
        return root.resolve(path);
    }

    /**
     * A register history with times: {@code procs} processes write increasing values and read;
     * an operation takes effect at its completion, so the history is linearizable, except for one
     * read by process 9 of a stale value after operation {@code staleAt} (none when negative). A
     * read by process 8 spans the whole history, and a pause of 10 s after the first tenth
     * stretches the time scale.
     */
    static History history(String name, int ops, int procs, int staleAt, long seed) {
        Random rnd = new Random(seed);
        List<Event> ev = new ArrayList<>(2 * ops + 2);
        long t = 1_700_000_000_000_000_000L;
        String[] open = new String[procs];
        long[] value = new long[procs];
        long reg = 0;
        long next = 1;
        int done = 0;
        int started = 0;
        boolean paused = false;
        event(ev, 8, EventType.INVOKE, "read", null, t);
        while (done < ops) {
            t += 50 + rnd.nextInt(2_000);
            if (started == ops / 10 && !paused) {
                t += 10_000_000_000L;
                paused = true;
            }
            if (started == staleAt && done == started) {
                event(ev, 9, EventType.INVOKE, "read", null, t);
                t += 300;
                event(ev, 9, EventType.OK, "read", (long) STALE, t);
                started++;
                done++;
                continue;
            }
            int p = rnd.nextInt(procs);
            if (open[p] == null) {
                if (started >= ops || started == staleAt) {
                    continue;
                }
                boolean write = rnd.nextBoolean();
                open[p] = write ? "write" : "read";
                value[p] = write ? next++ : 0;
                event(ev, p, EventType.INVOKE, open[p], write ? value[p] : null, t);
                started++;
            } else {
                if (open[p].equals("write")) {
                    reg = value[p];
                    event(ev, p, EventType.OK, "write", value[p], t);
                } else {
                    event(ev, p, EventType.OK, "read", reg == 0 ? null : reg, t);
                }
                open[p] = null;
                done++;
            }
        }
        event(ev, 8, EventType.OK, "read", null, t + 10);
        return History.fromEvents(name, HistoryFormat.JSONL, ev);
    }

    private static void event(List<Event> ev, int p, EventType type, String f, Long value, long t) {
        ev.add(new Event((long) p, type, f, null, value, t, ev.size() + 1));
    }
}
