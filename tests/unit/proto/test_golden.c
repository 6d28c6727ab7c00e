/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Golden wire vectors for the generated codecs: each vector is written by hand
 * from the Kafka wire rules (big-endian scalars, int16/int32 lengths on classic
 * versions, uvarint length+1 and tagged sections on flexible ones). A test
 * decodes the bytes, checks the field values, checks that every truncation is
 * rejected, then re-encodes and expects the very same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kc_msgs.h"
#include "wire.h"

typedef struct {
    uint8_t *data;
    size_t len;
    kc_arena_t arena;
} golden_t;

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses hex digits into bytes; spaces are ignored, anything else fails the test. */
static size_t hex_parse(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (const char *p = hex; *p; p++) {
        if (*p == ' ')
            continue;
        int v = hex_nibble(*p);
        assert_true(v >= 0);
        if (hi < 0) {
            hi = v;
        } else {
            assert_true(n < cap);
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    assert_int_equal(hi, -1); /* an odd number of digits is a typo in the vector */
    return n;
}

static void golden_load(golden_t *g, const char *hex)
{
    size_t cap = strlen(hex) / 2 + 1;
    g->data = malloc(cap);
    assert_non_null(g->data);
    g->len = hex_parse(hex, g->data, cap);
    kc_arena_init(&g->arena);
}

static void golden_free(golden_t *g)
{
    kc_arena_deinit(&g->arena);
    free(g->data);
}

/* want NULL means a null string. */
static void assert_str(kc_str_t s, const char *want)
{
    if (want == NULL) {
        assert_int_equal(s.len, -1);
        return;
    }
    assert_int_equal(s.len, (int32_t)strlen(want));
    if (s.len > 0)
        assert_memory_equal(s.ptr, want, (size_t)s.len);
}

/* want_hex NULL means null bytes. */
static void assert_bytes(kc_bytes_t b, const char *want_hex)
{
    uint8_t want[64];
    if (want_hex == NULL) {
        assert_int_equal(b.len, -1);
        return;
    }
    size_t n = hex_parse(want_hex, want, sizeof want);
    assert_int_equal(b.len, (int32_t)n);
    if (n > 0)
        assert_memory_equal(b.ptr, want, n);
}

static void assert_uuid(kc_uuid_t u, const char *want_hex)
{
    uint8_t want[16];
    assert_int_equal(hex_parse(want_hex, want, sizeof want), 16);
    assert_memory_equal(u.b, want, 16);
}

/*
 * Decodes the whole vector as message NAME at version VER into *M (which must
 * consume every byte), and checks that each strict prefix is rejected.
 */
#define DECODE(g, name, ver, m)                                                          \
    do {                                                                                 \
        kc_reader_t r_;                                                                  \
        for (size_t cut_ = 0; cut_ < (g)->len; cut_++) {                                 \
            __typeof__(*(m)) t_;                                                         \
            kc_##name##_init(&t_);                                                       \
            kc_reader_init(&r_, (g)->data, cut_);                                        \
            assert_int_not_equal(kc_##name##_decode(&r_, (ver), &(g)->arena, &t_), 0);   \
        }                                                                                \
        kc_##name##_init(m);                                                             \
        kc_reader_init(&r_, (g)->data, (g)->len);                                        \
        assert_int_equal(kc_##name##_decode(&r_, (ver), &(g)->arena, (m)), 0);           \
        assert_int_equal(kc_reader_left(&r_), 0);                                        \
    } while (0)

/* Encodes *M as NAME at version VER and expects exactly the golden bytes. */
#define ENCODE_SAME(g, name, ver, m)                                                     \
    do {                                                                                 \
        kc_buf_t b_;                                                                     \
        kc_buf_init(&b_);                                                                \
        assert_int_equal(kc_##name##_encode(&b_, (ver), (m)), 0);                        \
        assert_int_equal(b_.len, (g)->len);                                              \
        assert_memory_equal(b_.data, (g)->data, (g)->len);                               \
        kc_buf_deinit(&b_);                                                              \
    } while (0)

/* Strings used below: "g1" 6731, "m1" 6d31, "i1" 6931, "t" 74, "h" 68,
 * "consumer" 636f6e73756d6572, "range" 72616e6765, "Stable" 537461626c65. */

/* ---- SyncGroup (14) ---- */

static void test_sync_group_request_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731"      /* GroupId "g1" */
                    "00000005"       /* GenerationId 5 */
                    "0002 6d31"      /* MemberId "m1" */
                    "ffff"           /* GroupInstanceId null */
                    "00000001"       /* Assignments: 1 */
                    "0002 6d31"      /*   MemberId "m1" */
                    "00000002 abcd"  /*   Assignment */
    );
    kc_sync_group_request_t m;
    DECODE(&g, sync_group_request, 3, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.generation_id, 5);
    assert_str(m.member_id, "m1");
    assert_str(m.group_instance_id, NULL);
    assert_str(m.protocol_type, NULL);
    assert_str(m.protocol_name, NULL);
    assert_int_equal(m.assignments.count, 1);
    assert_str(m.assignments.items[0].member_id, "m1");
    assert_bytes(m.assignments.items[0].assignment, "abcd");
    ENCODE_SAME(&g, sync_group_request, 3, &m);
    golden_free(&g);
}

static void test_sync_group_request_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731"             /* GroupId "g1" */
                    "00000005"            /* GenerationId */
                    "03 6d31"             /* MemberId "m1" */
                    "03 6931"             /* GroupInstanceId "i1" */
                    "09 636f6e73756d6572" /* ProtocolType "consumer" */
                    "06 72616e6765"       /* ProtocolName "range" */
                    "02"                  /* Assignments: 1 */
                    "03 6d31 03 abcd 00"  /*   MemberId, Assignment, no tags */
                    "00"                  /* no tagged fields */
    );
    kc_sync_group_request_t m;
    DECODE(&g, sync_group_request, 5, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.generation_id, 5);
    assert_str(m.member_id, "m1");
    assert_str(m.group_instance_id, "i1");
    assert_str(m.protocol_type, "consumer");
    assert_str(m.protocol_name, "range");
    assert_int_equal(m.assignments.count, 1);
    assert_bytes(m.assignments.items[0].assignment, "abcd");
    ENCODE_SAME(&g, sync_group_request, 5, &m);
    golden_free(&g);
}

static void test_sync_group_response_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000"       /* ThrottleTimeMs */
                    "0000"           /* ErrorCode NONE */
                    "00000002 abcd"  /* Assignment */
    );
    kc_sync_group_response_t m;
    DECODE(&g, sync_group_response, 1, &m);
    assert_int_equal(m.throttle_time_ms, 0);
    assert_int_equal(m.error_code, 0);
    assert_bytes(m.assignment, "abcd");
    ENCODE_SAME(&g, sync_group_response, 1, &m);
    golden_free(&g);
}

