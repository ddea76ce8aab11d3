package dev.remora.verbs.disni;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsContract;
import org.junit.jupiter.api.Assumptions;

/**
 * The verbs contract on RDMA hardware: every node in this process, queue pairs connected through RDMA CM on the
 * device behind the system property {@code remora.disni.host} (else {@code REMORA_DISNI_HOST}, else 127.0.0.1),
 * the RDMA interface's address. Skipped, with what is missing, where the provider
 * cannot run.
 */
class DisniFabricContractTest extends VerbsContract {

    @Override
    protected Fabric newFabric() {
        DisniAvailability a = DisniFabricProvider.availability();
        Assumptions.assumeTrue(a.isAvailable(), a::reason);
        // retry_count 1 and the shortest transport timeout the device allows keep a dead peer's failure quick.
        DisniContext c = new DisniContext().retryCount(1).rnrRetryCount(1);
        String host = System.getProperty("remora.disni.host");
        return DisniFabric.open(host == null ? c : c.host(host));
    }

    @Override
    protected long retryTimeoutNs() {
        return 10_000_000_000L;
    }

    @Override
    protected void crash(Node node) {
        Assumptions.abort("a node of this process cannot be crashed on hardware (kill its process instead)");
    }
}
