package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The history recorder: real-time order, ok / fail / info, one clock, streaming to a file. */
class HistoryRecorderTest {
    @TempDir
    Path tmp;

    private static void concurrentCounter(HistoryRecorder rec, AtomicLong counter, int threads, int perThread)
            throws InterruptedException {
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    if (i % 3 == 0) {
                        rec.call("read", null, null, counter::get);
                    } else {
                        rec.run("add", null, 1, () -> counter.addAndGet(1));
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
    }

    @Test
    void shouldRecordConcurrentOperationsInRealTimeOrderWithTimesFromOneClock() throws Exception {
        HistoryRecorder rec = HistoryRecorder.inMemory();
        concurrentCounter(rec, new AtomicLong(), 4, 3000);
        History h = rec.history();
        assertEquals(12_000, h.size());
        assertEquals(24_000, rec.size());
        assertEquals(Verdict.LINEARIZABLE, Checker.check(h, Models.counter()).verdict());
        long last = Long.MIN_VALUE;
        for (Event e : eventsOf(rec)) {
            assertTrue(e.timeNs() >= last, "times step backwards");
            last = e.timeNs();
        }
        // A lost add (a read that misses a completed add) is caught.
        HistoryRecorder bad = HistoryRecorder.inMemory();
        AtomicLong c = new AtomicLong();
        bad.run("add", null, 1, () -> c.addAndGet(1));
        bad.call("read", null, null, () -> 0L);
        assertEquals(Verdict.NOT_LINEARIZABLE, Checker.check(bad.history(), Models.counter()).verdict());
    }

    private static List<Event> eventsOf(HistoryRecorder rec) throws Exception {
        java.lang.reflect.Field f = HistoryRecorder.class.getDeclaredField("events");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        List<Event> l = (List<Event>) f.get(rec);
        return l;
    }

    @Test
    void shouldWriteTheInvocationBeforeTheOperationStarts() {
        HistoryRecorder rec = HistoryRecorder.inMemory();
        rec.run("write", null, 1, () -> {
            List<Operation> ops = rec.history().operations();
            assertEquals(1, ops.size());
            assertTrue(ops.get(0).isIndeterminate(), "open while it runs");
            assertEquals(1, rec.size());
        });
        assertEquals(2, rec.size());
        assertTrue(rec.history().operations().get(0).isOk());
        // One open operation per thread.
        assertThrows(IllegalStateException.class, () -> rec.run("write", null, 2, () -> rec.run("write", null, 3, () -> { })));
    }

    @Test
    void shouldRecordAnUnknownOutcomeAsInfoAndOtherFailuresAsFail() throws Exception {
        HistoryRecorder fresh = HistoryRecorder.builder().unknownOutcomeOn(TimeoutException.class)
                .unknownOutcomeWhen(t -> t.getMessage() != null && t.getMessage().contains("link down")).build();
        assertThrows(TimeoutException.class, () -> fresh.run("write", null, 2, () -> {
            throw new TimeoutException("no completion in 1 ms");
        }));
        assertThrows(IllegalStateException.class, () -> fresh.run("write", null, 3, () -> {
            throw new IllegalStateException("refused");
        }));
        assertThrows(IllegalStateException.class, () -> fresh.run("write", null, 4, () -> {
            throw new IllegalStateException("link down");
        }));
        assertThrows(AssertionError.class, () -> fresh.run("write", null, 5, () -> {
            throw new AssertionError("an Error is never a definite failure");
        }));
        List<EventType> types = new ArrayList<>();
        List<Object> processes = new ArrayList<>();
        for (Event e : eventsOf(fresh)) {
            types.add(e.type());
            processes.add(e.process());
        }
        assertEquals(List.of(EventType.INVOKE, EventType.INFO, EventType.INVOKE, EventType.FAIL, EventType.INVOKE,
                EventType.INFO, EventType.INVOKE, EventType.INFO), types);
        // After an info the thread is a fresh process; after a fail it is not.
        assertNotEquals(processes.get(0), processes.get(2));
        assertEquals(processes.get(2), processes.get(4));
        assertNotEquals(processes.get(4), processes.get(6));
        fresh.call("read", null, null, () -> 2L);
        assertEquals(Verdict.LINEARIZABLE, Checker.check(fresh.history(), Models.register(0)).verdict(),
                "the timed-out write of 2 may have taken effect");
        fresh.call("read", null, null, () -> 3L);
        assertEquals(Verdict.NOT_LINEARIZABLE, Checker.check(fresh.history(), Models.register(0)).verdict(),
                "the failed write of 3 did not take effect");
    }

    @Test
    void shouldRecordClientsThatAreNotThreads() throws Exception {
        HistoryRecorder rec = HistoryRecorder.builder().unknownOutcomeOn(TimeoutException.class).build();
        HistoryRecorder.Client a = rec.client();
        HistoryRecorder.Client b = rec.client();
        assertNotEquals(a.process(), b.process());
        // Two processes with overlapping operations on one thread: a's write spans b's read.
        HistoryRecorder.Invocation w = a.invoke("write", null, 1L);
        assertThrows(IllegalStateException.class, () -> a.invoke("read", null, null), "one open operation per client");
        long seen = b.call("read", null, null, () -> 1L);
        w.ok(1L);
        assertEquals(1L, seen);
        // An operation invoked on one thread completes on another.
        HistoryRecorder.Invocation late = b.invoke("write", null, 2L);
        Thread t = new Thread(() -> late.ok(2L));
        t.start();
        t.join();
        // After an info the client is a fresh process; a thread's own process is apart from every client.
        long before = a.process();
        assertThrows(TimeoutException.class, () -> a.run("write", null, 3L, () -> {
            throw new TimeoutException("no completion");
        }));
        assertNotEquals(before, a.process());
        a.call("read", null, null, () -> 3L);
        rec.call("read", null, null, () -> 3L);
        List<Event> events = eventsOf(rec);
        assertEquals(List.of(EventType.INVOKE, EventType.INVOKE, EventType.OK, EventType.OK, EventType.INVOKE,
                EventType.OK, EventType.INVOKE, EventType.INFO, EventType.INVOKE, EventType.OK, EventType.INVOKE,
                EventType.OK),
                events.stream().map(Event::type).toList());
        assertEquals(events.get(1).process(), events.get(2).process(), "b's read");
        assertEquals(events.get(0).process(), events.get(3).process(), "a's write");
        assertEquals(4, events.stream().map(Event::process).distinct().count(), "a, b, a after its info, the thread");
        assertEquals(a.process(), events.get(8).process());
        assertEquals(Verdict.LINEARIZABLE, Checker.check(rec.history(), Models.register(0)).verdict(),
                "the timed-out write of 3 may have taken effect");
    }

    @Test
    void shouldStreamJsonLinesToAFileWithoutKeepingTheEvents() throws Exception {
        Path file = tmp.resolve("h.jsonl");
        int threads = 2;
        int perThread = 5_000;
        long sizeWhileOpen;
        History fromRecorder;
        try (HistoryRecorder rec = HistoryRecorder.builder().writeTo(file).build()) {
            concurrentCounter(rec, new AtomicLong(), threads, perThread);
            sizeWhileOpen = Files.size(file);
            rec.run("add", "k", 5, () -> { });
            fromRecorder = rec.history();
            assertEquals(null, eventsOf(rec));
        }
        // 20,000 events of some 60 bytes: all but the last few KiB are on disk before close.
        assertTrue(sizeWhileOpen > 1_000_000, "bytes written before close: " + sizeWhileOpen);
        List<String> lines = Files.readAllLines(file);
        assertEquals(2 * (threads * perThread + 1), lines.size());
        assertTrue(lines.get(lines.size() - 1).matches(
                "\\{\"process\":\\d+,\"type\":\"ok\",\"f\":\"add\",\"key\":\"k\",\"value\":5,\"time\":\\d+}"),
                lines.get(lines.size() - 1));
        History h = readBack(file);
        assertEquals(threads * perThread + 1, h.size());
        assertEquals(h.size(), fromRecorder.size());
        assertEquals(Verdict.LINEARIZABLE, Checker.check(h, Models.counter()).verdict());
    }

    @Test
    void shouldFlushEveryEventWhenAskedSoAKilledProcessLeavesItsHistoryOnDisk() throws Exception {
        Path file = tmp.resolve("flushed.jsonl");
        try (HistoryRecorder rec = HistoryRecorder.builder().writeTo(file).flushEveryEvent().build()) {
            rec.run("add", null, 1, () -> { });
            HistoryRecorder.Invocation open = rec.client().invoke("add", null, 2);
            // Nothing closed, nothing read back: what is on disk now is what a kill -9 would leave.
            List<String> lines = Files.readAllLines(file);
            assertEquals(3, lines.size(), String.join("\n", lines));
            assertTrue(lines.get(2).matches("\\{\"process\":\\d+,\"type\":\"invoke\",\"f\":\"add\",\"value\":2,"
                    + "\"time\":\\d+}"), lines.get(2));
            History h = HistoryReader.read("killed", String.join("\n", lines) + "\n", HistoryFormat.JSONL);
            assertEquals(2, h.size(), "the open add is indeterminate");
            open.ok(2);
        }
        assertEquals(4, Files.readAllLines(file).size());
    }

    private static History readBack(Path file) throws IOException {
        return HistoryReader.read(file, null);
    }
}
