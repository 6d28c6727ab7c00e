/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group APIs: decode the request at its version and hand it to the
 * coordinator, whose result (records and responses) joins the iteration's
 * batch and goes through the commit step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"
#include "server_int.h"

/*
 * Decode, check op on the request's group as KafkaApis does before it calls
 * the group coordinator (GROUP_AUTHORIZATION_FAILED for the whole request),
 * then hand it to the coordinator. op 0 = no group check here.
 */
#define GROUP_HANDLER(fn, msg, coord_fn, op, group_expr)                                           \
    int fn(kc_req_t *req)                                                                          \
    {                                                                                              \
        kc_##msg##_t rq;                                                                           \
        kc_##msg##_init(&rq);                                                                      \
        kc_reader_t start = *req->body;                                                            \
        if (kc_##msg##_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)              \
            return KC_EINVAL;                                                                      \
        if ((op) != 0 && !kc_req_authorized(req, (op), KC_RES_GROUP, (group_expr)))                \
            return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);           \
        coord_fn(req->srv->coord, &req->ctx, &rq, req->res);                                       \
        return 0;                                                                                  \
    }

/* The handler calls the coordinator with the request's original body too
 * (the topology-description store may hold the answer, topology_api.c). */
#define GROUP_HANDLER_HELD(fn, msg, held_fn, op, group_expr)                                       \
    int fn(kc_req_t *req)                                                                          \
    {                                                                                              \
        kc_##msg##_t rq;                                                                           \
        kc_##msg##_init(&rq);                                                                      \
        kc_reader_t start = *req->body;                                                            \
        if (kc_##msg##_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)              \
            return KC_EINVAL;                                                                      \
        if ((op) != 0 && !kc_req_authorized(req, (op), KC_RES_GROUP, (group_expr)))                \
            return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);           \
        return held_fn(req, &start, &rq);                                                          \
    }

GROUP_HANDLER_HELD(kc_handle_join_group, join_group_request, kc_topology_desc_join_group, KC_OP_READ,
                   rq.group_id)
GROUP_HANDLER(kc_handle_sync_group, sync_group_request, kc_coord_sync_group, KC_OP_READ,
              rq.group_id)
GROUP_HANDLER(kc_handle_heartbeat, heartbeat_request, kc_coord_heartbeat, KC_OP_READ, rq.group_id)
GROUP_HANDLER(kc_handle_leave_group, leave_group_request, kc_coord_leave_group, KC_OP_READ,
              rq.group_id)
/* Topics: READ each, in the coordinator. */
GROUP_HANDLER(kc_handle_offset_commit, offset_commit_request, kc_coord_offset_commit, KC_OP_READ,
              rq.group_id)
/* Topics: READ each, in the coordinator. */
GROUP_HANDLER(kc_handle_offset_delete, offset_delete_request, kc_coord_offset_delete,
              KC_OP_DELETE, rq.group_id)
/* DESCRIBE on each group and its topics, in the coordinator (batched from v8). */
GROUP_HANDLER(kc_handle_offset_fetch, offset_fetch_request, kc_coord_offset_fetch, 0, rq.group_id)
/* DESCRIBE on each group, in the coordinator. */
GROUP_HANDLER(kc_handle_describe_groups, describe_groups_request, kc_coord_describe_groups, 0,
              KC_STR_NULL)
/* Filtered by DESCRIBE, in the coordinator. */
GROUP_HANDLER(kc_handle_list_groups, list_groups_request, kc_coord_list_groups, 0, KC_STR_NULL)
/* DELETE on each group, in the coordinator. */
GROUP_HANDLER_HELD(kc_handle_delete_groups, delete_groups_request, kc_topology_desc_delete_groups, 0,
                   KC_STR_NULL)
/* DESCRIBE on each group, in the coordinator. */
GROUP_HANDLER(kc_handle_consumer_group_describe, consumer_group_describe_request,
              kc_coord_consumer_group_describe, 0, KC_STR_NULL)
