/**
 * The {@code check} command: usable as a subcommand of the project's CLI
 * ({@link dev.remora.check.cli.CheckCommand}) or on its own ({@link dev.remora.check.cli.CheckMain}).
 */
package dev.remora.check.cli;
