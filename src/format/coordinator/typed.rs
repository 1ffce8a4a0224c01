//! Typed views of the coordinator records that analyses replay over whole partitions (offset
//! commits, classic group metadata, transaction log values): owned structs filled from the
//! schema-driven decoder's values (one decoder for every use of these records).

use super::decode::read_message;
use super::error::{Error, ErrorKind};
use super::tables::{CONSUMER_PROTOCOL_ASSIGNMENT, CONSUMER_PROTOCOL_SUBSCRIPTION, GROUP_RECORDS};
use super::value::{StructValue, Value};
use super::{transaction_state_name, Coordinator};
use crate::format::reader::{DecodeResult, Reader};

/// Whether a `__consumer_offsets` record type is one this table knows. Kafka's loader skips a
/// record of an unknown type with a warning (a newer Kafka's record, or a leftover of an aborted
/// upgrade) and goes on.
pub fn is_known_group_record_type(record_type: i16) -> bool {
    Coordinator::Group.knows(record_type)
}

/// Whether a `__transaction_state` key version is one this table knows (Kafka's
/// TransactionStateManager skips an unknown one with a warning and goes on).
pub fn is_known_transaction_record_type(record_type: i16) -> bool {
    Coordinator::Transaction.knows(record_type)
}

/// Record type and group id of a `__consumer_offsets` key, without allocating. `None` for an
/// unknown record type or a key that does not start with a valid group id string.
pub fn group_of_key(key: &[u8]) -> Option<(i16, &str)> {
    let mut r = Reader::new(key);
    let record_type = r.i16("record type").ok()?;
    GROUP_RECORDS.iter().find(|(t, ..)| *t == record_type)?;
    let group = r.nullable_string("group").ok()??;
    Some((record_type, group))
}

/// The key of an offset commit (record types 0 and 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitKey {
    pub record_type: i16,
    pub group: String,
    pub topic: String,
    pub partition: i32,
}

/// An offset commit: key and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommit {
    pub record_type: i16,
    pub group: String,
    pub topic: String,
    pub partition: i32,
    /// Value version (0–4).
    pub version: i16,
    pub offset: i64,
    /// v3+; `None` when absent or -1 (no epoch).
    pub leader_epoch: Option<i32>,
    pub metadata: String,
    pub commit_timestamp: i64,
    /// v1 only; `None` when absent or -1.
    pub expire_timestamp: Option<i64>,
    /// v4+ tagged field; `None` when absent or zero.
    pub topic_id: Option<[u8; 16]>,
}

/// A topic with partitions (consumer protocol, transaction partitions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPartitions {
    pub topic: String,
    pub partitions: Vec<i32>,
}

/// ConsumerProtocolSubscription (a classic consumer group member's subscription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSubscription {
    pub version: i16,
    pub topics: Vec<String>,
    pub user_data: Option<Vec<u8>>,
    /// v1+.
    pub owned_partitions: Vec<TopicPartitions>,
    /// v2+ (default -1).
    pub generation_id: i32,
    /// v3+.
    pub rack_id: Option<String>,
}

/// ConsumerProtocolAssignment (what the leader assigned to a member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerAssignment {
    pub version: i16,
    pub partitions: Vec<TopicPartitions>,
    pub user_data: Option<Vec<u8>>,
}

/// A member of a classic group (GroupMetadataValue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    pub member_id: String,
    /// v3+.
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    /// v1+.
    pub rebalance_timeout: Option<i32>,
    pub session_timeout: i32,
    pub subscription_bytes: Vec<u8>,
    pub assignment_bytes: Vec<u8>,
    /// Decoded when the group's protocol type is `consumer` and the bytes decode.
    pub subscription: Option<ConsumerSubscription>,
    pub assignment: Option<ConsumerAssignment>,
}

/// GroupMetadataValue (record type 2): a classic group's state after a rebalance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMetadata {
    pub version: i16,
    pub protocol_type: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    /// v2+; `None` when absent or -1.
    pub current_state_timestamp: Option<i64>,
    pub members: Vec<GroupMember>,
}

