#include "CAESGCM.h"

#include <string.h>

void cairn_gcm_wipe(void *bytes, size_t length) {
    volatile uint8_t *p = (volatile uint8_t *)bytes;
    while (length--) *p++ = 0;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#define CAIRN_GCM_TARGET __attribute__((target("aes,pclmul,sse4.1,ssse3")))

int cairn_gcm_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_AES) && (ecx & bit_PCLMUL) && (ecx & bit_SSE4_1) && (ecx & bit_SSSE3);
}

// Key expansion for AES-256 (FIPS 197), in the form of Intel's AES-NI white paper: each round
// key word is the previous key's word XORed with all the words before it, then with the
// assisted (substituted, rotated) word.
CAIRN_GCM_TARGET static inline __m128i xor_prefixes(__m128i previous) {
    __m128i shifted = _mm_slli_si128(previous, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    return _mm_xor_si128(previous, shifted);
}

CAIRN_GCM_TARGET static inline __m128i expand_even(__m128i previous, __m128i assisted) {
    return _mm_xor_si128(xor_prefixes(previous), _mm_shuffle_epi32(assisted, 0xff));
}

CAIRN_GCM_TARGET static inline __m128i expand_odd(__m128i even, __m128i previous) {
    __m128i assisted = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(even, 0x00), 0xaa);
    return _mm_xor_si128(xor_prefixes(previous), assisted);
}

#define CAIRN_EXPAND(index, rcon)                                                  \
    do {                                                                           \
        even = expand_even(even, _mm_aeskeygenassist_si128(odd, rcon));            \
        keys[index] = even;                                                        \
        if (index < 14) {                                                          \
            odd = expand_odd(even, odd);                                           \
            keys[index + 1] = odd;                                                 \
        }                                                                          \
    } while (0)

CAIRN_GCM_TARGET static __m128i encrypt_block(const __m128i *keys, __m128i block) {
    block = _mm_xor_si128(block, keys[0]);
    for (int round = 1; round < 14; round++) block = _mm_aesenc_si128(block, keys[round]);
    return _mm_aesenclast_si128(block, keys[14]);
}

// Carry-less multiplication of two byte-reversed blocks (Intel's white paper on carry-less
// multiplication, algorithms 1 and 5): the 256-bit product is XORed into (high, low), so that
// several products can share one reduction.
CAIRN_GCM_TARGET static inline void multiply_into(__m128i a, __m128i b, __m128i *low, __m128i *high) {
    __m128i product_low = _mm_clmulepi64_si128(a, b, 0x00);
    __m128i middle = _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x10), _mm_clmulepi64_si128(a, b, 0x01));
    __m128i product_high = _mm_clmulepi64_si128(a, b, 0x11);
    *low = _mm_xor_si128(*low, _mm_xor_si128(product_low, _mm_slli_si128(middle, 8)));
    *high = _mm_xor_si128(*high, _mm_xor_si128(product_high, _mm_srli_si128(middle, 8)));
}

// The 256-bit product (high, low), shifted left by one bit (GCM's bit order) and reduced modulo
// x^128 + x^7 + x^2 + x + 1. Both steps are linear, so a sum of products reduces as one.
CAIRN_GCM_TARGET static __m128i reduce(__m128i low, __m128i high) {
    __m128i low_carry = _mm_srli_epi32(low, 31);
    __m128i high_carry = _mm_srli_epi32(high, 31);
    low = _mm_slli_epi32(low, 1);
    high = _mm_slli_epi32(high, 1);
    __m128i across = _mm_srli_si128(low_carry, 12);
    high_carry = _mm_slli_si128(high_carry, 4);
    low_carry = _mm_slli_si128(low_carry, 4);
    low = _mm_or_si128(low, low_carry);
    high = _mm_or_si128(high, high_carry);
    high = _mm_or_si128(high, across);
    __m128i a1 = _mm_slli_epi32(low, 31);
    __m128i a2 = _mm_slli_epi32(low, 30);
    __m128i a3 = _mm_slli_epi32(low, 25);
    a1 = _mm_xor_si128(_mm_xor_si128(a1, a2), a3);
    __m128i carried = _mm_srli_si128(a1, 4);
    a1 = _mm_slli_si128(a1, 12);
    low = _mm_xor_si128(low, a1);
    __m128i b1 = _mm_srli_epi32(low, 1);
    __m128i b2 = _mm_srli_epi32(low, 2);
    __m128i b3 = _mm_srli_epi32(low, 7);
    b1 = _mm_xor_si128(_mm_xor_si128(b1, b2), b3);
    b1 = _mm_xor_si128(b1, carried);
    low = _mm_xor_si128(low, b1);
    return _mm_xor_si128(high, low);
}

