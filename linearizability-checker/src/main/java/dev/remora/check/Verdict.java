package dev.remora.check;

/** The three outcomes of a check. */
public enum Verdict {
    /** Some order of the operations, respecting real time, fits the model. */
    LINEARIZABLE("linearizable"),
    /** No order fits; the result carries a {@link Failure}. */
    NOT_LINEARIZABLE("not-linearizable"),
    /** The check stopped at a time or memory limit; the result carries the cause. */
    UNKNOWN("unknown");

    private final String cliName;

    Verdict(String cliName) {
        this.cliName = cliName;
    }

    /** @return the word the CLI prints, such as {@code not-linearizable} */
    public String cliName() {
        return cliName;
    }
}
