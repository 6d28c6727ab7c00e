/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Generated codecs against byte vectors written by hand from the protocol
 * rules: JoinGroup v5 (classic) and v6 (flexible) requests, the v9 response,
 * and the feature fixture for tagged fields, nullability and version checks;
 * failed encodes (too long, null, negative count, absent field) leave the
 * output buffer as they found it; the fixture's error response (every
 * error-response marker) byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kc_fixture_msgs.h"
#include "kc_msgs.h"

static void assert_bytes(const kc_buf_t *b, const uint8_t *want, size_t n)
{
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, want, n);
}

/* JoinGroup v5: GroupId "g", SessionTimeoutMs 10000, RebalanceTimeoutMs
 * 300000, MemberId "", GroupInstanceId null, ProtocolType "consumer",
 * Protocols [{"range", 01 02 03}]. Classic encodings throughout. */
static const uint8_t join_v5[] = {
    0x00, 0x01, 'g',                                        /* GroupId */
    0x00, 0x00, 0x27, 0x10,                                 /* SessionTimeoutMs */
    0x00, 0x04, 0x93, 0xe0,                                 /* RebalanceTimeoutMs */
    0x00, 0x00,                                             /* MemberId "" */
    0xff, 0xff,                                             /* GroupInstanceId null */
    0x00, 0x08, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r',     /* ProtocolType */
    0x00, 0x00, 0x00, 0x01,                                 /* Protocols count */
    0x00, 0x05, 'r', 'a', 'n', 'g', 'e',                    /* Name */
    0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03,               /* Metadata */
};

/* JoinGroup v6: same shape, compact encodings and tagged sections; MemberId
 * "m-1", GroupInstanceId "i1", two protocols. */
static const uint8_t join_v6[] = {
    0x02, 'g',                                              /* GroupId */
    0x00, 0x00, 0x27, 0x10,                                 /* SessionTimeoutMs */
    0x00, 0x04, 0x93, 0xe0,                                 /* RebalanceTimeoutMs */
    0x04, 'm', '-', '1',                                    /* MemberId */
    0x03, 'i', '1',                                         /* GroupInstanceId */
    0x09, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r',           /* ProtocolType */
    0x03,                                                   /* Protocols: 2 + 1 */
    0x06, 'r', 'a', 'n', 'g', 'e', 0x04, 0x01, 0x02, 0x03, 0x00, /* range, tags */
    0x03, 'r', 'r', 0x01, 0x00,                             /* "rr", empty metadata, tags */
    0x00,                                                   /* top-level tags */
};

/* JoinGroup response v9: throttle 0, no error, generation 3, ProtocolType
 * "consumer", ProtocolName "range", Leader "m-1", SkipAssignment false,
 * MemberId "m-1", Members [{"m-1", null, aa bb}]. */
static const uint8_t join_resp_v9[] = {
    0x00, 0x00, 0x00, 0x00,                                 /* ThrottleTimeMs */
    0x00, 0x00,                                             /* ErrorCode */
    0x00, 0x00, 0x00, 0x03,                                 /* GenerationId */
    0x09, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r',           /* ProtocolType */
    0x06, 'r', 'a', 'n', 'g', 'e',                          /* ProtocolName */
    0x04, 'm', '-', '1',                                    /* Leader */
    0x00,                                                   /* SkipAssignment */
    0x04, 'm', '-', '1',                                    /* MemberId */
    0x02,                                                   /* Members: 1 + 1 */
    0x04, 'm', '-', '1', 0x00, 0x03, 0xaa, 0xbb, 0x00,      /* member + tags */
    0x00,                                                   /* top-level tags */
};

