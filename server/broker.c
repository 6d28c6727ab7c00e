/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broker APIs that are not about groups: ApiVersions, Metadata,
 * DescribeCluster, FindCoordinator and CreateTopics, answered as Kafka's
 * KafkaApis answers them for a single broker that leads every partition.
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

/* Authorized-operation bit sets Kafka reports when no authorizer denies anything. */
#define TOPIC_ALL_OPERATIONS 3576    /* READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS */
#define CLUSTER_ALL_OPERATIONS 8096  /* CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE */

static kc_str_t arena_str(kc_arena_t *a, const char *s)
{
    size_t n = strlen(s);
    char *p = kc_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    return (kc_str_t){p, (int32_t)n};
}

/* ---- ApiVersions ---- */

void kc_api_versions_unsupported_body(kc_buf_t *out)
{
    const kc_api_entry_t *e = kc_api_find(KC_API_API_VERSIONS);
    kc_api_versions_response_t resp;
    kc_api_versions_response_init(&resp);
    kc_api_versions_response_api_version_t av = {KC_API_API_VERSIONS, e->min_version,
                                                 e->max_version};
    resp.error_code = KC_ERR_UNSUPPORTED_VERSION;
    resp.api_keys.items = &av;
    resp.api_keys.count = 1;
    kc_api_versions_response_encode(out, 0, &resp);
}

/*
 * The features of Kafka 4.4 (its production features, at the levels a
 * freshly formatted 4.4 broker finalizes), as kcoord can honestly claim
 * them. A client acts on a finalized level (the Java producer turns on the
 * transaction protocol of KIP-890 at transaction.version 2) and Admin's
 * describeFeatures shows every feature, so a feature is finalized only at
 * a level kcoord implements:
 *
 *   - group.version 1 (KIP-848 consumer groups) and streams.version 1
 *     (KIP-1071 streams groups): implemented; supported 0-1 and finalized
 *     at 1, as Kafka 4.4.
 *   - metadata.version 33 (4.4-IV2): kcoord has no KRaft metadata log, but
 *     the level is also what a client reads as the broker's protocol level,
 *     and kcoord serves the API versions Kafka 4.4 serves at that level (the
 *     conformance suite compares them). Finalized at 33 as Kafka 4.4; the
 *     supported range is that one level, as kcoord cannot be moved to
 *     another (no UpdateFeatures), where Kafka supports 7-33.
 *   - transaction.version 2 (KIP-890: the epoch bumped at each
 *     transaction's end, partitions added by Produce v12 and TxnOffsetCommit
 *     v5): implemented; supported 0-2 and finalized at 2, as Kafka 4.4.
 *   - share.version: no share groups (their APIs are not advertised), so
 *     not finalized, as a Kafka whose share.version is 0. Supported 0-0.
 *   - kraft.version (the KRaft quorum's protocol, KIP-853) and
 *     eligible.leader.replicas.version (KIP-966, replication): kcoord has
 *     neither a quorum nor replicas, and serves none of the APIs they
 *     govern; not finalized, supported 0-0.
 *
 * A feature of level 0 is not listed as finalized (Kafka lists only the
 * levels above 0); before ApiVersions v4 a supported feature of minimum 0
 * is left out (KAFKA-17492), so v3 lists metadata.version alone, as Kafka.
 */
static const struct {
    const char *name;
    int16_t min_version, max_version, finalized_level;
} features[] = {
    {"group.version", 0, 1, 1},
    {"kraft.version", 0, 0, 0},
    {"metadata.version", 33, 33, 33},
    {"share.version", 0, 0, 0},
    {"streams.version", 0, 1, 1},
    {"transaction.version", 0, 2, 2},
    {"eligible.leader.replicas.version", 0, 0, 0},
};

/*
 * Kafka's finalized features epoch is the offset of its metadata log that
 * last changed them; clients keep the finalized features of the greatest
 * epoch they have seen (ApiVersions.update). kcoord's levels change only
 * between kcoord versions, so the epoch counts those changes: 0 for
 * group.version and streams.version alone, 1 since metadata.version joined
 * them. Raise it whenever a finalized level above changes, so that a
 * client that outlives an upgrade takes the new levels.
 */
#define FINALIZED_FEATURES_EPOCH 1

static void add_features(kc_req_t *req, int16_t v, kc_api_versions_response_t *resp)
{
    size_t n = KC_ARRAY_LEN(features);
    resp->supported_features.items =
        kc_arena_alloc(req->arena, n * sizeof(*resp->supported_features.items));
    resp->finalized_features.items =
        kc_arena_alloc(req->arena, n * sizeof(*resp->finalized_features.items));
    int32_t ns = 0, nf = 0;
    for (size_t i = 0; i < n; i++) {
        kc_str_t name = kc_str(features[i].name);
        /* Before v4 a feature of minimum version 0 is left out: older
         * clients failed to parse it (KAFKA-17492). */
        if (v >= 4 || features[i].min_version != 0) {
            kc_api_versions_response_supported_feature_key_t *f =
                &resp->supported_features.items[ns++];
            f->name = name;
            f->min_version = features[i].min_version;
            f->max_version = features[i].max_version;
        }
        /* A feature finalized at level 0 is not listed. */
        if (features[i].finalized_level != 0) {
            kc_api_versions_response_finalized_feature_key_t *f =
                &resp->finalized_features.items[nf++];
            f->name = name;
            f->min_version_level = features[i].finalized_level;
            f->max_version_level = features[i].finalized_level;
        }
    }
    resp->supported_features.count = ns;
    resp->finalized_features.count = nf;
    resp->finalized_features_epoch = FINALIZED_FEATURES_EPOCH;
}

/* Kafka's client software name/version pattern: [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])? */
static bool software_token_valid(kc_str_t s)
{
    if (s.len <= 0)
        return false;
    for (int32_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        bool inner = c == '-' || c == '.';
        if (!alnum && (!inner || i == 0 || i == s.len - 1))
            return false;
    }
    return true;
}

int kc_handle_api_versions(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_api_versions_request_t rq;
    kc_api_versions_request_init(&rq);
    if (kc_api_versions_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_api_versions_response_t resp;
    kc_api_versions_response_init(&resp);
    resp.throttle_time_ms = 0;
    bool valid = true;
    if (v >= 5 && (kc_str_is_null(rq.cluster_id) != (rq.node_id == -1)))
        valid = false;
    if (v >= 3 && (!software_token_valid(rq.client_software_name) ||
                   !software_token_valid(rq.client_software_version)))
        valid = false;
    const kc_config_t *cfg = req->srv->cfg;
    if (!valid) {
        resp.error_code = KC_ERR_INVALID_REQUEST;
    } else if (v >= 5 && !kc_str_is_null(rq.cluster_id) &&
               (!kc_str_eq_cstr(rq.cluster_id, cfg->cluster_id) || rq.node_id != cfg->node_id)) {
        /* KIP-1242: the client reached another cluster or node. */
        resp.error_code = KC_ERR_REBOOTSTRAP_REQUIRED;
    } else {
        resp.api_keys.items =
            kc_arena_alloc(req->arena, kc_api_table_len * sizeof(*resp.api_keys.items));
        for (size_t i = 0; i < kc_api_table_len; i++) {
            resp.api_keys.items[i].api_key = kc_api_table[i].api_key;
            resp.api_keys.items[i].min_version = kc_api_table[i].min_version;
            resp.api_keys.items[i].max_version = kc_api_table[i].max_version;
        }
        resp.api_keys.count = (int32_t)kc_api_table_len;
        if (v >= 3)
            add_features(req, v, &resp);
    }
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_api_versions_response_encode(&b, v, &resp), &b);
}

