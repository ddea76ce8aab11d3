package dev.remora.verbs;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random programs of READ, WRITE, CAS and FETCH_ADD on several queue pairs (two to one node, one to another),
 * posted in batches and checked against a reference model of the guarantees in {@code package-info.java}.
 *
 * <p>The reference enumerates every execution the guarantees allow for a batch: on one queue pair requests take
 * effect in posting order, except that a WRITE may pass an earlier READ (R8); across queue pairs anything
 * interleaves (R10); a remote atomic is a read phase and a write phase between which other queue pairs' WRITEs and
 * READs may fall, but no other atomic to that node (R14, rao). A request with a bad address fails with
 * REM_ACCESS_ERR and flushes the rest of its queue pair (R17). The observed statuses, returned values and final
 * memory must be one of the enumerated outcomes.
 *
 * <p>150 tries; a provider whose fabrics are slow to open may run fewer with its own {@code @PropertyDefaults}.
 */
@PropertyDefaults(tries = 150)
public abstract class VerbsProperties {
    private static final int WORDS = 4;
    private static final int QPS = 3;

    /** @return a fresh fabric of the provider under test */
    protected abstract Fabric newFabric();

    enum Kind { READ, WRITE, CAS, FAA }

    /** One generated request: queue pair, kind, word (or -1 for an out-of-bounds address), operands. */
    record Op(int qp, Kind kind, int word, long a, long b) {
        @Override
        public String toString() {
            return "qp" + qp + ":" + kind + "(w" + word + "," + a + "," + b + ")";
        }
    }

    @Provide
    Arbitrary<List<List<Op>>> programs() {
        Arbitrary<Op> op = Combinators.combine(
            Arbitraries.integers().between(0, QPS - 1),
            Arbitraries.of(Kind.class),
            Arbitraries.integers().between(0, WORDS - 1).injectDuplicates(0.5),
            Arbitraries.longs().between(0, 3),
            Arbitraries.longs().between(0, 3),
            Arbitraries.integers().between(0, 19)
        ).as((qp, kind, word, a, b, bad) -> new Op(qp, kind, bad == 0 ? -1 : word, a, b));
        return op.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(1).ofMaxSize(4);
    }

    @Property
    void shouldOnlyProduceOutcomesTheGuaranteesAllow(@ForAll("programs") List<List<Op>> program,
                                                      @ForAll("initial") long[] initial) {
        try (Fabric fabric = newFabric()) {
            Node client = fabric.addNode("C");
            Node[] targets = {fabric.addNode("T1"), fabric.addNode("T2")};
            MemoryRegion[] memory = new MemoryRegion[2];
            long[] mem = new long[2 * WORDS];
            for (int t = 0; t < 2; t++) {
                memory[t] = targets[t].allocate(WORDS * 8L, Access.ALL);
                for (int w = 0; w < WORDS; w++) {
                    memory[t].putLongVolatile(w * 8L, initial[t * WORDS + w]);
                    mem[t * WORDS + w] = initial[t * WORDS + w];
                }
            }
            CompletionQueue cq = client.createCompletionQueue(64);
            MemoryRegion results = client.allocate(64, Access.LOCAL_WRITE);
            Completion[] out = VerbsContract.newCompletions(16);
            for (List<Op> batch : program) {
                QueuePair[] qps = new QueuePair[QPS];
                for (int q = 0; q < QPS; q++) {
                    qps[q] = client.connect(targets[targetOf(q)], cq);
                }
                for (int i = 0; i < batch.size(); i++) {
                    Op op = batch.get(i);
                    MemoryRegion m = memory[targetOf(op.qp())];
                    RemoteAddress at = op.word() < 0
                        ? new RemoteAddress(m.node().id(), m.rkey(), m.address() + WORDS * 8L)
                        : m.remote(op.word() * 8L);
                    WorkRequest wr = new WorkRequest();
                    switch (op.kind()) {
                        case READ -> wr.read(results, i * 8L, 8, at);
                        case WRITE -> {
                            results.putLong(32 + i * 8L, op.a());
                            wr.write(results, 32 + i * 8L, 8, at);
                        }
                        case CAS -> wr.cas(results, i * 8L, at, op.a(), op.b());
                        case FAA -> wr.faa(results, i * 8L, at, op.a() + 1);
                        default -> throw new AssertionError();
                    }
                    assertEquals(QueuePair.POSTED, qps[op.qp()].post(wr.wrId(i).flags(WorkRequest.SIGNALED)));
                }
                WcStatus[] status = new WcStatus[batch.size()];
                int got = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (got < batch.size()) {
                    int n = cq.await(out, deadline - System.nanoTime());
                    assertTrue(n > 0 || System.nanoTime() < deadline, "completions missing for " + batch);
                    for (int k = 0; k < n; k++) {
                        status[(int) out[k].wrId()] = out[k].status();
                    }
                    got += n;
                }
                long[] observedMem = new long[2 * WORDS];
                for (int t = 0; t < 2; t++) {
                    for (int w = 0; w < WORDS; w++) {
                        observedMem[t * WORDS + w] = memory[t].getLongVolatile(w * 8L);
                    }
                }
                long[] observedResults = new long[batch.size()];
                for (int i = 0; i < batch.size(); i++) {
                    Kind k = batch.get(i).kind();
                    observedResults[i] = status[i] == WcStatus.SUCCESS && k != Kind.WRITE ? results.getLong(i * 8L) : 0;
                }
                String observed = outcome(observedMem, observedResults, status);
                Set<String> allowed = allowedOutcomes(batch, mem);
                assertTrue(allowed.contains(observed), "batch " + batch + " from memory " + Arrays.toString(mem)
                    + " gave " + observed + ", allowed: " + allowed);
                mem = observedMem;
                for (QueuePair qp : qps) {
                    qp.close();
                }
            }
        }
    }