static void test_join_group_request_v5_vector(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, join_v5, sizeof(join_v5));
    kc_join_group_request_t m;
    assert_int_equal(kc_join_group_request_decode(&r, 5, &a, &m), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_true(kc_str_eq_cstr(m.group_id, "g"));
    assert_int_equal(m.session_timeout_ms, 10000);
    assert_int_equal(m.rebalance_timeout_ms, 300000);
    assert_int_equal(m.member_id.len, 0);
    assert_true(kc_str_is_null(m.group_instance_id));
    assert_true(kc_str_eq_cstr(m.protocol_type, "consumer"));
    assert_int_equal(m.protocols.count, 1);
    assert_true(kc_str_eq_cstr(m.protocols.items[0].name, "range"));
    assert_int_equal(m.protocols.items[0].metadata.len, 3);
    assert_int_equal(m.protocols.items[0].metadata.ptr[2], 0x03);
    assert_true(kc_str_is_null(m.reason)); /* absent in v5: default */

    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 5, &m), 0);
    assert_bytes(&b, join_v5, sizeof(join_v5));

    /* A Reason cannot be sent at v5, but it is ignorable: dropped silently. */
    m.reason = kc_str("bye");
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 5, &m), 0);
    assert_bytes(&b, join_v5, sizeof(join_v5));
    /* GroupInstanceId is not ignorable: v4 cannot carry a static member. */
    m.group_instance_id = kc_str("i1");
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 4, &m), KC_EINVAL);
    /* A null GroupId is never valid. */
    m.group_instance_id = KC_STR_NULL;
    m.group_id = KC_STR_NULL;
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 5, &m), KC_EINVAL);

    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_join_group_request_v0_has_no_rebalance_timeout(void **state)
{
    (void)state;
    /* v0 stops after SessionTimeoutMs: MemberId follows directly. */
    static const uint8_t v0[] = {0x00, 0x01, 'g', 0x00, 0x00, 0x27, 0x10, 0x00, 0x00,
                                 0x00, 0x01, 'c', 0x00, 0x00, 0x00, 0x00};
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, v0, sizeof(v0));
    kc_join_group_request_t m;
    assert_int_equal(kc_join_group_request_decode(&r, 0, &a, &m), 0);
    assert_int_equal(m.rebalance_timeout_ms, -1); /* absent: the schema default */
    assert_true(kc_str_eq_cstr(m.protocol_type, "c"));
    assert_int_equal(m.protocols.count, 0);
    assert_int_equal(kc_reader_left(&r), 0);
    kc_arena_deinit(&a);
}

