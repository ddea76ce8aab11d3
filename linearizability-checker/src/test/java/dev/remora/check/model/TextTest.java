package dev.remora.check.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Text} behaves as the string it holds, however it was built. */
class TextTest {
    @Test
    void shouldEqualAndHashAsItsContentWhateverTheWayItWasBuilt() {
        SplittableRandom r = new SplittableRandom(11);
        String[] pieces = {"", "a", "b", "ab", "ba", "x 1 2 y", "aab"};
        List<Text> texts = new ArrayList<>();
        List<String> strings = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            Text t = r.nextBoolean() || texts.isEmpty() ? Text.of(pieces[r.nextInt(pieces.length)])
                    : texts.get(r.nextInt(texts.size()));
            StringBuilder sb = new StringBuilder(t.toString());
            for (int k = r.nextInt(4); k > 0; k--) {
                String p = pieces[r.nextInt(pieces.length)];
                t = t.append(p);
                sb.append(p);
            }
            String s = sb.toString();
            assertEquals(s, t.toString());
            assertEquals(s.length(), t.length());
            assertEquals(s.hashCode(), t.hashCode(), s);
            assertTrue(t.contentEquals(s), s);
            for (int j = 0; j < strings.size(); j += 7) {
                assertEquals(strings.get(j).equals(s), texts.get(j).equals(t), strings.get(j) + " vs " + s);
                assertEquals(strings.get(j).equals(s), t.contentEquals(strings.get(j)), strings.get(j) + " vs " + s);
            }
            texts.add(t);
            strings.add(s);
        }
    }

    @Test
    void shouldTellApartTextsOfEqualLengthThatDifferInAnEarlyPiece() {
        Text ab = Text.of("a").append("b").append("x 1 y");
        Text ba = Text.of("b").append("a").append("x 1 y");
        assertNotEquals(ab, ba);
        assertEquals(Text.of("abx 1 y"), ab);
        assertTrue(!ab.contentEquals("bax 1 y"));
    }
}