/* ---- Metadata ---- */

static void fill_topic(kc_req_t *req, kc_metadata_response_topic_response_t *t,
                       const kc_topic_t *topic, bool include_ops)
{
    int32_t node = req->srv->cfg->node_id;
    memset(t, 0, sizeof(*t));
    t->error_code = KC_ERR_NONE;
    t->name = kc_str(topic->name);
    t->topic_id = topic->id;
    t->is_internal = false;
    t->topic_authorized_operations =
        include_ops ? kc_req_authorized_ops(req, KC_RES_TOPIC, kc_str(topic->name),
                                            TOPIC_ALL_OPERATIONS)
                    : INT32_MIN;
    t->partitions.count = topic->partitions;
    t->partitions.items =
        kc_arena_alloc(req->arena, (size_t)topic->partitions * sizeof(*t->partitions.items));
    int32_t *one = kc_arena_alloc(req->arena, sizeof(int32_t));
    *one = node;
    for (int32_t p = 0; p < topic->partitions; p++) {
        kc_metadata_response_partition_t *pp = &t->partitions.items[p];
        pp->error_code = KC_ERR_NONE;
        pp->partition_index = p;
        pp->leader_id = node;
        pp->leader_epoch = kc_server_leader_epoch(req->srv, topic, p);
        pp->replica_nodes = (kc_int32_array_t){one, 1};
        pp->isr_nodes = (kc_int32_array_t){one, 1};
        pp->offline_replicas = (kc_int32_array_t){NULL, 0};
    }
}

static void fill_topic_error(kc_metadata_response_topic_response_t *t, int16_t err, kc_str_t name,
                             kc_uuid_t id)
{
    memset(t, 0, sizeof(*t));
    t->error_code = err;
    t->name = name;
    t->topic_id = id;
    t->topic_authorized_operations = INT32_MIN;
    t->partitions.count = 0;
}

static const kc_uuid_t zero_uuid;

static bool uuid_is_zero(kc_uuid_t id)
{
    return memcmp(&id, &zero_uuid, sizeof(id)) == 0;
}

/* scala.collection.Hashing.improve: the hash Scala's immutable HashMap and HashSet use. */
static uint32_t scala_improve(uint32_t h)
{
    h = h + ~(h << 9);
    h ^= h >> 14;
    h += h << 4;
    return h ^ (h >> 10);
}

static void champ_level(const uint32_t *h, const size_t *in, size_t n, int shift, size_t *out,
                        size_t *nout)
{
    if (n == 1 || shift >= 35) { /* one key, or keys of one full hash: insertion order */
        for (size_t i = 0; i < n; i++)
            out[(*nout)++] = in[i];
        return;
    }
    size_t count[32] = {0};
    for (size_t i = 0; i < n; i++)
        count[(h[in[i]] >> shift) & 31]++;
    /* A node's own keys first, by slice; then its sub-tries, by slice. */
    for (uint32_t m = 0; m < 32; m++)
        if (count[m] == 1)
            for (size_t i = 0; i < n; i++)
                if (((h[in[i]] >> shift) & 31) == m)
                    out[(*nout)++] = in[i];
    size_t *sub = kc_xcalloc(n, sizeof(*sub));
    for (uint32_t m = 0; m < 32; m++) {
        if (count[m] < 2)
            continue;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (((h[in[i]] >> shift) & 31) == m)
                sub[k++] = in[i];
        champ_level(h, sub, k, shift + 5, out, nout);
    }
    free(sub);
}

void kc_scala_hash_order(const int32_t *hashes, size_t *idx, size_t n)
{
    if (n < 2)
        return;
    uint32_t *h = NULL;
    size_t max = 0;
    for (size_t i = 0; i < n; i++)
        max = KC_MAX(max, idx[i] + 1);
    h = kc_xcalloc(max, sizeof(*h));
    for (size_t i = 0; i < n; i++)
        h[idx[i]] = scala_improve((uint32_t)hashes[idx[i]]);
    size_t *out = kc_xcalloc(n, sizeof(*out));
    size_t nout = 0;
    champ_level(h, idx, n, 0, out, &nout);
    memcpy(idx, out, n * sizeof(*idx));
    free(out);
    free(h);
}

/* Kafka's internal topics (Topic.isInternal), flagged even when they do not exist. */
static bool internal_topic_name(kc_str_t name)
{
    return kc_str_eq_cstr(name, "__consumer_offsets") ||
           kc_str_eq_cstr(name, "__transaction_state") ||
           kc_str_eq_cstr(name, "__share_group_state");
}

static void sort_by_java_bucket(const kc_str_t *names, size_t cap, size_t *idx, size_t n);

/*
 * Kafka answers the topics it does not know from a java.util.HashSet copied
 * from every requested topic: in the order of that set's buckets (a
 * power-of-two table sized for all requested names), names of one bucket
 * in request order. idx holds n indexes into names; sorted in place.
 */
static void java_hash_set_order(const kc_str_t *names, size_t total, size_t *idx, size_t n)
{
    size_t cap = 1;
    size_t want = (size_t)((float)total / 0.75f) + 1;
    if (want < 16)
        want = 16;
    while (cap < want)
        cap <<= 1;
    sort_by_java_bucket(names, cap, idx, n);
}

/* A Metadata request in KafkaApis.handleTopicMetadataRequest's steps: the
 * requested topics as a set of names, their authorization and the answer's
 * topics so far, all in req's arena. */
typedef struct {
    kc_req_t *req;
    int16_t v;
    const kc_metadata_request_t *rq;
    bool include_ops;  /* v8+ IncludeTopicAuthorizedOperations */
    bool allow_create; /* auto-creation applies to unknown topics */
    bool by_id;        /* v12+: a request by topic ids */
    kc_metadata_response_topic_response_t *out;
    size_t n;
    kc_str_t *names;          /* the set of requested names, in its iteration order */
    const kc_topic_t **found; /* the topic each name names (NULL: none) */
    size_t nn;
    bool *no_describe; /* per name: no DESCRIBE on the topic */
    bool *no_create;   /* per name: unknown, and no CREATE for its auto-creation */
} metadata_t;

/*
 * The request's topic list as KafkaApis takes it: a null name or a topic id
 * before v12 is an invalid request. From v12 a non-zero id makes the
 * request one by id (names are then ignored); a null name without any id
 * fails the request (Kafka meets a null name). 0 or the error to answer.
 */
