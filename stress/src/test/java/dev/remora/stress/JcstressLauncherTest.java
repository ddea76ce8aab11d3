package dev.remora.stress;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class JcstressLauncherTest {

    @Test
    void shouldKeepEveryByteAndRememberTheLastCompleteResultsLine() throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        JcstressLauncher.LastResults s = new JcstressLauncher.LastResults(file);
        String text = "banner\n(Results: 28 planned; 1 passed, 0 failed, 0 soft errs, 0 hard errs)\n\n"
            + "(ETA: in 00:00:42)\n(Results: 28 planned; 8 passed, 0 failed, 0 soft errs, 0 hard errs)\n"
            + "(Results: 28 planned; 9 pa";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertNull(s.last());
        s.write(bytes, 0, 20);
        assertNull(s.last(), "no results line is complete yet");
        for (int i = 20; i < bytes.length; i++) {
            s.write(bytes[i]);
        }
        // The unfinished last line does not count until its end.
        assertEquals("(Results: 28 planned; 8 passed, 0 failed, 0 soft errs, 0 hard errs)", s.last());
        String rest = "ssed, 0 failed, 0 soft errs, 0 hard errs)\nETA (Results: a line that does not start with it\n";
        s.write(rest.getBytes(StandardCharsets.UTF_8));
        assertEquals("(Results: 28 planned; 9 passed, 0 failed, 0 soft errs, 0 hard errs)", s.last());
        assertEquals(text + rest, file.toString(StandardCharsets.UTF_8));
    }
}