/// TransactionLogValue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionLog {
    pub version: i16,
    pub producer_id: i64,
    /// v1+ tagged, default -1.
    pub previous_producer_id: i64,
    /// v1+ tagged, default -1.
    pub next_producer_id: i64,
    pub producer_epoch: i16,
    /// v1+ tagged, default -1.
    pub next_producer_epoch: i16,
    pub timeout_ms: i32,
    pub status: i8,
    /// `None` when written null (state Empty).
    pub partitions: Option<Vec<TopicPartitions>>,
    pub last_update_timestamp: i64,
    pub start_timestamp: i64,
    /// v1+ tagged, default 0.
    pub client_transaction_version: i16,
}

impl TransactionLog {
    pub fn status_name(&self) -> Option<&'static str> {
        transaction_state_name(self.status)
    }
}

fn string(d: &StructValue<'_>, name: &str) -> String {
    d.str(name).unwrap_or_default().into_owned()
}

fn opt_string(d: &StructValue<'_>, name: &str) -> Option<String> {
    d.str(name).map(|s| s.into_owned())
}

fn int(d: &StructValue<'_>, name: &str) -> Option<i64> {
    d.int(name)
}

fn bytes<'a>(d: &StructValue<'a>, name: &str) -> Option<&'a [u8]> {
    match d.get(name)? {
        Value::Bytes(b) | Value::Records(b) => Some(b),
        Value::Embedded(e) => Some(e.bytes),
        _ => None,
    }
}

fn ints(v: Option<&Value<'_>>) -> Vec<i32> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_int)
                .map(|n| n as i32)
                .collect()
        })
        .unwrap_or_default()
}

fn topic_partitions(v: Option<&Value<'_>>, partitions: &str) -> Option<Vec<TopicPartitions>> {
    let items = v?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(Value::as_struct)
            .map(|tp| TopicPartitions {
                topic: string(tp, "topic"),
                partitions: ints(tp.get(partitions)),
            })
            .collect(),
    )
}

/// Parses the key of an offset commit (record types 0 and 1).
pub fn parse_offset_commit_key(key: &[u8]) -> DecodeResult<OffsetCommitKey> {
    let record_type = Reader::new(key).i16("record type")?;
    if record_type != 0 && record_type != 1 {
        return Err(Error::new(0, ErrorKind::NotOffsetCommit(record_type)).into());
    }
    let k = Coordinator::Group.decode_key(key)?;
    Ok(OffsetCommitKey {
        record_type,
        group: string(&k.data, "group"),
        topic: string(&k.data, "topic"),
        partition: int(&k.data, "partition").unwrap_or(-1) as i32,
    })
}

/// Parses an offset commit from its key (type 0 or 1) and non-null value.
pub fn parse_offset_commit(key: &[u8], value: &[u8]) -> DecodeResult<OffsetCommit> {
    let k = parse_offset_commit_key(key)?;
    let v = Coordinator::Group.decode_value(k.record_type, value)?;
    let d = &v.data;
    Ok(OffsetCommit {
        record_type: k.record_type,
        group: k.group,
        topic: k.topic,
        partition: k.partition,
        version: v.version,
        offset: int(d, "offset").unwrap_or(-1),
        leader_epoch: int(d, "leaderEpoch").map(|e| e as i32).filter(|e| *e != -1),
        metadata: string(d, "metadata"),
        commit_timestamp: int(d, "commitTimestamp").unwrap_or(-1),
        expire_timestamp: int(d, "expireTimestamp").filter(|t| *t != -1),
        topic_id: d.get("topicId").and_then(Value::as_uuid),
    })
}

fn subscription_of(version: i16, d: &StructValue<'_>) -> ConsumerSubscription {
    ConsumerSubscription {
        version,
        topics: d
            .get("topics")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.into_owned())
                    .collect()
            })
            .unwrap_or_default(),
        user_data: bytes(d, "userData").map(<[u8]>::to_vec),
        owned_partitions: topic_partitions(d.get("ownedPartitions"), "partitions")
            .unwrap_or_default(),
        generation_id: int(d, "generationId").map_or(-1, |g| g as i32),
        rack_id: opt_string(d, "rackId"),
    }
}

