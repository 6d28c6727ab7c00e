/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for server/acl.c: the authorizer's decision as Kafka's
 * StandardAuthorizer takes it (DENY wins, implied DESCRIBE, literal,
 * wildcard and prefixed patterns, principal and host matching, super
 * users, the no-ACL rule), authorizeByResourceType, binding filters,
 * validation of new bindings and their storage form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_acl.h"
#include "kc_errors.h"

static void add(kc_authorizer_t *a, int8_t rtype, int8_t ptype, const char *name,
                const char *principal, const char *host, int8_t op, int8_t perm)
{
    kc_acl_t acl = {rtype, ptype, (char *)name, (char *)principal, (char *)host, op, perm};
    assert_int_equal(kc_authorizer_add(a, &acl), 0);
}

static bool allowed(const kc_authorizer_t *a, const char *principal, const char *host, int8_t op,
                    int8_t rtype, const char *name)
{
    return kc_authorizer_authorize(a, principal, host, op, rtype, kc_str(name));
}

#define ALICE "User:alice"
#define BOB "User:bob"
#define HOST "/10.0.0.5"

static void test_no_acl_denies_by_default_and_allows_when_configured(void **state)
{
    (void)state;
    kc_authorizer_t *closed = kc_authorizer_new(NULL, false);
    kc_authorizer_t *open = kc_authorizer_new("", true);
    assert_false(allowed(closed, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    assert_true(allowed(open, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    /* An ACL on the resource for someone else: the no-ACL rule no longer applies. */
    add(open, KC_RES_TOPIC, KC_PAT_LITERAL, "t", BOB, "*", KC_OP_READ, KC_PERM_ALLOW);
    assert_false(allowed(open, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    assert_true(allowed(open, BOB, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    /* Other resources of the type are still open. */
    assert_true(allowed(open, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "u"));
    kc_authorizer_free(closed);
    kc_authorizer_free(open);
}

static void test_deny_wins_over_allow(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    add(a, KC_RES_GROUP, KC_PAT_LITERAL, "g", ALICE, "*", KC_OP_ALL, KC_PERM_ALLOW);
    add(a, KC_RES_GROUP, KC_PAT_PREFIXED, "g", ALICE, "*", KC_OP_READ, KC_PERM_DENY);
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_GROUP, "g"));
    assert_true(allowed(a, ALICE, HOST, KC_OP_DESCRIBE, KC_RES_GROUP, "g"));
    assert_true(allowed(a, ALICE, HOST, KC_OP_DELETE, KC_RES_GROUP, "g"));
    /* A DENY for ALL denies every operation. */
    add(a, KC_RES_GROUP, KC_PAT_LITERAL, "*", "User:*", "*", KC_OP_ALL, KC_PERM_DENY);
    assert_false(allowed(a, ALICE, HOST, KC_OP_DELETE, KC_RES_GROUP, "g"));
    kc_authorizer_free(a);
}

static void test_read_write_delete_alter_imply_describe_for_allow_only(void **state)
{
    (void)state;
    const int8_t implying[] = {KC_OP_READ, KC_OP_WRITE, KC_OP_DELETE, KC_OP_ALTER};
    for (size_t i = 0; i < sizeof(implying); i++) {
        kc_authorizer_t *a = kc_authorizer_new(NULL, false);
        add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", implying[i], KC_PERM_ALLOW);
        assert_true(allowed(a, ALICE, HOST, KC_OP_DESCRIBE, KC_RES_TOPIC, "t"));
        assert_false(allowed(a, ALICE, HOST, KC_OP_CREATE, KC_RES_TOPIC, "t"));
        kc_authorizer_free(a);
    }
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_CREATE, KC_PERM_ALLOW);
    assert_false(allowed(a, ALICE, HOST, KC_OP_DESCRIBE, KC_RES_TOPIC, "t"));
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_ALTER_CONFIGS, KC_PERM_ALLOW);
    assert_true(allowed(a, ALICE, HOST, KC_OP_DESCRIBE_CONFIGS, KC_RES_TOPIC, "t"));
    /* A DENY READ does not deny DESCRIBE. */
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_DESCRIBE, KC_PERM_ALLOW);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_READ, KC_PERM_DENY);
    assert_true(allowed(a, ALICE, HOST, KC_OP_DESCRIBE, KC_RES_TOPIC, "t"));
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    kc_authorizer_free(a);
}

static void test_literal_wildcard_and_prefixed_patterns(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "orders", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW);
    add(a, KC_RES_TOPIC, KC_PAT_PREFIXED, "logs-", BOB, "*", KC_OP_READ, KC_PERM_ALLOW);
    add(a, KC_RES_GROUP, KC_PAT_LITERAL, "*", BOB, "*", KC_OP_READ, KC_PERM_ALLOW);
    assert_true(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "orders"));
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "orders2"));
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "order"));
    assert_true(allowed(a, BOB, HOST, KC_OP_READ, KC_RES_TOPIC, "logs-app"));
    assert_true(allowed(a, BOB, HOST, KC_OP_READ, KC_RES_TOPIC, "logs-"));
    assert_false(allowed(a, BOB, HOST, KC_OP_READ, KC_RES_TOPIC, "logs"));
    assert_true(allowed(a, BOB, HOST, KC_OP_READ, KC_RES_GROUP, "any-group"));
    /* A literal "*" on groups does not reach topics. */
    assert_false(allowed(a, BOB, HOST, KC_OP_READ, KC_RES_TOPIC, "orders"));
    /* A literal name "logs-" is not a prefix. */
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "x-", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW);
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "x-1"));
    kc_authorizer_free(a);
}

