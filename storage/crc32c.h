/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * Kafka record batches (magic 2): computed over everything after the CRC
 * field of the batch header.
 */
#ifndef KC_CRC32C_H
#define KC_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Continues a CRC-32C over len bytes: start with crc = 0, feed the result
 * back in for the next piece. kc_crc32c(0, "123456789", 9) == 0xE3069283.
 */
uint32_t kc_crc32c(uint32_t crc, const void *data, size_t len);
/* The table-driven computation kc_crc32c falls back to (same results; for tests). */
uint32_t kc_crc32c_sw(uint32_t crc, const void *data, size_t len);
/* True when kc_crc32c uses the processor's crc32 instruction (x86-64 SSE4.2). */
bool kc_crc32c_hw_available(void);

#endif
