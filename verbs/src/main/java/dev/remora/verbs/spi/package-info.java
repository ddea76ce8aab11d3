/**
 * The provider interface: what a fabric implementation plugs in and uses ({@link
 * dev.remora.verbs.spi.FabricProvider}, registered in {@code META-INF/services/dev.remora.verbs.spi.FabricProvider}),
 * and helpers shared by the providers. Users of the verbs API do not need this package.
 */
package dev.remora.verbs.spi;
