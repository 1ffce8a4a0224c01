//! Group offsets: OffsetCommit, OffsetFetch and OffsetDelete (classic and KIP-848 groups keep
//! their offsets in one store, [`crate::group`]).

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;

use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::ResponseError;

use super::{str_bytes, topic_name};
use crate::core::Broker;
use crate::dispatch::{Handled, RequestError};
use crate::frame::Repeated;
use crate::group::CommitPartition;
use crate::now_ms;
use crate::server::Shared;

pub(crate) fn offset_commit(
    shared: &Shared,
    req: OffsetCommitRequest,
    version: i16,
) -> Handled<OffsetCommitResponse> {
    let mut b = shared.broker()?;
    let group = req.group_id.as_str().to_string();
    // KafkaApis.handleOffsetCommitRequest: a partition that does not exist is
    // UNKNOWN_TOPIC_OR_PARTITION and never reaches the coordinator; when none is left, the
    // coordinator (and its member checks) is not asked at all.
    let mut partitions = Vec::new();
    let mut exists = Vec::new();
    for t in &req.topics {
        for p in &t.partitions {
            let epoch = if version >= 6 {
                p.committed_leader_epoch
            } else {
                -1
            };
            let known = b.partition(t.name.as_str(), p.partition_index).is_ok();
            exists.push(known);
            if known {
                let offset = (p.partition_index, p.committed_offset, epoch);
                partitions.push(commit_partition(&b, &t.name, offset, &p.committed_metadata));
            }
        }
    }
    let expire =
        (version <= 4 && req.retention_time_ms >= 0).then(|| now_ms() + req.retention_time_ms);
    let fenced = !partitions.is_empty()
        && b.groups.is_fenced(
            &group,
            req.group_instance_id.as_ref().map(|i| i.as_str()),
            req.member_id.as_str(),
        );
    let unknown = ResponseError::UnknownTopicOrPartition.code();
    // A refusal of the whole request (OffsetCommitRequest.getErrorResponse) covers every
    // partition asked, the unknown ones too.
    let codes: Vec<i16> = if fenced {
        vec![ResponseError::FencedInstanceId.code(); exists.len()]
    } else if partitions.is_empty() {
        vec![unknown; exists.len()]
    } else {
        match b.commit_offsets(
            &group,
            req.member_id.as_str(),
            req.generation_id_or_member_epoch,
            &partitions,
            expire,
            version,
        ) {
            Ok(codes) => {
                let mut codes = codes.into_iter();
                exists
                    .iter()
                    .map(|&known| {
                        if known {
                            codes.next().unwrap_or(0)
                        } else {
                            unknown
                        }
                    })
                    .collect()
            }
            Err(e) => vec![e.code(); exists.len()],
        }
    };
    let mut codes = codes.into_iter();
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let parts = t
                .partitions
                .iter()
                .map(|p| {
                    offset_commit_response::OffsetCommitResponsePartition::default()
                        .with_partition_index(p.partition_index)
                        .with_error_code(codes.next().unwrap_or(0))
                })
                .collect();
            offset_commit_response::OffsetCommitResponseTopic::default()
                .with_name(t.name)
                .with_partitions(parts)
        })
        .collect();
    Ok(OffsetCommitResponse::default().with_topics(topics))
}

/// OffsetDelete (`kafka-consumer-groups --delete-offsets`, `Admin.deleteConsumerGroupOffsets`):
/// a group-level refusal is the top-level error with no topics, as Kafka's
/// `OffsetDeleteRequest.getErrorResponse` answers.
pub(crate) fn offset_delete(
    shared: &Shared,
    req: OffsetDeleteRequest,
) -> Handled<OffsetDeleteResponse> {
    let mut b = shared.broker()?;
    let topics: Vec<(String, Vec<i32>)> = req
        .topics
        .iter()
        .map(|t| {
            let partitions = t.partitions.iter().map(|p| p.partition_index).collect();
            (t.name.as_str().to_string(), partitions)
        })
        .collect();
    let codes = match b.delete_offsets(req.group_id.as_str(), &topics) {
        Ok(codes) => codes,
        Err(e) => return Ok(OffsetDeleteResponse::default().with_error_code(e.code())),
    };
    let topics = req
        .topics
        .into_iter()
        .zip(codes)
        .map(|(t, codes)| {
            let partitions = t
                .partitions
                .iter()
                .zip(codes)
                .map(|(p, code)| {
                    offset_delete_response::OffsetDeleteResponsePartition::default()
                        .with_partition_index(p.partition_index)
                        .with_error_code(code)
                })
                .collect();
            offset_delete_response::OffsetDeleteResponseTopic::default()
                .with_name(t.name)
                .with_partitions(partitions)
        })
        .collect();
    Ok(OffsetDeleteResponse::default().with_topics(topics))
}

/// One partition of an OffsetCommit or TxnOffsetCommit request, as the group coordinator
/// takes it: `(partition, offset, leader epoch)` and the metadata.
pub(super) fn commit_partition(
    b: &Broker,
    topic: &TopicName,
    (partition, offset, leader_epoch): (i32, i64, i32),
    metadata: &Option<StrBytes>,
) -> CommitPartition {
    CommitPartition {
        topic: topic.as_str().to_string(),
        partition,
        offset,
        leader_epoch,
        metadata: metadata.as_ref().map(|m| m.as_str().to_string()),
        topic_id: b.topic(topic.as_str()).map(|t| t.id),
    }
}

