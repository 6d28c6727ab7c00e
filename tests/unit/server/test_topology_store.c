/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description store at run time (server/topology_store.c): the
 * worker threads and their completion on the event loop, the built-in
 * memory and LMDB stores, and loading the test store shared object with
 * dlopen, including its failure and crash steps (in child processes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topology_store.h"

/* ---- harness ------------------------------------------------------------------- */

typedef struct {
    int calls;                        /* callbacks run */
    int order[16];                    /* tags in callback order */
    kc_topology_store_status_t status[16];
    char message[16][128];
    uint8_t data[16][64];
    size_t len[16];
    pthread_t thread[16];
} seen_t;

typedef struct {
    seen_t *seen;
    int tag;
} cb_arg_t;

static void on_done(void *arg, const kc_topology_store_result_t *res)
{
    cb_arg_t *a = arg;
    seen_t *s = a->seen;
    int i = s->calls++;
    assert_true(i < 16);
    s->order[i] = a->tag;
    s->status[i] = res->status;
    snprintf(s->message[i], sizeof(s->message[i]), "%s", res->message ? res->message : "");
    s->len[i] = res->len;
    if (res->len && res->len <= sizeof(s->data[i]))
        memcpy(s->data[i], res->data, res->len);
    s->thread[i] = pthread_self();
}

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    *(int *)arg = 1;
}

/* Runs the loop until n callbacks ran; fails after a generous deadline. */
static void wait_calls(struct event_base *base, seen_t *s, int n)
{
    int expired = 0;
    struct event *t = evtimer_new(base, deadline_cb, &expired);
    struct timeval tv = {60, 0};
    evtimer_add(t, &tv);
    while (s->calls < n && !expired)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(t);
    assert_int_equal(s->calls, n);
}

static char *temp_dir(void)
{
    char tmpl[] = "/tmp/kc-tstore-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* set, get (same bytes), get at another epoch, del, get again, del again. */
static void exercise(struct event_base *base, kc_topology_store_t *t)
{
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t a[6];
    for (int i = 0; i < 6; i++)
        a[i] = (cb_arg_t){&s, i};
    static const uint8_t desc[] = {0, 0, 2, 'x', 'y'};
    kc_topology_store_set(t, "app", 3, 4, desc, sizeof(desc), on_done, &a[0]);
    wait_calls(base, &s, 1);
    kc_topology_store_get(t, "app", 3, 4, on_done, &a[1]);
    wait_calls(base, &s, 2);
    kc_topology_store_get(t, "app", 3, 5, on_done, &a[2]);
    wait_calls(base, &s, 3);
    kc_topology_store_del(t, "app", 3, on_done, &a[3]);
    wait_calls(base, &s, 4);
    kc_topology_store_get(t, "app", 3, 4, on_done, &a[4]);
    wait_calls(base, &s, 5);
    kc_topology_store_del(t, "app", 3, on_done, &a[5]); /* idempotent */
    wait_calls(base, &s, 6);
    assert_int_equal(s.status[0], KC_TOPOLOGY_STORE_OK);
    assert_int_equal(s.status[1], KC_TOPOLOGY_STORE_OK);
    assert_int_equal(s.len[1], sizeof(desc));
    assert_memory_equal(s.data[1], desc, sizeof(desc));
    assert_int_equal(s.status[2], KC_TOPOLOGY_STORE_NOT_FOUND);
    assert_int_equal(s.status[3], KC_TOPOLOGY_STORE_OK);
    assert_int_equal(s.status[4], KC_TOPOLOGY_STORE_NOT_FOUND);
    assert_int_equal(s.status[5], KC_TOPOLOGY_STORE_OK);
    /* Every callback ran on the loop thread. */
    for (int i = 0; i < 6; i++)
        assert_true(pthread_equal(s.thread[i], pthread_self()));
    assert_int_equal(kc_topology_store_pending(t), 0);
}

/* ---- built-in stores ------------------------------------------------------------- */

static void test_memory_store(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open(base, "memory", "/nonexistent", "", 2, err, sizeof(err));
    assert_non_null(t);
    assert_string_equal(kc_topology_store_name(t), "memory");
    exercise(base, t);
    kc_topology_store_close(t);
    event_base_free(base);
}

static void test_lmdb_store_survives_reopen(void **state)
{
    (void)state;
    char *dir = temp_dir();
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open(base, "lmdb", dir, "", 2, err, sizeof(err));
    assert_non_null(t);
    exercise(base, t);
    /* A long group id (beyond LMDB's key limit) and persistence. */
    char long_id[2000];
    memset(long_id, 'g', sizeof(long_id));
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t a = {&s, 0};
    kc_topology_store_set(t, long_id, sizeof(long_id), 1, (const uint8_t *)"abc", 3, on_done, &a);
    kc_topology_store_set(t, "app", 3, 9, (const uint8_t *)"zz", 2, on_done, &a);
    wait_calls(base, &s, 2);
    kc_topology_store_close(t);
    char path[512];
    snprintf(path, sizeof(path), "%s/topology-descriptions/data.mdb", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0); /* its own environment */
    t = kc_topology_store_open(base, "lmdb", dir, "", 1, err, sizeof(err));
    assert_non_null(t);
    memset(&s, 0, sizeof(s));
    kc_topology_store_get(t, long_id, sizeof(long_id), 1, on_done, &a);
    kc_topology_store_get(t, long_id, sizeof(long_id) - 1, 1, on_done, &a); /* another id */
    kc_topology_store_get(t, "app", 3, 9, on_done, &a);
    wait_calls(base, &s, 3);
    assert_int_equal(s.status[0], KC_TOPOLOGY_STORE_OK);
    assert_memory_equal(s.data[0], "abc", 3);
    assert_int_equal(s.status[1], KC_TOPOLOGY_STORE_NOT_FOUND);
    assert_int_equal(s.status[2], KC_TOPOLOGY_STORE_OK);
    assert_memory_equal(s.data[2], "zz", 2);
    kc_topology_store_close(t);
    event_base_free(base);
    rm_rf(dir);
    free(dir);
}

/* ---- the worker ------------------------------------------------------------------ */

/*
 * A store whose set waits until the test opens a gate: with two workers, a
 * del submitted after the set overtakes it, so the two really race.
 */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open, set_entered;

static int gate_init(const kc_topology_store_config_t *cfg, void **state, char *err, size_t n)
{
    (void)cfg;
    (void)err;
    (void)n;
    *state = NULL;
    return 0;
}

static void gate_close(void *state)
{
    (void)state;
}

static void gate_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                     size_t len, kc_topology_store_done_fn done, void *token)
{
    (void)state;
    (void)g;
    (void)glen;
    (void)epoch;
    (void)d;
    (void)len;
    pthread_mutex_lock(&gate_mu);
    set_entered = 1;
    pthread_cond_broadcast(&gate_cv);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static void gate_get(void *state, const char *g, size_t glen, int32_t epoch,
                     kc_topology_store_done_fn done, void *token)
{
    (void)state;
    (void)g;
    (void)glen;
    (void)epoch;
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_NOT_FOUND, NULL, NULL, 0};
    done(token, &r);
}

