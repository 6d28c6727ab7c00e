/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology-description store at run time (see topology_store.h): the
 * loader (built-ins or dlopen), the worker threads with their completion
 * queue drained on the event loop, and the built-in in-memory store.
 */
#include "topology_store.h"

#include <dlfcn.h>
#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kc_common.h"
#include "kc_log.h"

#define COMP "topology-store"

static void errf(char *err, size_t errlen, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *f, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(err, errlen, f, ap);
    va_end(ap);
}

/* ---- jobs ------------------------------------------------------------------ */

typedef enum { JOB_SET, JOB_GET, JOB_DEL } job_kind_t;

typedef struct job {
    kc_topology_store_t *t;
    job_kind_t kind;
    char *group_id;
    size_t group_id_len;
    int32_t epoch;
    uint8_t *in;        /* set: the description */
    size_t in_len;
    kc_topology_store_cb cb;
    void *arg;
    /* the result, copied in done() */
    kc_topology_store_status_t status;
    char *message;
    uint8_t *out;
    size_t out_len;
    uintptr_t token;    /* what the store's done() gets back; never reused */
    struct job *live_prev, *live_next; /* in live_jobs until done() ran */
    struct job *next;
} job_t;

/*
 * The calls handed to a store and not completed yet, found by their token.
 * A store that completes a call twice, or completes one after the job was
 * delivered and freed (or after the store closed), finds nothing there and
 * is ignored: the job itself is never touched again. Tokens are sequence
 * numbers, so a freed job's token cannot name a newer one.
 */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static job_t *live_jobs;
static uintptr_t live_seq;

static void live_add(job_t *j)
{
    pthread_mutex_lock(&live_mu);
    j->token = ++live_seq;
    j->live_prev = NULL;
    j->live_next = live_jobs;
    if (live_jobs)
        live_jobs->live_prev = j;
    live_jobs = j;
    pthread_mutex_unlock(&live_mu);
}

/* Caller holds live_mu. */
static void live_unlink(job_t *j)
{
    if (j->live_prev)
        j->live_prev->live_next = j->live_next;
    else
        live_jobs = j->live_next;
    if (j->live_next)
        j->live_next->live_prev = j->live_prev;
    j->live_prev = j->live_next = NULL;
}

/* The job of token, taken out of live_jobs; NULL when none is live. */
static job_t *live_take(void *token)
{
    uintptr_t seq = (uintptr_t)token;
    pthread_mutex_lock(&live_mu);
    job_t *j = live_jobs;
    while (j && j->token != seq)
        j = j->live_next;
    if (j)
        live_unlink(j);
    pthread_mutex_unlock(&live_mu);
    return j;
}

static void *token_of(const job_t *j)
{
    return (void *)(uintptr_t)j->token;
}

struct kc_topology_store {
    const kc_topology_store_ops_t *ops;
    void *state;
    void *dl;           /* dlopen handle or NULL */
    struct event_base *base;
    int efd;
    struct event *ev;
    pthread_mutex_t mu;
    pthread_cond_t cv;  /* work queued, or stopping */
    job_t *queue_head, *queue_tail; /* not started */
    job_t *done_head, *done_tail;   /* completed, callback not run */
    size_t pending;     /* submitted, callback not run */
    bool stopping;
    pthread_t *threads;
    int nthreads;
};

static void job_free(job_t *j)
{
    free(j->group_id);
    free(j->in);
    free(j->message);
    free(j->out);
    free(j);
}

/* The store's completion: any thread, exactly once per call. */
static void job_done(void *token, const kc_topology_store_result_t *res)
{
    job_t *j = live_take(token);
    if (!j) {
        kc_log_error(COMP, "a topology-description store completed a call twice, or one it "
                           "was not given; ignored");
        return;
    }
    kc_topology_store_t *t = j->t;
    j->status = res ? res->status : KC_TOPOLOGY_STORE_TRANSIENT;
    if (res && res->message)
        j->message = kc_xstrdup(res->message);
    if (res && j->kind == JOB_GET && res->status == KC_TOPOLOGY_STORE_OK) {
        j->out_len = res->len;
        j->out = kc_xmalloc(res->len ? res->len : 1);
        if (res->len)
            memcpy(j->out, res->data, res->len);
    }
    pthread_mutex_lock(&t->mu);
    bool wake = t->done_head == NULL;
    if (t->done_tail)
        t->done_tail->next = j;
    else
        t->done_head = j;
    t->done_tail = j;
    j->next = NULL;
    pthread_mutex_unlock(&t->mu);
    if (wake) {
        uint64_t one = 1;
        ssize_t n = write(t->efd, &one, sizeof(one));
        (void)n; /* EAGAIN: the counter is already non-zero, the loop wakes anyway */
    }
}

