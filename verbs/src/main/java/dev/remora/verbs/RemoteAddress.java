package dev.remora.verbs;

/**
 * A remote address: the node that owns it, the region's remote key and a virtual address in that region. It is what
 * a peer needs to issue one-sided verbs, and is exchanged out of band (over SEND/RECV, a file, a socket).
 *
 * @param nodeId the owning node's fabric-wide id
 * @param rkey the remote key of the region
 * @param address the virtual address (the region's base address plus an offset)
 */
public record RemoteAddress(int nodeId, int rkey, long address) {

    /**
     * The address {@code bytes} further on.
     *
     * @param bytes a byte offset (may be negative)
     * @return a new address in the same region
     */
    public RemoteAddress plus(long bytes) {
        return new RemoteAddress(nodeId, rkey, address + bytes);
    }

    /**
     * Whether the address is 8-byte aligned, as remote atomics require (R17).
     *
     * @return true when {@code address % 8 == 0}
     */
    public boolean isWordAligned() {
        return (address & 7) == 0;
    }

    @Override
    public String toString() {
        return "N" + nodeId + ":0x" + Long.toHexString(address) + "/rkey=" + rkey;
    }
}
