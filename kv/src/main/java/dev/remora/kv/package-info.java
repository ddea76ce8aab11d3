/**
 * One-sided key-value structures written against the verbs API only ({@link dev.remora.verbs}): the cuckoo map
 * {@link dev.remora.kv.CuckooMap}, its layout in {@link dev.remora.kv.CuckooTableDescriptor}, and its design in
 * {@code docs/kv.md}. Each public method's javadoc says which verbs it issues and how many round trips it costs.
 */
package dev.remora.kv;
