package dev.remora.check.model;

import dev.remora.check.Model;
import dev.remora.check.Values;

import java.util.List;

/**
 * The models: one typed constructor per model, and {@link #create} by name (as {@code remora
 * check --model} takes them). Initial values may be integers of any Java type; they are held as
 * {@link Long}.
 *
 * <pre>{@code
 * import dev.remora.check.model.CounterModel;
 * import dev.remora.check.model.Models;
 *
 * CounterModel counter = Models.counter(0);
 * }</pre>
 */
public final class Models {
    /** The names accepted by {@link #create}. */
    public static final List<String> NAMES = List.of("register", "cas-register", "multi-register", "counter",
            "set", "queue", "mutex", "kv", "map");

    private Models() {
    }

    /**
     * A read/write register per key, initially nil.
     *
     * @return the {@code register} model
     */
    public static RegisterModel register() {
        return new RegisterModel(false, null);
    }

    /**
     * A read/write register per key.
     *
     * @param initial every register's initial value ({@code null} for nil)
     * @return the {@code register} model
     */
    public static RegisterModel register(Object initial) {
        return new RegisterModel(false, initial);
    }

    /**
     * A register per key with read, write and compare-and-set, initially nil.
     *
     * @return the {@code cas-register} model
     */
    public static RegisterModel casRegister() {
        return new RegisterModel(true, null);
    }

    /**
     * A register per key with read, write and compare-and-set.
     *
     * @param initial every register's initial value ({@code null} for nil)
     * @return the {@code cas-register} model
     */
    public static RegisterModel casRegister(Object initial) {
        return new RegisterModel(true, initial);
    }

    /**
     * Registers read and written by transactions, initially nil.
     *
     * @return the {@code multi-register} model
     */
    public static MultiRegisterModel multiRegister() {
        return new MultiRegisterModel(null);
    }

    /**
     * Registers read and written by transactions.
     *
     * @param initial every register's initial value ({@code null} for nil)
     * @return the {@code multi-register} model
     */
    public static MultiRegisterModel multiRegister(Object initial) {
        return new MultiRegisterModel(initial);
    }

    /**
     * A counter per key, starting at 0.
     *
     * @return the {@code counter} model
     */
    public static CounterModel counter() {
        return new CounterModel(0);
    }

    /**
     * A counter per key.
     *
     * @param initial the initial count
     * @return the {@code counter} model
     */
    public static CounterModel counter(long initial) {
        return new CounterModel(initial);
    }

    /**
     * A grow-only set per key, initially empty.
     *
     * @return the {@code set} model
     */
    public static SetModel set() {
        return new SetModel();
    }

    /**
     * A FIFO queue per key, initially empty.
     *
     * @return the {@code queue} model
     */
    public static QueueModel queue() {
        return new QueueModel();
    }

    /**
     * A mutex per key, initially free.
     *
     * @return the {@code mutex} model
     */
    public static MutexModel mutex() {
        return new MutexModel();
    }

    /**
     * A key-value map whose keys start at {@code ""}.
     *
     * @return the {@code kv} model
     */
    public static KvModel kv() {
        return new KvModel("");
    }

    /**
     * A key-value map.
     *
     * @param initial every key's initial value
     * @return the {@code kv} model
     */
    public static KvModel kv(Object initial) {
        return new KvModel(initial);
    }

    /**
     * A map whose keys may be absent and whose writes return the value they replaced; every key starts absent.
     *
     * @return the {@code map} model
     */
    public static MapModel map() {
        return new MapModel();
    }

    /**
     * Creates a model by name, with the model's default initial value.
     *
     * @param name a name from {@link #NAMES} ({@code fifo-queue} and {@code key-value} are accepted too)
     * @return the model
     * @throws IllegalArgumentException on an unknown name
     */
    public static Model<?> create(String name) {
        return create(name, null, false);
    }

    /**
     * Creates a model by name.
     *
     * @param name    a name from {@link #NAMES} ({@code fifo-queue} and {@code key-value} are accepted too)
     * @param init    the initial value; integers of any Java type
     * @param hasInit whether an initial value is given at all (otherwise the model's default
     *                applies: nil, 0 for counter, {@code ""} for kv; set, queue and mutex have no
     *                initial value; map has none and refuses one: its keys start absent)
     * @return the model
     * @throws IllegalArgumentException on an unknown name or an initial value of the wrong type
     */
    public static Model<?> create(String name, Object init, boolean hasInit) {
        Object v = Values.normalize(init);
        switch (name) {
            case "register": return register(v);
            case "cas-register": return casRegister(v);
            case "multi-register": return multiRegister(v);
            case "counter":
                if (hasInit && !(v instanceof Long)) {
                    throw new IllegalArgumentException("the initial value of model counter must be an integer, found "
                            + Values.show(v));
                }
                return hasInit ? counter((Long) v) : counter();
            case "set": return set();
            case "queue": case "fifo-queue": return queue();
            case "mutex": return mutex();
            case "kv": case "key-value": return hasInit ? kv(v) : kv();
            case "map":
                if (hasInit) {
                    throw new IllegalArgumentException("model map takes no initial value: every key starts absent");
                }
                return map();
            default:
                throw new IllegalArgumentException("unknown model '" + name + "'; expected one of " + NAMES);
        }
    }
}
