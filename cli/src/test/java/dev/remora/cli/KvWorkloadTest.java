package dev.remora.cli;

import dev.remora.verbs.Node;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's kv workload when a thread cannot start: it reports the failure instead of waiting for the load. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KvWorkloadTest {

    @Test
    void shouldReportAThreadThatCannotAttachInsteadOfWaitingForItsLoad() throws InterruptedException {
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            fabric.crash(client);
            KvWorkload.Outcome o = KvWorkload.run(home, new Node[] {client}, 2, 0.1, 100);
            assertNotNull(o.failure(), "a crashed client node cannot attach the table");
            assertTrue(o.failure().getMessage().contains("crashed"), o.failure().toString());
            assertEquals(0, o.operations());
            assertEquals(0, o.history(), "nothing was recorded");
        }
    }
}
