/**
 * The remote locks' benchmark driver, run by hand, never by {@code mvn verify}:
 * {@code java -cp bench/target/remora-bench.jar dev.remora.bench.locks.LockBench}.
 *
 * <p>It prints two tables. The first counts, from {@link dev.remora.verbs.Endpoint#statistics()} deltas, the verbs
 * and round trips of an uncontended acquire and release of every lock, beside the fewest each design allows. The
 * second runs 2 to 16 threads, each on its own client node of the fast software fabric with the 2 µs round-trip
 * preset, through lock / a remote READ and WRITE of a counter on a third node / unlock for a fixed time, beside
 * {@link java.util.concurrent.locks.ReentrantLock} guarding a local counter with the same shape, and prints
 * throughput, the ratio to that baseline and Jain's fairness index over the threads' acquisition counts. Every run
 * checks that the counter equals the number of acquisitions. The results are discussed in {@code docs/locks.md}.
 */
package dev.remora.bench.locks;
