package dev.remora.spec.litmus;

/**
 * A fault a litmus test allows: it happens at most once, at any step of any execution, or not at all (both TLC and
 * the exhaustive fabric explore every choice). See {@code spec/litmus/README.md}.
 *
 * @param kind what fails
 * @param a    the crashed node, one end of the cut link, or the thread of the failed queue pair
 * @param b    empty for a crash, the other end of the cut link, or the target node of the failed queue pair
 */
public record Fault(Kind kind, String a, String b) {

    /** The kinds of fault. */
    public enum Kind {
        /** {@code crash(N)}: node N stops: its CPUs and NIC, its store buffers are lost, its memory stays. */
        CRASH,
        /** {@code cut(N1,N2)}: the link between two nodes is cut, both ways. */
        CUT,
        /** {@code qperror(T,N)}: the queue pair from thread T to node N goes to ERROR. */
        QPERROR
    }

    /**
     * The fault in litmus syntax.
     *
     * @return for example {@code crash(N2)}
     */
    public String text() {
        return switch (kind) {
            case CRASH -> "crash(" + a + ")";
            case CUT -> "cut(" + a + "," + b + ")";
            case QPERROR -> "qperror(" + a + "," + b + ")";
        };
    }
}
