package dev.remora.objects;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Property;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the model-based tests ({@code *ModelTest}) share: the number of chains each property runs, an action made of a
 * generated step (its {@code toString} is what a shrunk chain shows), the run of one chain that closes what it opened,
 * and the check of a named error.
 *
 * <p>Chains per property: {@code remora.test.chains} (25 in the default build, 500 with {@code -Pthorough}), set on
 * every property of a class that adds this hook ({@code @AddLifecycleHook(ModelChains.class)}), whatever its
 * {@code tries}.
 */
final class ModelChains implements AroundPropertyHook {
    /** Chains per property. */
    static final int CHAINS = Math.max(1, Integer.getInteger("remora.test.chains", 25));

    /** The hook is added to a test class and wraps each of its properties. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.DIRECT_DESCENDANTS;
    }

    /** Properties only: an {@code @Example} runs once. */
    @Override
    public boolean appliesTo(Optional<AnnotatedElement> element) {
        return element.map(e -> e.isAnnotationPresent(Property.class)).orElse(false);
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        context.attributes().setTries(CHAINS);
        PropertyExecutionResult result = property.execute();
        // A property that passed ran every chain: the count above took effect.
        if (result.status() == PropertyExecutionResult.Status.SUCCESSFUL && result.countTries() != CHAINS) {
            return result.mapToFailed(context.extendedLabel() + " ran " + result.countTries() + " chains, not "
                + CHAINS);
        }
        return result;
    }

    /** One generated operation of a chain, applied to the system under test and its model. */
    interface Step<S> {
        /**
         * Applies the operation to the object and to the model, and asserts that their answers agree.
         *
         * @param state the object, its clients and the model
         */
        void apply(S state);
    }

    /**
     * @param steps the generated steps of one kind
     * @return an action whose transformation is named by the step's {@code toString}
     */
    static <S> Action.Independent<S> action(Arbitrary<? extends Step<S>> steps) {
        return () -> steps.map(step -> Transformer.mutate(step.toString(), step::apply));
    }

    /**
     * A value drawn without looking at the state (jqwik shrinks a chain well only when its steps do not depend on the
     * state): the longest the object takes, or {@code length} bytes cut to that; its bytes follow from {@code seed}.
     */
    record Value(int length, boolean longest, int seed) {
        /**
         * @param max the largest length the object takes
         * @return the bytes
         */
        byte[] bytes(int max) {
            byte[] b = new byte[longest ? max : Math.min(length, max)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (seed + 37 * i);
            }
            return b;
        }

        @Override
        public String toString() {
            return (longest ? "longest" : length + (length == 1 ? " byte" : " bytes")) + " #" + seed;
        }
    }

    /** @return values: empty, longest and short ones often */
    static Arbitrary<Value> values() {
        Arbitrary<Integer> seed = Arbitraries.integers().between(0, 255);
        return Arbitraries.frequencyOf(
            Tuple.of(1, seed.map(s -> new Value(0, false, s))),
            Tuple.of(2, seed.map(s -> new Value(0, true, s))),
            Tuple.of(4, Combinators.combine(Arbitraries.integers().between(1, 80), seed)
                .as((n, s) -> new Value(n, false, s))));
    }

    /** What one chain opened (its fabric first), closed when the chain ends, passed or failed. */
    static final class Opened {
        private final Deque<AutoCloseable> open = new ArrayDeque<>();

        <T extends AutoCloseable> T add(T resource) {
            open.push(resource);
            return resource;
        }

        void closeAll() {
            RuntimeException first = null;
            while (!open.isEmpty()) {
                try {
                    open.pop().close();
                } catch (Exception e) {
                    if (first == null) {
                        first = new IllegalStateException("closing after a chain failed", e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * Runs a chain (its invariant after every step) and then closes what its initial state opened.
     *
     * @param chain the generated chain
     * @param opened where its initial state registered its fabric and handles
     */
    static <S> void run(ActionChain<S> chain, Opened opened) {
        try {
            chain.run();
        } finally {
            opened.closeAll();
        }
    }

    /**
     * Asserts that {@code call} throws {@code type} with a message containing {@code words}.
     *
     * @return the exception
     */
    static <E extends Throwable> E assertNamedError(Class<E> type, String words, Runnable call,
                                                     Supplier<String> what) {
        E e = assertThrows(type, call::run, what);
        assertTrue(e.getMessage() != null && e.getMessage().contains(words),
            () -> what.get() + ": expected a message with \"" + words + "\", got \"" + e.getMessage() + "\"");
        return e;
    }

    /**
     * The clients of a chain: {@code n} endpoints on two nodes other than the home ({@code c0}, {@code c2}, ... on
     * {@code n0}; {@code c1}, {@code c3}, ... on {@code n1}), so that two handles also share a node.
     */
    static Endpoint[] clients(Fabric fabric, Opened opened, int n) {
        Node[] nodes = {fabric.addNode("n0"), fabric.addNode("n1")};
        Endpoint[] clients = new Endpoint[n];
        for (int i = 0; i < n; i++) {
            clients[i] = opened.add(Endpoint.open(nodes[i % 2]));
        }
        return clients;
    }

    /** @return a byte array short enough to read in a shrunk chain: its bytes up to 8, else its length and head */
    static String show(byte[] value) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < Math.min(value.length, 8); i++) {
            b.append(i == 0 ? "" : ",").append(value[i]);
        }
        return value.length <= 8 ? b.append(']').toString() : b.append(",... ").append(value.length).append(" bytes]")
            .toString();
    }
}