static int16_t metadata_check_topics(metadata_t *m, int32_t nreq)
{
    bool null_name = false;
    for (int32_t i = 0; i < nreq; i++) {
        const kc_metadata_request_topic_t *rt = &m->rq->topics.items[i];
        if (m->v < 12 && (kc_str_is_null(rt->name) || !uuid_is_zero(rt->topic_id)))
            return KC_ERR_INVALID_REQUEST;
        if (!uuid_is_zero(rt->topic_id))
            m->by_id = true;
        if (kc_str_is_null(rt->name))
            null_name = true;
    }
    return null_name && !m->by_id ? KC_ERR_UNKNOWN_SERVER_ERROR : KC_ERR_NONE;
}

/* The cluster part of the answer: this broker (advertised for the
 * connection's listener) as the only broker and the controller, the cluster
 * id, and (v8-10, when asked) the cluster's authorized operations. */
static void metadata_cluster(metadata_t *m, kc_metadata_response_t *resp)
{
    kc_req_t *req = m->req;
    kc_server_t *s = req->srv;
    kc_metadata_response_broker_t *br = kc_arena_alloc(req->arena, sizeof(*br));
    br->node_id = s->cfg->node_id;
    kc_server_advertised(s, req->ctx.conn_id, &br->host, &br->port);
    br->rack = KC_STR_NULL;
    resp->brokers.items = br;
    resp->brokers.count = 1;
    resp->cluster_id = kc_str(s->cfg->cluster_id);
    resp->controller_id = s->cfg->node_id;
    if (m->v >= 8 && m->v <= 10 && m->rq->include_cluster_authorized_operations)
        resp->cluster_authorized_operations =
            kc_req_authorized_cluster(req, KC_OP_DESCRIBE)
                ? kc_req_authorized_ops(req, KC_RES_CLUSTER, kc_str(KC_CLUSTER_RESOURCE_NAME),
                                        CLUSTER_ALL_OPERATIONS)
                : 0;
    resp->error_code = KC_ERR_NONE;
}

/* Every topic, for a request of all topics: those the client may not
 * describe are left out (KafkaApis). */
static void metadata_all_topics(metadata_t *m)
{
    kc_server_t *s = m->req->srv;
    for (size_t i = 0; i < kc_topics_count(s->topics); i++) {
        const kc_topic_t *t = kc_topics_at(s->topics, i);
        if (kc_req_authorized(m->req, KC_OP_DESCRIBE, KC_RES_TOPIC, kc_str(t->name)))
            fill_topic(m->req, &m->out[m->n++], t, m->include_ops);
    }
}

/* The requested topics as a set of names, in request order (by id: the
 * names of the known ids; an unknown id is answered UNKNOWN_TOPIC_ID at
 * once), each with the topic it names. */
static void metadata_topic_set(metadata_t *m, int32_t nreq)
{
    kc_server_t *s = m->req->srv;
    size_t cnt = (size_t)nreq;
    m->names = kc_arena_alloc(m->req->arena, (cnt ? cnt : 1) * sizeof(*m->names));
    m->found = kc_arena_alloc(m->req->arena, (cnt ? cnt : 1) * sizeof(*m->found));
    for (int32_t i = 0; i < nreq; i++) {
        const kc_metadata_request_topic_t *rt = &m->rq->topics.items[i];
        kc_str_t name = rt->name;
        const kc_topic_t *t = NULL;
        if (m->by_id) {
            if (uuid_is_zero(rt->topic_id))
                continue;
            bool dup = false;
            for (int32_t j = 0; j < i && !dup; j++)
                dup = memcmp(&m->rq->topics.items[j].topic_id, &rt->topic_id,
                             sizeof(kc_uuid_t)) == 0;
            if (dup)
                continue;
            t = kc_topics_find_id(s->topics, rt->topic_id);
            if (!t) {
                fill_topic_error(&m->out[m->n++], KC_ERR_UNKNOWN_TOPIC_ID, KC_STR_NULL,
                                 rt->topic_id);
                continue;
            }
            name = kc_str(t->name);
        } else {
            t = kc_topics_find(s->topics, name);
        }
        bool dup = false;
        for (size_t j = 0; j < m->nn && !dup; j++)
            dup = kc_str_eq(m->names[j], name);
        if (dup)
            continue;
        m->found[m->nn] = t;
        m->names[m->nn++] = name;
    }
}

/* Beyond four names Kafka's Scala set of them iterates in hash trie order
 * (Set1 to Set4 keep insertion order): reorders names and found. */
static void metadata_trie_order(metadata_t *m)
{
    size_t nn = m->nn;
    if (nn <= 4)
        return;
    kc_arena_t *a = m->req->arena;
    int32_t *hs = kc_arena_alloc(a, nn * sizeof(*hs));
    size_t *ord = kc_arena_alloc(a, nn * sizeof(*ord));
    for (size_t i = 0; i < nn; i++) {
        hs[i] = kc_java_str_hash(m->names[i]);
        ord[i] = i;
    }
    kc_scala_hash_order(hs, ord, nn);
    kc_str_t *n2 = kc_arena_alloc(a, nn * sizeof(*n2));
    const kc_topic_t **f2 = kc_arena_alloc(a, nn * sizeof(*f2));
    for (size_t i = 0; i < nn; i++) {
        n2[i] = m->names[ord[i]];
        f2[i] = m->found[ord[i]];
    }
    memcpy(m->names, n2, nn * sizeof(*m->names));
    memcpy(m->found, f2, nn * sizeof(*m->found));
}

/* KafkaApis' authorization of the named topics: DESCRIBE on each, then, for
 * an unknown topic to auto-create, CREATE on the cluster or the topic. */
static void metadata_authorize(metadata_t *m)
{
    kc_req_t *req = m->req;
    size_t nn = m->nn;
    m->no_describe = kc_arena_alloc(req->arena, (nn ? nn : 1) * sizeof(bool));
    m->no_create = kc_arena_alloc(req->arena, (nn ? nn : 1) * sizeof(bool));
    int cluster_create = -1; /* not asked yet */
    for (size_t i = 0; i < nn; i++) {
        m->no_describe[i] = !kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TOPIC, m->names[i]);
        m->no_create[i] = false;
        if (!m->no_describe[i] && !m->found[i] && m->allow_create) {
            if (cluster_create == -1)
                cluster_create = kc_req_authorized_cluster(req, KC_OP_CREATE);
            m->no_create[i] = !cluster_create &&
                              !kc_req_authorized(req, KC_OP_CREATE, KC_RES_TOPIC, m->names[i]);
        }
    }
}

/*
 * One requested topic that does not exist, answered UNKNOWN_TOPIC_OR_PARTITION
 * (an invalid name INVALID_TOPIC_EXCEPTION). With create it is also sent for
 * auto-creation (AutoTopicCreationManager.createTopics), which Kafka's
 * controller refuses as CreateTopics would: a name colliding with an
 * existing topic, the offsets topic.
 */
