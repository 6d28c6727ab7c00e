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

static void sub_key_init(char **dst, const char *src) { *dst = kc_xstrdup(src); }
static void sub_key_free(char **key) { free(*key); }

KC_KEYED_SETS_DEFINE(kc_tasks, kc_tasks_t, kc_tasks_sub_t, s, subtopology_id, const char *, strcmp,
                     sub_key_init, sub_key_free)

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

/* One process (Kafka's ProcessState). */
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

/* The assignor's state (Kafka's LocalState and its ProcessStates), tasks
 * numbered 0..ntasks-1 subtopology by subtopology. */
typedef struct {
    const kc_st_spec_t *spec;
    int32_t ntasks;
    int32_t *base;           /* task index of (subtopology s, partition 0) */
    int32_t stateful_tasks;  /* tasks of the stateful subtopologies */
    int32_t replicas;        /* standbys wanted per stateful task */
    proc_t *procs;
    int32_t nprocs;
    int32_t *proc_order;     /* processes in processIdToState's HashMap order */
    int32_t *proc_of;        /* member -> process */
    int32_t *mcount;         /* member -> tasks assigned */
    int32_t *prev_active;    /* task -> member, -1 none */
    int32_t *sb_start, *sb_list; /* task -> previous standby members (CSR) */
    int32_t *sb_next;        /* filling sb_list: next free slot of each task */
    int32_t *order, *order_sub; /* tasks by (partition, subtopology id), their subtopologies */
    int32_t norder;
    uint8_t *done;           /* task -> assigned as active already */
    /* the quotas (activeTasksPerMember, tasksPerMember) and what they are
     * computed from: the tasks and members not yet at their quota */
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

/* maybeUpdateActiveTasksPerMember: a member that reached the active quota
 * leaves the quota's count, the quota of the others is computed again. */
static void note_active_count(st_state_t *st, int32_t n)
{
    if (n == st->active_per_member) {
        st->members_active_cap--;
        st->total_active -= n;
        st->active_per_member = per_member(st->total_active, st->members_active_cap);
    }
}

/* maybeUpdateTasksPerMember: the same for the quota of all tasks. */
static void note_total_count(st_state_t *st, int32_t n)
{
    if (n == st->tasks_per_member) {
        st->members_task_cap--;
        st->total_tasks -= n;
        st->tasks_per_member = per_member(st->total_tasks, st->members_task_cap);
    }
}

/* updateHelpers: after a member's count became n by an active or a standby task. */
static void update_helpers(st_state_t *st, int32_t n, bool active)
{
    if (active)
        note_active_count(st, n);
    note_total_count(st, n);
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
 * processIdToState.values(); free pq->q when done. */
static void proc_queue_new(const st_state_t *st, jpq_t *pq)
{
    *pq = (jpq_t){kc_xmalloc(((size_t)st->nprocs + 1) * sizeof(int32_t)), 0, cmp_proc_load, st};
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
            update_helpers(st, n, false);
        }
    } else if (pq->n > 0) {
        found = assign_standby_least_loaded(st, pq, task, sub);
    }
    jpq_offer(pq, p);
    return found;
}

/* ---- initialize --------------------------------------------------------- */

/* taskIds: one task index per (subtopology, partition), subtopology by
 * subtopology; counts the tasks of the stateful subtopologies. */
static void st_tasks_init(st_state_t *st)
{
    const kc_st_spec_t *spec = st->spec;
    int32_t ns = spec->nsubtopologies;
    st->base = kc_xcalloc((size_t)ns + 1, sizeof(*st->base));
    for (int32_t s = 0; s < ns; s++) {
        int32_t parts = spec->subtopologies[s].partitions;
        if (parts < 0)
            parts = 0;
        st->base[s + 1] = st->base[s] + parts;
        if (spec->subtopologies[s].stateful)
            st->stateful_tasks += parts;
    }
    st->ntasks = st->base[ns];
}

/* initialize: processIdToState.putIfAbsent(processId).addMember(memberId),
 * processes numbered in order of first appearance among the members (which
 * come in Kafka's memberIds order). */
