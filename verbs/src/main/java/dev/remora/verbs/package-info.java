/**
 * Remora's verbs API: one-sided RDMA verbs behind one provider interface.
 *
 * <h2>Vocabulary</h2>
 * Every method name in Remora uses these words, for the operations of {@code docs/memory-model.md} §1:
 * <ul>
 *   <li>{@code read}, {@code write}, {@code cas}, {@code faa}: the one-sided verbs RDMA READ, RDMA WRITE,
 *       ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD ({@code get}, {@code put}, {@code cas}, {@code faa} in the litmus
 *       notation); {@code send}/{@code recv} for the two-sided control path.</li>
 *   <li>{@code post…}: the asynchronous form, which returns once the request is queued; its completion is observed
 *       later through a {@link dev.remora.verbs.CompletionQueue} or a {@link dev.remora.verbs.WaitTag}.</li>
 *   <li>{@code …Fenced}: the request carries {@link dev.remora.verbs.WorkRequest#FENCE} ({@code IBV_SEND_FENCE}).</li>
 *   <li>{@code get…}/{@code put…} on a {@link dev.remora.verbs.MemoryRegion}: the owning CPU's loads and stores
 *       (x86-TSO); {@code …Volatile}: sequentially consistent.</li>
 *   <li><em>round trip</em>: a doorbell carrying a signaled request (see
 *       {@link dev.remora.verbs.VerbsStatistics}).</li>
 * </ul>
 *
 * <h2>The types</h2>
 * A {@link dev.remora.verbs.Fabric} (chosen by provider name, see {@link dev.remora.verbs.Fabric#open}) connects
 * {@link dev.remora.verbs.Node}s. A node allocates or registers {@link dev.remora.verbs.MemoryRegion}s with
 * {@link dev.remora.verbs.Access} flags, creates {@link dev.remora.verbs.CompletionQueue}s and
 * {@link dev.remora.verbs.QueuePair}s, and connects queue pairs to peers. Reusable
 * {@link dev.remora.verbs.WorkRequest}s are posted on a queue pair, alone or as a list (one doorbell), and complete
 * as {@link dev.remora.verbs.Completion}s with a {@link dev.remora.verbs.WcStatus}. The wait layer
 * ({@link dev.remora.verbs.CompletionDispatcher}, {@link dev.remora.verbs.WaitTag}) lets independent libraries share
 * a completion queue, and {@link dev.remora.verbs.Endpoint} bundles one thread's queue pairs with the blocking
 * helpers {@code readLong/writeLong/cas/faa/read/write}.
 *
 * <h2>What every provider guarantees</h2>
 * These are the promises of the API, in the terms of the memory model ({@code docs/memory-model.md}, rules R1–R20);
 * code written against them is correct on every provider. They are the weak model ({@code IBV_ATOMIC_HCA}); a
 * provider may behave more strongly.
 * <ol>
 *   <li><b>Atomic granularity.</b> CAS and FETCH_ADD act on one 8-byte word at an 8-byte-aligned address; a
 *       misaligned address completes with {@code REM_INV_REQ_ERR} (R17). Remote atomics to one node are totally
 *       ordered and mutually exclusive among themselves (rao), but <em>not</em> against CPU writes, CPU locked
 *       read-modify-writes or remote WRITEs, which may land between an atomic's read and write phases and be lost
 *       (R14, litmus L11–L13, L16). A failed CAS writes nothing (R16). Never mix CPU and remote atomics on one word.</li>
 *   <li><b>Tearing.</b> Aligned 8-byte words are never torn, by the CPU or the NIC. A READ or WRITE longer than 8
 *       bytes moves word by word: each word of a READ's remote read and of its local write, and of a WRITE's source
 *       read and of its remote write, is read or written at its own moment, in any order. A multi-word READ is
 *       therefore not a snapshot (validate what it returns, with a version or a checksum, and retry), a WRITE may
 *       send source words from different moments, and both may be seen half done (R18, litmus L18–L22a). When
 *       {@code ibv_query_qp_data_in_order} reports {@code WHOLE_MSG} ({@code DATA_IN_ORDER}), the receiving side
 *       writes a transfer's words in address order, a WRITE's at the target and a READ's into the poster's buffer,
 *       so the last word written implies the earlier ones; the reads stay in any order.</li>
 *   <li><b>Order on one queue pair.</b> Writes land in posting order (R6, L04); a READ or atomic sees every earlier
 *       write of the same queue pair (R7, L06); an atomic's read phase is not passed by later requests (R9, L17); a
 *       later WRITE may pass an earlier READ, in its remote write and in its local source read, unless it carries
 *       FENCE (R8, R13, L07, L08).</li>
 *   <li><b>No order across queue pairs</b>, even to different nodes from one thread, except through waiting for
 *       completions (R10, L05).</li>
 *   <li><b>Local buffers.</b> A WRITE or SEND reads its source at some time between posting and completion, so a CPU
 *       store after posting may be sent (R3, L01); INLINE copies at post time. The destination of a READ and the
 *       result of an atomic are written at some time before completion (R4, L02, L03). Posting is ordered after
 *       the poster's earlier CPU stores (R2).</li>
 *   <li><b>Completion.</b> Completions of a queue pair arrive in posting order (R11). A completed READ or atomic's
 *       data is visible to the poster's CPU. A completed WRITE means the target acknowledged it, not that the
 *       target's CPUs see it: a later READ or atomic on the same queue pair that completes does imply it (R7, R11,
 *       L05b, L09a). Use {@link dev.remora.verbs.WaitTag#await(long)} rather than raw polling to wait for your own
 *       operations (R12, L19).</li>
 *   <li><b>Errors</b> are completions, as on hardware (R17, R20), and they come in posting order. A request the NIC
 *       refuses (bad rkey, out of bounds or missing access flag → {@code REM_ACCESS_ERR}; atomic at a misaligned
 *       remote address → {@code REM_INV_REQ_ERR}; bad local buffer → {@code LOC_PROT_ERR}) has no effect; the
 *       requests before it on its queue pair complete as they would have, and every later one completes
 *       {@code WR_FLUSH_ERR} with no effect. A fault (a crashed peer, a cut link, a queue pair forced into
 *       {@code ERROR}) breaks the queue pair: nothing on it completes successfully any more, the oldest unfinished
 *       request completes {@code RETRY_EXC_ERR} after the provider's retry timeout ({@code WR_FLUSH_ERR} for a queue
 *       pair forced into {@code ERROR}) and every later one {@code WR_FLUSH_ERR}. Those failures are
 *       <em>indeterminate</em>: a request that had reached the NIC may have taken effect at the target, may take
 *       effect after its error completion, or never, and a WRITE that completed with {@code SUCCESS} still lands
 *       unless its target crashed. A node that crashes completes nothing more, but its requests in flight may still
 *       land at their targets. So treat {@code RETRY_EXC_ERR}, and a {@code WR_FLUSH_ERR} not preceded on its
 *       queue pair by a refusal, as an unknown outcome ({@code info} in a history), never as a failure, and never
 *       assume that a failed WRITE did not land (litmus E01–E17; {@link
 *       dev.remora.verbs.RemoteAccessException#isIndeterminate()} answers conservatively for a blocking helper).
 *       Misuse of the Java API (null, negative lengths, an atomic whose local result address is not 8-byte aligned,
 *       posting on a closed fabric or an unconnected queue pair) throws at once and posts nothing.</li>
 *   <li><b>Byte order.</b> Words are in the host's native byte order on every provider (like {@code mlx5} with
 *       host-endian atomics).</li>
 * </ol>
 *
 * <h2>What the software fabric adds</h2>
 * The fast fabric, {@link dev.remora.verbs.sim.SimFabric}, is stronger than the list above, which is allowed: it
 * executes each request at one moment between posting and completion, in posting order per queue pair, with remote
 * atomics atomic against everything, and a request that fails has had no effect (a multi-word transfer is still one
 * bulk copy of whole words, which a concurrent CPU access may see half done). Code that passes only there may rely on
 * more than the contract. The deterministic fabric ({@code dev.remora.verbs.det}, provider {@code det}) exhibits
 * every weak behaviour above, one step at a time as {@code spec/rdma/Verbs.tla} allows it: late source reads and
 * destination writes, torn transfers, the reorderings of items 3 and 4, weak atomics, refusals and flushes, and,
 * under its fault plan, crashes, cut links and indeterminate requests. Its clock is virtual: waits time out on it
 * while requests are still in flight, and a round-trip delay per link or node ({@code DetContext}) makes a request
 * take effect and complete after its waiter gave up, the late completion reaching the completion queue like any
 * other. Real hardware may show any of them.
 */
package dev.remora.verbs;