static void gate_del(void *state, const char *g, size_t glen, kc_topology_store_done_fn done,
                     void *token)
{
    (void)state;
    (void)g;
    (void)glen;
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_TRANSIENT, "del failed", NULL, 0};
    done(token, &r);
}

static const kc_topology_store_ops_t gate_ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "gate",
    gate_init, gate_close, gate_set, gate_get, gate_del,
};

static void test_worker_delete_overtakes_blocked_set(void **state)
{
    (void)state;
    gate_open = set_entered = 0;
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open_ops(base, &gate_ops, "/tmp", "", 2, err, sizeof(err));
    assert_non_null(t);
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t set_arg = {&s, 1}, del_arg = {&s, 2};
    kc_topology_store_set(t, "app", 3, 1, NULL, 0, on_done, &set_arg);
    pthread_mutex_lock(&gate_mu);
    while (!set_entered)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    kc_topology_store_del(t, "app", 3, on_done, &del_arg);
    wait_calls(base, &s, 1);
    assert_int_equal(s.order[0], 2); /* the delete completed while the set was in flight */
    assert_int_equal(s.status[0], KC_TOPOLOGY_STORE_TRANSIENT);
    assert_string_equal(s.message[0], "del failed");
    assert_int_equal(kc_topology_store_pending(t), 1);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    wait_calls(base, &s, 2);
    assert_int_equal(s.order[1], 1);
    kc_topology_store_close(t);
    event_base_free(base);
}