/* DESCRIBE on each group, in the coordinator; descriptions fetched first. */
GROUP_HANDLER_HELD(kc_handle_streams_group_describe, streams_group_describe_request,
                   kc_topology_desc_streams_group_describe, 0, KC_STR_NULL)

/* READ on the group, then DESCRIBE on every subscribed topic name
 * (KafkaApis.handleConsumerGroupHeartbeat). */
int kc_handle_consumer_group_heartbeat(kc_req_t *req)
{
    kc_consumer_group_heartbeat_request_t rq;
    kc_consumer_group_heartbeat_request_init(&rq);
    kc_reader_t start = *req->body;
    if (kc_consumer_group_heartbeat_request_decode(req->body, req->ctx.api_version, req->arena,
                                                   &rq) != 0)
        return KC_EINVAL;
    if (!kc_req_authorized(req, KC_OP_READ, KC_RES_GROUP, rq.group_id))
        return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    for (int32_t i = 0; i < rq.subscribed_topic_names.count; i++) {
        if (!kc_req_authorized(req, KC_OP_DESCRIBE, KC_RES_TOPIC,
                               rq.subscribed_topic_names.items[i])) {
            kc_consumer_group_heartbeat_response_t resp;
            kc_consumer_group_heartbeat_response_init(&resp);
            resp.error_code = KC_ERR_TOPIC_AUTHORIZATION_FAILED;
            kc_buf_t b;
            kc_buf_init(&b);
            return kc_req_respond_encoded(
                req, kc_consumer_group_heartbeat_response_encode(&b, req->ctx.api_version, &resp),
                &b);
        }
    }
    kc_coord_consumer_group_heartbeat(req->srv->coord, &req->ctx, &rq, req->res);
    return 0;
}

/* A failed creation of an internal topic, remembered until expires_ms. */
struct kc_topic_creation_error {
    struct kc_topic_creation_error *next;
    char *topic;
    char *message;
    int64_t expires_ms;
};

static void creation_error_free(struct kc_topic_creation_error *e)
{
    free(e->topic);
    free(e->message);
    free(e);
}

/* Forgets the expired errors; returns the slot of topic's, or where it goes. */
static struct kc_topic_creation_error **creation_error_slot(kc_server_t *s, kc_str_t topic,
                                                            int64_t now_ms)
{
    struct kc_topic_creation_error **p = &s->topic_creation_errors;
    while (*p) {
        if ((*p)->expires_ms <= now_ms) {
            struct kc_topic_creation_error *gone = *p;
            *p = gone->next;
            creation_error_free(gone);
        } else if (kc_str_eq_cstr(topic, (*p)->topic)) {
            return p;
        } else {
            p = &(*p)->next;
        }
    }
    return p;
}

const char *kc_topic_creation_error(void *ctx, kc_str_t topic, int64_t now_ms)
{
    struct kc_topic_creation_error **p = creation_error_slot(ctx, topic, now_ms);
    return *p ? (*p)->message : NULL;
}

void kc_topic_creation_errors_free(kc_server_t *s)
{
    while (s->topic_creation_errors) {
        struct kc_topic_creation_error *e = s->topic_creation_errors;
        s->topic_creation_errors = e->next;
        creation_error_free(e);
    }
}

/* Remembers why an internal topic of group_id could not be created, for two
 * of the group's streams heartbeat intervals, as Kafka's
 * AutoTopicCreationManager caches the error. */
static void creation_failed(kc_req_t *req, kc_str_t group_id, kc_str_t topic, const char *message)
{
    kc_server_t *s = req->srv;
    struct kc_topic_creation_error **p = creation_error_slot(s, topic, req->ctx.now_ms);
    if (!*p) {
        *p = kc_xcalloc(1, sizeof(**p));
        (*p)->topic = kc_xstrndup(topic.ptr, (size_t)topic.len);
    }
    free((*p)->message);
    (*p)->message = kc_xstrdup(message);
    (*p)->expires_ms =
        req->ctx.now_ms + 2 * (int64_t)kc_group_streams_heartbeat_interval_ms(s, group_id);
}

