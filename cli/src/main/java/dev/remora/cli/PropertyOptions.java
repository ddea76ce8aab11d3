package dev.remora.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The repeatable {@code --property KEY=VALUE} option of the commands that open any provider's fabric
 * ({@code workload}, {@code litmus}): the properties handed to {@link dev.remora.verbs.Fabric#open}.
 */
public final class PropertyOptions {
    @Option(names = "--property", paramLabel = "KEY=VALUE", description = "A property of the fabric's provider "
        + "(repeatable), e.g. retryTimeoutNs=500000000 on socket, host=10.0.0.2 on disni (the RDMA interface's "
        + "address).")
    List<String> properties = new ArrayList<>();

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Creates the option (called by picocli). */
    public PropertyOptions() {
    }

    /**
     * @return the properties in the order given, a later one replacing an earlier one of the same key
     * @throws CommandLine.ParameterException for one without {@code =} or with an empty key
     */
    Map<String, String> toMap() {
        Map<String, String> props = new LinkedHashMap<>();
        for (String p : properties) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new CommandLine.ParameterException(mixee.commandLine(), "--property " + p + ": expected "
                    + "KEY=VALUE");
            }
            props.put(p.substring(0, eq), p.substring(eq + 1));
        }
        return props;
    }
}
