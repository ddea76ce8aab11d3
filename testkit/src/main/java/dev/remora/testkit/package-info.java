/**
 * Shared test support for the objects' tests and the benchmarks, on the verbs API, the linearizability checker and
 * HdrHistogram only (so that every module, objects and locks included, may use it in test scope without a cycle).
 *
 * <ul>
 *   <li>{@link dev.remora.testkit.Cluster}: a fabric with named nodes and the endpoints opened on them, closed
 *       together, from named factories for the fast fabric (optionally the 2 µs preset), the deterministic fabric
 *       (seed, knobs, faults) and the in-process socket fabric;</li>
 *   <li>{@link dev.remora.testkit.Histories}: history recorders that classify unknown outcomes as the verbs do
 *       ({@code info}, never {@code fail}), and checks with a model;</li>
 *   <li>{@link dev.remora.testkit.Bounded}: loops bounded in count and time; {@link dev.remora.testkit.Parallel}:
 *       threads started together and joined within a bound;</li>
 *   <li>{@link dev.remora.testkit.Zipf}: Zipf-distributed ranks, the key popularity of the YCSB workloads that the kv
 *       benchmark and the demo run; {@link dev.remora.testkit.YcsbDriver}: those workloads' timed phase, one thread
 *       per session.</li>
 * </ul>
 */
package dev.remora.testkit;
