package dev.remora.spec.fabric;

import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Location;
import dev.remora.spec.litmus.Op;
import dev.remora.spec.litmus.Status;
import dev.remora.spec.litmus.ThreadProgram;
import dev.remora.spec.litmus.Verdict;
import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs litmus tests on a real provider, like {@code litmus7} runs them on CPUs: each test thread is a Java thread on
 * its node, the threads start together, and the run is repeated many times; the outcomes (registers and final
 * memory) are counted. A forbidden outcome observed is a provider bug (or a test bug); the allowed weak outcomes the
 * provider exhibited are reported, since a provider may be stronger than the model.
 *
 * <p>Each node's locations are words of one region in declaration order (plus a spare word, so a misaligned atomic
 * stays in bounds). Every verb is signaled; {@code poll(N)} retires the oldest unretired request of the thread to
 * {@code N}, {@code wait(d)} the thread's requests tagged {@code d}. A refusal flag makes the request refusable:
 * {@code !K} a wrong remote key, {@code !A} a misaligned remote address, {@code !L} a wrong local key. Tests with
 * faults (crashes, cut links) need fault injection and are left to the deterministic fabric.
 */
public final class ProviderLitmusRunner {
    private static final long STEP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private ProviderLitmusRunner() {
    }

    /**
     * What a provider did in a test's runs.
     *
     * @param test the test
     * @param expected the file's verdict for the provider (its default settings)
     * @param outcomes each outcome with how many runs gave it
     * @param runs the number of runs
     * @param skipped why the test was not run, or null
     */
    public record Result(LitmusTest test, Verdict expected, Map<Map<String, Long>, Long> outcomes, int runs,
                         String skipped) {
        /** @return whether an outcome the file forbids was observed */
        public boolean forbiddenObserved() {
            return skipped == null && expected == Verdict.FORBIDDEN && outcomes.keySet().stream()
                .anyMatch(test::outcomeMatches);
        }

        /** @return whether the outcome the test asks about was observed (for an allowed one: a weak behaviour seen) */
        public boolean finalOutcomeObserved() {
            return outcomes.keySet().stream().anyMatch(test::outcomeMatches);
        }
    }

    /**
     * Runs a test.
     *
     * @param test the test
     * @param fabrics opens a fresh fabric of the provider (closed after the runs)
     * @param runs how many times
     * @return the outcome counts
     */
    public static Result run(LitmusTest test, Supplier<Fabric> fabrics, int runs) {
        Verdict expected = test.expected(KnobSettings.defaults());
        if (!test.faults().isEmpty()) {
            return new Result(test, expected, Map.of(), 0, "it injects faults (" + test.faults().size()
                + "): run it on the deterministic fabric");
        }
        Map<Map<String, Long>, Long> outcomes = new LinkedHashMap<>();
        try (Fabric fabric = fabrics.get()) {
            Setup s;
            try {
                s = new Setup(test, fabric);
            } catch (UnsupportedOperationException e) {
                return new Result(test, expected, Map.of(), 0, e.getMessage());
            }
            for (int i = 0; i < runs; i++) {
                outcomes.merge(new TreeMap<>(s.runOnce()), 1L, Long::sum);
            }
            s.close();
        }
        return new Result(test, expected, outcomes, runs, null);
    }

    /** The nodes, regions, threads' queues of one test, reused by every run. */
    private static final class Setup {
        final LitmusTest test;
        final Map<String, Node> nodes = new HashMap<>();
        final Map<String, MemoryRegion> regions = new HashMap<>();
        /** Location name to its word index in its node's region. */
        final Map<String, Integer> index = new HashMap<>();
        final List<Runner> runners = new ArrayList<>();

        Setup(LitmusTest test, Fabric fabric) {
            this.test = test;
            Map<String, Integer> words = new HashMap<>();
            for (String n : test.nodes()) {
                nodes.put(n, fabric.addNode(n));
                words.put(n, 0);
            }
            for (Location l : test.locations()) {
                int i = words.merge(l.node(), 1, Integer::sum) - 1;
                index.put(l.name(), i);
            }
            for (String n : test.nodes()) {
                regions.put(n, nodes.get(n).allocate(8L * (words.get(n) + 2), Access.ALL));
            }
            for (String n : test.nodes()) {
                for (String other : test.nodes()) {
                    if (!n.equals(other)) {
                        fabric.connect(nodes.get(other).address()); // a no-op in one process; resolves peers
                    }
                }
            }
            for (ThreadProgram t : test.threads()) {
                runners.add(new Runner(this, t));
            }
        }