static void test_join_group_request_v6_vector(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, join_v6, sizeof(join_v6));
    kc_join_group_request_t m;
    assert_int_equal(kc_join_group_request_decode(&r, 6, &a, &m), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_true(kc_str_eq_cstr(m.member_id, "m-1"));
    assert_true(kc_str_eq_cstr(m.group_instance_id, "i1"));
    assert_int_equal(m.protocols.count, 2);
    assert_true(kc_str_eq_cstr(m.protocols.items[1].name, "rr"));
    assert_int_equal(m.protocols.items[1].metadata.len, 0);

    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 6, &m), 0);
    assert_bytes(&b, join_v6, sizeof(join_v6));

    /* The v6 body is not a valid v5 body. */
    kc_reader_init(&r, join_v6, sizeof(join_v6));
    assert_int_equal(kc_join_group_request_decode(&r, 5, &a, &m), KC_EINVAL);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_join_group_request_v6_unknown_tags_skipped(void **state)
{
    (void)state;
    /* The v6 vector with an unknown tag 9 (2 bytes) in the first protocol and
     * an unknown tag 0 (1 byte) at the top level. */
    uint8_t in[sizeof(join_v6) + 8];
    size_t elem_tags = 2 + 4 + 4 + 4 + 3 + 9 + 1 + 6 + 4; /* offset of first element's tags */
    assert_int_equal(join_v6[elem_tags], 0x00);
    memcpy(in, join_v6, elem_tags);
    size_t n = elem_tags;
    static const uint8_t t1[] = {0x01, 0x09, 0x02, 0xde, 0xad};
    memcpy(in + n, t1, sizeof(t1));
    n += sizeof(t1);
    size_t rest = sizeof(join_v6) - elem_tags - 1 - 1; /* up to the top-level tags */
    memcpy(in + n, join_v6 + elem_tags + 1, rest);
    n += rest;
    static const uint8_t t2[] = {0x01, 0x00, 0x01, 0x7f};
    memcpy(in + n, t2, sizeof(t2));
    n += sizeof(t2);
    assert_int_equal(n, sizeof(join_v6) - 2 + sizeof(t1) + sizeof(t2));

    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, in, n);
    kc_join_group_request_t m;
    assert_int_equal(kc_join_group_request_decode(&r, 6, &a, &m), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_true(kc_str_eq_cstr(m.protocols.items[0].name, "range"));
    assert_true(kc_str_eq_cstr(m.protocols.items[1].name, "rr"));
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_join_group_request_encode(&b, 6, &m), 0);
    assert_bytes(&b, join_v6, sizeof(join_v6));
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_join_group_response_v9_vector(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, join_resp_v9, sizeof(join_resp_v9));
    kc_join_group_response_t m;
    assert_int_equal(kc_join_group_response_decode(&r, 9, &a, &m), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_int_equal(m.generation_id, 3);
    assert_true(kc_str_eq_cstr(m.protocol_type, "consumer"));
    assert_true(kc_str_eq_cstr(m.protocol_name, "range"));
    assert_true(kc_str_eq_cstr(m.leader, "m-1"));
    assert_false(m.skip_assignment);
    assert_int_equal(m.members.count, 1);
    assert_true(kc_str_is_null(m.members.items[0].group_instance_id));
    assert_int_equal(m.members.items[0].metadata.ptr[1], 0xbb);

    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 9, &m), 0);
    assert_bytes(&b, join_resp_v9, sizeof(join_resp_v9));

    /* Built from scratch, the same response gives the same bytes. */
    kc_join_group_response_t n;
    kc_join_group_response_init(&n);
    assert_int_equal(n.generation_id, -1);
    n.generation_id = 3;
    n.protocol_type = kc_str("consumer");
    n.protocol_name = kc_str("range");
    n.leader = kc_str("m-1");
    n.member_id = kc_str("m-1");
    kc_join_group_response_member_t mem;
    mem.member_id = kc_str("m-1");
    mem.group_instance_id = KC_STR_NULL;
    mem.metadata = (kc_bytes_t){(const uint8_t *)"\xaa\xbb", 2};
    n.members.items = &mem;
    n.members.count = 1;
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 9, &n), 0);
    assert_bytes(&b, join_resp_v9, sizeof(join_resp_v9));

    /* ProtocolName is nullable only from v7: a null at v6 cannot be sent... */
    n.protocol_name = KC_STR_NULL;
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 6, &n), KC_EINVAL);
    /* ...nor read. v6 body: throttle, error, generation, ProtocolName null. */
    static const uint8_t v6_null[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0x00, 0x01, 0x01, 0x01, 0x00};
    kc_reader_init(&r, v6_null, sizeof(v6_null));
    assert_int_equal(kc_join_group_response_decode(&r, 6, &a, &m), KC_EINVAL);
    kc_reader_init(&r, v6_null, sizeof(v6_null));
    assert_int_equal(kc_join_group_response_decode(&r, 7, &a, &m), KC_EINVAL); /* v7 has ProtocolType */
    /* SkipAssignment true cannot be expressed before v9 and is not ignorable. */
    n.protocol_name = kc_str("range");
    n.skip_assignment = true;
    kc_buf_reset(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 8, &n), KC_EINVAL);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_hostile_member_count_rejected_before_allocation(void **state)
{
    (void)state;
    /* v9 response whose Members count claims 2^31 - 2 members. */
    uint8_t in[sizeof(join_resp_v9)];
    memcpy(in, join_resp_v9, sizeof(in));
    size_t count_at = 4 + 2 + 4 + 9 + 6 + 4 + 1 + 4;
    assert_int_equal(in[count_at], 0x02);
    uint8_t hostile[sizeof(in) + 4];
    memcpy(hostile, in, count_at);
    static const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x07};
    memcpy(hostile + count_at, big, sizeof(big));
    memcpy(hostile + count_at + sizeof(big), in + count_at + 1, sizeof(in) - count_at - 1);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, hostile, sizeof(hostile));
    kc_join_group_response_t m;
    assert_int_equal(kc_join_group_response_decode(&r, 9, &a, &m), KC_EINVAL);
    assert_true(a.total < 1024);
    kc_arena_deinit(&a);
}

/* ---- feature fixture */

