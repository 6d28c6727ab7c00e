/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32C: the SSE4.2 crc32 instruction where the processor has it (checked
 * once at run time), else table-driven, eight bytes per step ("slicing by
 * 8"); the tables are built once, on first use (the event loop is
 * single-threaded, and a racing second builder would write the same values).
 */
#include "crc32c.h"

#include <stdbool.h>
#include <string.h>

#define POLY 0x82F63B78u

static uint32_t table[8][256];
static bool table_ready;

static void build_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
    table_ready = true;
}

uint32_t kc_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    if (!table_ready)
        build_table();
    const uint8_t *p = data;
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
              table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
              table[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_CRC32C_HW 1

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *data,
                                                            size_t len)
{
    const uint8_t *p = data;
    uint64_t c = ~crc;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* little-endian, as the CRC consumes bytes */
        c = __builtin_ia32_crc32di(c, w);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return ~c32;
}
#endif

bool kc_crc32c_hw_available(void)
{
#ifdef KC_CRC32C_HW
    static int have = -1;
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    return have == 1;
#else
    return false;
#endif
}

uint32_t kc_crc32c(uint32_t crc, const void *data, size_t len)
{
#ifdef KC_CRC32C_HW
    if (kc_crc32c_hw_available())
        return crc32c_hw(crc, data, len);
#endif
    return kc_crc32c_sw(crc, data, len);
}
