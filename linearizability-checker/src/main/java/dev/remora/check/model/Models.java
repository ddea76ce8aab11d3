package dev.remora.check.model;

import dev.remora.check.Model;

import java.util.List;

/** The registry of models by {@code --model} name. */
public final class Models {
    /** The names accepted by {@link #create}. */
    public static final List<String> NAMES = List.of("register", "cas-register", "multi-register", "counter",
            "set", "queue", "mutex", "kv");

    private Models() {
    }

    /**
     * Creates a model.
     *
     * @param name    a name from {@link #NAMES} ({@code fifo-queue} and {@code key-value} are accepted too)
     * @param init    the initial value given with {@code --init}
     * @param hasInit whether {@code --init} was given at all (otherwise the model's default
     *                applies: nil, 0 for counter, {@code ""} for kv)
     * @return the model
     * @throws IllegalArgumentException on an unknown name or an initial value of the wrong type
     */
    public static Model<?> create(String name, Object init, boolean hasInit) {
        switch (name) {
            case "register": return new RegisterModel(false, init);
            case "cas-register": return new RegisterModel(true, init);
            case "multi-register": return new MultiRegisterModel(init);
            case "counter":
                if (hasInit && !(init instanceof Long)) {
                    throw new IllegalArgumentException("--init for counter must be an integer, found " + init);
                }
                return new CounterModel(hasInit ? (Long) init : 0L);
            case "set": return new SetModel();
            case "queue": case "fifo-queue": return new QueueModel();
            case "mutex": return new MutexModel();
            case "kv": case "key-value": return new KvModel(hasInit ? init : "");
            default:
                throw new IllegalArgumentException("unknown model '" + name + "'; expected one of " + NAMES);
        }
    }
}