static void test_tagged_fields_written_in_tag_order_when_not_default(void **state)
{
    (void)state;
    kc_feature_value_t v;
    kc_feature_value_init(&v);
    kc_buf_t b;
    kc_buf_init(&b);
    /* FeatureValue v4 (flexible): Default int32, Nothing (empty struct: just
     * its tagged section), top-level tags. */
    v.default_ = 5;
    assert_int_equal(kc_feature_value_encode(&b, 4, &v), 0);
    static const uint8_t want[] = {0, 0, 0, 5, 0x00, 0x00};
    assert_bytes(&b, want, sizeof(want));
    /* Nothing.Gone exists only in v0. */
    v.nothing.gone = 1;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_value_encode(&b, 4, &v), KC_EINVAL);
    /* In v0 the whole Nothing struct is absent, and it is not at its default. */
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_value_encode(&b, 0, &v), KC_EINVAL);
    v.nothing.gone = 0;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_value_encode(&b, 0, &v), 0);
    static const uint8_t want0[] = {0, 0, 0, 5};
    assert_bytes(&b, want0, sizeof(want0));
    kc_buf_deinit(&b);

    kc_arena_t a;
    kc_arena_init(&a);
    kc_feature_request_t m;
    kc_feature_request_init(&m);
    kc_buf_init(&b);
    assert_int_equal(kc_feature_request_encode(&b, 1, &m), KC_EINVAL); /* NULL Opt at v1 */
    kc_feature_request_opt_t opt = {.z = 9};
    m.opt = &opt;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 4, &m), 0);
    /* Defaults: the top-level tagged section is the last byte and empty. */
    assert_int_equal(b.data[b.len - 1], 0x00);
    size_t base = b.len;

    m.tagged_int = 0x01020304;   /* tag 0 */
    m.tagged_name = kc_str("t"); /* tag 2 */
    m.tagged_struct.p = 1;       /* tag 5 */
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 4, &m), 0);
    static const uint8_t tags[] = {
        0x03,                                               /* three tagged fields */
        0x00, 0x04, 0x01, 0x02, 0x03, 0x04,                 /* tag 0, int32 */
        0x02, 0x02, 0x02, 't',                              /* tag 2, compact "t" */
        0x05, 0x09, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,           /* tag 5, int64 + struct tags */
    };
    assert_int_equal(b.len, base - 1 + sizeof(tags));
    assert_memory_equal(b.data + base - 1, tags, sizeof(tags));

    /* Decoding gives the values back; an unknown tag in between is skipped. */
    uint8_t in[256];
    assert_true(b.len + 4 < sizeof(in));
    memcpy(in, b.data, base - 1);
    static const uint8_t tags2[] = {
        0x04, 0x00, 0x04, 0x01, 0x02, 0x03, 0x04, 0x04, 0x02, 0xee, 0xee,
        0x02, 0x02, 0x02, 't', 0x05, 0x09, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
    };
    memcpy(in + base - 1, tags2, sizeof(tags2));
    kc_reader_t r;
    kc_reader_init(&r, in, base - 1 + sizeof(tags2));
    kc_feature_request_t d;
    assert_int_equal(kc_feature_request_decode(&r, 4, &a, &d), 0);
    assert_int_equal(kc_reader_left(&r), 0);
    assert_int_equal(d.tagged_int, 0x01020304);
    assert_true(kc_str_eq_cstr(d.tagged_name, "t"));
    assert_true(d.tagged_struct.p == 1);
    assert_null(d.tagged_opt);

    /* At v3 TaggedInt (v4+) is unknown: skipped on read, dropped on write
     * because it is ignorable. */
    kc_buf_t b3;
    kc_buf_init(&b3);
    assert_int_equal(kc_feature_request_encode(&b3, 3, &m), 0);
    kc_reader_init(&r, b3.data, b3.len);
    assert_int_equal(kc_feature_request_decode(&r, 3, &a, &d), 0);
    assert_int_equal(d.tagged_int, -1);
    assert_true(kc_str_eq_cstr(d.tagged_name, "t"));
    /* At v2 (not flexible) TaggedName cannot be sent and is not ignorable. */
    kc_buf_reset(&b3);
    assert_int_equal(kc_feature_request_encode(&b3, 2, &m), KC_EINVAL);
    m.tagged_name = KC_STR_NULL;
    m.tagged_struct.p = 0;
    kc_buf_reset(&b3);
    assert_int_equal(kc_feature_request_encode(&b3, 2, &m), 0);
    kc_buf_deinit(&b3);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_nullable_struct_markers(void **state)
{
    (void)state;
    kc_buf_t b;
    kc_buf_init(&b);
    kc_feature_request_t m;
    kc_feature_request_init(&m);
    kc_feature_request_opt_t opt = {.z = 9};
    /* Opt is nullable from v2 only: NULL at v1 is an error, at v2 a -1 marker. */
    assert_int_equal(kc_feature_request_encode(&b, 1, &m), KC_EINVAL);
    m.opt = &opt;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 1, &m), 0);
    size_t with_v1 = b.len;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 2, &m), 0);
    size_t with_v2 = b.len;
    m.opt = NULL;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 2, &m), 0);
    size_t null_v2 = b.len;
    /* v2 adds the 1-byte marker in front of Z; null drops Z. */
    assert_int_equal(with_v2 - null_v2, 1);
    assert_true(with_v2 > with_v1);
    kc_buf_deinit(&b);

    /* A tagged nullable struct uses a uvarint presence marker. */
    kc_arena_t a;
    kc_arena_init(&a);
    kc_feature_request_tagged_t t = {.p = 2};
    m.opt = &opt;
    m.tagged_opt = &t;
    kc_buf_init(&b);
    assert_int_equal(kc_feature_request_encode(&b, 5, &m), 0);
    static const uint8_t tail[] = {0x01, 0x07, 0x0a, 0x01, 0, 0, 0, 0, 0, 0, 0, 2, 0x00};
    assert_true(b.len > sizeof(tail));
    assert_memory_equal(b.data + b.len - sizeof(tail), tail, sizeof(tail));
    kc_reader_t r;
    kc_reader_init(&r, b.data, b.len);
    kc_feature_request_t d;
    assert_int_equal(kc_feature_request_decode(&r, 5, &a, &d), 0);
    assert_non_null(d.tagged_opt);
    assert_true(d.tagged_opt->p == 2);
    assert_int_equal(d.opt->z, 9);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

