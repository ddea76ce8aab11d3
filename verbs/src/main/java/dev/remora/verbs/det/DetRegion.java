package dev.remora.verbs.det;

import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.det.machine.DetProgram;

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
        if (registered) {
            node.fabric().deregister(this);
        }
    }

    void markDeregistered() {
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
        return wordAtEvenIfDeregistered(offset);
    }

    /** The word at an 8-byte-aligned offset, for assertions after a run (the memory outlives its registration). */
    int wordAtEvenIfDeregistered(long offset) {
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
        if ((offset & 3) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not 4-byte aligned");
        }
        long word = load(offset & ~7L);
        return (int) (word >>> (8 * (offset & 4)));
    }

    /** A store of the bytes {@code mask} selects in the word at {@code offset & ~7}: atomic at its width, as on x86. */
    private void storeBytes(long offset, long value, long mask) {
        int w = wordAt(offset & ~7L);
        checkOwner();
        node.fabric().step(new DetProgram.Store(w, value, mask));
    }

    @Override
    public void putInt(long offset, int value) {
        if ((offset & 3) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not 4-byte aligned");
        }
        int shift = (int) (8 * (offset & 4));
        storeBytes(offset, (value & 0xFFFF_FFFFL) << shift, 0xFFFF_FFFFL << shift);
    }

    @Override
    public void getBytes(long offset, byte[] dst, int dstIndex, int len) {
        if (dstIndex < 0 || len < 0 || dstIndex > dst.length - len) {
            throw new IndexOutOfBoundsException("destination range " + dstIndex + "+" + len + " of " + dst.length);
        }
        checkRange(offset, len);
        for (int i = 0; i < len; ) {
            long at = offset + i;
            long word = load(at & ~7L);
            for (int b = (int) (at & 7); b < 8 && i < len; b++, i++) {
                dst[dstIndex + i] = (byte) (word >>> (8 * b)); // little-endian, as native order on x86
            }
        }
    }

    /**
     * Stores bytes one word at a time, each a store of just the bytes it covers, so that a concurrent store to the
     * word's other bytes is not lost. (A wider x86 copy is made of such stores too; which of them land first is the
     * TSO order of the calling thread.)
     */
    @Override
    public void putBytes(long offset, byte[] src, int srcIndex, int len) {
        if (srcIndex < 0 || len < 0 || srcIndex > src.length - len) {
            throw new IndexOutOfBoundsException("source range " + srcIndex + "+" + len + " of " + src.length);
        }
        checkRange(offset, len);
        for (int i = 0; i < len; ) {
            long at = offset + i;
            long value = 0;
            long mask = 0;
            for (int b = (int) (at & 7); b < 8 && i < len; b++, i++) {
                value |= (src[srcIndex + i] & 0xFFL) << (8 * b);
                mask |= 0xFFL << (8 * b);
            }
            storeBytes(at, value, mask);
        }
    }

    private void checkRange(long offset, long len) {
        if (offset < 0 || len < 0 || offset > length() - len) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + len + " outside region of " + length()
                + " bytes");
        }
    }

    @Override
    public void setMemory(long offset, long len, byte value) {
        if (len < 0 || len > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("bad length " + len);
        }
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
