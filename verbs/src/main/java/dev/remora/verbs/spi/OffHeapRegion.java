package dev.remora.verbs.spi;

import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A registered region in off-heap memory of this process, for providers: a direct {@link ByteBuffer} accessed through
 * byte-buffer view {@link VarHandle}s in native byte order.
 *
 * <p>CPU accessors implement the TSO contract of {@link MemoryRegion}: loads are acquire loads, stores are release
 * stores (what x86 gives every plain access), {@code …Volatile} and the read-modify-writes are volatile. NIC-side
 * accessors ({@code nic…}) are for the provider's NIC, after it has checked keys, bounds, access and alignment; they
 * take indexes into the region.
 */
public abstract class OffHeapRegion implements MemoryRegion {
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int key;
    private final int access;
    private volatile boolean registered = true;

    /**
     * @param buffer the memory, a direct buffer whose capacity is the region's length
     * @param address the base virtual address
     * @param key the local and remote key
     * @param access flags from {@link dev.remora.verbs.Access}
     */
    protected OffHeapRegion(ByteBuffer buffer, long address, int key, int access) {
        this.buffer = buffer;
        this.address = address;
        this.length = buffer.capacity();
        this.key = key;
        this.access = access;
    }

    /**
     * Allocates the zeroed, 8-byte-aligned off-heap memory of {@link dev.remora.verbs.Node#allocate}.
     *
     * @param lengthBytes the length asked for, rounded up to a multiple of 8
     * @return a direct buffer in native byte order
     * @throws IllegalArgumentException if the length is not in 1 .. {@code Integer.MAX_VALUE - 8}
     */
    public static ByteBuffer allocateBuffer(long lengthBytes) {
        if (lengthBytes <= 0 || lengthBytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("region length must be in 1.." + (Integer.MAX_VALUE - 8) + ": "
                + lengthBytes);
        }
        int len = (int) ((lengthBytes + 7) & ~7L);
        return ByteBuffer.allocateDirect(len).order(java.nio.ByteOrder.nativeOrder());
    }

    /**
     * Checks a caller's buffer as {@link dev.remora.verbs.Node#register} documents it.
     *
     * @param directBuffer the buffer
     * @return the slice between its position and limit, in native byte order
     * @throws IllegalArgumentException if it is not direct, empty, or not 8-byte aligned at its position
     */
    public static ByteBuffer registrable(ByteBuffer directBuffer) {
        java.util.Objects.requireNonNull(directBuffer, "buffer");
        if (!directBuffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered");
        }
        if (directBuffer.remaining() == 0) {
            throw new IllegalArgumentException("cannot register an empty buffer");
        }
        int misalignment = directBuffer.alignmentOffset(directBuffer.position(), Long.BYTES);
        if (misalignment != 0) {
            // The region's address is page-aligned, so its word offsets must be aligned in native memory too, or
            // the CPU's aligned accessors and the NIC's atomics on them fail.
            throw new IllegalArgumentException("cannot register a buffer whose position " + directBuffer.position()
                + " is " + misalignment + " bytes past an 8-byte-aligned native address: regions start 8-byte "
                + "aligned; slice the buffer where alignmentOffset(index, 8) == 0");
        }
        return directBuffer.slice().order(java.nio.ByteOrder.nativeOrder());
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
            forget();
        }
    }

    /** Called once by {@link #deregister()}: the provider forgets the region's key. */
    protected abstract void forget();

    public int key() {
        return key;
    }

    /**
     * Whether {@code [addr, addr + len)} lies inside this region.
     */
    public boolean contains(long addr, long len) {
        return addr >= address && len >= 0 && addr - address <= length - len;
    }

    private int index(long offset, int size) {
        if (!registered) {
            throw new IllegalStateException("region 0x" + Long.toHexString(address) + " of node " + node().name()
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
    public void nicCopyTo(int srcIndex, OffHeapRegion dst, int dstIndex, int len) {
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

    public void nicCopyOut(int srcIndex, byte[] dst, int len) {
        buffer.get(srcIndex, dst, 0, len);
        VarHandle.acquireFence();
    }

    public void nicCopyIn(int dstIndex, byte[] src, int len) {
        VarHandle.releaseFence();
        buffer.put(dstIndex, src, 0, len);
    }

    /** Copies {@code len} bytes from this region at {@code srcIndex} into {@code dst} at its position, advancing it. */
    public void nicCopyOut(int srcIndex, ByteBuffer dst, int len) {
        dst.put(dst.position(), buffer, srcIndex, len);
        dst.position(dst.position() + len);
        VarHandle.acquireFence();
    }

    /** Copies {@code len} bytes from {@code src} at its position into this region at {@code dstIndex}, advancing it. */
    public void nicCopyIn(int dstIndex, ByteBuffer src, int len) {
        // The release fence keeps this request's stores after every earlier request's stores (R6).
        VarHandle.releaseFence();
        buffer.put(dstIndex, src, src.position(), len);
        src.position(src.position() + len);
    }

    public long nicCompareAndExchange(int index, long expected, long desired) {
        return (long) LONG.compareAndExchange(buffer, index, expected, desired);
    }

    public long nicGetAndAdd(int index, long delta) {
        return (long) LONG.getAndAdd(buffer, index, delta);
    }

    public void nicPutLong(int index, long value) {
        LONG.setRelease(buffer, index, value);
    }

    public int indexOf(long addr) {
        return (int) (addr - address);
    }

    public boolean allows(int flag) {
        return (access & flag) == flag;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + node().name() + " 0x" + Long.toHexString(address) + "/" + length
            + " key=" + key + ' ' + Access.describe(access) + (registered ? "" : " deregistered") + '}';
    }
}
