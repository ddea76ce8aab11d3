package dev.remora.check;

/** The state value standing for EDN {@code nil}, since model states may never be {@code null}. */
public enum Nil {
    /** The only instance. */
    NIL;

    @Override
    public String toString() {
        return "nil";
    }

    /**
     * Boxes a history value into a state value.
     *
     * @param v a value, possibly {@code null}
     * @return {@code v}, or {@link #NIL} for {@code null}
     */
    public static Object box(Object v) {
        return v == null ? NIL : v;
    }

    /**
     * Unboxes a state value.
     *
     * @param s a state value
     * @return {@code s}, or {@code null} for {@link #NIL}
     */
    public static Object unbox(Object s) {
        return s == NIL ? null : s;
    }
}
