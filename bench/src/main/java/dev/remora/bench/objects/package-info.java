/**
 * The remote objects' benchmarks, run by hand (mains with small defaults, each under about 30 s), never by
 * {@code mvn verify} beyond their smoke tests; setup through {@code dev.remora.testkit.Cluster}:
 * <ul>
 *   <li>{@link dev.remora.bench.objects.ObjectRoundTrips}: round trips per call of every object method, stated
 *       beside measured, on the fast and the socket fabric; exits 1 if a call took more than stated;</li>
 *   <li>{@link dev.remora.bench.objects.RingThroughput}: SPSC and MPSC ring throughput on the 2 µs fabric beside
 *       Agrona's local ring buffers, and batched against single offers;</li>
 *   <li>{@link dev.remora.bench.objects.VersionedRegisterReads}: versioned-register reads per second and retries per
 *       read under 0, 1 and 4 writers, beside a one-word read.</li>
 * </ul>
 * The measured tables are in {@code docs/objects.md}, "Benchmarks".
 */
package dev.remora.bench.objects;
