//! One handler per API, grouped by area: each takes the decoded request and gives the response
//! ([`super::dispatch`] decodes and frames them). The cluster (ApiVersions is answered by
//! dispatch itself; Metadata, FindCoordinator, DescribeCluster, DescribeLogDirs,
//! DescribeQuorum, UpdateFeatures), topics (CreateTopics, DeleteTopics, CreatePartitions,
//! DeleteRecords), configs (DescribeConfigs, IncrementalAlterConfigs, AlterConfigs), produce,
//! fetch (Fetch,
//! ListOffsets, OffsetForLeaderEpoch), classic groups (JoinGroup, SyncGroup, Heartbeat,
//! LeaveGroup, DescribeGroups, ListGroups, DeleteGroups), group offsets (OffsetCommit,
//! OffsetFetch, OffsetDelete), KIP-848 consumer groups (ConsumerGroupHeartbeat,
//! ConsumerGroupDescribe), transactions (InitProducerId, AddPartitionsToTxn,
//! AddOffsetsToTxn, TxnOffsetCommit, EndTxn) and their description (DescribeProducers,
//! DescribeTransactions, ListTransactions).

pub(super) mod cluster;
pub(super) mod configs;
pub(super) mod consumer_group;
pub(super) mod fetch;
pub(super) mod groups;
pub(super) mod offsets;
pub(super) mod produce;
pub(super) mod topics;
pub(super) mod txn;
pub(super) mod txn_admin;

use kafka_protocol::messages::TopicName;
use kafka_protocol::protocol::StrBytes;

use super::BrokerError;

/// `AclOperation` codes as a bit field (`Utils.to32BitField`).
const fn ops(codes: &[u8]) -> i32 {
    let mut bits = 0i32;
    let mut i = 0;
    while i < codes.len() {
        bits |= 1 << codes[i];
        i += 1;
    }
    bits
}

// What Kafka answers for authorized operations without an authorizer
// (`AuthHelper.authorizedOperations`: every operation `AclEntry.supportedOperations` lists for
// the resource type). READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8,
// CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12.
pub const TOPIC_OPERATIONS: i32 = ops(&[3, 4, 5, 8, 6, 7, 10, 11]);
pub const GROUP_OPERATIONS: i32 = ops(&[3, 8, 6, 10, 11]);
pub const CLUSTER_OPERATIONS: i32 = ops(&[5, 9, 10, 11, 12, 7, 8]);

/// `Errors.INVALID_REQUEST.message()`.
pub(super) const INVALID_REQUEST_MESSAGE: &str =
    "This most likely occurs because of a request being \
    malformed by the client library or the message was sent to an incompatible broker. See the \
    broker logs for more details.";

pub(super) fn str_bytes(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

pub(super) fn topic_name(v: &str) -> TopicName {
    TopicName(str_bytes(v))
}

pub(super) fn uuid(id: [u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(id)
}

/// The error code and message a response carries for `e`.
pub(super) fn coded(e: &BrokerError) -> (i16, Option<StrBytes>) {
    (e.code(), Some(str_bytes(&e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorized_operation_bits() {
        // Bits 3-8, 10 and 11: what a Kafka 4.x broker without an authorizer answers.
        assert_eq!(TOPIC_OPERATIONS, 0b1101_1111_1000);
        assert_eq!(GROUP_OPERATIONS, 0b1101_0100_1000);
        assert_eq!(CLUSTER_OPERATIONS, 0b1_1111_1010_0000);
    }
}
