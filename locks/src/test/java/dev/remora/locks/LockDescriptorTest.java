package dev.remora.locks;

import dev.remora.verbs.RemoteAddress;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
        assertEquals(4096 + 8 + 24 * 3, McsLockDescriptor.slot(base, 3).address());
        assertEquals(8 + 24 * 5, McsLockDescriptor.length(5));
    }

    @Test
    void shouldPackAnMcsIdAndClaimWord() {
        long id = McsLockDescriptor.id(McsLockDescriptor.MAX_CAPACITY - 1, McsLockDescriptor.MAX_GENERATION);
        assertTrue(id > 0, "ids are positive: 0 means a free tail");
        assertEquals(McsLockDescriptor.MAX_CAPACITY - 1, McsLockDescriptor.index(id));
        assertEquals(McsLockDescriptor.MAX_GENERATION, McsLockDescriptor.generation(id));
        assertEquals(0, McsLockDescriptor.index(McsLockDescriptor.id(0, 1)));
        assertNotEquals(McsLockDescriptor.id(3, 1), McsLockDescriptor.id(3, 2), "a new claim is a new id");
        assertThrows(IllegalArgumentException.class, () -> McsLockDescriptor.id(0, 0));
        assertThrows(IllegalArgumentException.class, () -> McsLockDescriptor.id(McsLockDescriptor.MAX_CAPACITY, 1));
        long claim = McsLockDescriptor.claim(McsLockDescriptor.MAX_GENERATION, 0xF_FFFF, true);
        assertTrue(McsLockDescriptor.isClaimed(claim));
        assertEquals(McsLockDescriptor.MAX_GENERATION, McsLockDescriptor.claimGeneration(claim));
        assertEquals(0xF_FFFF, McsLockDescriptor.claimTag(claim));
        long free = McsLockDescriptor.claim(41, 0, false);
        assertFalse(McsLockDescriptor.isClaimed(free));
        assertEquals(41, McsLockDescriptor.claimGeneration(free));
        assertEquals(0, McsLockDescriptor.claimTag(free));
        assertEquals(5, McsLockDescriptor.claimTag(McsLockDescriptor.claim(41, (1L << 20) | 5, true)),
            "a tag keeps its low 20 bits and never reaches the generation");
        assertEquals(41, McsLockDescriptor.claimGeneration(McsLockDescriptor.claim(41, (1L << 20) | 5, true)));
    }
}
