package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The golden corpus under {@code src/test/resources/histories/<model>/{good,bad}/*.jsonl}: every
 * {@code good} file is linearizable and every {@code bad} file is not, and every model has both.
 */
class GoldenCorpusTest {
    static Path root() throws URISyntaxException {
        return Paths.get(GoldenCorpusTest.class.getResource("/histories").toURI());
    }

    @Test
    void shouldHaveGoodAndBadHistoriesForEveryModel() throws Exception {
        Set<String> missing = new TreeSet<>();
        for (String model : Models.NAMES) {
            for (String kind : List.of("good", "bad")) {
                Path d = root().resolve(model).resolve(kind);
                try (Stream<Path> s = Files.isDirectory(d) ? Files.list(d) : Stream.empty()) {
                    if (s.noneMatch(p -> p.toString().endsWith(".jsonl"))) {
                        missing.add(model + "/" + kind);
                    }
                }
            }
        }
        assertEquals(Set.of(), missing);
    }

    @TestFactory
    List<DynamicTest> shouldGiveEveryGoldenHistoryItsVerdict() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root())) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".jsonl")).sorted()::iterator) {
                Path rel = root().relativize(p);
                String model = rel.getName(0).toString();
                Verdict expected = rel.getName(1).toString().equals("good") ? Verdict.LINEARIZABLE
                        : Verdict.NOT_LINEARIZABLE;
                tests.add(DynamicTest.dynamicTest(rel.toString(), () -> {
                    History h = HistoryReader.read(p, null);
                    assertEquals(HistoryFormat.JSONL, h.format());
                    Model<?> m = Models.create(model, null, false);
                    Checker.validate(h, m);
                    CheckResult r = Checker.check(h, m);
                    assertEquals(expected, r.verdict(), r::toString);
                    if (expected == Verdict.NOT_LINEARIZABLE) {
                        assertNotNull(r.failure().blocking(), "blocking operation");
                    }
                    TestSupport.Run run = TestSupport.cli("--model", model, p.toString());
                    assertEquals(p + "\t" + expected.cliName() + System.lineSeparator(), run.out());
                    assertEquals(expected == Verdict.LINEARIZABLE ? 0 : 1, run.exitCode());
                }));
            }
        }
        return tests;
    }
}
