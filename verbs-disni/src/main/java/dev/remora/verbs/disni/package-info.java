/**
 * The verbs on RDMA hardware through DiSNI ({@code com.ibm.disni:disni:2.1}), provider {@code disni}.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Control and naming</b>: the socket fabric, reused whole as a control channel (node ids, names,
 *       publish/lookup, the cluster secret); each node also publishes its RDMA CM port there. See
 *       {@link dev.remora.verbs.disni.DisniFabric}.</li>
 *   <li><b>Resources</b>: DiSNI's public API for the event channel, CM ids, protection domains, memory regions,
 *       completion queues and queue pairs.</li>
 *   <li><b>Hot path</b>: the provider's own stateful verb calls over libdisni's {@code NativeDispatcher}: a post
 *       rewrites a per-queue-pair image of {@code ibv_send_wr}s made once and calls {@code ibv_post_send}; a poll
 *       reads {@code ibv_wc}s into a per-queue array made once. No allocation per request.</li>
 *   <li><b>The atomic fix</b>: DiSNI 2.1 never writes the {@code atomic} member of {@code ibv_send_wr}; this
 *       provider's marshalling writes every byte of the image ({@code IbvSendWrDescriptor}), proved byte by byte
 *       by {@code SendWrMarshallingTest} without a device.</li>
 *   <li><b>Layout</b>: each native struct is quoted above its Java mirror ({@code Ibv…Descriptor}); the sizes and
 *       offsets libdisni was compiled with are compared with the mirrors when the provider loads
 *       ({@code NativeLayout}), and a mismatch fails fast.</li>
 *   <li><b>Availability</b>: {@link dev.remora.verbs.disni.DisniAvailability} names what is missing (DiSNI, the
 *       {@code sun.nio.ch} export, libibverbs, librdmacm, libdisni, a device); opening the fabric without it
 *       throws with that reason, and the hardware tests skip with it.</li>
 * </ul>
 * Building libdisni and running on a cluster: {@code docs/hardware.md}.
 */
package dev.remora.verbs.disni;
