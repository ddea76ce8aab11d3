package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.kv.CuckooMap.Variant;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the map model sees that the kv model did not: a PUT that loses a concurrent update. The kv model records a
 * PUT without what it returns (a DELETE as a put of {@code ""}, a miss as a get of {@code ""}), so a map whose PUT
 * overwrites a concurrent PUT unseen gives a history that is linearizable as a register; the map model checks every
 * PUT's previous value and refutes it.
 *
 * <p>The race, on the fast fabric, with hooks holding each client at a chosen doorbell: key k holds v0; client A puts
 * a, client B puts b while A is between its doorbells, then a GET reads k. {@link Variant#LOST_UPDATE}: A reads its
 * rows (k = v0), lets them go, and is held before it locks them again; B's PUT runs whole (previous v0); A locks,
 * writes a from its first read and returns v0 too; the GET reads a. B's update is lost: both PUTs report v0. The map as
 * built ({@link Variant#SAFE}): A is held before its doorbell 2 with the rows locked, until B's lock attempt has
 * failed on them; then A writes a (previous v0) and B, retrying, writes b (previous a): linearizable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapLostUpdateTest {
    private static final String KEY = "k";

    /** What one race recorded: the history in the map model's terms, and the two PUTs' results. */
    private record Race(History history, Result a, Result b, Result get) {
    }

    @Test
    void shouldRefuteALostUpdateThatTheKvModelAccepts() throws Exception {
        Race race = race(Variant.LOST_UPDATE);
        assertEquals(new Result(Status.OK, RecordedMap.bytes("v0")), race.a(), "A's PUT reports the value of its read");
        assertEquals(new Result(Status.OK, RecordedMap.bytes("v0")), race.b(), "B's PUT ran while A was between");
        assertEquals("a", RecordedMap.text(race.get().value()), "A's write, from its first read, is the last");
        CheckResult kv = Checker.check(asKvHistory(race.history()), Models.kv());
        assertEquals(Verdict.LINEARIZABLE, kv.verdict(), "the kv model cannot see the lost update: " + kv);
        CheckResult map = Checker.check(race.history(), Models.map());
        assertEquals(Verdict.NOT_LINEARIZABLE, map.verdict(), "the map model refutes it: " + map);
        System.out.println("[kv] lost update: kv model " + kv.verdict() + ", map model " + map.verdict() + ": "
            + map.failure().reason());
    }

    @Test
    void shouldFindTheSameRaceLinearizableOnTheMapAsBuilt() throws Exception {
        Race race = race(Variant.SAFE);
        assertEquals(new Result(Status.OK, RecordedMap.bytes("v0")), race.a());
        assertEquals(new Result(Status.OK, RecordedMap.bytes("a")), race.b(), "B's PUT replaced A's");
        assertEquals("b", RecordedMap.text(race.get().value()));
        CheckResult map = Checker.check(race.history(), Models.map());
        assertEquals(Verdict.LINEARIZABLE, map.verdict(), map::toString);
        assertEquals(Verdict.LINEARIZABLE, Checker.check(asKvHistory(race.history()), Models.kv()).verdict());
    }

    /**
     * Runs the race: A (the variant) is held at {@code holdA} until B has reached {@code releaseA}.
     */
    private static Race race(Variant variant) throws Exception {
        boolean lost = variant == Variant.LOST_UPDATE;
        HistoryRecorder rec = HistoryRecorder.inMemory();
        CountDownLatch aHeld = new CountDownLatch(1);
        CountDownLatch bReached = new CountDownLatch(1);
        Result[] results = new Result[3];
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node a = fabric.addNode("a");
            Node b = fabric.addNode("b");
            RemoteAddress table = CuckooMap.allocate(home, new Params().rows(64).clients(8)
                .lease(10_000_000_000L, 1_000_000_000L)); // a lease far longer than the hold: no repair
            try (Endpoint ep = Endpoint.open(home); CuckooMap m = CuckooMap.attach(ep, table)) {
                assertEquals(Status.OK, new RecordedMap(m, rec::invoke).put(KEY, "v0").status());
            }
            Parallel.run(2, Duration.ofSeconds(30), id -> {
                try (Endpoint ep = Endpoint.open(id == 0 ? a : b); CuckooMap m = CuckooMap.attach(ep, table)) {
                    RecordedMap map = new RecordedMap(m, rec::invoke);
                    if (id == 0) {
                        m.variant = variant;
                        // A: held at its second LOCK (LOST_UPDATE: after the release) or at its COMMIT (SAFE).
                        m.hook = holdAt(lost ? Point.LOCK : Point.COMMIT, lost ? 2 : 1, aHeld, bReached);
                        results[0] = map.put(KEY, "a");
                    } else {
                        assertTrue(aHeld.await(20, TimeUnit.SECONDS), "A reached its hold");
                        if (!lost) {
                            // B: its first lock attempt, which finds A's rows locked, lets A go on.
                            m.hook = new CuckooMap.Hook() {
                                @Override
                                public void afterPost(Point point) {
                                    if (point == Point.LOCK) {
                                        bReached.countDown();
                                    }
                                }
                            };
                        }
                        results[1] = map.put(KEY, "b");
                        bReached.countDown();
                    }
                }
            });
            try (Endpoint ep = Endpoint.open(home); CuckooMap m = CuckooMap.attach(ep, table)) {
                results[2] = new RecordedMap(m, rec::invoke).get(KEY);
            }
        }
        return new Race(rec.history(), results[0], results[1], results[2]);
    }

    /** Holds its client at the {@code nth} doorbell of {@code point} until {@code go} is counted down. */
    private static CuckooMap.Hook holdAt(Point point, int nth, CountDownLatch held, CountDownLatch go) {
        return new CuckooMap.Hook() {
            private int seen;

            @Override
            public int beforePost(Point p, int requests) {
                if (p == point && ++seen == nth) {
                    held.countDown();
                    try {
                        assertTrue(go.await(20, TimeUnit.SECONDS), "the other client reached its point");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
                return requests;
            }
        };
    }

    /**
     * The same history in the kv model's terms, as the kv tests recorded before the map model: a PUT with no output
     * checked, a DELETE as a put of {@code ""}, a miss as a get of {@code ""}, a compareAndSet as {@code cas} of
     * {@code ""} for absent, answering true or false; an UPDATE that found nothing (it wrote nothing) left out.
     */
    static History asKvHistory(History h) {
        List<Operation> ops = new ArrayList<>();
        for (Operation op : h.operations()) {
            Object out = op.output();
            boolean unknown = op.isIndeterminate();
            String f = op.function();
            Object in = op.input();
            switch (f) {
                case "get" -> out = unknown ? out : orEmpty(out);
                case "put", "update" -> {
                    if (f.equals("update") && !unknown && out == null) {
                        continue;
                    }
                    f = "put";
                    out = unknown ? out : in;
                }
                case "delete" -> {
                    f = "put";
                    in = "";
                    out = unknown ? out : "";
                }
                case "cas" -> {
                    List<?> pair = (List<?>) in;
                    in = List.of(orEmpty(pair.get(0)), orEmpty(pair.get(1)));
                    out = unknown || out instanceof Boolean ? out : ((List<?>) out).get(0);
                }
                default -> throw new IllegalArgumentException(f);
            }
            ops.add(new Operation(ops.size(), op.process(), f, op.key(), in, out, op.call(), op.ret(), op.callLine(),
                op.returnLine()));
        }
        return new History(h.source() + " as kv", h.format(), ops);
    }

    private static Object orEmpty(Object v) {
        return v == null ? "" : v;
    }
}
