/* SPDX-License-Identifier: Apache-2.0 */
/* The version-prefixed consumer embedded protocol (see consumer_protocol.h). */
#include "consumer_protocol.h"

bool kc_consumer_protocol_version(const uint8_t *p, int32_t len, int16_t *version)
{
    kc_reader_t r;
    kc_reader_init(&r, p, len > 0 ? (size_t)len : 0);
    *version = kc_read_int16(&r);
    return !r.err;
}

/* Positions r after the prefix of p and picks the version to read the
 * message at (newest: the newest version the schema knows). */
static int start(const uint8_t *p, int32_t len, int16_t as_version, int16_t newest,
                 kc_reader_t *r, int16_t *version)
{
    kc_reader_init(r, p, len > 0 ? (size_t)len : 0);
    int16_t v = kc_read_int16(r);
    if (r->err)
        return KC_EINVAL;
    if (as_version != KC_CONSUMER_PROTOCOL_PREFIXED)
        v = as_version;
    else if (v < 0)
        return KC_EINVAL;
    *version = v > newest ? newest : v;
    return 0;
}

int kc_consumer_protocol_read_subscription(const uint8_t *p, int32_t len, int16_t as_version,
                                           kc_arena_t *arena,
                                           kc_consumer_protocol_subscription_t *out)
{
    kc_consumer_protocol_subscription_init(out);
    kc_reader_t r;
    int16_t v;
    if (start(p, len, as_version, KC_CONSUMER_PROTOCOL_SUBSCRIPTION_MAX_VERSION, &r, &v) != 0 ||
        kc_consumer_protocol_subscription_decode(&r, v, arena, out) != 0 || r.err)
        return KC_EINVAL;
    return 0;
}

int kc_consumer_protocol_read_assignment(const uint8_t *p, int32_t len, kc_arena_t *arena,
                                         kc_consumer_protocol_assignment_t *out)
{
    kc_consumer_protocol_assignment_init(out);
    kc_reader_t r;
    int16_t v;
    if (start(p, len, KC_CONSUMER_PROTOCOL_PREFIXED, KC_CONSUMER_PROTOCOL_ASSIGNMENT_MAX_VERSION,
              &r, &v) != 0 ||
        kc_consumer_protocol_assignment_decode(&r, v, arena, out) != 0 || r.err)
        return KC_EINVAL;
    return 0;
}
