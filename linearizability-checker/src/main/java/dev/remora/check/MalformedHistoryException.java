package dev.remora.check;

/**
 * A history that cannot be read or that breaks the rules of its format: a syntax error, a
 * reused crashed process, an unmatched completion or a value of the wrong shape. The message
 * always names the file, the line and what was expected; the CLI exits with 65 on it.
 *
 * <p>Unchecked (an {@link IllegalArgumentException}): a history built in memory is an argument
 * like any other, and a wrong one is the caller's error. Reading a file declares it explicitly
 * ({@link dev.remora.check.io.HistoryReader#read(java.nio.file.Path, HistoryFormat)}), next to
 * the {@link java.io.IOException} of the file itself. {@link Checker#check} throws it too when an
 * operation does not fit the model (a {@code cas} against the {@code register} model): that is
 * never a verdict.
 */
public final class MalformedHistoryException extends IllegalArgumentException {
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
