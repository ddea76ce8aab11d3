package dev.remora.verbs.ucx;

/** The verbs properties between two OS processes over UCX_TLS=tcp. */
class UcxTcpCrossProcessPropertiesTest extends UcxCrossProcessProperties {
    @Override
    String transports() {
        return "tcp";
    }
}
