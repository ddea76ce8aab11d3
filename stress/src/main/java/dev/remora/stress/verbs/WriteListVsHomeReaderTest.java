package dev.remora.stress.verbs;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Litmus L04 (message passing through WRITEs on one queue pair): client 1 posts the list {@code WRITE data := 1;
 * WRITE flag := 1} with one doorbell on one queue pair, while the home CPU loads {@code flag} and then {@code data}
 * (TSO loads are not reordered with each other, R1). Writes of one queue pair land in posting order (R6), so a reader
 * that sees the flag also sees the data. The two words are on different cache lines.
 *
 * <p>Result: {@code r1} = flag, {@code r2} = data, as the home CPU read them.
 */
@JCStressTest
@State
@Description("L04/R6: WRITEs of one queue pair land in posting order, seen from the home CPU")
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "the reader ran before either WRITE landed")
@Outcome(id = "0, 1", expect = Expect.ACCEPTABLE,
    desc = "the reader read the flag before it landed and the data after it landed")
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the reader ran after both WRITEs landed")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN,
    desc = "the flag WRITE landed before the earlier data WRITE of the same queue pair: R6 violated")
@Outcome(expect = Expect.FORBIDDEN, desc = "a value nobody wrote")
public class WriteListVsHomeReaderTest {
    private static final ThreadLocal<Writer> WRITER = ThreadLocal.withInitial(Writer::new);

    private final long offset = StressFabric.takeSlot();
    private final RemoteAddress data = StressFabric.remote(offset + StressFabric.WORD_A);
    private final RemoteAddress flag = StressFabric.remote(offset + StressFabric.WORD_C);

    /** Creates a state with data and flag at 0. */
    public WriteListVsHomeReaderTest() {
    }

    /** Client 1 posts the two WRITEs as one list (one doorbell) and waits for them. */
    @Actor
    public void client1() {
        WRITER.get().writeDataThenFlag(data, flag);
    }

    /**
     * The home CPU reads the flag, then the data.
     *
     * @param r the result
     */
    @Actor
    public void home(JJ_Result r) {
        MemoryRegion memory = StressFabric.home();
        r.r1 = memory.getLong(offset + StressFabric.WORD_C);
        r.r2 = memory.getLong(offset + StressFabric.WORD_A);
    }

    /** One actor thread's reusable requests and the 8-byte source word holding 1. */
    private static final class Writer {
        private final Endpoint endpoint = StressFabric.client(1);
        private final WaitTag tag = endpoint.newTag("write-list");
        private final MemoryRegion source = StressFabric.clientNode(1).allocate(Long.BYTES, Access.LOCAL_WRITE);
        private final WorkRequest[] list = {new WorkRequest(), new WorkRequest()};

        Writer() {
            source.putLongVolatile(0, 1L);
        }

        void writeDataThenFlag(RemoteAddress data, RemoteAddress flag) {
            list[0].write(source, 0, Long.BYTES, data).flags(0);
            list[1].write(source, 0, Long.BYTES, flag).flags(WorkRequest.SIGNALED);
            QueuePair qp = endpoint.queuePair(StressFabric.HOME_ID);
            while (tag.post(qp, list, list.length) == QueuePair.QUEUE_FULL) {
                tag.await(endpoint.operationTimeoutNs());
            }
            WaitStatus status = tag.await(endpoint.operationTimeoutNs());
            if (status != WaitStatus.COMPLETED) {
                throw new RemoteAccessException(tag.lastError(), "WRITE list to " + data + " and " + flag
                    + " ended " + status);
            }
        }
    }
}
