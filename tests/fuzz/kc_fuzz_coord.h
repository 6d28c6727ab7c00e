/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the coordinator fuzz targets and the seed writer: the
 * group APIs the coordinator serves, a fixed topic view, routing of a decoded
 * request to its kc_coord_* handler and the check that a response body is
 * one its generated decoder accepts whole.
 */
#ifndef KC_FUZZ_COORD_H
#define KC_FUZZ_COORD_H

#include "coord.h"
#include "txn.h"

/* API keys routed to the coordinator, in the order the coord target's
 * request op indexes them (TxnOffsetCommit last: the transaction
 * coordinator's check is taken as passed). */
extern const int16_t kc_fuzz_group_apis[];
extern const size_t kc_fuzz_group_apis_count;

/* Topics "t0" and "t1" (3 partitions, ids 1 and 2) and "topic" (1 partition,
 * id 3) exist; nothing else does. Static; valid for the whole process. */
extern const kc_topic_view_t kc_fuzz_topics;

/* A coordinator with Kafka's defaults except a 0 ms initial rebalance delay
 * when quick is set, a constant member-id seed and loading left open
 * (the caller replays, then calls kc_coord_loaded). Caller frees it. */
kc_coord_t *kc_fuzz_coord_new(bool quick);

/* A transaction coordinator with Kafka's defaults, nothing loaded: its
 * producer ids come from *next_pid (incremented; it must outlive the
 * coordinator) and every marker is written (each partition named must have
 * a topic). Caller frees it (kc_txn_free). */
kc_txn_coord_t *kc_fuzz_txn_new(int64_t *next_pid);

/* Calls the handler of ctx->api_key with the decoded request m (a struct of
 * the generated type of that API). false when the API is not a group API. */
bool kc_fuzz_coord_dispatch(kc_coord_t *c, const kc_request_ctx_t *ctx, const void *m,
                            kc_result_t *res);

/* Aborts unless body decodes as the api_key response at version and the
 * decoder consumes every byte. */
void kc_fuzz_check_response_body(int16_t api_key, int16_t version, const kc_buf_t *body);

#endif