static void metadata_unknown_topic(metadata_t *m, kc_str_t name, bool create)
{
    kc_server_t *s = m->req->srv;
    bool invalid = kc_topic_name_invalid(name) != NULL;
    kc_metadata_response_topic_response_t *t = &m->out[m->n++];
    fill_topic_error(t,
                     invalid ? KC_ERR_INVALID_TOPIC_EXCEPTION : KC_ERR_UNKNOWN_TOPIC_OR_PARTITION,
                     name, zero_uuid);
    t->is_internal = internal_topic_name(name);
    if (m->include_ops)
        t->topic_authorized_operations =
            kc_req_authorized_ops(m->req, KC_RES_TOPIC, name, TOPIC_ALL_OPERATIONS);
    if (create && !kc_topics_find_collision(s->topics, name) &&
        !kc_str_eq_cstr(name, "__consumer_offsets")) {
        if (kc_topic_create(s, name, s->cfg->num_partitions, 0, NULL, NULL, NULL) == 0)
            kc_log_info("server", "auto-created topic %.*s with %d partitions", (int)name.len,
                        name.ptr, s->cfg->num_partitions);
    }
}

/* The topics that do not exist, in the order of a java.util.HashSet of the
 * requested names. With auto-creation (DefaultAutoTopicCreationManager) the
 * invalid names come first, then the topics sent for creation in the order
 * of a java.util.HashMap of them; every one is still unknown. */
static void metadata_unknown_topics(metadata_t *m)
{
    kc_arena_t *a = m->req->arena;
    size_t nn = m->nn;
    size_t *missing = kc_arena_alloc(a, (nn ? nn : 1) * sizeof(*missing));
    size_t nmissing = 0;
    for (size_t i = 0; i < nn; i++)
        if (!m->found[i] && !m->no_describe[i] && !m->no_create[i])
            missing[nmissing++] = i;
    java_hash_set_order(m->names, nn, missing, nmissing);
    size_t *creatable = kc_arena_alloc(a, (nmissing ? nmissing : 1) * sizeof(size_t));
    size_t ncreatable = 0;
    for (size_t k = 0; k < nmissing; k++) {
        kc_str_t name = m->names[missing[k]];
        if (m->allow_create && !kc_topic_name_invalid(name))
            creatable[ncreatable++] = missing[k];
        else
            metadata_unknown_topic(m, name, false);
    }
    sort_by_java_bucket(m->names, kc_java_hash_cap(ncreatable), creatable, ncreatable);
    for (size_t k = 0; k < ncreatable; k++)
        metadata_unknown_topic(m, m->names[creatable[k]], true);
}

/*
 * The named topics, answered as KafkaApis orders them: unknown ids, known
 * topics, topics that do not exist, topics the client may not create,
 * topics it may not describe.
 */
static void metadata_requested_topics(metadata_t *m, int32_t nreq)
{
    metadata_topic_set(m, nreq);
    metadata_trie_order(m);
    metadata_authorize(m);
    for (size_t i = 0; i < m->nn; i++)
        if (m->found[i] && !m->no_describe[i])
            fill_topic(m->req, &m->out[m->n++], m->found[i], m->include_ops);
    metadata_unknown_topics(m);
    for (size_t i = 0; i < m->nn; i++) {
        if (m->no_create[i]) {
            fill_topic_error(&m->out[m->n++], KC_ERR_TOPIC_AUTHORIZATION_FAILED, m->names[i],
                             zero_uuid);
            m->out[m->n - 1].is_internal = internal_topic_name(m->names[i]);
        }
    }
    /* Without DESCRIBE the client does not learn whether a named topic
     * exists; a topic id is not secret, so it is answered with its id. */
    for (size_t i = 0; i < m->nn; i++)
        if (m->no_describe[i])
            fill_topic_error(&m->out[m->n++], KC_ERR_TOPIC_AUTHORIZATION_FAILED,
                             m->by_id ? KC_STR_NULL : m->names[i],
                             m->by_id ? m->found[i]->id : zero_uuid);
}

/* Metadata as KafkaApis.handleTopicMetadataRequest answers it on a single
 * broker that leads every partition: every topic, or the requested ones
 * (auto-creating unknown ones when allowed). */
int kc_handle_metadata(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_metadata_request_t rq;
    kc_metadata_request_init(&rq);
    kc_reader_t start = *req->body;
    if (kc_metadata_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    /* v0: an empty list means every topic; v1+: null means every topic. */
    bool all = v == 0 ? rq.topics.count <= 0 : rq.topics.count < 0;
    metadata_t m = {.req = req, .v = v, .rq = &rq};
    m.include_ops = v >= 8 && rq.include_topic_authorized_operations;
    m.allow_create = s->cfg->auto_create_topics_enable && (v < 4 || rq.allow_auto_topic_creation) &&
                     !all;
    int32_t nreq = all ? 0 : rq.topics.count;
    int16_t err = metadata_check_topics(&m, nreq);
    if (err)
        return kc_req_respond_error(req, &start, err); /* MetadataRequest.getErrorResponse */

    kc_metadata_response_t resp;
    kc_metadata_response_init(&resp);
    resp.throttle_time_ms = 0;
    metadata_cluster(&m, &resp);
    size_t cap = all ? kc_topics_count(s->topics) : (size_t)nreq;
    m.out = kc_arena_alloc(req->arena, (cap ? cap : 1) * sizeof(*m.out));
    if (all)
        metadata_all_topics(&m);
    else
        metadata_requested_topics(&m, nreq);
    resp.topics.items = m.out;
    resp.topics.count = (int32_t)m.n;
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_metadata_response_encode(&b, v, &resp), &b);
}

/* ---- DescribeCluster ---- */

/* DescribeClusterRequest's EndpointType (KIP-919). */
enum { ENDPOINT_BROKER = 1, ENDPOINT_CONTROLLER = 2 };

/*
 * DescribeCluster as a Kafka broker listener answers it
 * (KafkaApis.handleDescribeCluster, AuthHelper.computeDescribeClusterResponse):
 * an EndpointType other than BROKERS fails the request (CONTROLLER:
 * MISMATCHED_ENDPOINT_TYPE, another: UNSUPPORTED_ENDPOINT_TYPE; v0 cannot
 * ask for another type). Otherwise the cluster id, this broker as the only
 * one (the advertised address of the listener the request came in on; never
 * fenced, so IncludeFencedBrokers changes nothing) and as the controller id
 * (a broker answers a random alive broker), and, when asked, the cluster's
 * authorized operations: those of the principal with DESCRIBE on the
 * cluster, else 0. DescribeCluster itself needs no permission.
 */
