//! KIP-848 consumer group records as Kafka 4.4.0's group coordinator writes them to
//! `__consumer_offsets` (`group-coordinator/src/main/resources/common/message/ConsumerGroup*`):
//! keys are non-flexible (type, then strings), values v0 are flexible (compact strings and
//! arrays, tagged fields). Kafka 4.1+ writes no ConsumerGroupPartitionMetadata value (type 4,
//! replaced by the metadata hash of KIP-1101), only its key's tombstone when a group goes.
//!
//! Written like every other coordinator record (see `super`): built with `StructBuilder` over
//! the generated tables entry and encoded by `format::coordinator`'s schema-driven encoder.

use super::{encoded, opt_text, text};
use kseg_format::coordinator::encode::StructBuilder;
use kseg_format::coordinator::schema::{Message, Struct};
use kseg_format::coordinator::tables::{
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
    CONSUMER_GROUP_MEMBER_METADATA_KEY, CONSUMER_GROUP_MEMBER_METADATA_VALUE,
    CONSUMER_GROUP_METADATA_KEY, CONSUMER_GROUP_METADATA_VALUE,
    CONSUMER_GROUP_PARTITION_METADATA_KEY, CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE, CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
};
use kseg_format::coordinator::{Coordinator, Value};

/// A topic's partitions with, for a current assignment, the epoch each was assigned at.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicPartitions {
    pub topic_id: [u8; 16],
    pub partitions: Vec<i32>,
    /// ConsumerGroupCurrentMemberAssignmentValue's tagged `AssignmentEpochs` (same length).
    pub assignment_epochs: Option<Vec<i32>>,
}

/// ConsumerGroupMemberMetadataValue's fields (no classic member metadata: members that speak
/// the consumer protocol only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberMetadata {
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub subscribed_topic_names: Vec<String>,
    pub subscribed_topic_regex: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub server_assignor: Option<String>,
}

/// ConsumerGroupCurrentMemberAssignmentValue's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentAssignment {
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    /// `MemberState`: 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS.
    pub state: i8,
    pub assigned: Vec<TopicPartitions>,
    pub pending_revocation: Vec<TopicPartitions>,
}

/// A key of `message` (record type `message.api_key`): the group id and, for a member's
/// record, the member id.
fn key(message: &'static Message, group: &str, member: Option<&str>) -> Vec<u8> {
    let b = StructBuilder::new(message).set("groupId", text(group));
    let b = match member {
        Some(m) => b.set("memberId", text(m)),
        None => b,
    };
    encoded(Coordinator::Group.encode_key(message.api_key, &b.build()))
}

/// A v0 value of `message` (the only version of types 3-8).
fn value(message: &'static Message, b: StructBuilder<'_>) -> Vec<u8> {
    encoded(Coordinator::Group.encode_value(message.api_key, 0, &b.build()))
}

fn int(n: impl Into<i64>) -> Value<'static> {
    Value::Int(n.into())
}

fn ints(values: &[i32]) -> Value<'static> {
    Value::Array(values.iter().map(|&v| int(v)).collect())
}

/// ConsumerGroupMetadataKey (type 3).
pub fn group_key(group: &str) -> Vec<u8> {
    key(&CONSUMER_GROUP_METADATA_KEY, group, None)
}

/// ConsumerGroupPartitionMetadataKey (type 4): Kafka 4.4.0 writes no value of it any more but
/// still its tombstone when a group is deleted.
pub fn partition_metadata_key(group: &str) -> Vec<u8> {
    key(&CONSUMER_GROUP_PARTITION_METADATA_KEY, group, None)
}

/// ConsumerGroupMemberMetadataKey (type 5).
pub fn member_key(group: &str, member: &str) -> Vec<u8> {
    key(&CONSUMER_GROUP_MEMBER_METADATA_KEY, group, Some(member))
}

/// ConsumerGroupTargetAssignmentMetadataKey (type 6).
pub fn target_metadata_key(group: &str) -> Vec<u8> {
    key(&CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, group, None)
}

/// ConsumerGroupTargetAssignmentMemberKey (type 7).
pub fn target_member_key(group: &str, member: &str) -> Vec<u8> {
    key(
        &CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY,
        group,
        Some(member),
    )
}

