/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of storage/group_configs.c: the dynamic group config table and its persistence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "group_configs.h"

#define MAP_SIZE (16u << 20)

static kc_str_t S(const char *s)
{
    return (kc_str_t){s, (int32_t)strlen(s)};
}

static int setup(void **state)
{
    char *dir = calloc(1, 64);
    snprintf(dir, 64, "/tmp/kc-gcfg-XXXXXX");
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

/* Sets, replaces and removes overrides; every committed state survives a reopen. */
static void configs_survive_a_reopen(void **state)
{
    kc_store_t *st;
    assert_int_equal(kc_store_open(&st, *state, MAP_SIZE), 0);
    kc_group_configs_t *t = kc_group_configs_new(st);
    assert_int_equal(kc_group_configs_load(t), 0);
    kc_str_t names[2] = {S("consumer.session.timeout.ms"), S("consumer.heartbeat.interval.ms")};
    kc_str_t values[2] = {S("50000"), S("6000")};
    assert_int_equal(kc_group_configs_set(t, S("g1"), 2, names, values), 0);
    assert_int_equal(kc_group_configs_set(t, S("g2"), 1, names, values), 0);
    /* A group id with a NUL byte and one longer than an LMDB key. */
    char nul_id[] = {'a', 0, 'b'};
    kc_str_t nul = {nul_id, 3};
    assert_int_equal(kc_group_configs_set(t, nul, 1, names + 1, values + 1), 0);
    char *long_id = malloc(2000);
    memset(long_id, 'x', 1999);
    long_id[1999] = '\0';
    assert_int_equal(kc_group_configs_set(t, S(long_id), 1, names, values), 0);
    assert_int_equal(kc_group_configs_count(t), 4);
    /* Replace g2's, remove g1's. */
    kc_str_t v2 = S("55000");
    assert_int_equal(kc_group_configs_set(t, S("g2"), 1, names, &v2), 0);
    assert_int_equal(kc_group_configs_set(t, S("g1"), 0, NULL, NULL), 0);
    assert_int_equal(kc_store_commit(st), 0);
    kc_group_configs_free(t);
    kc_store_close(st);

    assert_int_equal(kc_store_open(&st, *state, MAP_SIZE), 0);
    t = kc_group_configs_new(st);
    assert_int_equal(kc_group_configs_load(t), 0);
    assert_int_equal(kc_group_configs_count(t), 3);
    assert_null(kc_group_configs_find(t, S("g1")));
    const kc_group_config_t *g2 = kc_group_configs_find(t, S("g2"));
    assert_non_null(g2);
    assert_int_equal(g2->nconfigs, 1);
    assert_string_equal(kc_group_config_value(g2, "consumer.session.timeout.ms"), "55000");
    assert_null(kc_group_config_value(g2, "consumer.heartbeat.interval.ms"));
    const kc_group_config_t *n = kc_group_configs_find(t, nul);
    assert_non_null(n);
    assert_string_equal(kc_group_config_value(n, "consumer.heartbeat.interval.ms"), "6000");
    assert_null(kc_group_configs_find(t, S("a")));
    const kc_group_config_t *l = kc_group_configs_find(t, S(long_id));
    assert_non_null(l);
    assert_int_equal(l->group_id_len, 1999);
    kc_group_configs_free(t);
    kc_store_close(st);
    free(long_id);
}

/* Writes that are not committed are not loaded. */
static void uncommitted_configs_are_not_loaded(void **state)
{
    kc_store_t *st;
    assert_int_equal(kc_store_open(&st, *state, MAP_SIZE), 0);
    kc_group_configs_t *t = kc_group_configs_new(st);
    kc_str_t name = S("streams.num.standby.replicas"), value = S("1");
    assert_int_equal(kc_group_configs_set(t, S("g"), 1, &name, &value), 0);
    kc_store_abort(st);
    kc_group_configs_free(t);
    t = kc_group_configs_new(st);
    assert_int_equal(kc_group_configs_load(t), 0);
    assert_int_equal(kc_group_configs_count(t), 0);
    kc_group_configs_free(t);
    kc_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(configs_survive_a_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(uncommitted_configs_are_not_loaded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
