/**
 * The litmus file format of the RDMA memory model: an immutable AST ({@link
 * dev.remora.spec.litmus.LitmusTest}, {@link dev.remora.spec.litmus.Op}, {@link
 * dev.remora.spec.litmus.Expr}), its parser, and the knobs ({@link dev.remora.spec.litmus.Knob})
 * that select which verdict a test expects.
 *
 * <p>The same AST is executed by two engines: the TLA+ model ({@code spec/rdma/RDMA.tla}, via
 * {@link dev.remora.spec.tla.TlaGenerator}) and the deterministic software fabric. A litmus file
 * means the same to both; {@code spec/litmus/README.md} is the normative description.
 */
package dev.remora.spec.litmus;
