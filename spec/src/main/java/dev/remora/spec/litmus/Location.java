package dev.remora.spec.litmus;

/**
 * A memory word of a litmus test: an 8-byte, 8-byte-aligned location registered on its home
 * node. Multi-word buffers are consecutive words named {@code b[0]}, {@code b[1]}, ...
 *
 * @param name         the location's name, unique in the test
 * @param node         the node whose memory holds it
 * @param initialValue the value before any thread runs
 */
public record Location(String name, String node, long initialValue) {
}
