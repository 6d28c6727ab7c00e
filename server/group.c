/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group APIs: decode the request at its version and hand it to the
 * coordinator, whose result (records and responses) joins the iteration's
 * batch and goes through the commit step.
 */
#include "kc_log.h"
#include "server_int.h"

#define GROUP_HANDLER(fn, msg, coord_fn)                                                           \
    int fn(kc_req_t *req)                                                                          \
    {                                                                                              \
        kc_##msg##_t rq;                                                                           \
        kc_##msg##_init(&rq);                                                                      \
        if (kc_##msg##_decode(req->body, req->ctx.api_version, req->arena, &rq) != 0)             \
            return KC_EINVAL;                                                                      \
        coord_fn(req->srv->coord, &req->ctx, &rq, req->res);                                       \
        return 0;                                                                                  \
    }

GROUP_HANDLER(kc_handle_join_group, join_group_request, kc_coord_join_group)
GROUP_HANDLER(kc_handle_sync_group, sync_group_request, kc_coord_sync_group)
GROUP_HANDLER(kc_handle_heartbeat, heartbeat_request, kc_coord_heartbeat)
GROUP_HANDLER(kc_handle_leave_group, leave_group_request, kc_coord_leave_group)
GROUP_HANDLER(kc_handle_offset_commit, offset_commit_request, kc_coord_offset_commit)
GROUP_HANDLER(kc_handle_offset_fetch, offset_fetch_request, kc_coord_offset_fetch)
GROUP_HANDLER(kc_handle_offset_delete, offset_delete_request, kc_coord_offset_delete)
GROUP_HANDLER(kc_handle_describe_groups, describe_groups_request, kc_coord_describe_groups)
GROUP_HANDLER(kc_handle_list_groups, list_groups_request, kc_coord_list_groups)
GROUP_HANDLER(kc_handle_delete_groups, delete_groups_request, kc_coord_delete_groups)
GROUP_HANDLER(kc_handle_consumer_group_heartbeat, consumer_group_heartbeat_request,
              kc_coord_consumer_group_heartbeat)
GROUP_HANDLER(kc_handle_consumer_group_describe, consumer_group_describe_request,
              kc_coord_consumer_group_describe)
GROUP_HANDLER(kc_handle_streams_group_describe, streams_group_describe_request,
              kc_coord_streams_group_describe)

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
    if (kc_streams_group_heartbeat_request_decode(req->body, req->ctx.api_version, req->arena,
                                                  &rq) != 0)
        return KC_EINVAL;
    kc_streams_topics_to_create_t create = {0};
    kc_coord_streams_group_heartbeat(req->srv->coord, &req->ctx, &rq, req->res, &create);
    for (size_t i = 0; i < create.n; i++) {
        const kc_topic_t *created = NULL;
        kc_str_t name = kc_str(create.items[i].name);
        if (kc_topics_find(req->srv->topics, name))
            continue;
        int rc = kc_topics_create(req->srv->topics, name, create.items[i].partitions, &created);
        if (rc == 0)
            kc_log_info("server", "created internal topic %s with %d partitions for streams group %.*s",
                        create.items[i].name, create.items[i].partitions, (int)rq.group_id.len,
                        rq.group_id.ptr);
        else
            kc_log_warn("server", "could not create internal topic %s: %d", create.items[i].name, rc);
    }
    kc_streams_topics_to_create_deinit(&create);
    return 0;
}
