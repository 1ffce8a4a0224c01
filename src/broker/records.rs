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
    group_of_key, parse_group_metadata, parse_offset_commit_key, parse_offset_commit_value,
    parse_transaction_key, parse_transaction_value, Coordinator, GroupMetadata, OffsetCommitValue,
    StructValue, TransactionLog, Value,
};
use crate::format::reader::{DecodeError, DecodeResult, Reader};

// Every record below (and the KIP-848 ones in `consumer_group`) is written by the schema-driven
// encoder of `format::coordinator` from the same generated tables the decoders and printers
// use, from the typed values of `format::coordinator` that the replay parsers read them back
// into: build the key and value with `StructBuilder` over the tables entry and call
// `Coordinator::Group.encode_key` / `encode_value`.

fn encoded(bytes: Result<Vec<u8>, crate::format::coordinator::encode::EncodeError>) -> Vec<u8> {
    // The values are built here against the generated tables: a mismatch is a bug in this
    // file, caught by its tests. What input could make unwritable (a string over 0x7fff bytes,
    // as a 40,000-byte group id) never gets here: the request decoder refuses it as Kafka's
    // does and the connection is closed (vendor/kafka-protocol/PATCHED.md), and integers come
    // typed at their field's width.
    bytes.unwrap_or_else(|e| panic!("coordinator record does not fit its schema: {}", e.message))
}

/// A string field's value.
fn text(t: &str) -> Value<'_> {
    Value::Str(t.as_bytes())
}

/// A nullable string field's value.
fn opt_text(t: Option<&str>) -> Value<'_> {
    t.map_or(Value::Null, text)
}

/// OffsetCommitKey (type 1): group, topic, partition.
pub fn offset_commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
    let key = StructBuilder::new(&OFFSET_COMMIT_KEY)
        .set("group", text(group))
        .set("topic", text(topic))
        .set("partition", Value::Int(partition.into()))
        .build();
    encoded(Coordinator::Group.encode_key(1, &key))
}

/// A committed offset as Kafka 4.1+ writes it: OffsetCommitValue v4 (flexible, tagged topic
/// id) normally, v1 when the commit carries an expire timestamp. A leader epoch of -1 is none.
pub fn offset_value(
    offset: i64,
    leader_epoch: i32,
    metadata: String,
    commit_timestamp: i64,
    expire_timestamp: Option<i64>,
    topic_id: Option<[u8; 16]>,
) -> OffsetCommitValue {
    OffsetCommitValue {
        version: if expire_timestamp.is_some() { 1 } else { 4 },
        offset,
        leader_epoch: Some(leader_epoch).filter(|e| *e != -1),
        metadata,
        commit_timestamp,
        expire_timestamp,
        topic_id: topic_id.filter(|id| *id != [0; 16]),
    }
}

/// OffsetCommitValue at `v.version` (0-4): the fields of that version, the topic id (v4+,
/// tagged) when there is one.
pub fn offset_commit_value(v: &OffsetCommitValue) -> Vec<u8> {
    let mut b = StructBuilder::new(&OFFSET_COMMIT_VALUE).set("offset", Value::Int(v.offset));
    if v.version >= 3 {
        b = b.set(
            "leaderEpoch",
            Value::Int(v.leader_epoch.unwrap_or(-1).into()),
        );
    }
    b = b
        .set("metadata", text(&v.metadata))
        .set("commitTimestamp", Value::Int(v.commit_timestamp));
    if v.version == 1 {
        b = b.set(
            "expireTimestamp",
            Value::Int(v.expire_timestamp.unwrap_or(-1)),
        );
    }
    if let Some(id) = v.topic_id.filter(|_| v.version >= 4) {
        b = b.set("topicId", Value::Uuid(id));
    }
    encoded(Coordinator::Group.encode_value(1, v.version, &b.build()))
}

/// GroupMetadataKey (type 2): the group id.
pub fn group_metadata_key(group: &str) -> Vec<u8> {
    let key = StructBuilder::new(&GROUP_METADATA_KEY)
        .set("group", text(group))
        .build();
    encoded(Coordinator::Group.encode_key(2, &key))
}

