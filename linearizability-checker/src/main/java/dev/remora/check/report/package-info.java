/** Machine (JSON) and human (self-contained HTML) reports of check results. */
package dev.remora.check.report;
