package dev.remora.check.cli;

import dev.remora.check.Event;
import dev.remora.check.EventType;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The command's default search budget: 64 KiB per operation, at least 128 MiB, at most half the free heap. */
class MemoryLimitRuleTest {
    private static History writes(int n) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(new Event((long) i, EventType.INVOKE, "write", null, (long) i, 2 * i + 1));
            events.add(new Event((long) i, EventType.OK, "write", null, (long) i, 2 * i + 2));
        }
        return History.fromEvents("w", HistoryFormat.JSONL, events);
    }

    private static long halfFree() {
        Runtime rt = Runtime.getRuntime();
        return Math.max(16L << 20, (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 2);
    }

    @Test
    void shouldGrowWithTheHistoryFromAFloorUpToHalfTheFreeHeap() {
        // The free heap moves between the two readings; a few MiB of slack on the cap.
        long small = CheckCommand.memoryLimit(writes(10));
        assertEquals(Math.min(halfFree(), 128L << 20), small, 8L << 20);
        long big = CheckCommand.memoryLimit(writes(4096));
        assertEquals(Math.min(halfFree(), 4096L * (64 << 10)), big, 8L << 20);
        if (halfFree() > (300L << 20)) {
            assertEquals(128L << 20, small);
            assertEquals(256L << 20, big);
        }
    }
}