int kc_handle_describe_cluster(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_describe_cluster_request_t rq;
    kc_describe_cluster_request_init(&rq);
    if (kc_describe_cluster_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_describe_cluster_response_t resp;
    kc_describe_cluster_response_init(&resp);
    resp.throttle_time_ms = 0;
    resp.cluster_id = kc_str("");
    char msg[128];
    if (rq.endpoint_type != ENDPOINT_BROKER && rq.endpoint_type != ENDPOINT_CONTROLLER) {
        resp.error_code = v == 0 ? KC_ERR_INVALID_REQUEST : KC_ERR_UNSUPPORTED_ENDPOINT_TYPE;
        snprintf(msg, sizeof(msg), "Unsupported endpoint type %d", (int)rq.endpoint_type);
        resp.error_message = arena_str(req->arena, msg);
    } else if (rq.endpoint_type == ENDPOINT_CONTROLLER) {
        resp.error_code = v == 0 ? KC_ERR_INVALID_REQUEST : KC_ERR_MISMATCHED_ENDPOINT_TYPE;
        resp.error_message = kc_str("The request was sent to an endpoint of type BROKER, but we "
                                    "wanted an endpoint of type CONTROLLER");
    } else {
        if (rq.include_cluster_authorized_operations)
            resp.cluster_authorized_operations =
                kc_req_authorized_cluster(req, KC_OP_DESCRIBE)
                    ? kc_req_authorized_ops(req, KC_RES_CLUSTER, kc_str(KC_CLUSTER_RESOURCE_NAME),
                                            CLUSTER_ALL_OPERATIONS)
                    : 0;
        kc_describe_cluster_response_broker_t *br = kc_arena_alloc(req->arena, sizeof(*br));
        memset(br, 0, sizeof(*br));
        br->broker_id = s->cfg->node_id;
        kc_server_advertised(s, req->ctx.conn_id, &br->host, &br->port);
        br->rack = KC_STR_NULL;
        br->is_fenced = false;
        resp.brokers.items = br;
        resp.brokers.count = 1;
        resp.cluster_id = kc_str(s->cfg->cluster_id);
        resp.controller_id = s->cfg->node_id;
        resp.endpoint_type = ENDPOINT_BROKER;
    }
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_describe_cluster_response_encode(&b, v, &resp), &b);
}

/* ---- FindCoordinator ---- */

/* Kafka's SharePartitionKey format: "groupId:topicId:partition". */
static bool share_key_valid(kc_str_t key)
{
    int colons = 0;
    int32_t last = -1, prev = -1;
    for (int32_t i = 0; i < key.len; i++) {
        if (key.ptr[i] == ':') {
            colons++;
            prev = last;
            last = i;
        }
    }
    if (colons < 2 || prev <= 0 || last - prev - 1 != 22 || last == key.len - 1)
        return false;
    for (int32_t i = last + 1; i < key.len; i++)
        if (key.ptr[i] < '0' || key.ptr[i] > '9')
            return false;
    return true;
}

/* This node coordinates every group, transaction and share key; 0 or a Kafka
 * error. DESCRIBE on the group or transactional id first (KafkaApis.getCoordinator). */
static int16_t coordinator_for(const kc_req_t *req, int16_t version, int8_t key_type, kc_str_t key)
{
    switch (key_type) {
    case 0:
        return kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_GROUP, key)
                   ? KC_ERR_NONE
                   : KC_ERR_GROUP_AUTHORIZATION_FAILED;
    case 1:
        return kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TRANSACTIONAL_ID, key)
                   ? KC_ERR_NONE
                   : KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    case 2:
        if (version < 6 || !share_key_valid(key))
            return KC_ERR_INVALID_REQUEST;
        return KC_ERR_NONE;
    default:
        return KC_ERR_INVALID_REQUEST;
    }
}

/* The key types Kafka's CoordinatorType knows. Any other fails the whole
 * request as malformed: every key then carries the error's message, where
 * an error of a known type leaves the message empty. */
static bool key_type_known(int8_t key_type)
{
    return key_type >= 0 && key_type <= 2;
}

int kc_handle_find_coordinator(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_find_coordinator_request_t rq;
    kc_find_coordinator_request_init(&rq);
    if (kc_find_coordinator_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_find_coordinator_response_t resp;
    kc_find_coordinator_response_init(&resp);
    resp.throttle_time_ms = 0;
    if (v < 4) {
        int16_t err = coordinator_for(req, v, rq.key_type, rq.key);
        resp.error_code = err;
        if (err == KC_ERR_NONE) {
            resp.error_message = kc_str("NONE");
            resp.node_id = s->cfg->node_id;
            kc_server_advertised(s, req->ctx.conn_id, &resp.host, &resp.port);
        } else {
            const char *m = kc_error_message(err);
            resp.error_message = kc_str(m ? m : "");
            resp.node_id = -1;
            resp.host = kc_str("");
            resp.port = -1;
        }
    } else {
        int32_t n = rq.coordinator_keys.count > 0 ? rq.coordinator_keys.count : 0;
        kc_find_coordinator_response_coordinator_t *cs =
            kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*cs));
        for (int32_t i = 0; i < n; i++) {
            kc_str_t key = rq.coordinator_keys.items[i];
            int16_t err = coordinator_for(req, v, rq.key_type, key);
            cs[i].key = key;
            cs[i].error_code = err;
            /* v4+ answers carry an empty message, not null, unless the key type is unknown. */
            const char *m = key_type_known(rq.key_type) ? NULL : kc_error_message(err);
            cs[i].error_message = kc_str(m ? m : "");
            cs[i].node_id = err == KC_ERR_NONE ? s->cfg->node_id : -1;
            if (err == KC_ERR_NONE) {
                kc_server_advertised(s, req->ctx.conn_id, &cs[i].host, &cs[i].port);
            } else {
                cs[i].host = kc_str("");
                cs[i].port = -1;
            }
        }
        resp.coordinators.items = cs;
        resp.coordinators.count = n;
    }
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_find_coordinator_response_encode(&b, v, &resp), &b);
}

/* ---- CreateTopics ---- */

/* ReplicationControlManager.MAX_PARTITIONS_PER_BATCH */
#define CREATE_MAX_PARTITIONS_PER_REQUEST 10000

/* Topic.validate's message for an invalid name, naming it where Kafka does. */
static kc_str_t topic_name_error(kc_arena_t *a, kc_str_t name, const char *bad)
{
    char msg[400];
    if (name.len > 249)
        snprintf(msg, sizeof(msg),
                 "Topic name is invalid: the length of '%.*s' is longer than the max allowed "
                 "length 249",
                 (int)name.len, name.ptr);
    else if (strstr(bad, "characters other than"))
        snprintf(msg, sizeof(msg),
                 "Topic name is invalid: '%.*s' contains one or more characters other than "
                 "ASCII alphanumerics, '.', '_' and '-'",
                 (int)name.len, name.ptr);
    else
        return arena_str(a, bad);
    return arena_str(a, msg);
}

