/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Task sets of streams groups and the "sticky" task assignor of KIP-1071,
 * after Kafka's StickyTaskAssignor and ProcessState: active tasks stay with
 * their previous owner (then with a previous standby owner) while that
 * member is under its quota, the rest go to the least loaded process;
 * standbys of stateful tasks go first to the previous active owner, then to
 * previous standby owners, then to the least loaded processes that do not
 * hold the task. Not here: ranking standby candidates by reported task
 * offsets (kcoord keeps previous standby owners in member order) and
 * rack-aware standby placement.
 */
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "streams_int.h"

/* ---- task sets -------------------------------------------------------- */

void kc_tasks_free(kc_tasks_t *t)
{
    for (int32_t i = 0; i < t->n; i++) {
        free(t->s[i].subtopology_id);
        kc_int_set_free(&t->s[i].set);
    }
    free(t->s);
    memset(t, 0, sizeof(*t));
}

void kc_tasks_copy(kc_tasks_t *dst, const kc_tasks_t *src)
{
    kc_tasks_free(dst);
    if (src->n == 0)
        return;
    dst->s = kc_xcalloc((size_t)src->n, sizeof(*dst->s));
    dst->n = dst->cap = src->n;
    for (int32_t i = 0; i < src->n; i++) {
        dst->s[i].subtopology_id = kc_xstrdup(src->s[i].subtopology_id);
        kc_int_set_copy(&dst->s[i].set, &src->s[i].set);
    }
}

static int32_t sub_pos(const kc_tasks_t *t, const char *id, bool *found)
{
    int32_t lo = 0, hi = t->n;
    if (t->n && strcmp(t->s[t->n - 1].subtopology_id, id) < 0) {
        *found = false;
        return t->n;
    }
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(t->s[mid].subtopology_id, id);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

const kc_tasks_sub_t *kc_tasks_find(const kc_tasks_t *t, const char *subtopology_id)
{
    bool found;
    int32_t i = sub_pos(t, subtopology_id, &found);
    return found ? &t->s[i] : NULL;
}

void kc_tasks_add(kc_tasks_t *t, const char *subtopology_id, int32_t partition)
{
    bool found;
    int32_t i = sub_pos(t, subtopology_id, &found);
    if (!found) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 4;
            t->s = kc_xrealloc(t->s, (size_t)t->cap * sizeof(*t->s));
        }
        memmove(&t->s[i + 1], &t->s[i], (size_t)(t->n - i) * sizeof(*t->s));
        memset(&t->s[i], 0, sizeof(t->s[i]));
        t->s[i].subtopology_id = kc_xstrdup(subtopology_id);
        t->n++;
    }
    kc_int_set_add(&t->s[i].set, partition);
}

bool kc_tasks_remove(kc_tasks_t *t, const char *subtopology_id, int32_t partition)
{
    bool found;
    int32_t i = sub_pos(t, subtopology_id, &found);
    if (!found)
        return false;
    kc_tasks_sub_t *s = &t->s[i];
    if (!kc_int_set_remove(&s->set, partition))
        return false;
    if (s->n == 0) {
        free(s->subtopology_id);
        kc_int_set_free(&s->set);
        memmove(&t->s[i], &t->s[i + 1], (size_t)(t->n - i - 1) * sizeof(*t->s));
        t->n--;
    }
    return true;
}

bool kc_tasks_has(const kc_tasks_t *t, const char *subtopology_id, int32_t partition)
{
    const kc_tasks_sub_t *s = kc_tasks_find(t, subtopology_id);
    return s && kc_int_set_has(&s->set, partition);
}

bool kc_tasks_equal(const kc_tasks_t *a, const kc_tasks_t *b)
{
    /* Subtopologies without partitions do not count. */
    int32_t i = 0, j = 0;
    for (;;) {
        while (i < a->n && a->s[i].n == 0)
            i++;
        while (j < b->n && b->s[j].n == 0)
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (strcmp(a->s[i].subtopology_id, b->s[j].subtopology_id) != 0 ||
            !kc_int_set_equal(&a->s[i].set, &b->s[j].set))
            return false;
        i++;
        j++;
    }
}

int64_t kc_tasks_count(const kc_tasks_t *t)
{
    int64_t n = 0;
    for (int32_t i = 0; i < t->n; i++)
        n += t->s[i].n;
    return n;
}

