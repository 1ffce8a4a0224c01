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

use std::collections::{BTreeMap, BTreeSet};

use kafka_protocol::ResponseError;

use super::group::CoordinatorRecord;
use crate::format::coordinator::{StructValue, Value};

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

    fn current_record(&self, group: &str) -> CoordinatorRecord {
        let list = |o: &Owned| -> Vec<TopicPartitions> {
            o.iter()
                .filter(|(_, p)| !p.is_empty())
                .map(|(id, p)| TopicPartitions {
                    topic_id: *id,
                    partitions: p.keys().copied().collect(),
                    assignment_epochs: Some(p.values().copied().collect()),
                })
                .collect()
        };
        (
            rec::current_assignment_key(group, &self.id),
            Some(rec::current_assignment_value(&CurrentAssignment {
                member_epoch: self.epoch,
                previous_member_epoch: self.previous_epoch,
                state: self.state,
                assigned: list(&self.assigned),
                pending_revocation: list(&self.pending_revocation),
            })),
        )
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
    pub members: BTreeMap<String, ConsumerMember>,
    pub target: BTreeMap<String, Assignment>,
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

    /// The assignor the group uses: the one its members name most (`uniform` by default).
    pub fn assignor(&self) -> &str {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for m in self.members.values() {
            if let Some(a) = m.meta.server_assignor.as_deref() {
                *counts.entry(a).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
            .map(|(a, _)| a)
            .unwrap_or("uniform")
    }

    /// The epoch of the member holding a partition (assigned or pending revocation), if any.
    fn owner_epoch(&self, except: &str, topic: &[u8; 16], partition: i32) -> Option<i32> {
        self.members
            .values()
            .filter(|m| m.id != except)
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

    fn subscribed_topics(&self) -> BTreeSet<String> {
        self.members
            .values()
            .flat_map(|m| m.meta.subscribed_topic_names.iter().cloned())
            .collect()
    }

    fn hash(&self, topics: &dyn Fn(&str) -> Option<TopicMeta>) -> i64 {
        let hashes: Vec<(String, i64)> = self
            .subscribed_topics()
            .into_iter()
            .map(|name| {
                let h = topics(&name)
                    .map(|t| rec::topic_hash(&t.id, &t.name, t.partitions))
                    .unwrap_or(0);
                (name, h)
            })
            .collect();
        rec::group_hash(&hashes)
    }

    /// Removes members (leave or session timeout: `consumerGroupFenceMembers`): their three
    /// tombstones, the group epoch bump, and, when the group is left empty, the assignment
    /// epoch with it (timestamp 0).
    fn fence(
        &mut self,
        ids: &[String],
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        for id in ids {
            records.push((rec::current_assignment_key(&self.id, id), None));
            records.push((rec::target_member_key(&self.id, id), None));
            records.push((rec::member_key(&self.id, id), None));
            self.members.remove(id);
            self.target.remove(id);
        }
        self.metadata_hash = self.hash(topics);
        self.epoch += 1;
        records.push((
            rec::group_key(&self.id),
            Some(rec::group_value(self.epoch, self.metadata_hash)),
        ));
        if self.members.is_empty() {
            self.assignment_epoch = self.epoch;
            self.assignment_timestamp = 0;
            records.push((
                rec::target_metadata_key(&self.id),
                Some(rec::target_metadata_value(self.epoch, 0)),
            ));
        }
    }

    /// A new target assignment when the group epoch is ahead of it and the assignment
    /// interval allows (`maybeUpdateTargetAssignment`): a record per member whose target
    /// changed, then the assignment epoch.
    fn maybe_update_target(
        &mut self,
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        config: &ConsumerGroupConfig,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) {
        if self.epoch <= self.assignment_epoch {
            return;
        }
        let interval = config.assignment_interval_ms;
        if self.assignment_timestamp != 0
            && interval != 0
            && now < self.assignment_timestamp + interval
        {
            return;
        }
        let assignor = self.assignor().to_string();
        let new = assign(&assignor, &self.members, &self.target, topics);
        for (id, target) in &new {
            if self.target.get(id) != Some(target) {
                let list: Vec<TopicPartitions> = target
                    .iter()
                    .filter(|(_, p)| !p.is_empty())
                    .map(|(t, p)| TopicPartitions {
                        topic_id: *t,
                        partitions: p.iter().copied().collect(),
                        assignment_epochs: None,
                    })
                    .collect();
                records.push((
                    rec::target_member_key(&self.id, id),
                    Some(rec::target_member_value(&list)),
                ));
            }
        }
        self.target = new;
        self.assignment_epoch = self.epoch;
        self.assignment_timestamp = now;
        records.push((
            rec::target_metadata_key(&self.id),
            Some(rec::target_metadata_value(self.epoch, now)),
        ));
    }

    /// `CurrentAssignmentBuilder.build`: the member's next state towards the target.
    fn reconcile(&self, member: &ConsumerMember, owned: Option<&Assignment>) -> ConsumerMember {
        let target_epoch = self.assignment_epoch;
        let empty = Assignment::new();
        let target = self.target.get(&member.id).unwrap_or(&empty);
        match member.state {
            UNREVOKED_PARTITIONS => {
                // Waits until the member's reported partitions no longer hold any of the
                // revoked ones.
                let still_owned = match owned {
                    None => true,
                    Some(owned) => member.pending_revocation.iter().any(|(t, ps)| {
                        owned
                            .get(t)
                            .is_some_and(|o| ps.keys().any(|p| o.contains(p)))
                    }),
                };
                if still_owned {
                    return member.clone();
                }
                let mut m = member.clone();
                m.pending_revocation.clear();
                self.next_assignment(&m, target_epoch, target)
            }
            UNRELEASED_PARTITIONS if member.epoch == target_epoch => {
                self.next_assignment(member, target_epoch, target)
            }
            _ if member.epoch != target_epoch => self.next_assignment(member, target_epoch, target),
            _ => member.clone(),
        }
    }

    /// `CurrentAssignmentBuilder.computeNextAssignment`.
    fn next_assignment(
        &self,
        member: &ConsumerMember,
        target_epoch: i32,
        target: &Assignment,
    ) -> ConsumerMember {
        let mut keep = Owned::new();
        let mut revoke = Owned::new();
        for (t, ps) in &member.assigned {
            for (p, e) in ps {
                let map = if target.get(t).is_some_and(|tp| tp.contains(p)) {
                    &mut keep
                } else {
                    &mut revoke
                };
                map.entry(*t).or_default().insert(*p, *e);
            }
        }
        let mut m = member.clone();
        // `updateMemberEpoch`: the previous epoch is the one the member had.
        m.previous_epoch = member.epoch;
        if !revoke.is_empty() {
            m.state = UNREVOKED_PARTITIONS;
            m.assigned = keep;
            m.pending_revocation = revoke;
            return m;
        }
        let mut unreleased = false;
        for (t, ps) in target {
            for p in ps {
                if keep.get(t).is_some_and(|k| k.contains_key(p)) {
                    continue;
                }
                if self.owner_epoch(&member.id, t, *p).is_some() {
                    unreleased = true;
                } else {
                    keep.entry(*t).or_default().insert(*p, target_epoch);
                }
            }
        }
        m.state = if unreleased {
            UNRELEASED_PARTITIONS
        } else {
            STABLE
        };
        m.epoch = target_epoch;
        m.assigned = keep;
        m.pending_revocation = Owned::new();
        m
    }
}

/// One ConsumerGroupHeartbeat, decoded.
#[derive(Debug, Clone, Default)]
pub struct Heartbeat {
    pub version: i16,
    pub group_id: String,
    pub member_id: String,
    pub member_epoch: i32,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub subscribed_topic_names: Option<Vec<String>>,
    pub subscribed_topic_regex: Option<String>,
    pub server_assignor: Option<String>,
    pub owned: Option<Assignment>,
    pub client_id: String,
    pub client_host: String,
}

#[derive(Debug, Clone, Default)]
pub struct HeartbeatOutcome {
    pub error: i16,
    pub message: Option<String>,
    pub member_id: String,
    pub member_epoch: i32,
    pub heartbeat_interval_ms: i32,
    pub assignment: Option<Vec<([u8; 16], Vec<i32>)>>,
}

fn refuse(e: ResponseError, message: impl Into<String>) -> HeartbeatOutcome {
    HeartbeatOutcome {
        error: e.code(),
        message: Some(message.into()),
        ..Default::default()
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

    /// ConsumerGroupHeartbeat.
    pub fn heartbeat(
        &mut self,
        req: Heartbeat,
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> HeartbeatOutcome {
        let config = self.config;
        let interval = config.heartbeat_interval_ms;
        // `throwIfConsumerGroupHeartbeatRequestIsInvalid`.
        if (req.version >= 1 || req.member_epoch > 0 || req.member_epoch == LEAVE_EPOCH)
            && req.member_id.is_empty()
        {
            return refuse(ResponseError::InvalidRequest, "MemberId can't be empty.");
        }
        if req.group_id.is_empty() {
            return refuse(ResponseError::InvalidRequest, "GroupId can't be empty.");
        }
        if req.instance_id.as_deref() == Some("") {
            return refuse(ResponseError::InvalidRequest, "InstanceId can't be empty.");
        }
        if req.rack_id.as_deref() == Some("") {
            return refuse(ResponseError::InvalidRequest, "RackId can't be empty.");
        }
        // The record keys hold int16-length strings.
        let too_long = [&req.group_id, &req.member_id]
            .into_iter()
            .chain(req.instance_id.as_ref())
            .chain(req.rack_id.as_ref())
            .any(|v| v.len() > i16::MAX as usize);
        if too_long {
            return refuse(
                ResponseError::InvalidRequest,
                "kseg mini-broker: an id longer than 32767 bytes",
            );
        }
        if req.member_epoch == 0 {
            if req.rebalance_timeout_ms == -1 {
                return refuse(
                    ResponseError::InvalidRequest,
                    "RebalanceTimeoutMs must be provided in first request.",
                );
            }
            if req.owned.as_ref().is_none_or(|o| !o.is_empty()) {
                return refuse(
                    ResponseError::InvalidRequest,
                    "TopicPartitions must be empty when (re-)joining.",
                );
            }
            if req.subscribed_topic_names.is_none() && req.subscribed_topic_regex.is_none() {
                return refuse(
                    ResponseError::InvalidRequest,
                    "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
                );
            }
        } else if req.member_epoch == STATIC_LEAVE_EPOCH {
            if req.instance_id.is_none() {
                return refuse(ResponseError::InvalidRequest, "InstanceId can't be null.");
            }
        } else if req.member_epoch < STATIC_LEAVE_EPOCH {
            return refuse(ResponseError::InvalidRequest, "MemberEpoch is invalid.");
        }
        if req
            .subscribed_topic_regex
            .as_deref()
            .is_some_and(|r| !r.is_empty())
        {
            return refuse(
                ResponseError::InvalidRequest,
                "kseg mini-broker: regular expression subscriptions are not supported",
            );
        }
        if req
            .server_assignor
            .as_deref()
            .is_some_and(|a| a != "uniform" && a != "range")
        {
            return refuse(
                ResponseError::UnsupportedAssignor,
                format!(
                    "ServerAssignor {} is not supported. Supported assignors: uniform, range.",
                    req.server_assignor.as_deref().unwrap_or("")
                ),
            );
        }
        if req.member_epoch == LEAVE_EPOCH || req.member_epoch == STATIC_LEAVE_EPOCH {
            return self.leave(&req, topics, records);
        }
        let group_id = req.group_id.clone();
        if req.member_epoch != 0 && !self.groups.contains_key(&group_id) {
            return refuse(
                ResponseError::GroupIdNotFound,
                format!("Consumer group {group_id} not found."),
            );
        }
        let group = self
            .groups
            .entry(group_id.clone())
            .or_insert_with(|| ConsumerGroup::new(&group_id));
        let member_id = if req.member_id.is_empty() {
            hex_uuid()
        } else {
            req.member_id.clone()
        };

        // The member as it was (or a new one), checking its epoch.
        let mut replaced = None;
        let old = match group.members.get(&member_id) {
            Some(m) if req.member_epoch == 0 => {
                // Rejoining: a fresh member under the same id.
                let mut fresh = ConsumerMember::new(&member_id);
                fresh.meta = m.meta.clone();
                Some(fresh)
            }
            Some(m) => {
                // `throwIfConsumerGroupMemberEpochIsInvalid`.
                if req.member_epoch > m.epoch {
                    return refuse(
                        ResponseError::FencedMemberEpoch,
                        format!(
                            "The consumer group member has a greater member epoch ({}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                            req.member_epoch, m.epoch
                        ),
                    );
                }
                if req.member_epoch < m.epoch {
                    let owned_ok = req.owned.as_ref().is_some_and(|o| {
                        o.iter().all(|(t, ps)| {
                            ps.iter()
                                .all(|p| m.assigned.get(t).is_some_and(|a| a.contains_key(p)))
                        })
                    });
                    if !(req.member_epoch == m.previous_epoch && owned_ok) {
                        return refuse(
                            ResponseError::FencedMemberEpoch,
                            format!(
                                "The consumer group member has a smaller member epoch ({}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                                req.member_epoch, m.epoch
                            ),
                        );
                    }
                }
                Some(m.clone())
            }
            None if req.member_epoch != 0 => {
                return refuse(
                    ResponseError::UnknownMemberId,
                    format!("Member {member_id} is not a member of group {group_id}."),
                );
            }
            None => {
                if let Some(instance) = req.instance_id.as_deref() {
                    let holder = group
                        .members
                        .values()
                        .find(|m| m.meta.instance_id.as_deref() == Some(instance));
                    if let Some(holder) = holder {
                        if holder.epoch != STATIC_LEAVE_EPOCH {
                            return refuse(
                                ResponseError::UnreleasedInstanceId,
                                format!(
                                    "Static member {} with instance id {instance} is not released yet.",
                                    holder.id
                                ),
                            );
                        }
                        replaced = Some(holder.id.clone());
                    }
                }
                None
            }
        };
        if let Some(previous) = replaced {
            group.fence(std::slice::from_ref(&previous), topics, records);
        }
        let is_new = old.is_none();
        let before = old.unwrap_or_else(|| ConsumerMember::new(&member_id));
        let mut member = before.clone();
        if req.instance_id.is_some() {
            member.meta.instance_id = req.instance_id.clone();
        }
        if req.rack_id.is_some() {
            member.meta.rack_id = req.rack_id.clone();
        }
        if req.rebalance_timeout_ms != -1 {
            member.meta.rebalance_timeout_ms = req.rebalance_timeout_ms;
        }
        if req.server_assignor.is_some() {
            member.meta.server_assignor = req.server_assignor.clone();
        }
        if let Some(names) = &req.subscribed_topic_names {
            let mut names = names.clone();
            names.sort();
            names.dedup();
            member.meta.subscribed_topic_names = names;
        }
        member.meta.client_id = req.client_id.clone();
        member.meta.client_host = req.client_host.clone();
        let subscription_changed =
            member.meta.subscribed_topic_names != before.meta.subscribed_topic_names;
        let assignor_before = group.assignor().to_string();
        if is_new || member.meta != before.meta {
            records.push((
                rec::member_key(&group_id, &member_id),
                Some(rec::member_value(&member.meta)),
            ));
        }
        group.members.insert(member_id.clone(), member.clone());
        let assignor_changed = group.assignor() != assignor_before;
        let hash = group.hash(topics);
        if subscription_changed || assignor_changed || hash != group.metadata_hash {
            group.epoch += 1;
            group.metadata_hash = hash;
            records.push((
                rec::group_key(&group_id),
                Some(rec::group_value(group.epoch, hash)),
            ));
        }
        group.maybe_update_target(topics, &config, now, records);
        let mut updated = group.reconcile(&member, req.owned.as_ref());
        updated.deadline = now + config.session_timeout_ms as i64;
        let changed = updated.epoch != before.epoch
            || updated.previous_epoch != before.previous_epoch
            || updated.state != before.state
            || updated.assigned != before.assigned
            || updated.pending_revocation != before.pending_revocation;
        if changed || is_new {
            records.push(updated.current_record(&group_id));
        }
        let full = req.rebalance_timeout_ms != -1
            && (req.subscribed_topic_names.is_some() || req.subscribed_topic_regex.is_some())
            && req.owned.is_some();
        let assignment = (req.member_epoch == 0 || full || updated.assigned != before.assigned)
            .then(|| updated.assignment());
        let out = HeartbeatOutcome {
            error: 0,
            message: None,
            member_id: member_id.clone(),
            member_epoch: updated.epoch,
            heartbeat_interval_ms: interval,
            assignment,
        };
        group.members.insert(member_id, updated);
        out
    }

    /// `consumerGroupLeave`: epoch -1 removes the member; -2 (a static member) keeps its
    /// assignment for the instance id's next member until the session times out.
    fn leave(
        &mut self,
        req: &Heartbeat,
        topics: &dyn Fn(&str) -> Option<TopicMeta>,
        records: &mut Vec<CoordinatorRecord>,
    ) -> HeartbeatOutcome {
        let Some(group) = self.groups.get_mut(&req.group_id) else {
            return refuse(
                ResponseError::GroupIdNotFound,
                format!("Consumer group {} not found.", req.group_id),
            );
        };
        let id = match req.instance_id.as_deref() {
            Some(instance) => group
                .members
                .values()
                .find(|m| m.meta.instance_id.as_deref() == Some(instance))
                .map(|m| m.id.clone()),
            None => group
                .members
                .contains_key(&req.member_id)
                .then(|| req.member_id.clone()),
        };
        let Some(id) = id else {
            return refuse(
                ResponseError::UnknownMemberId,
                format!(
                    "Member {} is not a member of group {}.",
                    req.member_id, req.group_id
                ),
            );
        };
        if req.member_epoch == STATIC_LEAVE_EPOCH && req.instance_id.is_some() {
            if let Some(m) = group.members.get_mut(&id) {
                m.previous_epoch = m.epoch;
                m.epoch = STATIC_LEAVE_EPOCH;
                records.push(m.current_record(&req.group_id));
            }
        } else {
            group.fence(std::slice::from_ref(&id), topics, records);
        }
        HeartbeatOutcome {
            member_id: req.member_id.clone(),
            member_epoch: req.member_epoch,
            heartbeat_interval_ms: 0,
            ..Default::default()
        }
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

    /// Validates an OffsetCommit for a KIP-848 group (`ConsumerGroup.validateOffsetCommit`):
    /// `None` when the group is not one. A negative epoch commits when the group is empty; else
    /// the member must be known (UNKNOWN_MEMBER_ID), speak OffsetCommit v9+
    /// (UNSUPPORTED_VERSION), and send its epoch (a newer one is STALE_MEMBER_EPOCH); an older
    /// epoch is checked per partition (`createAssignmentEpochValidator`): the partition must be
    /// assigned or pending revocation at an assignment epoch no newer than the one sent. The
    /// per-partition answer is one error (or none) per `(topic id, partition)` given.
    pub fn validate_commit(
        &self,
        group_id: &str,
        member_id: &str,
        epoch: i32,
        version: i16,
        partitions: &[(Option<[u8; 16]>, i32)],
    ) -> Option<Result<Vec<Option<ResponseError>>, ResponseError>> {
        let group = self.groups.get(group_id)?;
        let all_ok = || vec![None; partitions.len()];
        if epoch < 0 && group.members.is_empty() {
            return Some(Ok(all_ok()));
        }
        let Some(m) = group.members.get(member_id) else {
            return Some(Err(ResponseError::UnknownMemberId));
        };
        if version < 9 {
            return Some(Err(ResponseError::UnsupportedVersion));
        }
        if epoch == m.epoch {
            return Some(Ok(all_ok()));
        }
        if epoch > m.epoch {
            return Some(Err(ResponseError::StaleMemberEpoch));
        }
        Some(Ok(partitions
            .iter()
            .map(|(topic, p)| {
                let assigned_at = topic.and_then(|t| {
                    m.assigned
                        .get(&t)
                        .and_then(|ps| ps.get(p))
                        .or_else(|| m.pending_revocation.get(&t).and_then(|ps| ps.get(p)))
                        .copied()
                });
                match assigned_at {
                    Some(at) if epoch >= at => None,
                    _ => Some(ResponseError::StaleMemberEpoch),
                }
            })
            .collect()))
    }

    /// OffsetFetch v9 from a member of a KIP-848 group (`ConsumerGroup.validateOffsetFetch`):
    /// an admin's fetch (no member, negative epoch) always passes; a member must be known
    /// (UNKNOWN_MEMBER_ID) and at its epoch (STALE_MEMBER_EPOCH).
    pub fn validate_fetch(
        &self,
        group_id: &str,
        member_id: &str,
        epoch: i32,
    ) -> Result<(), ResponseError> {
        let Some(group) = self.groups.get(group_id) else {
            return Ok(());
        };
        if epoch < 0 && member_id.is_empty() {
            return Ok(());
        }
        match group.members.get(member_id) {
            None => Err(ResponseError::UnknownMemberId),
            Some(m) if m.epoch != epoch => Err(ResponseError::StaleMemberEpoch),
            Some(_) => Ok(()),
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
                    group.members.remove(member_id);
                }
                7 => {
                    group.target.remove(member_id);
                }
                8 => {
                    if let Some(m) = group.members.get_mut(member_id) {
                        m.assigned.clear();
                        m.pending_revocation.clear();
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
                let m = group
                    .members
                    .entry(member_id.to_string())
                    .or_insert_with(|| ConsumerMember::new(member_id));
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
                let m = group
                    .members
                    .entry(member_id.to_string())
                    .or_insert_with(|| ConsumerMember::new(member_id));
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
            }
            _ => {}
        }
    }
}

/// A member id as Kafka's `Uuid.randomUuid().toString()` prints one (22 URL-safe base64
/// characters), for ConsumerGroupHeartbeat v0 where the coordinator picks it.
fn hex_uuid() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(super::files::random_uuid())
}

/// The server assignors: `uniform` (sticky and balanced, `UniformAssignor`) and `range`
/// (`RangeAssignor`: per topic, contiguous ranges in member-id order). Members listed by id.
fn assign(
    assignor: &str,
    members: &BTreeMap<String, ConsumerMember>,
    previous: &BTreeMap<String, Assignment>,
    topics: &dyn Fn(&str) -> Option<TopicMeta>,
) -> BTreeMap<String, Assignment> {
    let mut out: BTreeMap<String, Assignment> = members
        .keys()
        .map(|id| (id.clone(), Assignment::new()))
        .collect();
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for m in members.values() {
        names.extend(m.meta.subscribed_topic_names.iter().map(String::as_str));
    }
    let metas: Vec<TopicMeta> = names.into_iter().filter_map(topics).collect();
    let subscribers = |t: &TopicMeta| -> Vec<&str> {
        members
            .values()
            .filter(|m| m.meta.subscribed_topic_names.iter().any(|n| n == &t.name))
            .map(|m| m.id.as_str())
            .collect()
    };
    if assignor == "range" {
        for t in &metas {
            let subs = subscribers(t);
            if subs.is_empty() {
                continue;
            }
            let n = t.partitions as usize;
            let (quota, extra) = (n / subs.len(), n % subs.len());
            let mut next = 0usize;
            for (i, id) in subs.iter().enumerate() {
                let count = quota + usize::from(i < extra);
                if let Some(a) = out.get_mut(*id) {
                    a.entry(t.id)
                        .or_default()
                        .extend((next..next + count).map(|p| p as i32));
                }
                next += count;
            }
        }
        return out;
    }
    // Uniform: every subscriber of a topic set gets its fair share; a member keeps the
    // partitions it was assigned before, up to its share, and the rest go to the members with
    // the fewest.
    let all: Vec<([u8; 16], i32, Vec<&str>)> = metas
        .iter()
        .flat_map(|t| {
            let subs = subscribers(t);
            (0..t.partitions).map(move |p| (t.id, p, subs.clone()))
        })
        .collect();
    let total = all.len();
    let m = members.len().max(1);
    let (min_quota, mut extras) = (total / m, total % m);
    let mut counts: BTreeMap<&str, usize> = members.keys().map(|k| (k.as_str(), 0)).collect();
    let mut unassigned = Vec::new();
    // Sticky pass, first to the minimum quota.
    let mut sticky: Vec<(&str, [u8; 16], i32)> = Vec::new();
    for (t, p, subs) in &all {
        let owner = subs.iter().find(|id| {
            previous
                .get(**id)
                .is_some_and(|a| a.get(t).is_some_and(|s| s.contains(p)))
        });
        match owner {
            Some(id) => sticky.push((id, *t, *p)),
            None => unassigned.push((*t, *p, subs.clone())),
        }
    }
    let mut over = Vec::new();
    for (id, t, p) in sticky {
        let c = counts.get_mut(id).expect("member");
        if *c < min_quota {
            *c += 1;
            out.get_mut(id)
                .expect("member")
                .entry(t)
                .or_default()
                .insert(p);
        } else {
            over.push((id, t, p));
        }
    }
    // A member may keep one more when an extra slot is left.
    for (id, t, p) in over {
        let c = counts.get_mut(id).expect("member");
        if *c == min_quota && extras > 0 {
            extras -= 1;
            *c += 1;
            out.get_mut(id)
                .expect("member")
                .entry(t)
                .or_default()
                .insert(p);
        } else {
            let subs = all
                .iter()
                .find(|(tt, pp, _)| *tt == t && *pp == p)
                .map(|(_, _, s)| s.clone())
                .unwrap_or_default();
            unassigned.push((t, p, subs));
        }
    }
    unassigned.sort_by_key(|a| (a.0, a.1));
    for (t, p, subs) in unassigned {
        let best = subs
            .iter()
            .min_by_key(|id| (counts.get(**id).copied().unwrap_or(usize::MAX), **id));
        if let Some(id) = best {
            *counts.get_mut(*id).expect("member") += 1;
            out.get_mut(*id)
                .expect("member")
                .entry(t)
                .or_default()
                .insert(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: [u8; 16] = [1; 16];

    fn topics(name: &str) -> Option<TopicMeta> {
        (name == "t").then(|| TopicMeta {
            name: "t".into(),
            id: T,
            partitions: 4,
        })
    }

    fn hb(member: &str, epoch: i32, owned: Option<&[i32]>) -> Heartbeat {
        Heartbeat {
            version: 1,
            group_id: "g".into(),
            member_id: member.into(),
            member_epoch: epoch,
            rebalance_timeout_ms: if epoch == 0 { 300_000 } else { -1 },
            subscribed_topic_names: (epoch == 0).then(|| vec!["t".into()]),
            owned: owned.map(|o| {
                let mut a = Assignment::new();
                if !o.is_empty() {
                    a.insert(T, o.iter().copied().collect());
                }
                a
            }),
            client_id: member.into(),
            client_host: "/127.0.0.1".into(),
            ..Default::default()
        }
    }

    fn parts(o: &HeartbeatOutcome) -> Vec<i32> {
        o.assignment
            .as_ref()
            .map(|a| a.iter().flat_map(|(_, p)| p.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn two_members_split_through_revocation_and_one_leaves() {
        let config = ConsumerGroupConfig {
            assignment_interval_ms: 0,
            ..Default::default()
        };
        let mut c = ConsumerGroups::new(config);
        let mut r = Vec::new();
        let a = c.heartbeat(hb("a", 0, Some(&[])), &topics, 1, &mut r);
        assert_eq!(
            (a.error, a.member_epoch, parts(&a)),
            (0, 2, vec![0, 1, 2, 3])
        );
        let types: Vec<i16> = r
            .iter()
            .map(|(k, _)| i16::from_be_bytes([k[0], k[1]]))
            .collect();
        assert_eq!(types, [5, 3, 7, 6, 8]);
        let b = c.heartbeat(hb("b", 0, Some(&[])), &topics, 2, &mut r);
        // b's partitions are still a's: b is at epoch 3 with nothing yet.
        assert_eq!((b.member_epoch, parts(&b)), (3, vec![]));
        assert_eq!(c.group("g").unwrap().state(), "Reconciling");
        let a = c.heartbeat(hb("a", 2, Some(&[0, 1, 2, 3])), &topics, 3, &mut r);
        assert_eq!((a.member_epoch, parts(&a)), (2, vec![0, 1]));
        // a acknowledges the revocation.
        let a = c.heartbeat(hb("a", 2, Some(&[0, 1])), &topics, 4, &mut r);
        assert_eq!(a.member_epoch, 3);
        let b = c.heartbeat(hb("b", 3, Some(&[])), &topics, 5, &mut r);
        assert_eq!((b.member_epoch, parts(&b)), (3, vec![2, 3]));
        assert_eq!(c.group("g").unwrap().state(), "Stable");
        // A stale epoch is fenced; the commit check answers STALE_MEMBER_EPOCH.
        assert_eq!(
            c.heartbeat(hb("b", 7, Some(&[2, 3])), &topics, 6, &mut r)
                .error,
            ResponseError::FencedMemberEpoch.code()
        );
        // b's partitions 2 and 3 were assigned at epoch 3: an epoch-2 commit of them is stale,
        // a newer epoch is refused whole, the current one passes.
        assert_eq!(
            c.validate_commit("g", "b", 2, 9, &[(Some(T), 2)]),
            Some(Ok(vec![Some(ResponseError::StaleMemberEpoch)]))
        );
        assert_eq!(
            c.validate_commit("g", "b", 4, 9, &[(Some(T), 2)]),
            Some(Err(ResponseError::StaleMemberEpoch))
        );
        assert_eq!(
            c.validate_commit("g", "b", 3, 8, &[(Some(T), 2)]),
            Some(Err(ResponseError::UnsupportedVersion))
        );
        assert_eq!(
            c.validate_commit("g", "b", 3, 9, &[(Some(T), 2)]),
            Some(Ok(vec![None]))
        );
        assert_eq!(
            c.validate_fetch("g", "b", 2),
            Err(ResponseError::StaleMemberEpoch)
        );
        assert_eq!(c.validate_fetch("g", "", -1), Ok(()));
        assert_eq!(
            c.validate_fetch("g", "x", 3),
            Err(ResponseError::UnknownMemberId)
        );
        let left = c.heartbeat(hb("b", LEAVE_EPOCH, None), &topics, 7, &mut r);
        assert_eq!((left.error, left.member_epoch), (0, -1));
        let a = c.heartbeat(hb("a", 3, Some(&[0, 1])), &topics, 8, &mut r);
        assert_eq!((a.member_epoch, parts(&a)), (4, vec![0, 1, 2, 3]));
        // Session timeout fences a; the group is empty at epoch 5 = assignment epoch.
        c.tick(8 + 45_000, &topics, &mut r);
        let g = c.group("g").unwrap();
        assert_eq!((g.state(), g.epoch, g.assignment_epoch), ("Empty", 5, 5));
    }

    #[test]
    fn a_version_1_join_needs_a_member_id() {
        let mut c = ConsumerGroups::default();
        let out = c.heartbeat(hb("", 0, Some(&[])), &topics, 1, &mut Vec::new());
        assert_eq!(out.error, ResponseError::InvalidRequest.code());
    }

    #[test]
    fn range_static_leave_and_errors() {
        let config = ConsumerGroupConfig {
            assignment_interval_ms: 0,
            ..Default::default()
        };
        let mut c = ConsumerGroups::new(config);
        let mut r = Vec::new();
        let join = |c: &mut ConsumerGroups, id: &str, instance: Option<&str>| {
            let mut h = hb(id, 0, Some(&[]));
            h.server_assignor = Some("range".into());
            h.instance_id = instance.map(str::to_string);
            c.heartbeat(h, &topics, 1, &mut Vec::new())
        };
        join(&mut c, "m1", Some("i1"));
        join(&mut c, "m2", None);
        let g = c.group("g").unwrap();
        assert_eq!(g.assignor(), "range");
        let target = |g: &ConsumerGroup, id: &str| -> Vec<i32> {
            g.target[id].values().flatten().copied().collect()
        };
        assert_eq!((target(g, "m1"), target(g, "m2")), (vec![0, 1], vec![2, 3]));
        // Unknown members and epochs from the future are refused.
        assert_eq!(
            c.heartbeat(hb("nobody", 5, Some(&[])), &topics, 2, &mut r)
                .error,
            ResponseError::UnknownMemberId.code()
        );
        assert_eq!(
            c.heartbeat(hb("m2", 99, Some(&[])), &topics, 2, &mut r)
                .error,
            ResponseError::FencedMemberEpoch.code()
        );
        // A second member of instance i1 waits until the first leaves with epoch -2.
        assert_eq!(
            join(&mut c, "m3", Some("i1")).error,
            ResponseError::UnreleasedInstanceId.code()
        );
        let mut leave = hb("m1", STATIC_LEAVE_EPOCH, None);
        leave.instance_id = Some("i1".into());
        assert_eq!(c.heartbeat(leave, &topics, 3, &mut r).member_epoch, -2);
        assert_eq!(c.group("g").unwrap().members["m1"].epoch, -2);
        assert_eq!(join(&mut c, "m3", Some("i1")).error, 0);
        let g = c.group("g").unwrap();
        assert!(!g.members.contains_key("m1"));
        assert_eq!(g.members.len(), 2);
        // Unsupported assignors and regular expressions are refused.
        let mut h = hb("m4", 0, Some(&[]));
        h.server_assignor = Some("sticky".into());
        assert_eq!(
            c.heartbeat(h, &topics, 4, &mut r).error,
            ResponseError::UnsupportedAssignor.code()
        );
        let mut h = hb("m4", 0, Some(&[]));
        h.subscribed_topic_regex = Some("t.*".into());
        assert_eq!(
            c.heartbeat(h, &topics, 4, &mut r).error,
            ResponseError::InvalidRequest.code()
        );
    }
}
