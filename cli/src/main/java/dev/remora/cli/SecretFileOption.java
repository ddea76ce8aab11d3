package dev.remora.cli;

import dev.remora.verbs.spi.NetworkContext;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --secret-file} option of the commands that join a fabric ({@code serve}, {@code workload},
 * {@code demo-client}), read by one rule so that every process of a cluster gets the same secret from the same file:
 * the file's UTF-8 text with its trailing newlines dropped, nothing else trimmed.
 */
public final class SecretFileOption {
    @Option(names = "--secret-file", paramLabel = "FILE", description = "File holding the cluster secret (trailing "
        + "newlines dropped); without it the environment variable " + NetworkContext.SECRET_ENV + " is used.")
    Path file;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Creates the option (called by picocli). */
    public SecretFileOption() {
    }

    /**
     * @return the secret, or null if the option was not given
     * @throws CommandLine.ParameterException if the file cannot be read or holds nothing but newlines
     */
    String read() {
        if (file == null) {
            return null;
        }
        String s;
        try {
            s = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(mixee.commandLine(), "cannot read " + e.getMessage() + " ("
                + e.getClass().getSimpleName() + ")", e);
        }
        int end = s.length();
        while (end > 0 && (s.charAt(end - 1) == '\n' || s.charAt(end - 1) == '\r')) {
            end--;
        }
        if (end == 0) {
            throw new CommandLine.ParameterException(mixee.commandLine(), "--secret-file " + file + " is empty");
        }
        return s.substring(0, end);
    }
}
