/**
 * The sequential specifications: registers, compare-and-set registers, multi-registers,
 * counters, sets, FIFO queues, mutexes and key-value maps, each a pure step function, and the
 * registry {@link dev.remora.check.model.Models} by name, which {@code remora check --model} uses, and its typed constructors.
 */
package dev.remora.check.model;
