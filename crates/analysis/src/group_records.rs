//! The KIP-848, share and streams group records of a group (`__consumer_offsets` record types 3
//! and up) as the `groups` replay keeps them: the latest key and value of each, decoded on use
//! into `format::coordinator`'s borrowed `StructValue`, and the view of a KIP-848 consumer group
//! assembled from them.

use std::collections::{BTreeMap, HashMap};

use crate::groups::GroupState;
use kseg_format::coordinator::{
    decode_offsets_key, decode_offsets_value, CoordinatorKey, CoordinatorValue, StructValue, Value,
};
use kseg_format::protocol::uuid_string;

/// A KIP-848/share/streams group record as it was read: its key and (non-null) value bytes,
/// which decoded when they were read and are decoded again, borrowed, on use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRecord {
    pub record_type: i16,
    key: Vec<u8>,
    value: Vec<u8>,
}

impl GroupRecord {
    /// The record, when its key and value decode (`None` otherwise).
    pub fn new(key: &[u8], value: &[u8]) -> Option<GroupRecord> {
        let record_type = decode_offsets_key(key).ok()?.record_type;
        decode_offsets_value(record_type, value).ok()?;
        Some(GroupRecord {
            record_type,
            key: key.to_vec(),
            value: value.to_vec(),
        })
    }

    /// The decoded key and value (they decoded when the record was made).
    pub fn decoded(&self) -> Option<(CoordinatorKey<'_>, CoordinatorValue<'_>)> {
        let key = decode_offsets_key(&self.key).ok()?;
        let value = decode_offsets_value(self.record_type, &self.value).ok()?;
        Some((key, value))
    }

    /// The decoded value's fields.
    pub fn data(&self) -> Option<StructValue<'_>> {
        self.decoded().map(|(_, v)| v.data)
    }
}

/// A record key's identity in [`GroupState::records`]: its fields as compact JSON text.
pub(crate) fn key_identity(key: &StructValue<'_>) -> String {
    let mut out = String::from("{");
    for (i, (f, v)) in key.fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(f.name));
        out.push(':');
        match v {
            Value::Str(_) => out.push_str(&json_string(&v.as_str().unwrap_or_default())),
            Value::Int(n) => out.push_str(&n.to_string()),
            Value::Uuid(u) => out.push_str(&json_string(&uuid_string(u))),
            other => out.push_str(&json_string(&format!("{other:?}"))),
        }
    }
    out.push('}');
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A KIP-848 consumer group, assembled from its latest records (types 3, 5, 6, 7 and 8).
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupView {
    pub group_epoch: Option<i64>,
    pub assignment_epoch: Option<i64>,
    pub members: Vec<ConsumerMemberView>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerMemberView {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub client_id: Option<String>,
    pub client_host: Option<String>,
    pub subscribed_topics: Vec<String>,
    pub subscribed_regex: Option<String>,
    pub member_epoch: Option<i64>,
    /// Partitions the member owns now, then what the assignor targets, as `topic:[p,...]`
    /// (topic names resolved through the log dirs' partition.metadata where possible).
    pub assigned: Vec<(String, Vec<i64>)>,
    pub target: Vec<(String, Vec<i64>)>,
    pub pending_revocation: Vec<(String, Vec<i64>)>,
}

fn topic_partitions(
    data: &StructValue<'_>,
    field: &str,
    topic_names: &HashMap<String, String>,
) -> Vec<(String, Vec<i64>)> {
    let list = data
        .get(field)
        .and_then(Value::as_array)
        .unwrap_or_default();
    list.iter()
        .filter_map(Value::as_struct)
        .map(|tp| {
            let id = tp
                .get("topicId")
                .and_then(Value::as_uuid)
                .map(|u| uuid_string(&u));
            let id = id.unwrap_or_default();
            let name = topic_names.get(&id).cloned().unwrap_or(id);
            let parts = tp
                .get("partitions")
                .and_then(Value::as_array)
                .map(|ps| ps.iter().filter_map(Value::as_int).collect())
                .unwrap_or_default();
            (name, parts)
        })
        .collect()
}

/// A list of strings (`subscribedTopicNames`, ...), empty when absent.
pub fn strings(data: &StructValue<'_>, field: &str) -> Vec<String> {
    data.get(field)
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t.as_str().map(|t| t.into_owned()))
        .collect()
}

