package dev.remora.verbs;

/**
 * What a peer needs to know about a registered region to access it: owner, remote key, base address and length.
 * Obtained from {@link MemoryRegion#toRemote()} and handed to peers out of band.
 *
 * @param nodeId the owning node's fabric-wide id
 * @param rkey the remote key
 * @param address the base virtual address
 * @param length the length in bytes
 */
public record RemoteRegion(int nodeId, int rkey, long address, long length) {

    /**
     * The remote address at {@code offset}.
     *
     * @param offset byte offset, {@code 0 <= offset < length}
     * @return the address
     * @throws IndexOutOfBoundsException if the offset is outside the region
     */
    public RemoteAddress at(long offset) {
        if (offset < 0 || offset >= length) {
            throw new IndexOutOfBoundsException("offset " + offset + " outside region of " + length + " bytes");
        }
        return new RemoteAddress(nodeId, rkey, address + offset);
    }
}