static void test_nonflexible_field_keeps_classic_encoding(void **state)
{
    (void)state;
    /* FeatureKey v0 is never flexible; FeatureRequest ClientId keeps the int16
     * length in flexible v3. Compare the encodings of "ab" vs null ClientId. */
    kc_feature_request_t m;
    kc_feature_request_init(&m);
    kc_feature_request_opt_t opt = {.z = 1};
    m.opt = &opt;
    kc_buf_t b1, b2;
    kc_buf_init(&b1);
    kc_buf_init(&b2);
    m.client_id = kc_str("ab");
    assert_int_equal(kc_feature_request_encode(&b1, 3, &m), 0);
    m.client_id = KC_STR_NULL;
    assert_int_equal(kc_feature_request_encode(&b2, 3, &m), 0);
    /* Classic: "ab" = 00 02 'a' 'b', null = ff ff. Compact would be 03 'a' 'b' vs 00. */
    assert_int_equal(b1.len, b2.len + 2);
    size_t i = 0;
    while (i < b2.len && b1.data[i] == b2.data[i])
        i++;
    static const uint8_t want[] = {0x00, 0x02, 'a', 'b'};
    assert_memory_equal(b1.data + i, want, sizeof(want));
    assert_int_equal(b2.data[i], 0xff);
    assert_int_equal(b2.data[i + 1], 0xff);
    kc_buf_deinit(&b1);
    kc_buf_deinit(&b2);
}

static void test_null_array_only_where_nullable(void **state)
{
    (void)state;
    kc_feature_request_t m;
    kc_feature_request_init(&m);
    kc_feature_request_opt_t opt = {.z = 1};
    m.opt = &opt;
    m.names.count = -1; /* Names nullable from v1 */
    kc_buf_t b;
    kc_buf_init(&b);
    assert_int_equal(kc_feature_request_encode(&b, 0, &m), KC_EINVAL);
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_request_encode(&b, 1, &m), 0);
    kc_arena_t a;
    kc_arena_init(&a);
    kc_reader_t r;
    kc_reader_init(&r, b.data, b.len);
    kc_feature_request_t d;
    assert_int_equal(kc_feature_request_decode(&r, 1, &a, &d), 0);
    assert_int_equal(d.names.count, -1);
    kc_arena_deinit(&a);
    kc_buf_deinit(&b);
}

