/* SPDX-License-Identifier: Apache-2.0 */
/* The member timeouts of the modern group types (member_timers.h). */
#include "member_timers.h"

#define KEY_BUF 1024

static void session_key(char *buf, size_t cap, kc_str_t g, const char *m)
{
    kc_timer_key(buf, cap, "session-timeout-", g, m);
}

static void rebalance_key(char *buf, size_t cap, kc_str_t g, const char *m)
{
    kc_timer_key(buf, cap, "rebalance-timeout-", g, m);
}

void kc_member_schedule_session(kc_coord_t *c, kc_str_t group_id, const char *member_id,
                                int32_t timeout_ms, int64_t now_ms, kc_timer_fn fn)
{
    char key[KEY_BUF];
    session_key(key, sizeof(key), group_id, member_id);
    kc_timer_schedule_args(c, key, now_ms + timeout_ms, fn, group_id, member_id, 0, 0);
}

int64_t kc_member_session_deadline(const kc_coord_t *c, kc_str_t group_id,
                                   const char *member_id)
{
    char key[KEY_BUF];
    session_key(key, sizeof(key), group_id, member_id);
    return kc_timer_deadline(c, key);
}

void kc_member_schedule_rebalance(kc_coord_t *c, kc_str_t group_id, const char *member_id,
                                  int32_t rebalance_timeout_ms, int32_t member_epoch,
                                  int64_t now_ms, kc_timer_fn fn)
{
    char key[KEY_BUF];
    rebalance_key(key, sizeof(key), group_id, member_id);
    int32_t timeout = rebalance_timeout_ms >= 0 ? rebalance_timeout_ms : 0;
    kc_timer_schedule_args(c, key, now_ms + timeout, fn, group_id, member_id, member_epoch, 0);
}

void kc_member_cancel_rebalance(kc_coord_t *c, kc_str_t group_id, const char *member_id)
{
    char key[KEY_BUF];
    rebalance_key(key, sizeof(key), group_id, member_id);
    kc_timer_cancel(c, key);
}

void kc_member_cancel_timers(kc_coord_t *c, kc_str_t group_id, const char *member_id)
{
    char key[KEY_BUF];
    session_key(key, sizeof(key), group_id, member_id);
    kc_timer_cancel(c, key);
    kc_member_cancel_rebalance(c, group_id, member_id);
}
