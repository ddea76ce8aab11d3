/**
 * The cuckoo map's benchmark, run by hand ({@link dev.remora.bench.kv.KvBench}, a main with a short default duration),
 * never by {@code mvn verify} beyond its smoke test: YCSB A, B and C over Zipf 0.99 keys and a fill from empty to
 * 90 %, on the fast fabric with the 2 µs preset and on the socket fabric with the table's home in a child JVM, beside
 * {@code ConcurrentHashMap} in the same run. The measured tables are in {@code docs/kv.md}, "Benchmarks".
 */
package dev.remora.bench.kv;