// Multiplication in GF(2^128) of two byte-reversed blocks, with GCM's bit order.
CAIRN_GCM_TARGET static __m128i gf_multiply(__m128i a, __m128i b) {
    __m128i low = _mm_setzero_si128(), high = _mm_setzero_si128();
    multiply_into(a, b, &low, &high);
    return reduce(low, high);
}

CAIRN_GCM_TARGET static inline __m128i byte_reverse(__m128i block) {
    return _mm_shuffle_epi8(block, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

// Loads up to 16 bytes, the rest zero.
CAIRN_GCM_TARGET static inline __m128i load_partial(const uint8_t *bytes, size_t count) {
    if (count >= 16) return _mm_loadu_si128((const __m128i *)bytes);
    _Alignas(16) uint8_t padded[16] = {0};
    memcpy(padded, bytes, count);
    return _mm_load_si128((const __m128i *)padded);
}

CAIRN_GCM_TARGET void cairn_gcm_init(cairn_gcm_key *schedule, const uint8_t key[32]) {
    __m128i keys[15];
    __m128i even = _mm_loadu_si128((const __m128i *)key);
    __m128i odd = _mm_loadu_si128((const __m128i *)(key + 16));
    keys[0] = even;
    keys[1] = odd;
    CAIRN_EXPAND(2, 0x01);
    CAIRN_EXPAND(4, 0x02);
    CAIRN_EXPAND(6, 0x04);
    CAIRN_EXPAND(8, 0x08);
    CAIRN_EXPAND(10, 0x10);
    CAIRN_EXPAND(12, 0x20);
    CAIRN_EXPAND(14, 0x40);
    for (int i = 0; i < 15; i++) _mm_store_si128((__m128i *)(schedule->round_keys + 16 * i), keys[i]);
    __m128i hash = byte_reverse(encrypt_block(keys, _mm_setzero_si128()));
    __m128i power = hash;
    for (int i = 0; i < 8; i++) {
        _mm_store_si128((__m128i *)(schedule->hash_powers + 16 * i), power);
        power = gf_multiply(power, hash);
    }
    cairn_gcm_wipe(keys, sizeof keys);
}

static inline size_t block_count(size_t length) { return (length + 15) / 16; }

// Reads GHASH's input block after block: the additional data, then the ciphertext, each
// zero-padded, then the lengths block (built in the byte-reversed order the others are loaded in).
typedef struct block_reader {
    const uint8_t *bytes;
    size_t left;
    const uint8_t *ciphertext;
    size_t length;
    int inCiphertext;
    __m128i lengths;
} block_reader;

CAIRN_GCM_TARGET static inline __m128i next_block(block_reader *reader) {
    for (;;) {
        if (reader->left >= 16) {
            __m128i block = _mm_loadu_si128((const __m128i *)reader->bytes);
            reader->bytes += 16;
            reader->left -= 16;
            return byte_reverse(block);
        }
        if (reader->left > 0) {
            __m128i block = load_partial(reader->bytes, reader->left);
            reader->left = 0;
            return byte_reverse(block);
        }
        if (reader->inCiphertext) return reader->lengths;
        reader->inCiphertext = 1;
        reader->bytes = reader->ciphertext;
        reader->left = reader->length;
    }
}

// Multiplies the blocks of `length` bytes (the last zero-padded) by H^power, H^(power-1), …
// into (low, high); returns the next power.
CAIRN_GCM_TARGET static inline size_t multiply_blocks(const __m128i *powers, const uint8_t *bytes, size_t length,
                                                     size_t power, __m128i *low, __m128i *high) {
    for (; length >= 16; bytes += 16, length -= 16, power--) {
        multiply_into(byte_reverse(_mm_loadu_si128((const __m128i *)bytes)), powers[power - 1], low, high);
    }
    if (length > 0) multiply_into(byte_reverse(load_partial(bytes, length)), powers[--power], low, high);
    return power;
}

// GHASH of at most eight blocks in all (a stored record with its additional data): each block
// times its power of H, one reduction, no state carried in.
CAIRN_GCM_TARGET static __m128i ghash_one_batch(const __m128i *powers, const uint8_t *aad, size_t aad_length,
                                               const uint8_t *ciphertext, size_t length, size_t total) {
    __m128i low = _mm_setzero_si128(), high = _mm_setzero_si128();
    size_t power = multiply_blocks(powers, aad, aad_length, total, &low, &high);
    power = multiply_blocks(powers, ciphertext, length, power, &low, &high);
    __m128i lengths = _mm_set_epi64x((long long)((uint64_t)aad_length * 8), (long long)((uint64_t)length * 8));
    multiply_into(lengths, powers[power - 1], &low, &high);
    return reduce(low, high);
}

// GHASH of the additional data, the ciphertext and their lengths, eight blocks per reduction:
// (X + B1)·Hᵏ + B2·Hᵏ⁻¹ + … + Bk·H; a stored record with its additional data is one batch.
CAIRN_GCM_TARGET static __m128i ghash(const __m128i *powers, const uint8_t *aad, size_t aad_length,
                                     const uint8_t *ciphertext, size_t length) {
    size_t total = block_count(aad_length) + block_count(length) + 1;
    if (total <= 8) return ghash_one_batch(powers, aad, aad_length, ciphertext, length, total);
    block_reader reader = {aad, aad_length, ciphertext, length, 0,
                           _mm_set_epi64x((long long)((uint64_t)aad_length * 8), (long long)((uint64_t)length * 8))};
    __m128i state = _mm_setzero_si128();
    for (size_t start = 0; start < total; start += 8) {
        size_t count = total - start < 8 ? total - start : 8;
        __m128i low = _mm_setzero_si128(), high = _mm_setzero_si128();
        multiply_into(_mm_xor_si128(next_block(&reader), state), powers[count - 1], &low, &high);
        for (size_t j = 1; j < count; j++) multiply_into(next_block(&reader), powers[count - 1 - j], &low, &high);
        state = reduce(low, high);
    }
    return state;
}

// The nonce as a counter block whose counter is filled in by `with_counter`.
CAIRN_GCM_TARGET static inline __m128i counter_base(const uint8_t nonce[12]) {
    _Alignas(16) uint8_t block[16] = {0};
    memcpy(block, nonce, 12);
    return _mm_load_si128((const __m128i *)block);
}

CAIRN_GCM_TARGET static inline __m128i with_counter(__m128i base, uint32_t counter) {
    return _mm_insert_epi32(base, (int)__builtin_bswap32(counter), 3);
}

// The encryptions of `lanes` counter blocks from `counter` on, into `out`, side by side: a short
// value waits for one block's rounds, not one per block. Always inlined with a constant `lanes`,
// so each width is its own unrolled loop.
CAIRN_GCM_TARGET static inline __attribute__((always_inline)) void
keystream_lanes(const __m128i *keys, __m128i base, uint32_t counter, int lanes, __m128i out[8]) {
    __m128i b[8];
    for (int j = 0; j < lanes; j++) b[j] = _mm_xor_si128(with_counter(base, counter + (uint32_t)j), keys[0]);
    for (int round = 1; round < 14; round++)
        for (int j = 0; j < lanes; j++) b[j] = _mm_aesenc_si128(b[j], keys[round]);
    for (int j = 0; j < lanes; j++) out[j] = _mm_aesenclast_si128(b[j], keys[14]);
}

// The encryptions of `count` (1 to 8) counter blocks from `counter` on, into `out`: four, six or
// eight side by side, whichever is the fewest that covers them.
CAIRN_GCM_TARGET static void keystream(const __m128i *keys, __m128i base, uint32_t counter, size_t count,
                                      __m128i out[8]) {
    if (count <= 4) keystream_lanes(keys, base, counter, 4, out);
    else if (count <= 6) keystream_lanes(keys, base, counter, 6, out);
    else keystream_lanes(keys, base, counter, 8, out);
}

// XORs `length` bytes (at most 16 per block of `stream`) of `input` into `output`.
CAIRN_GCM_TARGET static void xor_stream(const __m128i *stream, const uint8_t *input, size_t length, uint8_t *output) {
    for (size_t j = 0; length > 0; j++) {
        if (length >= 16) {
            _mm_storeu_si128((__m128i *)output, _mm_xor_si128(stream[j], _mm_loadu_si128((const __m128i *)input)));
            input += 16, output += 16, length -= 16;
        } else {
            _Alignas(16) uint8_t block[16];
            _mm_store_si128((__m128i *)block, _mm_xor_si128(stream[j], load_partial(input, length)));
            memcpy(output, block, length);
            length = 0;
        }
    }
}

// Counter mode over the bytes after the first `done` (which used counters 2 …), eight blocks
// at a time.
CAIRN_GCM_TARGET static void ctr_rest(const __m128i *keys, __m128i base, const uint8_t *input, size_t done,
                                     size_t length, uint8_t *output) {
    __m128i stream[8];
    for (uint32_t counter = 2 + (uint32_t)(done / 16); done < length; counter += 8) {
        size_t part = length - done < 128 ? length - done : 128;
        keystream(keys, base, counter, block_count(part), stream);
        xor_stream(stream, input + done, part, output + done);
        done += part;
    }
}

// The first bytes a seal or open takes with the tag's mask: up to seven blocks, encrypted with
// counter block 1 (the mask) in one batch.
static const size_t first_bytes = 7 * 16;

CAIRN_GCM_TARGET void cairn_gcm_seal(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad,
                                     size_t aad_length, const uint8_t *input, size_t length, uint8_t *output,
                                     uint8_t tag[16]) {
    const __m128i *keys = (const __m128i *)schedule->round_keys;
    __m128i base = counter_base(nonce), stream[8];
    size_t first = length < first_bytes ? length : first_bytes;
    keystream(keys, base, 1, 1 + block_count(first), stream);
    xor_stream(stream + 1, input, first, output);
    ctr_rest(keys, base, input, first, length, output);
    __m128i hash = ghash((const __m128i *)schedule->hash_powers, aad, aad_length, output, length);
    _mm_storeu_si128((__m128i *)tag, _mm_xor_si128(byte_reverse(hash), stream[0]));
}

CAIRN_GCM_TARGET int cairn_gcm_open(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad,
                                    size_t aad_length, const uint8_t *input, size_t length, uint8_t *output,
                                    const uint8_t tag[16]) {
    const __m128i *keys = (const __m128i *)schedule->round_keys;
    __m128i base = counter_base(nonce), stream[8];
    size_t first = length < first_bytes ? length : first_bytes;
    keystream(keys, base, 1, 1 + block_count(first), stream);
    __m128i hash = ghash((const __m128i *)schedule->hash_powers, aad, aad_length, input, length);
    __m128i expected = _mm_xor_si128(byte_reverse(hash), stream[0]);
    // Compared in constant time: every byte's difference is folded in.
    __m128i difference = _mm_xor_si128(expected, _mm_loadu_si128((const __m128i *)tag));
    if (!_mm_testz_si128(difference, difference)) {
        memset(output, 0, length);
        return 0;
    }
    xor_stream(stream + 1, input, first, output);
    ctr_rest(keys, base, input, first, length, output);
    return 1;
}

#else

int cairn_gcm_hardware_available(void) { return 0; }

void cairn_gcm_init(cairn_gcm_key *schedule, const uint8_t key[32]) {
    (void)key;
    memset(schedule, 0, sizeof *schedule);
}

void cairn_gcm_seal(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
                    const uint8_t *input, size_t length, uint8_t *output, uint8_t tag[16]) {
    (void)schedule, (void)nonce, (void)aad, (void)aad_length, (void)input, (void)length, (void)output, (void)tag;
}

int cairn_gcm_open(const cairn_gcm_key *schedule, const uint8_t nonce[12], const uint8_t *aad, size_t aad_length,
                   const uint8_t *input, size_t length, uint8_t *output, const uint8_t tag[16]) {
    (void)schedule, (void)nonce, (void)aad, (void)aad_length, (void)input, (void)tag;
    memset(output, 0, length);
    return 0;
}

#endif
