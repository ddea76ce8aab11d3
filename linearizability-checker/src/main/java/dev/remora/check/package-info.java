/**
 * Linearizability checking of recorded histories.
 *
 * <h2>Design</h2>
 * A {@link dev.remora.check.History} is a list of {@link dev.remora.check.Operation}s, each the
 * closed interval between an invocation and its completion (see {@code Operation} for the
 * interval semantics and indeterminate operations). A {@link dev.remora.check.Model} is a pure
 * step function over immutable states. {@link dev.remora.check.Checker} splits the history into
 * the model's independent partitions (P-compositionality), lets the model simplify each one,
 * and searches each with Wing and Gong's algorithm memoised as Lowe proposed: the pair (bit set
 * of linearized operations, state) is never explored twice. The searches are resumable and are
 * interleaved, on any number of threads, in rounds of growing state limits, so that a partition
 * that fails easily decides the history however hard the others are, and each partition's
 * memory is its own share of the limit. The result is
 * three-valued ({@link dev.remora.check.Verdict}): a failure carries the operation that cannot
 * be linearized, the longest partial linearization and the smallest failing window; a time or
 * memory limit gives {@code UNKNOWN} with its cause rather than an endless run or an
 * out-of-memory crash.
 *
 * <p>Readers for the formats are in {@code dev.remora.check.io}, the models in
 * {@code dev.remora.check.model}, the JSON and HTML reports in {@code dev.remora.check.report}
 * and the {@code check} command in {@code dev.remora.check.cli}. {@code docs/checker.md} is the
 * user's guide.
 */
package dev.remora.check;
