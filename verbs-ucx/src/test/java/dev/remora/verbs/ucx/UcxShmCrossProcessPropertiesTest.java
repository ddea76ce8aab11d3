package dev.remora.verbs.ucx;

/** The verbs properties between two OS processes over UCX_TLS=shm. */
class UcxShmCrossProcessPropertiesTest extends UcxCrossProcessProperties {
    @Override
    String transports() {
        return "shm";
    }
}
