/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The test context every coordinator unit test runs in: a coordinator made
 * with a config and a topic view the test controls, a clock the test
 * drives, and the log of every record of every result the test produced
 * (in order, tombstones included), with the responses kept for decoding.
 *
 * Its teardown (ct_free) is the replay check: every captured record is
 * replayed into a fresh coordinator (same config, same topic view, loaded
 * at the current time), as a restart loads __consumer_offsets, and the
 * durable state of both is compared field by field (ct_dump_state). The
 * first difference fails the test, naming the group, the member, the field
 * and both values. Live and replayed state can drift apart because the
 * handlers change memory directly while replay re-implements each change.
 *
 * Results the test treats as failed to commit must be handed to
 * ct_absorb_uncommitted, so their records stay out of the log.
 */
#ifndef KC_COORD_TEST_H
#define KC_COORD_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "coord_priv.h"
#include "topology_desc.h"

/* One captured record: key and value bytes as the result held them. */
typedef struct {
    kc_buf_t key, value;
    bool tombstone;
    bool rejected; /* a hand-made record replay refused (ct_replay): a load skips it */
} ct_record_t;

/* One captured response (body and the body sent if the commit failed). */
typedef struct {
    uint64_t conn_id;
    int32_t corr;
    int16_t api_key, version;
    kc_buf_t body, error_body;
} ct_response_t;

/* How to make a context; zero-initialised is Kafka's defaults, no topic,
 * seed 0, time 0, loaded. */
typedef struct {
    const kc_coord_config_t *cfg;  /* copied; NULL: kc_coord_config_defaults */
    const kc_topic_view_t *topics; /* borrowed, must outlive the context; NULL: none */
    uint64_t seed;                 /* kc_coord_seed of the live coordinator */
    int64_t now_ms;                /* the clock at creation (and the load time) */
    bool unloaded;                 /* leave it loading: ct_replay records, then ct_load */
    kc_topology_desc_t *tdesc;     /* borrowed, set on every coordinator made; NULL: none */
} ct_opts_t;

typedef struct {
    kc_coord_t *c; /* the live coordinator; a test may swap it (a restart) */
    kc_coord_config_t cfg;
    const kc_topic_view_t *topics;
    kc_topology_desc_t *tdesc;
    int64_t now;        /* ms; tests may move it, ct_sleep fires timers on the way */
    int32_t next_corr;  /* correlation id of the next ct_rctx */
    ct_record_t *recs;  /* the log: every committed record, in order */
    size_t nrecs, recs_cap;
    ct_response_t *resps;
    size_t nresps, resps_cap;
    kc_arena_t arena; /* decoded responses and other memory living as long as the test */
} ct_t;

/* A new context (calloc'ed; free with ct_free). */
ct_t *ct_new(const ct_opts_t *opts);
/* The replay check (ct_check_replay), then frees the context and its
 * coordinator. */
void ct_free(ct_t *t);

/* Keeps the records and responses of res (copies; res is left as is); the
 * records of a failed result (res->failed) are not committed, so not kept. With
 * KC_CT_EVERY set in the environment, runs the replay check after each
 * result too (a restart may come after any commit). */
void ct_keep(ct_t *t, const kc_result_t *res);
/* ct_keep, then resets res. */
void ct_absorb(ct_t *t, kc_result_t *res);
/* A result the test treats as failed to commit: its responses are kept (the
 * error bodies are what a client would get), its records are not logged;
 * res is reset. */
void ct_absorb_uncommitted(ct_t *t, kc_result_t *res);

/* Fires the timers due at t->now. */
void ct_tick(ct_t *t);
/* Advances the clock by ms, firing each timer due on the way at its own
 * deadline (never moving the clock back), as the event loop does. */
void ct_sleep(ct_t *t, int64_t ms);
/* Moves the clock by ms, then fires every timer due by then at that time
 * (a loop that woke late). */
void ct_jump(ct_t *t, int64_t ms);

/* A request context for api_key/version: the next correlation id, conn id
 * 100 + that id, client id "client", host "/127.0.0.1", now. */
kc_request_ctx_t ct_rctx(ct_t *t, int16_t api_key, int16_t version);
/* The response to correlation id corr (the last one kept), or NULL. */
ct_response_t *ct_find_resp(ct_t *t, int32_t corr);
/* A reader over a copy (in t->arena, so decoded views outlive the
 * response) of the body of the response to corr; fails the test when
 * there is none. */
kc_reader_t ct_body(ct_t *t, int32_t corr);
/* The same over a result's response i, without keeping anything. */
kc_reader_t ct_result_body(ct_t *t, const kc_result_t *res, size_t i);
/* A NUL-terminated copy (in t->arena) of a string view; "" for null. */
char *ct_cstr(ct_t *t, kc_str_t s);

/* Replays one record (value NULL: tombstone) into the live coordinator
 * and logs it, as if it had been committed before (a hand-made record, or
 * one of an older version); returns kc_coord_replay's answer. A record
 * replay rejects stays in the log, and every later replay of the log must
 * reject it too (a load logs it and goes on). */
int ct_replay(ct_t *t, const kc_buf_t *key, const kc_buf_t *value);
/* Ends the load of a context made with opts.unloaded (at t->now). */
void ct_load(ct_t *t);
/* Replays the log into c, a coordinator still loading (compacted: see
 * ct_replayed); fails the test when a record is rejected. */
void ct_replay_log(ct_t *t, kc_coord_t *c, bool compacted);
/* Loads the live coordinator again from the log after kc_coord_unload, as
 * the server does after a failed commit. */
void ct_reload(ct_t *t);
/* A new coordinator (same config, view and store), loaded at t->now after
 * replaying the log; compacted: only the last record of each key, and no
 * tombstone, as the log cleaner leaves it. The caller frees it. */
kc_coord_t *ct_replayed(ct_t *t, bool compacted);
/* A restart: the live coordinator is replaced by ct_replayed; compacted:
 * the log is compacted first (the cleaner ran before the restart), so the
 * replay check later replays that log too. */
void ct_restart(ct_t *t, bool compacted);

/*
 * The replay check: fails the test unless a coordinator rebuilt from the
 * whole log (every record in order, tombstones included) has the durable
 * state of the live one. Called by ct_free; tests may call it earlier.
 * With KC_CT_DUMP set in the environment, the live dump is printed.
 */
void ct_check_replay(ct_t *t);

/* One field of a canonical dump: group id (escaped), member id (escaped;
 * "" for the group's own fields), field name and value, all owned. */
typedef struct {
    char *group, *member, *field, *value;
} ct_field_t;

typedef struct {
    ct_field_t *f; /* sorted by group, member, field once ct_dump_state returns */
    size_t n, cap;
    char **skipped; /* the (escaped) ids of the groups left out */
    size_t nskipped;
} ct_dump_t;

/* The canonical dump of c's durable state (see coord_test.c for what is in
 * it and what is left out, and why). like NULL: c is a live coordinator,
 * whose classic groups that run ahead of their records are left out; else
 * the groups like left out are left out (c is the replayed one). */
void ct_dump_state(kc_coord_t *c, const ct_dump_t *like, ct_dump_t *out);
void ct_dump_free(ct_dump_t *d);
/* Compares a live coordinator's dump with a replayed one's: NULL when they
 * agree, else a message (malloc'ed) naming the first difference. */
char *ct_dump_diff(const ct_dump_t *live, const ct_dump_t *replayed);

#endif
