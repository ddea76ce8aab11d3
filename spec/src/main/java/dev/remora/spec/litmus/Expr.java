package dev.remora.spec.litmus;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The final predicate of a litmus test, over thread registers and final memory. Evaluable
 * directly ({@link #holds(Map)}) by the deterministic fabric, and rendered to TLA+ by the
 * generator. Values are 64-bit integers; booleans only arise from comparisons and connectives.
 */
public sealed interface Expr {

    /**
     * Evaluates the predicate over an outcome.
     *
     * @param outcome the final value of every register and location named in the predicate
     * @return whether the outcome satisfies it
     * @throws IllegalArgumentException if a name is missing from the outcome
     */
    default boolean holds(final Map<String, Long> outcome) {
        return eval(outcome) != 0;
    }

    /**
     * Evaluates to a number; comparisons and connectives give 1 for true and 0 for false.
     *
     * @param outcome register and location values
     * @return the value
     */
    long eval(Map<String, Long> outcome);

    /**
     * The register and location names this expression reads.
     *
     * @return a sorted set of names
     */
    default Set<String> names() {
        final Set<String> out = new TreeSet<>();
        collect(out);
        return out;
    }

    /**
     * Adds the names this expression reads to {@code out}.
     *
     * @param out the accumulator
     */
    void collect(Set<String> out);

    /**
     * An integer literal.
     *
     * @param value the value
     */
    record Num(long value) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            return value;
        }

        @Override
        public void collect(final Set<String> out) {
            // a literal reads nothing
        }
    }

    /**
     * {@code true} or {@code false}.
     *
     * @param value the value
     */
    record Bool(boolean value) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            return value ? 1 : 0;
        }

        @Override
        public void collect(final Set<String> out) {
            // a literal reads nothing
        }
    }

    /**
     * The final value of a register or memory location.
     *
     * @param name register or location name
     */
    record Ref(String name) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            final Long value = outcome.get(name);
            if (value == null) {
                throw new IllegalArgumentException("outcome has no value for " + name);
            }
            return value;
        }

        @Override
        public void collect(final Set<String> out) {
            out.add(name);
        }
    }

    /** Comparison operators. */
    enum CmpOp {
        /** {@code =}. */ EQ("=", "="),
        /** {@code #} or {@code !=}. */ NE("#", "#"),
        /** {@code <}. */ LT("<", "<"),
        /** {@code <=}. */ LE("<=", "<="),
        /** {@code >}. */ GT(">", ">"),
        /** {@code >=}. */ GE(">=", ">=");

        private final String text;
        private final String tla;

        CmpOp(final String text, final String tla) {
            this.text = text;
            this.tla = tla;
        }

        /**
         * The litmus spelling.
         *
         * @return the operator text
         */
        public String text() {
            return text;
        }

        /**
         * The TLA+ spelling.
         *
         * @return the TLA+ operator
         */
        public String tla() {
            return tla;
        }
    }

    /**
     * A comparison of two integer expressions.
     *
     * @param op    operator
     * @param left  left side
     * @param right right side
     */
    record Cmp(CmpOp op, Expr left, Expr right) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            final long l = left.eval(outcome);
            final long r = right.eval(outcome);
            final boolean b = switch (op) {
                case EQ -> l == r;
                case NE -> l != r;
                case LT -> l < r;
                case LE -> l <= r;
                case GT -> l > r;
                case GE -> l >= r;
            };
            return b ? 1 : 0;
        }

        @Override
        public void collect(final Set<String> out) {
            left.collect(out);
            right.collect(out);
        }
    }

    /**
     * Conjunction.
     *
     * @param left  left conjunct
     * @param right right conjunct
     */
    record And(Expr left, Expr right) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            return left.eval(outcome) != 0 && right.eval(outcome) != 0 ? 1 : 0;
        }

        @Override
        public void collect(final Set<String> out) {
            left.collect(out);
            right.collect(out);
        }
    }

    /**
     * Disjunction.
     *
     * @param left  left disjunct
     * @param right right disjunct
     */
    record Or(Expr left, Expr right) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            return left.eval(outcome) != 0 || right.eval(outcome) != 0 ? 1 : 0;
        }

        @Override
        public void collect(final Set<String> out) {
            left.collect(out);
            right.collect(out);
        }
    }

    /**
     * Negation.
     *
     * @param operand the negated expression
     */
    record Not(Expr operand) implements Expr {
        @Override
        public long eval(final Map<String, Long> outcome) {
            return operand.eval(outcome) != 0 ? 0 : 1;
        }

        @Override
        public void collect(final Set<String> out) {
            operand.collect(out);
        }
    }
}