static void test_principal_and_host_matching(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "t", "User:*", "10.0.0.5", KC_OP_READ, KC_PERM_ALLOW);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "u", ALICE, "192.168.1.0/24", KC_OP_READ, KC_PERM_ALLOW);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "v", ALICE, "::1", KC_OP_READ, KC_PERM_ALLOW);
    assert_true(allowed(a, ALICE, "/10.0.0.5", KC_OP_READ, KC_RES_TOPIC, "t"));
    assert_true(allowed(a, "User:ANONYMOUS", "10.0.0.5", KC_OP_READ, KC_RES_TOPIC, "t"));
    assert_false(allowed(a, ALICE, "/10.0.0.6", KC_OP_READ, KC_RES_TOPIC, "t"));
    assert_true(allowed(a, ALICE, "/192.168.1.77", KC_OP_READ, KC_RES_TOPIC, "u"));
    assert_false(allowed(a, ALICE, "/192.168.2.77", KC_OP_READ, KC_RES_TOPIC, "u"));
    assert_false(allowed(a, BOB, "/192.168.1.77", KC_OP_READ, KC_RES_TOPIC, "u"));
    assert_true(allowed(a, ALICE, "/::1", KC_OP_READ, KC_RES_TOPIC, "v"));
    /* Principals compare whole: "User:alice" is not "User:alice2" nor "Group:alice". */
    assert_false(allowed(a, "User:alice2", "/192.168.1.77", KC_OP_READ, KC_RES_TOPIC, "u"));
    assert_false(allowed(a, "Group:alice", "/192.168.1.77", KC_OP_READ, KC_RES_TOPIC, "u"));
    kc_authorizer_free(a);
}

static void test_super_users_are_allowed_everything(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(" User:admin ; User:ops;", false);
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "*", "User:*", "*", KC_OP_ALL, KC_PERM_DENY);
    assert_true(kc_authorizer_is_super_user(a, "User:admin"));
    assert_true(kc_authorizer_is_super_user(a, "User:ops"));
    assert_false(kc_authorizer_is_super_user(a, "User:adm"));
    assert_true(allowed(a, "User:admin", HOST, KC_OP_DELETE, KC_RES_TOPIC, "t"));
    assert_true(allowed(a, "User:ops", HOST, KC_OP_ALTER, KC_RES_CLUSTER, "kafka-cluster"));
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    kc_authorizer_free(a);
}

