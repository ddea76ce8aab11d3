package dev.remora.check.cli;

/** Runs {@link CheckCommand} as a stand-alone program and exits with its code. */
public final class CheckMain {
    private CheckMain() {
    }

    /**
     * Entry point.
     *
     * @param args the command-line arguments of {@code check}
     */
    public static void main(String[] args) {
        System.exit(CheckCommand.newCommandLine().execute(args));
    }
}
