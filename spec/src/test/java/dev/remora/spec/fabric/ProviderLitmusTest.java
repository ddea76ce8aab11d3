package dev.remora.spec.fabric;

import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.sim.SimFabric;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every litmus file without faults, run many times on the real providers (the fast fabric, and the socket fabric
 * with each queue pair a loopback TCP connection): no run may give an outcome the file forbids.
 */
class ProviderLitmusTest {
    private static final int RUNS = 12;

    private static List<LitmusTest> tests() throws Exception {
        List<LitmusTest> tests = new ArrayList<>();
        LitmusParser parser = new LitmusParser();
        try (Stream<Path> files = Files.list(Path.of("litmus"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".litmus")).sorted().toList()) {
                tests.add(parser.parse(f));
            }
        }
        return tests;
    }

    private static void check(Supplier<Fabric> fabrics, String provider) throws Exception {
        List<LitmusTest> tests = tests();
        int run = 0;
        int skipped = 0;
        List<String> forbidden = new ArrayList<>();
        for (LitmusTest t : tests) {
            ProviderLitmusRunner.Result r = ProviderLitmusRunner.run(t, fabrics, RUNS);
            if (r.skipped() != null) {
                skipped++;
                assertTrue(!t.faults().isEmpty() || r.skipped().contains("contiguous"), t.id() + ": " + r.skipped());
                continue;
            }
            run++;
            assertEquals(RUNS, r.outcomes().values().stream().mapToLong(Long::longValue).sum(), t.id());
            if (r.forbiddenObserved()) {
                forbidden.add(t.id() + " " + r.outcomes());
            }
        }
        assertEquals(List.of(), forbidden, provider + ": forbidden outcomes observed");
        assertTrue(run >= 50, provider + " ran " + run + " files (" + skipped + " need fault injection)");
    }

    @Test
    void theSocketFabricNeverShowsAForbiddenOutcome() throws Exception {
        check(() -> SocketFabric.open(new SocketContext().retryTimeoutNs(2_000_000_000L)), "socket");
    }

    @Test
    void theFastFabricNeverShowsAForbiddenOutcome() throws Exception {
        check(SimFabric::open, "sim");
    }
}
