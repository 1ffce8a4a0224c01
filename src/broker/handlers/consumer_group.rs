//! KIP-848: ConsumerGroupHeartbeat (the coordinator is [`crate::broker::consumer_group`]) and
//! ConsumerGroupDescribe.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::GROUP_OPERATIONS;
use super::{str_bytes, uuid};
use crate::broker::consumer_group::{Assignment, Heartbeat};
use crate::broker::dispatch::Handled;
use crate::broker::server::Shared;

pub(crate) fn heartbeat(
    shared: &Shared,
    req: ConsumerGroupHeartbeatRequest,
    version: i16,
    client_id: String,
    peer: SocketAddr,
) -> Handled<ConsumerGroupHeartbeatResponse> {
    let owned = req.topic_partitions.as_ref().map(|list| {
        let mut a = Assignment::new();
        for t in list {
            a.entry(*t.topic_id.as_bytes())
                .or_default()
                .extend(t.partitions.iter().copied());
        }
        a
    });
    let hb = Heartbeat {
        version,
        group_id: req.group_id.as_str().to_string(),
        member_id: req.member_id.as_str().to_string(),
        member_epoch: req.member_epoch,
        instance_id: req.instance_id.as_ref().map(|v| v.as_str().to_string()),
        rack_id: req.rack_id.as_ref().map(|v| v.as_str().to_string()),
        rebalance_timeout_ms: req.rebalance_timeout_ms,
        subscribed_topic_names: req
            .subscribed_topic_names
            .as_ref()
            .map(|n| n.iter().map(|t| t.as_str().to_string()).collect()),
        subscribed_topic_regex: req
            .subscribed_topic_regex
            .as_ref()
            .map(|v| v.as_str().to_string()),
        server_assignor: req.server_assignor.as_ref().map(|v| v.as_str().to_string()),
        owned,
        client_id,
        client_host: format!("/{}", peer.ip()),
    };
    let mut b = shared.broker()?;
    let out = match b.consumer_group_heartbeat(hb) {
        Ok(out) => out,
        Err(e) => crate::broker::consumer_group::HeartbeatOutcome {
            error: e.code(),
            message: Some(e.to_string()),
            ..Default::default()
        },
    };
    drop(b);
    let mut resp = ConsumerGroupHeartbeatResponse::default()
        .with_error_code(out.error)
        .with_error_message(out.message.as_deref().map(str_bytes))
        .with_member_epoch(out.member_epoch)
        .with_heartbeat_interval_ms(out.heartbeat_interval_ms);
    if out.error == 0 {
        resp.member_id = Some(str_bytes(&out.member_id));
        resp.assignment = out.assignment.map(|a| {
            consumer_group_heartbeat_response::Assignment::default().with_topic_partitions(
                a.into_iter()
                    .map(|(id, parts)| {
                        consumer_group_heartbeat_response::TopicPartitions::default()
                            .with_topic_id(uuid(id))
                            .with_partitions(parts)
                    })
                    .collect(),
            )
        });
    }
    Ok(resp)
}

pub(crate) fn describe(
    shared: &Shared,
    req: ConsumerGroupDescribeRequest,
) -> Handled<ConsumerGroupDescribeResponse> {
    use consumer_group_describe_response as r;
    let b = shared.broker()?;
    let names: BTreeMap<[u8; 16], String> = b.topics().map(|t| (t.id, t.name.clone())).collect();
    let listed = |a: &Assignment| -> r::Assignment {
        r::Assignment::default().with_topic_partitions(
            a.iter()
                .filter(|(_, p)| !p.is_empty())
                .map(|(id, p)| {
                    r::TopicPartitions::default()
                        .with_topic_id(uuid(*id))
                        .with_topic_name(TopicName(str_bytes(
                            names.get(id).map(String::as_str).unwrap_or(""),
                        )))
                        .with_partitions(p.iter().copied().collect())
                })
                .collect(),
        )
    };
    let groups = req
        .group_ids
        .iter()
        .map(|id| {
            let mut d = r::DescribedGroup::default()
                .with_group_id(id.clone())
                .with_authorized_operations(if req.include_authorized_operations {
                    GROUP_OPERATIONS
                } else {
                    i32::MIN
                });
            let Some(g) = b.consumer_groups.group(id.as_str()) else {
                d.error_code = ResponseError::GroupIdNotFound.code();
                d.group_state = str_bytes("Dead");
                d.error_message = Some(str_bytes(&if b.groups.group(id.as_str()).is_some() {
                    format!("Group {} is not a consumer group.", id.as_str())
                } else {
                    format!("Group {} not found.", id.as_str())
                }));
                return d;
            };
            d.group_state = str_bytes(g.state());
            d.group_epoch = g.epoch;
            d.assignment_epoch = g.assignment_epoch;
            d.assignor_name = str_bytes(g.assignor());
            d.members = g
                .members()
                .values()
                .map(|m| {
                    let current: Assignment = m
                        .assigned
                        .iter()
                        .map(|(t, p)| (*t, p.keys().copied().collect()))
                        .collect();
                    r::Member::default()
                        .with_member_id(str_bytes(&m.id))
                        .with_instance_id(m.meta.instance_id.as_deref().map(str_bytes))
                        .with_rack_id(m.meta.rack_id.as_deref().map(str_bytes))
                        .with_member_epoch(m.epoch)
                        .with_client_id(str_bytes(&m.meta.client_id))
                        .with_client_host(str_bytes(&m.meta.client_host))
                        .with_subscribed_topic_names(
                            m.meta
                                .subscribed_topic_names
                                .iter()
                                .map(|t| TopicName(str_bytes(t)))
                                .collect(),
                        )
                        .with_subscribed_topic_regex(
                            m.meta
                                .subscribed_topic_regex
                                .as_deref()
                                .filter(|r| !r.is_empty())
                                .map(str_bytes),
                        )
                        .with_assignment(listed(&current))
                        .with_target_assignment(listed(
                            g.target.get(&m.id).unwrap_or(&Assignment::new()),
                        ))
                        .with_member_type(1)
                })
                .collect();
            d
        })
        .collect();
    Ok(ConsumerGroupDescribeResponse::default().with_groups(groups))
}
