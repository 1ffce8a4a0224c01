//! Handlers of the admin APIs, one file per area, decoded and encoded here so that
//! `server.rs` only dispatches to them: topics (DeleteTopics, CreatePartitions, DeleteRecords,
//! DescribeConfigs), groups (DeleteGroups), KIP-848 consumer groups (ConsumerGroupHeartbeat,
//! ConsumerGroupDescribe) and the cluster (DescribeCluster).

mod cluster;
mod consumer_group;
mod groups;

pub(super) use consumer_group::heartbeat as consumer_group_heartbeat;
mod topics;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::Decodable;

use super::core::Broker;
use super::server::{encode, Shared};

/// The APIs these handlers answer, with their versions (ApiVersions advertises them too).
pub const SUPPORTED: &[(ApiKey, i16, i16)] = &[
    (ApiKey::DeleteTopics, 1, 6),
    (ApiKey::DeleteRecords, 0, 2),
    (ApiKey::DescribeConfigs, 1, 4),
    (ApiKey::CreatePartitions, 0, 3),
    (ApiKey::DeleteGroups, 0, 2),
    (ApiKey::DescribeCluster, 0, 2),
    (ApiKey::ConsumerGroupHeartbeat, 0, 1),
    (ApiKey::ConsumerGroupDescribe, 0, 1),
];

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

macro_rules! decode {
    ($t:ty, $buf:expr, $v:expr) => {
        <$t>::decode(&mut $buf, $v).map_err(|e| format!("undecodable {}: {e}", stringify!($t)))?
    };
}

/// Answers `key` when one of these handlers owns it (`Ok(None)`: not ours).
pub(super) fn handle(
    shared: &Shared,
    key: ApiKey,
    version: i16,
    cid: i32,
    mut buf: Bytes,
) -> Result<Option<BytesMut>, String> {
    let out = match key {
        ApiKey::DeleteTopics => {
            let req = decode!(DeleteTopicsRequest, buf, version);
            encode(
                key,
                version,
                cid,
                &topics::delete_topics(shared, req, version)?,
            )?
        }
        ApiKey::CreatePartitions => {
            let req = decode!(CreatePartitionsRequest, buf, version);
            encode(key, version, cid, &topics::create_partitions(shared, req)?)?
        }
        ApiKey::DeleteRecords => {
            let req = decode!(DeleteRecordsRequest, buf, version);
            encode(key, version, cid, &topics::delete_records(shared, req)?)?
        }
        ApiKey::DescribeConfigs => {
            let req = decode!(DescribeConfigsRequest, buf, version);
            encode(
                key,
                version,
                cid,
                &topics::describe_configs(shared, req, version)?,
            )?
        }
        ApiKey::DeleteGroups => {
            let req = decode!(DeleteGroupsRequest, buf, version);
            encode(key, version, cid, &groups::delete_groups(shared, req)?)?
        }
        ApiKey::ConsumerGroupDescribe => {
            let req = decode!(ConsumerGroupDescribeRequest, buf, version);
            encode(key, version, cid, &consumer_group::describe(shared, req)?)?
        }
        ApiKey::DescribeCluster => {
            let req = decode!(DescribeClusterRequest, buf, version);
            encode(key, version, cid, &cluster::describe_cluster(shared, req))?
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// The configs a CreateTopics v5+ response lists for a new topic.
pub(super) fn created_topic_configs(
    b: &Broker,
    topic: &str,
) -> Vec<create_topics_response::CreatableTopicConfigs> {
    topics::described(b, topic)
        .into_iter()
        .map(|d| {
            create_topics_response::CreatableTopicConfigs::default()
                .with_name(super::server::s(d.name))
                .with_value(Some(super::server::s(&d.value)))
                .with_config_source(d.source as i8)
        })
        .collect()
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
