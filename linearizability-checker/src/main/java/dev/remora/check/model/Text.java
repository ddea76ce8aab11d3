package dev.remora.check.model;

/**
 * A string value of the key-value model, held as the value it was appended to plus the appended
 * piece, so that a search state costs one small node instead of a copy of the whole string.
 *
 * <p>States of a key that is appended to grow with every append: held as {@link String}s, each
 * memoised state carried its own copy (measured on the largest partition of the 50-client
 * append history: 226 bytes of heap per state, and 17 µs per state, mostly copying and hashing
 * the strings). A {@code Text} shares its prefix with the state it came from; its length and its
 * hash (equal to {@link String#hashCode()} of its content, kept incrementally) are fields, so
 * appending, hashing and most comparisons are O(1) in the length. Equal content is equal
 * whatever the way it was built. Immutable.
 */
final class Text {
    /** The empty text. */
    static final Text EMPTY = new Text(null, "", 0, 0);

    private final Text base;
    private final String piece;
    private final int length;
    private final int hash;

    private Text(Text base, String piece, int length, int hash) {
        this.base = base;
        this.piece = piece;
        this.length = length;
        this.hash = hash;
    }

    /**
     * @param s a string
     * @return the text with that content
     */
    static Text of(String s) {
        return s.isEmpty() ? EMPTY : new Text(null, s, s.length(), s.hashCode());
    }

    /**
     * @param s the piece to append
     * @return this text followed by {@code s}
     */
    Text append(String s) {
        if (s.isEmpty()) {
            return this;
        }
        if (length == 0) {
            return of(s);
        }
        int h = hash;
        for (int i = 0; i < s.length(); i++) {
            h *= 31;
        }
        return new Text(this, s, length + s.length(), h + s.hashCode());
    }

    /** @return the number of characters */
    int length() {
        return length;
    }

    /**
     * @param s a string
     * @return whether this text's content is {@code s}
     */
    boolean contentEquals(String s) {
        if (s.length() != length || s.hashCode() != hash) {
            return false;
        }
        int end = length;
        for (Text t = this; t != null; t = t.base) {
            int n = t.piece.length();
            if (!s.regionMatches(end - n, t.piece, 0, n)) {
                return false;
            }
            end -= n;
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Text)) {
            return false;
        }
        Text b = (Text) o;
        if (b.length != length || b.hash != hash) {
            return false;
        }
        // Compare from the end, piece by piece; stop as soon as both sides reach the same node at
        // the same place, whose prefix is then common.
        Text a = this;
        int ia = a.piece.length();
        int ib = b.piece.length();
        while (true) {
            if (a == b && ia == ib) {
                return true;
            }
            if (a != null && ia == 0) {
                a = a.base;
                ia = a == null ? 0 : a.piece.length();
                continue;
            }
            if (b != null && ib == 0) {
                b = b.base;
                ib = b == null ? 0 : b.piece.length();
                continue;
            }
            if (a == null || b == null) {
                return a == b;
            }
            int k = Math.min(ia, ib);
            if (!a.piece.regionMatches(ia - k, b.piece, ib - k, k)) {
                return false;
            }
            ia -= k;
            ib -= k;
        }
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        char[] out = new char[length];
        int end = length;
        for (Text t = this; t != null; t = t.base) {
            int n = t.piece.length();
            t.piece.getChars(0, n, out, end - n);
            end -= n;
        }
        return new String(out);
    }
}
