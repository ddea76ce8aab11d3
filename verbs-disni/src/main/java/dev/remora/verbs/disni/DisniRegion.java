package dev.remora.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import dev.remora.verbs.spi.OffHeapRegion;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A region registered with {@code ibv_reg_mr}: direct memory of this process at its real virtual address, with the
 * NIC's distinct local and remote keys. The CPU accessors are {@link OffHeapRegion}'s (x86-TSO, R1).
 */
final class DisniRegion extends OffHeapRegion {
    private final DisniNode node;
    private final IbvMr mr;

    DisniRegion(DisniNode node, ByteBuffer buffer, long address, IbvMr mr, int access) {
        super(buffer, address, mr.getRkey(), access);
        this.node = node;
        this.mr = mr;
    }

    @Override
    public DisniNode node() {
        return node;
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    protected void forget() {
        node.forget(this);
        try {
            mr.deregMr().execute().free();
        } catch (IOException e) {
            DisniFabric.LOG.warning("ibv_dereg_mr of region 0x" + Long.toHexString(address()) + " failed: "
                + e.getMessage());
        }
    }
}