/* Sorts idx (stable) by the bucket of names[idx] in a java.util.HashMap table of cap slots. */
static void sort_by_java_bucket(const kc_str_t *names, size_t cap, size_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t x = idx[i];
        size_t bx = kc_java_hash_slot(kc_java_str_hash(names[x]), cap);
        size_t j = i;
        while (j > 0) {
            if (kc_java_hash_slot(kc_java_str_hash(names[idx[j - 1]]), cap) <= bx)
                break;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

typedef kc_create_topics_response_creatable_topic_result_t create_result_t;

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void create_error(kc_arena_t *a, create_result_t *r, int16_t err, const char *msg)
{
    r->error_code = err;
    r->error_message = msg ? arena_str(a, msg) : KC_STR_NULL;
}

typedef kc_create_topics_request_creatable_replica_assignment_t replica_assignment_t;

/* The brokers of one manual assignment (ReplicationControlManager's
 * validateManualPartitionAssignment): an empty list, or a broker not
 * registered or listed twice (the first in ascending order is named), fails
 * r. True when they are valid. */
static bool check_assignment_brokers(kc_req_t *req, const replica_assignment_t *as,
                                     create_result_t *r)
{
    char msg[256];
    int32_t nb = KC_MAX(as->broker_ids.count, 0);
    if (nb == 0) {
        create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT,
                     "The manual partition assignment includes an empty replica list.");
        return false;
    }
    /* Brokers in ascending order: the first unknown or repeated one is named. */
    int32_t *ids = kc_arena_alloc(req->arena, (size_t)nb * sizeof(*ids));
    memcpy(ids, as->broker_ids.items, (size_t)nb * sizeof(*ids));
    qsort(ids, (size_t)nb, sizeof(*ids), cmp_int32);
    for (int32_t k = 0; k < nb; k++) {
        if (ids[k] != req->srv->cfg->node_id) {
            snprintf(msg, sizeof(msg),
                     "The manual partition assignment includes broker %d, but no such "
                     "broker is registered.",
                     ids[k]);
            create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT, msg);
            return false;
        }
        if (k > 0 && ids[k] == ids[k - 1]) {
            snprintf(msg, sizeof(msg),
                     "The manual partition assignment includes the broker %d more than "
                     "once.",
                     ids[k]);
            create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT, msg);
            return false;
        }
    }
    return true;
}

/*
 * ReplicationControlManager.createTopic's checks of a manual assignment:
 * replication factor and partitions left at -1, each partition assigned
 * once to valid brokers, every partition with as many replicas, partitions
 * numbered 0 to n-1. Fills *parts, *rf, or fails r.
 */
static void check_manual_assignment(kc_req_t *req,
                                    const kc_create_topics_request_creatable_topic_t *t,
                                    create_result_t *r, int32_t *parts, int16_t *rf)
{
    char msg[256];
    if (t->replication_factor != -1) {
        create_error(req->arena, r, KC_ERR_INVALID_REQUEST,
                     "A manual partition assignment was specified, but replication factor "
                     "was not set to -1.");
        return;
    }
    if (t->num_partitions != -1) {
        create_error(req->arena, r, KC_ERR_INVALID_REQUEST,
                     "A manual partition assignment was specified, but numPartitions was "
                     "not set to -1.");
        return;
    }
    int32_t na = t->assignments.count, replicas = -1;
    for (int32_t a = 0; a < na; a++) {
        const replica_assignment_t *as = &t->assignments.items[a];
        for (int32_t b = 0; b < a; b++) {
            if (t->assignments.items[b].partition_index == as->partition_index) {
                snprintf(msg, sizeof(msg),
                         "Found multiple manual partition assignments for partition %d",
                         as->partition_index);
                create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT, msg);
                return;
            }
        }
        if (!check_assignment_brokers(req, as, r))
            return;
        int32_t nb = KC_MAX(as->broker_ids.count, 0);
        if (replicas >= 0 && nb != replicas) {
            snprintf(msg, sizeof(msg),
                     "The manual partition assignment includes a partition with %d "
                     "replica(s), but this is not consistent with previous partitions, "
                     "which have %d replica(s).",
                     nb, replicas);
            create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT, msg);
            return;
        }
        replicas = nb;
    }
    for (int32_t p = 0; p < na; p++) {
        bool found = false;
        for (int32_t a = 0; a < na && !found; a++)
            found = t->assignments.items[a].partition_index == p;
        if (!found) {
            create_error(req->arena, r, KC_ERR_INVALID_REPLICA_ASSIGNMENT,
                         "partitions should be a consecutive 0-based integer sequence");
            return;
        }
    }
    *parts = na;
    *rf = (int16_t)replicas;
}

/*
 * ReplicationControlManager.createTopic's checks of partitions, replication
 * factor and a manual assignment on this single broker; fills *parts, *rf.
 */
static void check_placement(kc_req_t *req, const kc_create_topics_request_creatable_topic_t *t,
                            create_result_t *r, int32_t *parts, int16_t *rf)
{
    kc_server_t *s = req->srv;
    char msg[256];
    if (t->assignments.count > 0) {
        check_manual_assignment(req, t, r, parts, rf);
        return;
    }
    if (t->replication_factor < -1 || t->replication_factor == 0) {
        create_error(req->arena, r, KC_ERR_INVALID_REPLICATION_FACTOR,
                     "Replication factor must be larger than 0, or -1 to use the default value.");
        return;
    }
    if (t->num_partitions < -1 || t->num_partitions == 0) {
        create_error(req->arena, r, KC_ERR_INVALID_PARTITIONS,
                     "Number of partitions was set to an invalid non-positive value.");
        return;
    }
    *parts = t->num_partitions == -1 ? s->cfg->num_partitions : t->num_partitions;
    *rf = t->replication_factor == -1 ? (int16_t)s->cfg->default_replication_factor
                                      : t->replication_factor;
    if (*rf > 1) {
        snprintf(msg, sizeof(msg),
                 "Unable to replicate the partition %d time(s): The target replication factor "
                 "of %d cannot be reached because only 1 broker(s) are registered or some "
                 "brokers have all their log directories cordoned.",
                 *rf, *rf);
        create_error(req->arena, r, KC_ERR_INVALID_REPLICATION_FACTOR, msg);
    }
}

/* What ControllerApis.createTopics makes of a listed name: a topic to check
 * and create, a name listed more than once (its first listing; ROLE_LATER marks
 * the others), the metadata log's name, a name the client may not create. */
enum { ROLE_EFFECTIVE, ROLE_DUPLICATE, ROLE_METADATA_TOPIC, ROLE_UNAUTHORIZED, ROLE_LATER };

/* A CreateTopics request in ControllerApis.createTopics' and
 * ReplicationControlManager.createTopics' steps, all in req's arena. */
typedef struct {
    kc_req_t *req;
    const kc_create_topics_request_t *rq;
    int32_t n;        /* listed topics */
    kc_str_t *names;  /* the listed names */
    int32_t *count;   /* at a name's first listing: how often it is listed */
    size_t once_max;  /* the largest size Kafka's set of names listed once reaches */
    uint8_t *role;    /* per listing: ROLE_EFFECTIVE ... ROLE_LATER */
    bool too_many;    /* the effective topics have more than CREATE_MAX_PARTITIONS_PER_REQUEST */
    create_result_t *out;
    int32_t nout;
    int32_t *slot;     /* per listing: its result in out (-1: none yet) */
    int32_t *parts_of; /* per listing: the partitions check_placement settled */
    int16_t *rf_of;    /* per listing: the replication factor it settled */
} create_topics_t;

/* The index of the first listing of names[i]. */
static int32_t first_listing(const kc_str_t *names, int32_t i)
{
    for (int32_t j = 0; j < i; j++)
        if (kc_str_eq(names[j], names[i]))
            return j;
    return i;
}

/* Kafka's CreateTopicsRequest.getErrorResponse when the controller got a
 * deadline already passed (timeout_ms <= 0): nothing is created, every
 * listed topic timed out. */
