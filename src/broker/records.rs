//! Coordinator record bytes: what Kafka 4.x's group coordinator writes to `__consumer_offsets`
//! (key type 1 OffsetCommit with value v4, or v1 with an expire timestamp; key type 2
//! GroupMetadata with value v3) and what its transaction coordinator writes to
//! `__transaction_state` (key type 0, TransactionLogValue v1), plus decoders to reload them.
//! Keys are non-flexible; value v4 / v1 are flexible (compact strings, tagged fields).

pub mod consumer_group;

use crate::format::coordinator::encode::StructBuilder;
use crate::format::coordinator::tables::{
    GROUP_METADATA_KEY, GROUP_METADATA_VALUE, OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE,
    TRANSACTION_LOG_KEY, TRANSACTION_LOG_VALUE,
};
use crate::format::coordinator::{
    group_of_key, parse_group_metadata, parse_offset_commit_key, parse_transaction_key,
    parse_transaction_value, Coordinator, StructValue, Value,
};
use crate::format::reader::{DecodeError, DecodeResult, Reader};

// Every record below is written by the schema-driven encoder of `format::coordinator` from the
// same generated tables the decoders and printers use. A new record type (the KIP-848 types
// 3-8, say) is written the same way: build its key and value with `StructBuilder` over its
// tables entry and call `Coordinator::Group.encode_key` / `encode_value`.

fn encoded(bytes: Result<Vec<u8>, crate::format::coordinator::encode::EncodeError>) -> Vec<u8> {
    // The values are built here against the generated tables: a mismatch is a bug in this
    // file, caught by its tests, never a property of input.
    bytes.unwrap_or_else(|e| panic!("coordinator record does not fit its schema: {}", e.message))
}

fn s(text: &str) -> Value<'_> {
    Value::Str(text.as_bytes())
}

fn opt_s(text: Option<&str>) -> Value<'_> {
    text.map_or(Value::Null, s)
}

/// OffsetCommitKey (type 1): group, topic, partition.
pub fn offset_commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
    let key = StructBuilder::new(&OFFSET_COMMIT_KEY)
        .set("group", s(group))
        .set("topic", s(topic))
        .set("partition", Value::Int(partition.into()))
        .build();
    encoded(Coordinator::Group.encode_key(1, &key))
}

/// A committed offset as the coordinator stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetValue {
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    pub topic_id: Option<[u8; 16]>,
}

/// OffsetCommitValue as Kafka 4.1+ writes it: v4 (flexible, tagged topic id) normally, v1
/// when the commit carries an expire timestamp.
pub fn offset_commit_value(v: &OffsetValue) -> Vec<u8> {
    let b = StructBuilder::new(&OFFSET_COMMIT_VALUE).set("offset", Value::Int(v.offset));
    let (version, value) = match v.expire_timestamp {
        Some(expire) => (
            1,
            b.set("metadata", s(&v.metadata))
                .set("commitTimestamp", Value::Int(v.commit_timestamp))
                .set("expireTimestamp", Value::Int(expire)),
        ),
        None => {
            let b = b
                .set("leaderEpoch", Value::Int(v.leader_epoch.into()))
                .set("metadata", s(&v.metadata))
                .set("commitTimestamp", Value::Int(v.commit_timestamp));
            let b = match v.topic_id.filter(|id| *id != [0; 16]) {
                Some(id) => b.set("topicId", Value::Uuid(id)),
                None => b,
            };
            (4, b)
        }
    };
    encoded(Coordinator::Group.encode_value(1, version, &value.build()))
}