static void run_job(job_t *j)
{
    kc_topology_store_t *t = j->t;
    switch (j->kind) {
    case JOB_SET:
        t->ops->set(t->state, j->group_id, j->group_id_len, j->epoch, j->in, j->in_len, job_done,
                    token_of(j));
        break;
    case JOB_GET:
        t->ops->get(t->state, j->group_id, j->group_id_len, j->epoch, job_done, token_of(j));
        break;
    case JOB_DEL:
        t->ops->del(t->state, j->group_id, j->group_id_len, job_done, token_of(j));
        break;
    }
}

static void *worker_main(void *arg)
{
    kc_topology_store_t *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->queue_head && !t->stopping)
            pthread_cond_wait(&t->cv, &t->mu);
        if (!t->queue_head)
            break; /* stopping and nothing queued */
        job_t *j = t->queue_head;
        t->queue_head = j->next;
        if (!t->queue_head)
            t->queue_tail = NULL;
        pthread_mutex_unlock(&t->mu);
        run_job(j);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* On the loop: run the callbacks of completed calls, in completion order. */
static void deliver(kc_topology_store_t *t)
{
    pthread_mutex_lock(&t->mu);
    job_t *list = t->done_head;
    t->done_head = t->done_tail = NULL;
    pthread_mutex_unlock(&t->mu);
    while (list) {
        job_t *j = list;
        list = j->next;
        kc_topology_store_result_t res = {j->status, j->message, j->out, j->out_len};
        t->pending--;
        j->cb(j->arg, &res);
        job_free(j);
    }
}

static void efd_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    uint64_t n;
    ssize_t r = read(fd, &n, sizeof(n));
    (void)r;
    deliver(arg);
}

static void submit(kc_topology_store_t *t, job_kind_t kind, const char *group_id, size_t group_id_len,
                   int32_t epoch, const uint8_t *in, size_t in_len, kc_topology_store_cb cb, void *arg)
{
    job_t *j = kc_xcalloc(1, sizeof(*j));
    j->t = t;
    j->kind = kind;
    j->group_id = kc_xstrndup(group_id, group_id_len);
    j->group_id_len = group_id_len;
    j->epoch = epoch;
    if (in_len) {
        j->in = kc_xmalloc(in_len);
        memcpy(j->in, in, in_len);
    }
    j->in_len = in_len;
    j->cb = cb;
    j->arg = arg;
    live_add(j);
    t->pending++;
    pthread_mutex_lock(&t->mu);
    if (t->queue_tail)
        t->queue_tail->next = j;
    else
        t->queue_head = j;
    t->queue_tail = j;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

void kc_topology_store_set(kc_topology_store_t *t, const char *group_id, size_t group_id_len, int32_t epoch,
                   const uint8_t *description, size_t len, kc_topology_store_cb cb, void *arg)
{
    submit(t, JOB_SET, group_id, group_id_len, epoch, description, len, cb, arg);
}

void kc_topology_store_get(kc_topology_store_t *t, const char *group_id, size_t group_id_len, int32_t epoch,
                   kc_topology_store_cb cb, void *arg)
{
    submit(t, JOB_GET, group_id, group_id_len, epoch, NULL, 0, cb, arg);
}

void kc_topology_store_del(kc_topology_store_t *t, const char *group_id, size_t group_id_len, kc_topology_store_cb cb,
                   void *arg)
{
    submit(t, JOB_DEL, group_id, group_id_len, -1, NULL, 0, cb, arg);
}

size_t kc_topology_store_pending(const kc_topology_store_t *t)
{
    return t->pending;
}

const char *kc_topology_store_name(const kc_topology_store_t *t)
{
    return t->ops->name;
}

/* ---- loading ---------------------------------------------------------------- */

static void store_log(int level, const char *msg)
{
    kc_log_level_t l = level <= KC_TOPOLOGY_STORE_LOG_DEBUG   ? KC_LOG_DEBUG
                       : level == KC_TOPOLOGY_STORE_LOG_INFO ? KC_LOG_INFO
                       : level == KC_TOPOLOGY_STORE_LOG_WARN ? KC_LOG_WARN
                                                             : KC_LOG_ERROR;
    kc_log(l, COMP, "%s", msg);
}

const kc_topology_store_ops_t *kc_topology_store_resolve(const char *name, void **handle, char *err,
                                                 size_t errlen)
{
    *handle = NULL;
    const kc_topology_store_ops_t *ops = NULL;
    if (strcmp(name, "memory") == 0) {
        ops = kc_topology_store_memory_ops();
    } else if (strcmp(name, "lmdb") == 0) {
        ops = kc_topology_store_lmdb_ops();
    } else {
        void *dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
            errf(err, errlen, "cannot load %s: %s", name, dlerror());
            return NULL;
        }
        kc_topology_store_entry_fn entry;
        void *sym = dlsym(dl, KC_TOPOLOGY_STORE_ENTRY);
        memcpy(&entry, &sym, sizeof(entry));
        ops = entry ? entry() : NULL;
        if (!ops) {
            errf(err, errlen, "%s does not export %s (or it returned NULL)", name,
                 KC_TOPOLOGY_STORE_ENTRY);
            dlclose(dl);
            return NULL;
        }
        *handle = dl;
    }
    if (ops->abi_version != KC_TOPOLOGY_STORE_ABI_VERSION ||
        ops->struct_size < sizeof(kc_topology_store_ops_t) || !ops->init || !ops->close ||
        !ops->set || !ops->get || !ops->del) {
        errf(err, errlen, "%s: store ABI version %u (size %u) where kcoord needs version %u",
             name, ops->abi_version, ops->struct_size, KC_TOPOLOGY_STORE_ABI_VERSION);
        if (*handle)
            dlclose(*handle);
        *handle = NULL;
        return NULL;
    }
    return ops;
}

