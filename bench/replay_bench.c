/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Start-up replay benchmark: fills a data directory with OffsetCommit records
 * (the bytes Kafka writes to __consumer_offsets: key version 1, value version
 * 4) and times replaying them from LMDB into a coordinator, the way kcoord's
 * load path does. Run "fill" and "load" as separate processes so the load is
 * measured cold (fresh memory, fresh map).
 *
 *   kcoord-replay-bench fill DIR [GROUPS TOPICS PARTITIONS [METADATA]]
 *       (default 1000 x 100 x 10 = 1,000,000 offsets, empty metadata)
 *   kcoord-replay-bench load DIR
 *       prints records, wall ms, minor page faults and peak RSS.
 *   kcoord-replay-bench walk DIR
 *       the same walk with records counted, not replayed (the storage share).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "coord.h"
#include "kc_log.h"
#include "kc_msgs.h"
#include "store.h"
#include "wire.h"

#define MAP_SIZE ((uint64_t)1 << 30) /* kcoord's default lmdb.map.size.bytes */
#define BATCH 10000

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fill(const char *dir, long groups, long topics, long partitions, const char *meta)
{
    kc_store_t *s;
    if (kc_store_open(&s, dir, MAP_SIZE) != 0)
        return 1;
    kc_buf_t key, value;
    kc_buf_init(&key);
    kc_buf_init(&value);
    char gname[64], tname[64];
    uint64_t n = 0;
    int rc = 0;
    double t0 = now_ms();
    for (long g = 0; g < groups && rc == 0; g++) {
        snprintf(gname, sizeof(gname), "bench-group-%ld", g);
        for (long t = 0; t < topics && rc == 0; t++) {
            snprintf(tname, sizeof(tname), "bench-topic-%ld", t);
            kc_uuid_t id;
            memset(&id, 0, sizeof(id));
            id.b[0] = 0x42;
            id.b[8] = (uint8_t)t;
            id.b[9] = (uint8_t)(t >> 8);
            for (long p = 0; p < partitions && rc == 0; p++) {
                kc_offset_commit_key_t k = {kc_str(gname), kc_str(tname), (int32_t)p};
                kc_offset_commit_value_t v;
                kc_offset_commit_value_init(&v);
                v.offset = 1000 + g + t + p;
                v.leader_epoch = 3;
                v.metadata = kc_str(meta);
                v.commit_timestamp = 1700000000000LL + (int64_t)n;
                v.topic_id = id;
                kc_buf_reset(&key);
                kc_buf_reset(&value);
                kc_write_int16(&key, KC_RECORD_OFFSET_COMMIT);
                kc_write_int16(&value, 4);
                if (kc_offset_commit_key_encode(&key, 0, &k) != 0 ||
                    kc_offset_commit_value_encode(&value, 4, &v) != 0) {
                    rc = 1;
                    break;
                }
                rc = kc_store_append(s, key.data, key.len, value.data, value.len);
                if (rc == 0 && ++n % BATCH == 0)
                    rc = kc_store_commit(s);
            }
        }
    }
    if (rc == 0)
        rc = kc_store_commit(s);
    printf("filled %" PRIu64 " records in %.0f ms (store holds %" PRIu64 ")\n", n,
           now_ms() - t0, kc_store_record_count(s));
    kc_buf_deinit(&key);
    kc_buf_deinit(&value);
    kc_store_close(s);
    return rc != 0;
}

typedef struct {
    kc_coord_t *coord;
    uint64_t n, bad;
} load_ctx_t;

static int replay_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len)
{
    load_ctx_t *l = ctx;
    l->n++;
    if (kc_coord_replay(l->coord, key, key_len, value, value_len) != 0)
        l->bad++;
    return 0;
}

/* A field of /proc/self/smaps_rollup in KiB, or -1. */
static long smaps_kib(const char *field)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL)
        return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            v = atol(line + n + 1);
    fclose(f);
    return v;
}

static int count_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                     size_t value_len)
{
    load_ctx_t *l = ctx;
    l->n++;
    l->bad += key_len == 0 || value_len == 0 || key[0] != 0 || value[0] != 0;
    return 0;
}

static int load(const char *dir, bool replay)
{
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = now_ms();
    kc_store_t *s;
    if (kc_store_open(&s, dir, MAP_SIZE) != 0)
        return 1;
    double t_open = now_ms();
    kc_coord_config_t cc;
    kc_coord_config_defaults(&cc);
    kc_coord_t *c = kc_coord_new(&cc, NULL);
    load_ctx_t l = {c, 0, 0};
    int rc = kc_store_replay(s, replay ? replay_one : count_one, &l);
    kc_coord_loaded(c, 0);
    double t1 = now_ms();
    getrusage(RUSAGE_SELF, &ru1);
    printf("replayed %" PRIu64 " records (%" PRIu64 " bad) in %.1f ms (open %.1f ms); "
           "minor faults %ld; max RSS %ld KiB\n",
           l.n, l.bad, t1 - t_open, t_open - t0, ru1.ru_minflt - ru0.ru_minflt, ru1.ru_maxrss);
    printf("now: RSS anon %ld KiB (huge pages %ld KiB), file %ld KiB\n", smaps_kib("Anonymous"),
           smaps_kib("AnonHugePages"), smaps_kib("Rss") - smaps_kib("Anonymous"));
    double tf = now_ms();
    kc_coord_free(c);
    kc_store_close(s);
    printf("freed in %.1f ms\n", now_ms() - tf);
    return rc != 0 || l.bad != 0;
}

int main(int argc, char **argv)
{
    kc_log_set_level(KC_LOG_WARN); /* one line per group would dominate the timing */
    if (argc >= 3 && strcmp(argv[1], "fill") == 0) {
        long g = argc > 3 ? atol(argv[3]) : 1000;
        long t = argc > 4 ? atol(argv[4]) : 100;
        long p = argc > 5 ? atol(argv[5]) : 10;
        return fill(argv[2], g, t, p, argc > 6 ? argv[6] : "");
    }
    if (argc == 3 && strcmp(argv[1], "load") == 0)
        return load(argv[2], true);
    if (argc == 3 && strcmp(argv[1], "walk") == 0)
        return load(argv[2], false);
    fprintf(stderr, "usage: kcoord-replay-bench fill DIR [GROUPS TOPICS PARTITIONS [METADATA]]\n"
                    "       kcoord-replay-bench load|walk DIR\n");
    return 2;
}
