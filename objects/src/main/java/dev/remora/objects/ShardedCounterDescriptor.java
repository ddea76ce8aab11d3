package dev.remora.objects;

/**
 * Layout of a {@link ShardedCounter}: on each home node, one region holding that node's shards, each 8-byte shard word
 * alone on its own 64-byte cache line, so that FETCH_ADDs to different shards never contend for a line and one READ
 * of {@link #readLength(int)} bytes from shard 0 returns every shard of the node.
 *
 * <pre>
 *  home node h (one region; base = its first 64-byte-aligned address, see {@link #alignmentPadding(long)})
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |        shard (h, 0): int64, native byte order                 |  base + 0
 *  +---------------------------------------------------------------+
 *  |        padding (56 bytes, never written)                      |  base + 8 .. 63
 *  +---------------------------------------------------------------+
 *  |        shard (h, 1)                                           |  base + 64
 *  +---------------------------------------------------------------+
 *  |        padding                                                |
 *  +---------------------------------------------------------------+
 *  |        ...  shard (h, k) at base + 64 k, k &lt; shardsPerHome    |
 *  +---------------------------------------------------------------+
 *
 *  global shard index i = h * shardsPerHome + k;  the counter's value = the sum of every shard word
 *  a read of node h: one READ of 64 (shardsPerHome - 1) + 8 bytes at base (each shard word moves whole: R18)
 * </pre>
 *
 * Every region needs {@code REMOTE_ATOMIC} (increments), {@code REMOTE_READ} (reads) and {@code LOCAL_WRITE}.
 */
public final class ShardedCounterDescriptor {
    /** Bytes between consecutive shards: one cache line. */
    public static final int SHARD_STRIDE = 64;
    /** Bytes of a shard word. */
    public static final int SHARD_BYTES = 8;
    /** Alignment of a home's first shard (a cache line), so that every shard starts a line. */
    public static final int ALIGNMENT = 64;

    private ShardedCounterDescriptor() {
    }

    /**
     * @param k a shard's index on its home node
     * @return its offset from the home's base
     */
    public static long shardOffset(int k) {
        return (long) k * SHARD_STRIDE;
    }

    /**
     * @param shardsPerHome shards on one home node
     * @return bytes from the base that one READ of all of a node's shards covers
     */
    public static int readLength(int shardsPerHome) {
        return (shardsPerHome - 1) * SHARD_STRIDE + SHARD_BYTES;
    }

    /**
     * @param shardsPerHome shards on one home node
     * @return bytes to allocate for one home: the shards plus room to move the base up to a cache line
     */
    public static int allocationLength(int shardsPerHome) {
        return shardsPerHome * SHARD_STRIDE + ALIGNMENT - SHARD_BYTES;
    }

    /**
     * @param address the (8-byte-aligned) remote address of an allocated region's first byte
     * @return bytes to skip so that the base is 64-byte aligned
     */
    public static int alignmentPadding(long address) {
        return (int) (-address & (ALIGNMENT - 1));
    }
}
