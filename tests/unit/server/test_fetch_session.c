/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of server/fetch_session.c: session creation, updates, change tracking, eviction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fetch_session.h"

static kc_fetch_session_partition_t part(const char *topic, int32_t p, int64_t offset)
{
    kc_fetch_session_partition_t x;
    memset(&x, 0, sizeof(x));
    x.topic = (char *)topic;
    x.partition = p;
    x.fetch_offset = offset;
    x.log_start_offset = -1;
    x.max_bytes = 1 << 20;
    x.high_watermark = 10;
    x.local_log_start_offset = 0;
    return x;
}

static void session_lifecycle(void **state)
{
    (void)state;
    kc_fetch_sessions_t *c = kc_fetch_sessions_new(1000, 120000, 42);
    kc_fetch_session_partition_t ps[2] = {part("t", 0, 5), part("t", 1, 7)};
    int32_t id = kc_fetch_sessions_create(c, 1000, false, ps, 2);
    assert_true(id > 0);
    kc_fetch_session_t *s = kc_fetch_sessions_get(c, id);
    assert_non_null(s);
    assert_int_equal(s->epoch, 1);
    assert_null(kc_fetch_sessions_get(c, 0));
    /* Update one, add one, forget one. */
    kc_fetch_session_partition_t upd = part("t", 0, 9);
    assert_false(kc_fetch_session_upsert(s, &upd));
    kc_fetch_session_partition_t add = part("u", 0, 0);
    assert_true(kc_fetch_session_upsert(s, &add));
    assert_true(kc_fetch_session_forget(s, kc_str("t"), (kc_uuid_t){{0}}, 1));
    assert_false(kc_fetch_session_forget(s, kc_str("t"), (kc_uuid_t){{0}}, 1));
    assert_int_equal(s->n, 2);
    assert_int_equal(s->parts[0].fetch_offset, 9);
    /* Only changes are sent: same high watermark and no records -> nothing. */
    assert_false(kc_fetch_session_must_respond(&s->parts[0], 0, 0, 10, 0, true));
    assert_true(kc_fetch_session_must_respond(&s->parts[0], 0, 0, 11, 0, true));
    assert_false(kc_fetch_session_must_respond(&s->parts[0], 0, 0, 11, 0, true));
    assert_true(kc_fetch_session_must_respond(&s->parts[0], 0, 100, 11, 0, true));
    assert_true(kc_fetch_session_must_respond(&s->parts[0], 0, 0, 11, 3, false));
    assert_true(kc_fetch_session_must_respond(&s->parts[0], 1, 0, 11, 0, true));
    assert_int_equal(s->parts[0].high_watermark, -1);
    /* Partitions that returned records move to the end. */
    bool to_end[2] = {true, false};
    kc_fetch_session_reorder(s, to_end);
    assert_string_equal(s->parts[0].topic, "u");
    assert_string_equal(s->parts[1].topic, "t");
    assert_int_equal(kc_fetch_next_epoch(1), 2);
    assert_int_equal(kc_fetch_next_epoch(INT32_MAX), 1);
    assert_int_equal(kc_fetch_next_epoch(-1), -1);
    assert_true(kc_fetch_sessions_remove(c, id));
    assert_false(kc_fetch_sessions_remove(c, id));
    assert_int_equal(kc_fetch_sessions_count(c), 0);
    kc_fetch_sessions_free(c);
}

static void eviction_rules(void **state)
{
    (void)state;
    kc_fetch_sessions_t *c = kc_fetch_sessions_new(2, 120000, 7);
    kc_fetch_session_partition_t ps[3] = {part("t", 0, 0), part("t", 1, 0), part("t", 2, 0)};
    int32_t a = kc_fetch_sessions_create(c, 0, false, ps, 1);
    int32_t b = kc_fetch_sessions_create(c, 1000, false, ps, 2);
    assert_true(a > 0 && b > 0 && a != b);
    /* Full, nobody stale or old enough: no session. */
    assert_int_equal(kc_fetch_sessions_create(c, 2000, false, ps, 3), 0);
    /* a unused for more than 120 s: evicted for the newcomer. */
    kc_fetch_sessions_touch(c, kc_fetch_sessions_get(c, b), 121001);
    int32_t d = kc_fetch_sessions_create(c, 121001, false, ps, 1);
    assert_true(d > 0);
    assert_null(kc_fetch_sessions_get(c, a));
    /* b is old (created over 120 s before its last touch) and recently used:
     * a bigger session may evict it, a smaller one may not. */
    kc_fetch_sessions_touch(c, kc_fetch_sessions_get(c, d), 121002);
    assert_int_equal(kc_fetch_sessions_create(c, 121003, false, ps, 1), 0);
    int32_t e = kc_fetch_sessions_create(c, 121003, false, ps, 3);
    assert_true(e > 0);
    assert_null(kc_fetch_sessions_get(c, b));
    kc_fetch_sessions_free(c);
    /* No slots: never a session. */
    c = kc_fetch_sessions_new(0, 120000, 1);
    assert_int_equal(kc_fetch_sessions_create(c, 0, false, ps, 1), 0);
    kc_fetch_sessions_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session_lifecycle),
        cmocka_unit_test(eviction_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
