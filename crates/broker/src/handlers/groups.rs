//! Classic groups (the coordinator is [`crate::group`]): JoinGroup, SyncGroup,
//! Heartbeat, LeaveGroup, DescribeGroups, ListGroups, and DeleteGroups (of KIP-848 groups too).

use std::net::SocketAddr;

use bytes::Bytes;
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::ResponseError;

use super::{str_bytes, GROUP_OPERATIONS};
use crate::core::Broker;
use crate::dispatch::{Handled, RequestError};
use crate::group::{CoordinatorRecord, JoinRequest, Pending};
use crate::now_ms;
use crate::server::Shared;

pub(crate) fn delete_groups(
    shared: &Shared,
    req: DeleteGroupsRequest,
) -> Handled<DeleteGroupsResponse> {
    let mut b = shared.broker()?;
    let mut results = Vec::new();
    for id in req.groups_names {
        let group = id.as_str().to_string();
        let mut records = Vec::new();
        // A KIP-848 group: its offsets' tombstones, then its own (no GroupMetadata record).
        let mut own = Vec::new();
        let consumer = b.consumer_groups.delete_group(&group, &mut own);
        let result = match consumer {
            Some(Err(e)) => Err(e),
            Some(Ok(())) => {
                let mut offsets = Vec::new();
                let _ = b.groups.delete_group(&group, &mut offsets);
                records.extend(
                    offsets
                        .into_iter()
                        .filter(|(k, _)| k[..2] == 1i16.to_be_bytes()),
                );
                records.extend(own);
                Ok(())
            }
            None => b.groups.delete_group(&group, &mut records),
        };
        let code = match result {
            Err(e) => e.code(),
            Ok(()) => match b.write_group_records(&group, &records) {
                Ok(()) => 0,
                Err(e) => e.code(),
            },
        };
        results.push(
            delete_groups_response::DeletableGroupResult::default()
                .with_group_id(id)
                .with_error_code(code),
        );
    }
    Ok(DeleteGroupsResponse::default().with_results(results))
}

/// Appends group records for `group`; errors are reported, the group state stands.
fn write_group(b: &mut Broker, group: &str, records: &[CoordinatorRecord]) {
    if let Err(e) = b.write_group_records(group, records) {
        eprintln!(
            "kseg mini-broker: writing group {} state failed: {e}",
            kseg_escape::escaped(group)
        );
    }
}

pub(crate) async fn join_group(
    shared: &Shared,
    req: JoinGroupRequest,
    version: i16,
    client_id: String,
    peer: SocketAddr,
) -> Handled<JoinGroupResponse> {
    let group = req.group_id.as_str().to_string();
    let pending = {
        let mut b = shared.broker()?;
        let mut records = Vec::new();
        let now = now_ms();
        let _ = b.group_partition(&group);
        // A KIP-848 group: an empty one gives way (its tombstones, as
        // `maybeDeleteEmptyConsumerGroup`); one with members is refused (no online migration).
        if let Some(Err(_)) = b.consumer_groups.delete_group(&group, &mut records) {
            return Ok(JoinGroupResponse::default()
                .with_error_code(ResponseError::InconsistentGroupProtocol.code())
                .with_generation_id(-1)
                .with_protocol_name((version < 7).then(|| str_bytes("")))
                .with_member_id(req.member_id));
        }
        let pending = b.groups.join(
            JoinRequest {
                group_id: group.clone(),
                member_id: req.member_id.as_str().to_string(),
                instance_id: req.group_instance_id.map(|i| i.as_str().to_string()),
                protocol_type: req.protocol_type.as_str().to_string(),
                protocols: req
                    .protocols
                    .iter()
                    .map(|p| (p.name.as_str().to_string(), p.metadata.to_vec()))
                    .collect(),
                session_timeout_ms: req.session_timeout_ms,
                rebalance_timeout_ms: if version >= 1 {
                    req.rebalance_timeout_ms
                } else {
                    req.session_timeout_ms
                },
                client_id,
                client_host: format!("/{}", peer.ip()),
                require_known_member_id: version >= 4,
                supports_skip_assignment: version >= 9,
            },
            now,
            &mut records,
        );
        write_group(&mut b, &group, &records);
        pending
    };
    let outcome = match pending {
        Pending::Now(o) => o,
        Pending::Later(rx) => rx.await.map_err(|_| RequestError::Dropped("join"))?,
    };
    let name_required = version < 7;
    Ok(JoinGroupResponse::default()
        .with_error_code(outcome.error)
        .with_generation_id(outcome.generation)
        .with_protocol_type(outcome.protocol_type.map(|p| str_bytes(&p)))
        .with_protocol_name(match outcome.protocol_name {
            Some(p) => Some(str_bytes(&p)),
            None if name_required => Some(str_bytes("")),
            None => None,
        })
        .with_leader(str_bytes(&outcome.leader))
        .with_skip_assignment(outcome.skip_assignment)
        .with_member_id(str_bytes(&outcome.member_id))
        .with_members(
            outcome
                .members
                .into_iter()
                .map(|(id, instance, meta)| {
                    join_group_response::JoinGroupResponseMember::default()
                        .with_member_id(str_bytes(&id))
                        .with_group_instance_id(instance.map(|i| str_bytes(&i)))
                        .with_metadata(Bytes::from(meta))
                })
                .collect(),
        ))
}

