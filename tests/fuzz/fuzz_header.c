/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for the request header parser (kc_request_header_decode).
 * Input: one byte whose low bit selects the flexible header (v2), then the
 * header bytes. A decoded client id must lie inside the input, and the
 * reader must stay within it.
 */
#include <string.h>

#include "kc_fuzz.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    bool flexible = (kc_fuzz_u8(&in) & 1) != 0;
    uint8_t *copy = in.left ? kc_xmalloc(in.left) : NULL;
    if (in.left)
        memcpy(copy, in.p, in.left);
    kc_reader_t r;
    kc_reader_init(&r, copy, in.left);
    kc_request_header_t h;
    memset(&h, 0, sizeof(h));
    int rc = kc_request_header_decode(&r, flexible, &h);
    KC_FUZZ_CHECK(r.p >= (const uint8_t *)copy && r.p <= r.end, "reader left its input");
    if (rc == 0) {
        KC_FUZZ_CHECK(r.err == 0, "header decoded with the reader in error");
        if (h.client_id.len > 0) {
            const uint8_t *s = (const uint8_t *)h.client_id.ptr;
            KC_FUZZ_CHECK(s >= copy && s + h.client_id.len <= copy + in.left,
                          "client id outside the input");
        }
        /* The same bytes with the same header version decode the same way. */
        kc_reader_t r2;
        kc_request_header_t h2;
        kc_reader_init(&r2, copy, in.left);
        KC_FUZZ_CHECK(kc_request_header_decode(&r2, flexible, &h2) == 0 && r2.p == r.p &&
                          h2.correlation_id == h.correlation_id && h2.api_key == h.api_key,
                      "header decode is not deterministic");
    } else {
        KC_FUZZ_CHECK(rc == KC_EINVAL, "unexpected status %d", rc);
    }
    free(copy);
    return 0;
}
