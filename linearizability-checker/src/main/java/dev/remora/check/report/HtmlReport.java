package dev.remora.check.report;

import java.util.List;

/** Placeholder, replaced below. */
public final class HtmlReport {
    private HtmlReport() {
    }

    /**
     * Renders reports.
     *
     * @param reports the reports
     * @return the page
     */
    public static String render(List<FileReport> reports) {
        return "<html></html>";
    }
}