        Map<String, Long> runOnce() {
            for (Location l : test.locations()) {
                regions.get(l.node()).putLongVolatile(8L * index.get(l.name()), l.initialValue());
            }
            Map<String, Long> registers = new HashMap<>();
            for (String r : test.registers()) {
                registers.put(r, 0L);
            }
            AtomicInteger gate = new AtomicInteger(runners.size());
            List<Thread> threads = new ArrayList<>();
            List<RuntimeException> failures = new ArrayList<>();
            for (Runner r : runners) {
                Thread th = new Thread(() -> {
                    gate.decrementAndGet();
                    while (gate.get() > 0) {
                        Thread.onSpinWait(); // start together, to give the interleavings a chance
                    }
                    try {
                        r.run();
                    } catch (RuntimeException e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }, "litmus-" + r.program.name());
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                try {
                    th.join(TimeUnit.NANOSECONDS.toMillis(STEP_TIMEOUT_NS) * 2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted");
                }
                if (th.isAlive()) {
                    throw new IllegalStateException("litmus thread " + th.getName() + " of " + test.id()
                        + " did not finish");
                }
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
            for (Runner r : runners) {
                r.drain(); // quiescence: every request completed before memory is read
                registers.putAll(r.registers);
            }
            Map<String, Long> outcome = new HashMap<>(registers);
            for (Location l : test.locations()) {
                outcome.put(l.name(), regions.get(l.node()).getLongVolatile(8L * index.get(l.name())));
            }
            return outcome;
        }

        void close() {
            for (Runner r : runners) {
                r.close();
            }
            regions.values().forEach(MemoryRegion::close);
        }
    }

    /** One test thread: its completion queue and a queue pair to each node it talks to. */
    private static final class Runner {
        final Setup setup;
        final ThreadProgram program;
        final Node node;
        final MemoryRegion local;
        /** A deregistered region of the thread's node: its key is the wrong local key of a {@code !L} request. */
        final MemoryRegion revoked;
        final CompletionQueue cq;
        final Map<String, QueuePair> qps = new HashMap<>();
        final Map<String, Long> registers = new HashMap<>();
        final Map<String, ArrayDeque<Long>> unretired = new HashMap<>();
        final Map<String, List<Long>> tagged = new HashMap<>();
        final Map<Long, WcStatus> done = new HashMap<>();
        final Completion[] out = new Completion[16];
        final WorkRequest wr = new WorkRequest();
        long nextId;
        int issued;

        Runner(Setup setup, ThreadProgram program) {
            this.setup = setup;
            this.program = program;
            this.node = setup.nodes.get(program.node());
            this.local = setup.regions.get(program.node());
            this.cq = node.createCompletionQueue(256);
            this.revoked = node.allocate(local.length(), Access.ALL);
            revoked.deregister();
            for (int i = 0; i < out.length; i++) {
                out[i] = new Completion();
            }
            for (Op op : program.ops()) {
                if (op instanceof Op.Verb v && !qps.containsKey(v.node())) {
                    qps.put(v.node(), node.connect(setup.nodes.get(v.node()), cq));
                    unretired.put(v.node(), new ArrayDeque<>());
                }
            }
        }

        void run() {
            registers.clear();
            done.clear();
            tagged.clear();
            unretired.values().forEach(ArrayDeque::clear);
            issued = 0;
            for (String name : qps.keySet()) {
                QueuePair qp = qps.get(name);
                if (qp.state() != dev.remora.verbs.QpState.RTS) {
                    qp.close(); // a refusal in the last run moved it to ERROR: a fresh one for this run
                    qps.put(name, node.connect(setup.nodes.get(name), cq));
                }
            }
            for (Op op : program.ops()) {
                step(op);
            }
        }

        private long word(String location) {
            return 8L * setup.index.get(location);
        }

        private void step(Op op) {
            if (op instanceof Op.CpuWrite w) {
                local.putLong(word(w.location()), w.value());
            } else if (op instanceof Op.CpuRead r) {
                registers.put(r.register(), local.getLong(word(r.location())));
            } else if (op instanceof Op.MFence) {
                node.fullFence();
            } else if (op instanceof Op.LocalFaa f) {
                long old = local.getAndAddLong(word(f.location()), f.addend());
                f.register().ifPresent(reg -> registers.put(reg, old));
            } else if (op instanceof Op.Poll p) {
                ArrayDeque<Long> q = unretired.get(p.node());
                if (q == null || q.isEmpty()) {
                    throw new IllegalStateException(program.name() + " polls " + p.node() + " with nothing issued");
                }
                long id = q.poll();
                WcStatus s = awaitDone(id);
                p.register().ifPresent(reg -> registers.put(reg, code(s)));
            } else if (op instanceof Op.Wait w) {
                for (long id : tagged.getOrDefault(w.tag(), List.of())) {
                    awaitDone(id);
                    unretired.values().forEach(q -> q.remove(id));
                }
                tagged.remove(w.tag());
            } else if (op instanceof Op.Verb v) {
                post(v);
            }
        }

        private void post(Op.Verb v) {
            MemoryRegion remote = setup.regions.get(v.node());
            Optional<Status> refusal = v.refusal();
            int rkey = refusal.orElse(null) == Status.REM_ACCESS_ERR ? remote.rkey() ^ 0x5A5A5A5A : remote.rkey();
            int misalign = refusal.orElse(null) == Status.REM_INV_REQ_ERR ? 4 : 0;
            long id = ++nextId;
            MemoryRegion local = refusal.orElse(null) == Status.LOC_PROT_ERR ? revoked : this.local;
            if (v instanceof Op.Put p) {
                int len = contiguous(p.dst(), v.node()) * 8;
                contiguous(p.src(), program.node());
                wr.write(local, word(p.src().get(0)), len, new dev.remora.verbs.RemoteAddress(remote.node().id(), rkey,
                    remote.address() + word(p.dst().get(0)) + misalign));
                wr.flags(WorkRequest.SIGNALED | (p.inline() ? WorkRequest.INLINE : 0));
            } else if (v instanceof Op.Get g) {
                int len = contiguous(g.src(), v.node()) * 8;
                contiguous(g.dst(), program.node());
                wr.read(local, word(g.dst().get(0)), len, new dev.remora.verbs.RemoteAddress(remote.node().id(), rkey,
                    remote.address() + word(g.src().get(0)) + misalign));
                wr.flags(WorkRequest.SIGNALED);
            } else if (v instanceof Op.Cas c) {
                wr.cas(local, word(c.result()), new dev.remora.verbs.RemoteAddress(remote.node().id(), rkey,
                    remote.address() + word(c.dst()) + misalign), c.expected(), c.desired());
                wr.flags(WorkRequest.SIGNALED);
            } else {
                Op.Faa f = (Op.Faa) v;
                wr.faa(local, word(f.result()), new dev.remora.verbs.RemoteAddress(remote.node().id(), rkey,
                    remote.address() + word(f.dst()) + misalign), f.addend());
                wr.flags(WorkRequest.SIGNALED);
            }
            if (v.fence()) {
                wr.flags(wr.flags() | WorkRequest.FENCE);
            }
            wr.wrId(id);
            long deadline = System.nanoTime() + STEP_TIMEOUT_NS;
            while (qps.get(v.node()).post(wr) == QueuePair.QUEUE_FULL) {
                collect(1_000_000);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(program.name() + ": the send queue stayed full");
                }
            }
            issued++;
            unretired.get(v.node()).add(id);
            v.tag().ifPresent(t -> tagged.computeIfAbsent(t, k -> new ArrayList<>()).add(id));
        }

        /** @return the number of words, checking that they follow each other in the node's region */
        private int contiguous(List<String> locations, String nodeName) {
            int first = setup.index.get(locations.get(0));
            for (int i = 1; i < locations.size(); i++) {
                if (setup.index.get(locations.get(i)) != first + i) {
                    throw new UnsupportedOperationException("its transfer " + locations + " is not contiguous in the "
                        + "declaration order of " + nodeName + "'s words");
                }
            }
            return locations.size();
        }

        private WcStatus awaitDone(long id) {
            long deadline = System.nanoTime() + STEP_TIMEOUT_NS;
            while (!done.containsKey(id)) {
                collect(1_000_000);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(program.name() + ": request " + id + " did not complete");
                }
            }
            return done.get(id);
        }

        private void collect(long timeoutNs) {
            int n = cq.await(out, timeoutNs);
            for (int i = 0; i < n; i++) {
                done.put(out[i].wrId(), out[i].status());
            }
        }

        void drain() {
            long deadline = System.nanoTime() + STEP_TIMEOUT_NS;
            while (done.size() < issued) {
                collect(1_000_000);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(program.name() + ": " + (issued - done.size())
                        + " requests did not complete");
                }
            }
        }

        void close() {
            qps.values().forEach(QueuePair::close);
            cq.close();
        }

        private static long code(WcStatus s) {
            try {
                return Status.valueOf(s.name()).code();
            } catch (IllegalArgumentException e) {
                return -1;
            }
        }
    }
}
