package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every file in {@code ../shared/histories/expected.tsv} gets the verdict its source project
 * asserts. Skipped, saying so, when {@code ../shared} is absent.
 */
class SharedCorpusTest {
    @TestFactory
    List<DynamicTest> shouldGiveEveryFileOfTheSharedCorpusItsExpectedVerdict() throws Exception {
        Optional<Path> dir = TestSupport.sharedHistories();
        assumeTrue(dir.isPresent(), "../shared/histories is absent (set -Dremora.shared.dir): skipping the"
                + " shared-corpus verdict tests");
        List<String> lines = Files.readAllLines(dir.get().resolve("expected.tsv"));
        List<DynamicTest> tests = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            Path file = dir.get().resolve(f[0]);
            HistoryFormat format = HistoryFormat.byName(f[1]);
            String model = f[2].startsWith("kv") ? "kv" : f[2];
            boolean hasInit = !f[3].equals("nil") && !f[3].equals("\"\"");
            Object init = f[3].equals("0") ? (Object) 0L : null;
            Verdict expected = Boolean.parseBoolean(f[4]) ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE;
            tests.add(DynamicTest.dynamicTest(f[0], () -> {
                assertEquals(format, HistoryFormat.detect(Files.readString(file)), "detected format");
                History h = HistoryReader.read(file, null);
                Model<?> m = Models.create(model, init, hasInit);
                Checker.validate(h, m);
                CheckResult r = Checker.check(h, m);
                assertEquals(expected, r.verdict(), () -> f[0] + ": " + r);
                if (expected == Verdict.NOT_LINEARIZABLE) {
                    assertFalse(r.failure().window().isEmpty(), "failure window");
                }
            }));
        }
        return tests;
    }
}
