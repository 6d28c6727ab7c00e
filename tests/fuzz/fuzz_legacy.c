/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for kc_legacy_convert: Produce v0-2 message sets of magic 0
 * and 1, uncompressed or compressed with gzip, snappy (xerial framing or raw)
 * and lz4 (Kafka's frame). The input is the message set. Whatever it holds,
 * the conversion must return a Kafka error code with a reason, or one magic
 * 2 batch whose length, CRC-32C and record count are consistent; the
 * decompression bound (64 KiB here) must hold.
 */
#include "crc32c.h"
#include "kc_fuzz.h"
#include "legacy.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_buf_t out;
    kc_buf_init(&out);
    const char *why = NULL;
    int16_t err = kc_legacy_convert(data, size, 65536, &out, &why);
    if (err) {
        KC_FUZZ_CHECK(why != NULL, "error %d without a reason", err);
        KC_FUZZ_CHECK(out.len == 0, "error %d with output", err);
    } else {
        KC_FUZZ_CHECK(out.len >= 61, "batch of %zu bytes", out.len);
        KC_FUZZ_CHECK(be32(out.data + 8) == out.len - 12, "batch length");
        KC_FUZZ_CHECK(out.data[16] == 2, "magic");
        KC_FUZZ_CHECK(be32(out.data + 17) == kc_crc32c(0, out.data + 21, out.len - 21), "crc");
        int32_t count = (int32_t)be32(out.data + 57);
        KC_FUZZ_CHECK(count > 0 && (int32_t)be32(out.data + 23) == count - 1, "count");
    }
    kc_buf_deinit(&out);
    return 0;
}
