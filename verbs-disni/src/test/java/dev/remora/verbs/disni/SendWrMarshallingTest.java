package dev.remora.verbs.disni;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.impl.NatIbvSendWR;
import com.ibm.disni.verbs.impl.NatIbvSge;
import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The native {@code ibv_send_wr} images, byte by byte, without a device: the marshalled buffer is plain memory. The
 * expected images are written here from the C layout's offsets (as numbers, not the provider's constants), so the
 * descriptor is checked too. DiSNI 2.1's own marshalling of the same CAS fails the same assertion, in exactly the
 * atomic fields.
 */
class SendWrMarshallingTest {
    /** A made-up native address of the image, so the {@code next} and {@code sg_list} pointers are known. */
    private static final long BASE = 0x7F3A_1200_0000L;
    private static final long LOCAL_ADDR = 0x7F3A_5555_0008L;
    private static final int LKEY = 0x0001_2345;
    private static final long REMOTE_ADDR = 0x0000_7E01_0203_0408L;
    private static final int RKEY = 0xA1B2_C3D4;
    private static final long EXPECTED = 0x1122_3344_5566_7788L;
    private static final long DESIRED = 0x99AA_BBCC_DDEE_FF01L;
    private static final long DELTA = -3L;
    private static final long WR_ID = 0x0003_0000_0000_002AL;

    private SimFabric fabric;
    private MemoryRegion region;

    @BeforeEach
    void open() {
        fabric = SimFabric.open();
        Node n = fabric.addNode("n");
        region = n.allocate(64, Access.ALL);
    }

    @AfterEach
    void close() {
        fabric.close();
    }

    private WorkRequest cas() {
        return new WorkRequest().cas(region, 0, new RemoteAddress(0, RKEY, REMOTE_ADDR), EXPECTED, DESIRED)
            .localSge(LOCAL_ADDR, 8, LKEY).remote(REMOTE_ADDR, RKEY).flags(WorkRequest.SIGNALED);
    }

    private WorkRequest faa() {
        return new WorkRequest().faa(region, 0, new RemoteAddress(0, RKEY, REMOTE_ADDR), DELTA)
            .localSge(LOCAL_ADDR, 8, LKEY).remote(REMOTE_ADDR, RKEY).flags(WorkRequest.SIGNALED | WorkRequest.FENCE);
    }

    private static byte[] marshal(WorkRequest... wrs) {
        ByteBuffer image = ByteBuffer.allocate(wrs.length * 144);
        // Garbage everywhere first: every byte the NIC may read must be written.
        for (int i = 0; i < image.capacity(); i++) {
            image.put(i, (byte) 0xEE);
        }
        new PostSendCall(image, BASE, null, 0).marshal(wrs, wrs.length, WR_ID);
        return image.array();
    }

    /** A little-endian (x86-64, aarch64) image built from the C layout: 128 bytes of ibv_send_wr, 16 of ibv_sge. */
    private static final class Image {
        final byte[] b = new byte[144];

        Image u64(int at, long v) {
            for (int i = 0; i < 8; i++) {
                b[at + i] = (byte) (v >>> 8 * i);
            }
            return this;
        }

        Image u32(int at, int v) {
            for (int i = 0; i < 4; i++) {
                b[at + i] = (byte) (v >>> 8 * i);
            }
            return this;
        }
    }

    private static Image header(long wrId, long next, int opcode, int flags) {
        return new Image().u64(0, wrId).u64(8, next).u64(16, BASE + 128).u32(24, 1).u32(28, opcode).u32(32, flags)
            .u32(36, 0).u64(128, LOCAL_ADDR).u32(136, 8).u32(140, LKEY);
    }

    /** Names the field of {@code struct ibv_send_wr} (or of the ibv_sge after it) at a byte offset. */
    private static String field(int offset) {
        int[] starts = {0, 8, 16, 24, 28, 32, 36, 40, 48, 56, 64, 68, 72, 80, 128, 136, 140};
        String[] names = {"wr_id", "next", "sg_list", "num_sge", "opcode", "send_flags", "imm_data",
            "wr.atomic.remote_addr", "wr.atomic.compare_add (wr.rdma.rkey)", "wr.atomic.swap", "wr.atomic.rkey",
            "wr padding", "qp_type.xrc", "bind_mw/tso", "sge.addr", "sge.length", "sge.lkey"};
        int k = 0;
        for (int i = 0; i < starts.length; i++) {
            if (offset >= starts[i]) {
                k = i;
            }
        }
        return names[k] + " (byte " + offset + ")";
    }

    /** Asserts every byte, naming the first field that differs. */
    private static void assertImage(byte[] expected, byte[] actual, int from, int length) {
        for (int i = 0; i < length; i++) {
            if (expected[i] != actual[from + i]) {
                fail("byte " + i + " of the image, in " + field(i) + ": expected 0x"
                    + Integer.toHexString(expected[i] & 0xFF) + ", got 0x" + Integer.toHexString(actual[from + i] & 0xFF));
            }
        }
    }

    @Test
    void shouldMarshalACompareAndSwapWithEveryByteOfTheAtomicMember() {
        assertEquals(ByteOrder.LITTLE_ENDIAN, ByteOrder.nativeOrder(), "the images below are little-endian");
        byte[] expected = header(WR_ID, 0, 5, 2).u64(40, REMOTE_ADDR).u64(48, EXPECTED).u64(56, DESIRED)
            .u32(64, RKEY).b;
        byte[] got = marshal(cas());
        assertImage(expected, got, 0, 144);
    }