/// ConsumerGroupCurrentMemberAssignmentKey (type 8).
pub fn current_assignment_key(group: &str, member: &str) -> Vec<u8> {
    key(
        &CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY,
        group,
        Some(member),
    )
}

/// ConsumerGroupMetadataValue v0: the group epoch and (tag 0, written when not 0) the KIP-1101
/// metadata hash.
pub fn group_value(epoch: i32, metadata_hash: i64) -> Vec<u8> {
    let b = StructBuilder::new(&CONSUMER_GROUP_METADATA_VALUE).set("epoch", int(epoch));
    let b = match metadata_hash {
        0 => b,
        hash => b.set("metadataHash", int(hash)),
    };
    value(&CONSUMER_GROUP_METADATA_VALUE, b)
}

/// ConsumerGroupMemberMetadataValue v0 (a member of the consumer protocol: no classic
/// metadata).
pub fn member_value(m: &MemberMetadata) -> Vec<u8> {
    let topics = m.subscribed_topic_names.iter().map(|t| text(t)).collect();
    let b = StructBuilder::new(&CONSUMER_GROUP_MEMBER_METADATA_VALUE)
        .set("instanceId", opt_text(m.instance_id.as_deref()))
        .set("rackId", opt_text(m.rack_id.as_deref()))
        .set("clientId", text(&m.client_id))
        .set("clientHost", text(&m.client_host))
        .set("subscribedTopicNames", Value::Array(topics))
        .set(
            "subscribedTopicRegex",
            opt_text(m.subscribed_topic_regex.as_deref()),
        )
        .set("rebalanceTimeoutMs", int(m.rebalance_timeout_ms))
        .set("serverAssignor", opt_text(m.server_assignor.as_deref()))
        // Kafka 4.4.0 writes the tagged ClassicMemberMetadata (tag 0) even when null.
        .set("classicMemberMetadata", Value::Null);
    value(&CONSUMER_GROUP_MEMBER_METADATA_VALUE, b)
}

/// ConsumerGroupTargetAssignmentMetadataValue v0: the assignment epoch and (tag 0, KIP-1263,
/// written when not 0) when it was computed.
pub fn target_metadata_value(assignment_epoch: i32, timestamp: i64) -> Vec<u8> {
    let b = StructBuilder::new(&CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE)
        .set("assignmentEpoch", int(assignment_epoch));
    let b = match timestamp {
        0 => b,
        at => b.set("assignmentTimestamp", int(at)),
    };
    value(&CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE, b)
}

/// The `topicPartitions`-like array of `element` structs: topic id, partitions and, when
/// given, the tagged assignment epochs.
fn topic_partitions(element: &'static Struct, list: &[TopicPartitions]) -> Value<'static> {
    Value::Array(
        list.iter()
            .map(|t| {
                let b = StructBuilder::of(element)
                    .set("topicId", Value::Uuid(t.topic_id))
                    .set("partitions", ints(&t.partitions));
                let b = match &t.assignment_epochs {
                    Some(epochs) => b.set("assignmentEpochs", ints(epochs)),
                    None => b,
                };
                Value::Struct(b.build())
            })
            .collect(),
    )
}

/// ConsumerGroupTargetAssignmentMemberValue v0.
pub fn target_member_value(partitions: &[TopicPartitions]) -> Vec<u8> {
    let b = StructBuilder::new(&CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE);
    let list = topic_partitions(b.element("topicPartitions"), partitions);
    value(
        &CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
        b.set("topicPartitions", list),
    )
}

/// ConsumerGroupCurrentMemberAssignmentValue v0.
pub fn current_assignment_value(a: &CurrentAssignment) -> Vec<u8> {
    let b = StructBuilder::new(&CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE);
    let element = b.element("assignedPartitions");
    let b = b
        .set("memberEpoch", int(a.member_epoch))
        .set("previousMemberEpoch", int(a.previous_member_epoch))
        .set("state", int(a.state))
        .set("assignedPartitions", topic_partitions(element, &a.assigned))
        .set(
            "partitionsPendingRevocation",
            topic_partitions(element, &a.pending_revocation),
        );
    value(&CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE, b)
}

/// Kafka's `Utils.computeTopicHash` (KIP-1101): XXH3-64 over a magic byte 0, the topic id's two
/// longs, the name and the partition count, then each partition id (and its racks: none here),
/// streamed as hash4j does (little-endian numbers; a string as its UTF-16 code units, then
/// its length).
pub fn topic_hash(topic_id: &[u8; 16], name: &str, partitions: i32) -> i64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&[0u8]);
    let most = i64::from_be_bytes(topic_id[..8].try_into().unwrap_or([0; 8]));
    let least = i64::from_be_bytes(topic_id[8..].try_into().unwrap_or([0; 8]));
    h.update(&most.to_le_bytes());
    h.update(&least.to_le_bytes());
    let mut units = 0i32;
    for u in name.encode_utf16() {
        h.update(&u.to_le_bytes());
        units += 1;
    }
    h.update(&units.to_le_bytes());
    h.update(&partitions.to_le_bytes());
    for p in 0..partitions {
        h.update(&p.to_le_bytes());
    }
    h.digest() as i64
}

