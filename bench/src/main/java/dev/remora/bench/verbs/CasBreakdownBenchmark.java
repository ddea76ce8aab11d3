package dev.remora.bench.verbs;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;
import dev.remora.verbs.sim.SimFabric;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Where the time of one blocking remote CAS goes: the same CAS issued through successively fewer layers, so that
 * the differences between the scores attribute the cost.
 * <ol>
 *   <li>{@link #endpointCas}: {@link Endpoint#cas}, the whole blocking helper (as in
 *       {@link VerbsOverheadBenchmark#fabricCas});</li>
 *   <li>{@link #tagCas}: a cached {@link WorkRequest} posted through a {@link WaitTag} and awaited, as a library
 *       on the wait layer would (no per-call description string, no queue-pair lookup);</li>
 *   <li>{@link #queuePairCas}: the cached request posted on the {@link QueuePair} and its completion polled
 *       straight from the {@link CompletionQueue}: the provider's own cost.</li>
 * </ol>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CasBreakdownBenchmark {
    private SimFabric fabric;
    private Endpoint endpoint;
    private RemoteAddress word;
    private long expected;

    private QueuePair qp;
    private CompletionQueue cq;
    private WaitTag tag;
    private MemoryRegion result;
    private final WorkRequest wr = new WorkRequest();
    private final Completion[] completions = {new Completion()};
    private final Object monitor = new Object();
    private long monitorCounter;

    /** Creates the state; JMH calls {@link #setUp()}. */
    public CasBreakdownBenchmark() {
    }

    /** Opens a two-node fabric with no injected latency, an endpoint and a separate queue pair and queue. */
    @Setup(Level.Trial)
    public void setUp() {
        fabric = SimFabric.open();
        Node home = fabric.addNode("home");
        Node client = fabric.addNode("client");
        word = home.allocate(4096, Access.ALL).remote(0);
        endpoint = Endpoint.open(client);
        endpoint.queuePair(home.id());
        tag = endpoint.newTag("breakdown");
        result = client.allocate(64, Access.LOCAL_WRITE);
        cq = client.createCompletionQueue(64);
        qp = client.connect(home, cq);
    }

    /** Closes everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        qp.close();
        cq.close();
        endpoint.close();
        fabric.close();
    }

    /**
     * The blocking helper.
     *
     * @return the old value
     */
    @Benchmark
    public long endpointCas() {
        long old = endpoint.cas(word, expected, expected + 1);
        expected = old + 1;
        return old;
    }

    /**
     * Post through a wait tag on the endpoint's queue pair, then await the tag.
     *
     * @return the old value
     */
    @Benchmark
    public long tagCas() {
        wr.cas(result, 0, word, expected, expected + 1).flags(WorkRequest.SIGNALED);
        QueuePair endpointQp = endpoint.queuePair(word.nodeId());
        if (tag.post(endpointQp, wr) != QueuePair.POSTED) {
            throw new IllegalStateException("queue full");
        }
        tag.await(Long.MAX_VALUE);
        long old = result.getLong(0);
        expected = old + 1;
        return old;
    }

    /**
     * Post on a queue pair and poll its completion queue until the completion arrives.
     *
     * @return the old value
     */
    @Benchmark
    public long queuePairCas() {
        wr.cas(result, 0, word, expected, expected + 1).flags(WorkRequest.SIGNALED);
        if (qp.post(wr) != QueuePair.POSTED) {
            throw new IllegalStateException("queue full");
        }
        while (cq.poll(completions) == 0) {
            Thread.onSpinWait();
        }
        long old = result.getLong(0);
        expected = old + 1;
        return old;
    }

    /**
     * Reference unit: one uncontended monitor enter and exit around an increment.
     *
     * @return the counter
     */
    @Benchmark
    public long monitorEnterExit() {
        synchronized (monitor) {
            return ++monitorCounter;
        }
    }

    /**
     * Reference unit: one {@link System#nanoTime()}.
     *
     * @return the time
     */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