/// GroupMetadataValue v3, the version Kafka 4.x writes (`g.version` and the members' decoded
/// `subscription`/`assignment` are not read: their bytes are written as they are).
pub fn group_metadata_value(g: &GroupMetadata) -> Vec<u8> {
    let b = StructBuilder::new(&GROUP_METADATA_VALUE);
    let member = b.element("members");
    let members = g
        .members
        .iter()
        .map(|m| {
            Value::Struct(
                StructBuilder::of(member)
                    .set("memberId", text(&m.member_id))
                    .set("groupInstanceId", opt_text(m.group_instance_id.as_deref()))
                    .set("clientId", text(&m.client_id))
                    .set("clientHost", text(&m.client_host))
                    .set(
                        "rebalanceTimeout",
                        Value::Int(m.rebalance_timeout.unwrap_or(-1).into()),
                    )
                    .set("sessionTimeout", Value::Int(m.session_timeout.into()))
                    .set("subscription", Value::Bytes(&m.subscription_bytes))
                    .set("assignment", Value::Bytes(&m.assignment_bytes))
                    .build(),
            )
        })
        .collect();
    let value = b
        .set("protocolType", text(&g.protocol_type))
        .set("generation", Value::Int(g.generation.into()))
        .set("protocol", opt_text(g.protocol.as_deref()))
        .set("leader", opt_text(g.leader.as_deref()))
        .set(
            "currentStateTimestamp",
            Value::Int(g.current_state_timestamp.unwrap_or(-1)),
        )
        .set("members", Value::Array(members))
        .build();
    encoded(Coordinator::Group.encode_value(2, 3, &value))
}

/// TransactionLogKey (type 0): the transactional id.
pub fn transaction_log_key(transactional_id: &str) -> Vec<u8> {
    let key = StructBuilder::new(&TRANSACTION_LOG_KEY)
        .set("transactionalId", text(transactional_id))
        .build();
    encoded(Coordinator::Transaction.encode_key(0, &key))
}

/// TransactionLogValue at `v.version` (0, or 1 when the cluster's `transaction.version` is at
/// least 1, as on a Kafka 4.x cluster). A v1 value's tagged fields are written when they are
/// not at their defaults: clients older than KIP-890 part 2 leave them all there, and the
/// tagged section is empty.
pub fn transaction_log_value(v: &TransactionLog) -> Vec<u8> {
    let b = StructBuilder::new(&TRANSACTION_LOG_VALUE);
    let partition = b.element("transactionPartitions");
    let partitions = match &v.partitions {
        None => Value::Null,
        Some(list) => Value::Array(
            list.iter()
                .map(|tp| {
                    Value::Struct(
                        StructBuilder::of(partition)
                            .set("topic", text(&tp.topic))
                            .set(
                                "partitionIds",
                                Value::Array(
                                    tp.partitions
                                        .iter()
                                        .map(|&id| Value::Int(id.into()))
                                        .collect(),
                                ),
                            )
                            .build(),
                    )
                })
                .collect(),
        ),
    };
    let mut b = b
        .set("producerId", Value::Int(v.producer_id))
        .set("producerEpoch", Value::Int(v.producer_epoch.into()))
        .set("transactionTimeoutMs", Value::Int(v.timeout_ms.into()))
        .set("transactionStatus", Value::Int(v.status.into()))
        .set("transactionPartitions", partitions)
        .set(
            "transactionLastUpdateTimestampMs",
            Value::Int(v.last_update_timestamp),
        )
        .set("transactionStartTimestampMs", Value::Int(v.start_timestamp));
    if v.version >= 1 {
        for (name, value, default) in [
            ("previousProducerId", v.previous_producer_id, -1),
            ("nextProducerId", v.next_producer_id, -1),
            ("nextProducerEpoch", v.next_producer_epoch.into(), -1),
            (
                "clientTransactionVersion",
                v.client_transaction_version.into(),
                0,
            ),
        ] {
            if value != default {
                b = b.set(name, Value::Int(value));
            }
        }
    }
    let value: StructValue<'_> = b.build();
    encoded(Coordinator::Transaction.encode_value(0, v.version, &value))
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
            None => {
                return Err(DecodeError::invalid(
                    2,
                    "GroupMetadataKey without a group id",
                ))
            }
        },
        other => OffsetsKey::Other(other),
    })
}

/// Reads an OffsetCommitValue (any version) with the typed parser.
pub fn decode_offset_value(value: &[u8]) -> DecodeResult<OffsetCommitValue> {
    parse_offset_commit_value(1, value)
}

/// Reads a GroupMetadataValue (any version) with the typed parser.
pub fn decode_group_value(value: &[u8]) -> DecodeResult<GroupMetadata> {
    parse_group_metadata(value)
}

/// The transactional id of a `__transaction_state` key (`None` for another record type). The
/// full key decoder is `format::coordinator::decode_transaction_key`.
pub fn transactional_id_of_key(key: &[u8]) -> DecodeResult<Option<String>> {
    match Reader::new(key).i16("record type")? {
        0 => parse_transaction_key(key).map(Some),
        _ => Ok(None),
    }
}

