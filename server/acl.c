/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The authorizer's decision and the ACL bindings in memory (see kc_acl.h).
 * A flat array scanned per check: kcoord's ACL sets are small, and the
 * decision reads every applicable binding anyway.
 */
#include "kc_acl.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kc_authorizer {
    kc_acl_t *acls;
    size_t n, cap;
    char **super_users;
    size_t nsuper;
    bool allow_if_no_acl;
};

kc_authorizer_t *kc_authorizer_new(const char *super_users, bool allow_if_no_acl)
{
    kc_authorizer_t *a = kc_xcalloc(1, sizeof(*a));
    a->allow_if_no_acl = allow_if_no_acl;
    const char *p = super_users ? super_users : "";
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        /* Kafka trims each entry. */
        const char *s = p;
        size_t l = len;
        while (l > 0 && (*s == ' ' || *s == '\t')) {
            s++;
            l--;
        }
        while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t'))
            l--;
        if (l > 0) {
            a->super_users = kc_xrealloc(a->super_users, (a->nsuper + 1) * sizeof(char *));
            a->super_users[a->nsuper++] = kc_xstrndup(s, l);
        }
        p += len;
        if (*p == ';')
            p++;
    }
    return a;
}

void kc_acl_deinit(kc_acl_t *acl)
{
    free(acl->resource_name);
    free(acl->principal);
    free(acl->host);
    acl->resource_name = acl->principal = acl->host = NULL;
}

void kc_authorizer_free(kc_authorizer_t *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        kc_acl_deinit(&a->acls[i]);
    free(a->acls);
    for (size_t i = 0; i < a->nsuper; i++)
        free(a->super_users[i]);
    free(a->super_users);
    free(a);
}

int8_t kc_acl_code(int8_t code, int8_t max)
{
    return code < 0 || code > max ? 0 : code;
}

static bool same_binding(const kc_acl_t *x, const kc_acl_t *y)
{
    return x->resource_type == y->resource_type && x->pattern_type == y->pattern_type &&
           x->operation == y->operation && x->permission == y->permission &&
           strcmp(x->resource_name, y->resource_name) == 0 &&
           strcmp(x->principal, y->principal) == 0 && strcmp(x->host, y->host) == 0;
}

int kc_authorizer_add(kc_authorizer_t *a, const kc_acl_t *acl)
{
    for (size_t i = 0; i < a->n; i++)
        if (same_binding(&a->acls[i], acl))
            return KC_EEXIST;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->acls = kc_xrealloc(a->acls, a->cap * sizeof(kc_acl_t));
    }
    kc_acl_t *c = &a->acls[a->n++];
    *c = *acl;
    c->resource_name = kc_xstrdup(acl->resource_name);
    c->principal = kc_xstrdup(acl->principal);
    c->host = kc_xstrdup(acl->host);
    return 0;
}

size_t kc_authorizer_count(const kc_authorizer_t *a)
{
    return a->n;
}

const kc_acl_t *kc_authorizer_get(const kc_authorizer_t *a, size_t i)
{
    return i < a->n ? &a->acls[i] : NULL;
}

void kc_authorizer_remove(kc_authorizer_t *a, size_t i)
{
    if (i >= a->n)
        return;
    kc_acl_deinit(&a->acls[i]);
    a->acls[i] = a->acls[--a->n];
}

static bool str_is(kc_str_t s, const char *c)
{
    size_t n = strlen(c);
    return s.len >= 0 && (size_t)s.len == n && memcmp(s.ptr, c, n) == 0;
}

