/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ACLs in the broker: the authorizer is on when authorizer.class.name is
 * non-empty; its bindings live in the LMDB database "acls" (key = the
 * binding's storage form, empty value), loaded at start and after a failed
 * commit. CreateAcls, DescribeAcls and DeleteAcls are answered as Kafka's
 * AclApis answers them (ALTER/DESCRIBE on the cluster first, then
 * SECURITY_DISABLED when no authorizer is configured).
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_log.h"

static const char *op_name(int8_t op)
{
    static const char *const names[] = {"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE",
                                        "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
                                        "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE",
                                        "CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"};
    return op >= 0 && (size_t)op < KC_ARRAY_LEN(names) ? names[op] : "UNKNOWN";
}

static const char *resource_name(int8_t rtype)
{
    static const char *const names[] = {"UNKNOWN", "ANY", "Topic", "Group", "Cluster",
                                        "TransactionalId", "DelegationToken", "User"};
    return rtype >= 0 && (size_t)rtype < KC_ARRAY_LEN(names) ? names[rtype] : "UNKNOWN";
}

static bool authorize_cb(const void *arg, const char *principal, const char *host, int8_t op,
                         int8_t rtype, kc_str_t name)
{
    const kc_server_t *s = arg;
    if (s->authz == NULL || kc_authorizer_authorize(s->authz, principal, host, op, rtype, name))
        return true;
    /* The authorizer's audit line for a denial (StandardAuthorizer logs it at INFO). */
    kc_log_info("acl", "Principal = %s is Denied operation = %s from host = %s on resource = "
                "%s:LITERAL:%.*s",
                principal, op_name(op), host && host[0] == '/' ? host + 1 : (host ? host : ""),
                resource_name(rtype), name.len > 0 ? (int)name.len : 0, name.ptr ? name.ptr : "");
    return false;
}

void kc_acls_set_ctx(kc_server_t *s, kc_request_ctx_t *ctx)
{
    if (s->authz) {
        ctx->authorize = authorize_cb;
        ctx->authorize_arg = s;
    }
}

bool kc_req_authorized(const kc_req_t *req, int8_t op, int8_t rtype, kc_str_t name)
{
    return kc_request_authorized(&req->ctx, op, rtype, name);
}

bool kc_req_authorized_cluster(const kc_req_t *req, int8_t op)
{
    return kc_req_authorized(req, op, KC_RES_CLUSTER, kc_str(KC_CLUSTER_RESOURCE_NAME));
}

bool kc_req_authorized_any(const kc_req_t *req, int8_t op, int8_t rtype)
{
    const kc_server_t *s = req->srv;
    return s->authz == NULL ||
           kc_authorizer_authorize_any(s->authz,
                                       req->ctx.principal ? req->ctx.principal : "User:ANONYMOUS",
                                       req->ctx.client_host, op, rtype);
}

int32_t kc_req_authorized_ops(const kc_req_t *req, int8_t rtype, kc_str_t name, int32_t candidates)
{
    return kc_request_authorized_ops(&req->ctx, rtype, name, candidates);
}

static int load_one(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len)
{
    (void)value;
    (void)value_len;
    kc_server_t *s = ctx;
    kc_acl_t acl;
    if (kc_acl_decode(key, key_len, &acl) != 0) {
        kc_log_warn("acl", "skipping a stored ACL that does not decode (%zu bytes)", key_len);
        return 0;
    }
    kc_authorizer_add(s->authz, &acl);
    kc_acl_deinit(&acl);
    return 0;
}

int kc_acls_load(kc_server_t *s)
{
    kc_authorizer_free(s->authz);
    s->authz = NULL;
    if (s->cfg->authorizer_class_name[0] == '\0')
        return 0;
    s->authz = kc_authorizer_new(s->cfg->super_users, s->cfg->allow_everyone_if_no_acl_found);
    if (!s->acl_dbi_open) {
        if (kc_store_dbi_open(s->store, "acls", &s->acl_dbi) != 0) {
            kc_log_error("acl", "cannot open the acls database");
            return KC_EIO;
        }
        s->acl_dbi_open = true;
    }
    uint8_t from = 0;
    int rc = kc_store_scan(s->store, s->acl_dbi, &from, 1, 1, false, load_one, s); /* version 0 keys */
    if (rc != 0) {
        kc_log_error("acl", "cannot read the stored ACLs (%d)", rc);
        return rc;
    }
    kc_log_info("acl", "authorizer on (%s): %zu ACLs, super.users \"%s\", "
                "allow.everyone.if.no.acl.found=%s",
                s->cfg->authorizer_class_name, kc_authorizer_count(s->authz), s->cfg->super_users,
                s->cfg->allow_everyone_if_no_acl_found ? "true" : "false");
    return 0;
}

void kc_acls_free(kc_server_t *s)
{
    kc_authorizer_free(s->authz);
    s->authz = NULL;
}

static const char *principal_of(const kc_req_t *req)
{
    return req->ctx.principal ? req->ctx.principal : "User:ANONYMOUS";
}

static char *cstr(kc_arena_t *a, kc_str_t s)
{
    size_t n = s.len > 0 ? (size_t)s.len : 0;
    char *p = kc_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s.ptr, n);
    return p;
}

