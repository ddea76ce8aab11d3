package dev.remora.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The YCSB driver's counting, mix, cap and failure handling, over fake sessions (a second at most). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class YcsbDriverTest {
    private static final Zipf ZIPF = new Zipf(100, Zipf.YCSB_THETA);

    /** A session whose reads take one round trip and miss odd keys, whose updates take two and are BUSY on key 0. */
    private static class Fake implements YcsbDriver.Session {
        final AtomicInteger closed;
        long roundTrips;

        Fake(AtomicInteger closed) {
            this.closed = closed;
        }

        @Override
        public YcsbDriver.Outcome read(long key) {
            roundTrips++;
            return key % 2 == 1 ? YcsbDriver.Outcome.MISS : YcsbDriver.Outcome.OK;
        }

        @Override
        public YcsbDriver.Outcome update(long key, long count) {
            roundTrips += 2;
            return key == 0 ? YcsbDriver.Outcome.BUSY : YcsbDriver.Outcome.OK;
        }

        @Override
        public long roundTrips() {
            return roundTrips;
        }

        @Override
        public void close() {
            closed.incrementAndGet();
        }
    }

    @Test
    void shouldCountEveryOperationOfTheMixAndCloseEverySession() throws InterruptedException {
        AtomicInteger closed = new AtomicInteger();
        YcsbDriver.Result r = YcsbDriver.run(YcsbDriver.Mix.B, 3, id -> new Fake(closed), ZIPF, 0.2, id -> id, 30_000);
        assertNull(r.failure());
        assertEquals(3, closed.get());
        assertEquals(r.operations(), r.latency().getTotalCount(), "one latency per operation");
        assertEquals(r.gets(), r.getRoundTrips(), "a read is one round trip");
        assertEquals(2 * r.updates(), r.updateRoundTrips(), "an update is two");
        assertEquals(0, r.getsAboveOne());
        assertTrue(r.updates() > 0 && r.updates() < r.gets() / 5, r.gets() + " reads, " + r.updates() + " updates");
        assertTrue(r.busy() > 0 && r.busy() < r.updates(), r.busy() + " BUSY of " + r.updates() + " updates");
        assertTrue(r.misses() > 0 && r.misses() < r.gets(), r.misses() + " misses of " + r.gets() + " reads");
        assertTrue(r.operations() <= 30_000);
    }

    @Test
    void shouldReadOnlyInWorkloadCAndStopAtTheCap() throws InterruptedException {
        YcsbDriver.Result r = YcsbDriver.run(YcsbDriver.Mix.C, 2, id -> new Fake(new AtomicInteger()), ZIPF, 20,
            id -> 7, 1_000);
        assertEquals(0, r.updates());
        assertTrue(r.capped());
        assertEquals(1_000, r.operations(), "the cap counts the operations of every thread");
        assertTrue(r.nanos() < TimeUnit.SECONDS.toNanos(15), "the cap ended the run, not its time");
    }

    @Test
    void shouldReportTheFirstFailureAndNotWaitForASessionThatCouldNotStart() throws InterruptedException {
        IllegalStateException boom = new IllegalStateException("cannot load");
        AtomicInteger closed = new AtomicInteger();
        YcsbDriver.Result r = YcsbDriver.run(YcsbDriver.Mix.A, 2, id -> {
            if (id == 1) {
                throw boom;
            }
            return new Fake(closed) {
                @Override
                public void prepare() {
                    throw boom;
                }
            };
        }, ZIPF, 0.1, id -> id, Long.MAX_VALUE);
        assertSame(boom, r.failure());
        assertEquals(1, closed.get(), "a session whose preparation failed is closed");
        assertEquals(0, r.operations());
        assertFalse(r.capped());
    }
}
