/**
 * From litmus files to TLC verdicts: {@link dev.remora.spec.tla.TlaGenerator} writes one
 * {@code MC_<test>_<setting>} module and {@code .cfg} per litmus test and knob setting over the
 * model modules {@code Verbs.tla} and {@code RDMA.tla} (sources in {@code spec/rdma}, bundled on
 * the class path under {@code /tla}); {@link dev.remora.spec.tla.TlcRunner} runs TLC on one of
 * them in a child JVM and classifies the result as holds, violated (a witness of the outcome),
 * error or timeout.
 *
 * <p>The build's conformance test compares each verdict with the litmus file's expectation and
 * each distinct-state count with {@code spec/manifest.json}; see {@code docs/memory-model.md}.
 */
package dev.remora.spec.tla;