/// GroupMetadataKey (type 2): the group id.
pub fn group_metadata_key(group: &str) -> Vec<u8> {
    let key = StructBuilder::new(&GROUP_METADATA_KEY)
        .set("group", s(group))
        .build();
    encoded(Coordinator::Group.encode_key(2, &key))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberValue {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout: i32,
    pub session_timeout: i32,
    pub subscription: Vec<u8>,
    pub assignment: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupValue {
    pub protocol_type: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    pub current_state_timestamp: i64,
    pub members: Vec<MemberValue>,
}

/// GroupMetadataValue v3, the version Kafka 4.x writes.
pub fn group_metadata_value(g: &GroupValue) -> Vec<u8> {
    let b = StructBuilder::new(&GROUP_METADATA_VALUE);
    let member = b.element("members");
    let members = g
        .members
        .iter()
        .map(|m| {
            Value::Struct(
                StructBuilder::of(member)
                    .set("memberId", s(&m.member_id))
                    .set("groupInstanceId", opt_s(m.group_instance_id.as_deref()))
                    .set("clientId", s(&m.client_id))
                    .set("clientHost", s(&m.client_host))
                    .set("rebalanceTimeout", Value::Int(m.rebalance_timeout.into()))
                    .set("sessionTimeout", Value::Int(m.session_timeout.into()))
                    .set("subscription", Value::Bytes(&m.subscription))
                    .set("assignment", Value::Bytes(&m.assignment))
                    .build(),
            )
        })
        .collect();
    let value = b
        .set("protocolType", s(&g.protocol_type))
        .set("generation", Value::Int(g.generation.into()))
        .set("protocol", opt_s(g.protocol.as_deref()))
        .set("leader", opt_s(g.leader.as_deref()))
        .set(
            "currentStateTimestamp",
            Value::Int(g.current_state_timestamp),
        )
        .set("members", Value::Array(members))
        .build();
    encoded(Coordinator::Group.encode_value(2, 3, &value))
}

/// TransactionLogKey (type 0): the transactional id.
pub fn transaction_log_key(transactional_id: &str) -> Vec<u8> {
    let key = StructBuilder::new(&TRANSACTION_LOG_KEY)
        .set("transactionalId", s(transactional_id))
        .build();
    encoded(Coordinator::Transaction.encode_key(0, &key))
}

/// Transaction states by their `TransactionStatus` id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnState {
    Empty = 0,
    Ongoing = 1,
    PrepareCommit = 2,
    PrepareAbort = 3,
    CompleteCommit = 4,
    CompleteAbort = 5,
    Dead = 6,
    PrepareEpochFence = 7,
}

impl TxnState {
    pub fn from_id(id: i8) -> Option<TxnState> {
        Some(match id {
            0 => TxnState::Empty,
            1 => TxnState::Ongoing,
            2 => TxnState::PrepareCommit,
            3 => TxnState::PrepareAbort,
            4 => TxnState::CompleteCommit,
            5 => TxnState::CompleteAbort,
            6 => TxnState::Dead,
            7 => TxnState::PrepareEpochFence,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnValue {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub timeout_ms: i32,
    pub state: TxnState,
    /// Topic → partitions; written null when the state is Empty.
    pub partitions: Vec<(String, Vec<i32>)>,
    pub last_update_timestamp: i64,
    pub start_timestamp: i64,
}

/// TransactionLogValue v1 (flexible), written when the cluster's `transaction.version` is at
/// least 1, as on a Kafka 4.x cluster. Clients older than KIP-890 part 2 leave every tagged
/// field at its default, so the tagged section is empty.
pub fn transaction_log_value(v: &TxnValue) -> Vec<u8> {
    let b = StructBuilder::new(&TRANSACTION_LOG_VALUE);
    let partition = b.element("transactionPartitions");
    let partitions = if v.state == TxnState::Empty {
        Value::Null
    } else {
        Value::Array(
            v.partitions
                .iter()
                .map(|(topic, ids)| {
                    Value::Struct(
                        StructBuilder::of(partition)
                            .set("topic", s(topic))
                            .set(
                                "partitionIds",
                                Value::Array(ids.iter().map(|&id| Value::Int(id.into())).collect()),
                            )
                            .build(),
                    )
                })
                .collect(),
        )
    };
    let value: StructValue<'_> = b
        .set("producerId", Value::Int(v.producer_id))
        .set("producerEpoch", Value::Int(v.producer_epoch.into()))
        .set("transactionTimeoutMs", Value::Int(v.timeout_ms.into()))
        .set("transactionStatus", Value::Int(v.state as i64))
        .set("transactionPartitions", partitions)
        .set(
            "transactionLastUpdateTimestampMs",
            Value::Int(v.last_update_timestamp),
        )
        .set("transactionStartTimestampMs", Value::Int(v.start_timestamp))
        .build();
    encoded(Coordinator::Transaction.encode_value(0, 1, &value))
}

/// A decoded `__consumer_offsets` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffsetsKey {
    Offset {
        group: String,
        topic: String,
        partition: i32,
    },
    Group(String),
    /// A record type this broker does not use (KIP-848, share and streams groups).
    Other(i16),
}

/// Reads a `__consumer_offsets` key with the typed parsers of `format::coordinator`.
pub fn decode_offsets_key(key: &[u8]) -> DecodeResult<OffsetsKey> {
    let kind = Reader::new(key).i16("record type")?;
    Ok(match kind {
        0 | 1 => {
            let k = parse_offset_commit_key(key)?;
            OffsetsKey::Offset {
                group: k.group,
                topic: k.topic,
                partition: k.partition,
            }
        }
        2 => match group_of_key(key) {
            Some((_, group)) => OffsetsKey::Group(group.to_string()),
            None => return Err(DecodeError::new(2, "GroupMetadataKey without a group id")),
        },
        other => OffsetsKey::Other(other),
    })
}

/// Reads an OffsetCommitValue (any version) with the schema-driven decoder.
pub fn decode_offset_value(value: &[u8]) -> DecodeResult<OffsetValue> {
    let v = Coordinator::Group.decode_value(1, value)?;
    let d = &v.data;
    Ok(OffsetValue {
        offset: d.int("offset").unwrap_or(-1),
        leader_epoch: d.int("leaderEpoch").map_or(-1, |e| e as i32),
        metadata: d.str("metadata").unwrap_or_default().into_owned(),
        commit_timestamp: d.int("commitTimestamp").unwrap_or(-1),
        expire_timestamp: if v.version == 1 {
            d.int("expireTimestamp")
        } else {
            None
        },
        topic_id: d.get("topicId").and_then(Value::as_uuid),
    })
}

/// Reads a GroupMetadataValue (any version) with the typed parser.
pub fn decode_group_value(value: &[u8]) -> DecodeResult<GroupValue> {
    let g = parse_group_metadata(value)?;
    Ok(GroupValue {
        protocol_type: g.protocol_type,
        generation: g.generation,
        protocol: g.protocol,
        leader: g.leader,
        current_state_timestamp: g.current_state_timestamp.unwrap_or(-1),
        members: g
            .members
            .into_iter()
            .map(|m| MemberValue {
                member_id: m.member_id,
                group_instance_id: m.group_instance_id,
                client_id: m.client_id,
                client_host: m.client_host,
                rebalance_timeout: m.rebalance_timeout.unwrap_or(-1),
                session_timeout: m.session_timeout,
                subscription: m.subscription_bytes,
                assignment: m.assignment_bytes,
            })
            .collect(),
    })
}

/// The transactional id of a `__transaction_state` key (`None` for another record type). The
/// full key decoder is `format::coordinator::decode_transaction_key`.
pub fn transactional_id_of_key(key: &[u8]) -> DecodeResult<Option<String>> {
    match Reader::new(key).i16("record type")? {
        0 => parse_transaction_key(key).map(Some),
        _ => Ok(None),
    }
}

/// Reads a TransactionLogValue (any version) with the typed parser.
pub fn decode_transaction_value(value: &[u8]) -> DecodeResult<TxnValue> {
    let t = parse_transaction_value(value)?;
    let state = TxnState::from_id(t.status)
        .ok_or_else(|| DecodeError::new(16, format!("unknown transaction status {}", t.status)))?;
    Ok(TxnValue {
        producer_id: t.producer_id,
        producer_epoch: t.producer_epoch,
        timeout_ms: t.timeout_ms,
        state,
        partitions: t
            .partitions
            .unwrap_or_default()
            .into_iter()
            .map(|tp| (tp.topic, tp.partitions))
            .collect(),
        last_update_timestamp: t.last_update_timestamp,
        start_timestamp: t.start_timestamp,
    })
}

/// The key of a transaction marker control record: version 0, type 0 (ABORT) or 1 (COMMIT).
pub fn marker_key(commit: bool) -> [u8; 4] {
    [0, 0, 0, commit as u8]
}

/// The EndTxnMarker value: version 0 and the coordinator epoch.
pub fn marker_value(coordinator_epoch: i32) -> [u8; 6] {
    let e = coordinator_epoch.to_be_bytes();
    [0, 0, e[0], e[1], e[2], e[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: i64 = 1_700_000_000_000;

    #[test]
    fn digest_vectors_v6() {
        assert_eq!(
            hex::encode(offset_commit_key("g", "t", 0)),
            "0001000167000174".to_string() + "00000000"
        );
        let v = OffsetValue {
            offset: 42,
            leader_epoch: 0,
            metadata: String::new(),
            commit_timestamp: TS,
            expire_timestamp: None,
            topic_id: None,
        };
        // V6b: OffsetCommitValue v4, no topic id.
        assert_eq!(
            hex::encode(offset_commit_value(&v)),
            "0004000000000000002a00000000010000018bcfe5680000"
        );
        assert_eq!(decode_offset_value(&offset_commit_value(&v)).unwrap(), v);
        assert_eq!(
            hex::encode(group_metadata_key("group")),
            "0002000567726f7570"
        );
        assert_eq!(
            hex::encode(transaction_log_key("txnId")),
            "0000000574786e4964"
        );
        let with_id = OffsetValue {
            topic_id: Some([7; 16]),
            ..v.clone()
        };
        assert_eq!(
            decode_offset_value(&offset_commit_value(&with_id)).unwrap(),
            with_id
        );
        let expiring = OffsetValue {
            expire_timestamp: Some(TS + 1),
            leader_epoch: -1,
            ..v
        };
        assert_eq!(
            decode_offset_value(&offset_commit_value(&expiring)).unwrap(),
            expiring
        );
    }

    #[test]
    fn group_value_v3_matches_a_kafka_4_broker() {
        // From a Kafka 4.0 data dir: the empty group after its last member left.
        let want = "00030008636f6e73756d65720000000fffffffff000001985c1d55af00000000";
        let g = GroupValue {
            protocol_type: "consumer".into(),
            generation: 15,
            protocol: None,
            leader: None,
            current_state_timestamp: 0x0198_5c1d_55af,
            members: vec![],
        };
        assert_eq!(hex::encode(group_metadata_value(&g)), want);
        assert_eq!(decode_group_value(&hex::decode(want).unwrap()).unwrap(), g);
        let with_member = GroupValue {
            members: vec![MemberValue {
                member_id: "m-1".into(),
                group_instance_id: None,
                client_id: "c".into(),
                client_host: "/127.0.0.1".into(),
                rebalance_timeout: 300000,
                session_timeout: 45000,
                subscription: vec![0, 3, 1],
                assignment: vec![0, 3],
            }],
            ..g
        };
        assert_eq!(
            decode_group_value(&group_metadata_value(&with_member)).unwrap(),
            with_member
        );
    }

    #[test]
    fn transaction_values_round_trip_and_read_v0() {
        let v = TxnValue {
            producer_id: 1000,
            producer_epoch: 2,
            timeout_ms: 60000,
            state: TxnState::Ongoing,
            partitions: vec![
                ("t".into(), vec![0, 2]),
                ("__consumer_offsets".into(), vec![22]),
            ],
            last_update_timestamp: TS,
            start_timestamp: TS - 5,
        };
        assert_eq!(
            decode_transaction_value(&transaction_log_value(&v)).unwrap(),
            v
        );
        let empty = TxnValue {
            state: TxnState::Empty,
            partitions: vec![],
            start_timestamp: -1,
            ..v
        };
        assert_eq!(
            decode_transaction_value(&transaction_log_value(&empty)).unwrap(),
            empty
        );
        // A v0 value from a Confluent 7.7 broker: CompleteCommit with an empty partition list.
        let v0 = hex::decode(
            "0000000000000000000000000000ea60040000000000000192764aefdf00000192764aef33",
        )
        .unwrap();
        let d = decode_transaction_value(&v0).unwrap();
        assert_eq!(d.state, TxnState::CompleteCommit);
        assert_eq!(d.timeout_ms, 60000);
        assert_eq!(
            transactional_id_of_key(&hex::decode("0000000864656661756c745f").unwrap()).unwrap(),
            Some("default_".into())
        );
    }
}
