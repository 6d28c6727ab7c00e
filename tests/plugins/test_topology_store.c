/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A topology-description store for tests, built as a shared object
 * (kc_test_topology_store.so) and loaded by kcoord like any plugin. It keeps
 * one file per group in a directory (so a test can look at what it holds,
 * also after kcoord died) and misbehaves on demand.
 *
 * Settings: group.streams.topology.description.plugin.config, as
 * "key=value;key=value", then the environment, which wins:
 *   dir=PATH        KC_TEST_STORE_DIR      where the files go (default <log.dirs>/test-store)
 *   set=ACTION      KC_TEST_STORE_SET      what set does
 *   get=ACTION      KC_TEST_STORE_GET      what get does
 *   delete=ACTION   KC_TEST_STORE_DELETE   what delete does
 *                   KC_TEST_STORE_ABI      the ABI version it claims (tests of the loader)
 * ACTION: ok | transient[:message] | permanent[:message] | hang:MS (sleep,
 * then ok) | abort-before | abort-after | exit-before[:code] |
 * exit-after[:code] (abort() or _exit() before or after touching the files;
 * exit code 86 by default), optionally followed by *N: only the next N calls
 * misbehave, later ones are ok.
 * Every call that reaches its end appends a line to DIR/calls.log
 * ("set <group> <epoch>", "get <group> <epoch>", "delete <group>").
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kcoord/topology_store.h"

typedef enum { A_OK, A_TRANSIENT, A_PERMANENT, A_HANG, A_ABORT, A_EXIT } act_t;

typedef struct {
    act_t act;
    int after;      /* crash after touching the files */
    long arg;       /* hang ms, exit code */
    char msg[256];
    long remaining; /* -1 = every call */
} action_t;

enum { OP_SET, OP_GET, OP_DEL, NOPS };
static const char *op_names[NOPS] = {"set", "get", "delete"};
static const char *op_envs[NOPS] = {"KC_TEST_STORE_SET", "KC_TEST_STORE_GET",
                                    "KC_TEST_STORE_DELETE"};

typedef struct {
    char dir[4096];
    action_t actions[NOPS];
    pthread_mutex_t mu;
} tstore_t;

static int parse_action(const char *v, action_t *a)
{
    memset(a, 0, sizeof(*a));
    a->remaining = -1;
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", v);
    char *star = strrchr(buf, '*');
    if (star) {
        *star = '\0';
        a->remaining = strtol(star + 1, NULL, 10);
    }
    char *colon = strchr(buf, ':');
    const char *arg = NULL;
    if (colon) {
        *colon = '\0';
        arg = colon + 1;
    }
    if (strcmp(buf, "ok") == 0) {
        a->act = A_OK;
    } else if (strcmp(buf, "transient") == 0 || strcmp(buf, "permanent") == 0) {
        a->act = buf[0] == 't' ? A_TRANSIENT : A_PERMANENT;
        snprintf(a->msg, sizeof(a->msg), "%s", arg ? arg : "");
    } else if (strcmp(buf, "hang") == 0) {
        a->act = A_HANG;
        a->arg = arg ? strtol(arg, NULL, 10) : 1000;
    } else if (strcmp(buf, "abort-before") == 0 || strcmp(buf, "abort-after") == 0) {
        a->act = A_ABORT;
        a->after = buf[6] == 'a';
    } else if (strcmp(buf, "exit-before") == 0 || strcmp(buf, "exit-after") == 0) {
        a->act = A_EXIT;
        a->after = buf[5] == 'a';
        a->arg = arg ? strtol(arg, NULL, 10) : 86;
    } else {
        return -1;
    }
    return 0;
}

static int apply(tstore_t *s, const char *key, const char *value, char *err, size_t errlen)
{
    if (strcmp(key, "dir") == 0) {
        snprintf(s->dir, sizeof(s->dir), "%s", value);
        return 0;
    }
    for (int i = 0; i < NOPS; i++)
        if (strcmp(key, op_names[i]) == 0) {
            if (parse_action(value, &s->actions[i]) != 0) {
                snprintf(err, errlen, "bad action for %s: %s", key, value);
                return -1;
            }
            return 0;
        }
    snprintf(err, errlen, "unknown setting %s", key);
    return -1;
}

