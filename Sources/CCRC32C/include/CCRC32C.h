// CRC-32C (Castagnoli) with the processor's instruction where it has one: SSE 4.2 `crc32` on
// x86-64, the CRC32 extension on ARM64. Cairn checksums every record it writes and reads.
#ifndef CCRC32C_H
#define CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether `cairn_crc32c_update` can run on this processor.
int cairn_crc32c_hardware_available(void);

/// Advances the CRC-32C state `crc` (not inverted: start from 0xFFFFFFFF, invert at the end) over
/// `length` bytes at `data`. Call only when `cairn_crc32c_hardware_available()` returned 1.
uint32_t cairn_crc32c_update(uint32_t crc, const void *data, size_t length);

#endif