static void test_sync_group_response_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000064"            /* ThrottleTimeMs 100 */
                    "001b"                /* ErrorCode 27 REBALANCE_IN_PROGRESS */
                    "09 636f6e73756d6572" /* ProtocolType "consumer" */
                    "00"                  /* ProtocolName null */
                    "01"                  /* Assignment empty */
                    "00");
    kc_sync_group_response_t m;
    DECODE(&g, sync_group_response, 5, &m);
    assert_int_equal(m.throttle_time_ms, 100);
    assert_int_equal(m.error_code, 27);
    assert_str(m.protocol_type, "consumer");
    assert_str(m.protocol_name, NULL);
    assert_bytes(m.assignment, "");
    ENCODE_SAME(&g, sync_group_response, 5, &m);
    golden_free(&g);
}

/* ---- Heartbeat (12) ---- */

static void test_heartbeat_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 00000001 0002 6d31");
    kc_heartbeat_request_t m;
    DECODE(&g, heartbeat_request, 0, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.generation_id, 1);
    assert_str(m.member_id, "m1");
    ENCODE_SAME(&g, heartbeat_request, 0, &m);
    golden_free(&g);
}

static void test_heartbeat_request_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731"  /* GroupId */
                    "00000001" /* GenerationId */
                    "03 6d31"  /* MemberId */
                    "00"       /* GroupInstanceId null */
                    "00");
    kc_heartbeat_request_t m;
    DECODE(&g, heartbeat_request, 4, &m);
    assert_str(m.group_instance_id, NULL);
    ENCODE_SAME(&g, heartbeat_request, 4, &m);

    /* Built from init(): GroupInstanceId defaults to null. */
    kc_heartbeat_request_t b;
    kc_heartbeat_request_init(&b);
    b.group_id = kc_str("g1");
    b.generation_id = 1;
    b.member_id = kc_str("m1");
    ENCODE_SAME(&g, heartbeat_request, 4, &b);
    golden_free(&g);
}

static void test_heartbeat_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0019"); /* ErrorCode 25 UNKNOWN_MEMBER_ID, no throttle in v0 */
    kc_heartbeat_response_t m;
    DECODE(&g, heartbeat_response, 0, &m);
    assert_int_equal(m.error_code, 25);
    ENCODE_SAME(&g, heartbeat_response, 0, &m);
    golden_free(&g);
}

static void test_heartbeat_response_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 001b 00");
    kc_heartbeat_response_t m;
    DECODE(&g, heartbeat_response, 4, &m);
    assert_int_equal(m.throttle_time_ms, 0);
    assert_int_equal(m.error_code, 27);
    ENCODE_SAME(&g, heartbeat_response, 4, &m);
    golden_free(&g);
}

/* ---- LeaveGroup (13) ---- */

static void test_leave_group_request_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 0002 6d31"); /* GroupId, MemberId */
    kc_leave_group_request_t m;
    DECODE(&g, leave_group_request, 1, &m);
    assert_str(m.group_id, "g1");
    assert_str(m.member_id, "m1");
    ENCODE_SAME(&g, leave_group_request, 1, &m);
    golden_free(&g);
}

static void test_leave_group_request_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731"          /* GroupId */
                    "03"               /* Members: 2 */
                    "03 6d31 00 02 72 00" /* "m1", no instance id, Reason "r" */
                    "01 03 6932 00 00" /* "", instance "i2", Reason null */
                    "00");
    kc_leave_group_request_t m;
    DECODE(&g, leave_group_request, 5, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.members.count, 2);
    assert_str(m.members.items[0].member_id, "m1");
    assert_str(m.members.items[0].group_instance_id, NULL);
    assert_str(m.members.items[0].reason, "r");
    assert_str(m.members.items[1].member_id, "");
    assert_str(m.members.items[1].group_instance_id, "i2");
    assert_str(m.members.items[1].reason, NULL);
    ENCODE_SAME(&g, leave_group_request, 5, &m);
    golden_free(&g);
}

static void test_leave_group_response_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000"  /* ThrottleTimeMs */
                    "0000"      /* ErrorCode */
                    "00000001"  /* Members: 1 */
                    "0000"      /*   MemberId "" */
                    "0002 6932" /*   GroupInstanceId "i2" */
                    "0052");    /*   ErrorCode 82 FENCED_INSTANCE_ID */
    kc_leave_group_response_t m;
    DECODE(&g, leave_group_response, 3, &m);
    assert_int_equal(m.members.count, 1);
    assert_str(m.members.items[0].member_id, "");
    assert_str(m.members.items[0].group_instance_id, "i2");
    assert_int_equal(m.members.items[0].error_code, 82);
    ENCODE_SAME(&g, leave_group_response, 3, &m);
    golden_free(&g);
}

static void test_leave_group_response_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 0000"
                    "02"                 /* Members: 1 */
                    "03 6d31 00 0019 00" /* "m1", instance null, UNKNOWN_MEMBER_ID */
                    "00");
    kc_leave_group_response_t m;
    DECODE(&g, leave_group_response, 4, &m);
    assert_int_equal(m.members.count, 1);
    assert_str(m.members.items[0].member_id, "m1");
    assert_str(m.members.items[0].group_instance_id, NULL);
    assert_int_equal(m.members.items[0].error_code, 25);
    ENCODE_SAME(&g, leave_group_response, 4, &m);
    golden_free(&g);
}

/* ---- OffsetCommit (8) ---- */

static void test_offset_commit_request_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731"         /* GroupId */
                    "00000003"          /* GenerationIdOrMemberEpoch */
                    "0002 6d31"         /* MemberId */
                    "00000001 0001 74"  /* Topics: 1, Name "t" */
                    "00000001"          /*   Partitions: 1 */
                    "00000000"          /*     PartitionIndex */
                    "000000000000002a"  /*     CommittedOffset 42 */
                    "00000000000003e8"  /*     CommitTimestamp 1000 (v1 only) */
                    "ffff");            /*     CommittedMetadata null */
    kc_offset_commit_request_t m;
    DECODE(&g, offset_commit_request, 1, &m);
    assert_int_equal(m.generation_id_or_member_epoch, 3);
    assert_str(m.member_id, "m1");
    assert_int_equal(m.retention_time_ms, -1);
    assert_int_equal(m.topics.count, 1);
    assert_str(m.topics.items[0].name, "t");
    assert_int_equal(m.topics.items[0].partitions.count, 1);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_offset, 42);
    assert_int_equal(m.topics.items[0].partitions.items[0].commit_timestamp, 1000);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_leader_epoch, -1);
    assert_str(m.topics.items[0].partitions.items[0].committed_metadata, NULL);
    ENCODE_SAME(&g, offset_commit_request, 1, &m);
    golden_free(&g);
}