bool kc_acl_filter_matches(const kc_acl_filter_t *f, const kc_acl_t *acl)
{
    /* ResourcePatternFilter.matches */
    if (f->resource_type != KC_RES_ANY && f->resource_type != acl->resource_type)
        return false;
    if (f->pattern_type != KC_PAT_ANY && f->pattern_type != KC_PAT_MATCH &&
        f->pattern_type != acl->pattern_type)
        return false;
    if (f->resource_name.len >= 0) {
        if (f->pattern_type == KC_PAT_ANY || f->pattern_type == acl->pattern_type) {
            if (!str_is(f->resource_name, acl->resource_name))
                return false;
        } else if (acl->pattern_type == KC_PAT_LITERAL) {
            if (!str_is(f->resource_name, acl->resource_name) &&
                strcmp(acl->resource_name, "*") != 0)
                return false;
        } else { /* PREFIXED */
            size_t pl = strlen(acl->resource_name);
            if ((size_t)f->resource_name.len < pl ||
                memcmp(f->resource_name.ptr, acl->resource_name, pl) != 0)
                return false;
        }
    }
    /* AccessControlEntryFilter.matches */
    if (f->principal.len >= 0 && !str_is(f->principal, acl->principal))
        return false;
    if (f->host.len >= 0 && !str_is(f->host, acl->host))
        return false;
    if (f->operation != KC_OP_ANY && f->operation != acl->operation)
        return false;
    if (f->permission != KC_PERM_ANY && f->permission != acl->permission)
        return false;
    return true;
}

bool kc_authorizer_is_super_user(const kc_authorizer_t *a, const char *principal)
{
    for (size_t i = 0; i < a->nsuper; i++)
        if (strcmp(a->super_users[i], principal) == 0)
            return true;
    return false;
}

/* "a.b.c.d/n" or "x::y/n" holding host (CidrUtils.isInRange); false when not a range. */
static bool cidr_holds(const char *range, const char *host)
{
    const char *slash = strchr(range, '/');
    if (!slash)
        return false;
    char net[INET6_ADDRSTRLEN];
    size_t nl = (size_t)(slash - range);
    if (nl == 0 || nl >= sizeof(net))
        return false;
    memcpy(net, range, nl);
    net[nl] = '\0';
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    if (*end != '\0' || end == slash + 1)
        return false;
    uint8_t na[16], ha[16];
    size_t alen;
    if (inet_pton(AF_INET, net, na) == 1 && inet_pton(AF_INET, host, ha) == 1)
        alen = 4;
    else if (inet_pton(AF_INET6, net, na) == 1 && inet_pton(AF_INET6, host, ha) == 1)
        alen = 16;
    else
        return false;
    if (bits < 0 || (size_t)bits > alen * 8)
        return false;
    for (size_t i = 0; i < alen; i++) {
        long left = bits - (long)i * 8;
        if (left <= 0)
            break;
        uint8_t mask = left >= 8 ? 0xff : (uint8_t)(0xff << (8 - left));
        if ((na[i] & mask) != (ha[i] & mask))
            return false;
    }
    return true;
}

static bool principal_matches(const kc_acl_t *acl, const char *principal)
{
    return strcmp(acl->principal, principal) == 0 || strcmp(acl->principal, "User:*") == 0;
}

static bool host_matches(const kc_acl_t *acl, const char *host)
{
    return strcmp(acl->host, "*") == 0 || strcmp(acl->host, host) == 0 ||
           cidr_holds(acl->host, host);
}

static bool implies(int8_t acl_op, int8_t op)
{
    if (op == KC_OP_DESCRIBE)
        return acl_op == KC_OP_DESCRIBE || acl_op == KC_OP_READ || acl_op == KC_OP_WRITE ||
               acl_op == KC_OP_DELETE || acl_op == KC_OP_ALTER;
    if (op == KC_OP_DESCRIBE_CONFIGS)
        return acl_op == KC_OP_DESCRIBE_CONFIGS || acl_op == KC_OP_ALTER_CONFIGS;
    return acl_op == op;
}

/* Does the binding's pattern cover the resource name? */
static bool pattern_applies(const kc_acl_t *acl, kc_str_t name)
{
    if (acl->pattern_type == KC_PAT_LITERAL)
        return strcmp(acl->resource_name, "*") == 0 || str_is(name, acl->resource_name);
    if (acl->pattern_type == KC_PAT_PREFIXED) {
        size_t pl = strlen(acl->resource_name);
        return name.len >= 0 && (size_t)name.len >= pl &&
               memcmp(name.ptr, acl->resource_name, pl) == 0;
    }
    return false;
}