static int create_topics_timed_out(kc_req_t *req, int16_t v, const kc_create_topics_request_t *rq,
                                   kc_create_topics_response_t *resp)
{
    int32_t n = rq->topics.count > 0 ? rq->topics.count : 0;
    create_result_t *out = kc_arena_alloc(req->arena, (size_t)(n ? n : 1) * sizeof(*out));
    for (int32_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        out[i].name = rq->topics.items[i].name;
        out[i].error_code = KC_ERR_REQUEST_TIMED_OUT;
        out[i].error_message = KC_STR_NULL;
        out[i].num_partitions = -1;
        out[i].replication_factor = -1;
    }
    resp->topics.items = out;
    resp->topics.count = n;
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_create_topics_response_encode(&b, v, resp), &b);
}

/* How often each name is listed, and the largest size Kafka's set of names
 * listed once reaches (it sizes that set's table). */
static void create_topics_count_names(create_topics_t *c)
{
    size_t once = 0;
    for (int32_t i = 0; i < c->n; i++) {
        c->count[i] = 0;
        int32_t first = first_listing(c->names, i);
        c->count[first]++;
        if (c->count[first] == 1)
            once++;
        else if (c->count[first] == 2)
            once--;
        c->once_max = KC_MAX(c->once_max, once);
    }
}

/* ControllerApis.createTopics' split of the listed names: duplicates, the
 * metadata log's name, then CREATE on the cluster or the topic; and the
 * partitions the effective topics add up to (ReplicationControlManager's
 * limit per request). */
static void create_topics_classify(create_topics_t *c)
{
    kc_req_t *req = c->req;
    bool cluster_create = kc_req_authorized_cluster(req, KC_OP_CREATE);
    int64_t total_parts = 0;
    for (int32_t i = 0; i < c->n; i++) {
        kc_str_t name = c->names[i];
        if (first_listing(c->names, i) != i)
            c->role[i] = ROLE_LATER;
        else if (c->count[i] > 1)
            c->role[i] = ROLE_DUPLICATE;
        else if (kc_str_eq_cstr(name, "__cluster_metadata"))
            c->role[i] = ROLE_METADATA_TOPIC;
        else if (!cluster_create && !kc_req_authorized(req, KC_OP_CREATE, KC_RES_TOPIC, name))
            c->role[i] = ROLE_UNAUTHORIZED; /* CREATE on the cluster or the topic */
        else
            c->role[i] = ROLE_EFFECTIVE;
        if (c->role[i] != ROLE_EFFECTIVE)
            continue;
        const kc_create_topics_request_creatable_topic_t *t = &c->rq->topics.items[i];
        if (t->assignments.count > 0)
            total_parts += t->assignments.count;
        else if (t->num_partitions == -1)
            total_parts += req->srv->cfg->num_partitions;
        else if (t->num_partitions > 0)
            total_parts += t->num_partitions;
        if (total_parts > CREATE_MAX_PARTITIONS_PER_REQUEST)
            c->too_many = true;
    }
}

/* ReplicationControlManager.createTopic's first checks: the request's
 * partition total, an existing topic (Kafka's offsets topic always exists),
 * the name, a collision with an existing topic. True when r was failed. */
static bool create_topic_check_name(create_topics_t *c,
                                    const kc_create_topics_request_creatable_topic_t *t,
                                    create_result_t *r)
{
    kc_server_t *s = c->req->srv;
    kc_arena_t *a = c->req->arena;
    char msg[512];
    const char *bad = kc_topic_name_invalid(t->name);
    const kc_topic_t *collides = bad ? NULL : kc_topics_find_collision(s->topics, t->name);
    if (c->too_many) {
        create_error(a, r, KC_ERR_POLICY_VIOLATION,
                     "Excessively large number of partitions per request.");
    } else if (kc_topics_find(s->topics, t->name) ||
               kc_str_eq_cstr(t->name, "__consumer_offsets")) {
        /* kcoord's offsets live in LMDB; Kafka's offsets topic always exists. */
        snprintf(msg, sizeof(msg), "Topic '%.*s' already exists.", (int)t->name.len,
                 t->name.ptr);
        create_error(a, r, KC_ERR_TOPIC_ALREADY_EXISTS, msg);
    } else if (bad) {
        r->error_code = KC_ERR_INVALID_TOPIC_EXCEPTION;
        r->error_message = topic_name_error(a, t->name, bad);
    } else if (collides) {
        snprintf(msg, sizeof(msg), "Topic '%.*s' collides with existing topic: %s",
                 (int)t->name.len, t->name.ptr, collides->name);
        create_error(a, r, KC_ERR_INVALID_TOPIC_EXCEPTION, msg);
    }
    return r->error_code != 0;
}

/* The topic's configs as name and value arrays (arena); returns their count. */
static size_t topic_config_pairs(kc_arena_t *a, const kc_create_topics_request_creatable_topic_t *t,
                                 kc_str_t **names, kc_str_t **values)
{
    size_t nc = (size_t)KC_MAX(t->configs.count, 0);
    kc_str_t *cn = kc_arena_alloc(a, (nc ? nc : 1) * sizeof(kc_str_t));
    kc_str_t *cv = kc_arena_alloc(a, (nc ? nc : 1) * sizeof(kc_str_t));
    for (size_t c = 0; c < nc; c++) {
        cn[c] = t->configs.items[c].name;
        cv[c] = t->configs.items[c].value;
    }
    *names = cn;
    *values = cv;
    return nc;
}

/* ConfigurationControlManager's checks of the topic's configs: null values
 * first, all of them named (computeConfigChanges), then each name and value
 * (LogConfig.validate). True when r was failed. */
static bool create_topic_check_configs(create_topics_t *c,
                                       const kc_create_topics_request_creatable_topic_t *t,
                                       create_result_t *r)
{
    kc_arena_t *a = c->req->arena;
    char msg[512];
    size_t nc = (size_t)KC_MAX(t->configs.count, 0);
    size_t used = 0;
    for (size_t k = 0; k < nc; k++) {
        kc_str_t nm = t->configs.items[k].name;
        if (!kc_str_is_null(t->configs.items[k].value))
            continue;
        if (used == 0)
            used = (size_t)snprintf(msg, sizeof(msg),
                                    "Null value not supported for topic configs: ");
        else if (used < sizeof(msg))
            used += (size_t)snprintf(msg + used, sizeof(msg) - used, ",");
        if (used < sizeof(msg))
            used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%.*s",
                                     (int)KC_MAX(nm.len, 0), nm.ptr ? nm.ptr : "");
    }
    if (used) {
        create_error(a, r, KC_ERR_INVALID_CONFIG, msg);
        return true;
    }
    kc_str_t *cn, *cv;
    nc = topic_config_pairs(a, t, &cn, &cv);
    r->error_code = kc_topic_configs_check(nc, cn, cv, msg, sizeof(msg));
    if (r->error_code) {
        r->error_message = arena_str(a, msg);
        return true;
    }
    return false;
}

int kc_topic_create(kc_server_t *s, kc_str_t name, int32_t partitions, size_t n,
                    const kc_str_t *names, const kc_str_t *values, const kc_topic_t **out)
{
    const kc_topic_t *created = NULL;
    int rc = kc_topics_create(s->topics, name, partitions, &created);
    if (rc == 0 && !created)
        rc = KC_EIO;
    if (rc == 0 && n)
        rc = kc_topics_set_configs(s->topics, name, n, names, values);
    if (rc != 0)
        return rc;
    /* The coordinator's topic view moves on, as Kafka's metadata image does. */
    kc_coord_topic_created(s->coord, name);
    if (out)
        *out = created;
    return 0;
}