static void test_offset_commit_request_v2(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 00000003 0002 6d31"
                    "00000000000e1000"  /* RetentionTimeMs 921600 (v2-4 only) */
                    "00000001 0001 74 00000001"
                    "00000002 000000000000002a"
                    "0000");            /* CommittedMetadata "" */
    kc_offset_commit_request_t m;
    DECODE(&g, offset_commit_request, 2, &m);
    assert_int_equal(m.retention_time_ms, 921600);
    assert_int_equal(m.topics.items[0].partitions.items[0].partition_index, 2);
    assert_str(m.topics.items[0].partitions.items[0].committed_metadata, "");
    ENCODE_SAME(&g, offset_commit_request, 2, &m);
    golden_free(&g);
}

static void test_offset_commit_request_v9(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731 00000007 03 6d31"
                    "03 6931"           /* GroupInstanceId "i1" */
                    "02 02 74"          /* Topics: 1, Name "t" */
                    "02"                /*   Partitions: 1 */
                    "00000001 000000000000002a"
                    "00000007"          /*     CommittedLeaderEpoch */
                    "03 6d64"           /*     CommittedMetadata "md" */
                    "00 00 00");        /* partition, topic, top-level tags */
    kc_offset_commit_request_t m;
    DECODE(&g, offset_commit_request, 9, &m);
    assert_int_equal(m.generation_id_or_member_epoch, 7);
    assert_str(m.group_instance_id, "i1");
    assert_str(m.topics.items[0].name, "t");
    assert_int_equal(m.topics.items[0].partitions.items[0].partition_index, 1);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_leader_epoch, 7);
    assert_str(m.topics.items[0].partitions.items[0].committed_metadata, "md");
    ENCODE_SAME(&g, offset_commit_request, 9, &m);
    golden_free(&g);
}

static void test_offset_commit_request_v10(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731 00000007 03 6d31 00"
                    "02 000102030405060708090a0b0c0d0e0f" /* Topics: 1, TopicId */
                    "02 00000000 0000000000000001 ffffffff 01 00"
                    "00 00");
    kc_offset_commit_request_t m;
    DECODE(&g, offset_commit_request, 10, &m);
    assert_uuid(m.topics.items[0].topic_id, "000102030405060708090a0b0c0d0e0f");
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_offset, 1);
    assert_str(m.topics.items[0].partitions.items[0].committed_metadata, "");
    ENCODE_SAME(&g, offset_commit_request, 10, &m);
    golden_free(&g);
}

static void test_offset_commit_response_v2(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0001 74"       /* Topics: 1, "t" (no throttle before v3) */
                    "00000001 00000000 0000");
    kc_offset_commit_response_t m;
    DECODE(&g, offset_commit_response, 2, &m);
    assert_int_equal(m.topics.count, 1);
    assert_str(m.topics.items[0].name, "t");
    assert_int_equal(m.topics.items[0].partitions.items[0].error_code, 0);
    ENCODE_SAME(&g, offset_commit_response, 2, &m);
    golden_free(&g);
}

static void test_offset_commit_response_v8(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000"
                    "02 02 74"         /* Topics: 1, "t" */
                    "03"               /*   Partitions: 2 */
                    "00000000 0000 00"
                    "00000001 000c 00" /*   OFFSET_METADATA_TOO_LARGE */
                    "00 00");
    kc_offset_commit_response_t m;
    DECODE(&g, offset_commit_response, 8, &m);
    assert_int_equal(m.topics.items[0].partitions.count, 2);
    assert_int_equal(m.topics.items[0].partitions.items[1].partition_index, 1);
    assert_int_equal(m.topics.items[0].partitions.items[1].error_code, 12);
    ENCODE_SAME(&g, offset_commit_response, 8, &m);
    golden_free(&g);
}

/* ---- OffsetFetch (9) ---- */

static void test_offset_fetch_request_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 00000001 0001 74"
                    "00000002 00000000 00000001"); /* PartitionIndexes [0, 1] */
    kc_offset_fetch_request_t m;
    DECODE(&g, offset_fetch_request, 1, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.topics.count, 1);
    assert_int_equal(m.topics.items[0].partition_indexes.count, 2);
    assert_int_equal(m.topics.items[0].partition_indexes.items[1], 1);
    ENCODE_SAME(&g, offset_fetch_request, 1, &m);
    golden_free(&g);
}

static void test_offset_fetch_request_v2_all_topics(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 ffffffff"); /* Topics null = all */
    kc_offset_fetch_request_t m;
    DECODE(&g, offset_fetch_request, 2, &m);
    assert_int_equal(m.topics.count, -1);
    ENCODE_SAME(&g, offset_fetch_request, 2, &m);
    golden_free(&g);
}

static void test_offset_fetch_request_v7(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731 00 01 00"); /* GroupId, Topics null, RequireStable */
    kc_offset_fetch_request_t m;
    DECODE(&g, offset_fetch_request, 7, &m);
    assert_int_equal(m.topics.count, -1);
    assert_true(m.require_stable);
    ENCODE_SAME(&g, offset_fetch_request, 7, &m);
    golden_free(&g);
}

static void test_offset_fetch_request_v9(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02"              /* Groups: 1 */
                    "03 6731"         /*   GroupId */
                    "03 6d31"         /*   MemberId "m1" */
                    "00000004"        /*   MemberEpoch */
                    "02 02 74 02 00000000 00" /* Topics: "t" [0] */
                    "00"              /*   group tags */
                    "00 00");         /* RequireStable false, tags */
    kc_offset_fetch_request_t m;
    DECODE(&g, offset_fetch_request, 9, &m);
    assert_int_equal(m.groups.count, 1);
    assert_str(m.groups.items[0].group_id, "g1");
    assert_str(m.groups.items[0].member_id, "m1");
    assert_int_equal(m.groups.items[0].member_epoch, 4);
    assert_str(m.groups.items[0].topics.items[0].name, "t");
    assert_int_equal(m.groups.items[0].topics.items[0].partition_indexes.items[0], 0);
    assert_false(m.require_stable);
    ENCODE_SAME(&g, offset_fetch_request, 9, &m);
    golden_free(&g);
}

static void test_offset_fetch_response_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0001 74 00000001"
                    "00000000 ffffffffffffffff" /* no committed offset */
                    "0000 0000");               /* Metadata "", ErrorCode */
    kc_offset_fetch_response_t m;
    DECODE(&g, offset_fetch_response, 1, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_offset, -1);
    assert_str(m.topics.items[0].partitions.items[0].metadata, "");
    ENCODE_SAME(&g, offset_fetch_response, 1, &m);
    golden_free(&g);
}

