package dev.remora.check;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks histories for linearizability against a {@link Model}.
 *
 * <p>The history is split into the model's partitions, each searched by a resumable
 * {@link WglSearch}. The searches are interleaved in rounds of growing state limits, on as many
 * threads as {@link CheckOptions#parallelism()} allows (see {@link Rounds}): a failure in any
 * partition decides the history, so an easy failure is found after a bounded amount of work on
 * the hard partitions, and the others are then cancelled and released. Each partition's memory
 * is its own share of the limit. The verdict is deterministic: the failure reported, and so its
 * explanation, do not depend on the number of threads. A time limit stops all searches promptly
 * (they poll every few thousand steps) and gives {@link Verdict#UNKNOWN} with the cause, as does
 * a partition that outgrows its memory share when no other partition fails; when a failure was
 * found, running out of time while explaining it still gives {@link Verdict#NOT_LINEARIZABLE},
 * with as much explanation as was computed ({@link FailureExplainer}).
 */
public final class Checker {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "remora-check");
        t.setDaemon(true);
        return t;
    });

    /** Round r lets every undecided partition memoise {@code 1 << (FIRST_ROUND_SHIFT + r)} states in all. */
    private static final int FIRST_ROUND_SHIFT = 12;

    private Checker() {
    }

    /**
     * Rejects operations that do not fit the model: a function the model does not have (a
     * {@code cas} against the {@code register} model) or a value of the wrong shape.
     * {@link #check} calls it first; calling it alone tells a malformed history from a verdict
     * without searching.
     *
     * @param history the history
     * @param model   the model
     * @throws MalformedHistoryException (unchecked) naming the first bad operation's line, the
     *                                   operation, its function, the model and what was expected
     */
    public static void validate(History history, Model<?> model) {
        for (Operation op : history.operations()) {
            String err = model.validate(op);
            if (err != null) {
                StringBuilder d = new StringBuilder(op.function());
                if (op.key() != null) {
                    d.append(" [").append(Values.show(op.key())).append(']');
                }
                if (op.input() != null) {
                    d.append(' ').append(Values.show(op.input()));
                }
                throw new MalformedHistoryException(history.source(), op.callLine(), "operation " + d
                        + " (process " + Values.show(op.process()) + ", function " + op.function()
                        + ") does not fit model " + model.name() + "; expected " + err);
            }
        }
    }

    /**
     * Checks a history with default options.
     *
     * @param history the history
     * @param model   the model
     * @param <S>     the model's state type
     * @return the result
     * @throws MalformedHistoryException (unchecked) when an operation does not fit the model
     *                                   ({@link #validate}): that is an error, never a verdict
     */
    public static <S> CheckResult check(History history, Model<S> model) {
        return check(history, model, CheckOptions.DEFAULTS);
    }

    /**
     * Checks a history.
     *
     * @param history the history
     * @param model   the model
     * @param options limits and switches
     * @param <S>     the model's state type
     * @return the result
     * @throws MalformedHistoryException (unchecked) when an operation does not fit the model
     *                                   ({@link #validate}): that is an error, never a verdict
     */
    public static <S> CheckResult check(History history, Model<S> model, CheckOptions options) {
        long start = System.nanoTime();
        validate(history, model);
        long mem = options.memoryLimitBytes();
        if (mem <= 0) {
            Runtime rt = Runtime.getRuntime();
            mem = Math.max(16L << 20, (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 2);
        }
        Budget budget = new Budget(start, options.timeLimitNs(), mem);
        List<List<Operation>> parts = model.partition(history.operations());
        int np = parts.size();
        List<List<Operation>> prepared = new ArrayList<>(np);
        int opCount = 0;
        int impossibleAt = -1;
        ImpossibleOperation impossible = null;
        for (int p = 0; p < np; p++) {
            List<Operation> prep = model.prepare(parts.get(p));
            prepared.add(prep);
            opCount += prep.size();
            if (impossibleAt < 0) {
                impossible = model.impossible(prep);
                if (impossible != null) {
                    impossibleAt = p;
                }
            }
        }
        if (impossibleAt >= 0) {
            // Decided before any search: the first partition with an impossible operation fails.
            Failure f = failure(model, budget, options, prepared.get(impossibleAt), parts.get(impossibleAt), impossible);
            return new CheckResult(Verdict.NOT_LINEARIZABLE, null, f, opCount, np, 0, System.nanoTime() - start,
                    options.linearizations() ? Collections.nCopies(np, null) : List.of());
        }
        Rounds<S> rounds = new Rounds<>(model, budget, prepared, options.parallelism(), options.linearizations());
        if (options.progress() != null) {
            budget.progress(options.progressIntervalNs(), () -> options.progress().accept(rounds.progress(start)));
        }
        rounds.run();
        budget.progress(0, null);
        long states = rounds.states();
        if (rounds.failed() >= 0) {
            int p = rounds.failed();
            Failure f = failure(model, budget, options, prepared.get(p), parts.get(p), null);
            return new CheckResult(Verdict.NOT_LINEARIZABLE, null, f, opCount, np, states, System.nanoTime() - start,
                    rounds.orders());
        }
        if (rounds.undecidedCause() != null) {
            return new CheckResult(Verdict.UNKNOWN, rounds.undecidedCause(), null, opCount, np, states,
                    System.nanoTime() - start, rounds.orders());
        }
        return new CheckResult(Verdict.LINEARIZABLE, null, null, opCount, np, states, System.nanoTime() - start,
                rounds.orders());
    }

    private static <S> Failure failure(Model<S> model, Budget budget, CheckOptions options, List<Operation> prepared,
                                       List<Operation> part, ImpossibleOperation impossible) {
        if (options.explain()) {
            return new FailureExplainer<>(model, budget).explain(prepared, part, impossible, true);
        }
        Object key = part.isEmpty() ? null : part.get(0).key();
        return new Failure(key, part, null, List.of(), List.of(model.describeState(model.init())), List.of(), 0,
                "not linearizable" + (key == null ? "" : " on key " + Values.show(key)) + " (explanation not requested)");
    }

    /**
     * The partitions' searches, interleaved in rounds of growing state limits so that an easy
     * failure is never stuck behind a hard partition, with any number of threads.
     *
     * <p>In round r every undecided partition's search runs until it has memoised
     * {@code FIRST_ROUND_STATES << r} states in all (searches are resumable: a round continues
     * where the last one paused, so nothing is explored twice). Threads take the round's
     * partitions in history order. When a partition fails, the partitions after it in the round
     * are cancelled (their outcome can no longer matter) while those before it finish the round:
     * the failure reported is that of the first partition in history order among those that
     * fail within the first round in which any fails, whatever the number of threads. Then every
     * other search is released. A partition's memory is its own share of the limit, in
     * proportion to its number of operations among the partitions still undecided at the start
     * of the round; one that outgrows its share stops (undecided) and releases its cache, and the
     * others go on. Only when no partition fails and some is undecided is the verdict unknown.
     *
     * <p>State counts are deterministic too: a partition cancelled in the deciding round counts
     * the states it had at the start of that round.
     */
    private static final class Rounds<S> {
        private final Model<S> model;
        private final Budget budget;
        private final List<List<Operation>> prepared;
        private final int threads;
        /** Created at a partition's first run and dropped once it is decided (its arrays go with it). */
        private final List<WglSearch<S>> searches;
        private final long[] counted;
        /** With {@link CheckOptions#linearizations()}: the order found per linearizable partition; else {@code null}. */
        private final List<List<Operation>> orders;
        /** Partitions not yet decided, for progress reports. */
        private volatile int left;
        private int failed = -1;
        private String undecidedCause;

        Rounds(Model<S> model, Budget budget, List<List<Operation>> prepared, int threads, boolean keepOrders) {
            this.model = model;
            this.orders = keepOrders ? new ArrayList<>(Collections.nCopies(prepared.size(), null)) : null;
            this.budget = budget;
            this.prepared = prepared;
            this.threads = threads;
            this.counted = new long[prepared.size()];
            this.searches = new ArrayList<>(Collections.nCopies(prepared.size(), null));
        }

        int failed() {
            return failed;
        }

        String undecidedCause() {
            return undecidedCause;
        }

        /** @return the orders found, {@code null} for partitions not found linearizable; empty when not kept */
        List<List<Operation>> orders() {
            return orders == null ? List.of() : Collections.unmodifiableList(orders);
        }

        long states() {
            long sum = 0;
            for (long c : counted) {
                sum += c;
            }
            return sum;
        }

        /** A snapshot for progress reports, safe from any thread (the counts may lag by a poll). */
        CheckProgress progress(long startNs) {
            long sum = 0;
            for (int p = 0; p < counted.length; p++) {
                WglSearch<S> s = searches.get(p);
                sum += s != null ? Math.max(s.publishedExplored(), counted[p]) : counted[p];
            }
            return new CheckProgress(sum, left, prepared.size(), System.nanoTime() - startNs);
        }

        void run() {
            List<Integer> undecided = new ArrayList<>();
            for (int p = 0; p < prepared.size(); p++) {
                undecided.add(p);
            }
            for (int round = 0; !undecided.isEmpty(); round++) {
                left = undecided.size();
                long limit = round >= 62 - FIRST_ROUND_SHIFT ? Long.MAX_VALUE : (1L << FIRST_ROUND_SHIFT) << round;
                long weights = 0;
                for (int p : undecided) {
                    weights += prepared.get(p).size() + 1L;
                }
                long[] shares = new long[prepared.size()];
                for (int p : undecided) {
                    long share = (long) (budget.memoryLimitBytes() * ((prepared.get(p).size() + 1.0) / weights));
                    shares[p] = Math.max(share, 1L << 20);
                }
                runRound(undecided, limit, shares);
                List<Integer> still = new ArrayList<>();
                for (int p : undecided) {
                    WglSearch<S> s = searches.get(p);
                    if (s == null) {
                        continue; // skipped: a partition before it failed
                    }
                    if (failed >= 0 && p > failed) {
                        s.abandon(); // counted stays at the start of this round
                        continue;
                    }
                    counted[p] = s.explored();
                    SearchOutcome o = s.outcome();
                    if (o == SearchOutcome.PAUSED) {
                        still.add(p);
                        continue;
                    }
                    if (o == SearchOutcome.STOPPED && undecidedCause == null) {
                        undecidedCause = s.stopCause();
                    }
                    if (o == SearchOutcome.LINEARIZABLE && orders != null) {
                        List<Operation> part = prepared.get(p);
                        List<Operation> order = new ArrayList<>();
                        for (int i : s.bestLinearization()) {
                            order.add(part.get(i));
                        }
                        orders.set(p, order);
                    }
                    searches.set(p, null);
                }
                if (failed >= 0) {
                    still.forEach(p -> searches.get(p).abandon());
                    return;
                }
                String expired = budget.expired();
                if (expired != null) {
                    still.forEach(p -> searches.get(p).abandon());
                    undecidedCause = expired;
                    return;
                }
                undecided = still;
            }
        }

        private void runRound(List<Integer> partitions, long limit, long[] shares) {
            AtomicInteger nextTask = new AtomicInteger();
            AtomicInteger firstFailed = new AtomicInteger(Integer.MAX_VALUE);
            Runnable worker = () -> {
                int t;
                while ((t = nextTask.getAndIncrement()) < partitions.size()) {
                    int p = partitions.get(t);
                    if (p > firstFailed.get()) {
                        continue;
                    }
                    WglSearch<S> s = searches.get(p);
                    if (s == null) {
                        // Each partition is run by one thread per round; the round's end (the
                        // futures' get) publishes it to the next round's threads.
                        s = new WglSearch<>(model, model.init(), prepared.get(p), budget, false);
                        s.keepOrder(orders != null);
                        searches.set(p, s);
                    }
                    s.memoryLimitBytes(shares[p]);
                    s.cancelWhen(() -> p > firstFailed.get());
                    if (s.run(limit) == SearchOutcome.NOT_LINEARIZABLE) {
                        firstFailed.accumulateAndGet(p, Math::min);
                    }
                }
            };
            int n = Math.min(threads, partitions.size());
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 1; i < n; i++) {
                futures.add(POOL.submit(worker));
            }
            worker.run();
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    budget.stop("interrupted");
                } catch (ExecutionException e) {
                    throw new IllegalStateException("partition search failed", e.getCause());
                }
            }
            if (firstFailed.get() != Integer.MAX_VALUE) {
                failed = firstFailed.get();
            }
        }
    }
}
