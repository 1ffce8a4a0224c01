//! Reading partitions: Fetch (with its long poll), ListOffsets and OffsetForLeaderEpoch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;
use tokio::sync::{Notify, SemaphorePermit};

use crate::dispatch::Handled;
use crate::server::Shared;
use crate::BrokerError;

/// Kafka's `fetch.max.bytes` default: the most one fetch response carries (but for a first
/// batch larger than that).
pub const FETCH_MAX_BYTES: usize = 55 * 1024 * 1024;

/// The share of the response budget a fetch waits for when the budget is spent.
const BUDGET_SHARE: usize = 1024 * 1024;

/// Checks a client's view of the leader epoch (`current_leader_epoch`).
pub(crate) fn epoch_error(current: i32, ours: i32) -> i16 {
    if current < 0 || current == ours {
        0
    } else if current < ours {
        ResponseError::FencedLeaderEpoch.code()
    } else {
        ResponseError::UnknownLeaderEpoch.code()
    }
}

/// A fetch waiter's id, unique in the process.
fn next_waiter_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Fetch, with its long poll. The records read are charged to the response budget
/// ([`Shared::responses`]) until the response is written: a fetch reads at most what the
/// budget has left (nothing when it is spent: the answer then has no records, as a fetch that
/// found none), so clients that never read their answers cannot pin more than the budget. A
/// fetch that must wait registers with each partition it asks for and is woken by an append to
/// one of them only.
pub(crate) async fn fetch<'s>(
    shared: &'s Shared,
    req: FetchRequest,
    version: i16,
) -> Handled<(FetchResponse, Option<SemaphorePermit<'s>>)> {
    let deadline = Instant::now() + Duration::from_millis(req.max_wait_ms.clamp(0, 60_000) as u64);
    let committed = req.isolation_level == 1;
    // `fetch.max.bytes` caps what the request asks for (ReplicaManager.fetchMessages).
    let max_bytes = if version >= 3 && req.max_bytes > 0 {
        (req.max_bytes as usize).min(FETCH_MAX_BYTES)
    } else {
        FETCH_MAX_BYTES
    };
    let min_bytes = req.min_bytes.max(1) as usize;
    let waiter = Arc::new(Notify::new());
    let id = next_waiter_id();
    // The partitions this fetch is registered with while it waits.
    let mut registered: Vec<(String, i32)> = Vec::new();
    loop {
        // Under the lock: where each partition's bytes lie. The reads happen after it.
        let mut plans = Vec::new();
        let mut errors = false;
        let mut topics = Vec::new();
        {
            let mut b = shared.broker()?;
            for (topic, partition) in registered.drain(..) {
                if let Ok(log) = b.partition_mut(&topic, partition) {
                    log.waiters.remove(id);
                }
            }
            let mut names: Vec<(String, i32)> = Vec::new();
            for t in &req.topics {
                let (name, id) = if version >= 13 {
                    match b.topic_by_id(t.topic_id.as_bytes()) {
                        Some(topic) => (Some(topic.name.clone()), t.topic_id),
                        None => (None, t.topic_id),
                    }
                } else {
                    (Some(t.topic.as_str().to_string()), Default::default())
                };
                let mut parts = Vec::new();
                for p in &t.partitions {
                    let mut d = fetch_response::PartitionData::default()
                        .with_partition_index(p.partition)
                        .with_high_watermark(-1)
                        .with_aborted_transactions(None);
                    let Some(name) = &name else {
                        d.error_code = ResponseError::UnknownTopicId.code();
                        errors = true;
                        parts.push(d);
                        continue;
                    };
                    let log = match b.partition(name, p.partition) {
                        Ok(l) => l,
                        Err(e) => {
                            d.error_code = e.code();
                            errors = true;
                            parts.push(d);
                            continue;
                        }
                    };
                    let code = epoch_error(p.current_leader_epoch, log.leader_epoch);
                    if code != 0 {
                        d.error_code = code;
                        errors = true;
                        parts.push(d);
                        continue;
                    }
                    match log.plan_read(p.fetch_offset, committed) {
                        Ok(plan) => {
                            names.push((name.clone(), p.partition));
                            plans.push((
                                topics.len(),
                                parts.len(),
                                p.partition_max_bytes.max(0) as usize,
                                plan,
                            ))
                        }
                        Err(e) => {
                            // An offset out of range answers no offsets, as any read error
                            // does (ReplicaManager.createLogReadResult: UnknownOffset, -1).
                            d.error_code = e.code();
                            errors = true;
                        }
                    }
                    parts.push(d);
                }
                topics.push(
                    fetch_response::FetchableTopicResponse::default()
                        .with_topic(if version >= 13 {
                            Default::default()
                        } else {
                            t.topic.clone()
                        })
                        .with_topic_id(id)
                        .with_partitions(parts),
                );
            }
            // Too little to answer yet: wait for an append to one of these partitions,
            // registered before the lock is released so that no append is missed.
            let available: usize = plans.iter().map(|(_, _, _, p)| p.available()).sum();
            if !errors && available < min_bytes && Instant::now() < deadline {
                for (topic, partition) in names {
                    if let Ok(log) = b.partition_mut(&topic, partition) {
                        log.waiters.add(id, waiter.clone());
                        registered.push((topic, partition));
                    }
                }
            }
        }
        if !registered.is_empty() {
            let now = Instant::now();
            let _ =
                tokio::time::timeout(deadline.saturating_duration_since(now), waiter.notified())
                    .await;
            continue;
        }
        // The records' share of the response budget: what is left of it, up to max_bytes.
        let wanted: usize = plans
            .iter()
            .map(|(_, _, _, p)| p.available())
            .sum::<usize>()
            .min(max_bytes);
        let grant = wanted.min(shared.responses.available_permits()) as u32;
        let mut permit = match shared.responses.try_acquire_many(grant) {
            Ok(p) if grant > 0 => Some(p),
            _ => None,
        };
        if permit.is_none() && wanted > 0 {
            // The budget is spent (by answers their clients have not read yet): wait for a
            // first share of it until the fetch's deadline, then answer with what it got.
            let first = wanted.min(BUDGET_SHARE) as u32;
            let left = deadline.saturating_duration_since(Instant::now());
            if let Ok(Ok(p)) =
                tokio::time::timeout(left, shared.responses.acquire_many(first)).await
            {
                permit = Some(p);
            }
        }
        let granted = permit.as_ref().map_or(0, |p| p.num_permits());
        let mut total = 0usize;
        for (ti, pi, partition_max, plan) in plans {
            let d = &mut topics[ti].partitions[pi];
            let budget = partition_max.min(granted.saturating_sub(total));
            // The first batch of the response is returned even when it is larger than the
            // limits (KIP-74) — when the budget granted anything.
            let budget = if total == 0 && granted > 0 {
                budget.max(1)
            } else {
                budget
            };
            match plan.execute(budget) {
                Ok(r) => {
                    total += r.records.len();
                    d.records = Some(Bytes::from(r.records));
                    d.high_watermark = r.high_watermark;
                    d.last_stable_offset = r.last_stable_offset;
                    d.log_start_offset = r.log_start_offset;
                    d.aborted_transactions = r.aborted.map(|a| {
                        a.into_iter()
                            .map(|(pid, first)| {
                                fetch_response::AbortedTransaction::default()
                                    .with_producer_id(pid.into())
                                    .with_first_offset(first)
                            })
                            .collect()
                    });
                }
                Err(e) => {
                    eprintln!("kseg mini-broker: reading a fetch failed: {e}");
                    d.error_code = ResponseError::KafkaStorageError.code();
                }
            }
        }
        // The first batch may pass what was granted: it is charged too, when the budget has it.
        if total > granted {
            let more = shared
                .responses
                .try_acquire_many((total - granted).min(u32::MAX as usize) as u32);
            match (&mut permit, more) {
                (Some(p), Ok(m)) => p.merge(m),
                (None, Ok(m)) => permit = Some(m),
                _ => {}
            }
        } else if let Some(p) = &mut permit {
            // Give back what was not read.
            if let Some(unused) = p.split(granted - total) {
                drop(unused);
            }
        }
        return Ok((FetchResponse::default().with_responses(topics), permit));
    }
}

