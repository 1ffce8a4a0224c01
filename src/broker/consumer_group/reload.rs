//! Rebuilding KIP-848 groups from `__consumer_offsets` at start-up, one decoded record at a
//! time (the records `reconcile` and `heartbeat` write).

use super::*;
use crate::format::coordinator::{StructValue, Value};

impl ConsumerGroups {
    /// Rebuilds a group from one `__consumer_offsets` record (types 3, 5, 6, 7, 8) decoded by
    /// kseg's coordinator decoder (`key` and `value` are their decoded fields, `None` a
    /// tombstone).
    pub fn load(
        &mut self,
        record_type: i16,
        key: &StructValue<'_>,
        value: Option<&StructValue<'_>>,
        now: i64,
    ) {
        let Some(group_id) = key.str("groupId") else {
            return;
        };
        let group_id = group_id.as_ref();
        let member_id = key.str("memberId").unwrap_or_default();
        let member_id = member_id.as_ref();
        let deadline = now + self.config.session_timeout_ms as i64;
        if value.is_none() && record_type == 3 {
            self.groups.remove(group_id);
            return;
        }
        let group = self
            .groups
            .entry(group_id.to_string())
            .or_insert_with(|| ConsumerGroup::new(group_id));
        let Some(v) = value else {
            match record_type {
                5 => {
                    group.take(member_id);
                }
                7 => {
                    group.target.remove(member_id);
                }
                8 => {
                    if let Some(mut m) = group.take(member_id) {
                        m.assigned.clear();
                        m.pending_revocation.clear();
                        group.put(m);
                    }
                }
                _ => {}
            }
            return;
        };
        let int = |f: &str| v.int(f).unwrap_or(0);
        let opt = |f: &str| v.str(f).map(|s| s.into_owned());
        let list = |s: &StructValue<'_>, f: &str| -> Vec<i64> {
            let items = s.get(f).and_then(Value::as_array).unwrap_or_default();
            items.iter().filter_map(Value::as_int).collect()
        };
        let topics = |f: &str| {
            let items = v.get(f).and_then(Value::as_array).unwrap_or_default();
            items
                .iter()
                .filter_map(Value::as_struct)
                .filter_map(|tp| Some((tp.get("topicId")?.as_uuid()?, tp)))
                .collect::<Vec<_>>()
        };
        match record_type {
            3 => {
                group.epoch = int("epoch") as i32;
                group.metadata_hash = int("metadataHash");
            }
            6 => {
                group.assignment_epoch = int("assignmentEpoch") as i32;
                group.assignment_timestamp = int("assignmentTimestamp");
            }
            5 => {
                let mut m = group
                    .take(member_id)
                    .unwrap_or_else(|| ConsumerMember::new(member_id));
                let names = v.get("subscribedTopicNames").and_then(Value::as_array);
                m.meta = MemberMetadata {
                    instance_id: opt("instanceId"),
                    rack_id: opt("rackId"),
                    client_id: opt("clientId").unwrap_or_default(),
                    client_host: opt("clientHost").unwrap_or_default(),
                    subscribed_topic_names: names
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|s| s.as_str().map(|s| s.into_owned()))
                        .collect(),
                    subscribed_topic_regex: opt("subscribedTopicRegex"),
                    rebalance_timeout_ms: int("rebalanceTimeoutMs") as i32,
                    server_assignor: opt("serverAssignor"),
                };
                m.deadline = deadline;
                group.put(m);
            }
            7 => {
                let mut a = Assignment::new();
                for (id, tp) in topics("topicPartitions") {
                    a.entry(id)
                        .or_default()
                        .extend(list(tp, "partitions").into_iter().map(|p| p as i32));
                }
                group.target.insert(member_id.to_string(), a);
            }
            8 => {
                let mut m = group
                    .take(member_id)
                    .unwrap_or_else(|| ConsumerMember::new(member_id));
                m.epoch = int("memberEpoch") as i32;
                m.previous_epoch = int("previousMemberEpoch") as i32;
                m.state = int("state") as i8;
                let owned = |field: &str| {
                    let mut o = Owned::new();
                    for (id, tp) in topics(field) {
                        let epochs = tp.get("assignmentEpochs").and_then(Value::as_array);
                        let entry = o.entry(id).or_default();
                        for (i, p) in list(tp, "partitions").into_iter().enumerate() {
                            let e = epochs
                                .and_then(|e| e.get(i))
                                .and_then(Value::as_int)
                                .unwrap_or(m.epoch as i64);
                            entry.insert(p as i32, e as i32);
                        }
                    }
                    o
                };
                m.assigned = owned("assignedPartitions");
                m.pending_revocation = owned("partitionsPendingRevocation");
                m.deadline = deadline;
                group.put(m);
            }
            _ => {}
        }
    }
}
