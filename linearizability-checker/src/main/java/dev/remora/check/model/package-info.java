/**
 * The sequential specifications: registers, compare-and-set registers, multi-registers,
 * counters, sets, FIFO queues, mutexes and key-value maps, each a pure step function, and the
 * registry {@link dev.remora.check.model.Models} that the {@code --model} option looks into.
 */
package dev.remora.check.model;
