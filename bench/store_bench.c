/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kcoord-store-bench: micro-benchmark of the record store alone. Appends N
 * offset-sized records in durable batches, overwrites part of them
 * (compaction), then reopens the directory and times a full replay.
 *
 *   kcoord-store-bench [--records N] [--batch N] [--dir DIR] [--map-mib N]
 *   kcoord-store-bench --replay-only DIR   time one replay of an existing data dir
 */
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key shaped like an OffsetCommitKey: version, group, topic, partition. */
static size_t make_key(uint8_t *buf, uint64_t i)
{
    int n = snprintf((char *)buf + 2, 96, "bench-group-%04" PRIu64 "\x01topic-%03" PRIu64, i % 1000,
                     (i / 1000) % 1000);
    buf[0] = 0;
    buf[1] = 1;
    uint32_t part = (uint32_t)(i / 1000000);
    memcpy(buf + 2 + n, &part, 4);
    return (size_t)n + 6;
}

typedef struct {
    uint64_t n;
    uint64_t bytes;
} tally_t;

static int count(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                 size_t value_len)
{
    tally_t *t = ctx;
    t->n++;
    t->bytes += key_len + value_len + key[0] + (value_len ? value[0] : 0);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t records = 1000000, batch = 1000, map_mib = 1024;
    const char *dir = NULL;
    bool replay_only = false;
    static const struct option opts[] = {
        {"records", required_argument, NULL, 'n'},
        {"batch", required_argument, NULL, 'b'},
        {"dir", required_argument, NULL, 'd'},
        {"map-mib", required_argument, NULL, 'm'},
        {"replay-only", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "n:b:d:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': records = strtoull(optarg, NULL, 10); break;
        case 'b': batch = strtoull(optarg, NULL, 10); break;
        case 'd': dir = optarg; break;
        case 'm': map_mib = strtoull(optarg, NULL, 10); break;
        case 'r': dir = optarg; replay_only = true; break;
        default:
            fprintf(stderr, "usage: %s [--records N] [--batch N] [--dir DIR] [--map-mib N]\n",
                    argv[0]);
            return c == 'h' ? 0 : 2;
        }
    }
    if (records == 0 || batch == 0)
        return 2;
    char tmp[] = "/tmp/kcoord-store-bench-XXXXXX";
    if (!dir) {
        if (!mkdtemp(tmp)) {
            perror("mkdtemp");
            return 1;
        }
        dir = tmp;
    }
    kc_store_t *s;
    if (replay_only) {
        double t0 = now_s();
        if (kc_store_open(&s, dir, map_mib << 20)) {
            fprintf(stderr, "cannot open store in %s\n", dir);
            return 1;
        }
        double t1 = now_s();
        tally_t tally = {0, 0};
        int rc = kc_store_replay(s, count, &tally);
        double t2 = now_s();
        printf("open %.2f ms; replay %" PRIu64 " records (%" PRIu64 " bytes) in %.1f ms (rc %d)\n",
               (t1 - t0) * 1e3, tally.n, tally.bytes, (t2 - t1) * 1e3, rc);
        kc_store_close(s);
        return rc ? 1 : 0;
    }
    if (kc_store_open(&s, dir, map_mib << 20)) {
        fprintf(stderr, "cannot open store in %s\n", dir);
        return 1;
    }
    uint8_t key[128], value[32];
    memset(value, 0x5a, sizeof(value)); /* about an OffsetCommitValue */

    double t0 = now_s();
    uint64_t commits = 0;
    for (uint64_t i = 0; i < records; i++) {
        size_t kl = make_key(key, i);
        if (kc_store_append(s, key, kl, value, sizeof(value)))
            goto fail;
        if ((i + 1) % batch == 0 || i + 1 == records) {
            if (kc_store_commit(s))
                goto fail;
            commits++;
        }
    }
    double t1 = now_s();
    printf("append+commit (new keys):  %9.0f records/s  (%" PRIu64 " records, %" PRIu64
           " durable commits of %" PRIu64 ")\n",
           (double)records / (t1 - t0), records, commits, batch);

    /* Overwrite a tenth of the keys: compaction deletes the older entries. */
    uint64_t over = records / 10 ? records / 10 : 1;
    t0 = now_s();
    for (uint64_t i = 0; i < over; i++) {
        size_t kl = make_key(key, i * 7 % records);
        if (kc_store_append(s, key, kl, value, sizeof(value)))
            goto fail;
        if ((i + 1) % batch == 0 && kc_store_commit(s))
            goto fail;
    }
    if (kc_store_commit(s))
        goto fail;
    t1 = now_s();
    printf("append+commit (overwrite): %9.0f records/s\n", (double)over / (t1 - t0));
    kc_store_close(s);

    t0 = now_s();
    if (kc_store_open(&s, dir, map_mib << 20))
        goto fail;
    double t_open = now_s();
    tally_t tally = {0, 0};
    if (kc_store_replay(s, count, &tally))
        goto fail;
    t1 = now_s();
    printf("reopen: %.2f ms; replay: %" PRIu64 " live records in %.1f ms (%.1f M records/s)"
           "  [target: storage walk of 1M well under 100 ms]\n",
           (t_open - t0) * 1e3, tally.n, (t1 - t_open) * 1e3,
           (double)tally.n / (t1 - t_open) / 1e6);
    kc_store_close(s);
    if (dir == tmp) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmp);
    }
    return 0;
fail:
    fprintf(stderr, "store error\n");
    kc_store_close(s);
    return 1;
}