static void test_worker_single_thread_completes_in_order(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open(base, "memory", "/tmp", "", 1, err, sizeof(err));
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t a[10];
    for (int i = 0; i < 10; i++) {
        a[i] = (cb_arg_t){&s, i};
        if (i % 2)
            kc_topology_store_del(t, "g", 1, on_done, &a[i]);
        else
            kc_topology_store_set(t, "g", 1, i, NULL, 0, on_done, &a[i]);
    }
    wait_calls(base, &s, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(s.order[i], i);
    kc_topology_store_close(t);
    event_base_free(base);
}

/* An asynchronous store: it completes from a thread of its own, later. */
static void *late_done(void *arg)
{
    void **p = arg;
    kc_topology_store_done_fn done;
    memcpy(&done, &p[0], sizeof(done));
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_PERMANENT, "rejected later", NULL, 0};
    done(p[1], &r);
    free(p);
    return NULL;
}

static pthread_t async_thread;

static void async_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                      size_t len, kc_topology_store_done_fn done, void *token)
{
    (void)state;
    (void)g;
    (void)glen;
    (void)epoch;
    (void)d;
    (void)len;
    void **p = malloc(2 * sizeof(void *));
    memcpy(&p[0], &done, sizeof(done));
    p[1] = token;
    pthread_create(&async_thread, NULL, late_done, p);
}

static void async_close(void *state)
{
    (void)state;
    pthread_join(async_thread, NULL);
}

static const kc_topology_store_ops_t async_ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "async",
    gate_init, async_close, async_set, gate_get, gate_del,
};

static void test_worker_async_store_completes_on_loop(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open_ops(base, &async_ops, "/tmp", "", 1, err, sizeof(err));
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t a = {&s, 7};
    kc_topology_store_set(t, "g", 1, 1, NULL, 0, on_done, &a);
    wait_calls(base, &s, 1);
    assert_int_equal(s.status[0], KC_TOPOLOGY_STORE_PERMANENT);
    assert_string_equal(s.message[0], "rejected later");
    assert_true(pthread_equal(s.thread[0], pthread_self()));
    kc_topology_store_close(t);
    event_base_free(base);
}

static void *open_gate_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    return NULL;
}

static void test_worker_shutdown_completes_everything(void **state)
{
    (void)state;
    gate_open = set_entered = 0;
    struct event_base *base = event_base_new();
    char err[256];
    kc_topology_store_t *t = kc_topology_store_open_ops(base, &gate_ops, "/tmp", "", 1, err, sizeof(err));
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t running = {&s, 1}, queued = {&s, 2};
    kc_topology_store_set(t, "g", 1, 1, NULL, 0, on_done, &running);
    pthread_mutex_lock(&gate_mu);
    while (!set_entered)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    kc_topology_store_get(t, "g", 1, 1, on_done, &queued); /* behind the blocked set: never starts */
    /* The gate opens from another thread while close waits for the worker. */
    pthread_t opener;
    pthread_create(&opener, NULL, open_gate_later, NULL);
    kc_topology_store_close(t); /* runs both callbacks before it returns */
    pthread_join(opener, NULL);
    assert_int_equal(s.calls, 2);
    int got_cancel = s.order[0] == 2 ? 0 : 1;
    assert_int_equal(s.order[got_cancel], 2);
    assert_int_equal(s.status[got_cancel], KC_TOPOLOGY_STORE_TRANSIENT);
    assert_string_equal(s.message[got_cancel], "kcoord is shutting down");
    assert_int_equal(s.status[1 - got_cancel], KC_TOPOLOGY_STORE_OK);
    event_base_free(base);
}

/* ---- the test store, loaded as a plugin ---------------------------------------------- */

static void test_loader_errors(void **state)
{
    (void)state;
    void *dl;
    char err[512];
    assert_null(kc_topology_store_resolve("/nonexistent/store.so", &dl, err, sizeof(err)));
    assert_non_null(strstr(err, "cannot load /nonexistent/store.so"));
    /* A shared object without the entry symbol. */
    assert_null(kc_topology_store_resolve("libm.so.6", &dl, err, sizeof(err)));
    assert_non_null(strstr(err, "does not export kc_topology_store_plugin"));
    setenv("KC_TEST_STORE_ABI", "99", 1);
    assert_null(kc_topology_store_resolve(KC_TEST_STORE_PATH, &dl, err, sizeof(err)));
    assert_non_null(strstr(err, "ABI version 99"));
    unsetenv("KC_TEST_STORE_ABI");
    assert_non_null(kc_topology_store_resolve(KC_TEST_STORE_PATH, &dl, err, sizeof(err)));
    assert_non_null(dl);
    dlclose(dl);
    /* A bad setting stops the start with the store's reason. */
    struct event_base *base = event_base_new();
    assert_null(kc_topology_store_open(base, KC_TEST_STORE_PATH, "/tmp", "set=explode", 1, err,
                               sizeof(err)));
    assert_non_null(strstr(err, "bad action for set: explode"));
    event_base_free(base);
}