    @Provide
    Arbitrary<long[]> initial() {
        return Arbitraries.longs().between(0, 3).array(long[].class).ofSize(2 * WORDS);
    }

    private static int targetOf(int qp) {
        return qp == 2 ? 1 : 0;
    }

    private static String outcome(long[] mem, long[] results, WcStatus[] status) {
        return Arrays.toString(mem) + " " + Arrays.toString(results) + " " + Arrays.toString(status);
    }

    // ---------------------------------------------------------------- the reference model

    /** Statuses are fixed by posting order: a bad address fails, later requests of its queue pair flush. */
    static WcStatus[] staticStatuses(List<Op> batch) {
        WcStatus[] s = new WcStatus[batch.size()];
        boolean[] failed = new boolean[QPS];
        for (int i = 0; i < batch.size(); i++) {
            Op op = batch.get(i);
            if (failed[op.qp()]) {
                s[i] = WcStatus.WR_FLUSH_ERR;
            } else if (op.word() < 0) {
                s[i] = WcStatus.REM_ACCESS_ERR;
                failed[op.qp()] = true;
            } else {
                s[i] = WcStatus.SUCCESS;
            }
        }
        return s;
    }

    static Set<String> allowedOutcomes(List<Op> batch, long[] mem) {
        WcStatus[] status = staticStatuses(batch);
        int n = batch.size();
        // Events: op i has event 2i (the effect, or an atomic's read phase) and, for atomics, 2i+1 (write phase).
        Set<String> outcomes = new HashSet<>();
        explore(batch, status, mem.clone(), new long[n], new long[n], 0L, -1, outcomes, new HashSet<>());
        return outcomes;
    }

    private static boolean isAtomic(Op op) {
        return op.kind() == Kind.CAS || op.kind() == Kind.FAA;
    }

    private static boolean live(WcStatus s) {
        return s == WcStatus.SUCCESS;
    }

    /** Whether event {@code e} may happen now, given the set {@code done} of events already performed. */
    private static boolean enabled(List<Op> batch, WcStatus[] status, long done, int e, int atomicOpen) {
        int i = e / 2;
        Op op = batch.get(i);
        if ((e & 1) == 1) {
            return (done & bit(2 * i)) != 0;
        }
        if (isAtomic(op) && atomicOpen >= 0 && targetOf(batch.get(atomicOpen).qp()) == targetOf(op.qp())) {
            return false; // rao: atomics to one node are mutually exclusive
        }
        for (int j = 0; j < i; j++) {
            Op earlier = batch.get(j);
            if (earlier.qp() != op.qp() || !live(status[j])) {
                continue;
            }
            boolean mayPass = earlier.kind() == Kind.READ && op.kind() == Kind.WRITE; // R8
            if (mayPass) {
                continue;
            }
            int last = isAtomic(earlier) ? 2 * j + 1 : 2 * j;
            if ((done & bit(last)) == 0) {
                return false;
            }
        }
        return true;
    }

    private static long bit(int e) {
        return 1L << e;
    }

    private static void explore(List<Op> batch, WcStatus[] status, long[] mem, long[] results, long[] pending,
                                long done, int atomicOpen, Set<String> outcomes, Set<String> visited) {
        String key = done + Arrays.toString(mem) + Arrays.toString(results) + Arrays.toString(pending) + atomicOpen;
        if (!visited.add(key)) {
            return;
        }
        boolean any = false;
        for (int i = 0; i < batch.size(); i++) {
            if (!live(status[i])) {
                continue;
            }
            Op op = batch.get(i);
            int events = isAtomic(op) ? 2 : 1;
            for (int k = 0; k < events; k++) {
                int e = 2 * i + k;
                if ((done & bit(e)) != 0 || !enabled(batch, status, done, e, atomicOpen)) {
                    continue;
                }
                any = true;
                int addr = targetOf(op.qp()) * WORDS + op.word();
                long[] m = mem.clone();
                long[] r = results.clone();
                long[] p = pending.clone();
                int open = atomicOpen;
                switch (op.kind()) {
                    case READ -> r[i] = m[addr];
                    case WRITE -> m[addr] = op.a();
                    case CAS, FAA -> {
                        if (k == 0) {
                            r[i] = m[addr];
                            p[i] = op.kind() == Kind.FAA ? m[addr] + op.a() + 1 : (m[addr] == op.a() ? op.b() : m[addr]);
                            open = i;
                        } else {
                            boolean writes = op.kind() == Kind.FAA || r[i] == op.a();
                            if (writes) {
                                m[addr] = p[i]; // R16: a failed CAS has no write phase
                            }
                            open = -1;
                        }
                    }
                    default -> throw new AssertionError();
                }
                explore(batch, status, m, r, p, done | bit(e), open, outcomes, visited);
            }
        }
        if (!any) {
            outcomes.add(outcome(mem, results, status));
        }
    }
}
