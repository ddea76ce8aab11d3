package dev.remora.verbs.ucx;

import net.jqwik.api.PropertyDefaults;

/**
 * The verbs properties between two OS processes over UCX_TLS=shm: 75 tries, since each opens three UCX contexts with
 * shared-memory transports (about 50 ms each here, against 10 ms over TCP).
 */
@PropertyDefaults(tries = 75)
class UcxShmCrossProcessPropertiesTest extends UcxCrossProcessProperties {
    @Override
    String transports() {
        return "shm";
    }
}