static void test_offset_fetch_response_v6(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02 02 74 02"
                    "00000000 000000000000002a 00000007" /* offset 42, leader epoch 7 */
                    "00 0000 00"                         /* Metadata null, ErrorCode */
                    "00 0000 00");                       /* topic tags, ErrorCode, tags */
    kc_offset_fetch_response_t m;
    DECODE(&g, offset_fetch_response, 6, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_offset, 42);
    assert_int_equal(m.topics.items[0].partitions.items[0].committed_leader_epoch, 7);
    assert_str(m.topics.items[0].partitions.items[0].metadata, NULL);
    assert_int_equal(m.error_code, 0);
    ENCODE_SAME(&g, offset_fetch_response, 6, &m);
    golden_free(&g);
}

static void test_offset_fetch_response_v8(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000"
                    "02 03 6731"      /* Groups: 1, "g1" */
                    "02 02 74 02"     /*   Topics: "t", Partitions: 1 */
                    "00000000 000000000000002a ffffffff 01 0000 00"
                    "00"              /*   topic tags */
                    "0071 00"         /*   ErrorCode 113 STALE_MEMBER_EPOCH, tags */
                    "00");
    kc_offset_fetch_response_t m;
    DECODE(&g, offset_fetch_response, 8, &m);
    assert_int_equal(m.groups.count, 1);
    assert_int_equal(m.groups.items[0].error_code, 113);
    assert_int_equal(m.groups.items[0].topics.items[0].partitions.items[0].committed_leader_epoch, -1);
    assert_str(m.groups.items[0].topics.items[0].partitions.items[0].metadata, "");
    ENCODE_SAME(&g, offset_fetch_response, 8, &m);
    golden_free(&g);
}

/* ---- DescribeGroups (15) ---- */

static void test_describe_groups_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0002 6731");
    kc_describe_groups_request_t m;
    DECODE(&g, describe_groups_request, 0, &m);
    assert_int_equal(m.groups.count, 1);
    assert_str(m.groups.items[0], "g1");
    assert_false(m.include_authorized_operations);
    ENCODE_SAME(&g, describe_groups_request, 0, &m);
    golden_free(&g);
}

static void test_describe_groups_request_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02 03 6731 01 00");
    kc_describe_groups_request_t m;
    DECODE(&g, describe_groups_request, 5, &m);
    assert_str(m.groups.items[0], "g1");
    assert_true(m.include_authorized_operations);
    ENCODE_SAME(&g, describe_groups_request, 5, &m);
    golden_free(&g);
}

static void test_describe_groups_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001"              /* Groups: 1 (no throttle in v0) */
                    "0000 0002 6731"        /*   ErrorCode, GroupId */
                    "0006 537461626c65"     /*   GroupState "Stable" */
                    "0008 636f6e73756d6572" /*   ProtocolType "consumer" */
                    "0005 72616e6765"       /*   ProtocolData "range" */
                    "00000001"              /*   Members: 1 */
                    "0002 6d31"             /*     MemberId */
                    "0001 63"               /*     ClientId "c" */
                    "0002 2f68"             /*     ClientHost "/h" */
                    "00000001 01"           /*     MemberMetadata */
                    "00000000");            /*     MemberAssignment empty */
    kc_describe_groups_response_t m;
    DECODE(&g, describe_groups_response, 0, &m);
    assert_int_equal(m.groups.count, 1);
    assert_str(m.groups.items[0].group_state, "Stable");
    assert_str(m.groups.items[0].protocol_type, "consumer");
    assert_str(m.groups.items[0].protocol_data, "range");
    assert_int_equal(m.groups.items[0].members.count, 1);
    assert_str(m.groups.items[0].members.items[0].client_id, "c");
    assert_str(m.groups.items[0].members.items[0].client_host, "/h");
    assert_bytes(m.groups.items[0].members.items[0].member_metadata, "01");
    assert_bytes(m.groups.items[0].members.items[0].member_assignment, "");
    ENCODE_SAME(&g, describe_groups_response, 0, &m);
    golden_free(&g);
}

static void test_describe_groups_response_v6(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02"
                    "0045 03 6e6f"   /* ErrorCode 69 GROUP_ID_NOT_FOUND, ErrorMessage "no" */
                    "03 6731"        /* GroupId */
                    "05 44656164"    /* GroupState "Dead" */
                    "01 01 01"       /* ProtocolType "", ProtocolData "", Members: 0 */
                    "80000000 00"    /* AuthorizedOperations INT32_MIN, tags */
                    "00");
    kc_describe_groups_response_t m;
    DECODE(&g, describe_groups_response, 6, &m);
    assert_int_equal(m.groups.items[0].error_code, 69);
    assert_str(m.groups.items[0].error_message, "no");
    assert_str(m.groups.items[0].group_state, "Dead");
    assert_int_equal(m.groups.items[0].members.count, 0);
    assert_int_equal(m.groups.items[0].authorized_operations, INT32_MIN);
    ENCODE_SAME(&g, describe_groups_response, 6, &m);
    golden_free(&g);
}

/* ---- ListGroups (16) ---- */

static void test_list_groups_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, ""); /* an empty body */
    kc_list_groups_request_t m;
    DECODE(&g, list_groups_request, 0, &m);
    ENCODE_SAME(&g, list_groups_request, 0, &m);
    golden_free(&g);
}

static void test_list_groups_request_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02 07 537461626c65"   /* StatesFilter ["Stable"] */
                    "02 08 436c6173736963" /* TypesFilter ["Classic"] */
                    "00");
    kc_list_groups_request_t m;
    DECODE(&g, list_groups_request, 5, &m);
    assert_int_equal(m.states_filter.count, 1);
    assert_str(m.states_filter.items[0], "Stable");
    assert_str(m.types_filter.items[0], "Classic");
    ENCODE_SAME(&g, list_groups_request, 5, &m);
    golden_free(&g);
}

static void test_list_groups_response_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 0000 00000001 0002 6731 0008 636f6e73756d6572");
    kc_list_groups_response_t m;
    DECODE(&g, list_groups_response, 1, &m);
    assert_int_equal(m.groups.count, 1);
    assert_str(m.groups.items[0].group_id, "g1");
    assert_str(m.groups.items[0].protocol_type, "consumer");
    ENCODE_SAME(&g, list_groups_response, 1, &m);
    golden_free(&g);
}

static void test_list_groups_response_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 0000 02"
                    "03 6731 09 636f6e73756d6572"
                    "07 537461626c65"   /* GroupState "Stable" */
                    "08 436c6173736963" /* GroupType "Classic" */
                    "00 00");
    kc_list_groups_response_t m;
    DECODE(&g, list_groups_response, 5, &m);
    assert_str(m.groups.items[0].group_state, "Stable");
    assert_str(m.groups.items[0].group_type, "Classic");
    ENCODE_SAME(&g, list_groups_response, 5, &m);
    golden_free(&g);
}

/* ---- DeleteGroups (42) ---- */

static void test_delete_groups_request_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0002 6731");
    kc_delete_groups_request_t m;
    DECODE(&g, delete_groups_request, 1, &m);
    assert_str(m.groups_names.items[0], "g1");
    ENCODE_SAME(&g, delete_groups_request, 1, &m);
    golden_free(&g);
}

