/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared shapes of KIP-848 consumer groups inside coordinator/: partition
 * sets keyed by topic id (the assignments of Kafka's ConsumerGroupMember and
 * TargetAssignmentBuilder) and the server-side assignor interface (Kafka's
 * ConsumerGroupPartitionAssignor). Not part of the public coord.h contract.
 */
#ifndef KC_CONSUMER_INT_H
#define KC_CONSUMER_INT_H

#include "internal.h"

/* The partitions of one topic, sorted ascending, no duplicates. */
typedef struct {
    kc_uuid_t topic_id;
    int32_t *p;
    int32_t n, cap;
} kc_asg_topic_t;

/* A set of topic partitions: topics sorted by id bytes. Owns its arrays;
 * zero-initialised is the empty set. */
typedef struct {
    kc_asg_topic_t *t;
    int32_t n, cap;
} kc_asg_t;

void kc_asg_free(kc_asg_t *a);
void kc_asg_copy(kc_asg_t *dst, const kc_asg_t *src); /* dst is freed first */
void kc_asg_add(kc_asg_t *a, kc_uuid_t topic_id, int32_t partition);
bool kc_asg_has(const kc_asg_t *a, kc_uuid_t topic_id, int32_t partition);
bool kc_asg_equal(const kc_asg_t *a, const kc_asg_t *b);
bool kc_asg_is_empty(const kc_asg_t *a);
int64_t kc_asg_count(const kc_asg_t *a);
const kc_asg_topic_t *kc_asg_find(const kc_asg_t *a, kc_uuid_t topic_id);

/* One subscribed topic that exists, as the assignor sees it. */
typedef struct {
    const char *name;
    kc_uuid_t topic_id;
    int32_t partitions;
} kc_assign_topic_t;

/* One member: which of the spec's topics it subscribes to (subscribed[i]
 * for topics[i]), its current target (borrowed, for stickiness) and the
 * new target the assignor fills (owned by the caller, empty on entry). */
typedef struct {
    const char *member_id;
    const bool *subscribed;
    const kc_asg_t *previous;
    kc_asg_t target;
} kc_assign_member_t;

/* Input and output of one assignment: topics sorted by name, members
 * sorted by member id. Every partition of a topic goes to exactly one
 * subscribed member (none when no member subscribes). */
typedef struct {
    const kc_assign_topic_t *topics;
    int32_t ntopics;
    kc_assign_member_t *members;
    int32_t nmembers;
} kc_assign_spec_t;

/* Kafka's UniformAssignor ("uniform", the default): balanced (member
 * counts differ by at most one for homogeneous subscriptions) and sticky
 * (a partition stays with its previous owner while that keeps the
 * balance). */
void kc_assignor_uniform(kc_assign_spec_t *spec);
/* Kafka's RangeAssignor ("range"): per topic, contiguous ranges over the
 * subscribed members in member id order, the first ones one larger. */
void kc_assignor_range(kc_assign_spec_t *spec);

/* A compiled subscription regex (regex.c, PCRE2). */
typedef struct kc_regex kc_regex_t;
/* Compiles a pattern of len bytes (UTF-8) for whole-subject matching, as
 * Java's Matcher.matches(). NULL when it does not compile, with a message
 * (PCRE2's, with the offset) written to err. Free with kc_regex_free. */
kc_regex_t *kc_regex_compile(const char *pattern, size_t len, char *err, size_t errcap);
/* True when the whole subject matches; a match that exceeds the
 * backtracking budget counts as no match. Not thread-safe (shared match
 * data). */
bool kc_regex_matches(kc_regex_t *re, const char *subject, size_t len);
void kc_regex_free(kc_regex_t *re); /* NULL is fine */

#endif
