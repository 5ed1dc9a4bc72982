// Sequentially consistent operations on one 64-bit word, for Cairn's transaction gate: a shared
// entry and exit are one atomic operation each, where a lock and its unlock were two, twice.
// (Swift's `Synchronization` has them only from macOS 15 and iOS 18.)
#ifndef CATOMICWORD_H
#define CATOMICWORD_H

#include <stdbool.h>
#include <stdint.h>

/// The word's value.
static inline int64_t cairn_atomic_load(const int64_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

/// Sets the word to `desired` if it holds `expected`; whether it did.
static inline bool cairn_atomic_compare_exchange(int64_t *word, int64_t expected, int64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/// Adds `delta` to the word; returns the value before.
static inline int64_t cairn_atomic_fetch_add(int64_t *word, int64_t delta) {
    return __atomic_fetch_add(word, delta, __ATOMIC_SEQ_CST);
}

/// Sets the bits of `mask` in the word; returns the value before.
static inline int64_t cairn_atomic_fetch_or(int64_t *word, int64_t mask) {
    return __atomic_fetch_or(word, mask, __ATOMIC_SEQ_CST);
}

/// Clears the bits of `mask` in the word; returns the value before.
static inline int64_t cairn_atomic_fetch_and(int64_t *word, int64_t mask) {
    return __atomic_fetch_and(word, mask, __ATOMIC_SEQ_CST);
}

#endif