/// A group's committed offset of one partition, as an OffsetFetch response carries it.
struct Committed {
    partition: i32,
    offset: i64,
    leader_epoch: i32,
    metadata: String,
    error_code: i16,
}

/// Committed offsets of one group for the requested topics (None = every committed one).
fn group_offsets(
    b: &Broker,
    group: &str,
    topics: Option<Vec<(String, Vec<i32>)>>,
    stable: bool,
) -> Vec<(String, Vec<Committed>)> {
    let topics = topics.unwrap_or_else(|| {
        let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
        for (t, p) in b.groups.committed_partitions(group) {
            by_topic.entry(t).or_default().push(p);
        }
        by_topic.into_iter().collect()
    });
    topics
        .into_iter()
        .map(|(t, ps)| {
            let parts = ps
                .into_iter()
                .map(|partition| {
                    let (offset, leader_epoch, metadata, error_code) =
                        b.groups.fetch_offset(group, &t, partition, stable);
                    Committed {
                        partition,
                        offset,
                        leader_epoch,
                        metadata,
                        error_code,
                    }
                })
                .collect();
            (t, parts)
        })
        .collect()
}

/// The response topics of [`group_offsets`]: OffsetFetch v0-v7 (one group) and v8+ (per group)
/// have the same fields under other type names.
macro_rules! fetched_topics {
    ($topic:ident, $partition:ident, $fetched:expr) => {
        $fetched
            .into_iter()
            .map(|(name, partitions)| {
                offset_fetch_response::$topic::default()
                    .with_name(topic_name(&name))
                    .with_partitions(
                        partitions
                            .into_iter()
                            .map(|c: Committed| {
                                offset_fetch_response::$partition::default()
                                    .with_partition_index(c.partition)
                                    .with_committed_offset(c.offset)
                                    .with_committed_leader_epoch(c.leader_epoch)
                                    .with_metadata(Some(str_bytes(&c.metadata)))
                                    .with_error_code(c.error_code)
                            })
                            .collect(),
                    )
            })
            .collect()
    };
}

/// OffsetFetch. v8+ answers each group asked, in order, as Kafka does, but a group asked many
/// times (the same member, epoch and topics) is looked up and encoded once: its answer's bytes
/// are repeated ([`Repeated`]), never built again.
pub(crate) fn offset_fetch(
    shared: &Shared,
    req: OffsetFetchRequest,
    version: i16,
) -> Handled<Result<OffsetFetchResponse, Repeated>> {
    let b = shared.broker()?;
    if version >= 8 {
        type Key = (String, Option<String>, i32, Option<Vec<(String, Vec<i32>)>>);
        let mut cache: HashMap<Key, Bytes> = HashMap::new();
        let mut elements = Vec::with_capacity(req.groups.len());
        for g in req.groups {
            let topics: Option<Vec<(String, Vec<i32>)>> = g.topics.map(|ts| {
                ts.into_iter()
                    .map(|t| (t.name.as_str().to_string(), t.partition_indexes))
                    .collect()
            });
            let member = g.member_id.as_ref().map(|m| m.as_str().to_string());
            let key: Key = (
                g.group_id.as_str().to_string(),
                member.clone(),
                g.member_epoch,
                topics.clone(),
            );
            let element = Repeated::element(&mut cache, key, version, || {
                // v9: a KIP-848 member's fetch names it and its epoch (`validateOffsetFetch`).
                let member = member.as_deref().unwrap_or("");
                let refused =
                    b.consumer_groups
                        .validate_fetch(g.group_id.as_str(), member, g.member_epoch);
                if let Err(e) = refused {
                    return offset_fetch_response::OffsetFetchResponseGroup::default()
                        .with_group_id(g.group_id.clone())
                        .with_error_code(e.code());
                }
                let fetched = group_offsets(&b, g.group_id.as_str(), topics, req.require_stable);
                offset_fetch_response::OffsetFetchResponseGroup::default()
                    .with_group_id(g.group_id.clone())
                    .with_topics(fetched_topics!(
                        OffsetFetchResponseTopics,
                        OffsetFetchResponsePartitions,
                        fetched
                    ))
            })
            .map_err(|source| RequestError::Encode {
                key: ApiKey::OffsetFetch,
                version,
                source,
            })?;
            elements.push(element);
        }
        return Ok(Err(Repeated::of(true, elements)));
    }
    let topics = req.topics.map(|ts| {
        ts.into_iter()
            .map(|t| (t.name.as_str().to_string(), t.partition_indexes))
            .collect()
    });
    let fetched = group_offsets(
        &b,
        req.group_id.as_str(),
        topics,
        version >= 7 && req.require_stable,
    );
    Ok(Ok(OffsetFetchResponse::default().with_topics(
        fetched_topics!(
            OffsetFetchResponseTopic,
            OffsetFetchResponsePartition,
            fetched
        ),
    )))
}
