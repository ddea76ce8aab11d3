package dev.remora.cli;

import dev.remora.check.cli.CheckCommand;
import dev.remora.check.cli.CheckMain;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;

/**
 * The {@code remora} command. Subcommands: {@code demo} (the main job on the embedded software fabric, or on the
 * socket fabric between processes), {@code check} (the linearizability checker), {@code litmus} (memory-model litmus
 * tests on the deterministic fabric and TLC), {@code serve} (a memory node on the socket fabric) and {@code merge}
 * (histories of several processes into one), {@code doctor} (which providers can run here), {@code workload} (a
 * recorded workload against a served node on any provider); {@code demo-client}
 * (hidden) is a client process of the socket demo.
 */
@Command(name = "remora", mixinStandardHelpOptions = true, versionProvider = RemoraMain.Version.class,
    exitCodeOnInvalidInput = 64,
    description = "RDMA-native concurrent objects, formally specified and checked.")
public final class RemoraMain implements Runnable {
    /** The commands {@code remora --help} lists, in its order. */
    static final java.util.List<String> COMMANDS = java.util.List.of("demo", "check", "litmus", "serve", "merge",
        "doctor", "workload");

    /** The version of this build. */
    static final String VERSION = "0.1.0-SNAPSHOT";

    /** {@code remora --version}: the version and the JDK it runs on. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"remora " + VERSION, "JDK " + jdk()};
        }
    }

    /** @return the running JDK: version, vendor and home */
    static String jdk() {
        return Runtime.version() + " (" + System.getProperty("java.vendor") + ", " + System.getProperty("java.home")
            + ")";
    }

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
        return commandLine(null);
    }

    /**
     * The command line with only the subcommand that {@code first} names, or every subcommand when
     * it names none: {@code remora check ...} then loads neither the demo's fabric nor the litmus
     * runner (the subcommands are added here, not in the annotation, which would build them all).
     *
     * @param first the first argument, or {@code null}
     * @return the command line
     */
    static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(new RemoraMain());
        boolean all = !"demo".equals(first) && !"check".equals(first) && !"litmus".equals(first)
            && !"serve".equals(first) && !"demo-client".equals(first) && !"merge".equals(first)
            && !"doctor".equals(first) && !"workload".equals(first);
        if (all || "demo".equals(first)) {
            cl.addSubcommand(new DemoCommand());
        }
        if (all || "check".equals(first)) {
            cl.addSubcommand(new CheckCommand());
        }
        if (all || "litmus".equals(first)) {
            cl.addSubcommand(new LitmusCommand());
        }
        if (all || "serve".equals(first)) {
            cl.addSubcommand(new ServeCommand());
        }
        if (all || "merge".equals(first)) {
            cl.addSubcommand(new MergeCommand());
        }
        if (all || "doctor".equals(first)) {
            cl.addSubcommand(new DoctorCommand());
        }
        if (all || "workload".equals(first)) {
            cl.addSubcommand(new WorkloadCommand());
        }
        if (all || "demo-client".equals(first)) {
            cl.addSubcommand(new DemoClientCommand());
        }
        CommandLine.IParameterExceptionHandler usual = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((ex, args) -> {
            if (ex.getCommandLine() == cl && ex instanceof CommandLine.UnmatchedArgumentException u
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
                cl.getErr().println("remora: unknown command '" + u.getUnmatched().get(0) + "'; the commands are: "
                    + String.join(", ", COMMANDS) + " (remora --help says what each does)");
                cl.getErr().flush();
                return cl.getCommandSpec().exitCodeOnInvalidInput();
            }
            return usual.handleParseException(ex, args);
        });
        return cl;
    }

    /**
     * Entry point of the launcher. {@code check} with plain arguments runs without building the
     * picocli command tree (see {@link CheckMain#run}); everything else goes through picocli.
     *
     * @param args arguments
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command as {@link #main} does, without exiting.
     *
     * @param args arguments
     * @return the exit code
     */
    static int run(String[] args) {
        if (args.length > 0 && args[0].equals("check")) {
            Integer code = CheckMain.runPlain(Arrays.copyOfRange(args, 1, args.length));
            if (code != null) {
                return code;
            }
        }
        return commandLine(args.length > 0 ? args[0] : null).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
