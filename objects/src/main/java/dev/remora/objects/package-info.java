/**
 * Remote concurrent objects written against the verbs API only ({@link dev.remora.verbs}), so they run unchanged on
 * every fabric. Each type's javadoc says which verbs its methods issue, how many round trips they cost uncontended,
 * and which operation each synchronizes with; each shared layout has a {@code *Descriptor} class.
 */
package dev.remora.objects;
