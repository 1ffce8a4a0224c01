//! ConsumerGroupHeartbeat (`GroupMetadataManager.consumerGroupHeartbeat`): the request's
//! checks, the member's epoch check, its metadata, the group epoch, the target assignment and
//! the member's reconciliation; and leaving (epoch -1, or -2 for a static member).

use super::*;

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

impl ConsumerGroups {
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
        group.put(member.clone());
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
        group.put(updated);
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
            if let Some(mut m) = group.take(&id) {
                m.previous_epoch = m.epoch;
                m.epoch = STATIC_LEAVE_EPOCH;
                records.push(m.current_record(&req.group_id));
                group.put(m);
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
}

/// A member id as Kafka's `Uuid.randomUuid().toString()` prints one (22 URL-safe base64
/// characters), for ConsumerGroupHeartbeat v0 where the coordinator picks it.
fn hex_uuid() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(crate::broker::files::random_uuid())
}
