//! When the group coordinator deletes a committed offset, by Kafka's rules (group-coordinator
//! module, 4.x):
//!
//! - `OffsetMetadataManager.cleanupExpiredOffsets` runs every `offsets.retention.check.interval.ms`
//!   and, for each topic the group is not subscribed to (`Group.isSubscribedToTopic`), deletes
//!   (writes a tombstone for) each offset its group's `offsetExpirationCondition` calls expired,
//!   unless a transactional commit of that partition is still pending.
//! - `OffsetExpirationConditionImpl.isOffsetExpired`: an offset with an explicit expire timestamp
//!   (OffsetCommitValue v1) expires when `now >= expireTimestamp`; otherwise when
//!   `now - base >= offsets.retention.ms`, the base depending on the group.
//! - `ClassicGroup.offsetExpirationCondition`: a group with a protocol type that is Empty: base =
//!   the group's current state timestamp (when it became Empty), or the commit timestamp when the
//!   value has none (old schema); a `consumer` group that is Stable with known subscriptions: base
//!   = commit timestamp, for topics no member subscribes to; other states: never. A group without
//!   a protocol type (standalone commits, no group metadata): base = commit timestamp.
//!   `ClassicGroup.isSubscribedToTopic`: the members' subscribed topics when known, none when the
//!   group is Empty.
//! - `ConsumerGroup.offsetExpirationCondition` (KIP-848): base = commit timestamp; only for topics
//!   no member subscribes to (`ModernGroup.isSubscribedToTopic`, topic names and resolved regular
//!   expressions).
//!
//! A group loaded from the log with members is Stable (`GroupMetadataManager.replay`), as here.

use std::collections::BTreeSet;

use crate::groups::{strings, Committed, GroupState};

/// `offsets.retention.minutes` default: 7 days.
pub const DEFAULT_RETENTION_MINUTES: i64 = 7 * 24 * 60;

/// Which timestamp the retention is counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The commit's explicit expire timestamp (OffsetCommitValue v1).
    ExpireTimestamp,
    /// The classic group's state timestamp: the time it became Empty.
    EmptySince,
    /// The commit timestamp.
    CommitTimestamp,
}

impl Basis {
    pub fn name(self) -> &'static str {
        match self {
            Basis::ExpireTimestamp => "expireTimestamp",
            Basis::EmptySince => "groupEmptySince",
            Basis::CommitTimestamp => "commitTimestamp",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// Expired from this instant on (deleted at the broker's next retention check after it).
    At { at: i64, basis: Basis },
    /// Not while the group stays as it is on disk.
    Never(NeverBecause),
}

/// Why an offset does not expire while the group stays as it is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NeverBecause {
    /// A member subscribes to the topic.
    Subscribed,
    /// A classic group with members (not Empty).
    HasMembers,
    /// A transactional commit of the partition is pending.
    PendingTransactionalCommit,
}

impl Expiry {
    pub fn at(&self) -> Option<i64> {
        match self {
            Expiry::At { at, .. } => Some(*at),
            Expiry::Never(_) => None,
        }
    }

    /// `expired` when expired at `now`, `expires-in-1d` when within a day of it.
    pub fn flag(&self, now: i64) -> Option<&'static str> {
        let at = self.at()?;
        if now >= at {
            Some("expired")
        } else if at - now <= 86_400_000 {
            Some("expires-in-1d")
        } else {
            None
        }
    }
}

/// Topics a KIP-848 consumer group's members subscribe to: names (type 5,
/// `subscribedTopicNames`) and the topics their regular expressions resolved to (type 16).
fn consumer_group_subscriptions(state: &GroupState) -> BTreeSet<String> {
    let mut topics = BTreeSet::new();
    for ((record_type, _), record) in &state.records {
        let field = match record_type {
            5 => "subscribedTopicNames",
            16 => "topics",
            _ => continue,
        };
        if let Some(data) = record.data() {
            topics.extend(strings(&data, field));
        }
    }
    topics
}

