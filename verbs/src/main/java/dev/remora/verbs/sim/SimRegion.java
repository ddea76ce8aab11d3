package dev.remora.verbs.sim;

import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A registered region of the software fabric: off-heap memory in a direct {@link ByteBuffer}, accessed through
 * byte-buffer view {@link VarHandle}s in native byte order.
 *
 * <p>CPU accessors implement the TSO contract of {@link MemoryRegion}: loads are acquire loads, stores are release
 * stores (what x86 gives every plain access), {@code …Volatile} and the read-modify-writes are volatile. NIC-side
 * accessors ({@code nic…}) are used only by {@link SimQueuePair}.
 */
final class SimRegion implements MemoryRegion {
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final SimNode node;
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int key;
    private final int access;
    private volatile boolean registered = true;

    SimRegion(SimNode node, ByteBuffer buffer, long address, int key, int access) {
        this.node = node;
        this.buffer = buffer;
        this.address = address;
        this.length = buffer.capacity();
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
        return length;
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
            registered = false;
            node.forget(this);
        }
    }

    int key() {
        return key;
    }

    /**
     * Whether {@code [addr, addr + len)} lies inside this region.
     */
    boolean contains(long addr, long len) {
        return addr >= address && len >= 0 && addr - address <= length - len;
    }

    private int index(long offset, int size) {
        if (!registered) {
            throw new IllegalStateException("region 0x" + Long.toHexString(address) + " of node " + node.name()
                + " was deregistered");
        }
        if (offset < 0 || offset > length - size) {
            throw new IndexOutOfBoundsException("offset " + offset + " + " + size + " bytes outside region of "
                + length + " bytes");
        }
        return (int) offset;
    }

    private int alignedIndex(long offset) {
        int i = index(offset, Long.BYTES);
        if ((i & 7) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not 8-byte aligned");
        }
        return i;
    }

    @Override
    public long getLong(long offset) {
        int i = index(offset, Long.BYTES);
        if ((i & 7) == 0) {
            return (long) LONG.getAcquire(buffer, i);
        }
        long v = (long) LONG.get(buffer, i);
        VarHandle.acquireFence();
        return v;
    }

    @Override
    public void putLong(long offset, long value) {
        int i = index(offset, Long.BYTES);
        if ((i & 7) == 0) {
            LONG.setRelease(buffer, i, value);
        } else {
            VarHandle.releaseFence();
            LONG.set(buffer, i, value);
        }
    }

    @Override
    public long getLongVolatile(long offset) {
        return (long) LONG.getVolatile(buffer, alignedIndex(offset));
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        LONG.setVolatile(buffer, alignedIndex(offset), value);
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long desired) {
        return LONG.compareAndSet(buffer, alignedIndex(offset), expected, desired);
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        return (long) LONG.getAndAdd(buffer, alignedIndex(offset), delta);
    }

    @Override
    public int getInt(long offset) {
        int i = index(offset, Integer.BYTES);
        if ((i & 3) == 0) {
            return (int) INT.getAcquire(buffer, i);
        }
        int v = (int) INT.get(buffer, i);
        VarHandle.acquireFence();
        return v;
    }

    @Override
    public void putInt(long offset, int value) {
        int i = index(offset, Integer.BYTES);
        if ((i & 3) == 0) {
            INT.setRelease(buffer, i, value);
        } else {
            VarHandle.releaseFence();
            INT.set(buffer, i, value);
        }
    }

    @Override
    public void getBytes(long offset, byte[] dst, int dstIndex, int len) {
        if (dstIndex < 0 || len < 0 || dstIndex > dst.length - len) {
            throw new IndexOutOfBoundsException("destination range " + dstIndex + "+" + len + " of " + dst.length);
        }
        int i = index(offset, len);
        buffer.get(i, dst, dstIndex, len);
        VarHandle.acquireFence();
    }

    @Override
    public void putBytes(long offset, byte[] src, int srcIndex, int len) {
        if (srcIndex < 0 || len < 0 || srcIndex > src.length - len) {
            throw new IndexOutOfBoundsException("source range " + srcIndex + "+" + len + " of " + src.length);
        }
        int i = index(offset, len);
        VarHandle.releaseFence();
        buffer.put(i, src, srcIndex, len);
    }

    @Override
    public void setMemory(long offset, long len, byte value) {
        if (len < 0 || len > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("bad length " + len);
        }
        int i = index(offset, (int) len);
        VarHandle.releaseFence();
        for (int k = 0; k < len; k++) {
            buffer.put(i + k, value);
        }
    }

    // ---- NIC side: called by SimQueuePair after it has checked keys, bounds, access and alignment ----

    /** Copies {@code len} bytes from this region at {@code srcIndex} into {@code dst} at {@code dstIndex}. */
    void nicCopyTo(int srcIndex, SimRegion dst, int dstIndex, int len) {
        if (len == Long.BYTES && ((srcIndex | dstIndex) & 7) == 0) {
            LONG.setRelease(dst.buffer, dstIndex, (long) LONG.getAcquire(buffer, srcIndex));
            return;
        }
        // The release fence keeps this request's stores after every earlier request's stores (R6); aligned
        // 8-byte units of a direct-buffer copy are copied whole (R18: no tearing inside a word).
        VarHandle.releaseFence();
        dst.buffer.put(dstIndex, buffer, srcIndex, len);
        VarHandle.acquireFence();
    }

    void nicCopyOut(int srcIndex, byte[] dst, int len) {
        buffer.get(srcIndex, dst, 0, len);
        VarHandle.acquireFence();
    }

    void nicCopyIn(int dstIndex, byte[] src, int len) {
        VarHandle.releaseFence();
        buffer.put(dstIndex, src, 0, len);
    }

    long nicCompareAndExchange(int index, long expected, long desired) {
        return (long) LONG.compareAndExchange(buffer, index, expected, desired);
    }

    long nicGetAndAdd(int index, long delta) {
        return (long) LONG.getAndAdd(buffer, index, delta);
    }

    void nicPutLong(int index, long value) {
        LONG.setRelease(buffer, index, value);
    }

    int indexOf(long addr) {
        return (int) (addr - address);
    }

    boolean allows(int flag) {
        return (access & flag) == flag;
    }

    @Override
    public String toString() {
        return "SimRegion{" + node.name() + " 0x" + Long.toHexString(address) + "/" + length + " key=" + key + ' '
            + Access.describe(access) + (registered ? "" : " deregistered") + '}';
    }
}