/// The structured view of a KIP-848 group, or `None` when the group has no such records.
pub fn consumer_group_view(
    state: &GroupState,
    topic_names: &HashMap<String, String>,
) -> Option<ConsumerGroupView> {
    let mut view = ConsumerGroupView::default();
    let mut members: BTreeMap<String, ConsumerMemberView> = BTreeMap::new();
    let mut any = false;
    for ((record_type, _), record) in &state.records {
        let Some((key, value)) = record.decoded() else {
            continue;
        };
        let data = &value.data;
        let text = |f: &str| data.str(f).map(|s| s.into_owned());
        let member = || key.data.str("memberId").unwrap_or_default().into_owned();
        match record_type {
            3 => view.group_epoch = data.int("epoch"),
            6 => view.assignment_epoch = data.int("assignmentEpoch"),
            5 => {
                let m = members.entry(member()).or_default();
                m.instance_id = text("instanceId");
                m.client_id = text("clientId");
                m.client_host = text("clientHost");
                m.subscribed_topics = strings(data, "subscribedTopicNames");
                m.subscribed_regex = text("subscribedTopicRegex");
            }
            7 => {
                members.entry(member()).or_default().target =
                    topic_partitions(data, "topicPartitions", topic_names)
            }
            8 => {
                let m = members.entry(member()).or_default();
                m.member_epoch = data.int("memberEpoch");
                m.assigned = topic_partitions(data, "assignedPartitions", topic_names);
                m.pending_revocation =
                    topic_partitions(data, "partitionsPendingRevocation", topic_names);
            }
            _ => continue,
        }
        any = true;
    }
    for (id, mut m) in members {
        m.member_id = id;
        view.members.push(m);
    }
    any.then_some(view)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use kseg_format::coordinator::encode::StructBuilder;
    use kseg_format::coordinator::Coordinator;

    /// Puts a record of `record_type` in `state`: key field `groupId` "g" and any other key
    /// field (`memberId`, ...) `member`, value v0 built by `value` from the value's schema.
    pub(crate) fn put_record(
        state: &mut GroupState,
        record_type: i16,
        member: &'static str,
        value: impl FnOnce(StructBuilder<'static>) -> StructBuilder<'static>,
    ) {
        let (key_msg, value_msg) = Coordinator::Group.messages(record_type).unwrap();
        let mut key = StructBuilder::new(key_msg);
        for f in key_msg.root.fields {
            let text: &'static str = if f.name == "groupId" { "g" } else { member };
            key = key.set(f.name, Value::Str(text.as_bytes()));
        }
        let key = key.build();
        let key_bytes = Coordinator::Group.encode_key(record_type, &key).unwrap();
        let value = value(StructBuilder::new(value_msg)).build();
        let value_bytes = Coordinator::Group
            .encode_value(record_type, 0, &value)
            .unwrap();
        state.records.insert(
            (record_type, key_identity(&key)),
            GroupRecord::new(&key_bytes, &value_bytes).unwrap(),
        );
    }

    fn topic(b: &StructBuilder<'static>, field: &str, parts: &[i64]) -> Value<'static> {
        Value::Array(vec![Value::Struct(
            StructBuilder::of(b.element(field))
                .set("topicId", Value::Uuid([7; 16]))
                .set(
                    "partitions",
                    Value::Array(parts.iter().map(|&p| Value::Int(p)).collect()),
                )
                .build(),
        )])
    }

    #[test]
    fn kip848_records_assemble_into_members() {
        let mut state = GroupState::default();
        put_record(&mut state, 3, "", |b| b.set("epoch", Value::Int(7)));
        put_record(&mut state, 6, "", |b| {
            b.set("assignmentEpoch", Value::Int(7))
        });
        put_record(&mut state, 5, "m1", |b| {
            b.set("instanceId", Value::Null)
                .set("rackId", Value::Null)
                .set("clientId", Value::Str(b"c1"))
                .set("clientHost", Value::Str(b"/10.0.0.1"))
                .set(
                    "subscribedTopicNames",
                    Value::Array(vec![Value::Str(b"orders")]),
                )
                .set("subscribedTopicRegex", Value::Null)
                .set("rebalanceTimeoutMs", Value::Int(-1))
                .set("serverAssignor", Value::Null)
        });
        put_record(&mut state, 8, "m1", |b| {
            let assigned = topic(&b, "assignedPartitions", &[0, 2]);
            b.set("memberEpoch", Value::Int(7))
                .set("previousMemberEpoch", Value::Int(6))
                .set("state", Value::Int(0))
                .set("assignedPartitions", assigned)
                .set("partitionsPendingRevocation", Value::Array(vec![]))
        });
        put_record(&mut state, 7, "m1", |b| {
            let target = topic(&b, "topicPartitions", &[0, 1, 2]);
            b.set("topicPartitions", target)
        });
        assert_eq!(
            state
                .records
                .keys()
                .map(|(t, id)| (*t, id.as_str()))
                .collect::<Vec<_>>(),
            [
                (3, r#"{"groupId":"g"}"#),
                (5, r#"{"groupId":"g","memberId":"m1"}"#),
                (6, r#"{"groupId":"g"}"#),
                (7, r#"{"groupId":"g","memberId":"m1"}"#),
                (8, r#"{"groupId":"g","memberId":"m1"}"#),
            ]
        );
        let names = HashMap::from([(uuid_string(&[7; 16]), "orders".to_string())]);
        let v = consumer_group_view(&state, &names).unwrap();
        assert_eq!(v.group_epoch, Some(7));
        assert_eq!(v.assignment_epoch, Some(7));
        assert_eq!(v.members.len(), 1);
        let m = &v.members[0];
        assert_eq!(m.member_id, "m1");
        assert_eq!(m.instance_id, None);
        assert_eq!(m.client_id.as_deref(), Some("c1"));
        assert_eq!(m.subscribed_topics, ["orders"]);
        assert_eq!(m.member_epoch, Some(7));
        assert_eq!(m.assigned, vec![("orders".to_string(), vec![0, 2])]);
        assert_eq!(m.target, vec![("orders".to_string(), vec![0, 1, 2])]);
        assert!(consumer_group_view(&GroupState::default(), &names).is_none());
    }

    #[test]
    fn key_identity_is_the_keys_json_text() {
        let (msg, _) = Coordinator::Group.messages(5).unwrap();
        let key = StructBuilder::new(msg)
            .set("groupId", Value::Str(b"g\"\n"))
            .set("memberId", Value::Str(b"\xffm"))
            .build();
        assert_eq!(
            key_identity(&key),
            "{\"groupId\":\"g\\\"\\n\",\"memberId\":\"\u{fffd}m\"}"
        );
    }
}
