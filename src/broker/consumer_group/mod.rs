//! The KIP-848 group coordinator (`group.protocol=consumer`): ConsumerGroupHeartbeat's state
//! machine as Kafka 4.4.0's `GroupMetadataManager.consumerGroupHeartbeat` runs it, with the
//! records it writes to `__consumer_offsets` (types 3, 5, 6, 7, 8, see
//! [`super::records::consumer_group`]).
//!
//! A heartbeat (1) creates or updates the member (a ConsumerGroupMemberMetadata record when it
//! changed), (2) bumps the group epoch when a subscription or the subscribed topics' metadata
//! hash changed, (3) computes a new target assignment with the server assignor (`uniform` or
//! `range`) once the group epoch is ahead of the assignment epoch and
//! `group.consumer.assignment.interval.ms` has passed since the last one, and (4) moves the
//! member towards its target (`CurrentAssignmentBuilder`): partitions it must give up are pending
//! revocation until a heartbeat reports them gone; partitions another member still owns stay
//! unreleased; the member epoch reaches the target epoch once nothing is left to revoke.
//!
//! Committed offsets stay with the classic coordinator's offset store
//! ([`super::group::GroupCoordinator`]), as Kafka keeps one offset manager for every group type.
//! Nothing here touches files: every call returns its records for the broker to append.
//!
//! Here the group, its members and their settings; `heartbeat` (ConsumerGroupHeartbeat and
//! leaving), `reconcile` (target assignments, member reconciliation, fencing), `assignor`
//! (the server assignors), `offsets` (epoch checks of OffsetCommit/OffsetFetch) and `reload`
//! (rebuilding groups from `__consumer_offsets`).

mod assignor;
mod heartbeat;
mod offsets;
mod reconcile;
mod reload;
#[cfg(test)]
mod tests;

pub use heartbeat::{Heartbeat, HeartbeatOutcome};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kafka_protocol::ResponseError;

use super::group::CoordinatorRecord;
use super::records::consumer_group::{
    self as rec, CurrentAssignment, MemberMetadata, TopicPartitions,
};

/// `MemberState` ids.
pub const STABLE: i8 = 0;
pub const UNREVOKED_PARTITIONS: i8 = 1;
pub const UNRELEASED_PARTITIONS: i8 = 2;
/// The member epoch of a member leaving, and of a static member leaving temporarily.
pub const LEAVE_EPOCH: i32 = -1;
pub const STATIC_LEAVE_EPOCH: i32 = -2;

/// A topic as the assignor sees it.
#[derive(Debug, Clone)]
pub struct TopicMeta {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: i32,
}

/// `group.consumer.*` settings.
#[derive(Debug, Clone, Copy)]
pub struct ConsumerGroupConfig {
    pub session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub assignment_interval_ms: i64,
}

impl Default for ConsumerGroupConfig {
    fn default() -> Self {
        ConsumerGroupConfig {
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 5_000,
            assignment_interval_ms: 1_000,
        }
    }
}

/// topic id -> partition -> the epoch it was assigned at.
pub type Owned = BTreeMap<[u8; 16], BTreeMap<i32, i32>>;
/// topic id -> partitions.
pub type Assignment = BTreeMap<[u8; 16], BTreeSet<i32>>;

#[derive(Debug, Clone)]
pub struct ConsumerMember {
    pub id: String,
    pub meta: MemberMetadata,
    pub epoch: i32,
    pub previous_epoch: i32,
    pub state: i8,
    pub assigned: Owned,
    pub pending_revocation: Owned,
    pub deadline: i64,
}

impl ConsumerMember {
    fn new(id: &str) -> Self {
        ConsumerMember {
            id: id.to_string(),
            meta: MemberMetadata {
                instance_id: None,
                rack_id: None,
                client_id: String::new(),
                client_host: String::new(),
                subscribed_topic_names: Vec::new(),
                subscribed_topic_regex: Some(String::new()),
                rebalance_timeout_ms: -1,
                server_assignor: None,
            },
            epoch: 0,
            previous_epoch: 0,
            state: STABLE,
            assigned: Owned::new(),
            pending_revocation: Owned::new(),
            deadline: 0,
        }
    }