/// Reads a TransactionLogValue (any version) with the typed parser; a status Kafka does not
/// name is an error.
pub fn decode_transaction_value(value: &[u8]) -> DecodeResult<TransactionLog> {
    let t = parse_transaction_value(value)?;
    match t.state() {
        Some(_) => Ok(t),
        None => Err(DecodeError::unsupported(
            16,
            format!("unknown transaction status {}", t.status),
        )),
    }
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
    use crate::format::coordinator::{GroupMember, TopicPartitions, TransactionState};

    const TS: i64 = 1_700_000_000_000;

    #[test]
    fn digest_vectors_v6() {
        assert_eq!(
            hex::encode(offset_commit_key("g", "t", 0)),
            "0001000167000174".to_string() + "00000000"
        );
        let v = offset_value(42, 0, String::new(), TS, None, None);
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
        let with_id = offset_value(42, 0, String::new(), TS, None, Some([7; 16]));
        assert_eq!(
            decode_offset_value(&offset_commit_value(&with_id)).unwrap(),
            with_id
        );
        let expiring = offset_value(42, -1, "m".into(), TS, Some(TS + 1), Some([7; 16]));
        assert_eq!(expiring.version, 1);
        let back = decode_offset_value(&offset_commit_value(&expiring)).unwrap();
        assert_eq!(back.expire_timestamp, Some(TS + 1));
        // v1 has no leader epoch and no topic id.
        assert_eq!((back.leader_epoch, back.topic_id), (None, None));
        assert_eq!((back.offset, back.metadata.as_str()), (42, "m"));
    }

    #[test]
    fn group_value_v3_matches_a_kafka_4_broker() {
        // From a Kafka 4.0 data dir: the empty group after its last member left.
        let want = "00030008636f6e73756d65720000000fffffffff000001985c1d55af00000000";
        let g = GroupMetadata {
            version: 3,
            protocol_type: "consumer".into(),
            generation: 15,
            protocol: None,
            leader: None,
            current_state_timestamp: Some(0x0198_5c1d_55af),
            members: vec![],
        };
        assert_eq!(hex::encode(group_metadata_value(&g)), want);
        assert_eq!(decode_group_value(&hex::decode(want).unwrap()).unwrap(), g);
        let with_member = GroupMetadata {
            members: vec![GroupMember {
                member_id: "m-1".into(),
                group_instance_id: None,
                client_id: "c".into(),
                client_host: "/127.0.0.1".into(),
                rebalance_timeout: Some(300000),
                session_timeout: 45000,
                subscription_bytes: vec![0, 3, 1],
                assignment_bytes: vec![0, 3],
                // These bytes do not decode as the consumer protocol.
                subscription: None,
                assignment: None,
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
        let tp = |topic: &str, partitions: Vec<i32>| TopicPartitions {
            topic: topic.into(),
            partitions,
        };
        let v = TransactionLog {
            version: 1,
            producer_id: 1000,
            previous_producer_id: -1,
            next_producer_id: -1,
            producer_epoch: 2,
            next_producer_epoch: -1,
            timeout_ms: 60000,
            status: TransactionState::Ongoing as i8,
            partitions: Some(vec![
                tp("t", vec![0, 2]),
                tp("__consumer_offsets", vec![22]),
            ]),
            last_update_timestamp: TS,
            start_timestamp: TS - 5,
            client_transaction_version: 0,
        };
        let bytes = transaction_log_value(&v);
        assert_eq!(decode_transaction_value(&bytes).unwrap(), v);
        // Every tagged field at its default: an empty tagged section ends the value.
        assert_eq!(bytes.last(), Some(&0));
        let tagged = TransactionLog {
            previous_producer_id: 999,
            next_producer_id: 1001,
            next_producer_epoch: 0,
            client_transaction_version: 2,
            ..v.clone()
        };
        assert_eq!(
            decode_transaction_value(&transaction_log_value(&tagged)).unwrap(),
            tagged
        );
        let empty = TransactionLog {
            status: TransactionState::Empty as i8,
            partitions: None,
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
        assert_eq!(d.state(), Some(TransactionState::CompleteCommit));
        assert_eq!(d.timeout_ms, 60000);
        assert_eq!(transaction_log_value(&d), v0);
        let mut unknown = v0.clone();
        unknown[16] = 9;
        assert!(decode_transaction_value(&unknown).is_err());
        assert_eq!(
            transactional_id_of_key(&hex::decode("0000000864656661756c745f").unwrap()).unwrap(),
            Some("default_".into())
        );
    }
}
