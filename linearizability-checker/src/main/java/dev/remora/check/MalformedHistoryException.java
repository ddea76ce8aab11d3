package dev.remora.check;

/**
 * A history that cannot be read or that breaks the rules of its format: a syntax error, a
 * reused crashed process, an unmatched completion or a value of the wrong shape. The message
 * always names the file, the line and what was expected; the CLI exits with 65 on it.
 */
public final class MalformedHistoryException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String detail;

    /**
     * Creates the exception.
     *
     * @param file   the file (or other source) name
     * @param line   the 1-based line, or 0 when the whole file is at fault
     * @param detail what was wrong and what was expected
     */
    public MalformedHistoryException(String file, int line, String detail) {
        super(file + ":" + line + ": " + detail);
        this.file = file;
        this.line = line;
        this.detail = detail;
    }

    /** @return the file name */
    public String file() {
        return file;
    }

    /** @return the 1-based line, or 0 when no single line is at fault */
    public int line() {
        return line;
    }

    /** @return what was wrong, without file and line */
    public String detail() {
        return detail;
    }
}
