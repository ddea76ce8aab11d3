package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The position of an event in the file is the real-time order, in every format; {@code :time}
 * is informational and may step backwards, as it does in Jepsen histories recorded by many
 * threads. Every file of {@code src/test/resources/file-order/} has a time that steps backwards;
 * each {@code -good} history is linearizable in file order, and each {@code -bad} one is not,
 * although ordering its events by time would make it linearizable (two operations that are
 * sequential by position would overlap by time).
 */
class FileOrderTest {
    private static final Pattern TIME = Pattern.compile("\"?:?time\"?[:,]?\\s*(\\d+)");

    static Path root() throws URISyntaxException {
        return Paths.get(FileOrderTest.class.getResource("/file-order").toURI());
    }

    @TestFactory
    List<DynamicTest> shouldOrderEventsByTheirPositionInTheFile() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        List<String> models = new ArrayList<>();
        try (Stream<Path> files = Files.list(root())) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = p.getFileName().toString();
                boolean good = name.contains("-good.");
                String model = name.substring(0, name.lastIndexOf(good ? "-good." : "-bad."));
                models.add(model);
                Verdict expected = good ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE;
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    assertTrue(timeStepsBackwards(p), name + " has no time that steps backwards");
                    History h = HistoryReader.read(p, null);
                    boolean register = model.endsWith("register");
                    Model<?> m = Models.create(model, register ? 0L : null, register);
                    Checker.validate(h, m);
                    CheckResult r = Checker.check(h, m);
                    assertEquals(expected, r.verdict(), r::toString);
                    List<String> args = new ArrayList<>(List.of("--model", model));
                    if (register) {
                        args.addAll(List.of("--init", "0"));
                    }
                    args.add(p.toString());
                    TestSupport.Run run = TestSupport.cli(args.toArray(new String[0]));
                    assertEquals(p + "\t" + expected.cliName() + System.lineSeparator(), run.out(), run.err());
                    assertEquals(good ? 0 : 1, run.exitCode(), run.err());
                }));
            }
        }
        for (String model : Models.NAMES) {
            assertTrue(models.contains(model), "no file-order history for " + model);
        }
        return tests;
    }

    private static boolean timeStepsBackwards(Path p) throws Exception {
        long last = Long.MIN_VALUE;
        Matcher m = TIME.matcher(Files.readString(p));
        while (m.find()) {
            long t = Long.parseLong(m.group(1));
            if (t < last) {
                return true;
            }
            last = t;
        }
        return false;
    }
}
