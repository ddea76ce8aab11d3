package dev.remora.verbs.disni;

import java.util.ArrayList;
import java.util.List;

/**
 * The struct layout libdisni reports ({@code sizeof} and {@code offsetof} as its C compiler saw
 * {@code <infiniband/verbs.h>}), checked against this provider's Java mirrors when it loads: a mismatch fails fast,
 * naming each field, instead of posting requests the NIC would misread.
 *
 * @param sendWrSize {@code sizeof(struct ibv_send_wr)}
 * @param recvWrSize {@code sizeof(struct ibv_recv_wr)}
 * @param sgeSize {@code sizeof(struct ibv_sge)}
 * @param wcSize {@code sizeof(struct ibv_wc)}
 * @param remoteAddrOffset {@code offsetof(struct ibv_send_wr, wr.rdma.remote_addr)}
 * @param rkeyOffset {@code offsetof(struct ibv_send_wr, wr.rdma.rkey)}
 * @param jniVersion libdisni's {@code JVERBS_JNI_VERSION}
 */
record NativeLayout(int sendWrSize, int recvWrSize, int sgeSize, int wcSize, int remoteAddrOffset, int rkeyOffset,
                    int jniVersion) {
    /** The libdisni interface version DiSNI 2.1's Java side expects. */
    static final int JNI_VERSION = 32;

    /** What the mirrors assume. */
    static final NativeLayout EXPECTED = new NativeLayout(IbvSendWrDescriptor.SIZE, IbvRecvWrDescriptor.SIZE,
        IbvSgeDescriptor.SIZE, IbvWcDescriptor.SIZE, IbvSendWrDescriptor.REMOTE_ADDR, IbvSendWrDescriptor.RDMA_RKEY,
        JNI_VERSION);

    /**
     * Compares this (reported) layout with the mirrors.
     *
     * @return one line per mismatch, empty if they agree
     */
    List<String> mismatches() {
        List<String> m = new ArrayList<>();
        check(m, "sizeof(struct ibv_send_wr)", sendWrSize, EXPECTED.sendWrSize);
        check(m, "sizeof(struct ibv_recv_wr)", recvWrSize, EXPECTED.recvWrSize);
        check(m, "sizeof(struct ibv_sge)", sgeSize, EXPECTED.sgeSize);
        check(m, "sizeof(struct ibv_wc)", wcSize, EXPECTED.wcSize);
        check(m, "offsetof(struct ibv_send_wr, wr.rdma.remote_addr)", remoteAddrOffset, EXPECTED.remoteAddrOffset);
        check(m, "offsetof(struct ibv_send_wr, wr.rdma.rkey)", rkeyOffset, EXPECTED.rkeyOffset);
        check(m, "libdisni JNI version", jniVersion, EXPECTED.jniVersion);
        return m;
    }

    private static void check(List<String> m, String what, int reported, int expected) {
        if (reported != expected) {
            m.add(what + " is " + reported + " in libdisni, " + expected + " in the Java mirror");
        }
    }

    /**
     * Fails fast on a mismatch.
     *
     * @throws IllegalStateException naming every field that differs
     */
    void verify() {
        List<String> m = mismatches();
        if (!m.isEmpty()) {
            throw new IllegalStateException("libdisni was built against an ibverbs layout this provider does not "
                + "mirror: " + String.join("; ", m) + " (rebuild libdisni against rdma-core's verbs.h, see "
                + "docs/hardware.md)");
        }
    }
}
