package dev.remora.verbs.disni;

import com.ibm.disni.verbs.impl.NativeDispatcher;

import java.io.IOException;
import java.lang.reflect.Constructor;

/**
 * libdisni's {@code NativeDispatcher}, the JNI entry points DiSNI's own stateful verb calls use. Its constructor is
 * package-private in DiSNI 2.1, so it is made here by reflection (DiSNI is in the unnamed module, which opens all
 * its packages); its native methods are public and stateless. Loading the class loads {@code libdisni.so}.
 */
final class DisniNatives implements VerbsNatives {
    private static volatile DisniNatives instance;

    private final NativeDispatcher dispatcher;
    private final NativeLayout layout;

    private DisniNatives(NativeDispatcher dispatcher) {
        this.dispatcher = dispatcher;
        this.layout = new NativeLayout(dispatcher._getIbvSendWRSize(), dispatcher._getIbvRecvWRSize(),
            dispatcher._getIbvSgeSize(), dispatcher._getIbvWCSize(), dispatcher._getRemoteAddressOffset(),
            dispatcher._getRKeyOffset(), dispatcher._getVersion());
    }

    /**
     * Loads libdisni (once) and reads its layout; does not check it (see {@link NativeLayout#verify()}).
     *
     * @return the natives
     * @throws IllegalStateException if the dispatcher cannot be made
     * @throws UnsatisfiedLinkError if libdisni (or a library it needs) cannot be loaded
     */
    static DisniNatives load() {
        DisniNatives n = instance;
        if (n == null) {
            synchronized (DisniNatives.class) {
                n = instance;
                if (n == null) {
                    try {
                        Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
                        c.setAccessible(true);
                        n = new DisniNatives(c.newInstance());
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException("cannot make DiSNI's NativeDispatcher: " + e, e);
                    }
                    instance = n;
                }
            }
        }
        return n;
    }

    @Override
    public void postSend(long qp, long wrList) throws IOException {
        dispatcher._postSend(qp, wrList);
    }

    @Override
    public void postRecv(long qp, long wrList) throws IOException {
        dispatcher._postRecv(qp, wrList);
    }

    @Override
    public int pollCq(long cq, int n, long wcList) throws IOException {
        return dispatcher._pollCQ(cq, n, wcList);
    }

    @Override
    public NativeLayout layout() {
        return layout;
    }
}