static void test_delete_groups_request_v2(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02 03 6731 00");
    kc_delete_groups_request_t m;
    DECODE(&g, delete_groups_request, 2, &m);
    assert_int_equal(m.groups_names.count, 1);
    assert_str(m.groups_names.items[0], "g1");
    ENCODE_SAME(&g, delete_groups_request, 2, &m);
    golden_free(&g);
}

static void test_delete_groups_response_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 00000001 0002 6731 0044"); /* NON_EMPTY_GROUP */
    kc_delete_groups_response_t m;
    DECODE(&g, delete_groups_response, 1, &m);
    assert_str(m.results.items[0].group_id, "g1");
    assert_int_equal(m.results.items[0].error_code, 68);
    ENCODE_SAME(&g, delete_groups_response, 1, &m);
    golden_free(&g);
}

static void test_delete_groups_response_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02 03 6731"
                    "0086 02 66 00" /* GROUP_DELETION_FAILED, ErrorMessage "f" */
                    "00");
    kc_delete_groups_response_t m;
    DECODE(&g, delete_groups_response, 3, &m);
    assert_int_equal(m.results.items[0].error_code, 134);
    assert_str(m.results.items[0].error_message, "f");
    ENCODE_SAME(&g, delete_groups_response, 3, &m);
    golden_free(&g);
}

/* ---- OffsetDelete (47), never flexible ---- */

static void test_offset_delete_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 00000001 0001 74 00000002 00000000 00000001");
    kc_offset_delete_request_t m;
    DECODE(&g, offset_delete_request, 0, &m);
    assert_str(m.group_id, "g1");
    assert_int_equal(m.topics.items[0].partitions.count, 2);
    assert_int_equal(m.topics.items[0].partitions.items[1].partition_index, 1);
    ENCODE_SAME(&g, offset_delete_request, 0, &m);
    golden_free(&g);
}

static void test_offset_delete_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0000 00000000"  /* ErrorCode first, then ThrottleTimeMs */
                    "00000001 0001 74 00000001 00000000 0056"); /* GROUP_SUBSCRIBED_TO_TOPIC */
    kc_offset_delete_response_t m;
    DECODE(&g, offset_delete_response, 0, &m);
    assert_int_equal(m.error_code, 0);
    assert_int_equal(m.topics.items[0].partitions.items[0].error_code, 86);
    ENCODE_SAME(&g, offset_delete_response, 0, &m);
    golden_free(&g);
}

/* ---- FindCoordinator (10) ---- */

static void test_find_coordinator_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731");
    kc_find_coordinator_request_t m;
    DECODE(&g, find_coordinator_request, 0, &m);
    assert_str(m.key, "g1");
    assert_int_equal(m.key_type, 0);
    ENCODE_SAME(&g, find_coordinator_request, 0, &m);
    golden_free(&g);
}

static void test_find_coordinator_request_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6731 01 00"); /* Key, KeyType 1 (transaction) */
    kc_find_coordinator_request_t m;
    DECODE(&g, find_coordinator_request, 3, &m);
    assert_str(m.key, "g1");
    assert_int_equal(m.key_type, 1);
    ENCODE_SAME(&g, find_coordinator_request, 3, &m);
    golden_free(&g);
}

static void test_find_coordinator_request_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00 03 03 6731 03 6732 00"); /* KeyType, CoordinatorKeys ["g1","g2"] */
    kc_find_coordinator_request_t m;
    DECODE(&g, find_coordinator_request, 4, &m);
    assert_int_equal(m.coordinator_keys.count, 2);
    assert_str(m.coordinator_keys.items[1], "g2");
    ENCODE_SAME(&g, find_coordinator_request, 4, &m);
    golden_free(&g);
}

static void test_find_coordinator_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0000 00000001 0001 68 00002384"); /* node 1 at "h":9092 */
    kc_find_coordinator_response_t m;
    DECODE(&g, find_coordinator_response, 0, &m);
    assert_int_equal(m.node_id, 1);
    assert_str(m.host, "h");
    assert_int_equal(m.port, 9092);
    ENCODE_SAME(&g, find_coordinator_response, 0, &m);
    golden_free(&g);
}

static void test_find_coordinator_response_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 000f ffff"     /* COORDINATOR_NOT_AVAILABLE, message null */
                    "ffffffff 0000 ffffffff"); /* NodeId -1, Host "", Port -1 */
    kc_find_coordinator_response_t m;
    DECODE(&g, find_coordinator_response, 1, &m);
    assert_int_equal(m.error_code, 15);
    assert_str(m.error_message, NULL);
    assert_int_equal(m.node_id, -1);
    assert_int_equal(m.port, -1);
    ENCODE_SAME(&g, find_coordinator_response, 1, &m);
    golden_free(&g);
}

static void test_find_coordinator_response_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02"
                    "03 6731 00000001 02 68 00002384 0000 00 00"
                    "00");
    kc_find_coordinator_response_t m;
    DECODE(&g, find_coordinator_response, 4, &m);
    assert_int_equal(m.coordinators.count, 1);
    assert_str(m.coordinators.items[0].key, "g1");
    assert_int_equal(m.coordinators.items[0].port, 9092);
    assert_str(m.coordinators.items[0].error_message, NULL);
    ENCODE_SAME(&g, find_coordinator_response, 4, &m);
    golden_free(&g);
}

/* ---- __consumer_offsets records ---- */

static void test_offset_commit_key(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0002 6731 0001 74 00000003");
    kc_offset_commit_key_t m;
    DECODE(&g, offset_commit_key, 0, &m);
    assert_str(m.group, "g1");
    assert_str(m.topic, "t");
    assert_int_equal(m.partition, 3);
    ENCODE_SAME(&g, offset_commit_key, 0, &m);
    golden_free(&g);
}

static void test_offset_commit_value_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "000000000000002a 0000 00000000000003e8"
                    "00000000000007d0"); /* expireTimestamp 2000 (v1 only) */
    kc_offset_commit_value_t m;
    DECODE(&g, offset_commit_value, 1, &m);
    assert_int_equal(m.offset, 42);
    assert_int_equal(m.leader_epoch, -1);
    assert_int_equal(m.commit_timestamp, 1000);
    assert_int_equal(m.expire_timestamp, 2000);
    ENCODE_SAME(&g, offset_commit_value, 1, &m);
    golden_free(&g);
}

static void test_offset_commit_value_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "000000000000002a ffffffff 02 6d 00000000000003e8"
                    "01 00 10 000102030405060708090a0b0c0d0e0f"); /* tag 0: topicId */
    kc_offset_commit_value_t m;
    DECODE(&g, offset_commit_value, 4, &m);
    assert_int_equal(m.leader_epoch, -1);
    assert_str(m.metadata, "m");
    assert_uuid(m.topic_id, "000102030405060708090a0b0c0d0e0f");
    ENCODE_SAME(&g, offset_commit_value, 4, &m);
    golden_free(&g);
}