pub(crate) async fn sync_group(
    shared: &Shared,
    req: SyncGroupRequest,
) -> Handled<SyncGroupResponse> {
    let group = req.group_id.as_str().to_string();
    // GroupCoordinatorService: an empty group id, before the coordinator is asked.
    if group.is_empty() {
        return Ok(
            SyncGroupResponse::default().with_error_code(ResponseError::InvalidGroupId.code())
        );
    }
    let pending = {
        let mut b = shared.broker()?;
        if b.groups.is_fenced(
            &group,
            req.group_instance_id.as_ref().map(|i| i.as_str()),
            req.member_id.as_str(),
        ) {
            return Ok(SyncGroupResponse::default()
                .with_error_code(ResponseError::FencedInstanceId.code()));
        }
        // validateSyncGroup: after the member and generation checks (the coordinator's), a
        // protocol type or name the request gives must be the group's.
        let inconsistent = |asked: &Option<StrBytes>, ours: &Option<String>| match (asked, ours) {
            (Some(asked), Some(ours)) => asked.as_str() != ours,
            _ => false,
        };
        let refused = b.groups.group(&group).is_some_and(|g| {
            g.generation == req.generation_id
                && g.members.iter().any(|m| m.id == req.member_id.as_str())
                && (inconsistent(&req.protocol_type, &g.protocol_type)
                    || inconsistent(&req.protocol_name, &g.protocol))
        });
        if refused {
            return Ok(SyncGroupResponse::default()
                .with_error_code(ResponseError::InconsistentGroupProtocol.code()));
        }
        let mut records = Vec::new();
        let pending = b.groups.sync(
            &group,
            req.generation_id,
            req.member_id.as_str(),
            req.assignments
                .iter()
                .map(|a| (a.member_id.as_str().to_string(), a.assignment.to_vec()))
                .collect(),
            now_ms(),
            &mut records,
        );
        write_group(&mut b, &group, &records);
        pending
    };
    let outcome = match pending {
        Pending::Now(o) => o,
        Pending::Later(rx) => rx.await.map_err(|_| RequestError::Dropped("sync"))?,
    };
    Ok(SyncGroupResponse::default()
        .with_error_code(outcome.error)
        .with_protocol_type(outcome.protocol_type.map(|p| str_bytes(&p)))
        .with_protocol_name(outcome.protocol_name.map(|p| str_bytes(&p)))
        .with_assignment(Bytes::from(outcome.assignment)))
}

pub(crate) fn heartbeat(shared: &Shared, req: HeartbeatRequest) -> Handled<HeartbeatResponse> {
    if req.group_id.is_empty() {
        return Ok(
            HeartbeatResponse::default().with_error_code(ResponseError::InvalidGroupId.code())
        );
    }
    let mut b = shared.broker()?;
    let fenced = b.groups.is_fenced(
        req.group_id.as_str(),
        req.group_instance_id.as_ref().map(|i| i.as_str()),
        req.member_id.as_str(),
    );
    let code = if fenced {
        ResponseError::FencedInstanceId.code()
    } else {
        b.groups.heartbeat(
            req.group_id.as_str(),
            req.member_id.as_str(),
            req.generation_id,
            now_ms(),
        )
    };
    Ok(HeartbeatResponse::default().with_error_code(code))
}

