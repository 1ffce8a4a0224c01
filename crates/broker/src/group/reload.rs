//! Rebuilding a classic group from its GroupMetadata record at start-up.

use super::*;

impl GroupCoordinator {
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
