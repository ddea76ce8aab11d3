package dev.remora.objects;

import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.model.QueueModel;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MPSC ring on the deterministic fabric under the weak model: three producers on two nodes, a four-slot ring
 * (every slot reused), histories checked against the FIFO queue model; and a producer node that crashes mid-run,
 * whose reservations the consumer skips, histories checked the same way. Seeds: as {@link SpscRingDeterministicTest}
 * (750 without faults and 250 with the crash by default).
 */
class MpscRingDeterministicTest {
    private static final int PRODUCERS = 3;
    private static final int EACH = 2;
    private static final int SLOTS = 4;
    private static final int PAYLOAD = 16;
    private static final int MAX_POLLS = 20_000;
    /** The skip timeout of the crash test: 500 steps of the virtual clock, a live producer gives up after 250. */
    private static final long CRASH_SKIP_NS = 50_000L;

    private record Run(DetFabric.Result result, List<List<String>> acknowledged, List<String> received,
                       long skipped, History history) {
    }

    /** Lengths per producer and message: 0 and the maximum included, only one message empty (so all distinct). */
    private static final int[][] LENGTHS = {{0, PAYLOAD}, {7, 3}, {1, 12}};

    private static byte[] message(int producer, int i) {
        byte[] m = new byte[LENGTHS[producer][i]];
        for (int j = 0; j < m.length; j++) {
            m[j] = (byte) (producer * 64 + i * 8 + j + 1);
        }
        return m;
    }

