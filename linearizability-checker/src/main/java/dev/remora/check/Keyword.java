package dev.remora.check;

/**
 * An EDN keyword such as {@code :timed-out}, kept distinct from strings so that
 * {@code :a} and {@code "a"} never compare equal.
 *
 * @param name the keyword's name without the leading colon
 */
public record Keyword(String name) {
    @Override
    public String toString() {
        return ":" + name;
    }
}