fn assignment_of(version: i16, d: &StructValue<'_>) -> ConsumerAssignment {
    ConsumerAssignment {
        version,
        partitions: topic_partitions(d.get("assignedPartitions"), "partitions").unwrap_or_default(),
        user_data: bytes(d, "userData").map(<[u8]>::to_vec),
    }
}

/// Parses version-prefixed ConsumerProtocolSubscription bytes (newer versions read with the
/// newest layout, as Kafka does).
pub fn parse_consumer_subscription(bytes: &[u8]) -> DecodeResult<ConsumerSubscription> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    let d = read_message(&CONSUMER_PROTOCOL_SUBSCRIPTION, version, &mut r)?;
    Ok(subscription_of(version, &d))
}

/// Parses version-prefixed ConsumerProtocolAssignment bytes.
pub fn parse_consumer_assignment(bytes: &[u8]) -> DecodeResult<ConsumerAssignment> {
    let mut r = Reader::new(bytes);
    let version = r.i16("version")?;
    let d = read_message(&CONSUMER_PROTOCOL_ASSIGNMENT, version, &mut r)?;
    Ok(assignment_of(version, &d))
}

/// Parses a non-null GroupMetadataValue (record type 2).
pub fn parse_group_metadata(value: &[u8]) -> DecodeResult<GroupMetadata> {
    let v = Coordinator::Group.decode_value(2, value)?;
    let d = &v.data;
    let members = d
        .get("members")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_struct)
        .map(|m| {
            let embedded = |name: &str| match m.get(name) {
                Some(Value::Embedded(e)) => Some((e.version, &e.data)),
                _ => None,
            };
            GroupMember {
                member_id: string(m, "memberId"),
                group_instance_id: opt_string(m, "groupInstanceId"),
                client_id: string(m, "clientId"),
                client_host: string(m, "clientHost"),
                rebalance_timeout: int(m, "rebalanceTimeout").map(|t| t as i32),
                session_timeout: int(m, "sessionTimeout").unwrap_or(-1) as i32,
                subscription_bytes: bytes(m, "subscription").unwrap_or_default().to_vec(),
                assignment_bytes: bytes(m, "assignment").unwrap_or_default().to_vec(),
                subscription: embedded("subscription").map(|(v, d)| subscription_of(v, d)),
                assignment: embedded("assignment").map(|(v, d)| assignment_of(v, d)),
            }
        })
        .collect();
    Ok(GroupMetadata {
        version: v.version,
        protocol_type: string(d, "protocolType"),
        generation: int(d, "generation").unwrap_or(-1) as i32,
        protocol: opt_string(d, "protocol"),
        leader: opt_string(d, "leader"),
        current_state_timestamp: int(d, "currentStateTimestamp").filter(|t| *t != -1),
        members,
    })
}

/// Parses a `__transaction_state` key: the transactional id.
pub fn parse_transaction_key(key: &[u8]) -> DecodeResult<String> {
    let k = Coordinator::Transaction.decode_key(key)?;
    Ok(string(&k.data, "transactionalId"))
}

/// Parses a non-null TransactionLogValue.
pub fn parse_transaction_value(value: &[u8]) -> DecodeResult<TransactionLog> {
    let v = Coordinator::Transaction.decode_value(0, value)?;
    let d = &v.data;
    Ok(TransactionLog {
        version: v.version,
        producer_id: int(d, "producerId").unwrap_or(-1),
        previous_producer_id: int(d, "previousProducerId").unwrap_or(-1),
        next_producer_id: int(d, "nextProducerId").unwrap_or(-1),
        producer_epoch: int(d, "producerEpoch").unwrap_or(-1) as i16,
        next_producer_epoch: int(d, "nextProducerEpoch").unwrap_or(-1) as i16,
        timeout_ms: int(d, "transactionTimeoutMs").unwrap_or(0) as i32,
        status: int(d, "transactionStatus").unwrap_or(-1) as i8,
        partitions: topic_partitions(d.get("transactionPartitions"), "partitionIds"),
        last_update_timestamp: int(d, "transactionLastUpdateTimestampMs").unwrap_or(-1),
        start_timestamp: int(d, "transactionStartTimestampMs").unwrap_or(-1),
        client_transaction_version: int(d, "clientTransactionVersion").unwrap_or(0) as i16,
    })
}