void kc_tasks_tuple_free(kc_tasks_tuple_t *t)
{
    kc_tasks_free(&t->active);
    kc_tasks_free(&t->standby);
    kc_tasks_free(&t->warmup);
}

void kc_tasks_tuple_copy(kc_tasks_tuple_t *dst, const kc_tasks_tuple_t *src)
{
    kc_tasks_copy(&dst->active, &src->active);
    kc_tasks_copy(&dst->standby, &src->standby);
    kc_tasks_copy(&dst->warmup, &src->warmup);
}

bool kc_tasks_tuple_equal(const kc_tasks_tuple_t *a, const kc_tasks_tuple_t *b)
{
    return kc_tasks_equal(&a->active, &b->active) && kc_tasks_equal(&a->standby, &b->standby) &&
           kc_tasks_equal(&a->warmup, &b->warmup);
}

bool kc_tasks_tuple_is_empty(const kc_tasks_tuple_t *t)
{
    return kc_tasks_count(&t->active) + kc_tasks_count(&t->standby) +
               kc_tasks_count(&t->warmup) ==
           0;
}

/* ---- the sticky assignor ------------------------------------------------ */

/*
 * Kafka's assignor works on HashMaps and PriorityQueues, and where loads tie
 * their iteration and heap orders decide; these mirror them.
 *
 * java_map_order: the order a java.util.HashMap created with initial
 * capacity init (0: the default 16) iterates keys put in the given order:
 * bucket by bucket (the spread Java hash masked by the table size, which
 * doubles whenever the size passes three quarters of it), each bucket in
 * insertion order (a resize keeps the relative order).
 */
static uint32_t java_table_size(int32_t init, int32_t n)
{
    uint32_t cap = 16;
    if (init > 0) {
        cap = 1;
        while ((int32_t)cap < init)
            cap <<= 1;
    }
    uint32_t thr = (uint32_t)((double)cap * 0.75);
    for (int32_t size = 1; size <= n; size++)
        if ((uint32_t)size > thr) {
            cap <<= 1;
            thr = (uint32_t)((double)cap * 0.75);
        }
    return cap;
}

typedef struct {
    int32_t index;
    uint32_t bucket;
} jpos_t;

static int cmp_jpos(const void *a, const void *b)
{
    const jpos_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static void java_map_order(const char *const *keys, int32_t n, int32_t init, int32_t *out)
{
    if (n <= 0)
        return;
    uint32_t cap = java_table_size(init, n);
    jpos_t *pos = kc_xcalloc((size_t)n, sizeof(*pos));
    for (int32_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t)kc_java_string_hash(keys[i], strlen(keys[i]));
        pos[i].index = i;
        pos[i].bucket = (h ^ (h >> 16)) & (cap - 1);
    }
    qsort(pos, (size_t)n, sizeof(*pos), cmp_jpos);
    for (int32_t i = 0; i < n; i++)
        out[i] = pos[i].index;
    free(pos);
}

/* java.util.PriorityQueue over int items: the same sift steps, so items
 * that compare equal come out in the same order as in Kafka. */
typedef struct {
    int32_t *q;
    int32_t n;
    int (*cmp)(const void *ctx, int32_t a, int32_t b);
    const void *ctx;
} jpq_t;

static void jpq_offer(jpq_t *pq, int32_t x)
{
    int32_t k = pq->n++;
    while (k > 0) {
        int32_t parent = (k - 1) >> 1;
        int32_t e = pq->q[parent];
        if (pq->cmp(pq->ctx, x, e) >= 0)
            break;
        pq->q[k] = e;
        k = parent;
    }
    pq->q[k] = x;
}

static int32_t jpq_poll(jpq_t *pq)
{
    if (pq->n == 0)
        return -1;
    int32_t result = pq->q[0];
    int32_t n = --pq->n;
    if (n > 0) {
        int32_t x = pq->q[n], k = 0, half = n >> 1;
        while (k < half) {
            int32_t child = 2 * k + 1, right = child + 1;
            int32_t c = pq->q[child];
            if (right < n && pq->cmp(pq->ctx, c, pq->q[right]) > 0)
                c = pq->q[child = right];
            if (pq->cmp(pq->ctx, x, c) <= 0)
                break;
            pq->q[k] = c;
            k = child;
        }
        pq->q[k] = x;
    }
    return result;
}