static void test_group_metadata_value_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0008 636f6e73756d6572 00000002"
                    "0005 72616e6765 0002 6d31"  /* protocol "range", leader "m1" */
                    "00000000000003e8"           /* currentStateTimestamp */
                    "00000001"                   /* members: 1 */
                    "0002 6d31 ffff 0001 63 0002 2f68"
                    "0000ea60 00002710"          /* rebalance 60000, session 10000 */
                    "00000001 01 00000000");
    kc_group_metadata_value_t m;
    DECODE(&g, group_metadata_value, 3, &m);
    assert_str(m.protocol_type, "consumer");
    assert_int_equal(m.generation, 2);
    assert_str(m.leader, "m1");
    assert_int_equal(m.current_state_timestamp, 1000);
    assert_str(m.members.items[0].group_instance_id, NULL);
    assert_int_equal(m.members.items[0].rebalance_timeout, 60000);
    assert_int_equal(m.members.items[0].session_timeout, 10000);
    assert_bytes(m.members.items[0].subscription, "01");
    ENCODE_SAME(&g, group_metadata_value, 3, &m);
    golden_free(&g);
}

static void test_group_metadata_value_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "09 636f6e73756d6572 00000000"
                    "00 00 ffffffffffffffff 01 00"); /* protocol/leader null, no members */
    kc_group_metadata_value_t m;
    DECODE(&g, group_metadata_value, 4, &m);
    assert_str(m.protocol, NULL);
    assert_str(m.leader, NULL);
    assert_int_equal(m.current_state_timestamp, -1);
    assert_int_equal(m.members.count, 0);
    ENCODE_SAME(&g, group_metadata_value, 4, &m);
    golden_free(&g);
}

/* ---- ApiVersions (18) ---- */

static void test_api_versions_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "");
    kc_api_versions_request_t m;
    DECODE(&g, api_versions_request, 0, &m);
    ENCODE_SAME(&g, api_versions_request, 0, &m);
    golden_free(&g);
}

static void test_api_versions_request_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "03 6b63 02 31 00"); /* ClientSoftwareName "kc", Version "1" */
    kc_api_versions_request_t m;
    DECODE(&g, api_versions_request, 3, &m);
    assert_str(m.client_software_name, "kc");
    assert_str(m.client_software_version, "1");
    ENCODE_SAME(&g, api_versions_request, 3, &m);
    golden_free(&g);
}

/* The UNSUPPORTED_VERSION answer: a v0 body naming only ApiVersions. */
static void test_api_versions_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0023 00000001 0012 0000 0005");
    kc_api_versions_response_t m;
    DECODE(&g, api_versions_response, 0, &m);
    assert_int_equal(m.error_code, 35);
    assert_int_equal(m.api_keys.count, 1);
    assert_int_equal(m.api_keys.items[0].api_key, 18);
    assert_int_equal(m.api_keys.items[0].min_version, 0);
    assert_int_equal(m.api_keys.items[0].max_version, 5);
    ENCODE_SAME(&g, api_versions_response, 0, &m);
    golden_free(&g);
}

static void test_api_versions_response_v3(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "0000 02 0012 0000 0005 00" /* ApiKeys: [18: 0-5] */
                    "00000000"                 /* ThrottleTimeMs */
                    "02"                       /* two tagged fields */
                    "00 09 02 03 6d76 0001 0005 00" /* T0 SupportedFeatures ["mv" 1-5] */
                    "01 08 0000000000000003");      /* T1 FinalizedFeaturesEpoch 3 */
    kc_api_versions_response_t m;
    DECODE(&g, api_versions_response, 3, &m);
    assert_int_equal(m.api_keys.items[0].max_version, 5);
    assert_int_equal(m.supported_features.count, 1);
    assert_str(m.supported_features.items[0].name, "mv");
    assert_int_equal(m.supported_features.items[0].min_version, 1);
    assert_int_equal(m.supported_features.items[0].max_version, 5);
    assert_int_equal(m.finalized_features_epoch, 3);
    assert_false(m.zk_migration_ready);
    ENCODE_SAME(&g, api_versions_response, 3, &m);
    golden_free(&g);
}

/* ---- Metadata (3) ---- */

static void test_metadata_request_v1_all(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "ffffffff"); /* Topics null = all topics */
    kc_metadata_request_t m;
    DECODE(&g, metadata_request, 1, &m);
    assert_int_equal(m.topics.count, -1);
    ENCODE_SAME(&g, metadata_request, 1, &m);
    golden_free(&g);
}

static void test_metadata_request_v12(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02 00000000000000000000000000000000 02 74 00" /* [zero id, "t"] */
                    "01 00 00"); /* AllowAutoTopicCreation, IncludeTopicAuthorizedOperations */
    kc_metadata_request_t m;
    DECODE(&g, metadata_request, 12, &m);
    assert_int_equal(m.topics.count, 1);
    assert_str(m.topics.items[0].name, "t");
    assert_true(m.allow_auto_topic_creation);
    assert_false(m.include_topic_authorized_operations);
    ENCODE_SAME(&g, metadata_request, 12, &m);
    golden_free(&g);
}

static void test_metadata_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 00000001 0001 68 00002384" /* Brokers: 1 at "h":9092 */
                    "00000001 0000 0001 74"              /* Topics: "t" */
                    "00000001 0000 00000000 00000001"    /*   partition 0, leader 1 */
                    "00000001 00000001 00000001 00000001"); /* replicas [1], isr [1] */
    kc_metadata_response_t m;
    DECODE(&g, metadata_response, 0, &m);
    assert_int_equal(m.brokers.items[0].port, 9092);
    assert_str(m.topics.items[0].name, "t");
    assert_int_equal(m.topics.items[0].partitions.items[0].leader_id, 1);
    assert_int_equal(m.topics.items[0].partitions.items[0].isr_nodes.items[0], 1);
    ENCODE_SAME(&g, metadata_response, 0, &m);
    golden_free(&g);
}

static void test_metadata_response_v12(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000"
                    "02 00000001 02 68 00002384 00 00" /* Brokers: 1, Rack null */
                    "02 63"                            /* ClusterId "c" */
                    "00000001"                         /* ControllerId */
                    "02 0000 02 74"                    /* Topics: ErrorCode, Name "t" */
                    "0102030405060708090a0b0c0d0e0f10 00" /* TopicId, IsInternal */
                    "02 0000 00000000 00000001 00000000" /* partition 0, leader 1, epoch 0 */
                    "02 00000001 02 00000001 01 00"    /* replicas, isr, offline [] */
                    "80000000 00"                      /* TopicAuthorizedOperations */
                    "00");
    kc_metadata_response_t m;
    DECODE(&g, metadata_response, 12, &m);
    assert_str(m.brokers.items[0].rack, NULL);
    assert_str(m.cluster_id, "c");
    assert_int_equal(m.controller_id, 1);
    assert_uuid(m.topics.items[0].topic_id, "0102030405060708090a0b0c0d0e0f10");
    assert_int_equal(m.topics.items[0].partitions.items[0].leader_epoch, 0);
    assert_int_equal(m.topics.items[0].partitions.items[0].offline_replicas.count, 0);
    assert_int_equal(m.topics.items[0].topic_authorized_operations, INT32_MIN);
    ENCODE_SAME(&g, metadata_response, 12, &m);
    golden_free(&g);
}