static void test_ignorable_and_removed_fields(void **state)
{
    (void)state;
    kc_feature_response_t m;
    kc_feature_response_init(&m);
    assert_int_equal(m.old, 7);
    kc_buf_t b;
    kc_buf_init(&b);
    /* v2: Old (v0-1) at its default 7 is fine, Drop (v0, ignorable) is dropped. */
    m.drop = 99;
    assert_int_equal(kc_feature_response_encode(&b, 2, &m), 0);
    static const uint8_t want[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_bytes(&b, want, sizeof(want));
    m.old = 8;
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_response_encode(&b, 2, &m), KC_EINVAL);
    kc_buf_reset(&b);
    assert_int_equal(kc_feature_response_encode(&b, 0, &m), 0);
    static const uint8_t want0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 99};
    assert_bytes(&b, want0, sizeof(want0));
    kc_buf_deinit(&b);
}

static void test_descriptor_lookup(void **state)
{
    (void)state;
    const kc_msg_desc_t *d = kc_msg_desc_for_api(KC_API_JOIN_GROUP, false);
    assert_non_null(d);
    assert_string_equal(d->name, "JoinGroupRequest");
    assert_int_equal(d->min_version, 0);
    assert_int_equal(d->max_version, 9);
    assert_int_equal(d->flexible_min, 6);
    assert_int_equal(d->size, sizeof(kc_join_group_request_t));
    d = kc_msg_desc_for_api(KC_API_JOIN_GROUP, true);
    assert_non_null(d);
    assert_string_equal(d->name, "JoinGroupResponse");
    d = kc_fixture_desc_for_api(32000, true);
    assert_non_null(d);
    assert_int_equal(d->flexible_min, INT16_MAX);
    assert_int_equal(KC_RECORD_FEATURE, 77);
    assert_int_equal(kc_fixture_descs[2].record_type, 77);
    assert_int_equal(kc_fixture_descs[2].api_key, -1);
}

/* ---- a failed encode leaves the buffer as it was */

static const uint8_t kept[] = {'k', 'e', 'p', 't', 0x00, 0xff};

static void buf_with_prefix(kc_buf_t *b)
{
    kc_buf_init(b);
    kc_buf_append(b, kept, sizeof(kept));
}

/* The buffer holds exactly the bytes it held before the failed encode. */
static void assert_kept(const kc_buf_t *b)
{
    assert_int_equal(b->len, sizeof(kept));
    assert_memory_equal(b->data, kept, sizeof(kept));
}

static void test_failed_encode_leaves_buffer_unchanged(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_buf_t b;

    /* JoinGroup response v9: the third member's id is too long for its
     * length prefix, after the header fields and two members were written. */
    kc_join_group_response_t jr;
    kc_join_group_response_init(&jr);
    char *huge = kc_arena_alloc(&a, 40000);
    memset(huge, 'x', 40000);
    jr.members.count = 3;
    jr.members.items = kc_arena_alloc(&a, 3 * sizeof(*jr.members.items));
    for (int i = 0; i < 3; i++) {
        jr.members.items[i].member_id = i == 2 ? (kc_str_t){huge, 40000} : kc_str("m");
        jr.members.items[i].group_instance_id = KC_STR_NULL;
        jr.members.items[i].metadata = (kc_bytes_t){(const uint8_t *)"ab", 2};
    }
    buf_with_prefix(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 9, &jr), KC_EINVAL);
    assert_kept(&b);
    /* The same message without the long id encodes after the kept bytes. */
    jr.members.count = 2;
    assert_int_equal(kc_join_group_response_encode(&b, 9, &jr), 0);
    assert_true(b.len > sizeof(kept));
    assert_memory_equal(b.data, kept, sizeof(kept));
    kc_buf_deinit(&b);

    /* v6: a null ProtocolName where the version needs a string (nullable 7+). */
    jr.protocol_name = KC_STR_NULL;
    buf_with_prefix(&b);
    assert_int_equal(kc_join_group_response_encode(&b, 6, &jr), KC_EINVAL);
    assert_kept(&b);
    /* A version outside the range. */
    assert_int_equal(kc_join_group_response_encode(&b, 10, &jr), KC_EVERSION);
    assert_kept(&b);
    kc_buf_deinit(&b);

    /* FeatureRequest v4: a tagged string too long, inside the tagged section
     * after TaggedInt (tag 0) was written with its size prefix. */
    kc_feature_request_t fr;
    kc_feature_request_init(&fr);
    kc_feature_request_opt_t opt = {.z = 1};
    fr.opt = &opt;
    fr.tagged_int = 7;
    fr.tagged_name = (kc_str_t){huge, 32768};
    buf_with_prefix(&b);
    assert_int_equal(kc_feature_request_encode(&b, 4, &fr), KC_EINVAL);
    assert_kept(&b);
    /* v0: a null array where the version needs one (Names nullable from v1). */
    fr.tagged_name = KC_STR_NULL;
    fr.tagged_int = -1;
    fr.names.count = -1;
    assert_int_equal(kc_feature_request_encode(&b, 0, &fr), KC_EINVAL);
    assert_kept(&b);
    kc_buf_deinit(&b);

    /* FeatureResponse v2: Old (v0-1, not ignorable) holds a value the version
     * cannot carry, found after ErrorCode and Items were written. */
    kc_feature_response_t fs;
    kc_feature_response_init(&fs);
    fs.error_code = 3;
    fs.items.count = 1;
    fs.items.items = kc_arena_alloc(&a, sizeof(*fs.items.items));
    fs.items.items[0].key = kc_str("k");
    fs.old = 8;
    buf_with_prefix(&b);
    assert_int_equal(kc_feature_response_encode(&b, 2, &fs), KC_EINVAL);
    assert_kept(&b);
    kc_buf_deinit(&b);
    kc_arena_deinit(&a);
}

