package dev.remora.verbs.ucx;

import org.junit.jupiter.api.Assumptions;

/** The tests' guard: without a usable UCX here a test is skipped with the provider's precise reason. */
final class UcxAvailable {
    private UcxAvailable() {
    }

    /** Aborts the calling test (counted as skipped) if UCX cannot run in this JVM. */
    static void assume() {
        UcxFabricProvider.unavailableReason().ifPresent(reason -> Assumptions.abort("UCX is not usable here: "
            + reason));
    }
}
