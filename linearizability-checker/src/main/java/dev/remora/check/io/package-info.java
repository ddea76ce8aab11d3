/**
 * Readers for Knossos EDN, Jepsen text logs, key-value logs and Remora's JSON Lines; every error
 * names the file, the line and what was expected.
 */
package dev.remora.check.io;