/* ---- CreateTopics (19) ---- */

static void test_create_topics_request_v1(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0001 74 00000003 0001" /* "t", 3 partitions, RF 1 */
                    "00000000"                       /* Assignments: 0 */
                    "00000001 0001 6b ffff"          /* Configs: k=null */
                    "00007530 00");                  /* timeoutMs 30000, validateOnly */
    kc_create_topics_request_t m;
    DECODE(&g, create_topics_request, 1, &m);
    assert_int_equal(m.topics.items[0].num_partitions, 3);
    assert_int_equal(m.topics.items[0].replication_factor, 1);
    assert_str(m.topics.items[0].configs.items[0].name, "k");
    assert_str(m.topics.items[0].configs.items[0].value, NULL);
    assert_int_equal(m.timeout_ms, 30000);
    ENCODE_SAME(&g, create_topics_request, 1, &m);
    golden_free(&g);
}

static void test_create_topics_request_v5(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "02 02 74 ffffffff ffff 01 01 00" /* broker-default partitions and RF */
                    "0000ea60 01 00");
    kc_create_topics_request_t m;
    DECODE(&g, create_topics_request, 5, &m);
    assert_int_equal(m.topics.items[0].num_partitions, -1);
    assert_int_equal(m.topics.items[0].replication_factor, -1);
    assert_int_equal(m.timeout_ms, 60000);
    assert_true(m.validate_only);
    ENCODE_SAME(&g, create_topics_request, 5, &m);
    golden_free(&g);
}

static void test_create_topics_response_v2(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 00000001 0001 74 0024 0001 65"); /* TOPIC_ALREADY_EXISTS "e" */
    kc_create_topics_response_t m;
    DECODE(&g, create_topics_response, 2, &m);
    assert_int_equal(m.topics.items[0].error_code, 36);
    assert_str(m.topics.items[0].error_message, "e");
    ENCODE_SAME(&g, create_topics_response, 2, &m);
    golden_free(&g);
}

static void test_create_topics_response_v7(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02 02 74"
                    "0102030405060708090a0b0c0d0e0f10" /* TopicId */
                    "0000 00 00000003 0001"            /* no error, 3 partitions, RF 1 */
                    "02 02 6b 02 76 00 05 00 00"       /* Configs: k=v, source 5 */
                    "00 00");
    kc_create_topics_response_t m;
    DECODE(&g, create_topics_response, 7, &m);
    assert_uuid(m.topics.items[0].topic_id, "0102030405060708090a0b0c0d0e0f10");
    assert_int_equal(m.topics.items[0].topic_config_error_code, 0);
    assert_int_equal(m.topics.items[0].num_partitions, 3);
    assert_str(m.topics.items[0].configs.items[0].value, "v");
    assert_int_equal(m.topics.items[0].configs.items[0].config_source, 5);
    ENCODE_SAME(&g, create_topics_response, 7, &m);
    golden_free(&g);
}

/* ---- ListOffsets (2) ---- */

static void test_list_offsets_request_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "ffffffff 00000001 0001 74 00000001"
                    "00000000 ffffffffffffffff 00000001"); /* latest, MaxNumOffsets 1 */
    kc_list_offsets_request_t m;
    DECODE(&g, list_offsets_request, 0, &m);
    assert_int_equal(m.replica_id, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].timestamp, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].max_num_offsets, 1);
    ENCODE_SAME(&g, list_offsets_request, 0, &m);
    golden_free(&g);
}

static void test_list_offsets_request_v7(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "ffffffff 01 02 02 74 02"
                    "00000000 ffffffff fffffffffffffffd 00" /* timestamp -3 */
                    "00 00");
    kc_list_offsets_request_t m;
    DECODE(&g, list_offsets_request, 7, &m);
    assert_int_equal(m.isolation_level, 1);
    assert_int_equal(m.topics.items[0].partitions.items[0].current_leader_epoch, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].timestamp, -3);
    ENCODE_SAME(&g, list_offsets_request, 7, &m);
    golden_free(&g);
}

static void test_list_offsets_response_v0(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000001 0001 74 00000001 00000000 0000"
                    "00000001 000000000000000a"); /* OldStyleOffsets [10] */
    kc_list_offsets_response_t m;
    DECODE(&g, list_offsets_response, 0, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].old_style_offsets.count, 1);
    assert_int_equal(m.topics.items[0].partitions.items[0].old_style_offsets.items[0], 10);
    ENCODE_SAME(&g, list_offsets_response, 0, &m);
    golden_free(&g);
}

static void test_list_offsets_response_v7(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 02 02 74 02"
                    "00000000 0000 ffffffffffffffff 000000000000000a 00000000 00"
                    "00 00");
    kc_list_offsets_response_t m;
    DECODE(&g, list_offsets_response, 7, &m);
    assert_int_equal(m.topics.items[0].partitions.items[0].timestamp, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].offset, 10);
    assert_int_equal(m.topics.items[0].partitions.items[0].leader_epoch, 0);
    ENCODE_SAME(&g, list_offsets_response, 7, &m);
    golden_free(&g);
}

/* ---- Fetch (1) ---- */

static void test_fetch_request_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "ffffffff 000001f4 00000001 00100000 00" /* wait 500, min 1, max 1 MiB */
                    "00000001 0001 74 00000001"
                    "00000000 0000000000000005 00100000");
    kc_fetch_request_t m;
    DECODE(&g, fetch_request, 4, &m);
    assert_int_equal(m.max_wait_ms, 500);
    assert_int_equal(m.max_bytes, 1048576);
    assert_str(m.topics.items[0].topic, "t");
    assert_int_equal(m.topics.items[0].partitions.items[0].fetch_offset, 5);
    ENCODE_SAME(&g, fetch_request, 4, &m);
    golden_free(&g);
}

