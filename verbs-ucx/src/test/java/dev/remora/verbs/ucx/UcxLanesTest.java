package dev.remora.verbs.ucx;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reading of {@code ucp_ep_print_info} that decides how WRITEs are ordered ({@link UcxContext.Ordering#AUTO}):
 * lanes that carry requests are counted, lanes for wire-up or keepalive only are not. The texts are what UCX 1.13.1
 * printed here (no UCX needed to run this).
 */
class UcxLanesTest {
    private static final String TCP_TWO_DEVICES = """
        #
        # UCP endpoint
        #
        #               peer: <no debug data>
        #                 lane[0]:  1:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] rma_bw#0 am am_bw#0
        #                 lane[1]:  0:tcp/eth0.0 md[0]              -> md[0]/tcp/sysdev[255] rma_bw#1 wireup
        #
        #                  rma_bw: mds [0] rndv_rkey_size 10
        """;
    private static final String TCP_ONE_RAIL = """
        #                 lane[0]:  1:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] am am_bw#0 keepalive wireup
        #
        #                 am_send: 0..<egr/short>..8185..<egr/zcopy>..(inf)
        """;
    private static final String SHM = """
        #                 lane[0]:  0:sysv/memory.0 md[0]           -> md[0]/sysv/sysdev[255] amo#0 am am_bw#0 keepalive
        #                 lane[1]:  1:posix/memory.0 md[1]          -> md[1]/posix/sysdev[255] amo#1
        #
        #                  put[0]: 0..<short>..4294967296..<bcopy>..(inf)
        """;
    private static final String WIREUP_ONLY = """
        #                 lane[0]:  0:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] wireup
        """;

    @Test
    void shouldCountTheLanesThatCarryRequests() {
        assertEquals(2, Ucx.requestLanes(TCP_TWO_DEVICES), "RMA over lo and eth0: a fence cannot order them");
        assertEquals(1, Ucx.requestLanes(TCP_ONE_RAIL));
        assertEquals(2, Ucx.requestLanes(SHM), "sysv carries AMs and atomics, posix atomics");
        assertEquals(0, Ucx.requestLanes(WIREUP_ONLY));
        assertEquals(0, Ucx.requestLanes(""));
    }
}