    /// The assigned partitions as the heartbeat response lists them.
    pub fn assignment(&self) -> Vec<([u8; 16], Vec<i32>)> {
        self.assigned
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(id, p)| (*id, p.keys().copied().collect()))
            .collect()
    }
}

#[derive(Debug, Clone, Default)]
pub struct ConsumerGroup {
    pub id: String,
    pub epoch: i32,
    pub metadata_hash: i64,
    pub assignment_epoch: i32,
    pub assignment_timestamp: i64,
    /// Changed only through [`ConsumerGroup::put`] and [`ConsumerGroup::take`], which keep
    /// `index` in step.
    members: BTreeMap<String, ConsumerMember>,
    index: MemberIndex,
    pub target: BTreeMap<String, Assignment>,
    /// Each subscribed topic's KIP-1101 hash with the topic id and partition count it was
    /// computed for (a hash walks every partition: computed again only when they change).
    topic_hashes: BTreeMap<String, ([u8; 16], i32, i64)>,
}

/// What a group's members add up to, kept as members come, change and go, so that a heartbeat
/// costs nothing per other member (Kafka keeps the same counts in `ModernGroup`): subscribed
/// topic names and server assignors with how many members name them, and which members hold
/// each partition (assigned or pending revocation).
#[derive(Debug, Clone, Default, PartialEq)]
struct MemberIndex {
    topics: BTreeMap<String, usize>,
    assignors: BTreeMap<String, usize>,
    holders: HashMap<([u8; 16], i32), BTreeSet<String>>,
}

impl MemberIndex {
    fn count(map: &mut BTreeMap<String, usize>, key: &str, add: bool) {
        if add {
            *map.entry(key.to_string()).or_default() += 1;
        } else if let Some(n) = map.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                map.remove(key);
            }
        }
    }

    fn apply(&mut self, m: &ConsumerMember, add: bool) {
        for t in &m.meta.subscribed_topic_names {
            Self::count(&mut self.topics, t, add);
        }
        if let Some(a) = &m.meta.server_assignor {
            Self::count(&mut self.assignors, a, add);
        }
        for owned in [&m.assigned, &m.pending_revocation] {
            for (t, ps) in owned {
                for p in ps.keys() {
                    if add {
                        self.holders
                            .entry((*t, *p))
                            .or_default()
                            .insert(m.id.clone());
                    } else if let Some(h) = self.holders.get_mut(&(*t, *p)) {
                        h.remove(&m.id);
                        if h.is_empty() {
                            self.holders.remove(&(*t, *p));
                        }
                    }
                }
            }
        }
    }

    /// The index of `members`, built from scratch (for tests).
    #[cfg(test)]
    fn of(members: &BTreeMap<String, ConsumerMember>) -> MemberIndex {
        let mut index = MemberIndex::default();
        for m in members.values() {
            index.apply(m, true);
        }
        index
    }
}

impl ConsumerGroup {
    fn new(id: &str) -> Self {
        // `ModernGroup`: a new group starts at epoch 1, its target assignment at 0.
        ConsumerGroup {
            id: id.to_string(),
            epoch: 1,
            ..Default::default()
        }
    }

