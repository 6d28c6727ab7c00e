/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * Kafka record batches (magic 2): computed over everything after the CRC
 * field of the batch header.
 */
#ifndef KC_CRC32C_H
#define KC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * Continues a CRC-32C over len bytes: start with crc = 0, feed the result
 * back in for the next piece. kc_crc32c(0, "123456789", 9) == 0xE3069283.
 */
uint32_t kc_crc32c(uint32_t crc, const void *data, size_t len);

#endif