typedef struct {
    int32_t capacity;   /* members of the process */
    int32_t task_count; /* tasks (active and standby) assigned to it */
    int32_t *members;   /* member indexes, in its memberToTaskCounts' HashMap order */
    int32_t nmembers, cap;
    uint8_t *has;       /* bitmap over task indexes */
    /* membersByLoad: a PriorityQueue of members by task count, dropped by
     * every direct addTask and rebuilt when next needed */
    int32_t *mheap;
    int32_t nmheap;
    bool mheap_valid;
} proc_t;

typedef struct {
    const kc_st_spec_t *spec;
    int32_t ntasks;
    int32_t *base;     /* task index of (subtopology s, partition 0) */
    proc_t *procs;
    int32_t nprocs;
    int32_t *proc_order; /* processes in processIdToState's HashMap order */
    int32_t *proc_of;  /* member -> process */
    int32_t *mcount;   /* member -> tasks assigned */
    int32_t *prev_active;      /* task -> member, -1 none */
    int32_t *sb_start, *sb_list; /* task -> previous standby members (CSR) */
    int32_t total_active, members_active_cap, active_per_member;
    int32_t total_tasks, members_task_cap, tasks_per_member;
} st_state_t;

static int32_t per_member(int32_t tasks, int32_t members)
{
    if (members <= 0)
        return 0;
    return tasks / members + (tasks % members > 0 ? 1 : 0);
}

static double load_of(const proc_t *p)
{
    return p->capacity <= 0 ? -1.0 : (double)p->task_count / p->capacity;
}

static bool proc_has(const st_state_t *st, int32_t proc, int32_t task)
{
    return (st->procs[proc].has[task >> 3] >> (task & 7)) & 1;
}

static void note_active_count(st_state_t *st, int32_t n)
{
    if (n == st->active_per_member) {
        st->members_active_cap--;
        st->total_active -= n;
        st->active_per_member = per_member(st->total_active, st->members_active_cap);
    }
}

static void note_total_count(st_state_t *st, int32_t n)
{
    if (n == st->tasks_per_member) {
        st->members_task_cap--;
        st->total_tasks -= n;
        st->tasks_per_member = per_member(st->total_tasks, st->members_task_cap);
    }
}

/* ProcessState.addTaskInternal: gives task to member m; returns the
 * member's new task count. */
static int32_t add_task_internal(st_state_t *st, int32_t m, int32_t task, int32_t sub, bool active)
{
    kc_st_member_t *mem = &st->spec->members[m];
    proc_t *p = &st->procs[st->proc_of[m]];
    p->task_count++;
    p->has[task >> 3] |= (uint8_t)(1u << (task & 7));
    int32_t partition = task - st->base[sub];
    kc_tasks_add(active ? &mem->active : &mem->standby,
                 st->spec->subtopologies[sub].subtopology_id, partition);
    return ++st->mcount[m];
}

/* ProcessState.addTask (to a given member): drops the member heap. */
static int32_t add_task(st_state_t *st, int32_t m, int32_t task, int32_t sub, bool active)
{
    st->procs[st->proc_of[m]].mheap_valid = false;
    return add_task_internal(st, m, task, sub, active);
}

static int cmp_member_load(const void *ctx, int32_t a, int32_t b)
{
    const st_state_t *st = ctx;
    return (st->mcount[a] > st->mcount[b]) - (st->mcount[a] < st->mcount[b]);
}

/* ProcessState.addTaskToLeastLoadedMember; returns the new task count. */
static int32_t add_task_least_loaded(st_state_t *st, int32_t proc, int32_t task, int32_t sub, bool active)
{
    proc_t *p = &st->procs[proc];
    if (p->nmembers == 0)
        return -1;
    if (p->nmembers == 1)
        return add_task_internal(st, p->members[0], task, sub, active);
    jpq_t pq = {p->mheap, p->nmheap, cmp_member_load, st};
    if (!p->mheap_valid) {
        pq.n = 0;
        for (int32_t i = 0; i < p->nmembers; i++)
            jpq_offer(&pq, p->members[i]);
        p->mheap_valid = true;
    }
    int32_t m = jpq_poll(&pq);
    int32_t n = add_task_internal(st, m, task, sub, active);
    jpq_offer(&pq, m);
    p->nmheap = pq.n;
    return n;
}

static int cmp_proc_load(const void *ctx, int32_t a, int32_t b)
{
    const st_state_t *st = ctx;
    double la = load_of(&st->procs[a]), lb = load_of(&st->procs[b]);
    return (la > lb) - (la < lb);
}

