package dev.remora.locks;

import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A lock's memory at its home node (or a {@link FencedRegister}'s), as {@code create} allocates and registers it:
 * the address that handles attach to, and the registration that pins it. {@link #close()} deregisters the memory; a
 * handle's verbs on it then complete with a remote access error. Close it once no handle uses the lock any more.
 */
public final class LockHome implements AutoCloseable {
    private final MemoryRegion region;
    private final RemoteAddress address;

    LockHome(MemoryRegion region, long offset) {
        this.region = Objects.requireNonNull(region, "region");
        this.address = region.remote(offset);
    }

    /** @return the lock's address, for a lock's {@code attach} */
    public RemoteAddress address() {
        return address;
    }

    /** @return the home node */
    public Node node() {
        return region.node();
    }

    /** @return whether the memory is still registered */
    public boolean isOpen() {
        return region.isRegistered();
    }

    /** Deregisters the lock's memory. Idempotent. */
    @Override
    public void close() {
        region.deregister();
    }

    @Override
    public String toString() {
        return "LockHome" + address;
    }
}