static kc_topology_store_t *open_ops(struct event_base *base, const kc_topology_store_ops_t *ops,
                             void *dl, const char *data_dir, const char *args, int threads,
                             char *err, size_t errlen)
{
    kc_topology_store_t *t = kc_xcalloc(1, sizeof(*t));
    t->ops = ops;
    t->dl = dl;
    t->base = base;
    t->efd = -1;
    kc_topology_store_config_t cfg = {KC_TOPOLOGY_STORE_ABI_VERSION,
                                      sizeof(kc_topology_store_config_t), data_dir,
                                      args ? args : "", store_log};
    char why[512] = "";
    if (ops->init(&cfg, &t->state, why, sizeof(why)) != 0) {
        errf(err, errlen, "store %s failed to start: %s", ops->name, why[0] ? why : "no reason given");
        if (dl)
            dlclose(dl);
        free(t);
        return NULL;
    }
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    t->ev = t->efd >= 0 ? event_new(base, t->efd, EV_READ | EV_PERSIST, efd_cb, t) : NULL;
    if (!t->ev || event_add(t->ev, NULL) != 0) {
        errf(err, errlen, "cannot create the store's wake-up descriptor: %s", strerror(errno));
        goto fail;
    }
    t->nthreads = threads < 1 ? 1 : threads;
    t->threads = kc_xcalloc((size_t)t->nthreads, sizeof(pthread_t));
    for (int i = 0; i < t->nthreads; i++) {
        if (pthread_create(&t->threads[i], NULL, worker_main, t) != 0) {
            errf(err, errlen, "cannot start store worker threads");
            t->nthreads = i;
            goto fail;
        }
    }
    kc_log_info(COMP, "topology-description store %s started (%d worker threads)", ops->name,
                t->nthreads);
    return t;
fail:
    kc_topology_store_close(t);
    return NULL;
}

kc_topology_store_t *kc_topology_store_open_ops(struct event_base *base, const kc_topology_store_ops_t *ops,
                                const char *data_dir, const char *args, int threads, char *err,
                                size_t errlen)
{
    return open_ops(base, ops, NULL, data_dir, args, threads, err, errlen);
}

kc_topology_store_t *kc_topology_store_open(struct event_base *base, const char *name, const char *data_dir,
                            const char *args, int threads, char *err, size_t errlen)
{
    void *dl;
    const kc_topology_store_ops_t *ops = kc_topology_store_resolve(name, &dl, err, errlen);
    return ops ? open_ops(base, ops, dl, data_dir, args, threads, err, errlen) : NULL;
}

void kc_topology_store_close(kc_topology_store_t *t)
{
    if (!t)
        return;
    /* Calls not started never reach the store. */
    pthread_mutex_lock(&t->mu);
    job_t *cancelled = t->queue_head;
    t->queue_head = t->queue_tail = NULL;
    t->stopping = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->nthreads; i++)
        pthread_join(t->threads[i], NULL);
    free(t->threads);
    /* The store completes what it still holds before close returns. */
    t->ops->close(t->state);
    while (cancelled) {
        job_t *j = cancelled;
        cancelled = j->next;
        kc_topology_store_result_t res = {KC_TOPOLOGY_STORE_TRANSIENT, "kcoord is shutting down",
                                          NULL, 0};
        job_done(token_of(j), &res);
    }
    deliver(t);
    if (t->pending) {
        kc_log_warn(COMP, "store %s left %zu calls without completing them", t->ops->name,
                    t->pending);
        /* Their callbacks never run; a completion after this is ignored. */
        pthread_mutex_lock(&live_mu);
        for (job_t *j = live_jobs, *next; j; j = next) {
            next = j->live_next;
            if (j->t == t) {
                live_unlink(j);
                job_free(j);
            }
        }
        pthread_mutex_unlock(&live_mu);
    }
    if (t->ev)
        event_free(t->ev);
    if (t->efd >= 0)
        close(t->efd);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    if (t->dl)
        dlclose(t->dl);
    free(t);
}

