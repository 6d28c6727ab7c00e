/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The authorizer: access control entries (ACLs) in memory and the decision
 * Kafka's StandardAuthorizer takes for a principal, a client host, an
 * operation and a resource. Pure code (no sockets, no LMDB): server/acls.c
 * persists the entries and serves CreateAcls, DescribeAcls and DeleteAcls.
 *
 * Rules (StandardAuthorizerData.authorize / findResult):
 * - a principal listed in super.users is allowed everything;
 * - the entries that apply to a resource are those of its type whose
 *   pattern is LITERAL with the same name or the name "*", or PREFIXED with
 *   a prefix of the name;
 * - of those, an entry matches when its principal is the request's or
 *   "User:*", its host is the client's address, "*" or a CIDR range holding
 *   it, and its operation is the one asked or ALL; an ALLOW entry for READ,
 *   WRITE, DELETE or ALTER also allows DESCRIBE, one for ALTER_CONFIGS also
 *   DESCRIBE_CONFIGS (never so for DENY);
 * - a matching DENY wins; else a matching ALLOW allows; else, when no entry
 *   applies to the resource at all, allow.everyone.if.no.acl.found decides;
 *   else denied.
 */
#ifndef KC_ACL_H
#define KC_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kc_acl_codes.h"
#include "kc_common.h"
#include "kc_errors.h"
#include "wire.h"

/* One ACL binding (resource pattern + access control entry). Strings are NUL-terminated. */
typedef struct {
    int8_t resource_type; /* KC_RES_* */
    int8_t pattern_type;  /* KC_PAT_LITERAL or KC_PAT_PREFIXED */
    char *resource_name;
    char *principal; /* "User:alice", "User:*" */
    char *host;      /* "*", an address, or a CIDR range */
    int8_t operation;  /* KC_OP_* */
    int8_t permission; /* KC_PERM_ALLOW or KC_PERM_DENY */
} kc_acl_t;

/*
 * A filter (AclBindingFilter): KC_RES_ANY, KC_PAT_ANY / KC_PAT_MATCH,
 * KC_OP_ANY, KC_PERM_ANY and null strings (len -1) match anything. Views,
 * borrowed.
 */
typedef struct {
    int8_t resource_type;
    int8_t pattern_type;
    kc_str_t resource_name;
    kc_str_t principal;
    kc_str_t host;
    int8_t operation;
    int8_t permission;
} kc_acl_filter_t;

typedef struct kc_authorizer kc_authorizer_t;

/*
 * super_users: Kafka's super.users, principals separated by ';' (may be
 * NULL or empty). allow_if_no_acl: allow.everyone.if.no.acl.found. Copied.
 */
kc_authorizer_t *kc_authorizer_new(const char *super_users, bool allow_if_no_acl);
void kc_authorizer_free(kc_authorizer_t *a);

/* Kafka's codes out of range read as UNKNOWN (fromCode). */
int8_t kc_acl_code(int8_t code, int8_t max);

/*
 * Adds a copy of acl. Returns 0, or KC_EEXIST when the same binding is
 * already there (nothing added; Kafka answers success for it too).
 */
int kc_authorizer_add(kc_authorizer_t *a, const kc_acl_t *acl);
/* Number of bindings and the i-th one (borrowed, valid until the next change). */
size_t kc_authorizer_count(const kc_authorizer_t *a);
const kc_acl_t *kc_authorizer_get(const kc_authorizer_t *a, size_t i);
/* Removes the i-th binding (the last one takes its place). */
void kc_authorizer_remove(kc_authorizer_t *a, size_t i);

/* AclBindingFilter.matches. */
bool kc_acl_filter_matches(const kc_acl_filter_t *f, const kc_acl_t *acl);

/*
 * The decision for principal ("User:ANONYMOUS") connected from host (an
 * address, "127.0.0.1"; a leading '/' is skipped) asking op on the resource
 * (rtype, name). True = allowed.
 */
bool kc_authorizer_authorize(const kc_authorizer_t *a, const char *principal, const char *host,
                             int8_t op, int8_t rtype, kc_str_t name);
/*
 * Authorizer.authorizeByResourceType: true when some resource of rtype
 * would allow op (an ALLOW binding for it not shadowed by a DENY on all
 * names or a covering prefix/literal), or by the no-ACL rule when rtype has
 * no binding at all. Super users: true.
 */
bool kc_authorizer_authorize_any(const kc_authorizer_t *a, const char *principal,
                                 const char *host, int8_t op, int8_t rtype);
bool kc_authorizer_is_super_user(const kc_authorizer_t *a, const char *principal);

/*
 * Checks a binding to create (AclControlManager.validateNewAcl and
 * AclApis.handleCreateAcls). Returns 0 or the Kafka error code
 * (INVALID_REQUEST) with a message in msg.
 */
int16_t kc_acl_validate(const kc_acl_t *acl, char *msg, size_t msglen);

/* Storage form of a binding (key bytes in the "acls" database). */
void kc_acl_encode(const kc_acl_t *acl, kc_buf_t *out);
/* Decodes what kc_acl_encode wrote into out (strings heap-allocated: kc_acl_deinit). 0 or KC_EINVAL. */
int kc_acl_decode(const uint8_t *p, size_t len, kc_acl_t *out);
void kc_acl_deinit(kc_acl_t *acl);

#endif
