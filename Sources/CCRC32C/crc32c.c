#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>

int cairn_crc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t cairn_crc32c_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = (const unsigned char *)data;
    uint64_t state = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);  // unaligned load
        state = _mm_crc32_u64(state, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t small = (uint32_t)state;
    while (length > 0) {
        small = _mm_crc32_u8(small, *bytes);
        bytes += 1;
        length -= 1;
    }
    return small;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

// Built for a processor with the CRC32 extension (every ARM64 processor Apple ships has it).
int cairn_crc32c_hardware_available(void) { return 1; }

uint32_t cairn_crc32c_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = (const unsigned char *)data;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = __crc32cb(crc, *bytes);
        bytes += 1;
        length -= 1;
    }
    return crc;
}

#else
int cairn_crc32c_hardware_available(void) { return 0; }

uint32_t cairn_crc32c_update(uint32_t crc, const void *data, size_t length) {
    (void)data;
    (void)length;
    return crc;
}
#endif
