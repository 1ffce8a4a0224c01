//! The classic rebalance protocol: JoinGroup, SyncGroup, Heartbeat and LeaveGroup, session
//! timeouts, and the steps of a rebalance (`GroupMetadataManager`'s classic group state
//! machine: PreparingRebalance, CompletingRebalance, Stable, Empty).

use super::*;

impl GroupCoordinator {
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
        // validateClassicGroupHeartbeat: the member, then its generation, before the state;
        // only a valid heartbeat counts.
        if generation != current {
            return ResponseError::IllegalGeneration.code();
        }
        m.heartbeat_deadline = now + m.session_timeout_ms as i64;
        match state {
            GroupState::Empty => ResponseError::UnknownMemberId.code(),
            GroupState::PreparingRebalance => ResponseError::RebalanceInProgress.code(),
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
}

fn new_member_id(client_id: &str) -> String {
    let u = crate::files::random_uuid();
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
    let all = member_list(group);
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
