package dev.remora.spec.litmus;

import java.io.Serial;

/**
 * A litmus file that does not follow the format of {@code spec/litmus/README.md}, or that
 * breaks one of its static rules (undeclared location, remote CPU access, a poll with
 * nothing to retire, ...). The message reads {@code file:line: what was expected}.
 */
public final class LitmusSyntaxException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;

    /**
     * Creates the exception.
     *
     * @param file   the file (or source name) being parsed
     * @param line   the 1-based line of the problem
     * @param detail what was expected or what is wrong
     */
    public LitmusSyntaxException(final String file, final int line, final String detail) {
        super(file + ":" + line + ": " + detail);
        this.file = file;
        this.line = line;
    }

    /**
     * The file being parsed.
     *
     * @return the file name given to the parser
     */
    public String file() {
        return file;
    }

    /**
     * The 1-based line of the problem.
     *
     * @return the line number
     */
    public int line() {
        return line;
    }
}