    private static Run run(long seed, FaultPlan faults, long skipTimeoutNs) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults));
        Node cn = f.addNode("consumer");
        Node[] pn = {f.addNode("p0"), f.addNode("p1")};
        MpscRing.Consumer consumer = MpscRing.Consumer.create(cn, SLOTS, PAYLOAD, skipTimeoutNs, f::nanoTime);
        HistoryRecorder history = HistoryRecorder.builder().clock(f::nanoTime).name("mpsc-det").build();
        List<List<String>> acknowledged = new ArrayList<>();
        boolean[] done = new boolean[PRODUCERS];
        for (int t = 0; t < PRODUCERS; t++) {
            int id = t;
            List<String> acked = new ArrayList<>();
            acknowledged.add(acked);
            HistoryRecorder.Client client = history.client();
            Node node = pn[t % 2];
            f.spawn(node, "producer" + t, () -> {
                try (Endpoint ep = Endpoint.open(node)) {
                    MpscRing.Producer p = MpscRing.Producer.attach(ep, consumer.address());
                    for (int i = 0; i < EACH; i++) {
                        String v = SpscRingDeterministicTest.text(message(id, i));
                        HistoryRecorder.Invocation inv = client.invoke("enqueue", null, v);
                        MpscRing.Offer o = p.offer(message(id, i));
                        if (o == MpscRing.Offer.FULL && faults != FaultPlan.NONE) {
                            // behind a crashed producer's hole for half the skip timeout: nothing was written
                            inv.fail();
                            continue;
                        }
                        assertEquals(MpscRing.Offer.OK, o, "the consumer drains the ring: a slot frees in time");
                        inv.ok(v);
                        acked.add(v);
                    }
                } finally {
                    done[id] = true;
                }
            });
        }
        List<String> received = new ArrayList<>();
        HistoryRecorder.Client consumerClient = history.client();
        CompletionQueue idle = cn.createCompletionQueue(1);
        Completion[] none = {new Completion()};
        SplittableRandom pauses = new SplittableRandom(~seed);
        f.spawn(cn, "consumer", () -> {
            int polls = 0;
            long idleSince = -1;
            while (received.size() < PRODUCERS * EACH) {
                HistoryRecorder.Invocation inv = consumerClient.invoke("dequeue", null, null);
                byte[] m = null;
                // With every producer gone, wait two skip timeouts of nothing (holes to skip, WRITEs in flight).
                while (m == null && (idleSince < 0 || f.nanoTime() - idleSince <= 2 * skipTimeoutNs)) {
                    m = consumer.poll();
                    assertTrue(++polls < MAX_POLLS, "the consumer waited too long");
                    boolean all = true;
                    for (boolean d : done) {
                        all &= d;
                    }
                    idleSince = !all || m != null ? -1 : idleSince < 0 ? f.nanoTime() : idleSince;
                    if (idleSince >= 0) {
                        // Nobody left to race: wait out the skip timeout in 1 to 5 us pauses, not 100 to 500 ns ones.
                        idle.await(none, 1_000L * pauses.nextInt(1, 6));
                    } else if (m == null) {
                        SpscRingDeterministicTest.pause(idle, none, pauses);
                    }
                }
                if (m == null) {
                    inv.fail(); // producers gone, nothing more committed: this dequeue did not happen
                    break;
                }
                inv.ok(SpscRingDeterministicTest.text(m));
                received.add(SpscRingDeterministicTest.text(m));
            }
        });
        DetFabric.Result r = f.run();
        return new Run(r, acknowledged, received, consumer.skipped(), history.history());
    }

    @Test
    void shouldDeliverEveryMessageOnceInEachProducersOrderForEverySeed() {
        DetRuns.forEachSeedInParallel(1, SpscRingDeterministicTest.SEEDS, seed -> {
            Run run = run(seed, FaultPlan.NONE, 10_000_000_000L);
            assertTrue(run.result().finished() && run.result().failures().isEmpty(), run.result().describe());
            assertEquals(PRODUCERS * EACH, run.received().size(), run.result().describe());
            assertEquals(0, run.skipped());
            assertEquals(Verdict.LINEARIZABLE, Checker.check(run.history(), new QueueModel()).verdict(),
                run.result().describe());
        });
    }

    /**
     * Producer node p1 (producer 1) crashes at a step drawn from the seed. The consumer skips the positions it
     * reserved and never committed, after the skip timeout (a live producer stuck behind such a hole for half the
     * timeout gives its reservation up with FULL, which is skipped too), and receives every message the live
     * producers were told OK, once each and in each producer's order; nothing it receives was never sent, and no run
     * tears a message. The history (the crashed producer's open enqueue of unknown outcome, a FULL offer failed) is a
     * FIFO queue's.
     */
    @Test
    void shouldSkipTheReservationsOfACrashedProducer() {
        AtomicLong skipped = new AtomicLong();
        AtomicLong steps = new AtomicLong();
        DetRuns.forEachSeedInParallel(1, SpscRingDeterministicTest.CRASH_SEEDS, seed -> {
            SplittableRandom random = new SplittableRandom(seed);
            // a run without faults takes some 400 to 800 steps
            Run run = run(seed, FaultPlan.of(new FaultPlan.Crash(random.nextLong(20, 400), 2, false)), CRASH_SKIP_NS);
            assertTrue(run.result().finished() && run.result().failures().isEmpty(), run.result().describe());
            Set<String> sent = new HashSet<>();
            for (int t = 0; t < PRODUCERS; t++) {
                for (int i = 0; i < EACH; i++) {
                    sent.add(SpscRingDeterministicTest.text(message(t, i)));
                }
            }
            assertEquals(run.received().size(), new HashSet<>(run.received()).size(), "no duplicate");
            assertTrue(sent.containsAll(run.received()), "nothing torn or invented: " + run.received());
            for (int t = 0; t < PRODUCERS; t++) {
                List<String> acked = run.acknowledged().get(t);
                List<String> got = new ArrayList<>(run.received());
                got.retainAll(acked);
                if (t != 1) {
                    assertEquals(acked, got, "producer " + t + " (alive): all, in order; " + run.result().describe());
                }
            }
            assertEquals(Verdict.LINEARIZABLE, Checker.check(run.history(), new QueueModel()).verdict(),
                run.history().operations().toString());
            skipped.addAndGet(run.skipped());
            steps.addAndGet(run.result().steps());
        });
        assertTrue(skipped.get() > 0, "some crash left a reservation to skip");
        System.out.println("MpscRingDeterministicTest: " + skipped + " positions skipped in "
            + SpscRingDeterministicTest.CRASH_SEEDS + " crash runs, " + steps.get() / SpscRingDeterministicTest.CRASH_SEEDS
            + " steps a run");
    }
}
