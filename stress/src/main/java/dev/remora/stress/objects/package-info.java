/**
 * jcstress tests of the races of the objects in {@code dev.remora.objects}, on the fast in-process fabric, one class
 * per object race, every outcome with its reason and every forbidden one naming the rule of docs/memory-model.md or
 * the object's contract it would break:
 * <ul>
 *   <li>{@link dev.remora.stress.objects.RemoteRegisterSetGetTest}: set vs get, an old or a new value, never a
 *       third;</li>
 *   <li>{@link dev.remora.stress.objects.CasRegisterRaceTest}: of two compareAndSet exactly one wins, two getAndSet
 *       see distinct previous values;</li>
 *   <li>{@link dev.remora.stress.objects.SingleWriterVersionedRegisterTest} and
 *       {@link dev.remora.stress.objects.MultiWriterVersionedRegisterTest}: multi-word values are read whole, never
 *       mixed (R18 and the per-word tags);</li>
 *   <li>{@link dev.remora.stress.objects.ShardedCounterTest}: a read of two racing increments is 0, 1 or 2;</li>
 *   <li>{@link dev.remora.stress.objects.RemoteBarrierTest}: nobody passes before the other party arrived;</li>
 *   <li>{@link dev.remora.stress.objects.SpscRingTest} and {@link dev.remora.stress.objects.MpscRingTest}: messages
 *       arrive whole, once, and (single producer) in order.</li>
 * </ul>
 * Objects that register memory per handle, and the rings, are pooled per slot ({@link
 * dev.remora.stress.objects.ObjectFabric}): jcstress makes far more states than a fabric can register regions.
 *
 * <p>How to run: {@code mvn -B verify} runs them with the verbs tests in the short mode;
 * {@code -Djcstress.tests='dev\.remora\.stress\.objects\..*'} selects only these.
 */
package dev.remora.stress.objects;