static void test_authorize_by_resource_type(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    assert_false(kc_authorizer_authorize_any(a, ALICE, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    add(a, KC_RES_TOPIC, KC_PAT_PREFIXED, "app-", ALICE, "*", KC_OP_WRITE, KC_PERM_ALLOW);
    assert_true(kc_authorizer_authorize_any(a, ALICE, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    assert_false(kc_authorizer_authorize_any(a, BOB, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    /* A DENY prefix covering the allowed prefix dominates it. */
    add(a, KC_RES_TOPIC, KC_PAT_PREFIXED, "app", ALICE, "*", KC_OP_WRITE, KC_PERM_DENY);
    assert_false(kc_authorizer_authorize_any(a, ALICE, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "other", ALICE, "*", KC_OP_WRITE, KC_PERM_ALLOW);
    assert_true(kc_authorizer_authorize_any(a, ALICE, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    /* A DENY on every name wins. */
    add(a, KC_RES_TOPIC, KC_PAT_LITERAL, "*", ALICE, "*", KC_OP_WRITE, KC_PERM_DENY);
    assert_false(kc_authorizer_authorize_any(a, ALICE, HOST, KC_OP_WRITE, KC_RES_TOPIC));
    kc_authorizer_free(a);
}

static kc_acl_filter_t any_filter(void)
{
    kc_acl_filter_t f = {KC_RES_ANY, KC_PAT_ANY, KC_STR_NULL, KC_STR_NULL,
                         KC_STR_NULL, KC_OP_ANY,  KC_PERM_ANY};
    return f;
}

static void test_filters_any_match_and_exact(void **state)
{
    (void)state;
    kc_acl_t lit = {KC_RES_TOPIC, KC_PAT_LITERAL, "orders", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW};
    kc_acl_t star = {KC_RES_TOPIC, KC_PAT_LITERAL, "*", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW};
    kc_acl_t pre = {KC_RES_TOPIC, KC_PAT_PREFIXED, "ord", ALICE, "*", KC_OP_WRITE, KC_PERM_DENY};
    kc_acl_filter_t f = any_filter();
    assert_true(kc_acl_filter_matches(&f, &lit));
    assert_true(kc_acl_filter_matches(&f, &pre));
    /* ANY with a name: exact names only. */
    f.resource_name = kc_str("orders");
    assert_true(kc_acl_filter_matches(&f, &lit));
    assert_false(kc_acl_filter_matches(&f, &star));
    assert_false(kc_acl_filter_matches(&f, &pre));
    /* MATCH: every pattern that applies to the name. */
    f.pattern_type = KC_PAT_MATCH;
    assert_true(kc_acl_filter_matches(&f, &lit));
    assert_true(kc_acl_filter_matches(&f, &star));
    assert_true(kc_acl_filter_matches(&f, &pre));
    f.resource_name = kc_str("or");
    assert_false(kc_acl_filter_matches(&f, &pre));
    /* LITERAL / PREFIXED: that type, exact name. */
    f.pattern_type = KC_PAT_PREFIXED;
    f.resource_name = kc_str("ord");
    assert_true(kc_acl_filter_matches(&f, &pre));
    assert_false(kc_acl_filter_matches(&f, &lit));
    /* Entry fields. */
    f = any_filter();
    f.operation = KC_OP_WRITE;
    assert_false(kc_acl_filter_matches(&f, &lit));
    assert_true(kc_acl_filter_matches(&f, &pre));
    f = any_filter();
    f.permission = KC_PERM_DENY;
    f.principal = kc_str(BOB);
    assert_false(kc_acl_filter_matches(&f, &pre));
    f.principal = kc_str(ALICE);
    f.host = kc_str("*");
    assert_true(kc_acl_filter_matches(&f, &pre));
    f.resource_type = KC_RES_GROUP;
    assert_false(kc_acl_filter_matches(&f, &pre));
}

static void test_validate_new_bindings(void **state)
{
    (void)state;
    char msg[256];
    kc_acl_t ok = {KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW};
    assert_int_equal(kc_acl_validate(&ok, msg, sizeof(msg)), 0);
    kc_acl_t x = ok;
    x.resource_type = KC_RES_ANY;
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x = ok;
    x.pattern_type = KC_PAT_MATCH;
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x = ok;
    x.operation = KC_OP_ANY;
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x = ok;
    x.permission = KC_PERM_ANY;
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x = ok;
    x.principal = "alice";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    assert_non_null(strstr(msg, "no colon"));
    x = ok;
    x.resource_name = "";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x = ok;
    x.resource_type = KC_RES_CLUSTER;
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x.resource_name = "kafka-cluster";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), 0);
    x = ok;
    x.host = "";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x.host = "10.0.0.0/33";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), KC_ERR_INVALID_REQUEST);
    x.host = "10.0.0.0/8";
    assert_int_equal(kc_acl_validate(&x, msg, sizeof(msg)), 0);
}

static void test_storage_form_round_trips_and_rejects_garbage(void **state)
{
    (void)state;
    kc_acl_t acl = {KC_RES_GROUP, KC_PAT_PREFIXED, "grp-", "User:bob", "10.1.2.3",
                    KC_OP_DESCRIBE, KC_PERM_DENY};
    kc_buf_t b;
    kc_buf_init(&b);
    kc_acl_encode(&acl, &b);
    kc_acl_t back;
    assert_int_equal(kc_acl_decode(b.data, b.len, &back), 0);
    assert_int_equal(back.resource_type, KC_RES_GROUP);
    assert_int_equal(back.pattern_type, KC_PAT_PREFIXED);
    assert_string_equal(back.resource_name, "grp-");
    assert_string_equal(back.principal, "User:bob");
    assert_string_equal(back.host, "10.1.2.3");
    assert_int_equal(back.operation, KC_OP_DESCRIBE);
    assert_int_equal(back.permission, KC_PERM_DENY);
    kc_acl_deinit(&back);
    for (size_t cut = 0; cut < b.len; cut++)
        assert_int_equal(kc_acl_decode(b.data, cut, &back), KC_EINVAL);
    kc_buf_append(&b, "x", 1);
    assert_int_equal(kc_acl_decode(b.data, b.len, &back), KC_EINVAL);
    kc_buf_deinit(&b);
}

static void test_duplicates_and_removal(void **state)
{
    (void)state;
    kc_authorizer_t *a = kc_authorizer_new(NULL, false);
    kc_acl_t acl = {KC_RES_TOPIC, KC_PAT_LITERAL, "t", ALICE, "*", KC_OP_READ, KC_PERM_ALLOW};
    assert_int_equal(kc_authorizer_add(a, &acl), 0);
    assert_int_equal(kc_authorizer_add(a, &acl), KC_EEXIST);
    assert_int_equal(kc_authorizer_count(a), 1);
    assert_true(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    kc_authorizer_remove(a, 0);
    assert_int_equal(kc_authorizer_count(a), 0);
    assert_false(allowed(a, ALICE, HOST, KC_OP_READ, KC_RES_TOPIC, "t"));
    kc_authorizer_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_acl_denies_by_default_and_allows_when_configured),
        cmocka_unit_test(test_deny_wins_over_allow),
        cmocka_unit_test(test_read_write_delete_alter_imply_describe_for_allow_only),
        cmocka_unit_test(test_literal_wildcard_and_prefixed_patterns),
        cmocka_unit_test(test_principal_and_host_matching),
        cmocka_unit_test(test_super_users_are_allowed_everything),
        cmocka_unit_test(test_authorize_by_resource_type),
        cmocka_unit_test(test_filters_any_match_and_exact),
        cmocka_unit_test(test_validate_new_bindings),
        cmocka_unit_test(test_storage_form_round_trips_and_rejects_garbage),
        cmocka_unit_test(test_duplicates_and_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