static void test_fetch_request_v12(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "ffffffff 000001f4 00000001 00100000 00"
                    "00000000 ffffffff"                 /* SessionId 0, SessionEpoch -1 */
                    "02 02 74 02"
                    "00000000 ffffffff 0000000000000005" /* CurrentLeaderEpoch, FetchOffset */
                    "ffffffff ffffffffffffffff 00100000 00" /* LastFetchedEpoch, LogStart */
                    "00"
                    "01 01 00");                        /* no forgotten topics, RackId "" */
    kc_fetch_request_t m;
    DECODE(&g, fetch_request, 12, &m);
    assert_str(m.cluster_id, NULL);
    assert_int_equal(m.session_epoch, -1);
    assert_int_equal(m.topics.items[0].partitions.items[0].last_fetched_epoch, -1);
    assert_int_equal(m.forgotten_topics_data.count, 0);
    assert_str(m.rack_id, "");
    ENCODE_SAME(&g, fetch_request, 12, &m);
    golden_free(&g);
}

static void test_fetch_response_v4(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 00000001 0001 74 00000001"
                    "00000000 0000 000000000000000a 000000000000000a" /* HW, LSO 10 */
                    "ffffffff"        /* AbortedTransactions null */
                    "00000003 010203"); /* Records */
    kc_fetch_response_t m;
    DECODE(&g, fetch_response, 4, &m);
    assert_int_equal(m.responses.items[0].partitions.items[0].high_watermark, 10);
    assert_int_equal(m.responses.items[0].partitions.items[0].aborted_transactions.count, -1);
    assert_bytes(m.responses.items[0].partitions.items[0].records, "010203");
    ENCODE_SAME(&g, fetch_response, 4, &m);
    golden_free(&g);
}

static void test_fetch_response_v12(void **state)
{
    (void)state;
    golden_t g;
    golden_load(&g, "00000000 0000 00000000 02 02 74 02"
                    "00000000 0000 000000000000000a 000000000000000a 0000000000000000"
                    "01 ffffffff 04 010203"   /* aborted [], no preferred replica, records */
                    "01 01 09 00000001 00000005 00" /* T1 CurrentLeader: leader 1 epoch 5 */
                    "00 00");
    kc_fetch_response_t m;
    DECODE(&g, fetch_response, 12, &m);
    assert_int_equal(m.responses.items[0].partitions.items[0].aborted_transactions.count, 0);
    assert_int_equal(m.responses.items[0].partitions.items[0].preferred_read_replica, -1);
    assert_int_equal(m.responses.items[0].partitions.items[0].current_leader.leader_id, 1);
    assert_int_equal(m.responses.items[0].partitions.items[0].current_leader.leader_epoch, 5);
    assert_int_equal(m.responses.items[0].partitions.items[0].diverging_epoch.epoch, -1);
    assert_bytes(m.responses.items[0].partitions.items[0].records, "010203");
    ENCODE_SAME(&g, fetch_response, 12, &m);
    golden_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_group_request_v3),
        cmocka_unit_test(test_sync_group_request_v5),
        cmocka_unit_test(test_sync_group_response_v1),
        cmocka_unit_test(test_sync_group_response_v5),
        cmocka_unit_test(test_heartbeat_request_v0),
        cmocka_unit_test(test_heartbeat_request_v4),
        cmocka_unit_test(test_heartbeat_response_v0),
        cmocka_unit_test(test_heartbeat_response_v4),
        cmocka_unit_test(test_leave_group_request_v1),
        cmocka_unit_test(test_leave_group_request_v5),
        cmocka_unit_test(test_leave_group_response_v3),
        cmocka_unit_test(test_leave_group_response_v4),
        cmocka_unit_test(test_offset_commit_request_v1),
        cmocka_unit_test(test_offset_commit_request_v2),
        cmocka_unit_test(test_offset_commit_request_v9),
        cmocka_unit_test(test_offset_commit_request_v10),
        cmocka_unit_test(test_offset_commit_response_v2),
        cmocka_unit_test(test_offset_commit_response_v8),
        cmocka_unit_test(test_offset_fetch_request_v1),
        cmocka_unit_test(test_offset_fetch_request_v2_all_topics),
        cmocka_unit_test(test_offset_fetch_request_v7),
        cmocka_unit_test(test_offset_fetch_request_v9),
        cmocka_unit_test(test_offset_fetch_response_v1),
        cmocka_unit_test(test_offset_fetch_response_v6),
        cmocka_unit_test(test_offset_fetch_response_v8),
        cmocka_unit_test(test_describe_groups_request_v0),
        cmocka_unit_test(test_describe_groups_request_v5),
        cmocka_unit_test(test_describe_groups_response_v0),
        cmocka_unit_test(test_describe_groups_response_v6),
        cmocka_unit_test(test_list_groups_request_v0),
        cmocka_unit_test(test_list_groups_request_v5),
        cmocka_unit_test(test_list_groups_response_v1),
        cmocka_unit_test(test_list_groups_response_v5),
        cmocka_unit_test(test_delete_groups_request_v1),
        cmocka_unit_test(test_delete_groups_request_v2),
        cmocka_unit_test(test_delete_groups_response_v1),
        cmocka_unit_test(test_delete_groups_response_v3),
        cmocka_unit_test(test_offset_delete_request_v0),
        cmocka_unit_test(test_offset_delete_response_v0),
        cmocka_unit_test(test_find_coordinator_request_v0),
        cmocka_unit_test(test_find_coordinator_request_v3),
        cmocka_unit_test(test_find_coordinator_request_v4),
        cmocka_unit_test(test_find_coordinator_response_v0),
        cmocka_unit_test(test_find_coordinator_response_v1),
        cmocka_unit_test(test_find_coordinator_response_v4),
        cmocka_unit_test(test_offset_commit_key),
        cmocka_unit_test(test_offset_commit_value_v1),
        cmocka_unit_test(test_offset_commit_value_v4),
        cmocka_unit_test(test_group_metadata_value_v3),
        cmocka_unit_test(test_group_metadata_value_v4),
        cmocka_unit_test(test_api_versions_request_v0),
        cmocka_unit_test(test_api_versions_request_v3),
        cmocka_unit_test(test_api_versions_response_v0),
        cmocka_unit_test(test_api_versions_response_v3),
        cmocka_unit_test(test_metadata_request_v1_all),
        cmocka_unit_test(test_metadata_request_v12),
        cmocka_unit_test(test_metadata_response_v0),
        cmocka_unit_test(test_metadata_response_v12),
        cmocka_unit_test(test_create_topics_request_v1),
        cmocka_unit_test(test_create_topics_request_v5),
        cmocka_unit_test(test_create_topics_response_v2),
        cmocka_unit_test(test_create_topics_response_v7),
        cmocka_unit_test(test_list_offsets_request_v0),
        cmocka_unit_test(test_list_offsets_request_v7),
        cmocka_unit_test(test_list_offsets_response_v0),
        cmocka_unit_test(test_list_offsets_response_v7),
        cmocka_unit_test(test_fetch_request_v4),
        cmocka_unit_test(test_fetch_request_v12),
        cmocka_unit_test(test_fetch_response_v4),
        cmocka_unit_test(test_fetch_response_v12),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
