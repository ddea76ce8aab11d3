package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetContext;
import dev.remora.verbs.det.DetFabric;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetRuns;
import dev.remora.verbs.det.FaultPlan;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RemoteCounter, unchanged, on the deterministic fabric under the weak model, many seeds, with and without faults. */
class RemoteCounterDeterministicTest {
    private static final int CLIENTS = 3;
    private static final int EACH = 3;

    private record Outcome(long finalValue, long acknowledged, long indeterminate, boolean distinct,
                           DetFabric.Result run) {
    }

    private static Outcome run(long seed, FaultPlan faults, DetKnobs knobs) {
        DetFabric f = DetFabric.open(new DetContext().seed(seed).faults(faults).knobs(knobs));
        Node home = f.addNode("home");
        MemoryRegion region = home.allocate(RemoteCounterDescriptor.LENGTH, Access.ALL);
        RemoteAddress word = region.remote(RemoteCounterDescriptor.VALUE_OFFSET);
        long[] acked = new long[1];
        long[] unknown = new long[1];
        Set<Long> values = new HashSet<>();
        boolean[] distinct = {true};
        for (int c = 0; c < CLIENTS; c++) {
            Node n = f.addNode("c" + c);
            f.spawn(n, "client" + c, () -> {
                try (Endpoint ep = Endpoint.open(n)) {
                    RemoteCounter counter = RemoteCounter.attach(ep, word);
                    for (int i = 0; i < EACH; i++) {
                        try {
                            distinct[0] &= values.add(counter.incrementAndGet());
                            acked[0]++;
                        } catch (RemoteAccessException e) {
                            assertEquals(WcStatus.RETRY_EXC_ERR, e.status());
                            unknown[0]++;
                        }
                    }
                }
            });
        }
        DetFabric.Result r = f.run();
        assertTrue(r.finished() && r.failures().isEmpty(), r.describe());
        return new Outcome(f.peek(region, 0), acked[0], unknown[0], distinct[0], r);
    }

    @Test
    void shouldCountExactlyUnderTheWeakModelForEverySeed() {
        DetRuns.forEachSeed(1, 300, seed -> {
            Outcome o = run(seed, FaultPlan.NONE, DetKnobs.WEAK);
            assertEquals(CLIENTS * EACH, o.finalValue(), o.run().describe());
            assertEquals(CLIENTS * EACH, o.acknowledged());
            assertTrue(o.distinct(), "every increment returned a distinct value");
        });
    }

    @Test
    void shouldNeverCountMoreThanWasAttemptedWhenTheHomeCrashes() {
        long[] indeterminate = {0};
        DetRuns.forEachSeed(1, 200, seed -> {
            // The home crashes (keeping its memory: a counter is not durable across a reboot) at a step drawn from
            // the seed, and a client NIC may be slow for a while.
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            FaultPlan plan = FaultPlan.of(new FaultPlan.Crash(r.nextLong(120), 0, false),
                new FaultPlan.DelayNic(r.nextLong(60), 1 + r.nextInt(CLIENTS), r.nextLong(1, 80)));
            Outcome o = run(seed, plan, DetKnobs.WEAK);
            assertTrue(o.finalValue() >= o.acknowledged(), "an acknowledged increment is never lost: "
                + o.run().describe());
            assertTrue(o.finalValue() <= o.acknowledged() + o.indeterminate(), "no increment counted twice");
            assertTrue(o.distinct());
            indeterminate[0] += o.indeterminate();
        });
        assertTrue(indeterminate[0] > 0, "the crashes made some increments indeterminate");
    }
}
