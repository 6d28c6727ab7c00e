/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of storage/topics.c: the topic table, its persistence and Kafka's name rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topics.h"

#define MAP_SIZE (16u << 20)

static kc_str_t S(const char *s)
{
    return (kc_str_t){s, (int32_t)strlen(s)};
}

static int setup(void **state)
{
    char *dir = calloc(1, 64);
    snprintf(dir, 64, "/tmp/kc-topics-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
    free(*state);
    return system(cmd) == 0 ? 0 : -1;
}

static void name_rules_follow_kafka(void **state)
{
    (void)state;
    char max[251];
    memset(max, 'a', 250);
    max[250] = '\0';
    assert_null(kc_topic_name_invalid(S("orders")));
    assert_null(kc_topic_name_invalid(S("a.b_c-D9")));
    assert_null(kc_topic_name_invalid(S("...")));
    assert_null(kc_topic_name_invalid(S("__consumer_offsets")));
    assert_non_null(kc_topic_name_invalid(S("")));
    assert_non_null(kc_topic_name_invalid(KC_STR_NULL));
    assert_non_null(kc_topic_name_invalid(S(".")));
    assert_non_null(kc_topic_name_invalid(S("..")));
    assert_non_null(kc_topic_name_invalid(S("has space")));
    assert_non_null(kc_topic_name_invalid(S("slash/")));
    assert_non_null(kc_topic_name_invalid(S("caf\xc3\xa9")));
    assert_non_null(kc_topic_name_invalid((kc_str_t){"a\0b", 3}));
    assert_non_null(kc_topic_name_invalid(S(max)));
    max[249] = '\0';
    assert_null(kc_topic_name_invalid(S(max)));
}

static bool base64url_has_dash(const uint8_t *b)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char out[32];
    int n = 0;
    for (int i = 0; i < 16; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16;
        if (i + 1 < 16)
            v |= (uint32_t)b[i + 1] << 8;
        if (i + 2 < 16)
            v |= b[i + 2];
        out[n++] = abc[(v >> 18) & 63];
        out[n++] = abc[(v >> 12) & 63];
        if (i + 1 < 16)
            out[n++] = abc[(v >> 6) & 63];
        if (i + 2 < 16)
            out[n++] = abc[v & 63];
    }
    return memchr(out, '-', (size_t)n) != NULL;
}

static void random_ids_are_v4_and_dash_free(void **state)
{
    (void)state;
    kc_uuid_t prev = {{0}};
    for (int i = 0; i < 2000; i++) {
        kc_uuid_t id;
        assert_int_equal(kc_topic_id_random(&id), 0);
        assert_int_equal(id.b[6] >> 4, 4);
        assert_int_equal(id.b[8] >> 6, 2);
        assert_false(base64url_has_dash(id.b));
        assert_memory_not_equal(id.b, prev.b, 16);
        prev = id;
    }
}

static void create_find_and_order_without_store(void **state)
{
    (void)state;
    kc_topics_t *t = kc_topics_new(NULL);
    const kc_topic_t *a, *b, *again;
    assert_int_equal(kc_topics_create(t, S("b-topic"), 3, &a), 0);
    assert_int_equal(kc_topics_create(t, S("a-topic"), 1, &b), 0);
    assert_string_equal(a->name, "b-topic");
    assert_int_equal(a->partitions, 3);
    assert_memory_not_equal(a->id.b, b->id.b, 16);
    assert_int_equal(kc_topics_create(t, S("b-topic"), 5, &again), KC_EEXIST);
    assert_ptr_equal(again, a);
    assert_int_equal(again->partitions, 3);
    assert_int_equal(kc_topics_create(t, S("bad name"), 1, NULL), KC_EINVAL);
    assert_int_equal(kc_topics_create(t, S("zero"), 0, NULL), KC_EINVAL);
    assert_int_equal(kc_topics_count(t), 2);
    assert_ptr_equal(kc_topics_at(t, 0), a);
    assert_ptr_equal(kc_topics_at(t, 1), b);
    assert_null(kc_topics_at(t, 2));
    assert_ptr_equal(kc_topics_find(t, S("a-topic")), b);
    assert_null(kc_topics_find(t, S("a-topi")));
    assert_null(kc_topics_find(t, KC_STR_NULL));
    assert_ptr_equal(kc_topics_find_id(t, a->id), a);
    kc_uuid_t zero = {{0}};
    assert_null(kc_topics_find_id(t, zero));
    kc_topics_free(t);
}

