package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;

/**
 * A region of the deterministic fabric: a range of the machine's 8-byte words. Every CPU access from a spawned
 * thread is a step ({@link DetFabric#step}); set-up code outside a run accesses memory directly.
 */
final class DetRegion implements MemoryRegion {
    private final DetNode node;
    private final long address;
    private final int firstWord;
    private final int words;
    private final int key;
    private final int access;
    private volatile boolean registered = true;

    DetRegion(DetNode node, long address, int firstWord, int words, int key, int access) {
        this.node = node;
        this.address = address;
        this.firstWord = firstWord;
        this.words = words;
        this.key = key;
        this.access = access;
    }

    @Override
    public Node node() {
        return node;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return words * 8L;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public boolean isRegistered() {
        return registered;
    }

    @Override
    public void deregister() {
        registered = false;
    }

    int firstWord() {
        return firstWord;
    }

    int words() {
        return words;
    }

    boolean allows(int flag) {
        return (access & flag) == flag;
    }

    /** The machine word holding the byte at virtual address {@code addr}, or -1 if outside. */
    int wordOfAddress(long addr) {
        long off = addr - address;
        return off < 0 || off >= length() ? -1 : firstWord + (int) (off / 8);
    }

    boolean contains(long addr, long len) {
        return addr >= address && len >= 0 && addr - address <= length() - len;
    }

    int wordAt(long offset) {
        if (!registered) {
            throw new IllegalStateException("region 0x" + Long.toHexString(address) + " of node " + node.name()
                + " was deregistered");
        }
        if (offset < 0 || offset > length() - 8) {
            throw new IndexOutOfBoundsException("offset " + offset + " + 8 bytes outside region of " + length()
                + " bytes");
        }
        if ((offset & 7) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not 8-byte aligned (the deterministic fabric "
                + "models memory as 8-byte words)");
        }
        return firstWord + (int) (offset / 8);
    }

    private void checkOwner() {
        DetFabric.Actor a = node.fabric().actor();
        if (a != null && a.node != node) {
            throw new IllegalStateException("a thread on node " + a.node.name() + " accessed memory of node "
                + node.name() + " with the CPU: use a verb");
        }
    }

    private long load(long offset) {
        int w = wordAt(offset);
        checkOwner();
        return node.fabric().step(new DetProgram.Load(-1, w));
    }

    private void store(long offset, long value) {
        int w = wordAt(offset);
        checkOwner();
        node.fabric().step(new DetProgram.Store(w, value));
    }

    @Override
    public long getLong(long offset) {
        return load(offset);
    }

    @Override
    public void putLong(long offset, long value) {
        store(offset, value);
    }

    @Override
    public long getLongVolatile(long offset) {
        return load(offset); // a TSO load is already ordered after earlier loads; SC needs the fence on stores
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        store(offset, value);
        node.fabric().step(new DetProgram.MFence());
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long desired) {
        int w = wordAt(offset);
        checkOwner();
        return node.fabric().step(new DetProgram.LockedCas(w, expected, desired)) == expected;
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        int w = wordAt(offset);
        checkOwner();
        return node.fabric().step(new DetProgram.LockedAdd(w, delta, -1));
    }

    @Override
    public int getInt(long offset) {
        long word = load(offset & ~7L);
        return (offset & 4) == 0 ? (int) word : (int) (word >>> 32);
    }

    @Override
    public void putInt(long offset, int value) {
        if ((offset & 3) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not 4-byte aligned");
        }
        long word = load(offset & ~7L);
        long merged = (offset & 4) == 0
            ? (word & 0xFFFF_FFFF_0000_0000L) | (value & 0xFFFF_FFFFL)
            : (word & 0xFFFF_FFFFL) | ((long) value << 32);
        store(offset & ~7L, merged);
    }

    @Override
    public void getBytes(long offset, byte[] dst, int dstIndex, int len) {
        if (dstIndex < 0 || len < 0 || dstIndex > dst.length - len) {
            throw new IndexOutOfBoundsException("destination range " + dstIndex + "+" + len + " of " + dst.length);
        }
        for (int i = 0; i < len; ) {
            long at = offset + i;
            long word = load(at & ~7L);
            int shift = (int) (at & 7);
            for (int b = shift; b < 8 && i < len; b++, i++) {
                dst[dstIndex + i] = (byte) (word >>> (8 * b)); // little-endian, as native order on x86
            }
        }
    }

    @Override
    public void putBytes(long offset, byte[] src, int srcIndex, int len) {
        if (srcIndex < 0 || len < 0 || srcIndex > src.length - len) {
            throw new IndexOutOfBoundsException("source range " + srcIndex + "+" + len + " of " + src.length);
        }
        for (int i = 0; i < len; ) {
            long at = offset + i;
            int shift = (int) (at & 7);
            long word = shift == 0 && len - i >= 8 ? 0 : load(at & ~7L);
            for (int b = shift; b < 8 && i < len; b++, i++) {
                word = (word & ~(0xFFL << (8 * b))) | ((src[srcIndex + i] & 0xFFL) << (8 * b));
            }
            store(at & ~7L, word);
        }
    }

    @Override
    public void setMemory(long offset, long len, byte value) {
        byte[] fill = new byte[(int) len];
        java.util.Arrays.fill(fill, value);
        putBytes(offset, fill, 0, fill.length);
    }

    @Override
    public String toString() {
        return "DetRegion{" + node.name() + " 0x" + Long.toHexString(address) + "/" + length() + " key=" + key + ' '
            + Access.describe(access) + '}';
    }
}
