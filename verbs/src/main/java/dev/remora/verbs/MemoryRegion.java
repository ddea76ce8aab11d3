package dev.remora.verbs;

/**
 * A registered memory region: the Java mirror of {@code struct ibv_mr}, plus the owning CPU's access to it.
 *
 * <pre>
 * struct ibv_mr {
 *     struct ibv_context *context;
 *     struct ibv_pd      *pd;
 *     void               *addr;     // address()
 *     size_t              length;   // length()
 *     uint32_t            handle;
 *     uint32_t            lkey;     // lkey()
 *     uint32_t            rkey;     // rkey()
 * };
 * </pre>
 *
 * <h2>Local (CPU) access</h2>
 * The owning node's threads read and write the region only through these methods, never through a raw buffer, so
 * that a deterministic fabric can see and schedule every access. Offsets are relative to the region's start.
 * Plain accessors ({@link #getLong}, {@link #putLong}) have x86-TSO semantics (docs/memory-model.md R1): a load is
 * ordered after earlier loads, a store after earlier loads and stores, but a load may pass an earlier store to
 * another location. {@code …Volatile} accessors and the read-modify-writes are sequentially consistent (a locked
 * instruction, or a store followed by {@code mfence}). The NIC does not see CPU accesses atomically with respect to
 * its own atomics (R14): a CPU {@link #compareAndSetLong} and a remote CAS on the same word can both "succeed".
 *
 * <p>8-byte accesses at 8-byte-aligned offsets never tear, against each other or against the NIC (R18); the
 * read-modify-write accessors require such offsets and throw {@link IllegalArgumentException} otherwise.
 * Accesses outside the region throw {@link IndexOutOfBoundsException}; accesses after {@link #deregister()} throw
 * {@link IllegalStateException}. A region pins its memory until it is deregistered: {@link #close()} deregisters it,
 * so try-with-resources frees it.
 */
public interface MemoryRegion extends AutoCloseable {

    /** @return the owning node */
    Node node();

    /** @return the base virtual address of the region on its node */
    long address();

    /** @return the length in bytes */
    long length();

    /** @return the local key, named by work requests whose local buffer lies in this region */
    int lkey();

    /** @return the remote key, named by peers' one-sided verbs */
    int rkey();

    /** @return the access flags (see {@link Access}) */
    int access();

    /** @return whether the region is still registered */
    boolean isRegistered();

    /**
     * Deregisters the region ({@code ibv_dereg_mr}): later remote accesses with its rkey complete with
     * {@link WcStatus#REM_ACCESS_ERR}, later local uses of its lkey with {@link WcStatus#LOC_PROT_ERR}.
     * Idempotent.
     */
    void deregister();

    /** Deregisters the region: {@link #deregister()}, for try-with-resources. Idempotent. */
    @Override
    default void close() {
        deregister();
    }

    /**
     * What a peer needs to address this region.
     *
     * @return node, rkey, base address and length
     */
    default RemoteRegion toRemote() {
        return new RemoteRegion(node().id(), rkey(), address(), length());
    }

    /**
     * The remote address of the byte at {@code offset}.
     *
     * @param offset byte offset in the region
     * @return the address a peer would use
     */
    default RemoteAddress remote(long offset) {
        return toRemote().at(offset);
    }

    /**
     * TSO load of the 8-byte word at {@code offset}.
     *
     * @param offset byte offset
     * @return the value
     */
    long getLong(long offset);

    /**
     * TSO store of the 8-byte word at {@code offset} (it may sit in the store buffer: R1, R5).
     *
     * @param offset byte offset
     * @param value the value
     */
    void putLong(long offset, long value);

    /**
     * Sequentially consistent load.
     *
     * @param offset byte offset, 8-byte aligned
     * @return the value
     */
    long getLongVolatile(long offset);

    /**
     * Sequentially consistent store (store, then {@code mfence}).
     *
     * @param offset byte offset, 8-byte aligned
     * @param value the value
     */
    void putLongVolatile(long offset, long value);

    /**
     * CPU compare-and-set ({@code lock cmpxchg}). Not atomic against remote atomics under
     * {@code IBV_ATOMIC_HCA} (R14, litmus L16).
     *
     * @param offset byte offset, 8-byte aligned
     * @param expected expected value
     * @param desired new value
     * @return whether the word was {@code expected} and is now {@code desired}
     */
    boolean compareAndSetLong(long offset, long expected, long desired);

    /**
     * CPU fetch-and-add ({@code lock xadd}). Not atomic against remote atomics under {@code IBV_ATOMIC_HCA} (R14).
     *
     * @param offset byte offset, 8-byte aligned
     * @param delta addend
     * @return the previous value
     */
    long getAndAddLong(long offset, long delta);

    /**
     * TSO load of a 4-byte int.
     *
     * @param offset byte offset
     * @return the value
     */
    int getInt(long offset);

    /**
     * TSO store of a 4-byte int.
     *
     * @param offset byte offset
     * @param value the value
     */
    void putInt(long offset, int value);

    /**
     * Copies bytes out of the region. Not atomic beyond aligned 8-byte words.
     *
     * @param offset byte offset in the region
     * @param dst destination array
     * @param dstIndex first index written in {@code dst}
     * @param length number of bytes
     */
    void getBytes(long offset, byte[] dst, int dstIndex, int length);

    /**
     * Copies bytes into the region. Not atomic beyond aligned 8-byte words.
     *
     * @param offset byte offset in the region
     * @param src source array
     * @param srcIndex first index read in {@code src}
     * @param length number of bytes
     */
    void putBytes(long offset, byte[] src, int srcIndex, int length);

    /**
     * Fills a range with a byte value.
     *
     * @param offset byte offset
     * @param length number of bytes
     * @param value the byte value
     */
    void setMemory(long offset, long length, byte value);
}