static const char *bare_host(const char *host)
{
    if (!host)
        return "";
    return host[0] == '/' ? host + 1 : host;
}

bool kc_authorizer_authorize(const kc_authorizer_t *a, const char *principal, const char *host,
                             int8_t op, int8_t rtype, kc_str_t name)
{
    if (kc_authorizer_is_super_user(a, principal))
        return true;
    host = bare_host(host);
    bool any = false, allow = false;
    for (size_t i = 0; i < a->n; i++) {
        const kc_acl_t *acl = &a->acls[i];
        if (acl->resource_type != rtype || !pattern_applies(acl, name))
            continue;
        any = true;
        if (!principal_matches(acl, principal) || !host_matches(acl, host))
            continue;
        if (acl->operation != KC_OP_ALL) {
            if (acl->permission == KC_PERM_ALLOW ? !implies(acl->operation, op)
                                                 : acl->operation != op)
                continue;
        }
        if (acl->permission == KC_PERM_DENY)
            return false;
        allow = true;
    }
    if (allow)
        return true;
    return !any && a->allow_if_no_acl;
}

bool kc_authorizer_authorize_any(const kc_authorizer_t *a, const char *principal,
                                 const char *host, int8_t op, int8_t rtype)
{
    if (kc_authorizer_authorize(a, principal, host, op, rtype, kc_str("hardcode")))
        return true;
    host = bare_host(host);
    /* Allow patterns not dominated by a deny (Authorizer.authorizeByResourceType). */
    for (size_t i = 0; i < a->n; i++) {
        const kc_acl_t *acl = &a->acls[i];
        if (acl->resource_type != rtype || !principal_matches(acl, principal) ||
            !host_matches(acl, host) || (acl->operation != op && acl->operation != KC_OP_ALL))
            continue;
        if (acl->permission == KC_PERM_DENY && acl->pattern_type == KC_PAT_LITERAL &&
            strcmp(acl->resource_name, "*") == 0)
            return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        const kc_acl_t *al = &a->acls[i];
        if (al->resource_type != rtype || al->permission != KC_PERM_ALLOW ||
            !principal_matches(al, principal) || !host_matches(al, host) ||
            (al->operation != op && al->operation != KC_OP_ALL))
            continue;
        if (al->pattern_type == KC_PAT_LITERAL && strcmp(al->resource_name, "*") == 0)
            return true;
        bool dominated = false;
        for (size_t j = 0; j < a->n && !dominated; j++) {
            const kc_acl_t *d = &a->acls[j];
            if (d->resource_type != rtype || d->permission != KC_PERM_DENY ||
                !principal_matches(d, principal) || !host_matches(d, host) ||
                (d->operation != op && d->operation != KC_OP_ALL))
                continue;
            if (d->pattern_type == KC_PAT_LITERAL)
                dominated = al->pattern_type == KC_PAT_LITERAL &&
                            strcmp(d->resource_name, al->resource_name) == 0;
            else if (d->pattern_type == KC_PAT_PREFIXED)
                dominated = d->resource_name[0] != '\0' &&
                            strncmp(al->resource_name, d->resource_name,
                                    strlen(d->resource_name)) == 0;
        }
        if (!dominated)
            return true;
    }
    return false;
}

static bool valid_host(const char *host)
{
    if (strcmp(host, "*") == 0)
        return true;
    if (strchr(host, '/')) {
        /* A CIDR range must hold its own network address. */
        char net[INET6_ADDRSTRLEN];
        size_t nl = (size_t)(strchr(host, '/') - host);
        if (nl == 0 || nl >= sizeof(net))
            return false;
        memcpy(net, host, nl);
        net[nl] = '\0';
        return cidr_holds(host, net);
    }
    return true;
}

