package dev.remora.bench.verbs;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
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

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Single-threaded cost of one blocking verb through {@link Endpoint} on the fast {@link SimFabric} (no injected
 * latency, so the request executes on the calling thread), beside the same memory operation done directly on a
 * direct {@link ByteBuffer}, in the same run:
 *
 * <table>
 *   <caption>pairs; {@link VerbsOverheadBench} prints fabric / raw for each</caption>
 *   <tr><th>fabric</th><th>raw</th></tr>
 *   <tr><td>{@link #fabricCas}: 8-byte CAS</td><td>{@link #rawCas}: {@code VarHandle.compareAndExchange}</td></tr>
 *   <tr><td>{@link #fabricFaa}: 8-byte FETCH_ADD</td><td>{@link #rawFaa}: {@code VarHandle.getAndAdd}</td></tr>
 *   <tr><td>{@link #fabricRead64}: 64-byte READ</td><td>{@link #rawRead64}: 64-byte buffer-to-buffer copy</td></tr>
 *   <tr><td>{@link #fabricWrite64}: 64-byte WRITE</td><td>{@link #rawWrite64}: 64-byte buffer-to-buffer copy</td>
 *   </tr>
 * </table>
 *
 * <p>Each CAS succeeds (it swaps in the value it expects next time), as in an uncontended lock. The fabric's CAS
 * returns the old value, so the raw baseline is {@code compareAndExchange}, not {@code compareAndSet}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class VerbsOverheadBenchmark {
    /** Bytes moved by the READ and WRITE benchmarks. */
    static final int BLOCK_BYTES = 64;

    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private SimFabric fabric;
    private Endpoint endpoint;
    private MemoryRegion local;
    private RemoteAddress word;
    private RemoteAddress block;
    private long expected;

    private ByteBuffer raw;
    private ByteBuffer rawLocal;
    private long rawExpected;

    /** Creates the state; JMH calls {@link #setUp()}. */
    public VerbsOverheadBenchmark() {
    }

    /** Opens a two-node fabric with no injected latency, a home region and a client endpoint. */
    @Setup(Level.Trial)
    public void setUp() {
        fabric = SimFabric.open();
        Node home = fabric.addNode("home");
        Node client = fabric.addNode("client");
        MemoryRegion remote = home.allocate(4096, Access.ALL);
        word = remote.remote(0);
        block = remote.remote(BLOCK_BYTES);
        local = client.allocate(4096, Access.LOCAL_WRITE);
        endpoint = Endpoint.open(client);
        endpoint.queuePair(home.id());

        raw = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
        rawLocal = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
    }

    /** Closes the endpoint and the fabric. */
    @TearDown(Level.Trial)
    public void tearDown() {
        endpoint.close();
        fabric.close();
    }

    /**
     * Remote CAS through {@link Endpoint#cas}: one signaled request, one completion.
     *
     * @return the old value
     */
    @Benchmark
    public long fabricCas() {
        long old = endpoint.cas(word, expected, expected + 1);
        expected = old + 1;
        return old;
    }

    /**
     * Raw CAS on a direct buffer.
     *
     * @return the old value
     */
    @Benchmark
    public long rawCas() {
        long old = (long) LONG.compareAndExchange(raw, 0, rawExpected, rawExpected + 1);
        rawExpected = old + 1;
        return old;
    }

    /**
     * Remote FETCH_ADD through {@link Endpoint#faa}.
     *
     * @return the old value
     */
    @Benchmark
    public long fabricFaa() {
        return endpoint.faa(word, 1);
    }

    /**
     * Raw fetch-and-add on a direct buffer.
     *
     * @return the old value
     */
    @Benchmark
    public long rawFaa() {
        return (long) LONG.getAndAdd(raw, 0, 1L);
    }

    /**
     * 64-byte remote READ through {@link Endpoint#read} into a local region.
     *
     * @return the first word read
     */
    @Benchmark
    public long fabricRead64() {
        endpoint.read(block, local, 0, BLOCK_BYTES);
        return local.getLong(0);
    }

    /**
     * 64-byte copy from a direct buffer into another.
     *
     * @return the first word copied
     */
    @Benchmark
    public long rawRead64() {
        rawLocal.put(0, raw, BLOCK_BYTES, BLOCK_BYTES);
        return (long) LONG.getAcquire(rawLocal, 0);
    }

    /** 64-byte remote WRITE through {@link Endpoint#write} from a local region. */
    @Benchmark
    public void fabricWrite64() {
        endpoint.write(block, local, 0, BLOCK_BYTES);
    }

    /** 64-byte copy into a direct buffer from another. */
    @Benchmark
    public void rawWrite64() {
        raw.put(BLOCK_BYTES, rawLocal, 0, BLOCK_BYTES);
    }
}