/* The timeout of the CreateTopics request of internal topics: Kafka's
 * request.timeout.ms default (kcoord creates them at once; only its sign
 * matters). */
#define AUTO_CREATE_TIMEOUT_MS 30000

/* Creates the internal topics of a streams group with their topology's
 * configs in one CreateTopics request of the member's principal, as Kafka's
 * AutoTopicCreationManager sends one to its controller. A topic refused is
 * logged and its error (the result's message, else its code's) remembered:
 * the member keeps seeing MISSING_INTERNAL_TOPICS, with the error, and the
 * topic is not tried again until the error expires. */
static void create_internal_topics(kc_req_t *req, kc_str_t group_id,
                                   const kc_streams_topics_to_create_t *create)
{
    kc_create_topics_request_t rq;
    kc_create_topics_request_init(&rq);
    rq.timeout_ms = AUTO_CREATE_TIMEOUT_MS;
    rq.topics.count = (int32_t)create->n;
    rq.topics.items = kc_arena_alloc(req->arena, (create->n + 1) * sizeof(*rq.topics.items));
    for (size_t i = 0; i < create->n; i++) {
        const kc_streams_topic_to_create_t *t = &create->items[i];
        kc_create_topics_request_creatable_topic_t *ct = &rq.topics.items[i];
        memset(ct, 0, sizeof(*ct));
        ct->name = kc_str(t->name);
        ct->num_partitions = t->partitions;
        ct->replication_factor = t->replication_factor;
        ct->configs.count = (int32_t)t->nconfigs;
        ct->configs.items = kc_arena_alloc(req->arena, (t->nconfigs + 1) * sizeof(*ct->configs.items));
        for (size_t j = 0; j < t->nconfigs; j++) {
            ct->configs.items[j].name = kc_str(t->config_names[j]);
            ct->configs.items[j].value = kc_str(t->config_values[j]);
        }
    }
    kc_create_topics_response_creatable_topic_result_t *res;
    int32_t nres;
    kc_create_topics_run(req, &rq, &res, &nres);
    for (int32_t i = 0; i < nres; i++) {
        if (res[i].error_code == KC_ERR_NONE)
            continue;
        const char *msg = kc_error_message(res[i].error_code);
        char buf[1024];
        if (!kc_str_is_null(res[i].error_message) && res[i].error_message.len > 0) {
            snprintf(buf, sizeof(buf), "%.*s", (int)res[i].error_message.len,
                     res[i].error_message.ptr);
            msg = buf;
        }
        kc_log_warn("server", "could not create internal topic %.*s of streams group %.*s: %s",
                    (int)res[i].name.len, res[i].name.ptr, (int)group_id.len, group_id.ptr, msg);
        creation_failed(req, group_id, res[i].name, msg);
    }
}

/*
 * StreamsGroupHeartbeat: the coordinator lists the internal topics the
 * group's topology needs that do not exist yet; they are created here, in
 * kcoord's own log, as Kafka's KafkaApis creates them after the heartbeat
 * (the member sees MISSING_INTERNAL_TOPICS until a later heartbeat finds
 * them).
 */
int kc_handle_streams_group_heartbeat(kc_req_t *req)
{
    kc_streams_group_heartbeat_request_t rq;
    kc_streams_group_heartbeat_request_init(&rq);
    kc_reader_t start = *req->body;
    if (kc_streams_group_heartbeat_request_decode(req->body, req->ctx.api_version, req->arena,
                                                  &rq) != 0)
        return KC_EINVAL;
    if (!kc_req_authorized(req, KC_OP_READ, KC_RES_GROUP, rq.group_id))
        return kc_req_respond_error(req, &start, KC_ERR_GROUP_AUTHORIZATION_FAILED);
    kc_streams_topics_to_create_t create = {0};
    kc_coord_streams_group_heartbeat(req->srv->coord, &req->ctx, &rq, req->res, &create);
    if (create.n)
        create_internal_topics(req, rq.group_id, &create);
    kc_streams_topics_to_create_deinit(&create);
    return 0;
}