    /// `ConsumerGroup.maybeUpdateGroupState`.
    pub fn state(&self) -> &'static str {
        if self.members.is_empty() {
            "Empty"
        } else if self.epoch != self.assignment_epoch {
            "Assigning"
        } else if self
            .members
            .values()
            .any(|m| m.epoch != self.assignment_epoch || m.state != STABLE)
        {
            "Reconciling"
        } else {
            "Stable"
        }
    }

    /// The members, by id.
    pub fn members(&self) -> &BTreeMap<String, ConsumerMember> {
        &self.members
    }

    /// Adds or replaces a member, keeping the index in step.
    pub(super) fn put(&mut self, member: ConsumerMember) {
        if let Some(old) = self.members.remove(&member.id) {
            self.index.apply(&old, false);
        }
        self.index.apply(&member, true);
        self.members.insert(member.id.clone(), member);
    }

    /// Removes a member, keeping the index in step.
    pub(super) fn take(&mut self, id: &str) -> Option<ConsumerMember> {
        let m = self.members.remove(id)?;
        self.index.apply(&m, false);
        Some(m)
    }

    /// `ConsumerGroup.isSubscribedToTopic`: a member subscribes to it by name (this broker
    /// refuses regex subscriptions).
    pub fn is_subscribed_to(&self, topic: &str) -> bool {
        self.index.topics.contains_key(topic)
    }

    /// The assignor the group uses: the one its members name most (`uniform` by default).
    pub fn assignor(&self) -> &str {
        self.index
            .assignors
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(a, _)| a.as_str())
            .unwrap_or("uniform")
    }

    /// The epoch of the member holding a partition (assigned or pending revocation), if any:
    /// the first holder by member id.
    fn owner_epoch(&self, except: &str, topic: &[u8; 16], partition: i32) -> Option<i32> {
        let holders = self.index.holders.get(&(*topic, partition))?;
        holders
            .iter()
            .filter(|id| id.as_str() != except)
            .filter_map(|id| self.members.get(id))
            .find_map(|m| {
                m.assigned
                    .get(topic)
                    .and_then(|p| p.get(&partition))
                    .or_else(|| {
                        m.pending_revocation
                            .get(topic)
                            .and_then(|p| p.get(&partition))
                    })
                    .copied()
            })
    }

    fn hash(&mut self, topics: &dyn Fn(&str) -> Option<TopicMeta>) -> i64 {
        let subscribed = &self.index.topics;
        self.topic_hashes
            .retain(|name, _| subscribed.contains_key(name));
        let mut hashes: Vec<(String, i64)> = Vec::with_capacity(subscribed.len());
        for name in subscribed.keys() {
            let h = match topics(name) {
                None => 0,
                Some(t) => match self.topic_hashes.get(name) {
                    Some(&(id, n, h)) if id == t.id && n == t.partitions => h,
                    _ => {
                        let h = rec::topic_hash(&t.id, &t.name, t.partitions);
                        self.topic_hashes
                            .insert(name.clone(), (t.id, t.partitions, h));
                        h
                    }
                },
            };
            hashes.push((name.clone(), h));
        }
        rec::group_hash(&hashes)
    }
}

#[derive(Debug, Default)]
pub struct ConsumerGroups {
    groups: BTreeMap<String, ConsumerGroup>,
    pub config: ConsumerGroupConfig,
}

impl ConsumerGroups {
    pub fn new(config: ConsumerGroupConfig) -> Self {
        ConsumerGroups {
            groups: BTreeMap::new(),
            config,
        }
    }

    pub fn group(&self, id: &str) -> Option<&ConsumerGroup> {
        self.groups.get(id)
    }

    pub fn groups(&self) -> impl Iterator<Item = &ConsumerGroup> {
        self.groups.values()
    }

    /// Session timeouts: every member silent for `group.consumer.session.timeout.ms` is
    /// fenced.
    pub fn tick(
        &mut self,
        now: i64,
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        for group in self.groups.values_mut() {
            let expired: Vec<String> = group
                .members
                .values()
                .filter(|m| m.deadline <= now)
                .map(|m| m.id.clone())
                .collect();
            if !expired.is_empty() {
                group.fence(&expired, topics, records);
            }
        }
    }

    /// DeleteGroups: only an empty group goes; the records are its tombstones of types 6, 4 and
    /// 3, in Kafka 4.4.0's order (`ConsumerGroup.createGroupTombstoneRecords`).
    pub fn delete_group(
        &mut self,
        group_id: &str,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Option<Result<(), ResponseError>> {
        let group = self.groups.get(group_id)?;
        if !group.members.is_empty() {
            return Some(Err(ResponseError::NonEmptyGroup));
        }
        records.push((rec::target_metadata_key(group_id), None));
        records.push((rec::partition_metadata_key(group_id), None));
        records.push((rec::group_key(group_id), None));
        self.groups.remove(group_id);
        Some(Ok(()))
    }
}
