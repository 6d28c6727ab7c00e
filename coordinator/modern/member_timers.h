/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The session and rebalance timeouts of a modern group's members (KIP-848
 * consumer groups, KIP-1071 streams groups), keyed as Kafka keys them
 * (GroupMetadataManager.groupSessionTimeoutKey, groupRebalanceTimeoutKey):
 * one group per id makes the keys of the two group types distinct.
 */
#ifndef KC_MEMBER_TIMERS_H
#define KC_MEMBER_TIMERS_H

#include "coord_priv.h"

/* Arms (or re-arms) the member's session timeout, timeout_ms after now_ms;
 * fn fires with the group id and member id as the timer's arguments. */
void kc_member_schedule_session(kc_coord_t *c, kc_str_t group_id, const char *member_id,
                                int32_t timeout_ms, int64_t now_ms, kc_timer_fn fn);
/* The deadline of the member's session timeout on the coordinator's clock
 * (ms), -1 when none is armed. */
int64_t kc_member_session_deadline(const kc_coord_t *c, kc_str_t group_id,
                                   const char *member_id);
/* Arms the member's rebalance timeout (a revocation it must acknowledge)
 * for member_epoch, rebalance_timeout_ms after now_ms (a negative timeout
 * fires at once); fn fires with the ids and the epoch (arg1). */
void kc_member_schedule_rebalance(kc_coord_t *c, kc_str_t group_id, const char *member_id,
                                  int32_t rebalance_timeout_ms, int32_t member_epoch,
                                  int64_t now_ms, kc_timer_fn fn);
void kc_member_cancel_rebalance(kc_coord_t *c, kc_str_t group_id, const char *member_id);
/* Cancels both timeouts of the member. */
void kc_member_cancel_timers(kc_coord_t *c, kc_str_t group_id, const char *member_id);

#endif