/* Checks every effective topic, against the topics that existed before the
 * request, before any is created: a result each, in request order. */
static void create_topics_validate(create_topics_t *c)
{
    for (int32_t i = 0; i < c->n; i++) {
        c->slot[i] = -1;
        if (c->role[i] != ROLE_EFFECTIVE)
            continue;
        const kc_create_topics_request_creatable_topic_t *t = &c->rq->topics.items[i];
        create_result_t *r = &c->out[c->nout];
        c->slot[i] = c->nout++;
        memset(r, 0, sizeof(*r));
        r->name = t->name;
        r->error_message = KC_STR_NULL;
        r->num_partitions = -1;
        r->replication_factor = -1;
        r->configs.count = 0; /* the generated default: an empty list, not null */
        if (create_topic_check_name(c, t, r) || create_topic_check_configs(c, t, r))
            continue;
        check_placement(c->req, t, r, &c->parts_of[i], &c->rf_of[i]);
    }
}

/* ReplicationControlManager's creation of one checked topic (validate only:
 * an id drawn for it, as Kafka draws one), then its result's partitions,
 * replication factor and configs, shown only with DESCRIBE_CONFIGS on the
 * topic (ReplicationControlManager.createTopics). */
static void create_topic_apply(create_topics_t *c, int32_t i)
{
    kc_req_t *req = c->req;
    kc_server_t *s = req->srv;
    const kc_create_topics_request_creatable_topic_t *t = &c->rq->topics.items[i];
    create_result_t *r = &c->out[c->slot[i]];
    kc_str_t *cn, *cv;
    size_t nc = topic_config_pairs(req->arena, t, &cn, &cv);
    int32_t parts = c->parts_of[i];
    if (c->rq->validate_only) {
        /* Kafka draws an id for a topic it only validates too. */
        if (kc_topic_id_random(&r->topic_id) != 0) {
            r->error_code = KC_ERR_UNKNOWN_SERVER_ERROR;
            return;
        }
    } else {
        const kc_topic_t *created = NULL;
        if (kc_topic_create(s, t->name, parts, nc, cn, cv, &created) != 0) {
            r->error_code = KC_ERR_UNKNOWN_SERVER_ERROR;
            return;
        }
        r->topic_id = created->id;
        kc_log_info("server", "created topic %s with %d partitions", created->name, parts);
    }
    r->num_partitions = parts;
    r->replication_factor = c->rf_of[i];
    if (kc_req_authorized(req, KC_OP_DESCRIBE_CONFIGS, KC_RES_TOPIC, t->name)) {
        kc_topic_creation_configs(s, req->arena, nc, cn, cv, r);
    } else {
        r->configs.count = 0;
        r->topic_config_error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
    }
}

/* Appends the result of a name that left the request, with its error. */
static void create_topics_refused(create_topics_t *c, kc_str_t name, int16_t err, const char *msg)
{
    create_result_t *r = &c->out[c->nout++];
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->num_partitions = -1;
    r->replication_factor = -1;
    create_error(c->req->arena, r, err, msg);
}

/* The names that left the request, after the others: the duplicated names
 * in the order of a java.util.HashSet of them, then the refused ones in the
 * order of Kafka's set of names listed once. */
static void create_topics_answer_refused(create_topics_t *c)
{
    size_t *idx = kc_arena_alloc(c->req->arena, (size_t)(c->n ? c->n : 1) * sizeof(*idx));
    size_t nd = 0;
    for (int32_t i = 0; i < c->n; i++)
        if (c->role[i] == ROLE_DUPLICATE)
            idx[nd++] = (size_t)i;
    sort_by_java_bucket(c->names, kc_java_hash_cap(nd), idx, nd);
    for (size_t k = 0; k < nd; k++)
        create_topics_refused(c, c->names[idx[k]], KC_ERR_INVALID_REQUEST,
                              "Duplicate topic name.");
    size_t nr = 0;
    for (int32_t i = 0; i < c->n; i++)
        if (c->role[i] == ROLE_METADATA_TOPIC || c->role[i] == ROLE_UNAUTHORIZED)
            idx[nr++] = (size_t)i;
    sort_by_java_bucket(c->names, kc_java_hash_cap(c->once_max), idx, nr);
    for (size_t k = 0; k < nr; k++) {
        if (c->role[idx[k]] == ROLE_METADATA_TOPIC)
            create_topics_refused(c, c->names[idx[k]], KC_ERR_INVALID_REQUEST,
                                  "Creation of internal topic __cluster_metadata is prohibited.");
        else
            create_topics_refused(c, c->names[idx[k]], KC_ERR_TOPIC_AUTHORIZATION_FAILED,
                                  "Authorization failed.");
    }
}

void kc_create_topics_run(kc_req_t *req, const kc_create_topics_request_t *rq,
                          kc_create_topics_response_creatable_topic_result_t **out,
                          int32_t *nout)
{
    create_topics_t c = {.req = req, .rq = rq, .n = rq->topics.count > 0 ? rq->topics.count : 0};
    size_t cap = (size_t)(c.n ? c.n : 1);
    c.out = kc_arena_alloc(req->arena, cap * sizeof(*c.out));
    c.names = kc_arena_alloc(req->arena, cap * sizeof(*c.names));
    for (int32_t i = 0; i < c.n; i++)
        c.names[i] = rq->topics.items[i].name;
    c.count = kc_arena_alloc(req->arena, cap * sizeof(*c.count));
    c.role = kc_arena_alloc(req->arena, cap);
    c.parts_of = kc_arena_alloc(req->arena, cap * sizeof(*c.parts_of));
    c.rf_of = kc_arena_alloc(req->arena, cap * sizeof(*c.rf_of));
    c.slot = kc_arena_alloc(req->arena, cap * sizeof(*c.slot));
    create_topics_count_names(&c);
    create_topics_classify(&c);
    create_topics_validate(&c);
    /* Create what passed. */
    for (int32_t i = 0; i < c.n; i++)
        if (c.slot[i] >= 0 && !c.out[c.slot[i]].error_code)
            create_topic_apply(&c, i);
    create_topics_answer_refused(&c);
    *out = c.out;
    *nout = c.nout;
}

/* CreateTopics: kc_create_topics_run, or every topic REQUEST_TIMED_OUT when
 * the request's timeout is not positive. */
int kc_handle_create_topics(kc_req_t *req)
{
    int16_t v = req->ctx.api_version;
    kc_create_topics_request_t rq;
    kc_create_topics_request_init(&rq);
    if (kc_create_topics_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    kc_create_topics_response_t resp;
    kc_create_topics_response_init(&resp);
    resp.throttle_time_ms = 0;
    if (rq.timeout_ms <= 0)
        return create_topics_timed_out(req, v, &rq, &resp);
    kc_create_topics_run(req, &rq, &resp.topics.items, &resp.topics.count);
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_create_topics_response_encode(&b, v, &resp), &b);
}

