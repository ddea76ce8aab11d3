package dev.remora.verbs.spi;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.util.Objects;

/**
 * What every provider's node handle holds: its fabric-wide id, its name, its address and its fabric, fixed when the
 * handle is made. {@link AbstractLocalNode} adds what a node of this process does, {@link AbstractPeerNode} what a
 * handle of another process's node refuses. Thread-safe (the identity is final).
 *
 * @param <F> the provider's fabric type, which {@link #fabric()} returns
 */
public abstract class AbstractNode<F extends Fabric> implements Node {
    private final F fabric;
    private final int id;
    private final String name;
    private final String address;

    /**
     * @param fabric the fabric the node belongs to
     * @param id its fabric-wide id
     * @param name its name
     * @param address where peers reach it ({@link Node#address()})
     */
    protected AbstractNode(F fabric, int id, String name, String address) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.id = id;
        this.name = Objects.requireNonNull(name, "name");
        this.address = Objects.requireNonNull(address, "address");
    }

    @Override
    public final int id() {
        return id;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String address() {
        return address;
    }

    @Override
    public final F fabric() {
        return fabric;
    }
}