static void st_processes_init(st_state_t *st)
{
    const kc_st_spec_t *spec = st->spec;
    int32_t nm = spec->nmembers;
    kc_smap_t by_proc;
    kc_smap_init(&by_proc);
    st->procs = kc_xcalloc((size_t)nm, sizeof(*st->procs));
    st->proc_of = kc_xcalloc((size_t)nm, sizeof(*st->proc_of));
    st->mcount = kc_xcalloc((size_t)nm, sizeof(*st->mcount));
    size_t bitmap = (size_t)(st->ntasks + 8) / 8;
    for (int32_t m = 0; m < nm; m++) {
        const char *pid = spec->members[m].process_id ? spec->members[m].process_id : "";
        void *v = kc_smap_get(&by_proc, pid, strlen(pid));
        int32_t p;
        if (v) {
            p = (int32_t)((intptr_t)v - 1);
        } else {
            p = st->nprocs++;
            kc_smap_put(&by_proc, pid, strlen(pid), (void *)(intptr_t)(p + 1));
            st->procs[p].has = kc_xcalloc(bitmap, 1);
        }
        proc_t *pr = &st->procs[p];
        if (pr->nmembers == pr->cap) {
            pr->cap = pr->cap ? pr->cap * 2 : 4;
            pr->members = kc_xrealloc(pr->members, (size_t)pr->cap * sizeof(int32_t));
        }
        pr->members[pr->nmembers++] = m;
        pr->capacity++;
        st->proc_of[m] = p;
    }
    kc_smap_deinit(&by_proc);
}

/* initialize: processIdToState = new HashMap<>(members) and each process's
 * memberToTaskCounts = new HashMap<>(), as the orders they iterate in. */
