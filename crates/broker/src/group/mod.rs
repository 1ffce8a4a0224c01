//! The classic group coordinator: JoinGroup/SyncGroup/Heartbeat/LeaveGroup state machine and
//! committed offsets, producing the records Kafka 4.x writes to `__consumer_offsets`:
//! an empty GroupMetadata record when a group is created, a full one when the leader's
//! assignment makes the group Stable, an empty one (next generation) when the last member
//! leaves; and an OffsetCommit record per committed partition.
//!
//! The coordinator itself never touches files: every call returns the records to append, and
//! the broker appends them to the group's partition before answering.
//!
//! Here the group, its members and the coordinator's state; `join_sync` (the rebalance
//! protocol), `offsets` (committed offsets) and `reload` (rebuilding groups from
//! `__consumer_offsets`).

mod join_sync;
mod offsets;
mod reload;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kafka_protocol::ResponseError;
use tokio::sync::oneshot;

use super::records::{
    group_metadata_key, group_metadata_value, offset_commit_key, offset_commit_value, offset_value,
};
use kseg_format::coordinator::{
    parse_consumer_subscription, GroupMember, GroupMetadata, OffsetCommitValue,
};

/// Kafka's bounds (`group.min.session.timeout.ms`, `group.max.session.timeout.ms`).
pub const MIN_SESSION_TIMEOUT_MS: i32 = 6_000;
pub const MAX_SESSION_TIMEOUT_MS: i32 = 1_800_000;
/// `ConsumerProtocol.PROTOCOL_TYPE`.
const CONSUMER_PROTOCOL_TYPE: &str = "consumer";
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

    /// `ClassicGroup.subscribedTopics`: the topics of the members' ConsumerProtocolSubscription
    /// for the chosen protocol, when the protocol type is `consumer` (none for an empty group);
    /// `None` when it cannot be known (another protocol type, no protocol chosen yet, a
    /// subscription that does not parse).
    fn subscribed_topics(&self) -> Option<BTreeSet<String>> {
        if self.protocol_type.as_deref() != Some(CONSUMER_PROTOCOL_TYPE) {
            return None;
        }
        if self.members.is_empty() {
            return Some(BTreeSet::new());
        }
        let protocol = self.protocol.as_ref()?;
        let mut topics = BTreeSet::new();
        for m in &self.members {
            let (_, metadata) = m.protocols.iter().find(|(n, _)| n == protocol)?;
            topics.extend(parse_consumer_subscription(metadata).ok()?.topics);
        }
        Some(topics)
    }

    /// `ClassicGroup.isSubscribedToTopic`: when the topics cannot be known, a group using the
    /// consumer protocol counts as subscribed (to be safe), any other as not.
    pub fn is_subscribed_to(&self, topic: &str) -> bool {
        self.subscribed_topics().map_or(
            self.protocol_type.as_deref() == Some(CONSUMER_PROTOCOL_TYPE),
            |topics| topics.contains(topic),
        )
    }

    /// `ClassicGroup.validateOffsetDelete`: a group with members may have offsets deleted only
    /// when it uses the consumer protocol.
    pub fn validate_offset_delete(&self) -> Result<(), ResponseError> {
        if self.state != GroupState::Empty
            && self.protocol_type.as_deref() != Some(CONSUMER_PROTOCOL_TYPE)
        {
            return Err(ResponseError::NonEmptyGroup);
        }
        Ok(())
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
}
