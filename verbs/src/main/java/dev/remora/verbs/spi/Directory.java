package dev.remora.verbs.spi;

import dev.remora.verbs.RemoteAddress;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * The named objects a fabric's local nodes publish ({@link dev.remora.verbs.Fabric#publish}), for providers.
 * Thread-safe.
 */
public final class Directory {
    /** The longest name, in characters; a name also fits a frame of the socket fabric in UTF-8. */
    public static final int MAX_NAME_CHARS = 200;

    private final Map<String, RemoteAddress> names = new ConcurrentHashMap<>();

    /**
     * Checks a name as {@link dev.remora.verbs.Fabric#publish} documents it.
     *
     * @param name the name
     * @return the name
     * @throws IllegalArgumentException if it is empty, too long or holds a control character
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
            throw new IllegalArgumentException("an object name has 1 to " + MAX_NAME_CHARS + " characters, not "
                + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("object name has a control character at index " + i);
            }
        }
        return name;
    }

    /**
     * Publishes a name.
     *
     * @param name the name
     * @param address the object's address
     * @param isLocal whether a node id belongs to a local node
     */
    public void publish(String name, RemoteAddress address, IntPredicate isLocal) {
        checkName(name);
        Objects.requireNonNull(address, "address");
        if (!isLocal.test(address.nodeId())) {
            throw new IllegalArgumentException("cannot publish '" + name + "' at " + address + ": node "
                + address.nodeId() + " is not a local node of this fabric (publish from the process that owns it)");
        }
        RemoteAddress before = names.putIfAbsent(name, address);
        if (before != null && !before.equals(address)) {
            throw new IllegalStateException("'" + name + "' is already published as " + before);
        }
    }

    /**
     * @param name a name
     */
    public void unpublish(String name) {
        names.remove(Objects.requireNonNull(name, "name"));
    }

    /**
     * @param name a name
     * @return its address, or null if it is not published here
     */
    public RemoteAddress find(String name) {
        return names.get(Objects.requireNonNull(name, "name"));
    }

    /**
     * Looks a name up in an in-process fabric, where every publication is in this directory.
     *
     * @param name the name
     * @param fabric the fabric, for the message
     * @return the address
     * @throws NoSuchElementException if the name is not published
     */
    public RemoteAddress lookup(String name, String fabric) {
        RemoteAddress a = find(name);
        if (a == null) {
            throw new NoSuchElementException("no node of " + fabric + " publishes '" + name + "' (published: "
                + new java.util.TreeSet<>(names.keySet()) + ")");
        }
        return a;
    }

    /** Forgets every name (the fabric closed). */
    public void clear() {
        names.clear();
    }
}