static void st_hash_orders(st_state_t *st)
{
    const kc_st_spec_t *spec = st->spec;
    int32_t nm = spec->nmembers;
    const char **keys = kc_xcalloc((size_t)nm + 1, sizeof(*keys));
    int32_t *ord = kc_xcalloc((size_t)nm + 1, sizeof(*ord));
    st->proc_order = kc_xcalloc((size_t)st->nprocs + 1, sizeof(*st->proc_order));
    for (int32_t p = 0; p < st->nprocs; p++) {
        const char *pid = spec->members[st->procs[p].members[0]].process_id;
        keys[p] = pid ? pid : "";
    }
    java_map_order(keys, st->nprocs, nm, st->proc_order);
    for (int32_t p = 0; p < st->nprocs; p++) {
        proc_t *pr = &st->procs[p];
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
}

/* The index of a subtopology id among the spec's (sorted by id), -1 when
 * the topology has no such subtopology. */
static int32_t sub_index(const kc_st_spec_t *spec, const char *id)
{
    int32_t lo = 0, hi = spec->nsubtopologies;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(spec->subtopologies[mid].subtopology_id, id);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

typedef void (*prev_task_fn)(st_state_t *st, int32_t member, int32_t task);

/* Calls fn for each task of ts (of member m) that the topology has. */
static void prev_tasks_each(st_state_t *st, int32_t m, const kc_tasks_t *ts, prev_task_fn fn)
{
    for (int32_t i = 0; i < ts->n; i++) {
        int32_t s = sub_index(st->spec, ts->s[i].subtopology_id);
        if (s < 0)
            continue;
        int32_t parts = st->base[s + 1] - st->base[s];
        for (int32_t j = 0; j < ts->s[i].n; j++) {
            int32_t p = ts->s[i].p[j];
            if (p >= 0 && p < parts)
                fn(st, m, st->base[s] + p);
        }
    }
}

/* activeTaskToPrevMember.put: a later member overwrites an earlier claim. */
static void put_prev_active(st_state_t *st, int32_t m, int32_t task) { st->prev_active[task] = m; }

/* Counts a previous standby owner of the task (sizes of the CSR rows). */
static void count_prev_standby(st_state_t *st, int32_t m, int32_t task)
{
    st->sb_start[task + 1]++;
}

/* standbyTaskToPrevMember.computeIfAbsent(task).add(member), in member order. */
static void add_prev_standby(st_state_t *st, int32_t m, int32_t task)
{
    st->sb_list[st->sb_next[task]++] = m;
}

/* initialize: activeTaskToPrevMember and standbyTaskToPrevMember, from the
 * tasks each member currently has. */
static void st_prev_owners_init(st_state_t *st)
{
    const kc_st_spec_t *spec = st->spec;
    int32_t nt = st->ntasks;
    st->prev_active = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    for (int32_t t = 0; t < nt; t++)
        st->prev_active[t] = -1;
    st->sb_start = kc_xcalloc((size_t)nt + 1, sizeof(int32_t));
    for (int32_t m = 0; m < spec->nmembers; m++)
        if (spec->members[m].previous) {
            prev_tasks_each(st, m, &spec->members[m].previous->active, put_prev_active);
            prev_tasks_each(st, m, &spec->members[m].previous->standby, count_prev_standby);
        }
    for (int32_t t = 0; t < nt; t++)
        st->sb_start[t + 1] += st->sb_start[t];
    st->sb_list = kc_xmalloc((size_t)(st->sb_start[nt] ? st->sb_start[nt] : 1) * sizeof(int32_t));
    st->sb_next = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    memcpy(st->sb_next, st->sb_start, (size_t)nt * sizeof(int32_t));
    for (int32_t m = 0; m < spec->nmembers; m++)
        if (spec->members[m].previous)
            prev_tasks_each(st, m, &spec->members[m].previous->standby, add_prev_standby);
    free(st->sb_next);
    st->sb_next = NULL;
}

/* assignActive's first sort: the tasks by partition, then subtopology id. */
static void st_task_order(st_state_t *st)
{
    int32_t nt = st->ntasks, ns = st->spec->nsubtopologies, maxp = 0;
    for (int32_t s = 0; s < ns; s++)
        if (st->base[s + 1] - st->base[s] > maxp)
            maxp = st->base[s + 1] - st->base[s];
    st->order = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    st->order_sub = kc_xmalloc((size_t)(nt ? nt : 1) * sizeof(int32_t));
    for (int32_t p = 0; p < maxp; p++)
        for (int32_t s = 0; s < ns; s++)
            if (p < st->base[s + 1] - st->base[s]) {
                st->order[st->norder] = st->base[s] + p;
                st->order_sub[st->norder++] = s;
            }
}

/* initialize: the tasks, the processes and their members, the quotas
 * (computeTasksPerMember) and the previous owners of every task. */
static void st_init(st_state_t *st, const kc_st_spec_t *spec)
{
    memset(st, 0, sizeof(*st));
    st->spec = spec;
    st->replicas = spec->num_standby_replicas > 0 ? spec->num_standby_replicas : 0;
    st_tasks_init(st);
    st_processes_init(st);
    st_hash_orders(st);
    st->total_active = st->ntasks;
    st->total_tasks = st->ntasks + st->stateful_tasks * st->replicas;
    st->members_active_cap = st->members_task_cap = spec->nmembers;
    st->active_per_member = per_member(st->total_active, spec->nmembers);
    st->tasks_per_member = per_member(st->total_tasks, spec->nmembers);
    st_prev_owners_init(st);
    st_task_order(st);
    st->done = kc_xcalloc((size_t)(st->ntasks ? st->ntasks : 1), 1);
}

/* Frees what st_init allocated. */
static void st_free(st_state_t *st)
{
    for (int32_t p = 0; p < st->nprocs; p++) {
        free(st->procs[p].members);
        free(st->procs[p].has);
        free(st->procs[p].mheap);
    }
    free(st->procs);
    free(st->proc_order);
    free(st->proc_of);
    free(st->mcount);
    free(st->prev_active);
    free(st->sb_start);
    free(st->sb_list);
    free(st->order);
    free(st->order_sub);
    free(st->done);
    free(st->base);
}

/* ---- assignActive ------------------------------------------------------- */

/* Gives active task t (of subtopology s) to member m: addTask, updateHelpers. */
static void assign_active_to(st_state_t *st, int32_t m, int32_t t, int32_t s)
{
    update_helpers(st, add_task(st, m, t, s, true), true);
    st->done[t] = 1;
}

/* assignActive step 1: re-assigning existing active tasks to the members
 * that previously had them, while under the active quota. */
static void assign_prev_active(st_state_t *st)
{
    for (int32_t i = 0; i < st->norder; i++) {
        int32_t t = st->order[i], m = st->prev_active[t];
        if (m >= 0 && st->mcount[m] < st->active_per_member)
            assign_active_to(st, m, t, st->order_sub[i]);
    }
}

/* assignActive step 2: re-assigning tasks to members that previously had
 * them as standby tasks (findPrevMemberWithLeastLoad). */
static void assign_prev_standby_active(st_state_t *st)
{
    for (int32_t i = 0; i < st->norder; i++) {
        int32_t t = st->order[i];
        if (st->done[t])
            continue;
        int32_t m = prev_member_least_load(st, t, -1);
        if (m >= 0 && st->mcount[m] < st->active_per_member)
            assign_active_to(st, m, t, st->order_sub[i]);
    }
}

/* assignActive step 3: the remaining tasks, sorted by subtopology then
 * partition, each to the least loaded process (processByLoad). */
static void assign_active_least_loaded(st_state_t *st)
{
    jpq_t pq;
    proc_queue_new(st, &pq);
    for (int32_t s = 0; s < st->spec->nsubtopologies; s++)
        for (int32_t t = st->base[s]; t < st->base[s + 1]; t++) {
            if (st->done[t])
                continue;
            int32_t p = jpq_poll(&pq);
            update_helpers(st, add_task_least_loaded(st, p, t, s, true), true);
            jpq_offer(&pq, p);
        }
    free(pq.q);
}

/* ---- assignStandby ------------------------------------------------------ */

/* A StandbyToAssign: a task and the standbys it still needs. */
typedef struct {
    int32_t task, sub, remaining;
} sb_todo_t;

/* assignStandby's toLeastLoaded list. */
typedef struct {
    sb_todo_t *v;
    int32_t n;
} sb_todo_list_t;

/* assignStandby's first loop, over the stateful tasks by (partition,
 * subtopology) descending: each standby to the previous active owner, else
 * to a previous standby owner, while under the quota; what is left goes to
 * the toLeastLoaded list. */
static void assign_standby_prev_owners(st_state_t *st, sb_todo_list_t *todo)
{
    int32_t r = st->replicas;
    for (int32_t i = st->norder - 1; i >= 0; i--) {
        int32_t t = st->order[i], s = st->order_sub[i];
        if (!st->spec->subtopologies[s].stateful)
            continue;
        for (int32_t k = 0; k < r; k++) {
            int32_t m = st->prev_active[t];
            if (m >= 0 && !proc_has(st, st->proc_of[m], t) &&
                st->mcount[m] < st->tasks_per_member) {
                update_helpers(st, add_task(st, m, t, s, false), false);
                continue;
            }
            m = prev_member_least_load(st, t, t);
            if (m >= 0 && st->mcount[m] < st->tasks_per_member) {
                update_helpers(st, add_task(st, m, t, s, false), false);
                continue;
            }
            todo->v[todo->n++] = (sb_todo_t){t, s, r - k};
            break;
        }
    }
}

/* assignStandby's second loop: toLeastLoaded sorted by (subtopology,
 * partition) descending, each standby to the least loaded process that does
 * not hold the task (assignStandbyToMemberWithLeastLoad). */
static void assign_standby_least_loaded_all(st_state_t *st, const sb_todo_list_t *todo)
{
    jpq_t pq;
    proc_queue_new(st, &pq);
    /* todo is in (partition desc, subtopology desc) order; walk it in
     * (subtopology desc, partition desc) order instead. */
    for (int32_t s = st->spec->nsubtopologies - 1; s >= 0; s--)
        for (int32_t i = 0; i < todo->n; i++) {
            if (todo->v[i].sub != s)
                continue;
            for (int32_t k = 0; k < todo->v[i].remaining; k++)
                if (!assign_standby_least_loaded(st, &pq, todo->v[i].task, s))
                    break; /* not enough capacity for more standbys */
        }
    free(pq.q);
}

/* assignActive: the three steps in Kafka's order. */
static void assign_active(st_state_t *st)
{
    assign_prev_active(st);
    assign_prev_standby_active(st);
    assign_active_least_loaded(st);
}

/* assignStandby: previous owners first, then the least loaded processes. */
static void assign_standby(st_state_t *st)
{
    sb_todo_list_t todo = {kc_xmalloc((size_t)st->stateful_tasks * sizeof(sb_todo_t)), 0};
    assign_standby_prev_owners(st, &todo);
    assign_standby_least_loaded_all(st, &todo);
    free(todo.v);
}

/* StickyTaskAssignor.assign: initialize, assignActive, then assignStandby
 * when standbys are wanted and some subtopology has state. */
void kc_assignor_streams_sticky(kc_st_spec_t *spec)
{
    if (spec->nmembers == 0 || spec->nsubtopologies == 0)
        return;
    st_state_t st;
    st_init(&st, spec);
    assign_active(&st);
    if (st.replicas > 0 && st.stateful_tasks > 0)
        assign_standby(&st);
    st_free(&st);
}
