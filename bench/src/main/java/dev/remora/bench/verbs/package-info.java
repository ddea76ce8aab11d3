/**
 * JMH benchmarks of the verbs on the fast software fabric beside raw local memory. Run by hand:
 * {@code java -cp bench/target/remora-bench.jar dev.remora.bench.verbs.VerbsOverheadBench -wi 3 -i 5 -f 1 -w 1s
 * -r 1s} prints the fabric/raw ratio of each verb; {@code java -jar bench/target/remora-bench.jar
 * VerbsOverheadBenchmark -prof gc} gives JMH's own output and profilers.
 */
package dev.remora.bench.verbs;
