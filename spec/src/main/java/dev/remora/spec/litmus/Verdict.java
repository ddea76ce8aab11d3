package dev.remora.spec.litmus;

/**
 * Whether a litmus test's final outcome may be observed under a given model.
 */
public enum Verdict {
    /** Some execution ends in a state satisfying the final predicate: a witness must exist. */
    ALLOWED,
    /** No execution ends in a state satisfying the final predicate: an invariant. */
    FORBIDDEN
}
