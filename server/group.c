/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group APIs: decode the request at its version and hand it to the
 * coordinator, whose result (records and responses) joins the iteration's
 * batch and goes through the commit step.
 */
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

/* Creates one internal topic of a streams group with its topology's
 * configs, checked as CreateTopics checks them (a topic Kafka's controller
 * refuses is logged and left missing: the member keeps seeing
 * MISSING_INTERNAL_TOPICS). */
static void create_internal_topic(kc_req_t *req, kc_str_t group_id,
                                  const kc_streams_topic_to_create_t *t)
{
    kc_server_t *s = req->srv;
    kc_str_t name = kc_str(t->name);
    if (kc_topics_find(s->topics, name))
        return;
    kc_str_t *cn = kc_arena_alloc(req->arena, (t->nconfigs + 1) * sizeof(*cn));
    kc_str_t *cv = kc_arena_alloc(req->arena, (t->nconfigs + 1) * sizeof(*cv));
    for (size_t j = 0; j < t->nconfigs; j++) {
        cn[j] = kc_str(t->config_names[j]);
        cv[j] = kc_str(t->config_values[j]);
    }
    char msg[512];
    if (kc_topic_configs_check(t->nconfigs, cn, cv, msg, sizeof(msg)) != KC_ERR_NONE) {
        kc_log_warn("server", "could not create internal topic %s of streams group %.*s: %s",
                    t->name, (int)group_id.len, group_id.ptr, msg);
        return;
    }
    int rc = kc_topic_create(s, name, t->partitions, t->nconfigs, cn, cv, NULL);
    if (rc != 0) {
        kc_log_warn("server", "could not create internal topic %s: %d", t->name, rc);
        return;
    }
    kc_log_info("server", "created internal topic %s with %d partitions for streams group %.*s",
                t->name, t->partitions, (int)group_id.len, group_id.ptr);
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
    for (size_t i = 0; i < create.n; i++)
        create_internal_topic(req, rq.group_id, &create.items[i]);
    kc_streams_topics_to_create_deinit(&create);
    return 0;
}