int16_t kc_acl_validate(const kc_acl_t *acl, char *msg, size_t msglen)
{
    if (acl->resource_type == KC_RES_UNKNOWN || acl->resource_type == KC_RES_ANY) {
        snprintf(msg, msglen, "Invalid resourceType %d", acl->resource_type);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->pattern_type != KC_PAT_LITERAL && acl->pattern_type != KC_PAT_PREFIXED) {
        snprintf(msg, msglen, "Invalid patternType %d", acl->pattern_type);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->operation == KC_OP_UNKNOWN || acl->operation == KC_OP_ANY) {
        snprintf(msg, msglen, "Invalid operation %d", acl->operation);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->permission != KC_PERM_ALLOW && acl->permission != KC_PERM_DENY) {
        snprintf(msg, msglen, "Invalid permissionType %d", acl->permission);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->resource_type == KC_RES_CLUSTER &&
        strcmp(acl->resource_name, KC_CLUSTER_RESOURCE_NAME) != 0) {
        snprintf(msg, msglen, "The only valid name for the CLUSTER resource is %s",
                 KC_CLUSTER_RESOURCE_NAME);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->resource_name[0] == '\0') {
        snprintf(msg, msglen, "Invalid empty resource name");
        return KC_ERR_INVALID_REQUEST;
    }
    if (!strchr(acl->principal, ':')) {
        snprintf(msg, msglen,
                 "Could not parse principal from `%s` (no colon is present separating the "
                 "principal type from the principal name)",
                 acl->principal);
        return KC_ERR_INVALID_REQUEST;
    }
    if (acl->host[0] == '\0') {
        snprintf(msg, msglen, "Host pattern cannot be null or empty");
        return KC_ERR_INVALID_REQUEST;
    }
    if (!valid_host(acl->host)) {
        snprintf(msg, msglen, "Invalid CIDR notation '%s'", acl->host);
        return KC_ERR_INVALID_REQUEST;
    }
    return 0;
}

/* Storage form: version byte 0, then the four codes, then three int16-length strings. */
static void put_str(kc_buf_t *out, const char *s)
{
    size_t n = strlen(s);
    uint8_t h[2] = {(uint8_t)(n >> 8), (uint8_t)n};
    kc_buf_append(out, h, 2);
    kc_buf_append(out, s, n);
}

void kc_acl_encode(const kc_acl_t *acl, kc_buf_t *out)
{
    uint8_t h[5] = {0, (uint8_t)acl->resource_type, (uint8_t)acl->pattern_type,
                    (uint8_t)acl->operation, (uint8_t)acl->permission};
    kc_buf_append(out, h, sizeof(h));
    put_str(out, acl->resource_name);
    put_str(out, acl->principal);
    put_str(out, acl->host);
}

static char *get_str(const uint8_t **p, const uint8_t *end)
{
    if (end - *p < 2)
        return NULL;
    size_t n = ((size_t)(*p)[0] << 8) | (*p)[1];
    *p += 2;
    if ((size_t)(end - *p) < n)
        return NULL;
    char *s = kc_xstrndup((const char *)*p, n);
    *p += n;
    return s;
}

int kc_acl_decode(const uint8_t *p, size_t len, kc_acl_t *out)
{
    memset(out, 0, sizeof(*out));
    const uint8_t *end = p + len;
    if (len < 5 || p[0] != 0)
        return KC_EINVAL;
    out->resource_type = (int8_t)p[1];
    out->pattern_type = (int8_t)p[2];
    out->operation = (int8_t)p[3];
    out->permission = (int8_t)p[4];
    p += 5;
    out->resource_name = get_str(&p, end);
    out->principal = out->resource_name ? get_str(&p, end) : NULL;
    out->host = out->principal ? get_str(&p, end) : NULL;
    if (!out->host || p != end) {
        kc_acl_deinit(out);
        return KC_EINVAL;
    }
    return 0;
}