/* ---- error responses of the fixture's Errors API (markers of every kind) */

static int errors_response(int16_t v, const kc_errors_request_t *rq, int16_t code, kc_buf_t *out,
                           kc_arena_t *a)
{
    kc_buf_t b;
    kc_buf_init(&b);
    kc_reader_t r;
    if (rq) {
        assert_int_equal(kc_errors_request_encode(&b, v, rq), 0);
        kc_reader_init(&r, b.data, b.len);
    }
    int rc = kc_fixture_error_response_encode(32001, v, rq ? &r : NULL, a, code, out);
    kc_buf_deinit(&b);
    return rc;
}

static void test_fixture_error_response_vectors(void **state)
{
    (void)state;
    kc_arena_t a;
    kc_arena_init(&a);
    kc_buf_t out;
    kc_buf_init(&out);

    /* v1 (classic): names echoed one result each, UNSUPPORTED_VERSION lists
     * the request's own range, Protocol not nullable before v2 keeps "". */
    kc_errors_request_t rq;
    kc_errors_request_init(&rq);
    kc_str_t names[2] = {kc_str("a"), kc_str("b")};
    rq.names.items = names;
    rq.names.count = 2;
    rq.count = 5;
    assert_int_equal(errors_response(1, &rq, 35, &out, &a), 0);
    static const uint8_t v1[] = {
        0x00, 0x23,                                         /* ErrorCode 35 */
        0x00, 0x24, 'T', 'h', 'e', ' ', 'v', 'e', 'r', 's', 'i', 'o', 'n', ' ', 'o', 'f', ' ',
        'A', 'P', 'I', ' ', 'i', 's', ' ', 'n', 'o', 't', ' ', 's', 'u', 'p', 'p', 'o', 'r',
        't', 'e', 'd', '.',                                 /* Message */
        0xff, 0xff, 0xff, 0xff,                             /* Epoch -1 */
        0x00, 0x00,                                         /* Protocol "" */
        0x00, 0x00, 0x00, 0x05,                             /* Count echoed */
        0x00, 0x04, 'n', 'o', 'n', 'e',                     /* Single: null -> "none" */
        0x00, 0x00, 0x00, 0x02,                             /* Results */
        0x00, 0x01, 'a', 0x00, 0x23, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
        0x00, 0x01, 'b', 0x00, 0x23, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
        0x00, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x03, /* Versions */
    };
    assert_bytes(&out, v1, sizeof(v1));

    /* v3 (flexible): topics echoed with their parts, a message, Protocol
     * null, the tagged code, no version list for another code. */
    kc_errors_request_init(&rq);
    int32_t parts[2] = {4, 5};
    kc_errors_request_topic_t topic = {kc_str("t"), {parts, 2}};
    rq.topics.items = &topic;
    rq.topics.count = 1;
    rq.single = kc_str("s");
    kc_buf_reset(&out);
    assert_int_equal(errors_response(3, &rq, 15, &out, &a), 0);
    static const uint8_t v3[] = {
        0x00, 0x0f,                                         /* ErrorCode 15 */
        0x22, 'T', 'h', 'e', ' ', 'c', 'o', 'o', 'r', 'd', 'i', 'n', 'a', 't', 'o', 'r', ' ',
        'i', 's', ' ', 'n', 'o', 't', ' ', 'a', 'v', 'a', 'i', 'l', 'a', 'b', 'l', 'e', '.',
        0xff, 0xff, 0xff, 0xff,                             /* Epoch */
        0x00,                                               /* Protocol null */
        0x00, 0x00, 0x00, 0x00,                             /* Count */
        0x02, 's',                                          /* Single echoed */
        0x02,                                               /* Results: 1 + 1 */
        0x02, 't', 0x00, 0x0f,                              /* Name, ErrorCode */
        0x03,                                               /* Parts: 2 + 1 */
        0x00, 0x00, 0x00, 0x04, 0x00, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
        0x00, 0x00, 0x00, 0x05, 0x00, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
        0x00,                                               /* Skipped null */
        0x00,                                               /* item tags */
        0x01,                                               /* Versions: empty */
        0x01, 0x00, 0x02, 0x00, 0x0f,                       /* tags: TagCode 15 */
    };
    assert_bytes(&out, v3, sizeof(v3));
    /* v2: the parts are echoed from v3 only. */
    kc_buf_reset(&out);
    assert_int_equal(errors_response(2, &rq, 15, &out, &a), 0);
    kc_reader_t r;
    kc_reader_init(&r, out.data, out.len);
    kc_errors_response_t m;
    assert_int_equal(kc_errors_response_decode(&r, 2, &a, &m), 0);
    assert_int_equal(m.results.count, 1);
    assert_int_equal(m.results.items[0].parts.count, 0);
    assert_int_equal(m.tag_code, 15);

    /* No request: every request field at its default (no names, no answer
     * withheld even though Mode's default is not 9). A request with Mode 9
     * gets no response at all. */
    kc_buf_reset(&out);
    assert_int_equal(errors_response(0, NULL, 16, &out, &a), 0);
    static const uint8_t v0[] = {0x00, 0x10, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x04, 'n', 'o', 'n', 'e', 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_bytes(&out, v0, sizeof(v0));
    kc_errors_request_init(&rq);
    rq.mode = 9;
    kc_buf_reset(&out);
    assert_int_equal(errors_response(0, &rq, 16, &out, &a), KC_ENOENT);
    assert_int_equal(out.len, 0);

    /* A body that does not decode, an unknown API, a version outside the range. */
    static const uint8_t junk[] = {0x00, 0x00, 0x00};
    kc_reader_init(&r, junk, sizeof(junk));
    assert_int_equal(kc_fixture_error_response_encode(32001, 0, &r, &a, 16, &out), KC_EINVAL);
    assert_int_equal(kc_fixture_error_response_encode(32002, 0, NULL, &a, 16, &out), KC_EINVAL);
    assert_int_equal(kc_fixture_error_response_encode(32001, 4, NULL, &a, 16, &out), KC_EVERSION);
    /* FeatureResponse marks nothing: no error response. */
    assert_int_equal(kc_fixture_error_response_encode(32000, 0, NULL, &a, 16, &out), KC_EINVAL);
    assert_int_equal(out.len, 0);
    kc_buf_deinit(&out);
    kc_arena_deinit(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_group_request_v5_vector),
        cmocka_unit_test(test_join_group_request_v0_has_no_rebalance_timeout),
        cmocka_unit_test(test_join_group_request_v6_vector),
        cmocka_unit_test(test_join_group_request_v6_unknown_tags_skipped),
        cmocka_unit_test(test_join_group_response_v9_vector),
        cmocka_unit_test(test_hostile_member_count_rejected_before_allocation),
        cmocka_unit_test(test_tagged_fields_written_in_tag_order_when_not_default),
        cmocka_unit_test(test_nullable_struct_markers),
        cmocka_unit_test(test_nonflexible_field_keeps_classic_encoding),
        cmocka_unit_test(test_null_array_only_where_nullable),
        cmocka_unit_test(test_ignorable_and_removed_fields),
        cmocka_unit_test(test_descriptor_lookup),
        cmocka_unit_test(test_failed_encode_leaves_buffer_unchanged),
        cmocka_unit_test(test_fixture_error_response_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
