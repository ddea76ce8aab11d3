/**
 * The UCX provider ({@code ucx}): the verbs API on UCX, the communication framework that runs over shared memory and
 * TCP on any Linux machine and over InfiniBand and RoCE devices on a cluster (libucp 1.13 or later, JUCX 1.15 for
 * contexts, workers and memory registration, the Foreign Function &amp; Memory API for everything on the data path;
 * JDK 22+). {@link dev.remora.verbs.ucx.UcxFabric} describes the design, {@link dev.remora.verbs.ucx.UcxContext} the
 * settings, {@link dev.remora.verbs.ucx.UcxFabricProvider#unavailableReason()} what is missing where it cannot run;
 * docs/ucx.md has the measurements.
 *
 * <h2>Verbs onto UCX</h2>
 * <table>
 *   <caption>What each verbs object is in UCX</caption>
 *   <tr><th>verbs</th><th>UCX</th></tr>
 *   <tr><td>node</td><td>a {@code ucp_context_h} and a {@code ucp_worker_h} (single-thread mode, serialized by the
 *       node's lock), and a connection manager listening at the node's address</td></tr>
 *   <tr><td>memory region, lkey, rkey</td><td>a direct buffer mapped with {@code ucp_mem_map}; the keys are the
 *       provider's own random 32-bit key; peers fetch the region's bounds, access flags and packed UCX key
 *       ({@code ucp_rkey_pack}) on first use and unpack it ({@code ucp_ep_rkey_unpack})</td></tr>
 *   <tr><td>queue pair</td><td>a send queue and a receive queue of the provider over the {@code ucp_ep_h} between its
 *       node's worker and its target's, one endpoint per pair of nodes (peer error handling mode)</td></tr>
 *   <tr><td>READ, WRITE</td><td>{@code ucp_get_nbx}, {@code ucp_put_nbx}</td></tr>
 *   <tr><td>CAS, FETCH_ADD</td><td>{@code ucp_atomic_op_nbx} with {@code UCP_ATOMIC_OP_CSWAP} and a fetching
 *       {@code UCP_ATOMIC_OP_ADD}, 64-bit, reply buffer in the entry's native slot</td></tr>
 *   <tr><td>SEND, RECV</td><td>an active message ({@code ucp_am_send_nbx}, eager) to the peer queue pair, answered by
 *       the receiver with the outcome (success, receiver not ready, too long)</td></tr>
 *   <tr><td>completion queue</td><td>the provider's ring; completions are found by {@code ucp_request_check_status}
 *       on the requests in posting order (no callbacks, nothing allocated per request by UCX's bindings)</td></tr>
 *   <tr><td>progress (the NIC)</td><td>one thread per fabric progressing every local worker and sleeping in
 *       {@code epoll_wait} on their event descriptors, and pollers that progress their node's worker when idle</td></tr>
 * </table>
 *
 * <h2>Every guarantee of the verbs API onto UCX</h2>
 * UCX orders less than verbs: it promises no order between the operations of an endpoint, and a PUT's completion
 * only means its source may be reused. The provider adds what is missing; each row is a guarantee of
 * {@code dev.remora.verbs} (its package description) and the rules of docs/memory-model.md it stands for.
 * <table>
 *   <caption>The guarantees of the verbs API and what the provider does on UCX to keep them</caption>
 *   <tr><th>guarantee</th><th>what UCX gives</th><th>what the provider adds</th></tr>
 *   <tr><td>1. atomic granularity (R14, R16, R17)</td><td>64-bit CSWAP and ADD, atomic among themselves; executed by
 *       the target's CPU ({@code lock cmpxchg}) over TCP and for registered memory over shared memory, so also atomic
 *       against the CPU (stronger)</td><td>a misaligned remote address is refused {@code REM_INV_REQ_ERR} before
 *       issue; a failed CAS writes nothing (UCX's CSWAP)</td></tr>
 *   <tr><td>2. tearing (R18)</td><td>bytes copied by {@code memcpy} (the kernel's for {@code process_vm_*}, glibc's
 *       for TCP), which moves aligned words whole on x86-64</td><td>nothing; a multi-word transfer is not a
 *       snapshot, as the contract says</td></tr>
 *   <tr><td>3. order on one queue pair (R6, R7, R8, R9, R13)</td><td>none promised between operations of an
 *       endpoint; {@code ucp_worker_fence} (weak in 1.13) orders the operations of each lane, not of two</td>
 *       <td>issue rules: after a READ in flight only a WRITE without FENCE is issued, after an atomic or SEND in
 *       flight nothing; between a WRITE and the next request a {@code ucp_worker_fence} on an endpoint whose
 *       requests travel on one lane, a completed {@code ucp_ep_flush_nbx} on one with several
 *       ({@code ordering=auto}, the default; the lanes are read from {@code ucp_ep_print_info} once the endpoint is
 *       wired up, and {@code MAX_RNDV_RAILS=1} keeps TCP to one)</td></tr>
 *   <tr><td>4. no order across queue pairs (R10)</td><td>none</td><td>nothing (two queue pairs to one node share an
 *       endpoint, which only orders more)</td></tr>
 *   <tr><td>5. local buffers (R2, R3, R4)</td><td>a PUT reads its source, a GET writes its destination, at some time
 *       before completion</td><td>INLINE copies the source at post time; an atomic's result goes to a native slot and
 *       is copied into the local region just before its completion; posting happens after the poster's stores (a
 *       lock)</td></tr>
 *   <tr><td>6. completion (R11, R12)</td><td>per request, in any order; a PUT's completion is local</td><td>completions
 *       delivered in posting order; a signaled WRITE completes after a {@code ucp_ep_flush_nbx} issued behind it
 *       completed, so it was placed (stronger than R11's acknowledgement); a completed READ or atomic executed at
 *       the target after the earlier WRITEs (rule 3)</td></tr>
 *   <tr><td>7. errors (R17, R20)</td><td>peer failure (peer error handling) fails requests; no key, bounds or access
 *       checks of its own for registered memory</td><td>keys, bounds and access flags checked before issue against
 *       the target's key record (a refusal is never issued, and nothing after it is); deregistration revokes the key
 *       at every peer, which answers once its requests with it completed, before {@code ucp_mem_unmap}; a request not
 *       completed within {@code retryTimeoutNs} of posting completes {@code RETRY_EXC_ERR} and flushes the rest (its
 *       UCX requests live on as orphans until UCX completes them); a SEND is retried while the receiver has no RECV,
 *       up to {@code rnrTimeoutNs}</td></tr>
 *   <tr><td>8. byte order</td><td>native on both ends (one machine, or one architecture)</td><td>nothing</td></tr>
 * </table>
 *
 * <h2>Unsafe code</h2>
 * {@code Ucx} holds every downcall, the native structs (each quoted above its mirror, sizes checked at load) and the
 * constants of UCX 1.13's headers; {@code UcxNode} holds the AM upcall. Nothing outside this package sees a native
 * pointer.
 */
package dev.remora.verbs.ucx;
