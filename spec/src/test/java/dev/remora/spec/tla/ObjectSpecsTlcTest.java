package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs TLC on every object model under {@code spec/objects/<Object>/MC*.cfg} and checks each against the result its
 * {@code .cfg} declares in its first line, and its distinct-state count against {@code spec/objects/manifest.json}.
 *
 * <p>The first line of every model's {@code .cfg} is one of {@code \* expect: holds},
 * {@code \* expect: violated:<InvariantName>} (an invariant or action property TLC must report violated) and
 * {@code \* expect: violated:temporal} (a liveness property); a {@code .cfg} without it fails the test, naming the
 * file. Next to every model are copied the shared RDMA layers {@code spec/locks/BlockingVerbs.tla} and
 * {@code spec/locks/BlockingFaults.tla} and every top-level module of {@code spec/objects} (the torn-transfer layer
 * {@code TornVerbs.tla} and whatever else is shared there). Output goes under {@code target/tlc-objects/}; the
 * properties {@code remora.spec.full}, {@code remora.spec.updateManifest}, {@code remora.spec.tlcParallelism} and
 * {@code remora.spec.tlcTimeoutSec} work as in {@link LockSpecsTlcTest} (the running is {@link SpecModelSuite}'s).
 */
class ObjectSpecsTlcTest {

    private static final Pattern EXPECT = Pattern.compile("\\\\\\* expect: (holds|violated:(?:temporal|\\w+))\\s*");

    private static final SpecModelSuite SUITE = new SpecModelSuite("object", Path.of("objects"),
        List.of(Path.of("locks"), Path.of("objects")), Path.of("target", "tlc-objects"),
        "mvn -B -pl spec test -Dtest=ObjectSpecsTlcTest -Dremora.spec.updateManifest=true",
        ObjectSpecsTlcTest::expectation);

    /**
     * A model's expected result, from the first line of its {@code .cfg}.
     *
     * @param cfg the model's configuration
     * @return {@code holds}, {@code violated:<property>} or {@code violated:temporal}
     * @throws AssertionError if the first line declares no expected result
     */
    static String expectation(final Path cfg) {
        final String first;
        try (Stream<String> lines = Files.lines(cfg, StandardCharsets.UTF_8)) {
            first = lines.findFirst().orElse("");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final Matcher m = EXPECT.matcher(first);
        if (!m.matches()) {
            throw new AssertionError(cfg + ": the first line must declare the expected result, one of "
                + "'\\* expect: holds', '\\* expect: violated:<InvariantName>', '\\* expect: violated:temporal'; "
                + "found '" + first + "'");
        }
        return m.group(1);
    }

    @TestFactory
    Stream<DynamicTest> shouldHoldOrFailAsExpectedForEveryObjectModel() throws IOException {
        return SUITE.tests(1).stream();
    }

    @Test
    void shouldReadTheExpectedResultFromTheFirstLineOfACfg(@TempDir final Path dir) throws IOException {
        final Path holds = Files.writeString(dir.resolve("MCA.cfg"), "\\* expect: holds\nSPECIFICATION Spec\n");
        final Path violated = Files.writeString(dir.resolve("MCB.cfg"), "\\* expect: violated:Linearizable\n");
        final Path temporal = Files.writeString(dir.resolve("MCC.cfg"), "\\* expect: violated:temporal\n");
        final Path missing = Files.writeString(dir.resolve("MCD.cfg"), "SPECIFICATION Spec\n\\* expect: holds\n");
        assertEquals("holds", expectation(holds));
        assertEquals("violated:Linearizable", expectation(violated));
        assertEquals("violated:temporal", expectation(temporal));
        final AssertionError e = assertThrows(AssertionError.class, () -> expectation(missing));
        assertTrue(e.getMessage().contains("MCD.cfg"), e.getMessage());
    }

    @AfterAll
    static void writeReportAndManifest() throws IOException, InterruptedException {
        SUITE.finish();
    }
}
