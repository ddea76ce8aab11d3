package dev.remora.bench.kv;

import dev.remora.testkit.YcsbDriver;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KvBench} with tiny parameters on both fabrics (the socket one with its home in a child JVM): every table row
 * is printed and the round-trip checks pass; a fabricated uncontended GET of 2 round trips fails them.
 */
class KvBenchSmokeTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldPrintEveryWorkloadOnBothFabricsAndPassTheRoundTripChecks() throws Exception {
        KvBench.Options o = KvBench.Options.parse(new String[] {"--seconds", "0.2", "--threads", "2", "--keys", "2000",
            "--fill-rows", "64"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> failures;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            failures = KvBench.run(o, out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(printed);
        assertEquals(List.of(), failures, printed);
        assertTrue(printed.contains("PASS: every uncontended GET took exactly 1 round trip"), printed);
        for (String fabric : List.of("fast-2us", "socket")) {
            assertTrue(printed.contains("[" + fabric + "] uncontended GET (hit)  x 1,000: round trips mean 1.000, "
                + "min 1, max 1"), printed);
            assertTrue(printed.contains("[" + fabric + "] uncontended update     x 200: round trips mean 2.000, min 2, "
                + "max 2"), printed);
            for (String mix : List.of("A", "B", "C")) {
                assertEquals(1, printed.lines().filter(l -> l.startsWith("| " + fabric + " | " + mix + " | cuckoo |"))
                    .count(), fabric + " " + mix + ":\n" + printed);
                assertEquals(1, printed.lines().filter(l -> l.startsWith("| " + fabric + " | " + mix
                    + " | ConcurrentHashMap |")).count(), fabric + " " + mix + ":\n" + printed);
            }
            // YCSB C has no writers: exactly one round trip per GET
            assertTrue(printed.lines().anyMatch(l -> l.startsWith("| " + fabric + " | C | cuckoo |")
                && l.contains("| 1.000 | – | 0 |")), printed);
            assertEquals(1, printed.lines().filter(l -> l.startsWith("| " + fabric + " | 64 x 4 | cuckoo |")
                && l.endsWith("| 0 | 0 |")).count(), "no TABLE_FULL, no BUSY below 90 %:\n" + printed);
        }
    }

    @Test
    void shouldFailTheCheckForAnUncontendedGetOfTwoRoundTrips() {
        KvBench.Options o = KvBench.Options.parse(new String[0]);
        YcsbDriver.Result run = new YcsbDriver.Result(10, 0, 0, 0, 10, 0, 0, 0, 1_000_000, false, new Histogram(3),
            null);
        Ycsb.Fill fill = new Ycsb.Fill(1, 0, 0, 0, 2, 1_000, new double[3], new double[3]);
        KvBench.FabricResult f = new KvBench.FabricResult("fake", 8, fill,
            List.of(new KvBench.Uncontended("GET (hit)", 3, 1, 2, 4), new KvBench.Uncontended("update", 3, 2, 2, 6)),
            List.of("C"), List.of(run), List.of(run), fill, fill, 16);
        List<String> failures = KvBench.report(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), o, List.of(f));
        assertEquals(List.of("fake uncontended GET (hit): round trips 1..2, not exactly 1"), failures);

        YcsbDriver.Result retried = new YcsbDriver.Result(10, 0, 0, 0, 11, 0, 1, 0, 1_000_000, false,
            new Histogram(3), null);
        KvBench.FabricResult g = new KvBench.FabricResult("fake", 8, fill,
            List.of(new KvBench.Uncontended("update", 3, 2, 2, 6)), List.of("C"), List.of(retried), List.of(run), fill,
            fill, 16);
        assertEquals(List.of("fake YCSB-C (no writers): 11 round trips for 10 GETs"), KvBench.report(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), o, List.of(g)));
    }

    @Test
    void shouldRejectBadOptionsNamingThem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvBench.Options.parse(new String[] {"--fill-rows",
            "100"})).getMessage().contains("--fill-rows must be a power of two"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvBench.Options.parse(new String[] {"--fabric",
            "rdma"})).getMessage().contains("--fabric is fast, socket or both"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvBench.Options.parse(new String[] {"--bogus",
            "1"})).getMessage().contains("unknown option --bogus"));
        assertEquals(32_768, KvBench.Options.parse(new String[0]).ycsbRows(), "100,000 keys at most 90 % full");
    }
}