/* ---- CreateAcls ---- */

typedef __typeof__(((kc_create_acls_response_t *)0)->results.items[0]) create_result_t;

int kc_handle_create_acls(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_create_acls_request_t rq;
    kc_create_acls_request_init(&rq);
    if (kc_create_acls_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    int32_t n = rq.creations.count > 0 ? rq.creations.count : 0;
    /* CreateAclsRequest.validate: UNKNOWN codes fail the parse (the connection closes). */
    for (int32_t i = 0; i < n; i++) {
        const kc_create_acls_request_acl_creation_t *c = &rq.creations.items[i];
        if (kc_acl_code(c->resource_type, KC_RES_USER) == KC_RES_UNKNOWN ||
            kc_acl_code(c->resource_pattern_type, KC_PAT_PREFIXED) == KC_PAT_UNKNOWN ||
            kc_acl_code(c->operation, KC_OP_TWO_PHASE_COMMIT) == KC_OP_UNKNOWN ||
            kc_acl_code(c->permission_type, KC_PERM_ALLOW) == KC_PERM_UNKNOWN)
            return KC_EINVAL;
    }
    kc_create_acls_response_t resp;
    kc_create_acls_response_init(&resp);
    resp.results.items = kc_arena_alloc(req->arena, sizeof(create_result_t) * (size_t)(n + 1));
    resp.results.count = n;
    int16_t whole = KC_ERR_NONE;
    const char *whole_msg = NULL;
    if (!kc_req_authorized_cluster(req, KC_OP_ALTER)) {
        whole = KC_ERR_CLUSTER_AUTHORIZATION_FAILED;
        whole_msg = "Cluster authorization failed.";
    } else if (!s->authz) {
        whole = KC_ERR_SECURITY_DISABLED;
        whole_msg = "No Authorizer is configured.";
    }
    kc_buf_t key;
    kc_buf_init(&key);
    bool wrote = false;
    for (int32_t i = 0; i < n; i++) {
        const kc_create_acls_request_acl_creation_t *c = &rq.creations.items[i];
        create_result_t *r = &resp.results.items[i];
        r->error_code = whole;
        r->error_message = whole_msg ? kc_str(whole_msg) : KC_STR_NULL;
        if (whole != KC_ERR_NONE)
            continue;
        kc_acl_t acl = {c->resource_type,           c->resource_pattern_type,
                        cstr(req->arena, c->resource_name), cstr(req->arena, c->principal),
                        cstr(req->arena, c->host),  c->operation,
                        c->permission_type};
        char msg[256];
        int16_t err = kc_acl_validate(&acl, msg, sizeof(msg));
        if (err != KC_ERR_NONE) {
            r->error_code = err;
            size_t ml = strlen(msg);
            char *m = kc_arena_alloc(req->arena, ml + 1);
            memcpy(m, msg, ml + 1);
            r->error_message = kc_str(m);
            continue;
        }
        kc_buf_reset(&key);
        kc_acl_encode(&acl, &key);
        if (kc_authorizer_add(s->authz, &acl) == 0) {
            if (kc_store_put(s->store, s->acl_dbi, key.data, key.len, "", 0) == KC_EINVAL) {
                /* The binding is the LMDB key: it must fit LMDB's key limit. */
                kc_authorizer_remove(s->authz, kc_authorizer_count(s->authz) - 1);
                r->error_code = KC_ERR_INVALID_REQUEST;
                r->error_message = kc_str("The ACL's resource name, principal and host are too "
                                          "long to store (about 500 bytes together at most).");
                continue;
            }
            wrote = true;
            kc_log_info("acl", "%s created ACL: %s %s %s on %s:%s:%s from host %s",
                        principal_of(req), acl.principal,
                        acl.permission == KC_PERM_ALLOW ? "ALLOW" : "DENY",
                        op_name(acl.operation), resource_name(acl.resource_type),
                        acl.pattern_type == KC_PAT_LITERAL ? "LITERAL" : "PREFIXED",
                        acl.resource_name, acl.host);
        }
    }
    kc_buf_deinit(&key);
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_create_acls_response_encode(&b, v, &resp);
    if (rc != 0) {
        kc_buf_deinit(&b);
        return kc_req_respond_encoded(req, rc, &b);
    }
    kc_response_t *out = kc_req_respond(req, &b);
    if (wrote) {
        /* A failed commit: every creation of this request reports it. */
        for (int32_t i = 0; i < n; i++) {
            resp.results.items[i].error_code = KC_ERR_UNKNOWN_SERVER_ERROR;
            resp.results.items[i].error_message = kc_str("The ACLs could not be stored.");
        }
        kc_create_acls_response_encode(&out->error_body, v, &resp);
    }
    kc_buf_deinit(&b);
    return 0;
}

/* ---- DescribeAcls ---- */

static bool filter_has_unknown(int8_t rtype, int8_t ptype, int8_t op, int8_t perm)
{
    return kc_acl_code(rtype, KC_RES_USER) == KC_RES_UNKNOWN ||
           kc_acl_code(ptype, KC_PAT_PREFIXED) == KC_PAT_UNKNOWN ||
           kc_acl_code(op, KC_OP_TWO_PHASE_COMMIT) == KC_OP_UNKNOWN ||
           kc_acl_code(perm, KC_PERM_ALLOW) == KC_PERM_UNKNOWN;
}

typedef __typeof__(((kc_describe_acls_response_t *)0)->resources.items[0]) describe_resource_t;
typedef __typeof__(((describe_resource_t *)0)->acls.items[0]) describe_acl_t;

int kc_handle_describe_acls(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_describe_acls_request_t rq;
    kc_describe_acls_request_init(&rq);
    if (kc_describe_acls_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    if (filter_has_unknown(rq.resource_type_filter, rq.pattern_type_filter, rq.operation,
                           rq.permission_type))
        return KC_EINVAL;
    kc_describe_acls_response_t resp;
    kc_describe_acls_response_init(&resp);
    resp.resources.count = 0;
    if (!kc_req_authorized_cluster(req, KC_OP_DESCRIBE)) {
        resp.error_code = KC_ERR_CLUSTER_AUTHORIZATION_FAILED;
        resp.error_message = kc_str("Cluster authorization failed.");
    } else if (!s->authz) {
        resp.error_code = KC_ERR_SECURITY_DISABLED;
        resp.error_message = kc_str("No Authorizer is configured on the broker");
    } else {
        kc_acl_filter_t f = {rq.resource_type_filter, rq.pattern_type_filter,
                             rq.resource_name_filter, rq.principal_filter,
                             rq.host_filter,          rq.operation,
                             rq.permission_type};
        size_t total = kc_authorizer_count(s->authz);
        resp.resources.items =
            kc_arena_alloc(req->arena, sizeof(describe_resource_t) * (total + 1));
        /* Bindings grouped by resource pattern (DescribeAclsResponse.aclsResources). */
        for (size_t i = 0; i < total; i++) {
            const kc_acl_t *a = kc_authorizer_get(s->authz, i);
            if (!kc_acl_filter_matches(&f, a))
                continue;
            describe_resource_t *r = NULL;
            for (int32_t k = 0; k < resp.resources.count && !r; k++) {
                describe_resource_t *x = &resp.resources.items[k];
                if (x->resource_type == a->resource_type && x->pattern_type == a->pattern_type &&
                    kc_str_eq_cstr(x->resource_name, a->resource_name))
                    r = x;
            }
            if (!r) {
                r = &resp.resources.items[resp.resources.count++];
                memset(r, 0, sizeof(*r));
                r->resource_type = a->resource_type;
                r->resource_name = kc_str(a->resource_name);
                r->pattern_type = a->pattern_type;
                r->acls.items = kc_arena_alloc(req->arena, sizeof(describe_acl_t) * total);
                r->acls.count = 0;
            }
            describe_acl_t *d = &r->acls.items[r->acls.count++];
            d->principal = kc_str(a->principal);
            d->host = kc_str(a->host);
            d->operation = a->operation;
            d->permission_type = a->permission;
        }
    }
    kc_buf_t b;
    kc_buf_init(&b);
    return kc_req_respond_encoded(req, kc_describe_acls_response_encode(&b, v, &resp), &b);
}

/* ---- DeleteAcls ---- */

typedef __typeof__(((kc_delete_acls_response_t *)0)->filter_results.items[0]) delete_result_t;
typedef __typeof__(((delete_result_t *)0)->matching_acls.items[0]) delete_match_t;

int kc_handle_delete_acls(kc_req_t *req)
{
    kc_server_t *s = req->srv;
    int16_t v = req->ctx.api_version;
    kc_delete_acls_request_t rq;
    kc_delete_acls_request_init(&rq);
    if (kc_delete_acls_request_decode(req->body, v, req->arena, &rq) != 0)
        return KC_EINVAL;
    int32_t n = rq.filters.count > 0 ? rq.filters.count : 0;
    for (int32_t i = 0; i < n; i++) {
        const kc_delete_acls_request_delete_acls_filter_t *f = &rq.filters.items[i];
        if (filter_has_unknown(f->resource_type_filter, f->pattern_type_filter, f->operation,
                               f->permission_type))
            return KC_EINVAL;
    }
    kc_delete_acls_response_t resp;
    kc_delete_acls_response_init(&resp);
    resp.filter_results.items =
        kc_arena_alloc(req->arena, sizeof(delete_result_t) * (size_t)(n + 1));
    resp.filter_results.count = n;
    int16_t whole = KC_ERR_NONE;
    const char *whole_msg = NULL;
    if (!kc_req_authorized_cluster(req, KC_OP_ALTER)) {
        whole = KC_ERR_CLUSTER_AUTHORIZATION_FAILED;
        whole_msg = "Cluster authorization failed.";
    } else if (!s->authz) {
        whole = KC_ERR_SECURITY_DISABLED;
        whole_msg = "No Authorizer is configured.";
    }
    kc_buf_t key;
    kc_buf_init(&key);
    bool wrote = false;
    for (int32_t i = 0; i < n; i++) {
        const kc_delete_acls_request_delete_acls_filter_t *rf = &rq.filters.items[i];
        delete_result_t *r = &resp.filter_results.items[i];
        memset(r, 0, sizeof(*r));
        r->error_code = whole;
        r->error_message = whole_msg ? kc_str(whole_msg) : KC_STR_NULL;
        r->matching_acls.count = 0;
        if (whole != KC_ERR_NONE)
            continue;
        kc_acl_filter_t f = {rf->resource_type_filter, rf->pattern_type_filter,
                             rf->resource_name_filter, rf->principal_filter,
                             rf->host_filter,          rf->operation,
                             rf->permission_type};
        size_t total = kc_authorizer_count(s->authz);
        r->matching_acls.items = kc_arena_alloc(req->arena, sizeof(delete_match_t) * (total + 1));
        for (size_t k = 0; k < kc_authorizer_count(s->authz);) {
            const kc_acl_t *a = kc_authorizer_get(s->authz, k);
            if (!kc_acl_filter_matches(&f, a)) {
                k++;
                continue;
            }
            delete_match_t *m = &r->matching_acls.items[r->matching_acls.count++];
            memset(m, 0, sizeof(*m));
            m->error_message = KC_STR_NULL;
            m->resource_type = a->resource_type;
            m->resource_name = kc_str(cstr(req->arena, kc_str(a->resource_name)));
            m->pattern_type = a->pattern_type;
            m->principal = kc_str(cstr(req->arena, kc_str(a->principal)));
            m->host = kc_str(cstr(req->arena, kc_str(a->host)));
            m->operation = a->operation;
            m->permission_type = a->permission;
            kc_buf_reset(&key);
            kc_acl_encode(a, &key);
            kc_store_del(s->store, s->acl_dbi, key.data, key.len);
            wrote = true;
            kc_log_info("acl", "%s deleted ACL: %s %s %s on %s:%s:%s from host %s",
                        principal_of(req), a->principal,
                        a->permission == KC_PERM_ALLOW ? "ALLOW" : "DENY", op_name(a->operation),
                        resource_name(a->resource_type),
                        a->pattern_type == KC_PAT_LITERAL ? "LITERAL" : "PREFIXED",
                        a->resource_name, a->host);
            kc_authorizer_remove(s->authz, k);
        }
    }
    kc_buf_deinit(&key);
    kc_buf_t b;
    kc_buf_init(&b);
    int rc = kc_delete_acls_response_encode(&b, v, &resp);
    if (rc != 0)
        return kc_req_respond_encoded(req, rc, &b);
    kc_response_t *out = kc_req_respond(req, &b);
    if (wrote) {
        for (int32_t i = 0; i < n; i++) {
            resp.filter_results.items[i].error_code = KC_ERR_UNKNOWN_SERVER_ERROR;
            resp.filter_results.items[i].error_message = kc_str("The ACLs could not be stored.");
            resp.filter_results.items[i].matching_acls.count = 0;
        }
        kc_delete_acls_response_encode(&out->error_body, v, &resp);
    }
    kc_buf_deinit(&b);
    return 0;
}