pub(crate) fn leave_group(
    shared: &Shared,
    req: LeaveGroupRequest,
    version: i16,
) -> Handled<LeaveGroupResponse> {
    let group = req.group_id.as_str().to_string();
    if group.is_empty() {
        return Ok(
            LeaveGroupResponse::default().with_error_code(ResponseError::InvalidGroupId.code())
        );
    }
    let mut b = shared.broker()?;
    let ids: Vec<String> = if version >= 3 {
        req.members
            .iter()
            .map(|m| m.member_id.as_str().to_string())
            .collect()
    } else {
        vec![req.member_id.as_str().to_string()]
    };
    let mut records = Vec::new();
    let result = b.groups.leave(&group, &ids, now_ms(), &mut records);
    write_group(&mut b, &group, &records);
    Ok(match result {
        Err(e) => LeaveGroupResponse::default().with_error_code(e.code()),
        Ok(codes) => {
            let error = if version < 3 { codes[0] } else { 0 };
            LeaveGroupResponse::default()
                .with_error_code(error)
                .with_members(if version >= 3 {
                    req.members
                        .into_iter()
                        .zip(codes)
                        .map(|(m, code)| {
                            leave_group_response::MemberResponse::default()
                                .with_member_id(m.member_id)
                                .with_group_instance_id(m.group_instance_id)
                                .with_error_code(code)
                        })
                        .collect()
                } else {
                    Vec::new()
                })
        }
    })
}

pub(crate) fn describe_groups(
    shared: &Shared,
    req: DescribeGroupsRequest,
) -> Handled<DescribeGroupsResponse> {
    let b = shared.broker()?;
    let groups = req
        .groups
        .into_iter()
        .map(|id| {
            let mut d = describe_groups_response::DescribedGroup::default()
                .with_group_id(id.clone())
                .with_group_state(str_bytes("Dead"))
                .with_authorized_operations(if req.include_authorized_operations {
                    GROUP_OPERATIONS
                } else {
                    i32::MIN
                });
            // A KIP-848 group is no classic group: Kafka answers Dead (an error from v6).
            let classic = b
                .groups
                .group(id.as_str())
                .filter(|_| b.consumer_groups.group(id.as_str()).is_none());
            if let Some(g) = classic {
                d.group_state = str_bytes(g.state.name());
                d.protocol_type = str_bytes(g.protocol_type.as_deref().unwrap_or(""));
                d.protocol_data = str_bytes(g.protocol.as_deref().unwrap_or(""));
                d.members = g
                    .members
                    .iter()
                    .map(|m| {
                        let meta = g
                            .protocol
                            .as_ref()
                            .and_then(|p| m.protocols.iter().find(|(n, _)| n == p))
                            .map(|(_, meta)| meta.clone())
                            .unwrap_or_default();
                        describe_groups_response::DescribedGroupMember::default()
                            .with_member_id(str_bytes(&m.id))
                            .with_group_instance_id(m.instance_id.as_ref().map(|i| str_bytes(i)))
                            .with_client_id(str_bytes(&m.client_id))
                            .with_client_host(str_bytes(&m.client_host))
                            .with_member_metadata(Bytes::from(meta))
                            .with_member_assignment(Bytes::from(m.assignment.clone()))
                    })
                    .collect();
            }
            d
        })
        .collect();
    Ok(DescribeGroupsResponse::default().with_groups(groups))
}

pub(crate) fn list_groups(shared: &Shared, req: ListGroupsRequest) -> Handled<ListGroupsResponse> {
    let b = shared.broker()?;
    let listed = |id: &str, protocol_type: &str, state: &str, kind: &str| {
        list_groups_response::ListedGroup::default()
            .with_group_id(GroupId(str_bytes(id)))
            .with_protocol_type(str_bytes(protocol_type))
            .with_group_state(str_bytes(state))
            .with_group_type(str_bytes(kind))
    };
    // The classic entries of KIP-848 groups only hold their offsets.
    let mut groups: Vec<_> = b
        .groups
        .groups()
        .filter(|g| b.consumer_groups.group(&g.id).is_none())
        .map(|g| {
            listed(
                &g.id,
                g.protocol_type.as_deref().unwrap_or(""),
                g.state.name(),
                "classic",
            )
        })
        .chain(
            b.consumer_groups
                .groups()
                .map(|g| listed(&g.id, "consumer", g.state(), "consumer")),
        )
        .filter(|g| {
            (req.states_filter.is_empty()
                || req
                    .states_filter
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(&g.group_state)))
                && (req.types_filter.is_empty()
                    || req
                        .types_filter
                        .iter()
                        .any(|f| f.eq_ignore_ascii_case(&g.group_type)))
        })
        .collect();
    groups.sort_by(|a, b| a.group_id.as_str().cmp(b.group_id.as_str()));
    Ok(ListGroupsResponse::default().with_groups(groups))
}
