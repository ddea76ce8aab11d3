/**
 * Baselines of the socket fabric: {@link dev.remora.bench.socket.NioPingPong}, the raw 8-byte TCP round trip between
 * two processes (blocking and selector-driven server), which the socket fabric's READ and CAS round trips are
 * reported beside. Run by hand:
 * {@code java -cp bench/target/remora-bench.jar dev.remora.bench.socket.NioPingPong both}.
 */
package dev.remora.bench.socket;
