/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's default messages of the error codes (the message of each entry of
 * org.apache.kafka.common.protocol.Errors), for the responses that carry a
 * code's message: the generated error responses (errmsg fields) and the
 * handlers that answer a refusal with Kafka's default text.
 */
#include "kc_errors.h"

#include <stddef.h>

const char *kc_error_message(int16_t code)
{
    switch (code) {
    case KC_ERR_UNKNOWN_SERVER_ERROR:
        return "The server experienced an unexpected error when processing the request.";
    case KC_ERR_UNKNOWN_TOPIC_OR_PARTITION:
        return "This server does not host this topic-partition.";
    case KC_ERR_LEADER_NOT_AVAILABLE:
        return "There is no leader for this topic-partition as we are in the middle of a "
               "leadership election.";
    case 6: /* NOT_LEADER_OR_FOLLOWER */
        return "For requests intended only for the leader, this error indicates that the broker "
               "is not the current leader. For requests intended for any replica, this error "
               "indicates that the broker is not a replica of the topic partition.";
    case KC_ERR_REQUEST_TIMED_OUT:
        return "The request timed out.";
    case KC_ERR_COORDINATOR_LOAD_IN_PROGRESS:
        return "The coordinator is loading and hence can't process requests.";
    case KC_ERR_COORDINATOR_NOT_AVAILABLE:
        return "The coordinator is not available.";
    case KC_ERR_NOT_COORDINATOR:
        return "This is not the correct coordinator.";
    case 19: /* NOT_ENOUGH_REPLICAS */
        return "Messages are rejected since there are fewer in-sync replicas than required.";
    case KC_ERR_ILLEGAL_GENERATION:
        return "Specified group generation id is not valid.";
    case KC_ERR_UNKNOWN_MEMBER_ID:
        return "The coordinator is not aware of this member.";
    case KC_ERR_REBALANCE_IN_PROGRESS:
        return "The group is rebalancing, so a rejoin is needed.";
    case KC_ERR_TOPIC_AUTHORIZATION_FAILED:
        return "Topic authorization failed.";
    case KC_ERR_GROUP_AUTHORIZATION_FAILED:
        return "Group authorization failed.";
    case KC_ERR_CLUSTER_AUTHORIZATION_FAILED:
        return "Cluster authorization failed.";
    case KC_ERR_UNSUPPORTED_VERSION:
        return "The version of API is not supported.";
    case KC_ERR_INVALID_REQUEST:
        return "This most likely occurs because of a request being malformed by the client "
               "library or the message was sent to an incompatible broker. See the broker logs "
               "for more details.";
    case KC_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
        return "Transactional Id authorization failed.";
    case KC_ERR_SECURITY_DISABLED:
        return "Security features are disabled.";
    case KC_ERR_KAFKA_STORAGE_ERROR:
        return "Disk error when trying to access log file on the disk.";
    default:
        return NULL;
    }
}
