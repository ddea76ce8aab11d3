package dev.remora.verbs.sim;

import dev.remora.verbs.Access;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.NoSuchElementException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-process fabrics implement the calls of a fabric between processes: addresses, connect, publish, lookup. */
class InProcessNamingTest {

    @ParameterizedTest
    @ValueSource(strings = {"sim", "det"})
    void nodesAreReachedByAddressAndObjectsByName(String provider) {
        try (Fabric fabric = Fabric.open(provider, Map.of())) {
            Node home = fabric.addNode("home");
            Node client = fabric.addNode("client");
            assertEquals(provider + ":home", home.address());
            assertTrue(home.isLocal());
            assertSame(home, fabric.connect(home.address()));
            assertSame(client, fabric.connect(provider + ":client"));
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> fabric.connect(provider + ":nobody"));
            assertTrue(unknown.getMessage().contains("no node at " + provider + ":nobody"), unknown.getMessage());
            assertThrows(IllegalArgumentException.class, () -> fabric.connect("127.0.0.1:7471"));

            MemoryRegion r = home.allocate(64, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
            RemoteAddress word = r.remote(8);
            fabric.publish("hits", word);
            fabric.publish("hits", word); // the same address again: allowed
            assertEquals(word, fabric.lookup("hits"));
            IllegalStateException taken = assertThrows(IllegalStateException.class,
                () -> fabric.publish("hits", r.remote(16)));
            assertTrue(taken.getMessage().contains("already published"), taken.getMessage());
            assertThrows(IllegalArgumentException.class, () -> fabric.publish("", word));
            assertThrows(IllegalArgumentException.class, () -> fabric.publish("a\nb", word));
            assertThrows(IllegalArgumentException.class, () -> fabric.publish("x",
                new RemoteAddress(99, word.rkey(), word.address())));
            fabric.unpublish("hits");
            NoSuchElementException gone = assertThrows(NoSuchElementException.class, () -> fabric.lookup("hits"));
            assertTrue(gone.getMessage().contains("'hits'"), gone.getMessage());
        }
    }
}