static void test_plugin_store_and_failures(void **state)
{
    (void)state;
    char *dir = temp_dir();
    struct event_base *base = event_base_new();
    char err[512], args[1024];
    snprintf(args, sizeof(args), "dir=%s/files;set=transient:disk busy*1;delete=permanent*1", dir);
    kc_topology_store_t *t = kc_topology_store_open(base, KC_TEST_STORE_PATH, dir, args, 2, err, sizeof(err));
    assert_non_null(t);
    assert_string_equal(kc_topology_store_name(t), "test");
    seen_t s;
    memset(&s, 0, sizeof(s));
    cb_arg_t a[4];
    for (int i = 0; i < 4; i++)
        a[i] = (cb_arg_t){&s, i};
    kc_topology_store_set(t, "app", 3, 2, (const uint8_t *)"d", 1, on_done, &a[0]);
    wait_calls(base, &s, 1);
    kc_topology_store_del(t, "app", 3, on_done, &a[1]);
    wait_calls(base, &s, 2);
    assert_int_equal(s.status[0], KC_TOPOLOGY_STORE_TRANSIENT);
    assert_string_equal(s.message[0], "disk busy");
    assert_int_equal(s.status[1], KC_TOPOLOGY_STORE_PERMANENT);
    assert_string_equal(s.message[1], "");
    kc_topology_store_close(t);
    /* *1: only the first call misbehaved; the ok path behaves like a store. */
    t = kc_topology_store_open(base, KC_TEST_STORE_PATH, dir, args, 2, err, sizeof(err));
    kc_topology_store_close(t);
    snprintf(args, sizeof(args), "dir=%s/files", dir);
    t = kc_topology_store_open(base, KC_TEST_STORE_PATH, dir, args, 2, err, sizeof(err));
    exercise(base, t);
    kc_topology_store_close(t);
    char log[512];
    snprintf(log, sizeof(log), "%s/files/calls.log", dir);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[128];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_string_equal(line, "set app 4\n");
    fclose(f);
    event_base_free(base);
    rm_rf(dir);
    free(dir);
}

/*
 * The crash steps, in a child process: the child loads the store with the
 * action in the environment and makes one set; the parent checks how it
 * died and whether the set reached the files.
 */
static void crash_case(const char *action, bool want_abort, int want_exit, bool want_file)
{
    char *dir = temp_dir();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("KC_TEST_STORE_SET", action, 1);
        setenv("KC_TEST_STORE_DIR", dir, 1);
        struct event_base *base = event_base_new();
        char err[512];
        kc_topology_store_t *t = kc_topology_store_open(base, KC_TEST_STORE_PATH, dir, "", 1, err, sizeof(err));
        /* The store kept its copy; the child ends by the store's exit(),
         * where a memory checker would count this one as lost. */
        free(dir);
        if (!t)
            _exit(3);
        seen_t s;
        memset(&s, 0, sizeof(s));
        cb_arg_t a = {&s, 0};
        kc_topology_store_set(t, "app", 3, 5, (const uint8_t *)"x", 1, on_done, &a);
        while (s.calls < 1)
            event_base_loop(base, EVLOOP_ONCE);
        _exit(0); /* the crash did not happen */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (want_abort) {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGABRT);
    } else {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), want_exit);
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/g-617070", dir); /* "app" in hex */
    struct stat st;
    assert_int_equal(stat(path, &st) == 0, want_file);
    rm_rf(dir);
    free(dir);
}

static void test_plugin_crash_steps(void **state)
{
    (void)state;
    crash_case("exit-before", false, 86, false);
    crash_case("exit-after:42", false, 42, true);
    crash_case("ok", false, 0, true);
}

static void test_plugin_abort_steps(void **state)
{
    (void)state;
    /* abort() under AddressSanitizer still ends with SIGABRT. */
    crash_case("abort-before", true, 0, false);
    crash_case("abort-after", true, 0, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_store),
        cmocka_unit_test(test_lmdb_store_survives_reopen),
        cmocka_unit_test(test_worker_delete_overtakes_blocked_set),
        cmocka_unit_test(test_worker_single_thread_completes_in_order),
        cmocka_unit_test(test_worker_async_store_completes_on_loop),
        cmocka_unit_test(test_worker_shutdown_completes_everything),
        cmocka_unit_test(test_loader_errors),
        cmocka_unit_test(test_plugin_store_and_failures),
        cmocka_unit_test(test_plugin_crash_steps),
        cmocka_unit_test(test_plugin_abort_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
