//! The classic group coordinator: JoinGroup/SyncGroup/Heartbeat/LeaveGroup state machine and
//! committed offsets, producing the records Kafka 4.x writes to `__consumer_offsets`:
//! an empty GroupMetadata record when a group is created, a full one when the leader's
//! assignment makes the group Stable, an empty one (next generation) when the last member
//! leaves; and an OffsetCommit record per committed partition.
//!
//! The coordinator itself never touches files: every call returns the records to append, and
//! the broker appends them to the group's partition before answering.

use std::collections::{BTreeMap, HashMap};

use kafka_protocol::ResponseError;
use tokio::sync::oneshot;

use super::records::{
    group_metadata_key, group_metadata_value, offset_commit_key, offset_commit_value, offset_value,
};
use crate::format::coordinator::{GroupMember, GroupMetadata, OffsetCommitValue};

/// Kafka's bounds (`group.min.session.timeout.ms`, `group.max.session.timeout.ms`).
pub const MIN_SESSION_TIMEOUT_MS: i32 = 6_000;
pub const MAX_SESSION_TIMEOUT_MS: i32 = 1_800_000;
/// `offset.metadata.max.bytes`.
pub const MAX_METADATA_BYTES: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupState {
    Empty,
    PreparingRebalance,
    CompletingRebalance,
    Stable,
}

impl GroupState {
    pub fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
        }
    }
}

/// A record for `__consumer_offsets` (a `None` value is a tombstone).
pub type CoordinatorRecord = (Vec<u8>, Option<Vec<u8>>);

#[derive(Debug, Clone, Default)]
pub struct JoinOutcome {
    pub error: i16,
    pub generation: i32,
    pub protocol_type: Option<String>,
    pub protocol_name: Option<String>,
    pub leader: String,
    pub member_id: String,
    /// Only for the leader: (member id, group instance id, metadata).
    pub members: Vec<(String, Option<String>, Vec<u8>)>,
    /// JoinGroup v9+: the leader of a Stable group rejoining as a static member keeps the
    /// current assignment (no SyncGroup assignment to compute).
    pub skip_assignment: bool,
}