/// Kafka's `Utils.computeGroupHash`: XXH3-64 over the topic hashes in topic-name order (0 for
/// no topic).
pub fn group_hash(topic_hashes: &[(String, i64)]) -> i64 {
    if topic_hashes.is_empty() {
        return 0;
    }
    let mut sorted: Vec<&(String, i64)> = topic_hashes.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (_, v) in sorted {
        h.update(&v.to_le_bytes());
    }
    h.digest() as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use kseg_format::coordinator::{decode_offsets_key, decode_offsets_value, StructValue};

    /// The decoded fields as JSON-like text (strings, ints, nulls, arrays and structs; uuids
    /// in Kafka's Base64), to compare with what Kafka's dump tool prints.
    fn render_struct(s: &StructValue<'_>) -> String {
        let fields: Vec<String> = s
            .fields
            .iter()
            .map(|(f, v)| format!("\"{}\":{}", f.name, render(v)))
            .collect();
        format!("{{{}}}", fields.join(","))
    }

    fn render(v: &Value<'_>) -> String {
        match v {
            Value::Null => "null".into(),
            Value::Int(n) => n.to_string(),
            Value::Str(_) => format!("\"{}\"", v.as_str().unwrap_or_default()),
            Value::Uuid(u) => format!("\"{}\"", kseg_format::protocol::uuid_string(u)),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(render).collect();
                format!("[{}]", items.join(","))
            }
            Value::Struct(s) => render_struct(s),
            other => panic!("not in these records: {other:?}"),
        }
    }

    fn member(
        instance: Option<&str>,
        regex: Option<&str>,
        assignor: Option<&str>,
    ) -> MemberMetadata {
        MemberMetadata {
            instance_id: instance.map(str::to_string),
            rack_id: instance.map(|_| "rack-1".to_string()),
            client_id: "consumer-g-1".into(),
            client_host: "/127.0.0.1".into(),
            subscribed_topic_names: vec!["a".into(), "orders".into()],
            subscribed_topic_regex: regex.map(str::to_string),
            rebalance_timeout_ms: 300_000,
            server_assignor: assignor.map(str::to_string),
        }
    }

    /// The bytes that the hand-written encoder these records had before wrote for these
    /// values (until the commit "KIP-848 records (types 3-8) written by the schema-driven
    /// encoder", whose test checked both encoders against each other over many values).
    #[test]
    fn bytes_are_the_former_hand_encoders() {
        let tp = |id: u8, partitions: Vec<i32>, epochs: Option<Vec<i32>>| TopicPartitions {
            topic_id: [id; 16],
            partitions,
            assignment_epochs: epochs,
        };
        let cases = [
            (member_key("g", "m"), "000500016700016d"),
            (group_value(2, 42), "000000000002010008000000000000002a"),
            (group_value(5, 0), "00000000000500"),
            (
                member_value(&member(Some("i-1"), None, Some("range"))),
                "000004692d31077261636b2d310d636f6e73756d65722d672d310b2f3132372e302e302e31030261\
                 076f726465727300000493e00672616e676501000100",
            ),
            (
                target_metadata_value(3, 1796137311632),
                "000000000003010008000001a232205d90",
            ),
            (
                target_member_value(&[tp(1, vec![0, 1, 2], None)]),
                "00000201010101010101010101010101010101040000000000000001000000020000",
            ),
            (
                current_assignment_value(&CurrentAssignment {
                    member_epoch: 9,
                    previous_member_epoch: 8,
                    state: 1,
                    assigned: vec![tp(1, vec![3], Some(vec![7]))],
                    pending_revocation: vec![tp(2, vec![0], None)],
                }),
                "00000000000900000008010201010101010101010101010101010101020000000301000502000000\
                 07020202020202020202020202020202020202000000000000",
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(hex::encode(bytes), want);
        }
    }

    fn topic_id(b64: &str) -> [u8; 16] {
        let v = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(b64)
            .unwrap();
        v.try_into().unwrap()
    }

    /// The hash a real Kafka 4.4.0 wrote for group kip848-java subscribed to kip848-src
    /// (topic id SJe8qCfCR_OrNydzZ2oysg, 4 partitions): tests/oracle/kip848.rs's workload.
    #[test]
    fn metadata_hash_matches_kafka() {
        let id = topic_id("SJe8qCfCR_OrNydzZ2oysg");
        let t = topic_hash(&id, "kip848-src", 4);
        assert_eq!(group_hash(&[("kip848-src".into(), t)]), 3411564126479940367);
    }

    #[test]
    fn records_round_trip_through_kseg_decoder() {
        let id = [7u8; 16];
        let cases: Vec<(Vec<u8>, Vec<u8>, &str)> = vec![
            (
                group_key("g"),
                group_value(2, 42),
                r#"{"epoch":2,"metadataHash":42}"#,
            ),
            (group_key("g"), group_value(5, 0), r#"{"epoch":5}"#),
            (
                member_key("g", "m"),
                member_value(&MemberMetadata {
                    instance_id: None,
                    rack_id: None,
                    client_id: "c".into(),
                    client_host: "/127.0.0.1".into(),
                    subscribed_topic_names: vec!["t".into()],
                    subscribed_topic_regex: Some(String::new()),
                    rebalance_timeout_ms: 300000,
                    server_assignor: None,
                }),
                r#"{"instanceId":null,"rackId":null,"clientId":"c","clientHost":"/127.0.0.1","subscribedTopicNames":["t"],"subscribedTopicRegex":"","rebalanceTimeoutMs":300000,"serverAssignor":null,"classicMemberMetadata":null}"#,
            ),
            (
                target_metadata_key("g"),
                target_metadata_value(3, 1796137311632),
                r#"{"assignmentEpoch":3,"assignmentTimestamp":1796137311632}"#,
            ),
            (
                target_member_key("g", "m"),
                target_member_value(&[TopicPartitions {
                    topic_id: id,
                    partitions: vec![2, 3],
                    assignment_epochs: None,
                }]),
                r#"{"topicPartitions":[{"topicId":"BwcHBwcHBwcHBwcHBwcHBw","partitions":[2,3]}]}"#,
            ),
            (
                current_assignment_key("g", "m"),
                current_assignment_value(&CurrentAssignment {
                    member_epoch: 2,
                    previous_member_epoch: 2,
                    state: 1,
                    assigned: vec![TopicPartitions {
                        topic_id: id,
                        partitions: vec![0, 1],
                        assignment_epochs: Some(vec![2, 2]),
                    }],
                    pending_revocation: vec![],
                }),
                r#"{"memberEpoch":2,"previousMemberEpoch":2,"state":1,"assignedPartitions":[{"topicId":"BwcHBwcHBwcHBwcHBwcHBw","partitions":[0,1],"assignmentEpochs":[2,2]}],"partitionsPendingRevocation":[]}"#,
            ),
        ];
        for (k, v, want) in cases {
            let key = decode_offsets_key(&k).unwrap();
            let value = decode_offsets_value(key.record_type, &v).unwrap();
            assert_eq!(value.version, 0);
            assert_eq!(render_struct(&value.data), want, "type {}", key.record_type);
        }
        let key_bytes = current_assignment_key("g", "m");
        let key = decode_offsets_key(&key_bytes).unwrap();
        assert_eq!(key.record_type, 8);
        assert_eq!(
            render_struct(&key.data),
            r#"{"groupId":"g","memberId":"m"}"#
        );
    }
}
