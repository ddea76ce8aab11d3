package dev.remora.verbs.disni;

import dev.remora.verbs.spi.AbstractPeerNode;

import java.net.InetSocketAddress;

/** A node of another process, reached by {@link DisniFabric#connect(String)}: the target of one-sided verbs. */
final class DisniPeerNode extends AbstractPeerNode<DisniFabric> {
    private final InetSocketAddress cmAddress;

    DisniPeerNode(DisniFabric fabric, int id, String name, String address, InetSocketAddress cmAddress) {
        super(fabric, id, name, address);
        this.cmAddress = cmAddress;
    }

    InetSocketAddress cmAddress() {
        return cmAddress;
    }

    @Override
    protected String details() {
        return ", cm " + cmAddress;
    }
}
