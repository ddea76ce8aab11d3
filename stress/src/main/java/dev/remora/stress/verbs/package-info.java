/**
 * jcstress tests of the software fabric's memory model (docs/memory-model.md), one class per litmus shape, every outcome
 * with its reason:
 * <ul>
 *   <li>{@link dev.remora.stress.verbs.FaaVsFaaTest}: L14, two remote FETCH_ADDs never lose an update;</li>
 *   <li>{@link dev.remora.stress.verbs.CasVsCasTest}: L15, of two remote CASes from 0 exactly one wins;</li>
 *   <li>{@link dev.remora.stress.verbs.CasVsFaaTest}: a remote CAS and FETCH_ADD are serialised (rao);</li>
 *   <li>{@link dev.remora.stress.verbs.WriteListVsHomeReaderTest}: L04/R6, WRITEs of one queue pair land in order;</li>
 *   <li>{@link dev.remora.stress.verbs.ReadVsFaaTest} and {@link dev.remora.stress.verbs.WideReadVsFaaTest}: R18,
 *       aligned words are never torn.</li>
 * </ul>
 * The fast fabric is stronger than the model (it executes each request at one instant), so every forbidden outcome
 * here is also forbidden on it; a weak-mode fabric would need the same tests with more outcomes allowed.
 *
 * <p>How to run: {@code mvn -B verify} runs them in a short mode (one fork per JVM configuration, unified
 * compilation, one 500 ms iteration); {@code mvn -B verify -pl stress -am -Pstress-long} runs every configuration
 * jcstress detects, for longer; {@code -Djcstress.tests=FaaVsFaaTest} selects tests by regular expression. The
 * report is written to {@code stress/target/jcstress/report/index.html}.
 */
package dev.remora.stress.verbs;
