package dev.remora.spec.tla;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs TLC on every model of the kv specs, {@code spec/kv/<Structure>/MC*.cfg}, and checks each against the result its
 * {@code .cfg} declares in its first line (read as in {@link ObjectSpecsTlcTest#expectation}), and its distinct-state
 * count against {@code spec/kv/manifest.json}. Next to every model are copied the RDMA layers of
 * {@code spec/locks} ({@code BlockingVerbs.tla}, {@code BlockingFaults.tla}) and the top-level modules of
 * {@code spec/objects} (the torn-transfer layer {@code TornVerbs.tla}). Output goes under {@code target/tlc-kv/}; the
 * properties {@code remora.spec.full}, {@code remora.spec.updateManifest}, {@code remora.spec.tlcParallelism} and
 * {@code remora.spec.tlcTimeoutSec} work as in {@link LockSpecsTlcTest} (the running is {@link SpecModelSuite}'s).
 */
class KvSpecsTlcTest {

    private static final SpecModelSuite SUITE = new SpecModelSuite("kv", Path.of("kv"),
        List.of(Path.of("locks"), Path.of("objects")), Path.of("target", "tlc-kv"),
        "mvn -B -pl spec test -Dtest=KvSpecsTlcTest -Dremora.spec.updateManifest=true",
        ObjectSpecsTlcTest::expectation);

    @TestFactory
    Stream<DynamicTest> shouldHoldOrFailAsExpectedForEveryKvModel() throws IOException {
        return SUITE.tests(1).stream();
    }

    @AfterAll
    static void writeReportAndManifest() throws IOException, InterruptedException {
        SUITE.finish();
    }
}
