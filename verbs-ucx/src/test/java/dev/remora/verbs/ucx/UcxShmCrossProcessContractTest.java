package dev.remora.verbs.ucx;

import dev.remora.verbs.testing.NodeHost;
import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The verbs contract between two OS processes over UCX_TLS=shm. */
class UcxShmCrossProcessContractTest extends UcxCrossProcessContract {
    @RegisterExtension
    static final NodeHostExtension HOST = UcxHosting.extension();

    @Override
    NodeHost host() {
        return HOST.host();
    }

    @Override
    String transports() {
        return "shm";
    }
}