impl JoinOutcome {
    fn error(e: ResponseError, member_id: &str) -> Self {
        JoinOutcome {
            error: e.code(),
            generation: -1,
            member_id: member_id.to_string(),
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SyncOutcome {
    pub error: i16,
    pub protocol_type: Option<String>,
    pub protocol_name: Option<String>,
    pub assignment: Vec<u8>,
}

impl SyncOutcome {
    fn error(e: ResponseError) -> Self {
        SyncOutcome {
            error: e.code(),
            ..Default::default()
        }
    }
}

/// An answer now, or one that comes when the rebalance step completes.
pub enum Pending<T> {
    Now(T),
    Later(oneshot::Receiver<T>),
}

#[derive(Debug)]
pub struct Member {
    pub id: String,
    pub instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub session_timeout_ms: i32,
    pub protocol_type: String,
    pub protocols: Vec<(String, Vec<u8>)>,
    pub assignment: Vec<u8>,
    join_waiter: Option<oneshot::Sender<JoinOutcome>>,
    sync_waiter: Option<oneshot::Sender<SyncOutcome>>,
    heartbeat_deadline: i64,
}

#[derive(Debug)]
pub struct Group {
    pub id: String,
    pub state: GroupState,
    pub protocol_type: Option<String>,
    pub protocol: Option<String>,
    pub generation: i32,
    pub leader: Option<String>,
    pub members: Vec<Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED, with their expiry.
    pending: HashMap<String, i64>,
    pub offsets: BTreeMap<(String, i32), OffsetCommitValue>,
    /// Transactional commits waiting for their marker, by producer id.
    pending_txn: HashMap<i64, BTreeMap<(String, i32), OffsetCommitValue>>,
    state_timestamp: i64,
    rebalance_deadline: i64,
    /// The rebalance started from Empty: wait out `group.initial.rebalance.delay.ms`.
    initial_join: bool,
    /// group.instance.id -> the member id that holds it now.
    static_members: HashMap<String, String>,
}

impl Group {
    fn new(id: &str, now: i64) -> Self {
        Group {
            id: id.to_string(),
            state: GroupState::Empty,
            protocol_type: None,
            protocol: None,
            generation: 0,
            leader: None,
            members: Vec::new(),
            pending: HashMap::new(),
            offsets: BTreeMap::new(),
            pending_txn: HashMap::new(),
            state_timestamp: now,
            rebalance_deadline: 0,
            initial_join: false,
            static_members: HashMap::new(),
        }
    }

    /// `ClassicGroup.isStaticMemberFenced`: the instance id belongs to another member id now.
    fn is_fenced(&self, instance: Option<&str>, member_id: &str) -> bool {
        instance
            .and_then(|i| self.static_members.get(i))
            .is_some_and(|holder| {
                holder != member_id && self.members.iter().any(|m| &m.id == holder)
            })
    }

    fn member_mut(&mut self, id: &str) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.id == id)
    }

    fn has_pending_txn(&self, topic: &str, partition: i32) -> bool {
        self.pending_txn
            .values()
            .any(|p| p.contains_key(&(topic.to_string(), partition)))
    }

    /// The GroupMetadata record of the group as it is now.
    fn record(&self) -> CoordinatorRecord {
        let members = self
            .members
            .iter()
            .map(|m| GroupMember {
                member_id: m.id.clone(),
                group_instance_id: m.instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout: Some(m.rebalance_timeout_ms),
                session_timeout: m.session_timeout_ms,
                subscription_bytes: self
                    .protocol
                    .as_ref()
                    .and_then(|p| m.protocols.iter().find(|(n, _)| n == p))
                    .map(|(_, meta)| meta.clone())
                    .unwrap_or_default(),
                assignment_bytes: m.assignment.clone(),
                subscription: None,
                assignment: None,
            })
            .collect();
        let value = GroupMetadata {
            version: 3,
            protocol_type: self.protocol_type.clone().unwrap_or_default(),
            generation: self.generation,
            protocol: self.protocol.clone(),
            leader: self.leader.clone(),
            current_state_timestamp: Some(self.state_timestamp),
            members,
        };
        (
            group_metadata_key(&self.id),
            Some(group_metadata_value(&value)),
        )
    }

    fn select_protocol(&self) -> Option<String> {
        let first = self.members.first()?;
        let supported_by_all = |name: &str| {
            self.members
                .iter()
                .all(|m| m.protocols.iter().any(|(n, _)| n == name))
        };
        let candidates: Vec<&String> = first
            .protocols
            .iter()
            .map(|(n, _)| n)
            .filter(|n| supported_by_all(n))
            .collect();
        // Each member votes for its most preferred candidate; the most votes wins.
        let mut votes: Vec<(&String, usize)> = candidates.iter().map(|c| (*c, 0)).collect();
        for m in &self.members {
            if let Some((name, _)) = m.protocols.iter().find(|(n, _)| candidates.contains(&n)) {
                if let Some(v) = votes.iter_mut().find(|(c, _)| *c == name) {
                    v.1 += 1;
                }
            }
        }
        let best = votes.iter().map(|(_, n)| *n).max()?;
        votes
            .into_iter()
            .find(|(_, n)| *n == best)
            .map(|(c, _)| c.clone())
    }
}

/// A JoinGroup request, decoupled from the wire types.
#[derive(Debug, Clone)]
pub struct JoinRequest {
    pub group_id: String,
    pub member_id: String,
    pub instance_id: Option<String>,
    pub protocol_type: String,
    pub protocols: Vec<(String, Vec<u8>)>,
    pub session_timeout_ms: i32,
    pub rebalance_timeout_ms: i32,
    pub client_id: String,
    pub client_host: String,
    /// JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED and its id.
    pub require_known_member_id: bool,
    /// JoinGroup v9+ (`JoinGroupRequest.supportsSkippingAssignment`).
    pub supports_skip_assignment: bool,
}

/// One partition of an OffsetCommit or TxnOffsetCommit.
#[derive(Debug, Clone)]
pub struct CommitPartition {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: Option<String>,
    pub topic_id: Option<[u8; 16]>,
}

#[derive(Debug, Default)]
pub struct GroupCoordinator {
    groups: HashMap<String, Group>,
    /// `group.initial.rebalance.delay.ms`.
    pub initial_rebalance_delay_ms: i64,
}

fn new_member_id(client_id: &str) -> String {
    let u = super::files::random_uuid();
    let hex = hex::encode(u);
    format!(
        "{client_id}-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

impl GroupCoordinator {
    pub fn new(initial_rebalance_delay_ms: i64) -> Self {
        GroupCoordinator {
            groups: HashMap::new(),
            initial_rebalance_delay_ms,
        }
    }

    pub fn group(&self, id: &str) -> Option<&Group> {
        self.groups.get(id)
    }

    pub fn groups(&self) -> impl Iterator<Item = &Group> {
        self.groups.values()
    }

    pub fn join(
        &mut self,
        req: JoinRequest,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Pending<JoinOutcome> {
        if req.group_id.is_empty() {
            return Pending::Now(JoinOutcome::error(
                ResponseError::InvalidGroupId,
                &req.member_id,
            ));
        }
        if !(MIN_SESSION_TIMEOUT_MS..=MAX_SESSION_TIMEOUT_MS).contains(&req.session_timeout_ms) {
            return Pending::Now(JoinOutcome::error(
                ResponseError::InvalidSessionTimeout,
                &req.member_id,
            ));
        }
        let delay = self.initial_rebalance_delay_ms;
        let group = self.groups.entry(req.group_id.clone()).or_insert_with(|| {
            let g = Group::new(&req.group_id, now);
            records.push(g.record());
            g
        });
        if !group.members.is_empty() {
            let type_ok = group.protocol_type.as_deref() == Some(req.protocol_type.as_str());
            let common = req.protocols.iter().any(|(n, _)| {
                group
                    .members
                    .iter()
                    .all(|m| m.protocols.iter().any(|(x, _)| x == n))
            });
            if !type_ok || !common {
                return Pending::Now(JoinOutcome::error(
                    ResponseError::InconsistentGroupProtocol,
                    &req.member_id,
                ));
            }
        }
        // Static membership (ClassicGroup.replaceStaticMember): a join with a known
        // group.instance.id and no member id takes the old member's place under a new id; the
        // old one's waiting join or sync is answered FENCED_INSTANCE_ID, and so are its later
        // requests.
        if let Some(instance) = req.instance_id.as_deref() {
            if !req.member_id.is_empty() && group.is_fenced(Some(instance), &req.member_id) {
                return Pending::Now(JoinOutcome::error(
                    ResponseError::FencedInstanceId,
                    &req.member_id,
                ));
            }
            if req.member_id.is_empty() {
                if let Some(old) = group
                    .members
                    .iter()
                    .find(|m| m.instance_id.as_deref() == Some(instance))
                    .map(|m| m.id.clone())
                {
                    return replace_static_member(group, req, old, now, delay, records);
                }
            }
        }
        let member_id = if req.member_id.is_empty() && req.instance_id.is_some() {
            // Static members get their id at once (no MEMBER_ID_REQUIRED round trip).
            new_member_id(req.instance_id.as_deref().unwrap_or_default())
        } else if req.member_id.is_empty() {
            let id = new_member_id(&req.client_id);
            if req.require_known_member_id {
                group
                    .pending
                    .insert(id.clone(), now + req.session_timeout_ms as i64);
                return Pending::Now(JoinOutcome::error(ResponseError::MemberIdRequired, &id));
            }
            id
        } else {
            req.member_id.clone()
        };
        let (tx, rx) = oneshot::channel();
        if let Some(m) = group.member_mut(&member_id) {
            m.protocols = req.protocols;
            m.session_timeout_ms = req.session_timeout_ms;
            m.rebalance_timeout_ms = req.rebalance_timeout_ms;
            m.join_waiter = Some(tx);
            m.heartbeat_deadline = now + req.session_timeout_ms as i64;
        } else if req.member_id.is_empty() || group.pending.remove(&member_id).is_some() {
            if let Some(instance) = &req.instance_id {
                group
                    .static_members
                    .insert(instance.clone(), member_id.clone());
            }
            group.members.push(Member {
                id: member_id.clone(),
                instance_id: req.instance_id,
                client_id: req.client_id,
                client_host: req.client_host,
                rebalance_timeout_ms: req.rebalance_timeout_ms,
                session_timeout_ms: req.session_timeout_ms,
                protocol_type: req.protocol_type.clone(),
                protocols: req.protocols,
                assignment: Vec::new(),
                join_waiter: Some(tx),
                sync_waiter: None,
                heartbeat_deadline: now + req.session_timeout_ms as i64,
            });
        } else {
            return Pending::Now(JoinOutcome::error(
                ResponseError::UnknownMemberId,
                &member_id,
            ));
        }
        group.protocol_type = Some(req.protocol_type);
        if group.state != GroupState::PreparingRebalance {
            prepare_rebalance(group, now, delay);
        }
        maybe_complete_join(group, now, records);
        Pending::Later(rx)
    }

    pub fn sync(
        &mut self,
        group_id: &str,
        generation: i32,
        member_id: &str,
        assignments: Vec<(String, Vec<u8>)>,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Pending<SyncOutcome> {
        let Some(group) = self.groups.get_mut(group_id) else {
            return Pending::Now(SyncOutcome::error(ResponseError::UnknownMemberId));
        };
        if group.member_mut(member_id).is_none() {
            return Pending::Now(SyncOutcome::error(ResponseError::UnknownMemberId));
        }
        if generation != group.generation {
            return Pending::Now(SyncOutcome::error(ResponseError::IllegalGeneration));
        }
        match group.state {
            GroupState::Empty => Pending::Now(SyncOutcome::error(ResponseError::UnknownMemberId)),
            GroupState::PreparingRebalance => {
                Pending::Now(SyncOutcome::error(ResponseError::RebalanceInProgress))
            }
            GroupState::Stable => {
                let m = group.member_mut(member_id).expect("checked above");
                m.heartbeat_deadline = now + m.session_timeout_ms as i64;
                let assignment = m.assignment.clone();
                Pending::Now(SyncOutcome {
                    error: 0,
                    protocol_type: group.protocol_type.clone(),
                    protocol_name: group.protocol.clone(),
                    assignment,
                })
            }
            GroupState::CompletingRebalance => {
                let (tx, rx) = oneshot::channel();
                let m = group.member_mut(member_id).expect("checked above");
                m.sync_waiter = Some(tx);
                m.heartbeat_deadline = now + m.session_timeout_ms as i64;
                if group.leader.as_deref() == Some(member_id) {
                    let mut by_member: HashMap<String, Vec<u8>> = assignments.into_iter().collect();
                    for m in &mut group.members {
                        m.assignment = by_member.remove(&m.id).unwrap_or_default();
                    }
                    group.state = GroupState::Stable;
                    group.state_timestamp = now;
                    records.push(group.record());
                    let (pt, pn) = (group.protocol_type.clone(), group.protocol.clone());
                    for m in &mut group.members {
                        if let Some(w) = m.sync_waiter.take() {
                            let _ = w.send(SyncOutcome {
                                error: 0,
                                protocol_type: pt.clone(),
                                protocol_name: pn.clone(),
                                assignment: m.assignment.clone(),
                            });
                        }
                    }
                }
                Pending::Later(rx)
            }
        }
    }

    pub fn heartbeat(&mut self, group_id: &str, member_id: &str, generation: i32, now: i64) -> i16 {
        let Some(group) = self.groups.get_mut(group_id) else {
            return ResponseError::UnknownMemberId.code();
        };
        let state = group.state;
        let current = group.generation;
        let Some(m) = group.member_mut(member_id) else {
            return ResponseError::UnknownMemberId.code();
        };
        m.heartbeat_deadline = now + m.session_timeout_ms as i64;
        match state {
            GroupState::Empty => ResponseError::UnknownMemberId.code(),
            GroupState::PreparingRebalance => ResponseError::RebalanceInProgress.code(),
            _ if generation != current => ResponseError::IllegalGeneration.code(),
            _ => 0,
        }
    }

    /// LeaveGroup: each member's error code.
    pub fn leave(
        &mut self,
        group_id: &str,
        member_ids: &[String],
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Result<Vec<i16>, ResponseError> {
        let delay = self.initial_rebalance_delay_ms;
        let group = self
            .groups
            .get_mut(group_id)
            .ok_or(ResponseError::UnknownMemberId)?;
        let mut codes = Vec::new();
        let mut removed = false;
        for id in member_ids {
            match group.members.iter().position(|m| &m.id == id) {
                Some(i) => {
                    let m = group.members.remove(i);
                    if let Some(w) = m.join_waiter {
                        let _ = w.send(JoinOutcome::error(ResponseError::UnknownMemberId, id));
                    }
                    removed = true;
                    codes.push(0);
                }
                None => codes.push(ResponseError::UnknownMemberId.code()),
            }
        }
        if removed {
            members_changed(group, now, delay, records);
        }
        Ok(codes)
    }

    /// Expires members and pending ids past their session, and completes rebalances past their
    /// deadline.
    pub fn tick(&mut self, now: i64, records: &mut Vec<CoordinatorRecord>) {
        let delay = self.initial_rebalance_delay_ms;
        for group in self.groups.values_mut() {
            group.pending.retain(|_, deadline| *deadline > now);
            let before = group.members.len();
            group
                .members
                .retain(|m| m.join_waiter.is_some() || m.heartbeat_deadline > now);
            if group.members.len() != before {
                members_changed(group, now, delay, records);
            }
            if group.state == GroupState::PreparingRebalance && now >= group.rebalance_deadline {
                complete_join(group, now, records);
            }
        }
    }

    /// OffsetCommit. Returns one error code per partition (in order).
    #[allow(clippy::too_many_arguments)]
    pub fn commit(
        &mut self,
        group_id: &str,
        member_id: &str,
        generation: i32,
        partitions: &[CommitPartition],
        expire_timestamp: Option<i64>,
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Result<Vec<i16>, ResponseError> {
        if group_id.is_empty() {
            return Err(ResponseError::InvalidGroupId);
        }
        let group = match self.groups.get_mut(group_id) {
            Some(g) => g,
            None if generation < 0 => self
                .groups
                .entry(group_id.to_string())
                .or_insert_with(|| Group::new(group_id, now)),
            None => return Err(ResponseError::IllegalGeneration),
        };
        let simple = generation < 0 && member_id.is_empty();
        if simple {
            if group.state != GroupState::Empty {
                return Err(ResponseError::UnknownMemberId);
            }
        } else {
            if group.member_mut(member_id).is_none() {
                return Err(ResponseError::UnknownMemberId);
            }
            if generation != group.generation {
                return Err(ResponseError::IllegalGeneration);
            }
            if group.state == GroupState::CompletingRebalance {
                return Err(ResponseError::RebalanceInProgress);
            }
            if let Some(m) = group.member_mut(member_id) {
                m.heartbeat_deadline = now + m.session_timeout_ms as i64;
            }
        }
        let mut codes = Vec::with_capacity(partitions.len());
        for p in partitions {
            let metadata = p.metadata.clone().unwrap_or_default();
            if metadata.len() > MAX_METADATA_BYTES {
                codes.push(ResponseError::OffsetMetadataTooLarge.code());
                continue;
            }
            let value = offset_value(
                p.offset,
                p.leader_epoch,
                metadata,
                now,
                expire_timestamp,
                p.topic_id,
            );
            records.push((
                offset_commit_key(group_id, &p.topic, p.partition),
                Some(offset_commit_value(&value)),
            ));
            group.offsets.insert((p.topic.clone(), p.partition), value);
            codes.push(0);
        }
        Ok(codes)
    }

    /// TxnOffsetCommit: the offsets wait for the transaction's marker.
    pub fn txn_commit(
        &mut self,
        group_id: &str,
        producer_id: i64,
        partitions: &[CommitPartition],
        now: i64,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Vec<i16> {
        let group = self
            .groups
            .entry(group_id.to_string())
            .or_insert_with(|| Group::new(group_id, now));
        let pending = group.pending_txn.entry(producer_id).or_default();
        partitions
            .iter()
            .map(|p| {
                let value = offset_value(
                    p.offset,
                    p.leader_epoch,
                    p.metadata.clone().unwrap_or_default(),
                    now,
                    None,
                    p.topic_id,
                );
                records.push((
                    offset_commit_key(group_id, &p.topic, p.partition),
                    Some(offset_commit_value(&value)),
                ));
                pending.insert((p.topic.clone(), p.partition), value);
                0
            })
            .collect()
    }

    /// A transaction marker reached the offsets partition: apply or drop the producer's
    /// pending commits in every group.
    pub fn complete_txn(&mut self, producer_id: i64, commit: bool) {
        for group in self.groups.values_mut() {
            if let Some(pending) = group.pending_txn.remove(&producer_id) {
                if commit {
                    group.offsets.extend(pending);
                }
            }
        }
    }

    /// OffsetFetch for one partition: (offset, leader epoch, metadata, error).
    pub fn fetch_offset(
        &self,
        group_id: &str,
        topic: &str,
        partition: i32,
        require_stable: bool,
    ) -> (i64, i32, String, i16) {
        let Some(group) = self.groups.get(group_id) else {
            return (-1, -1, String::new(), 0);
        };
        if require_stable && group.has_pending_txn(topic, partition) {
            return (
                -1,
                -1,
                String::new(),
                ResponseError::UnstableOffsetCommit.code(),
            );
        }
        match group.offsets.get(&(topic.to_string(), partition)) {
            Some(v) => (
                v.offset,
                v.leader_epoch.unwrap_or(-1),
                v.metadata.clone(),
                0,
            ),
            None => (-1, -1, String::new(), 0),
        }
    }

    /// Every committed partition of a group (OffsetFetch with null topics).
    pub fn committed_partitions(&self, group_id: &str) -> Vec<(String, i32)> {
        self.groups
            .get(group_id)
            .map(|g| g.offsets.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Rebuilds state from one `__consumer_offsets` record while loading. `producer` is the
    /// batch's producer id when it is transactional.
    pub fn load_offset(
        &mut self,
        group: &str,
        topic: &str,
        partition: i32,
        value: Option<OffsetCommitValue>,
        producer: Option<i64>,
        now: i64,
    ) {
        let g = self
            .groups
            .entry(group.to_string())
            .or_insert_with(|| Group::new(group, now));
        let key = (topic.to_string(), partition);
        match (value, producer) {
            (Some(v), Some(pid)) => {
                g.pending_txn.entry(pid).or_default().insert(key, v);
            }
            (Some(v), None) => {
                g.offsets.insert(key, v);
            }
            (None, _) => {
                g.offsets.remove(&key);
            }
        }
    }

    /// An empty classic group gives its id to a new KIP-848 group
    /// (`maybeDeleteEmptyClassicGroup`): its metadata goes, its offsets stay. `true` when it
    /// had a GroupMetadata record to tombstone.
    pub fn forget_classic_metadata(&mut self, id: &str) -> bool {
        let Some(g) = self.groups.get_mut(id) else {
            return false;
        };
        let had = g.protocol_type.is_some() || g.generation > 0;
        g.protocol_type = None;
        g.protocol = None;
        g.leader = None;
        g.generation = 0;
        had
    }

    /// A request carrying `group.instance.id` from a member id that no longer holds it.
    pub fn is_fenced(&self, group_id: &str, instance: Option<&str>, member_id: &str) -> bool {
        self.groups
            .get(group_id)
            .is_some_and(|g| g.is_fenced(instance, member_id))
    }

    /// DeleteGroups for one group (`GroupCoordinatorShard.deleteGroups`): only an Empty group
    /// goes (NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND when unknown); the records are a
    /// tombstone per committed offset, then the group's tombstone.
    pub fn delete_group(
        &mut self,
        group_id: &str,
        records: &mut Vec<CoordinatorRecord>,
    ) -> Result<(), ResponseError> {
        let Some(group) = self.groups.get(group_id) else {
            return Err(ResponseError::GroupIdNotFound);
        };
        if group.state != GroupState::Empty {
            return Err(ResponseError::NonEmptyGroup);
        }
        for (topic, partition) in group.offsets.keys() {
            records.push((offset_commit_key(group_id, topic, *partition), None));
        }
        records.push((group_metadata_key(group_id), None));
        self.groups.remove(group_id);
        Ok(())
    }

    /// Tombstones for every group's committed offsets of a deleted topic, by group.
    pub fn delete_topic_offsets(&mut self, topic: &str) -> Vec<(String, Vec<CoordinatorRecord>)> {
        let mut out = Vec::new();
        for g in self.groups.values_mut() {
            let gone: Vec<(String, i32)> = g
                .offsets
                .keys()
                .filter(|(t, _)| t == topic)
                .cloned()
                .collect();
            if gone.is_empty() {
                continue;
            }
            let records = gone
                .iter()
                .map(|(t, p)| (offset_commit_key(&g.id, t, *p), None))
                .collect();
            for k in gone {
                g.offsets.remove(&k);
            }
            out.push((g.id.clone(), records));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub fn load_group(&mut self, id: &str, value: Option<GroupMetadata>, now: i64) {
        let Some(v) = value else {
            self.groups.remove(id);
            return;
        };
        let g = self
            .groups
            .entry(id.to_string())
            .or_insert_with(|| Group::new(id, now));
        g.generation = v.generation;
        g.protocol_type = (!v.protocol_type.is_empty()).then_some(v.protocol_type);
        g.protocol = v.protocol;
        g.leader = v.leader;
        g.state_timestamp = v.current_state_timestamp.unwrap_or(-1);
        g.members = v
            .members
            .into_iter()
            .map(|m| Member {
                protocols: g
                    .protocol
                    .clone()
                    .map(|p| vec![(p, m.subscription_bytes.clone())])
                    .unwrap_or_default(),
                id: m.member_id,
                instance_id: m.group_instance_id,
                client_id: m.client_id,
                client_host: m.client_host,
                rebalance_timeout_ms: m.rebalance_timeout.unwrap_or(-1),
                session_timeout_ms: m.session_timeout,
                protocol_type: g.protocol_type.clone().unwrap_or_default(),
                assignment: m.assignment_bytes,
                join_waiter: None,
                sync_waiter: None,
                heartbeat_deadline: now + m.session_timeout as i64,
            })
            .collect();
        g.static_members = g
            .members
            .iter()
            .filter_map(|m| Some((m.instance_id.clone()?, m.id.clone())))
            .collect();
        g.state = if g.members.is_empty() {
            GroupState::Empty
        } else {
            GroupState::Stable
        };
    }
}

/// The members with their metadata of the selected protocol (what the leader gets).
fn member_list(group: &Group) -> Vec<(String, Option<String>, Vec<u8>)> {
    let protocol = group.protocol.clone();
    group
        .members
        .iter()
        .map(|m| {
            let meta = protocol
                .as_ref()
                .and_then(|p| m.protocols.iter().find(|(n, _)| n == p))
                .map(|(_, meta)| meta.clone())
                .unwrap_or_default();
            (m.id.clone(), m.instance_id.clone(), meta)
        })
        .collect()
}

/// `GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin`: the member holding
/// the instance id is replaced under a new member id (keeping its client id, host and
/// assignment; its waiting join or sync is answered FENCED_INSTANCE_ID, as
/// `ClassicGroup.replaceStaticMember` does) and takes the request's protocols and timeouts. A
/// Stable group whose selected protocol stays is only persisted and answered at once (the leader
/// of v9+ gets the members and `skip_assignment`); otherwise the group rebalances, or the
/// member joins the rebalance under way.
fn replace_static_member(
    group: &mut Group,
    req: JoinRequest,
    old_id: String,
    now: i64,
    delay: i64,
    records: &mut Vec<CoordinatorRecord>,
) -> Pending<JoinOutcome> {
    let instance = req.instance_id.clone().unwrap_or_default();
    let new_id = new_member_id(&instance);
    let current_leader = group.leader.clone();
    let m = group.member_mut(&old_id).expect("found by the caller");
    if let Some(w) = m.join_waiter.take() {
        let _ = w.send(JoinOutcome::error(ResponseError::FencedInstanceId, &old_id));
    }
    if let Some(w) = m.sync_waiter.take() {
        let _ = w.send(SyncOutcome::error(ResponseError::FencedInstanceId));
    }
    m.id = new_id.clone();
    m.protocols = req.protocols;
    m.rebalance_timeout_ms = req.rebalance_timeout_ms;
    m.session_timeout_ms = req.session_timeout_ms;
    m.heartbeat_deadline = now + req.session_timeout_ms as i64;
    if group.leader.as_deref() == Some(old_id.as_str()) {
        group.leader = Some(new_id.clone());
    }
    group.static_members.insert(instance, new_id.clone());
    let (tx, rx) = oneshot::channel();
    match group.state {
        GroupState::Stable if group.select_protocol() == group.protocol => {
            records.push(group.record());
            let is_leader = group.leader.as_deref() == Some(new_id.as_str());
            let skip = req.supports_skip_assignment && is_leader;
            return Pending::Now(JoinOutcome {
                error: 0,
                generation: group.generation,
                protocol_type: group.protocol_type.clone(),
                protocol_name: group.protocol.clone(),
                leader: if req.supports_skip_assignment {
                    group.leader.clone()
                } else {
                    current_leader
                }
                .unwrap_or_default(),
                member_id: new_id,
                members: if skip { member_list(group) } else { Vec::new() },
                skip_assignment: skip,
            });
        }
        GroupState::PreparingRebalance => {
            group.member_mut(&new_id).expect("just renamed").join_waiter = Some(tx);
        }
        _ => {
            group.member_mut(&new_id).expect("just renamed").join_waiter = Some(tx);
            prepare_rebalance(group, now, delay);
        }
    }
    maybe_complete_join(group, now, records);
    Pending::Later(rx)
}

fn prepare_rebalance(group: &mut Group, now: i64, initial_delay: i64) {
    // Members waiting in SyncGroup must rejoin.
    for m in &mut group.members {
        if let Some(w) = m.sync_waiter.take() {
            let _ = w.send(SyncOutcome::error(ResponseError::RebalanceInProgress));
        }
    }
    let was_empty = group.state == GroupState::Empty;
    group.state = GroupState::PreparingRebalance;
    group.state_timestamp = now;
    let timeout = group
        .members
        .iter()
        .map(|m| m.rebalance_timeout_ms.max(0) as i64)
        .max()
        .unwrap_or(0);
    group.rebalance_deadline = now + if was_empty { initial_delay } else { timeout };
    group.initial_join = was_empty;
}

/// After members left or expired: rebalance the rest, or go Empty.
fn members_changed(group: &mut Group, now: i64, delay: i64, records: &mut Vec<CoordinatorRecord>) {
    if group.state != GroupState::PreparingRebalance {
        prepare_rebalance(group, now, delay);
        if !group.members.is_empty() {
            // Stable members learn about the rebalance from their next heartbeat.
            group.rebalance_deadline = now
                + group
                    .members
                    .iter()
                    .map(|m| m.rebalance_timeout_ms.max(0) as i64)
                    .max()
                    .unwrap_or(0);
        }
    }
    maybe_complete_join(group, now, records);
}

fn maybe_complete_join(group: &mut Group, now: i64, records: &mut Vec<CoordinatorRecord>) {
    let all_joined =
        group.pending.is_empty() && group.members.iter().all(|m| m.join_waiter.is_some());
    // Everyone is back: no need to wait out the rebalance timeout (but a group starting from
    // Empty waits for the initial delay, so that more members can join its first generation).
    if group.state == GroupState::PreparingRebalance
        && all_joined
        && (!group.initial_join || now >= group.rebalance_deadline)
    {
        complete_join(group, now, records);
    }
}

fn complete_join(group: &mut Group, now: i64, records: &mut Vec<CoordinatorRecord>) {
    // Members that did not rejoin in time are removed.
    group.members.retain(|m| m.join_waiter.is_some());
    group.generation += 1;
    group.state_timestamp = now;
    if group.members.is_empty() {
        group.state = GroupState::Empty;
        group.protocol = None;
        group.leader = None;
        records.push(group.record());
        return;
    }
    group.protocol = group.select_protocol();
    if group
        .leader
        .as_ref()
        .is_none_or(|l| !group.members.iter().any(|m| &m.id == l))
    {
        group.leader = Some(group.members[0].id.clone());
    }
    group.state = GroupState::CompletingRebalance;
    let leader = group.leader.clone().unwrap_or_default();
    let protocol = group.protocol.clone();
    let all: Vec<(String, Option<String>, Vec<u8>)> = group
        .members
        .iter()
        .map(|m| {
            let meta = protocol
                .as_ref()
                .and_then(|p| m.protocols.iter().find(|(n, _)| n == p))
                .map(|(_, meta)| meta.clone())
                .unwrap_or_default();
            (m.id.clone(), m.instance_id.clone(), meta)
        })
        .collect();
    for m in &mut group.members {
        m.heartbeat_deadline = now + m.session_timeout_ms as i64;
        if let Some(w) = m.join_waiter.take() {
            let _ = w.send(JoinOutcome {
                error: 0,
                generation: group.generation,
                protocol_type: group.protocol_type.clone(),
                protocol_name: protocol.clone(),
                leader: leader.clone(),
                member_id: m.id.clone(),
                members: if m.id == leader {
                    all.clone()
                } else {
                    Vec::new()
                },
                skip_assignment: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join_req(member: &str, client: &str) -> JoinRequest {
        JoinRequest {
            group_id: "g".into(),
            member_id: member.into(),
            instance_id: None,
            protocol_type: "consumer".into(),
            protocols: vec![("range".into(), vec![1]), ("roundrobin".into(), vec![2])],
            session_timeout_ms: 10_000,
            rebalance_timeout_ms: 30_000,
            client_id: client.into(),
            client_host: "/127.0.0.1".into(),
            require_known_member_id: true,
            supports_skip_assignment: true,
        }
    }

    fn now_outcome<T>(p: Pending<T>) -> T {
        match p {
            Pending::Now(t) => t,
            Pending::Later(mut rx) => rx.try_recv().expect("answered already"),
        }
    }

    #[test]
    fn one_member_joins_syncs_commits_and_leaves() {
        let mut c = GroupCoordinator::default();
        let mut recs = Vec::new();
        let first = now_outcome(c.join(join_req("", "c1"), 0, &mut recs));
        assert_eq!(first.error, ResponseError::MemberIdRequired.code());
        assert_eq!(recs.len(), 1, "the new empty group is persisted");
        let joined = now_outcome(c.join(join_req(&first.member_id, "c1"), 1, &mut recs));
        assert_eq!(joined.error, 0);
        assert_eq!(joined.generation, 1);
        assert_eq!(joined.protocol_name.as_deref(), Some("range"));
        assert_eq!(joined.members.len(), 1);
        let id = joined.member_id.clone();
        let synced = now_outcome(c.sync("g", 1, &id, vec![(id.clone(), vec![9])], 2, &mut recs));
        assert_eq!(synced.assignment, vec![9]);
        assert_eq!(recs.len(), 2);
        assert_eq!(c.heartbeat("g", &id, 1, 3), 0);
        let parts = [CommitPartition {
            topic: "t".into(),
            partition: 0,
            offset: 12,
            leader_epoch: 0,
            metadata: None,
            topic_id: None,
        }];
        assert_eq!(
            c.commit("g", &id, 1, &parts, None, 4, &mut recs).unwrap(),
            vec![0]
        );
        assert_eq!(c.fetch_offset("g", "t", 0, true).0, 12);
        assert_eq!(c.leave("g", &[id], 5, &mut recs).unwrap(), vec![0]);
        let g = c.group("g").unwrap();
        assert_eq!(g.state, GroupState::Empty);
        assert_eq!(g.generation, 2);
        assert_eq!(recs.len(), 4);
    }

    #[test]
    fn second_member_triggers_a_rebalance() {
        let mut c = GroupCoordinator::default();
        let mut recs = Vec::new();
        let mut r = join_req("", "a");
        r.require_known_member_id = false;
        let a = now_outcome(c.join(r, 0, &mut recs));
        let a_id = a.member_id.clone();
        now_outcome(c.sync("g", 1, &a_id, vec![], 1, &mut recs));
        let mut r = join_req("", "b");
        r.require_known_member_id = false;
        let b_pending = c.join(r, 2, &mut recs);
        assert_eq!(
            c.heartbeat("g", &a_id, 1, 3),
            ResponseError::RebalanceInProgress.code()
        );
        let a2 = now_outcome(c.join(join_req(&a_id, "a"), 4, &mut recs));
        assert_eq!(a2.generation, 2);
        assert_eq!(a2.members.len(), 2, "a stays leader");
        let b = now_outcome(b_pending);
        assert_eq!(b.generation, 2);
        assert!(b.members.is_empty());
    }

    #[test]
    fn a_static_member_rejoining_a_stable_group_fences_the_old_one_without_a_rebalance() {
        let mut c = GroupCoordinator::default();
        let mut recs = Vec::new();
        let mut r = join_req("", "a");
        r.instance_id = Some("inst".into());
        let a = now_outcome(c.join(r.clone(), 0, &mut recs));
        assert_eq!(a.error, 0, "a static member gets no MEMBER_ID_REQUIRED");
        assert!(a.member_id.starts_with("inst-"), "{}", a.member_id);
        now_outcome(c.sync(
            "g",
            1,
            &a.member_id,
            vec![(a.member_id.clone(), vec![7])],
            1,
            &mut recs,
        ));
        let before = recs.len();
        let b = now_outcome(c.join(r.clone(), 2, &mut recs));
        assert_eq!(
            (b.error, b.generation),
            (0, 1),
            "same generation: no rebalance"
        );
        assert!(b.skip_assignment, "the leader keeps the assignment");
        assert_eq!(b.leader, b.member_id);
        assert_eq!(
            recs.len(),
            before + 1,
            "the group is persisted with the new member id"
        );
        let g = c.group("g").unwrap();
        assert_eq!(g.state, GroupState::Stable);
        assert_eq!(g.members.len(), 1);
        assert_eq!(g.members[0].assignment, vec![7]);
        assert!(c.is_fenced("g", Some("inst"), &a.member_id));
        assert!(!c.is_fenced("g", Some("inst"), &b.member_id));
        let synced = now_outcome(c.sync("g", 1, &b.member_id, vec![], 3, &mut recs));
        assert_eq!(synced.assignment, vec![7]);
        // The old id, with its instance id, is fenced at join too.
        let mut old = r;
        old.member_id = a.member_id.clone();
        let e = now_outcome(c.join(old, 4, &mut recs));
        assert_eq!(e.error, ResponseError::FencedInstanceId.code());
    }

    #[test]
    fn simple_and_transactional_commits() {
        let mut c = GroupCoordinator::default();
        let mut recs = Vec::new();
        let p = CommitPartition {
            topic: "t".into(),
            partition: 1,
            offset: 5,
            leader_epoch: -1,
            metadata: Some("m".into()),
            topic_id: None,
        };
        assert_eq!(
            c.commit("s", "", -1, std::slice::from_ref(&p), None, 0, &mut recs)
                .unwrap(),
            vec![0]
        );
        c.txn_commit("s", 77, &[CommitPartition { offset: 9, ..p }], 1, &mut recs);
        assert_eq!(
            c.fetch_offset("s", "t", 1, true).3,
            ResponseError::UnstableOffsetCommit.code()
        );
        assert_eq!(c.fetch_offset("s", "t", 1, false).0, 5);
        c.complete_txn(77, true);
        assert_eq!(c.fetch_offset("s", "t", 1, true).0, 9);
    }
}
