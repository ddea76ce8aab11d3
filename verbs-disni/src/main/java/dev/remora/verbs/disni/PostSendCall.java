package dev.remora.verbs.disni;

import com.ibm.disni.verbs.StatefulVerbCall;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.WorkRequest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.remora.verbs.disni.IbvSendWrDescriptor.ATOMIC_COMPARE_ADD;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.ATOMIC_RKEY;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.ATOMIC_SWAP;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.NEXT;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.NUM_SGE;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.OPCODE;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.RDMA_RKEY;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.REMOTE_ADDR;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.SEND_FLAGS;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.SG_LIST;
import static dev.remora.verbs.disni.IbvSendWrDescriptor.WR_ID;

/**
 * A reusable {@code ibv_post_send}: a DiSNI stateful verb call whose marshalling is this provider's own. One per
 * queue pair, made once; each post rewrites its images in place and calls libdisni's {@code _postSend}, so the hot
 * path allocates nothing.
 *
 * <p>It replaces DiSNI's {@code SVCPostSend} because DiSNI 2.1 never writes the {@code atomic} member of the
 * request's union (see {@link IbvSendWrDescriptor}): here every request's {@value IbvSendWrDescriptor#SIZE}-byte
 * image is written whole, with the union member its opcode selects, followed by its one scatter/gather element:
 *
 * <pre>
 *  image:  [ ibv_send_wr 0 | ibv_sge 0 ][ ibv_send_wr 1 | ibv_sge 1 ] ...   stride 144 bytes
 *          wr i: next = base + (i + 1) * 144 (NULL for the last), sg_list = base + i * 144 + 128
 * </pre>
 *
 * Not thread-safe: the queue pair posts under its lock.
 */
final class PostSendCall implements StatefulVerbCall<PostSendCall> {
    /** Bytes per request: its {@code ibv_send_wr} and its {@code ibv_sge}. */
    static final int STRIDE = IbvSendWrDescriptor.SIZE + IbvSgeDescriptor.SIZE;

    private final ByteBuffer image;
    private final long base;
    private final int capacity;
    private final VerbsNatives natives;
    private final long qpHandle;
    private int count;
    private boolean valid = true;

    /**
     * @param image where the images are written: {@code capacity * STRIDE} bytes, direct for a real post
     * @param base the native address of {@code image}'s first byte (what the {@code next} and {@code sg_list}
     *     pointers are computed from)
     * @param natives libdisni, or null for a call that is only marshalled (tests)
     * @param qpHandle libdisni's handle of the queue pair ({@code struct ibv_qp *})
     */
    PostSendCall(ByteBuffer image, long base, VerbsNatives natives, long qpHandle) {
        this.image = image.order(ByteOrder.nativeOrder());
        this.base = base;
        this.capacity = image.capacity() / STRIDE;
        this.natives = natives;
        this.qpHandle = qpHandle;
    }

    /** @return how many requests one call can carry */
    int capacity() {
        return capacity;
    }

    /** @return the buffer the images are written to */
    ByteBuffer image() {
        return image;
    }

    /**
     * Writes the images of a list of requests.
     *
     * @param wrs the requests, checked by the caller ({@link dev.remora.verbs.spi.WorkRequestChecks})
     * @param n how many of them
     * @param firstWrId the native {@code wr_id} of the first; the others follow it by one each
     * @return this
     */
    PostSendCall marshal(WorkRequest[] wrs, int n, long firstWrId) {
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("a post carries 1.." + capacity + " requests, not " + n);
        }
        for (int i = 0; i < n; i++) {
            write(i, wrs[i], firstWrId + i, i == n - 1);
        }
        count = n;
        return this;
    }

    /**
     * Writes one request's image and its scatter/gather element.
     *
     * @param i its index in the list
     * @param wr the request
     * @param wrId its native {@code wr_id}
     * @param last whether it ends the list ({@code next} NULL)
     */
    void write(int i, WorkRequest wr, long wrId, boolean last) {
        int at = i * STRIDE;
        for (int o = 0; o < IbvSendWrDescriptor.SIZE; o += Long.BYTES) {
            image.putLong(at + o, 0L); // imm_data, the unused union bytes, qp_type and bind_mw/tso are zero
        }
        int sge = at + IbvSendWrDescriptor.SIZE;
        boolean hasSge = wr.length() > 0;
        image.putLong(at + WR_ID, wrId);
        image.putLong(at + NEXT, last ? 0L : base + at + STRIDE);
        image.putLong(at + SG_LIST, hasSge ? base + sge : 0L);
        image.putInt(at + NUM_SGE, hasSge ? 1 : 0);
        Opcode op = wr.opcode();
        image.putInt(at + OPCODE, IbvWcDescriptor.wrOpcode(op));
        image.putInt(at + SEND_FLAGS, nativeFlags(wr.flags()));
        switch (op) {
            case READ, WRITE -> {
                image.putLong(at + REMOTE_ADDR, wr.remoteAddress());
                image.putInt(at + RDMA_RKEY, wr.rkey());
            }
            case CAS, FETCH_ADD -> {
                // The atomic member, which DiSNI's own marshalling never writes: compare_add is the compared value
                // of a CAS and the addend of a FETCH_ADD, swap the swapped-in value (0 for FETCH_ADD).
                image.putLong(at + REMOTE_ADDR, wr.remoteAddress());
                image.putLong(at + ATOMIC_COMPARE_ADD, wr.compareAdd());
                image.putLong(at + ATOMIC_SWAP, op == Opcode.CAS ? wr.swap() : 0L);
                image.putInt(at + ATOMIC_RKEY, wr.rkey());
            }
            default -> {
                // SEND: no remote address
            }
        }
        image.putLong(sge + IbvSgeDescriptor.ADDR, hasSge ? wr.localAddress() : 0L);
        image.putInt(sge + IbvSgeDescriptor.LENGTH, hasSge ? wr.length() : 0);
        image.putInt(sge + IbvSgeDescriptor.LKEY, hasSge ? wr.lkey() : 0);
    }

    /**
     * The {@code ibv_send_flags} of the API's flags.
     *
     * @param flags {@link WorkRequest#SIGNALED}, {@link WorkRequest#FENCE}, {@link WorkRequest#INLINE}
     * @return the native flags
     */
    static int nativeFlags(int flags) {
        int f = 0;
        if ((flags & WorkRequest.SIGNALED) != 0) {
            f |= IbvSendWrDescriptor.IBV_SEND_SIGNALED;
        }
        if ((flags & WorkRequest.FENCE) != 0) {
            f |= IbvSendWrDescriptor.IBV_SEND_FENCE;
        }
        if ((flags & WorkRequest.INLINE) != 0) {
            f |= IbvSendWrDescriptor.IBV_SEND_INLINE;
        }
        return f;
    }

    /** @return how many requests the last {@link #marshal} wrote */
    int count() {
        return count;
    }

    /**
     * Posts the marshalled list: {@code ibv_post_send(qp, base, &bad_wr)} through libdisni.
     *
     * @return this
     * @throws IOException if {@code ibv_post_send} refused the list (its {@code errno} in the message)
     */
    @Override
    public PostSendCall execute() throws IOException {
        if (!valid) {
            throw new IOException("post-send call was freed");
        }
        natives.postSend(qpHandle, base);
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public PostSendCall free() {
        valid = false;
        return this;
    }
}