/* ---- the built-in in-memory store ----------------------------------------------- */

/* One description per group, identified by its epoch (Kafka's
 * InMemoryTopologyDescriptionPlugin); lost on restart. */
typedef struct mem_entry {
    char *group_id;
    size_t group_id_len;
    int32_t epoch;
    uint8_t *data;
    size_t len;
    struct mem_entry *next;
} mem_entry_t;

typedef struct {
    pthread_mutex_t mu;
    mem_entry_t *head;
} mem_store_t;

static int mem_init(const kc_topology_store_config_t *cfg, void **state, char *err, size_t errlen)
{
    (void)cfg;
    (void)err;
    (void)errlen;
    mem_store_t *m = kc_xcalloc(1, sizeof(*m));
    pthread_mutex_init(&m->mu, NULL);
    *state = m;
    return 0;
}

static void mem_entry_free(mem_entry_t *e)
{
    free(e->group_id);
    free(e->data);
    free(e);
}

static void mem_close(void *state)
{
    mem_store_t *m = state;
    while (m->head) {
        mem_entry_t *e = m->head;
        m->head = e->next;
        mem_entry_free(e);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static mem_entry_t **mem_find(mem_store_t *m, const char *g, size_t len)
{
    mem_entry_t **p = &m->head;
    while (*p && ((*p)->group_id_len != len || memcmp((*p)->group_id, g, len) != 0))
        p = &(*p)->next;
    return p;
}

static void mem_set(void *state, const char *g, size_t glen, int32_t epoch, const uint8_t *d,
                    size_t len, kc_topology_store_done_fn done, void *token)
{
    mem_store_t *m = state;
    mem_entry_t *e = kc_xcalloc(1, sizeof(*e));
    e->group_id = kc_xstrndup(g, glen);
    e->group_id_len = glen;
    e->epoch = epoch;
    e->data = kc_xmalloc(len ? len : 1);
    if (len)
        memcpy(e->data, d, len);
    e->len = len;
    pthread_mutex_lock(&m->mu);
    mem_entry_t **p = mem_find(m, g, glen);
    if (*p) {
        e->next = (*p)->next;
        mem_entry_free(*p);
    }
    *p = e;
    pthread_mutex_unlock(&m->mu);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static void mem_get(void *state, const char *g, size_t glen, int32_t epoch,
                    kc_topology_store_done_fn done, void *token)
{
    mem_store_t *m = state;
    pthread_mutex_lock(&m->mu);
    mem_entry_t *e = *mem_find(m, g, glen);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_NOT_FOUND, NULL, NULL, 0};
    uint8_t *copy = NULL;
    if (e && e->epoch == epoch) {
        copy = kc_xmalloc(e->len ? e->len : 1);
        memcpy(copy, e->data, e->len);
        r = (kc_topology_store_result_t){KC_TOPOLOGY_STORE_OK, NULL, copy, e->len};
    }
    pthread_mutex_unlock(&m->mu);
    done(token, &r);
    free(copy);
}

static void mem_del(void *state, const char *g, size_t glen, kc_topology_store_done_fn done,
                    void *token)
{
    mem_store_t *m = state;
    pthread_mutex_lock(&m->mu);
    mem_entry_t **p = mem_find(m, g, glen);
    if (*p) {
        mem_entry_t *e = *p;
        *p = e->next;
        mem_entry_free(e);
    }
    pthread_mutex_unlock(&m->mu);
    kc_topology_store_result_t r = {KC_TOPOLOGY_STORE_OK, NULL, NULL, 0};
    done(token, &r);
}

static const kc_topology_store_ops_t mem_ops = {
    KC_TOPOLOGY_STORE_ABI_VERSION, sizeof(kc_topology_store_ops_t), "memory",
    mem_init, mem_close, mem_set, mem_get, mem_del,
};

const kc_topology_store_ops_t *kc_topology_store_memory_ops(void)
{
    return &mem_ops;
}
