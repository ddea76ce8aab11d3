package dev.remora.verbs.ucx;

import dev.remora.spec.fabric.ProviderLitmusRunner;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.verbs.Fabric;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every litmus file without faults (spec/litmus), run many times on the UCX fabric as {@code remora litmus --fabric
 * ucx} runs it (each test thread on its node, the nodes' workers in this process, talking over the transport): no
 * run may give an outcome the file forbids.
 */
class UcxLitmusTest {
    private static final int RUNS = Integer.getInteger("remora.test.litmusRuns", 8);

    private static List<LitmusTest> tests() throws Exception {
        List<LitmusTest> tests = new ArrayList<>();
        LitmusParser parser = new LitmusParser();
        try (Stream<Path> files = Files.list(Path.of("..", "spec", "litmus"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".litmus")).sorted().toList()) {
                tests.add(parser.parse(f));
            }
        }
        return tests;
    }

    @ParameterizedTest(name = "UCX_TLS={0}")
    @ValueSource(strings = {"shm", "tcp"})
    void shouldNeverShowAForbiddenOutcome(String tls) throws Exception {
        UcxAvailable.assume();
        Supplier<Fabric> fabrics = () -> UcxFabric.open(new UcxContext().transports(tls)
            .retryTimeoutNs(2_000_000_000L));
        int run = 0;
        List<String> forbidden = new ArrayList<>();
        for (LitmusTest t : tests()) {
            ProviderLitmusRunner.Result r = ProviderLitmusRunner.run(t, fabrics, RUNS);
            if (r.skipped() != null) {
                assertTrue(!t.faults().isEmpty() || r.skipped().contains("contiguous"), t.id() + ": " + r.skipped());
                continue;
            }
            run++;
            assertEquals(RUNS, r.outcomes().values().stream().mapToLong(Long::longValue).sum(), t.id());
            if (r.forbiddenObserved()) {
                forbidden.add(t.id() + " " + r.outcomes());
            }
        }
        assertEquals(List.of(), forbidden, "ucx over " + tls + ": forbidden outcomes observed");
        assertTrue(run >= 50, "ucx over " + tls + " ran " + run + " files");
    }
}