static int ts_init(const kc_topology_store_config_t *cfg, void **state, char *err, size_t errlen)
{
    tstore_t *s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    snprintf(s->dir, sizeof(s->dir), "%s/test-store", cfg->data_dir ? cfg->data_dir : ".");
    for (int i = 0; i < NOPS; i++)
        parse_action("ok", &s->actions[i]);
    char args[4096];
    snprintf(args, sizeof(args), "%s", cfg->args ? cfg->args : "");
    for (char *save = NULL, *kv = strtok_r(args, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            snprintf(err, errlen, "setting without '=': %s", kv);
            free(s);
            return -1;
        }
        *eq = '\0';
        if (apply(s, kv, eq + 1, err, errlen) != 0) {
            free(s);
            return -1;
        }
    }
    const char *d = getenv("KC_TEST_STORE_DIR");
    if (d)
        apply(s, "dir", d, err, errlen);
    for (int i = 0; i < NOPS; i++) {
        const char *v = getenv(op_envs[i]);
        if (v && apply(s, op_names[i], v, err, errlen) != 0) {
            free(s);
            return -1;
        }
    }
    if (mkdir(s->dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", s->dir, strerror(errno));
        free(s);
        return -1;
    }
    pthread_mutex_init(&s->mu, NULL);
    *state = s;
    char line[4200];
    snprintf(line, sizeof(line), "test store in %s", s->dir);
    if (cfg->log)
        cfg->log(KC_TOPOLOGY_STORE_LOG_INFO, line);
    return 0;
}

static void ts_close(void *state)
{
    tstore_t *s = state;
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The file of a group: its id in hex. */
static void group_path(tstore_t *s, const char *g, size_t glen, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s/g-", s->dir);
    for (size_t i = 0; i < glen && (size_t)n + 3 < outlen; i++)
        n += snprintf(out + n, outlen - (size_t)n, "%02x", (unsigned char)g[i]);
}

static void log_call(tstore_t *s, const char *line)
{
    char p[4200];
    snprintf(p, sizeof(p), "%s/calls.log", s->dir);
    FILE *f = fopen(p, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

/* Takes the next action of op (counting down *N). */
static action_t take(tstore_t *s, int op)
{
    pthread_mutex_lock(&s->mu);
    action_t a = s->actions[op];
    if (s->actions[op].remaining > 0 && --s->actions[op].remaining == 0)
        parse_action("ok", &s->actions[op]);
    pthread_mutex_unlock(&s->mu);
    return a;
}

static void crash(const action_t *a)
{
    if (a->act == A_ABORT)
        abort();
    _exit((int)a->arg);
}

/* Runs the action's "before" part; returns true when the call goes on. */
static int before(const action_t *a, kc_topology_store_done_fn done, void *token)
{
    if ((a->act == A_ABORT || a->act == A_EXIT) && !a->after)
        crash(a);
    if (a->act == A_HANG) {
        struct timespec ts = {a->arg / 1000, (a->arg % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (a->act == A_TRANSIENT || a->act == A_PERMANENT) {
        kc_topology_store_result_t r = {a->act == A_TRANSIENT ? KC_TOPOLOGY_STORE_TRANSIENT
                                                              : KC_TOPOLOGY_STORE_PERMANENT,
                                        a->msg[0] ? a->msg : NULL, NULL, 0};
        done(token, &r);
        return 0;
    }
    return 1;
}

static void after(const action_t *a)
{
    if ((a->act == A_ABORT || a->act == A_EXIT) && a->after)
        crash(a);
}

static void ts_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                   size_t len, kc_topology_store_done_fn done, void *token)
{
    tstore_t *s = state;
    action_t a = take(s, OP_SET);
    if (!before(&a, done, token))
        return;
    char path[8400], tmp[8500];
    group_path(s, g, glen, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.tmp%lu", path, (unsigned long)pthread_self());
    FILE *f = fopen(tmp, "wb");
    int ok = f && fprintf(f, "%d\n", epoch) > 0 && fwrite(d, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_TRANSIENT, "test store: write failed",
                                        NULL, 0};
        done(token, &r);
        return;
    }
    char line[512];
    snprintf(line, sizeof(line), "set %.*s %d", (int)glen, g, epoch);
    log_call(s, line);
    after(&a);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static void ts_get(void *state, const char *g, size_t glen, int32_t epoch,
                   kc_topology_store_done_fn done, void *token)
{
    tstore_t *s = state;
    action_t a = take(s, OP_GET);
    if (!before(&a, done, token))
        return;
    char path[8400];
    group_path(s, g, glen, path, sizeof(path));
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_NOT_FOUND, NULL, NULL, 0};
    uint8_t *data = NULL;
    FILE *f = fopen(path, "rb");
    int stored = -1;
    if (f && fscanf(f, "%d", &stored) == 1 && fgetc(f) == '\n' && stored == epoch) {
        size_t cap = 4096, n = 0;
        data = malloc(cap);
        size_t got;
        while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
            n += got;
            if (n == cap) {
                uint8_t *bigger = realloc(data, cap *= 2);
                if (!bigger) {
                    free(data);
                    data = NULL;
                }
                data = bigger;
            }
        }
        if (data)
            r = (kc_topology_store_result_t){KC_TOPOLOGY_STORE_OK, NULL, data, n};
    }
    if (f)
        fclose(f);
    char line[512];
    snprintf(line, sizeof(line), "get %.*s %d", (int)glen, g, epoch);
    log_call(s, line);
    after(&a);
    done(token, &r);
    free(data);
}

static void ts_del(void *state, const char *g, size_t glen, kc_topology_store_done_fn done,
                   void *token)
{
    tstore_t *s = state;
    action_t a = take(s, OP_DEL);
    if (!before(&a, done, token))
        return;
    char path[8400];
    group_path(s, g, glen, path, sizeof(path));
    if (unlink(path) != 0 && errno != ENOENT) {
        kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_TRANSIENT, "test store: unlink failed",
                                        NULL, 0};
        done(token, &r);
        return;
    }
    char line[512];
    snprintf(line, sizeof(line), "delete %.*s", (int)glen, g);
    log_call(s, line);
    after(&a);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static kc_topology_store_ops_t ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "test",
    ts_init, ts_close, ts_set, ts_get, ts_del,
};

__attribute__((visibility("default"))) const kc_topology_store_ops_t *kc_topology_store_plugin(void);
const kc_topology_store_ops_t *kc_topology_store_plugin(void)
{
    /* The loader checks the ABI before init runs: read it here. */
    const char *abi = getenv("KC_TEST_STORE_ABI");
    ops.abi_version = abi ? (uint32_t)strtoul(abi, NULL, 10) : KC_TOPOLOGY_STORE_ABI_VERSION;
    return &ops;
}
