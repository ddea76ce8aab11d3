package dev.remora.verbs.disni;

/**
 * The native image of {@code struct ibv_sge} ({@code <infiniband/verbs.h>}, x86-64 and aarch64, LP64), as this
 * provider writes it after each {@code ibv_send_wr} and {@code ibv_recv_wr}:
 *
 * <pre>
 * struct ibv_sge {
 *     uint64_t addr;     //  0
 *     uint32_t length;   //  8
 *     uint32_t lkey;     // 12
 * };                     // sizeof 16
 *
 *  0        8        12       16
 *  +--------+--------+--------+
 *  | addr   | length | lkey   |
 *  +--------+--------+--------+
 * </pre>
 *
 * Checked against {@code sizeof(struct ibv_sge)} as libdisni was compiled when the provider loads
 * ({@link NativeLayout}).
 */
final class IbvSgeDescriptor {
    /** {@code addr}: the local buffer's virtual address. */
    static final int ADDR = 0;
    /** {@code length}: bytes. */
    static final int LENGTH = 8;
    /** {@code lkey}: the local key of the region holding the buffer. */
    static final int LKEY = 12;
    /** {@code sizeof(struct ibv_sge)}. */
    static final int SIZE = 16;

    private IbvSgeDescriptor() {
    }
}
