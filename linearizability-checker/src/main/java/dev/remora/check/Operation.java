package dev.remora.check;

/**
 * One operation of a history: an invocation paired with its completion.
 *
 * <h2>Interval semantics</h2>
 * An operation occupies the closed interval {@code [call, ret]} of positions. Positions are
 * the indices of its events in the history's event order, which is the file order in every
 * format (event times are informational and never reorder events). Two operations whose intervals overlap (including sharing an end
 * point) are concurrent and may be linearized in either order; if {@code a.ret < b.call} then
 * {@code a} must be linearized before {@code b}.
 *
 * <p>An operation is either {@linkplain #isOk() completed} (it took effect exactly once,
 * somewhere in its interval, with the recorded {@link #output()}) or
 * {@linkplain #isIndeterminate() indeterminate} (an {@code :info} completion, or an
 * invocation that never completed): it may take effect at any point after its call, or never,
 * so its {@code ret} is {@link #INFINITY} and its output is {@link #UNKNOWN}.
 *
 * <p>Worked example, a register starting at 0:
 * <pre>
 *   p1  |---- write 1 ----|                       ok
 *   p2        |-- read -&gt; 1 --|                   ok
 *   p3  |--- write 2 ------------------------&gt;    info (crashed)
 *   p4                          |-- read -&gt; 2 --| ok
 * </pre>
 * The read by p2 overlaps the write of 1 and may follow it. p3's write is indeterminate: it may
 * take effect after p2's read, which explains p4's read of 2. Had p4 read 0 instead, no order
 * would fit: 0 was overwritten by the completed write of 1 before p4 was called.
 */
public final class Operation {
    /** The output of an indeterminate operation. */
    public static final Object UNKNOWN = new Object() {
        @Override
        public String toString() {
            return "?";
        }
    };
    /** The return position of an indeterminate operation. */
    public static final long INFINITY = Long.MAX_VALUE;

    private final int id;
    private final Object process;
    private final String function;
    private final Object key;
    private final Object input;
    private final Object output;
    private final long call;
    private final long ret;
    private final int callLine;
    private final int returnLine;

    /**
     * Creates an operation.
     *
     * @param id         index of the operation in its history, in order of invocation
     * @param process    the process that issued it
     * @param function   the operation's name
     * @param key        the key it addresses, or {@code null}
     * @param input      the argument given at invocation
     * @param output     the result, or {@link #UNKNOWN} for an indeterminate operation
     * @param call       position of the invocation
     * @param ret        position of the completion, or {@link #INFINITY}
     * @param callLine   source line of the invocation
     * @param returnLine source line of the completion, or 0
     */
    public Operation(int id, Object process, String function, Object key, Object input,
                     Object output, long call, long ret, int callLine, int returnLine) {
        this.id = id;
        this.process = Values.normalize(process);
        this.function = function;
        this.key = Values.normalize(key);
        this.input = Values.normalize(input);
        this.output = Values.normalize(output);
        this.call = call;
        this.ret = ret;
        this.callLine = callLine;
        this.returnLine = returnLine;
    }

    /** @return index of this operation in its history, in order of invocation */
    public int id() {
        return id;
    }

    /** @return the process that issued the operation */
    public Object process() {
        return process;
    }

    /** @return the operation's name, such as {@code read} */
    public String function() {
        return function;
    }

    /** @return the key, or {@code null} */
    public Object key() {
        return key;
    }

    /** @return the argument given at invocation */
    public Object input() {
        return input;
    }

    /** @return the result, or {@link #UNKNOWN} */
    public Object output() {
        return output;
    }

    /** @return the invocation's position */
    public long call() {
        return call;
    }

    /** @return the completion's position, or {@link #INFINITY} */
    public long ret() {
        return ret;
    }

    /** @return the invocation's source line */
    public int callLine() {
        return callLine;
    }

    /** @return the completion's source line, or 0 when there is none */
    public int returnLine() {
        return returnLine;
    }

    /** @return whether the operation completed with a known output */
    public boolean isOk() {
        return output != UNKNOWN;
    }

    /** @return whether the operation may or may not have taken effect */
    public boolean isIndeterminate() {
        return output == UNKNOWN;
    }

    /**
     * Returns a copy with another id, position and outcome; used to cut histories into windows.
     *
     * @param newId     the new id
     * @param newRet    the new return position
     * @param newOutput the new output
     * @return the copy
     */
    public Operation with(int newId, long newRet, Object newOutput) {
        return new Operation(newId, process, function, key, input, newOutput, call, newRet,
                callLine, newRet == INFINITY ? 0 : returnLine);
    }

    /**
     * Returns a copy with another input; used by models to replace values nothing observes.
     *
     * @param newInput the new input
     * @return the copy
     */
    public Operation withInput(Object newInput) {
        return new Operation(id, process, function, key, newInput, output, call, ret, callLine, returnLine);
    }

    @Override
    public String toString() {
        return "p" + process + " " + function + (key == null ? "" : "[" + key + "]") + " "
                + Values.show(input) + " -> " + Values.show(output) + " @" + call + ".."
                + (ret == INFINITY ? "inf" : Long.toString(ret));
    }
}