static void many_topics_survive_growth_and_deletes(void **state)
{
    (void)state;
    kc_topics_t *t = kc_topics_new(NULL);
    char name[32];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        assert_int_equal(kc_topics_create(t, S(name), i + 1, NULL), 0);
    }
    for (int i = 0; i < 500; i += 2) {
        snprintf(name, sizeof(name), "t%d", i);
        assert_int_equal(kc_topics_delete(t, S(name)), 0);
    }
    assert_int_equal(kc_topics_delete(t, S("t0")), KC_ENOENT);
    assert_int_equal(kc_topics_count(t), 250);
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        const kc_topic_t *tp = kc_topics_find(t, S(name));
        if (i % 2 == 0) {
            assert_null(tp);
        } else {
            assert_non_null(tp);
            assert_int_equal(tp->partitions, i + 1);
            assert_ptr_equal(kc_topics_find_id(t, tp->id), tp);
            assert_ptr_equal(kc_topics_at(t, (size_t)i / 2), tp);
        }
    }
    kc_topics_free(t);
}

static void collision_of_dot_and_underscore(void **state)
{
    (void)state;
    kc_topics_t *t = kc_topics_new(NULL);
    const kc_topic_t *a;
    assert_int_equal(kc_topics_create(t, S("metrics.cpu"), 1, &a), 0);
    assert_ptr_equal(kc_topics_find_collision(t, S("metrics_cpu")), a);
    assert_null(kc_topics_find_collision(t, S("metrics.cpu"))); /* same name: not a collision */
    assert_null(kc_topics_find_collision(t, S("metrics-cpu")));
    assert_null(kc_topics_find_collision(t, S("metrics_cp")));
    kc_topics_free(t);
}

static void topics_persist_and_reload(void **state)
{
    const char *dir = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, dir, MAP_SIZE), 0);
    kc_topics_t *t = kc_topics_new(s);
    const kc_topic_t *z, *a, *m;
    assert_int_equal(kc_topics_create(t, S("zulu"), 2, &z), 0);
    assert_int_equal(kc_topics_create(t, S("alpha"), 4, &a), 0);
    assert_int_equal(kc_topics_create(t, S("mike"), 1, &m), 0);
    kc_uuid_t zid = z->id, mid = m->id;
    assert_int_equal(kc_store_commit(s), 0);
    assert_int_equal(kc_topics_delete(t, S("alpha")), 0);
    assert_int_equal(kc_topics_set_partitions(t, S("mike"), 6), 0);
    assert_int_equal(kc_topics_set_partitions(t, S("mike"), 6), KC_EINVAL);
    assert_int_equal(kc_topics_set_partitions(t, S("alpha"), 9), KC_ENOENT);
    assert_int_equal(kc_store_commit(s), 0);
    /* Uncommitted creation is not persisted. */
    assert_int_equal(kc_topics_create(t, S("ghost"), 1, NULL), 0);
    kc_topics_free(t);
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, dir, MAP_SIZE), 0);
    t = kc_topics_new(s);
    assert_int_equal(kc_topics_load(t), 0);
    assert_int_equal(kc_topics_count(t), 2);
    /* Creation order, not name order. */
    assert_string_equal(kc_topics_at(t, 0)->name, "zulu");
    assert_string_equal(kc_topics_at(t, 1)->name, "mike");
    assert_memory_equal(kc_topics_at(t, 0)->id.b, zid.b, 16);
    assert_memory_equal(kc_topics_at(t, 1)->id.b, mid.b, 16);
    assert_int_equal(kc_topics_at(t, 0)->partitions, 2);
    assert_int_equal(kc_topics_at(t, 1)->partitions, 6);
    assert_null(kc_topics_find(t, S("alpha")));
    assert_null(kc_topics_find(t, S("ghost")));
    /* A topic created after reload goes after the loaded ones. */
    assert_int_equal(kc_topics_create(t, S("aaa"), 1, NULL), 0);
    assert_int_equal(kc_store_commit(s), 0);
    kc_topics_free(t);
    kc_store_close(s);

    assert_int_equal(kc_store_open(&s, dir, MAP_SIZE), 0);
    t = kc_topics_new(s);
    assert_int_equal(kc_topics_load(t), 0);
    assert_int_equal(kc_topics_count(t), 3);
    assert_string_equal(kc_topics_at(t, 2)->name, "aaa");
    kc_topics_free(t);
    kc_store_close(s);
}

static void corrupt_topic_entry_fails_load(void **state)
{
    const char *dir = *state;
    kc_store_t *s;
    assert_int_equal(kc_store_open(&s, dir, MAP_SIZE), 0);
    assert_int_equal(kc_store_topic_put(s, "broken", "\x00\x00\x00", 3), 0);
    assert_int_equal(kc_store_commit(s), 0);
    kc_topics_t *t = kc_topics_new(s);
    assert_int_equal(kc_topics_load(t), KC_EIO);
    kc_topics_free(t);
    kc_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(name_rules_follow_kafka),
        cmocka_unit_test(random_ids_are_v4_and_dash_free),
        cmocka_unit_test(create_find_and_order_without_store),
        cmocka_unit_test(many_topics_survive_growth_and_deletes),
        cmocka_unit_test(collision_of_dot_and_underscore),
        cmocka_unit_test_setup_teardown(topics_persist_and_reload, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_topic_entry_fails_load, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