pub(crate) fn list_offsets(
    shared: &Shared,
    req: ListOffsetsRequest,
    version: i16,
) -> Handled<ListOffsetsResponse> {
    let mut b = shared.broker()?;
    let committed = req.isolation_level == 1;
    let mut topics = Vec::new();
    for t in req.topics {
        let name = t.name.as_str().to_string();
        let mut parts = Vec::new();
        for p in t.partitions {
            let mut r = list_offsets_response::ListOffsetsPartitionResponse::default()
                .with_partition_index(p.partition_index)
                .with_timestamp(-1)
                .with_offset(-1)
                .with_leader_epoch(-1);
            let log = match b.partition_mut(&name, p.partition_index) {
                Ok(l) => l,
                Err(e) => {
                    r.error_code = e.code();
                    parts.push(r);
                    continue;
                }
            };
            r.error_code = epoch_error(p.current_leader_epoch, log.leader_epoch);
            if r.error_code != 0 {
                parts.push(r);
                continue;
            }
            let latest_epoch = log.epochs().last().map_or(-1, |e| e.epoch);
            match p.timestamp {
                -1 => {
                    r.offset = if committed {
                        log.last_stable_offset()
                    } else {
                        log.high_watermark()
                    };
                    r.leader_epoch = latest_epoch;
                }
                -2 | -4 => {
                    r.offset = log.log_start_offset;
                    // UnifiedLog.fetchOffsetByTimestamp: the earliest epoch-cache entry, when
                    // it starts at or before the log start (also on an empty partition).
                    r.leader_epoch = log
                        .epochs()
                        .first()
                        .filter(|e| e.start_offset <= log.log_start_offset)
                        .map_or(-1, |e| e.epoch);
                }
                -5 => {}
                ts => {
                    let found = if ts == -3 {
                        log.max_timestamp_offset()
                    } else {
                        log.offset_for_timestamp(ts)
                    };
                    // ReplicaManager.fetchOffsets: an offset at or past the last fetchable one
                    // (the LSO for read_committed, else the HW) answers "none".
                    let fetchable = if committed {
                        log.last_stable_offset()
                    } else {
                        log.high_watermark()
                    };
                    match found {
                        Ok(Some((offset, timestamp, epoch))) if offset < fetchable => {
                            r.offset = offset;
                            r.timestamp = timestamp;
                            r.leader_epoch = epoch;
                        }
                        Ok(_) => {}
                        Err(e) => r.error_code = BrokerError::Io(e).code(),
                    }
                }
            }
            if version < 4 {
                r.leader_epoch = -1;
            }
            parts.push(r);
        }
        topics.push(
            list_offsets_response::ListOffsetsTopicResponse::default()
                .with_name(t.name)
                .with_partitions(parts),
        );
    }
    Ok(ListOffsetsResponse::default().with_topics(topics))
}

pub(crate) fn offset_for_leader_epoch(
    shared: &Shared,
    req: OffsetForLeaderEpochRequest,
) -> Handled<OffsetForLeaderEpochResponse> {
    let b = shared.broker()?;
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let name = t.topic.as_str().to_string();
            let parts = t
                .partitions
                .into_iter()
                .map(|p| {
                    let mut r = offset_for_leader_epoch_response::EpochEndOffset::default()
                        .with_partition(p.partition)
                        .with_leader_epoch(-1)
                        .with_end_offset(-1);
                    match b.partition(&name, p.partition) {
                        Err(e) => r.error_code = e.code(),
                        Ok(log) => {
                            r.error_code = epoch_error(p.current_leader_epoch, log.leader_epoch);
                            if r.error_code == 0 {
                                let (epoch, end) = log.end_offset_for_epoch(p.leader_epoch);
                                r.leader_epoch = epoch;
                                r.end_offset = end;
                            }
                        }
                    }
                    r
                })
                .collect();
            offset_for_leader_epoch_response::OffsetForLeaderTopicResult::default()
                .with_topic(t.topic)
                .with_partitions(parts)
        })
        .collect();
    Ok(OffsetForLeaderEpochResponse::default().with_topics(topics))
}
