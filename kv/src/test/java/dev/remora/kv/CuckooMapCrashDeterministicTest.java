package dev.remora.kv;

import dev.remora.check.HistoryRecorder;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.testkit.Histories;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import dev.remora.verbs.det.NodeCrashedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that crash at any step of the map's write path, on the deterministic fabric under the weak model (torn
 * READs and WRITEs, a crashed client's requests in flight landing in part, whole or not at all, R20), every request to
 * the home taking a round trip of 20 µs of virtual time (its effects at seeded moments within it; lease 400 µs, margin
 * 100 µs): four clients on three nodes (c0 and c3 on the table's home, c1 on node a, c2 on node b) get, put, delete
 * and compareAndSet four keys of a table of four one-slot rows, so that inserts kick and TABLE_FULL is answered; c1,
 * and in some seeds c2, crash. Each seed crashes them in one of these ways (seed mod 5), at a point drawn from the
 * seed:
 * <ol>
 *   <li>at a random step of the run (the fault plan), node a, and node b at a later step in half of these seeds;</li>
 *   <li>between the doorbells: c1's node crashes just before it posts a doorbell 2 (an update, a kick or a refresh),
 *       its first, second or third;</li>
 *   <li>inside a doorbell 2: either just after posting all of it, once a random number of steps (up to a round trip)
 *       have passed, so that any prefix of its requests, a request in part, or all of them may land; or after posting
 *       only a random prefix of its requests and seeing them executed;</li>
 *   <li>inside a kick: c1 crashes before, or inside (as above), the doorbell 2 of an insert that moves a key;</li>
 *   <li>inside a repair: c1 crashes before its doorbell 2 (its op wrote nothing) or after a prefix of it (its log is
 *       whole), and c2, working on the same key, crashes in its first repair of it: at its unlock-only doorbell, its
 *       takeover, or its roll-forward (before, inside or after a prefix).</li>
 * </ol>
 * c1 puts the four keys in turn (its last puts kick); c0 and c2 mix all operations, c3 GETs and compareAndSets. When
 * the others are done, or crashed a margin ago (the delay within which a crashed client's requests in flight may
 * still land, R20), c0 runs {@link CuckooMap#recover()} and GETs every key. Checked per seed: the
 * history (a crashed client's open operation {@code info}) is linearizable with the map model (every write's previous
 * value checked, so an acknowledged write that a repair dropped, or an update lost, is refuted); the table's memory,
 * read directly after the run, has no row locked, no slot torn or unpublished, no key in two slots, and holds what
 * c0's final GETs returned (so the acknowledged writes the history says survive are there); and the lease
 * assumption held: no live client kept a lock as long as the lease, so no repair raced a live holder. That each way
 * crashed in at least a tenth of its seeds, and that some repairs rolled an op forward and some only unlocked, is
 * asserted over the run. Seeds: {@code remora.test.seeds} (1,000; 5,000 under {@code -Pthorough}); one seed runs
 * about 4,300 steps of the fabric.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class CuckooMapCrashDeterministicTest {
    private static final int SEEDS = Integer.getInteger("remora.test.seeds", 1000);
    private static final int ROWS = 4;
    /**
     * Every request to the home takes a round trip of virtual time (each of its sub-actions at a moment drawn within
     * it), as on a network: a client waiting on the lease (or on a completion) costs no steps while the clock jumps.
     */
    private static final long ROUND_TRIP_NS = 20_000;
    /** The lease: 20 round trips; the margin: 5, which covers a posted request's delivery (at most a round trip). */
    private static final long LEASE_NS = 20 * ROUND_TRIP_NS;
    private static final long MARGIN_NS = 5 * ROUND_TRIP_NS;
    private static final AtomicLong STEPS = new AtomicLong();
    private static final Params PARAMS = new Params().rows(ROWS).slotsPerRow(1).clients(8).lease(LEASE_NS, MARGIN_NS);
    private static final String[] KEYS = keys();
    /**
     * Operations per client: c1 puts the four keys in turn (the last ones kick); c0 and c2 do 2 of get, put, delete
     * and compareAndSet each (c2 5 on c1's key in the seeds where it crashes repairing), c3 2 GETs or
     * compareAndSets.
     */
    private static final int[] OPS = {2, 4, 2, 2};

    /** How a seed crashes its clients. */
    enum Way { RANDOM_STEP, BETWEEN_DOORBELLS, INSIDE_DOORBELL_2, INSIDE_KICK, INSIDE_REPAIR }

    private static final Set<Point> COMMITS = EnumSet.of(Point.COMMIT, Point.KICK, Point.REFRESH);

    private static String[] keys() {
        return KvTestKeys.distinctRowPairs(4, ROWS, ROWS);
    }

    /** When, at the chosen doorbell, a {@link CrashAt} crashes its client. */
    enum Mode {
        /** Before posting it: between the doorbells. */
        BEFORE,
        /** After posting all of it, once a number of steps have passed: any part of it may have landed. */
        AFTER_STEPS,
        /** After posting its first requests only and seeing them executed: a crash as the NIC sent just those. */
        PREFIX
    }

    /** Crashes its client's node at the first doorbell of a chosen kind (after skipping some). */
    static final class CrashAt implements CuckooMap.Hook {
        private final DetFabric fabric;
        private final Node node;
        private final MemoryRegion scratch;
        private final Set<Point> points;
        private final Mode mode;
        private final int extraSteps;
        private final double prefix;
        private int skip;
        private boolean armed;
        Endpoint endpoint;
        RemoteAddress probe;
        boolean fired;
        Point firedAt;
        long crashedAtNs;

        CrashAt(DetFabric fabric, Node node, MemoryRegion scratch, Set<Point> points, Mode mode, int skip,
                SplittableRandom random) {
            this.fabric = fabric;
            this.node = node;
            this.scratch = scratch;
            this.points = points;
            this.mode = mode;
            this.skip = skip;
            this.extraSteps = random.nextInt((int) (ROUND_TRIP_NS / 100) + 1); // steps within a round trip
            this.prefix = random.nextDouble();
        }

        @Override
        public int beforePost(Point point, int requests) {
            if (fired || !points.contains(point) || skip-- != 0) {
                return requests;
            }
            armed = true;
            return switch (mode) {
                case BEFORE -> {
                    crash(point);
                    yield requests;
                }
                case AFTER_STEPS -> requests;
                case PREFIX -> Math.max(1, Math.min(requests - 1, (int) (prefix * requests)));
            };
        }

        @Override
        public void afterPost(Point point) {
            if (!armed) {
                return;
            }
            if (mode == Mode.AFTER_STEPS) {
                for (int i = 0; i < extraSteps; i++) {
                    scratch.getLong(0); // one step of this thread; the NICs and the others step meanwhile
                }
            } else {
                // R7, R9, R11: a READ on the same queue pair completes only after the requests posted before it were
                // placed or executed, so the prefix is in memory now, and nothing after it was posted.
                endpoint.readLong(probe);
            }
            crash(point);
        }

        private void crash(Point point) {
            fired = true;
            firedAt = point;
            crashedAtNs = fabric.nanoTime();
            fabric.crash(node, false);
            scratch.getLong(0); // throws NodeCrashedException: the thread stops here
        }
    }

    /** Tallies over all seeds. */
    static final class Tally {
        final Map<String, AtomicLong> counts = new TreeMap<>();

        synchronized void add(String what, long n) {
            counts.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(n);
        }

        synchronized long get(String what) {
            AtomicLong a = counts.get(what);
            return a == null ? 0 : a.get();
        }
    }

    @Test
    void crashedClientsAreRepairedAndHistoriesStayLinearizable() {
        Tally tally = new Tally();
        STEPS.set(0);
        RepairCounts.rolledForward = 0;
        RepairCounts.unlockedOnly = 0;
        long startNs = System.nanoTime();
        DetRuns.forEachSeed(1, SEEDS, seed -> runSeed(seed, wayOf(seed), CuckooMap.Variant.SAFE, tally));
        tally.add("ops rolled forward", RepairCounts.rolledForward);
        tally.add("rows unlocked only", RepairCounts.unlockedOnly);
        long ms = (System.nanoTime() - startNs) / 1_000_000;
        String replay = System.getProperty(DetRuns.SEED_PROPERTY);
        int seeds = replay == null || replay.isBlank() ? SEEDS : 1;
        System.out.println("[kv] crash repair, deterministic fabric: " + seeds + " seeds, " + STEPS.get() + " steps in "
            + ms + " ms; " + tally.counts);
        long per = seeds / 5 / 10; // each way should hit in at least a tenth of its seeds (none for a replay)
        assertTrue(tally.get("crashed at random step") >= per, "random-step crashes: " + tally.counts);
        assertTrue(tally.get("crashed between doorbells") >= per, "crashes between the doorbells: " + tally.counts);
        assertTrue(tally.get("crashed inside doorbell 2") >= per, "crashes inside a doorbell 2: " + tally.counts);
        assertTrue(tally.get("crashed in a kick") >= per, "crashes in a kick: " + tally.counts);
        assertTrue(tally.get("crashed inside a repair") >= per, "crashes inside a repair: " + tally.counts);
        assertTrue(seeds == 1 || tally.get("ops rolled forward") > 0, "some repair rolled forward: " + tally.counts);
        assertTrue(seeds == 1 || tally.get("rows unlocked only") > 0, "some repair only unlocked: " + tally.counts);
    }

    /** @return the way seed {@code seed} crashes its clients */
    static Way wayOf(long seed) {
        return Way.values()[(int) (seed % Way.values().length)];
    }

    /**
     * Runs one seed and checks it (throws on a violation).
     *
     * @param seed the schedule's seed
     * @param way how its clients crash
     * @param variant the write path every client runs (the map's, or a seed-design twin)
     * @param tally where to count what happened
     */
    static void runSeed(long seed, Way way, CuckooMap.Variant variant, Tally tally) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
        long crashA = way == Way.RANDOM_STEP ? random.nextLong(50, 4_000) : Long.MAX_VALUE;
        long crashB = way == Way.RANDOM_STEP && random.nextBoolean() ? crashA + random.nextLong(1, 3_000)
            : Long.MAX_VALUE;
        FaultPlan plan = way != Way.RANDOM_STEP ? FaultPlan.NONE : crashB == Long.MAX_VALUE
            ? FaultPlan.of(new FaultPlan.Crash(crashA, 1, false))
            : FaultPlan.of(new FaultPlan.Crash(crashA, 1, false), new FaultPlan.Crash(crashB, 2, false));
        DetFabric f = DetFabric.open(new DetContext().seed(seed).knobs(DetKnobs.WEAK).faults(plan)
            .nodeRoundTripNs(0, ROUND_TRIP_NS));
        Node home = f.addNode("home"); // node 0
        Node a = f.addNode("a");       // node 1: c1
        Node b = f.addNode("b");       // node 2: c2
        MemoryRegion region = CuckooMap.allocateRegion(home, PARAMS);
        RemoteAddress table = region.remote(0);
        Node[] placement = {home, a, b, home};
        MemoryRegion[] scratch = new MemoryRegion[4];
        for (int c = 0; c < 4; c++) {
            scratch[c] = placement[c].allocate(64, Access.LOCAL_WRITE);
        }
        CrashAt[] hooks = new CrashAt[4];
        Mode inside = random.nextBoolean() ? Mode.AFTER_STEPS : Mode.PREFIX;
        int skip = random.nextInt(3);
        switch (way) {
            case BETWEEN_DOORBELLS -> hooks[1] = new CrashAt(f, a, scratch[1], COMMITS, Mode.BEFORE, skip, random);
            case INSIDE_DOORBELL_2 -> hooks[1] = new CrashAt(f, a, scratch[1], COMMITS, inside, skip, random);
            case INSIDE_KICK -> hooks[1] = new CrashAt(f, a, scratch[1], EnumSet.of(Point.KICK),
                random.nextInt(4) == 0 ? Mode.BEFORE : inside, 0, random);
            case INSIDE_REPAIR -> {
                // c1 leaves an op to repair: one that wrote nothing (a crash before doorbell 2), or one whose log is
                // whole (a crash after a prefix of doorbell 2); c2 crashes repairing it: at its unlock-only doorbell,
                // its takeover, or its roll-forward.
                boolean wroteNothing = random.nextInt(3) == 0;
                hooks[1] = new CrashAt(f, a, scratch[1], COMMITS, wroteNothing ? Mode.BEFORE : Mode.PREFIX, skip,
                    random);
                Set<Point> at = wroteNothing ? EnumSet.of(Point.REPAIR_UNLOCK) : random.nextBoolean()
                    ? EnumSet.of(Point.REPAIR_TAKE) : EnumSet.of(Point.REPAIR_ROLL_FORWARD, Point.REPAIR_FINISH);
                hooks[2] = new CrashAt(f, b, scratch[2], at, random.nextInt(4) == 0 ? Mode.BEFORE
                    : random.nextBoolean() ? Mode.AFTER_STEPS : Mode.PREFIX, 0, random);
            }
            default -> {
            }
        }
        HistoryRecorder rec = Histories.recorder(f::nanoTime, e -> e instanceof NodeCrashedException);
        boolean[] done = new boolean[4];
        CuckooMap[] maps = new CuckooMap[4];
        long[] longestHold = new long[1];
        String[] finalGets = new String[KEYS.length];
        for (int c = 0; c < 4; c++) {
            int id = c;
            Node n = placement[c];
            HistoryRecorder.Client p = rec.client();
            f.spawn(n, "c" + c, () -> {
                try (Endpoint ep = Endpoint.open(n); CuckooMap m = CuckooMap.attach(ep, table)) {
                    maps[id] = m;
                    m.variant = variant;
                    if (hooks[id] != null) {
                        hooks[id].endpoint = ep;
                        hooks[id].probe = table;
                    }
                    HoldTimer timer = new HoldTimer(ep, hooks[id]);
                    m.hook = timer;
                    RecordedMap map = new RecordedMap(m, p::invoke);
                    String[] seen = new String[KEYS.length]; // null: absent
                    int ops = id == 2 && way == Way.INSIDE_REPAIR ? 5 : OPS[id];
                    for (int i = 0; i < ops; i++) {
                        int k = id == 1 ? i % KEYS.length
                            : id == 2 && way == Way.INSIDE_REPAIR ? skip : (id + i) % KEYS.length;
                        int kind = id == 1 ? 0 : id == 3 ? (random(seed, id, i) % 2 == 0 ? 1 : 3) : random(seed, id, i) % 4;
                        operate(map, kind, k, "c" + id + "-" + i, seen);
                        timer.opEnded();
                    }
                    if (id == 0) {
                        // c0 waits (stepping) until the others are done or crashed, then repairs and reads.
                        long[] crashSeen = {-1, -1, -1, -1};
                        while (!othersSettled(f, done, hooks, crashA, crashB, crashSeen)) {
                            ep.readLong(table); // a round trip of virtual time: the clock jumps while all wait
                        }
                        m.recover();
                        timer.opEnded();
                        for (int k = 0; k < KEYS.length; k++) {
                            Result r = map.get(KEYS[k]);
                            assertTrue(r.status() != Status.BUSY, "final GET of " + KEYS[k] + " BUSY after recover");
                            finalGets[k] = RecordedMap.text(r.value());
                        }
                    }
                    synchronized (longestHold) {
                        longestHold[0] = Math.max(longestHold[0], timer.longest);
                    }
                    done[id] = true;
                }
            });
        }
        DetFabric.Result r = f.run();
        STEPS.addAndGet(r.steps());
        assertTrue(r.finished() && r.failures().isEmpty(), () -> r.describe() + " " + f.firstFailure() + "; " + way
            + ", done " + java.util.Arrays.toString(done) + ", last doorbells " + java.util.Arrays.stream(maps)
            .map(m -> m == null ? "-" : m.lastPoint() + "/" + m.repairs()).toList());
        assertTrue(done[0] && done[3], "the clients that never crash finished: " + r.describe());
        Histories.assertLinearizable(rec.history(), Models.map());
        Map<String, String> memory = TableMemory.checkQuiescent(off -> f.peek(region, off), PARAMS);
        for (int k = 0; k < KEYS.length; k++) {
            assertEquals(finalGets[k], memory.get(KEYS[k]), "key " + KEYS[k] + " in memory");
        }
        assertTrue(longestHold[0] < LEASE_NS, "a live client held a lock for " + longestHold[0]
            + " ns, not less than the lease " + LEASE_NS + ": the run relied on a repair racing a live holder");
        tallySeed(tally, way, hooks, maps, r, crashA, crashB);
    }

    private static void tallySeed(Tally tally, Way way, CrashAt[] hooks, CuckooMap[] maps, DetFabric.Result r,
                                  long crashA, long crashB) {
        boolean crashed = !r.crashed().isEmpty();
        switch (way) {
            case RANDOM_STEP -> tally.add("crashed at random step", crashed ? 1 : 0);
            case BETWEEN_DOORBELLS -> tally.add("crashed between doorbells", hooks[1].fired ? 1 : 0);
            case INSIDE_DOORBELL_2 -> tally.add("crashed inside doorbell 2", hooks[1].fired ? 1 : 0);
            case INSIDE_KICK -> tally.add("crashed in a kick", hooks[1].fired ? 1 : 0);
            case INSIDE_REPAIR -> tally.add("crashed inside a repair", hooks[2].fired ? 1 : 0);
            default -> {
            }
        }
        for (CuckooMap m : maps) {
            if (m != null) {
                tally.add("repairs", m.repairs());
                tally.add("kicks", m.kicks());
            }
        }
        for (String c : r.crashed()) {
            int id = c.charAt(1) - '0';
            if (maps[id] != null) {
                tally.add("crashed at " + maps[id].lastPoint(), 1);
            }
        }
    }

    /** Counts of repair outcomes, gathered by the hooks (single-threaded: seeds run one after another). */
    static final class RepairCounts {
        static long rolledForward;
        static long unlockedOnly;

        private RepairCounts() {
        }
    }

    /**
     * Wraps a client's crash hook: measures, on the fabric's clock, how long each lock (an update's doorbell 1, or a
     * repair's takeover) stays held: from its post to the post of the next doorbell that holds nothing, or the end of
     * the call. The lease assumption is that a live holder lets go well within the lease.
     */
    static final class HoldTimer implements CuckooMap.Hook {
        private final Endpoint ep;
        private final CrashAt crash;
        private long heldSince = -1;
        long longest;

        HoldTimer(Endpoint ep, CrashAt crash) {
            this.ep = ep;
            this.crash = crash;
        }

        @Override
        public int beforePost(Point point, int requests) {
            if (point == Point.REPAIR_ROLL_FORWARD) {
                RepairCounts.rolledForward++;
            } else if (point == Point.REPAIR_UNLOCK) {
                RepairCounts.unlockedOnly++;
            }
            long now = ep.nanoTime();
            boolean holdsNothing = point == Point.GET || point == Point.SEARCH || point == Point.SCAN
                || point == Point.PROBE || point == Point.REPAIR_READ_LOG;
            if (holdsNothing || point == Point.LOCK || point == Point.REPAIR_TAKE) {
                ended(now);
            }
            if (point == Point.LOCK || point == Point.REPAIR_TAKE) {
                heldSince = now;
            }
            return crash == null ? requests : crash.beforePost(point, requests);
        }

        @Override
        public void afterPost(Point point) {
            if (crash != null) {
                crash.afterPost(point);
            }
        }

        void opEnded() {
            ended(ep.nanoTime());
        }

        private void ended(long now) {
            if (heldSince >= 0) {
                longest = Math.max(longest, now - heldSince);
                heldSince = -1;
            }
        }
    }

    /**
     * Whether every other client is done, or crashed at least a margin ago: a crashed client's requests in flight may
     * still land (R20) within the delay the margin covers, a lock CAS among them; the final pass starts after that,
     * as any repair does (docs/kv.md, "Crashes", timing).
     */
    private static boolean othersSettled(DetFabric f, boolean[] done, CrashAt[] hooks, long crashA, long crashB,
                                         long[] crashSeen) {
        boolean settled = true;
        for (int c = 1; c < 4; c++) {
            boolean crashed = hooks[c] != null && hooks[c].fired
                || c == 1 && f.steps() > crashA || c == 2 && f.steps() > crashB;
            if (done[c]) {
                continue;
            }
            if (!crashed) {
                settled = false;
                continue;
            }
            if (crashSeen[c] < 0) {
                crashSeen[c] = hooks[c] != null && hooks[c].fired ? hooks[c].crashedAtNs : f.nanoTime();
            }
            settled &= f.nanoTime() - crashSeen[c] >= MARGIN_NS;
        }
        return settled;
    }

    private static int random(long seed, int id, int i) {
        return new SplittableRandom(seed * 31 + id * 7 + i).nextInt(1 << 20);
    }

    /**
     * One operation, recorded by {@link RecordedMap} in the map model's terms (a GET's value or absence, every write's
     * previous value, a compareAndSet's outcome with the value it found); BUSY and TABLE_FULL (nothing changed) fail;
     * an operation cut short by its client's crash is {@code info}.
     */
    private static void operate(RecordedMap map, int kind, int k, String fresh, String[] seen) {
        String key = KEYS[k];
        switch (kind) {
            case 0 -> note(map.put(key, fresh), seen, k, fresh);
            case 1 -> {
                Result r = map.get(key);
                if (r.status() != Status.BUSY) {
                    seen[k] = RecordedMap.text(r.value());
                }
            }
            case 2 -> note(map.delete(key), seen, k, null);
            default -> note(map.compareAndSet(key, seen[k], fresh), seen, k, fresh);
        }
    }

    /** Remembers what the client now knows of key {@code k}: what it wrote, or found (null: absent). */
    private static void note(Result r, String[] seen, int k, String written) {
        switch (r.status()) {
            case OK -> seen[k] = written;
            case NOT_FOUND -> seen[k] = null;
            case CAS_MISMATCH -> seen[k] = RecordedMap.text(r.value());
            default -> {
            }
        }
    }
}