    @Test
    void shouldMarshalAFetchAndAddWithItsAddendAndAZeroSwap() {
        byte[] expected = header(WR_ID, 0, 6, 2 | 1).u64(40, REMOTE_ADDR).u64(48, DELTA).u64(56, 0).u32(64, RKEY).b;
        assertImage(expected, marshal(faa()), 0, 144);
    }

    @Test
    void shouldMarshalAReadWithTheRdmaMemberAndChainAList() {
        WorkRequest read = new WorkRequest().read(region, 0, 16, new RemoteAddress(0, RKEY, REMOTE_ADDR))
            .localSge(LOCAL_ADDR, 16, LKEY).remote(REMOTE_ADDR, RKEY).flags(0);
        byte[] got = marshal(read, cas());
        byte[] first = header(WR_ID, BASE + 144, 4, 0).u64(40, REMOTE_ADDR).u32(48, RKEY).u32(136, 16).b;
        assertImage(first, got, 0, 144);
        Image second = new Image().u64(0, WR_ID + 1).u64(8, 0).u64(16, BASE + 144 + 128).u32(24, 1).u32(28, 5)
            .u32(32, 2).u64(40, REMOTE_ADDR).u64(48, EXPECTED).u64(56, DESIRED).u32(64, RKEY).u64(128, LOCAL_ADDR)
            .u32(136, 8).u32(140, LKEY);
        assertImage(second.b, got, 144, 144);
    }

    /** DiSNI 2.1's marshalling of the same CAS, as {@code NatPostSendCall} does it: 72-byte request, then the sge. */
    private static byte[] disniImage() {
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(WR_ID);
        wr.setOpcode(IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        IbvSge sge = new IbvSge();
        sge.setAddr(LOCAL_ADDR);
        sge.setLength(8);
        sge.setLkey(LKEY);
        LinkedList<IbvSge> sges = new LinkedList<>(List.of(sge));
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        // A DiSNI user sets both members: rdma is what DiSNI writes, atomic what the NIC should read.
        wr.getRdma().setRemote_addr(REMOTE_ADDR);
        wr.getRdma().setRkey(RKEY);
        wr.getAtomic().setRemote_addr(REMOTE_ADDR);
        wr.getAtomic().setCompare_add(EXPECTED);
        wr.getAtomic().setSwap(DESIRED);
        wr.getAtomic().setRkey(RKEY);
        NatIbvSge natSge = new NatIbvSge(null, sge);
        NatIbvSendWR nat = new NatIbvSendWR(null, new NatIbvSendWR.NatRdma(wr.getRdma(), null), wr,
            new LinkedList<>(List.of(natSge)));
        nat.setNext(0);
        nat.setPtr_sge_list(BASE + NatIbvSendWR.CSIZE);
        ByteBuffer buf = ByteBuffer.allocate(144).order(ByteOrder.nativeOrder());
        nat.writeBack(buf);
        natSge.writeBack(buf);
        return buf.array();
    }

    private static Map<String, Long> atomicFields(byte[] image) {
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("wr_id", b.getLong(0));
        m.put("opcode", (long) b.getInt(28));
        m.put("send_flags", (long) b.getInt(32));
        m.put("wr.atomic.remote_addr", b.getLong(40));
        m.put("wr.atomic.compare_add", b.getLong(48));
        m.put("wr.atomic.swap", b.getLong(56));
        m.put("wr.atomic.rkey", (long) b.getInt(64));
        return m;
    }

    @Test
    void shouldShowThatDisnisOwnMarshallingLosesTheAtomicOperands() {
        byte[] expected = header(WR_ID, 0, 5, 2).u64(40, REMOTE_ADDR).u64(48, EXPECTED).u64(56, DESIRED)
            .u32(64, RKEY).b;
        byte[] disni = disniImage();
        // The same image with DiSNI's placement of the sge (right after its 72-byte request): the byte-by-byte
        // assertion that the provider's marshalling passes fails on DiSNI's, first at compare_add.
        byte[] expectedInDisniLayout = header(WR_ID, 0, 5, 2).u64(16, BASE + 72).u64(40, REMOTE_ADDR)
            .u64(48, EXPECTED).u64(56, DESIRED).u32(64, RKEY).b;
        AssertionError e = assertThrows(AssertionError.class,
            () -> assertImage(expectedInDisniLayout, disni, 0, IbvSendWrDescriptor.WR_UNION_END));
        assertEquals(true, e.getMessage().startsWith("byte 48 of the image, in wr.atomic.compare_add"), e.getMessage());
        // Exactly the defect: compare_add holds the rkey, swap and atomic.rkey are 0; the rest is right.
        Map<String, Long> want = atomicFields(expected);
        want.put("wr.atomic.compare_add", RKEY & 0xFFFF_FFFFL);
        want.put("wr.atomic.swap", 0L);
        want.put("wr.atomic.rkey", 0L);
        assertEquals(want, atomicFields(disni));
        assertImage(expected, marshal(cas()), 0, 144);
    }

    @Test
    void shouldMapEveryFlag() {
        assertEquals(0, PostSendCall.nativeFlags(0));
        assertEquals(2, PostSendCall.nativeFlags(WorkRequest.SIGNALED));
        assertEquals(1, PostSendCall.nativeFlags(WorkRequest.FENCE));
        assertEquals(8, PostSendCall.nativeFlags(WorkRequest.INLINE));
        assertEquals(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_FENCE | IbvSendWR.IBV_SEND_INLINE,
            PostSendCall.nativeFlags(WorkRequest.SIGNALED | WorkRequest.FENCE | WorkRequest.INLINE));
    }
}
