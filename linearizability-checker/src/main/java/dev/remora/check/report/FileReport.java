package dev.remora.check.report;

import dev.remora.check.CheckResult;
import dev.remora.check.History;
import dev.remora.check.MalformedHistoryException;
import dev.remora.check.Model;

/**
 * What the CLI learned about one file: either a result or a malformed-input error.
 *
 * @param file      the file name as given
 * @param model     the model used
 * @param history   the history read, or {@code null} when malformed
 * @param result    the check's result, or {@code null} when malformed
 * @param malformed the error, or {@code null}
 */
public record FileReport(String file, Model<?> model, History history, CheckResult result,
                         MalformedHistoryException malformed) {
}
