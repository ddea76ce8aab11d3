package dev.remora.verbs;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Supervises the worker threads of a concurrency test so that a stall fails the test with a clear message instead
 * of hanging it: workers call {@link #progress()} whenever they complete something, and {@link #join} fails with the
 * stacks (and lock owners) of the workers and the fabric's own threads as soon as nothing progressed for the stall
 * limit, or the whole run took longer than its hard limit.
 */
public final class Watchdog {
    private final String what;
    private final long stallNs;
    private final long limitNs;
    private final AtomicLong progress = new AtomicLong();

    /**
     * @param what the run, for messages
     * @param stallNs fail when no worker progressed for this long
     * @param limitNs fail when the run is not over after this long, even if it progresses
     */
    public Watchdog(String what, long stallNs, long limitNs) {
        this.what = what;
        this.stallNs = stallNs;
        this.limitNs = limitNs;
    }

    /** Records that a worker completed something. */
    public void progress() {
        progress.incrementAndGet();
    }

    /** @return how many times {@link #progress()} was called */
    public long progressCount() {
        return progress.get();
    }

    /**
     * Waits for every worker to finish, or fails.
     *
     * @param workers the threads to wait for
     * @throws InterruptedException if the test thread is interrupted
     * @throws AssertionError naming the stall and carrying the thread dump
     */
    public void join(Collection<Thread> workers) throws InterruptedException {
        long start = System.nanoTime();
        long seen = progress.get();
        long lastChange = start;
        for (Thread t : workers) {
            while (t.isAlive()) {
                t.join(20);
                long now = System.nanoTime();
                long p = progress.get();
                if (p != seen) {
                    seen = p;
                    lastChange = now;
                }
                if (now - lastChange > stallNs) {
                    throw new AssertionError(what + ": STALL, no progress for "
                        + TimeUnit.NANOSECONDS.toMillis(now - lastChange) + " ms after " + p + " steps\n"
                        + dump(workers));
                }
                if (now - start > limitNs) {
                    throw new AssertionError(what + ": not finished after " + TimeUnit.NANOSECONDS.toMillis(limitNs)
                        + " ms (" + p + " steps)\n" + dump(workers));
                }
            }
        }
    }

    /**
     * A dump of the given threads and of every thread whose name starts with {@code remora-} (the fabric's NIC
     * threads), with full stacks, what each is blocked on and who holds it, and the JVM's deadlock detection.
     *
     * @param workers the test's threads
     * @return the dump
     */
    public static String dump(Collection<Thread> workers) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        StringBuilder sb = new StringBuilder();
        long[] deadlocked = mx.findDeadlockedThreads();
        if (deadlocked != null) {
            sb.append("JVM-detected deadlock among ").append(deadlocked.length).append(" threads:\n");
            for (ThreadInfo info : mx.getThreadInfo(deadlocked, true, true)) {
                if (info != null) {
                    sb.append("  \"").append(info.getThreadName()).append("\" waits for ").append(info.getLockName())
                        .append(" held by \"").append(info.getLockOwnerName()).append("\"\n");
                }
            }
        }
        List<Thread> interesting = new ArrayList<>(workers);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("remora-") && !interesting.contains(t)) {
                interesting.add(t);
            }
        }
        Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
        for (Thread t : interesting) {
            ThreadInfo info = mx.getThreadInfo(t.getId());
            sb.append('"').append(t.getName()).append("\" ").append(t.getState());
            if (info != null && info.getLockName() != null) {
                sb.append(" on ").append(info.getLockName());
                if (info.getLockOwnerName() != null) {
                    sb.append(" held by \"").append(info.getLockOwnerName()).append('"');
                }
            }
            sb.append('\n');
            StackTraceElement[] stack = stacks.getOrDefault(t, t.getStackTrace());
            for (StackTraceElement e : stack) {
                sb.append("    at ").append(e).append('\n');
            }
        }
        return sb.toString();
    }
}
