/**
 * The software fabric: every node in one JVM, memory off-heap, NIC work done by the posting thread or by NIC threads.
 * Open it with {@link dev.remora.verbs.sim.SimFabric#open(SimContext)} or {@code Fabric.open("sim", properties)};
 * settings are in {@link dev.remora.verbs.sim.SimContext}.
 */
package dev.remora.verbs.sim;
