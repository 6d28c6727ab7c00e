/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's byte codes of access control: ResourceType, PatternType,
 * AclOperation and AclPermissionType, as they travel in CreateAcls,
 * DescribeAcls and DeleteAcls and as the authorizer is asked about them.
 * Codes only; the authorizer itself is server/acl.c.
 */
#ifndef KC_ACL_CODES_H
#define KC_ACL_CODES_H

/* org.apache.kafka.common.resource.ResourceType */
enum {
    KC_RES_UNKNOWN = 0,
    KC_RES_ANY = 1, /* filters only */
    KC_RES_TOPIC = 2,
    KC_RES_GROUP = 3,
    KC_RES_CLUSTER = 4, /* one resource, named "kafka-cluster" */
    KC_RES_TRANSACTIONAL_ID = 5,
    KC_RES_DELEGATION_TOKEN = 6,
    KC_RES_USER = 7,
};

/* org.apache.kafka.common.resource.PatternType */
enum {
    KC_PAT_UNKNOWN = 0,
    KC_PAT_ANY = 1,   /* filters: any pattern type */
    KC_PAT_MATCH = 2, /* filters: every pattern that would match the name */
    KC_PAT_LITERAL = 3,
    KC_PAT_PREFIXED = 4,
};

/* org.apache.kafka.common.acl.AclOperation */
enum {
    KC_OP_UNKNOWN = 0,
    KC_OP_ANY = 1, /* filters only */
    KC_OP_ALL = 2,
    KC_OP_READ = 3,
    KC_OP_WRITE = 4,
    KC_OP_CREATE = 5,
    KC_OP_DELETE = 6,
    KC_OP_ALTER = 7,
    KC_OP_DESCRIBE = 8,
    KC_OP_CLUSTER_ACTION = 9,
    KC_OP_DESCRIBE_CONFIGS = 10,
    KC_OP_ALTER_CONFIGS = 11,
    KC_OP_IDEMPOTENT_WRITE = 12,
    KC_OP_CREATE_TOKENS = 13,
    KC_OP_DESCRIBE_TOKENS = 14,
    KC_OP_TWO_PHASE_COMMIT = 15,
};

/* org.apache.kafka.common.acl.AclPermissionType */
enum {
    KC_PERM_UNKNOWN = 0,
    KC_PERM_ANY = 1, /* filters only */
    KC_PERM_DENY = 2,
    KC_PERM_ALLOW = 3,
};

/* The name of the cluster resource (Kafka's Resource.CLUSTER_NAME). */
#define KC_CLUSTER_RESOURCE_NAME "kafka-cluster"

#endif
