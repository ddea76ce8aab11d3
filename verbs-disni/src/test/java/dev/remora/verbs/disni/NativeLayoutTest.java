package dev.remora.verbs.disni;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NativeLayoutTest {

    @Test
    void shouldAcceptTheLayoutOfRdmaCore() {
        NativeLayout rdmaCore = new NativeLayout(128, 32, 16, 48, 40, 48, 32);
        assertEquals(List.of(), rdmaCore.mismatches());
        rdmaCore.verify();
    }

    @Test
    void shouldFailFastNamingEveryFieldThatDiffers() {
        // DiSNI's own Java side assumes a 72-byte ibv_send_wr; a libdisni built for another ABI reports others.
        NativeLayout odd = new NativeLayout(72, 32, 16, 40, 40, 48, 31);
        IllegalStateException e = assertThrows(IllegalStateException.class, odd::verify);
        assertTrue(e.getMessage().contains("sizeof(struct ibv_send_wr) is 72 in libdisni, 128 in the Java mirror"),
            e.getMessage());
        assertTrue(e.getMessage().contains("sizeof(struct ibv_wc) is 40 in libdisni, 48 in the Java mirror"),
            e.getMessage());
        assertTrue(e.getMessage().contains("libdisni JNI version is 31 in libdisni, 32"), e.getMessage());
        assertEquals(3, odd.mismatches().size());
    }

    @Test
    void shouldMapEveryIbvWcStatus() {
        WcStatus[] want = {WcStatus.SUCCESS, WcStatus.LOC_LEN_ERR, WcStatus.LOC_PROT_ERR, WcStatus.GENERAL_ERR,
            WcStatus.LOC_PROT_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.GENERAL_ERR, WcStatus.GENERAL_ERR,
            WcStatus.LOC_PROT_ERR, WcStatus.REM_INV_REQ_ERR, WcStatus.REM_ACCESS_ERR, WcStatus.REM_OP_ERR,
            WcStatus.RETRY_EXC_ERR, WcStatus.RNR_RETRY_EXC_ERR, WcStatus.GENERAL_ERR, WcStatus.REM_INV_REQ_ERR,
            WcStatus.REM_OP_ERR, WcStatus.GENERAL_ERR, WcStatus.GENERAL_ERR, WcStatus.GENERAL_ERR,
            WcStatus.RETRY_EXC_ERR, WcStatus.GENERAL_ERR, WcStatus.GENERAL_ERR, WcStatus.GENERAL_ERR};
        for (int s = 0; s < want.length; s++) {
            assertEquals(want[s], IbvWcDescriptor.status(s), "ibv_wc_status " + s);
        }
        assertEquals(WcStatus.GENERAL_ERR, IbvWcDescriptor.status(99));
        assertEquals(WcStatus.GENERAL_ERR, IbvWcDescriptor.status(-1));
        assertEquals(0, IbvWcDescriptor.vendorDetail(0, 0x1234));
        assertEquals(12 << 24 | 0x81, IbvWcDescriptor.vendorDetail(12, 0x81));
    }

    @Test
    void shouldMapOpcodesToIbvWrOpcode() {
        assertEquals(0, IbvWcDescriptor.wrOpcode(Opcode.WRITE));
        assertEquals(2, IbvWcDescriptor.wrOpcode(Opcode.SEND));
        assertEquals(4, IbvWcDescriptor.wrOpcode(Opcode.READ));
        assertEquals(5, IbvWcDescriptor.wrOpcode(Opcode.CAS));
        assertEquals(6, IbvWcDescriptor.wrOpcode(Opcode.FETCH_ADD));
        assertThrows(IllegalArgumentException.class, () -> IbvWcDescriptor.wrOpcode(Opcode.RECV));
    }
}
