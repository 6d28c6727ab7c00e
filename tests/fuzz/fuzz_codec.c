/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for the generated message codecs. Input: int16 api key,
 * int16 version, then the body bytes (big-endian, as on the wire). The key
 * selects the request descriptor (kc_msg_desc_for_api); with the top bit set
 * it selects the response descriptor instead. A body that decodes must
 * re-encode, and decoding that encoding must give the same encoding again
 * (the codec's fixed point), so every decoder is checked for memory safety
 * and every encoder for accepting what its decoder produced.
 */
#include <string.h>

#include "kc_fuzz.h"
#include "kc_msgs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_fuzz_in_t in = {data, size};
    uint16_t key = kc_fuzz_u16(&in);
    int16_t version = (int16_t)kc_fuzz_u16(&in);
    bool response = (key & 0x8000) != 0;
    const kc_msg_desc_t *d = kc_msg_desc_for_api((int16_t)(key & 0x7fff), response);
    if (!d)
        return 0;

    /* The body in its own exact-size allocation, so ASan sees any overread. */
    uint8_t *body = in.left ? kc_xmalloc(in.left) : NULL;
    if (in.left)
        memcpy(body, in.p, in.left);
    kc_arena_t arena;
    kc_arena_init(&arena);
    void *m = kc_xcalloc(1, d->size);
    void *m2 = kc_xcalloc(1, d->size);
    kc_buf_t b1, b2;
    kc_buf_init(&b1);
    kc_buf_init(&b2);

    kc_reader_t r;
    kc_reader_init(&r, body, in.left);
    int rc = d->decode(&r, version, &arena, m);
    if (version < d->min_version || version > d->max_version)
        KC_FUZZ_CHECK(rc == KC_EVERSION, "%s v%d: out-of-range version decoded (%d)", d->name,
                      version, rc);
    if (rc != 0)
        goto out;
    KC_FUZZ_CHECK(r.err == 0, "%s v%d: decode succeeded with the reader in error", d->name,
                  version);

    rc = d->encode(&b1, version, m);
    KC_FUZZ_CHECK(rc == 0, "%s v%d: re-encode of a decoded body failed (%d)", d->name, version, rc);
    kc_reader_init(&r, b1.data, b1.len);
    rc = d->decode(&r, version, &arena, m2);
    KC_FUZZ_CHECK(rc == 0, "%s v%d: decode of the re-encoding failed (%d)", d->name, version, rc);
    KC_FUZZ_CHECK(kc_reader_left(&r) == 0, "%s v%d: %zu bytes left after the re-encoding",
                  d->name, version, kc_reader_left(&r));
    rc = d->encode(&b2, version, m2);
    KC_FUZZ_CHECK(rc == 0, "%s v%d: second encode failed (%d)", d->name, version, rc);
    KC_FUZZ_CHECK(b1.len == b2.len && (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0),
                  "%s v%d: encode(decode(encode(x))) differs from encode(x) (%zu vs %zu bytes)",
                  d->name, version, b1.len, b2.len);
out:
    kc_buf_deinit(&b1);
    kc_buf_deinit(&b2);
    free(m);
    free(m2);
    kc_arena_deinit(&arena);
    free(body);
    return 0;
}
