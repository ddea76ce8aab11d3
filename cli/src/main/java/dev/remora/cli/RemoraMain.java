package dev.remora.cli;

import dev.remora.check.cli.CheckCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code remora} command. Subcommands: {@code demo} (the main job on the embedded software fabric),
 * {@code check} (the linearizability checker) and {@code litmus} (memory-model litmus tests on the deterministic
 * fabric and TLC).
 */
@Command(name = "remora", mixinStandardHelpOptions = true, version = "remora 0.1.0-SNAPSHOT",
    exitCodeOnInvalidInput = 64,
    description = "RDMA-native concurrent objects, formally specified and checked.",
    subcommands = {DemoCommand.class, CheckCommand.class, LitmusCommand.class})
public final class RemoraMain implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public RemoraMain() {
    }

    /**
     * The configured command line, for tests and {@link #main}.
     *
     * @return a command line with every subcommand
     */
    public static CommandLine commandLine() {
        return new CommandLine(new RemoraMain());
    }

    /**
     * Entry point of the launcher.
     *
     * @param args arguments
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