/* A new PriorityQueue of the processes by load, filled from
 * processIdToState.values(). */
static void proc_queue_fill(const st_state_t *st, jpq_t *pq)
{
    pq->n = 0;
    pq->cmp = cmp_proc_load;
    pq->ctx = st;
    for (int32_t i = 0; i < st->nprocs; i++)
        jpq_offer(pq, st->proc_order[i]);
}

/* Kafka's findPrevMemberWithLeastLoad; skip_task >= 0 skips processes
 * already holding it. */
static int32_t prev_member_least_load(const st_state_t *st, int32_t task, int32_t skip_task)
{
    int32_t cand = -1;
    double cand_pl = 0, cand_ml = 0;
    for (int32_t k = st->sb_start[task]; k < st->sb_start[task + 1]; k++) {
        int32_t m = st->sb_list[k];
        int32_t p = st->proc_of[m];
        if (skip_task >= 0 && proc_has(st, p, skip_task))
            continue;
        double pl = load_of(&st->procs[p]), ml = st->mcount[m];
        if (cand < 0 || (pl < cand_pl && ml < cand_ml)) {
            cand = m;
            cand_pl = pl;
            cand_ml = ml;
        }
    }
    return cand;
}

/* assignStandbyToMemberWithLeastLoad: polls processes until one does not
 * hold the task, then puts the polled ones back, innermost first. */
static bool assign_standby_least_loaded(st_state_t *st, jpq_t *pq, int32_t task, int32_t sub)
{
    int32_t p = jpq_poll(pq);
    if (p < 0)
        return false;
    bool found = false;
    if (!proc_has(st, p, task)) {
        int32_t n = add_task_least_loaded(st, p, task, sub, false);
        if (n != -1) {
            found = true;
            note_total_count(st, n);
        }
    } else if (pq->n > 0) {
        found = assign_standby_least_loaded(st, pq, task, sub);
    }
    jpq_offer(pq, p);
    return found;
}

typedef struct {
    int32_t task, sub, remaining;
} sb_todo_t;

