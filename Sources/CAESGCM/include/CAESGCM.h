// AES-256-GCM (NIST SP 800-38D) with the processor's AES and carry-less multiply instructions
// (AES-NI and PCLMULQDQ on x86-64). Cairn seals every stored value of an encrypted store with
// it; where the instructions are missing, Cairn seals the same bytes through swift-crypto.
#ifndef CAESGCM_H
#define CAESGCM_H

#include <stddef.h>
#include <stdint.h>

/// A key's expanded schedule and its hash key: made once per key, read by any number of threads.
typedef struct cairn_gcm_key {
    _Alignas(16) uint8_t round_keys[15 * 16];
    /// The hash key H and its powers H² … H⁸ (byte-reversed): up to eight blocks share one
    /// reduction.
    _Alignas(16) uint8_t hash_powers[8 * 16];
} cairn_gcm_key;

/// Whether the functions below can run on this processor.
int cairn_gcm_hardware_available(void);

/// Expands the 32-byte `key` into `schedule`. Call only when the hardware is available.
void cairn_gcm_init(cairn_gcm_key *schedule, const uint8_t key[32]);

/// Encrypts `length` bytes at `input` into `output` (which may be `input`) under the 12-byte
/// `nonce`, authenticating them and the `aad_length` bytes at `aad`; writes the 16-byte tag.
void cairn_gcm_seal(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad,
                    size_t aad_length, const uint8_t *input, size_t length, uint8_t *output,
                    uint8_t tag[16]);

/// Decrypts `length` bytes at `input` into `output` (which may be `input`) when `tag`
/// authenticates them, `aad` and `nonce`; returns 1 then, and 0 (with `output` zeroed) when not.
int cairn_gcm_open(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad,
                   size_t aad_length, const uint8_t *input, size_t length, uint8_t *output,
                   const uint8_t tag[16]);

/// Overwrites `length` bytes at `bytes` with zeros in a way the compiler keeps.
void cairn_gcm_wipe(void *bytes, size_t length);

#endif
