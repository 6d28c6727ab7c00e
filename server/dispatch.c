/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dispatch table: one row per API kcoord serves, with the version range
 * it advertises in ApiVersions and the handler. ApiVersions is built from
 * this table, so the two cannot drift. Ranges are the union of Kafka trunk
 * and 3.9, capped to what the message schemas declare.
 */
#include "server_int.h"

#define ROW(key, NAME, name, handler)                                                              \
    {key, KC_##NAME##_REQUEST_MIN_VERSION, KC_##NAME##_REQUEST_MAX_VERSION,                         \
     KC_##NAME##_REQUEST_FLEXIBLE_MIN, name, handler}

const kc_api_entry_t kc_api_table[] = {
    ROW(KC_API_PRODUCE, PRODUCE, "Produce", kc_handle_produce),
    ROW(KC_API_FETCH, FETCH, "Fetch", kc_handle_fetch),
    ROW(KC_API_LIST_OFFSETS, LIST_OFFSETS, "ListOffsets", kc_handle_list_offsets),
    ROW(KC_API_METADATA, METADATA, "Metadata", kc_handle_metadata),
    ROW(KC_API_OFFSET_COMMIT, OFFSET_COMMIT, "OffsetCommit", kc_handle_offset_commit),
    ROW(KC_API_OFFSET_FETCH, OFFSET_FETCH, "OffsetFetch", kc_handle_offset_fetch),
    ROW(KC_API_FIND_COORDINATOR, FIND_COORDINATOR, "FindCoordinator", kc_handle_find_coordinator),
    ROW(KC_API_JOIN_GROUP, JOIN_GROUP, "JoinGroup", kc_handle_join_group),
    ROW(KC_API_HEARTBEAT, HEARTBEAT, "Heartbeat", kc_handle_heartbeat),
    ROW(KC_API_LEAVE_GROUP, LEAVE_GROUP, "LeaveGroup", kc_handle_leave_group),
    ROW(KC_API_SYNC_GROUP, SYNC_GROUP, "SyncGroup", kc_handle_sync_group),
    ROW(KC_API_DESCRIBE_GROUPS, DESCRIBE_GROUPS, "DescribeGroups", kc_handle_describe_groups),
    ROW(KC_API_LIST_GROUPS, LIST_GROUPS, "ListGroups", kc_handle_list_groups),
    ROW(KC_API_SASL_HANDSHAKE, SASL_HANDSHAKE, "SaslHandshake", kc_handle_sasl_handshake),
    ROW(KC_API_API_VERSIONS, API_VERSIONS, "ApiVersions", kc_handle_api_versions),
    ROW(KC_API_CREATE_TOPICS, CREATE_TOPICS, "CreateTopics", kc_handle_create_topics),
    ROW(KC_API_DELETE_TOPICS, DELETE_TOPICS, "DeleteTopics", kc_handle_delete_topics),
    ROW(KC_API_DELETE_RECORDS, DELETE_RECORDS, "DeleteRecords", kc_handle_delete_records),
    /* v6 (KIP-939 two-phase commit) is unstable in Kafka and not advertised. */
    {KC_API_INIT_PRODUCER_ID, KC_INIT_PRODUCER_ID_REQUEST_MIN_VERSION, 5,
     KC_INIT_PRODUCER_ID_REQUEST_FLEXIBLE_MIN, "InitProducerId", kc_handle_init_producer_id},
    ROW(KC_API_OFFSET_FOR_LEADER_EPOCH, OFFSET_FOR_LEADER_EPOCH, "OffsetForLeaderEpoch",
        kc_handle_offset_for_leader_epoch),
    ROW(KC_API_ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS_TO_TXN, "AddPartitionsToTxn",
        kc_handle_add_partitions_to_txn),
    ROW(KC_API_ADD_OFFSETS_TO_TXN, ADD_OFFSETS_TO_TXN, "AddOffsetsToTxn",
        kc_handle_add_offsets_to_txn),
    ROW(KC_API_END_TXN, END_TXN, "EndTxn", kc_handle_end_txn),
    ROW(KC_API_TXN_OFFSET_COMMIT, TXN_OFFSET_COMMIT, "TxnOffsetCommit",
        kc_handle_txn_offset_commit),
    ROW(KC_API_DESCRIBE_ACLS, DESCRIBE_ACLS, "DescribeAcls", kc_handle_describe_acls),
    ROW(KC_API_CREATE_ACLS, CREATE_ACLS, "CreateAcls", kc_handle_create_acls),
    ROW(KC_API_DELETE_ACLS, DELETE_ACLS, "DeleteAcls", kc_handle_delete_acls),
    ROW(KC_API_DESCRIBE_CONFIGS, DESCRIBE_CONFIGS, "DescribeConfigs",
        kc_handle_describe_configs),
    ROW(KC_API_ALTER_CONFIGS, ALTER_CONFIGS, "AlterConfigs", kc_handle_alter_configs),
    ROW(KC_API_SASL_AUTHENTICATE, SASL_AUTHENTICATE, "SaslAuthenticate",
        kc_handle_sasl_authenticate),
    ROW(KC_API_CREATE_PARTITIONS, CREATE_PARTITIONS, "CreatePartitions",
        kc_handle_create_partitions),
    ROW(KC_API_DELETE_GROUPS, DELETE_GROUPS, "DeleteGroups", kc_handle_delete_groups),
    ROW(KC_API_INCREMENTAL_ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS, "IncrementalAlterConfigs",
        kc_handle_incremental_alter_configs),
    ROW(KC_API_OFFSET_DELETE, OFFSET_DELETE, "OffsetDelete", kc_handle_offset_delete),
    ROW(KC_API_DESCRIBE_CLUSTER, DESCRIBE_CLUSTER, "DescribeCluster", kc_handle_describe_cluster),
    ROW(KC_API_DESCRIBE_PRODUCERS, DESCRIBE_PRODUCERS, "DescribeProducers",
        kc_handle_describe_producers),
    ROW(KC_API_DESCRIBE_TRANSACTIONS, DESCRIBE_TRANSACTIONS, "DescribeTransactions",
        kc_handle_describe_transactions),
    ROW(KC_API_LIST_TRANSACTIONS, LIST_TRANSACTIONS, "ListTransactions",
        kc_handle_list_transactions),
    ROW(KC_API_CONSUMER_GROUP_HEARTBEAT, CONSUMER_GROUP_HEARTBEAT, "ConsumerGroupHeartbeat",
        kc_handle_consumer_group_heartbeat),
    ROW(KC_API_CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe",
        kc_handle_consumer_group_describe),
    ROW(KC_API_STREAMS_GROUP_HEARTBEAT, STREAMS_GROUP_HEARTBEAT, "StreamsGroupHeartbeat",
        kc_handle_streams_group_heartbeat),
    ROW(KC_API_STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_DESCRIBE, "StreamsGroupDescribe",
        kc_handle_streams_group_describe),
    /* Advertised whether or not a store is configured, as Kafka does; without
     * one every request is answered UNSUPPORTED_VERSION. */
    ROW(KC_API_STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE, STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE,
        "StreamsGroupTopologyDescriptionUpdate",
        kc_handle_streams_group_topology_description_update),
};

const size_t kc_api_table_len = sizeof(kc_api_table) / sizeof(kc_api_table[0]);

const kc_api_entry_t *kc_api_find(int16_t api_key)
{
    for (size_t i = 0; i < kc_api_table_len; i++)
        if (kc_api_table[i].api_key == api_key)
            return &kc_api_table[i];
    return NULL;
}