void kc_assignor_streams_sticky(kc_st_spec_t *spec)
{
    int32_t nm = spec->nmembers, ns = spec->nsubtopologies;
    if (nm == 0 || ns == 0)
        return;
    st_state_t st;
    memset(&st, 0, sizeof(st));
    st.spec = spec;
    st.base = kc_xcalloc((size_t)ns + 1, sizeof(*st.base));
    int32_t maxp = 0, stateful_tasks = 0;
    for (int32_t s = 0; s < ns; s++) {
        int32_t parts = spec->subtopologies[s].partitions > 0 ? spec->subtopologies[s].partitions : 0;
        st.base[s + 1] = st.base[s] + parts;
        if (parts > maxp)
            maxp = parts;
        if (spec->subtopologies[s].stateful)
            stateful_tasks += parts;
    }
    st.ntasks = st.base[ns];
    int32_t nt = st.ntasks;
    int32_t r = spec->num_standby_replicas > 0 ? spec->num_standby_replicas : 0;

    /* Processes, in order of first appearance among the members (which
     * come in Kafka's memberIds order). */
    kc_smap_t by_proc;
    kc_smap_init(&by_proc);
    st.procs = kc_xcalloc((size_t)nm, sizeof(*st.procs));
    st.proc_of = kc_xcalloc((size_t)nm, sizeof(*st.proc_of));
    st.mcount = kc_xcalloc((size_t)nm, sizeof(*st.mcount));
    size_t bitmap = (size_t)(nt + 8) / 8;
    for (int32_t m = 0; m < nm; m++) {
        const char *pid = spec->members[m].process_id ? spec->members[m].process_id : "";
        void *v = kc_smap_get(&by_proc, pid, strlen(pid));
        int32_t p;
        if (v) {
            p = (int32_t)((intptr_t)v - 1);
        } else {
            p = st.nprocs++;
            kc_smap_put(&by_proc, pid, strlen(pid), (void *)(intptr_t)(p + 1));
            st.procs[p].has = kc_xcalloc(bitmap, 1);
        }
        proc_t *pr = &st.procs[p];
        if (pr->nmembers == pr->cap) {
            pr->cap = pr->cap ? pr->cap * 2 : 4;
            pr->members = kc_xrealloc(pr->members, (size_t)pr->cap * sizeof(int32_t));
        }
        pr->members[pr->nmembers++] = m;
        pr->capacity++;
        st.proc_of[m] = p;
    }
    kc_smap_deinit(&by_proc);
    /* processIdToState = new HashMap<>(members); each process's
     * memberToTaskCounts = new HashMap<>(). */
    const char **keys = kc_xcalloc((size_t)nm + 1, sizeof(*keys));
    int32_t *ord = kc_xcalloc((size_t)nm + 1, sizeof(*ord));
    st.proc_order = kc_xcalloc((size_t)st.nprocs + 1, sizeof(*st.proc_order));
    for (int32_t p = 0; p < st.nprocs; p++) {
        const char *pid = spec->members[st.procs[p].members[0]].process_id;
        keys[p] = pid ? pid : "";
    }
    java_map_order(keys, st.nprocs, nm, st.proc_order);
    for (int32_t p = 0; p < st.nprocs; p++) {
        proc_t *pr = &st.procs[p];
        int32_t *copy = kc_xcalloc((size_t)pr->nmembers, sizeof(*copy));
        for (int32_t i = 0; i < pr->nmembers; i++)
            keys[i] = spec->members[pr->members[i]].member_id;
        java_map_order(keys, pr->nmembers, 0, ord);
        for (int32_t i = 0; i < pr->nmembers; i++)
            copy[i] = pr->members[ord[i]];
        memcpy(pr->members, copy, (size_t)pr->nmembers * sizeof(*copy));
        free(copy);
        pr->mheap = kc_xcalloc((size_t)pr->nmembers + 1, sizeof(*pr->mheap));
    }
    free(keys);
    free(ord);

    st.total_active = nt;
    st.total_tasks = nt + stateful_tasks * r;
    st.members_active_cap = st.members_task_cap = nm;
    st.active_per_member = per_member(st.total_active, nm);
    st.tasks_per_member = per_member(st.total_tasks, nm);

    /* Previous owners, from the tasks each member currently has (a later
     * member overwrites an earlier claim, as HashMap.put). */
    st.prev_active = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    for (int32_t t = 0; t < nt; t++)
        st.prev_active[t] = -1;
    st.sb_start = kc_xcalloc((size_t)nt + 2, sizeof(int32_t));
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0: actives and standby counts; pass 1: CSR offsets; pass 2: fill */
        if (pass == 1) {
            int32_t acc = 0;
            for (int32_t t = 0; t <= nt; t++) {
                int32_t c = st.sb_start[t];
                st.sb_start[t] = acc;
                acc += c;
            }
            st.sb_start[nt + 1] = acc;
            st.sb_list = kc_xmalloc((size_t)(acc ? acc : 1) * sizeof(int32_t));
            continue;
        }
        int32_t *fill = NULL;
        if (pass == 2) {
            fill = kc_xmalloc((size_t)(nt + 1) * sizeof(int32_t));
            memcpy(fill, st.sb_start, (size_t)(nt + 1) * sizeof(int32_t));
        }
        for (int32_t m = 0; m < nm; m++) {
            const kc_tasks_tuple_t *prev = spec->members[m].previous;
            if (!prev)
                continue;
            for (int which = 0; which < 2; which++) {
                const kc_tasks_t *ts = which == 0 ? &prev->active : &prev->standby;
                if (which == 0 && pass == 2)
                    continue;
                for (int32_t i = 0; i < ts->n; i++) {
                    bool found;
                    int32_t s = 0, lo = 0, hi = ns;
                    found = false;
                    while (lo < hi) {
                        int32_t mid = (lo + hi) / 2;
                        int c = strcmp(spec->subtopologies[mid].subtopology_id,
                                       ts->s[i].subtopology_id);
                        if (c == 0) {
                            s = mid;
                            found = true;
                            break;
                        }
                        if (c < 0)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    if (!found)
                        continue;
                    int32_t parts = st.base[s + 1] - st.base[s];
                    for (int32_t j = 0; j < ts->s[i].n; j++) {
                        int32_t p = ts->s[i].p[j];
                        if (p < 0 || p >= parts)
                            continue;
                        int32_t t = st.base[s] + p;
                        if (which == 0) {
                            st.prev_active[t] = m;
                        } else if (pass == 0) {
                            st.sb_start[t]++;
                        } else {
                            st.sb_list[fill[t]++] = m;
                        }
                    }
                }
            }
        }
        free(fill);
    }

    /* Tasks with their subtopology, ordered by (partition, subtopology id). */
    int32_t *order = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    int32_t *order_sub = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    int32_t no = 0;
    for (int32_t p = 0; p < maxp; p++)
        for (int32_t s = 0; s < ns; s++)
            if (p < st.base[s + 1] - st.base[s]) {
                order[no] = st.base[s] + p;
                order_sub[no++] = s;
            }
    uint8_t *done = kc_xcalloc((size_t)(nt ? nt : 1), 1);

    /* 1. Active tasks stay with their previous owner while under quota. */
    for (int32_t i = 0; i < no; i++) {
        int32_t t = order[i], m = st.prev_active[t];
        if (m >= 0 && st.mcount[m] < st.active_per_member) {
            int32_t n = add_task(&st, m, t, order_sub[i], true);
            note_active_count(&st, n);
            note_total_count(&st, n);
            done[t] = 1;
        }
    }
    /* 2. Then with a previous standby owner. */
    for (int32_t i = 0; i < no; i++) {
        int32_t t = order[i];
        if (done[t])
            continue;
        int32_t m = prev_member_least_load(&st, t, -1);
        if (m >= 0 && st.mcount[m] < st.active_per_member) {
            int32_t n = add_task(&st, m, t, order_sub[i], true);
            note_active_count(&st, n);
            note_total_count(&st, n);
            done[t] = 1;
        }
    }
    /* 3. The rest, by (subtopology, partition), to the least loaded process. */
    jpq_t pq = {kc_xmalloc((size_t)st.nprocs * sizeof(int32_t) + sizeof(int32_t)), 0, NULL, NULL};
    proc_queue_fill(&st, &pq);
    for (int32_t s = 0; s < ns; s++)
        for (int32_t t = st.base[s]; t < st.base[s + 1]; t++) {
            if (done[t])
                continue;
            int32_t p = jpq_poll(&pq);
            int32_t n = add_task_least_loaded(&st, p, t, s, true);
            note_active_count(&st, n);
            note_total_count(&st, n);
            jpq_offer(&pq, p);
        }

    /* Standbys of stateful tasks, by (partition, subtopology) descending. */
    if (r > 0 && stateful_tasks > 0) {
        sb_todo_t *todo = kc_xmalloc((size_t)stateful_tasks * sizeof(*todo));
        int32_t ntodo = 0;
        for (int32_t i = no - 1; i >= 0; i--) {
            int32_t t = order[i], s = order_sub[i];
            if (!spec->subtopologies[s].stateful)
                continue;
            for (int32_t k = 0; k < r; k++) {
                int32_t m = st.prev_active[t];
                if (m >= 0 && !proc_has(&st, st.proc_of[m], t) &&
                    st.mcount[m] < st.tasks_per_member) {
                    note_total_count(&st, add_task(&st, m, t, s, false));
                    continue;
                }
                m = prev_member_least_load(&st, t, t);
                if (m >= 0 && st.mcount[m] < st.tasks_per_member) {
                    note_total_count(&st, add_task(&st, m, t, s, false));
                    continue;
                }
                todo[ntodo++] = (sb_todo_t){t, s, r - k};
                break;
            }
        }
        /* The least loaded processes, by (subtopology, partition) descending. */
        proc_queue_fill(&st, &pq);
        /* todo is in (partition desc, subtopology desc) order; walk it in
         * (subtopology desc, partition desc) order instead. */
        for (int32_t s = ns - 1; s >= 0; s--)
            for (int32_t i = 0; i < ntodo; i++) {
                if (todo[i].sub != s)
                    continue;
                for (int32_t k = 0; k < todo[i].remaining; k++)
                    if (!assign_standby_least_loaded(&st, &pq, todo[i].task, s))
                        break; /* not enough capacity for more standbys */
            }
        free(todo);
    }

    free(pq.q);
    free(done);
    free(order);
    free(order_sub);
    for (int32_t p = 0; p < st.nprocs; p++) {
        free(st.procs[p].members);
        free(st.procs[p].has);
        free(st.procs[p].mheap);
    }
    free(st.procs);
    free(st.proc_order);
    free(st.proc_of);
    free(st.mcount);
    free(st.prev_active);
    free(st.sb_start);
    free(st.sb_list);
    free(st.base);
}
