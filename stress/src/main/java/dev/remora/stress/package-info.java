/**
 * How the build runs the jcstress tests of {@link dev.remora.stress.verbs} and {@link dev.remora.stress.objects}:
 * {@link dev.remora.stress.JcstressLauncher} keeps jcstress's console output in a file and prints a progress line
 * every 30 s.
 */
package dev.remora.stress;
