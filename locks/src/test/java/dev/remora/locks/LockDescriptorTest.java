package dev.remora.locks;

import dev.remora.verbs.RemoteAddress;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The packing helpers of the lock layouts. */
class LockDescriptorTest {

    @Test
    void shouldPackAndUnpackACasSpinLockWordAndWrapItsStamp() {
        long w = CasSpinLockDescriptor.word(CasSpinLockDescriptor.MAX_OWNER, CasSpinLockDescriptor.MAX_STAMP);
        assertTrue(w > 0, "a held word is positive, never 0 (free)");
        assertEquals(CasSpinLockDescriptor.MAX_OWNER, CasSpinLockDescriptor.owner(w));
        assertEquals(CasSpinLockDescriptor.MAX_STAMP, CasSpinLockDescriptor.stamp(w));
        assertEquals(1, CasSpinLockDescriptor.nextStamp(CasSpinLockDescriptor.MAX_STAMP), "stamps skip 0");
        assertEquals(8, CasSpinLockDescriptor.nextStamp(7));
        assertEquals(0, CasSpinLockDescriptor.owner(CasSpinLockDescriptor.FREE));
    }

    @Test
    void shouldTellASkippedTicketAcrossTheWrap() {
        assertFalse(TicketLockDescriptor.skipped(5, 5));
        assertFalse(TicketLockDescriptor.skipped(4, 5), "serving before the ticket");
        assertTrue(TicketLockDescriptor.skipped(6, 5));
        assertTrue(TicketLockDescriptor.skipped(Long.MIN_VALUE, Long.MAX_VALUE), "one past the wrap");
        assertFalse(TicketLockDescriptor.skipped(Long.MAX_VALUE, Long.MIN_VALUE), "one before the wrap");
    }

    @Test
    void shouldRoundTripAnMcsSlotAndPlaceSlotsAfterTheTail() {
        RemoteAddress qnode = new RemoteAddress(7, 0xFFFF_FFF0, 0x1234_5678_9000L);
        assertEquals(qnode, McsLockDescriptor.qnode(McsLockDescriptor.slotKey(qnode), qnode.address()));
        RemoteAddress base = new RemoteAddress(1, 2, 4096);
        assertEquals(4096 + 8 + 16 * 3, McsLockDescriptor.slot(base, 3).address());
        assertEquals(8 + 16 * 5, McsLockDescriptor.length(5));
    }
}