/// Whether the group is a KIP-848 consumer group (its ConsumerGroupMetadata record, type 3).
fn is_consumer_group(state: &GroupState) -> bool {
    state.records.keys().any(|(t, _)| *t == 3)
}

/// When the coordinator will call the offset of `topic` expired.
pub fn offset_expiry(
    state: &GroupState,
    topic: &str,
    committed: &Committed,
    retention_ms: i64,
    pending_transactional: bool,
) -> Expiry {
    let base = if is_consumer_group(state) {
        if consumer_group_subscriptions(state).contains(topic) {
            return Expiry::Never(NeverBecause::Subscribed);
        }
        Basis::CommitTimestamp
    } else {
        match state
            .classic
            .as_ref()
            .filter(|m| !m.protocol_type.is_empty())
        {
            None => Basis::CommitTimestamp,
            Some(m) if m.members.is_empty() => match m.current_state_timestamp {
                Some(_) => Basis::EmptySince,
                None => Basis::CommitTimestamp,
            },
            Some(m) => {
                let known = m.protocol_type == "consumer"
                    && m.protocol.is_some()
                    && m.members.iter().all(|x| x.subscription.is_some());
                if !known {
                    return Expiry::Never(NeverBecause::HasMembers);
                }
                let subscribed = m
                    .members
                    .iter()
                    .flat_map(|x| x.subscription.iter().flat_map(|s| s.topics.iter()))
                    .any(|t| t == topic);
                if subscribed {
                    return Expiry::Never(NeverBecause::Subscribed);
                }
                Basis::CommitTimestamp
            }
        }
    };
    if pending_transactional {
        return Expiry::Never(NeverBecause::PendingTransactionalCommit);
    }
    if let Some(at) = committed.expire_timestamp {
        return Expiry::At {
            at,
            basis: Basis::ExpireTimestamp,
        };
    }
    let from = match base {
        Basis::EmptySince => state
            .classic
            .as_ref()
            .and_then(|m| m.current_state_timestamp)
            .unwrap_or(committed.commit_timestamp),
        _ => committed.commit_timestamp,
    };
    Expiry::At {
        at: from.saturating_add(retention_ms),
        basis: base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group_records::tests::put_record;
    use kseg_format::coordinator::{ConsumerSubscription, GroupMember, GroupMetadata, Value};

    const RETENTION: i64 = 60_000;

    fn committed(ts: i64, expire: Option<i64>) -> Committed {
        Committed {
            offset: 5,
            leader_epoch: None,
            metadata: String::new(),
            commit_timestamp: ts,
            expire_timestamp: expire,
            coordinator_partition: 0,
            record_offset: 0,
            transactional: false,
        }
    }

    fn member(topics: &[&str]) -> GroupMember {
        GroupMember {
            member_id: "m".into(),
            group_instance_id: None,
            client_id: "c".into(),
            client_host: "/127.0.0.1".into(),
            rebalance_timeout: Some(1),
            session_timeout: 1,
            subscription_bytes: Vec::new(),
            assignment_bytes: Vec::new(),
            subscription: Some(ConsumerSubscription {
                version: 0,
                topics: topics.iter().map(|t| t.to_string()).collect(),
                user_data: None,
                owned_partitions: Vec::new(),
                generation_id: -1,
                rack_id: None,
            }),
            assignment: None,
        }
    }

    fn classic(members: Vec<GroupMember>, state_ts: Option<i64>) -> GroupState {
        GroupState {
            classic: Some(Box::new(GroupMetadata {
                version: 3,
                protocol_type: "consumer".into(),
                generation: 2,
                protocol: Some("range".into()),
                leader: None,
                current_state_timestamp: state_ts,
                members,
            })),
            ..Default::default()
        }
    }

    #[test]
    fn an_empty_classic_group_counts_from_when_it_became_empty() {
        let s = classic(Vec::new(), Some(50_000));
        let e = offset_expiry(&s, "t", &committed(1_000, None), RETENTION, false);
        assert_eq!(
            e,
            Expiry::At {
                at: 110_000,
                basis: Basis::EmptySince
            }
        );
        assert_eq!(e.flag(109_999), Some("expires-in-1d"));
        assert_eq!(e.flag(110_000), Some("expired"));
        assert_eq!(e.flag(110_000 - 86_400_001), None);
        // Old schema, no state timestamp: the commit timestamp.
        let s = classic(Vec::new(), None);
        assert_eq!(
            offset_expiry(&s, "t", &committed(1_000, None), RETENTION, false).at(),
            Some(61_000)
        );
    }

    #[test]
    fn a_stable_classic_group_keeps_its_subscribed_topics() {
        let s = classic(vec![member(&["a"])], Some(50_000));
        assert!(matches!(
            offset_expiry(&s, "a", &committed(1_000, None), RETENTION, false),
            Expiry::Never(_)
        ));
        // A topic no member subscribes to any more: from its commit.
        assert_eq!(
            offset_expiry(&s, "b", &committed(1_000, None), RETENTION, false),
            Expiry::At {
                at: 61_000,
                basis: Basis::CommitTimestamp
            }
        );
        // Another protocol type with members: never.
        let mut s = classic(vec![member(&["a"])], Some(50_000));
        s.classic.as_mut().unwrap().protocol_type = "connect".into();
        assert!(matches!(
            offset_expiry(&s, "b", &committed(1_000, None), RETENTION, false),
            Expiry::Never(_)
        ));
    }

    #[test]
    fn standalone_commits_and_explicit_expire_timestamps() {
        let s = GroupState::default();
        assert_eq!(
            offset_expiry(&s, "t", &committed(1_000, None), RETENTION, false).at(),
            Some(61_000)
        );
        // v1 values: their own expire timestamp wins.
        assert_eq!(
            offset_expiry(&s, "t", &committed(1_000, Some(5_000)), RETENTION, false),
            Expiry::At {
                at: 5_000,
                basis: Basis::ExpireTimestamp
            }
        );
        // A pending transactional commit holds it.
        assert!(matches!(
            offset_expiry(&s, "t", &committed(1_000, None), RETENTION, true),
            Expiry::Never(_)
        ));
    }

    #[test]
    fn consumer_protocol_groups_expire_unsubscribed_topics_from_the_commit() {
        let mut s = GroupState::default();
        put_record(&mut s, 3, "", |b| b.set("epoch", Value::Int(3)));
        // No member: every topic from its commit timestamp, however long ago the group emptied.
        assert_eq!(
            offset_expiry(&s, "t", &committed(1_000, None), RETENTION, false),
            Expiry::At {
                at: 61_000,
                basis: Basis::CommitTimestamp
            }
        );
        put_record(&mut s, 5, "m", |b| {
            b.set("instanceId", Value::Null)
                .set("rackId", Value::Null)
                .set("clientId", Value::Str(b"c"))
                .set("clientHost", Value::Str(b"/127.0.0.1"))
                .set("subscribedTopicNames", Value::Array(vec![Value::Str(b"t")]))
                .set("subscribedTopicRegex", Value::Null)
                .set("rebalanceTimeoutMs", Value::Int(-1))
                .set("serverAssignor", Value::Null)
        });
        put_record(&mut s, 16, "u.*", |b| {
            b.set("topics", Value::Array(vec![Value::Str(b"u")]))
                .set("version", Value::Int(1))
                .set("timestamp", Value::Int(0))
        });
        for topic in ["t", "u"] {
            assert!(matches!(
                offset_expiry(&s, topic, &committed(1_000, None), RETENTION, false),
                Expiry::Never(_)
            ));
        }
        assert!(
            offset_expiry(&s, "v", &committed(1_000, None), RETENTION, false)
                .at()
                .is_some()
        );
    }
}
