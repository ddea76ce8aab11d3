package dev.remora.check.model;

import dev.remora.check.Model;
import dev.remora.check.Operation;

/**
 * A mutex per key: {@code acquire} needs it free and holds it; {@code release} needs it held and
 * frees it. Acquiring a held lock or releasing a free one is illegal.
 */
public final class MutexModel implements Model<Boolean> {
    @Override
    public String name() {
        return "mutex";
    }

    @Override
    public Boolean init() {
        return Boolean.FALSE;
    }

    @Override
    public Boolean step(Boolean held, Operation op) {
        switch (op.function()) {
            case "acquire":
                return held ? null : Boolean.TRUE;
            case "release":
                return held ? Boolean.FALSE : null;
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        String f = op.function();
        return f.equals("acquire") || f.equals("release") ? null
                : "function acquire or release for model mutex, found :" + f;
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return false;
    }

    @Override
    public String describeState(Boolean held) {
        return held ? "held" : "free";
    }
}
