package dev.remora.cli;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.sim.SimFabric;
import dev.remora.verbs.spi.FabricProvider;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code remora doctor} calls the providers' own availability checks, found by reflection. */
class DoctorCommandTest {

    /** Answers in the shape of the disni provider's DisniAvailability. */
    public static final class Answer {
        private final boolean ok;

        Answer(boolean ok) {
            this.ok = ok;
        }

        public boolean isAvailable() {
            return ok;
        }

        public String reason() {
            return ok ? "device mlx5_0 found" : "libdisni.so is not on java.library.path";
        }
    }

    /** A provider that cannot run, and says why; opening it would say something else. */
    public static final class Missing implements FabricProvider {
        public static Answer availability() {
            return new Answer(false);
        }

        @Override
        public String name() {
            return "missing";
        }

        @Override
        public Fabric open(Map<String, String> properties) {
            throw new IllegalStateException("should not be opened when its check says no");
        }
    }

    /** A provider whose check says it can run: it is then opened. */
    public static final class Present implements FabricProvider {
        public static Optional<String> unavailableReason() {
            return Optional.empty();
        }

        @Override
        public String name() {
            return "present";
        }

        @Override
        public Fabric open(Map<String, String> properties) {
            return SimFabric.open();
        }
    }

    /** A provider whose check throws. */
    public static final class Broken implements FabricProvider {
        public static String check() {
            throw new UnsupportedOperationException("no libucp.so.0");
        }

        @Override
        public String name() {
            return "broken";
        }

        @Override
        public Fabric open(Map<String, String> properties) {
            return SimFabric.open();
        }
    }

    @Test
    void shouldReportTheProvidersOwnReasonWithoutOpeningIt() {
        assertEquals("cannot run here: libdisni.so is not on java.library.path", DoctorCommand.diagnose(new Missing()));
    }

    @Test
    void shouldOpenAProviderWhoseCheckSaysItCanRun() {
        assertEquals("can run here (sim:doctor-a)", DoctorCommand.diagnose(new Present()));
        assertEquals(Optional.of(new DoctorCommand.Availability(true, null)), DoctorCommand.availability(new Present()));
    }

    @Test
    void shouldReportACheckThatFails() {
        String d = DoctorCommand.diagnose(new Broken());
        assertTrue(d.startsWith("cannot run here: its check check() failed: java.lang.UnsupportedOperationException: "
            + "no libucp.so.0"), d);
    }

    @Test
    void shouldReadEveryShapeOfAnswer() {
        assertEquals(new DoctorCommand.Availability(true, null), DoctorCommand.interpret(null));
        assertEquals(new DoctorCommand.Availability(false, "its check says no"), DoctorCommand.interpret(false));
        assertEquals(new DoctorCommand.Availability(false, "no device"), DoctorCommand.interpret(Optional.of("no device")));
        assertEquals(new DoctorCommand.Availability(false, "no device"), DoctorCommand.interpret("no device"));
        assertEquals(new DoctorCommand.Availability(true, "device mlx5_0 found"), DoctorCommand.interpret(new Answer(true)));
        assertEquals(List.of("availability", "check", "unavailableReason"), DoctorCommand.CHECKS);
    }
}
