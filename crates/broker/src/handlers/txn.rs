//! Transactions (the coordinator is [`crate::txn`]): InitProducerId,
//! AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and EndTxn.

use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::offsets::commit_partition;
use crate::core::{Broker, OFFSETS_TOPIC};
use crate::dispatch::Handled;
use crate::now_ms;
use crate::server::Shared;

/// PRODUCER_FENCED as a client of `version` understands it: the versions before
/// `fenced_since` know only INVALID_PRODUCER_EPOCH (KafkaApis answers it to them).
fn fenced_for(code: i16, version: i16, fenced_since: i16) -> i16 {
    if code == ResponseError::ProducerFenced.code() && version < fenced_since {
        ResponseError::InvalidProducerEpoch.code()
    } else {
        code
    }
}

pub(crate) fn init_producer_id(
    shared: &Shared,
    req: InitProducerIdRequest,
    version: i16,
) -> Handled<InitProducerIdResponse> {
    let mut b = shared.broker()?;
    let resp = InitProducerIdResponse::default()
        .with_producer_id((-1).into())
        .with_producer_epoch(-1);
    // TransactionCoordinator.handleInitProducerId: without a transactional id, always a new
    // producer id at epoch 0; an empty one is INVALID_REQUEST.
    let Some(id) = req
        .transactional_id
        .as_ref()
        .map(|t| t.as_str().to_string())
    else {
        return Ok(match b.allocate_producer_id() {
            Ok(pid) => resp.with_producer_id(pid.into()).with_producer_epoch(0),
            Err(e) => resp.with_error_code(e.code()),
        });
    };
    if id.is_empty() {
        return Ok(resp.with_error_code(ResponseError::InvalidRequest.code()));
    }
    // KafkaApis.handleInitProducerIdRequest: the producer a v3+ client names, both fields or
    // neither.
    let expected = match (req.producer_id.0, req.producer_epoch) {
        (-1, -1) => None,
        (-1, _) | (_, -1) => {
            return Ok(resp.with_error_code(ResponseError::InvalidRequest.code()));
        }
        named => Some(named),
    };
    match b.init_transactional_producer(&id, req.transaction_timeout_ms, expected) {
        Ok((pid, epoch)) => Ok(resp.with_producer_id(pid.into()).with_producer_epoch(epoch)),
        Err(e) => Ok(resp.with_error_code(fenced_for(e.code(), version, 4))),
    }
}

/// Adds partitions to the open transaction of `(producer id, epoch)` and writes the
/// coordinator's record: the error code of the whole request.
fn add_to_txn(b: &mut Broker, id: &str, producer: (i64, i16), partitions: &[(String, i32)]) -> i16 {
    let mut records = Vec::new();
    let (pid, epoch) = producer;
    let added = b
        .txns
        .add_partitions(id, pid, epoch, partitions, now_ms(), &mut records)
        .map_err(|e| e.code());
    match added.and_then(|()| b.write_txn_records(id, &records).map_err(|e| e.code())) {
        Ok(()) => 0,
        Err(c) => c,
    }
}

pub(crate) fn add_partitions_to_txn(
    shared: &Shared,
    req: AddPartitionsToTxnRequest,
    version: i16,
) -> Handled<AddPartitionsToTxnResponse> {
    let mut b = shared.broker()?;
    let id = req.v3_and_below_transactional_id.as_str().to_string();
    let mut wanted = Vec::new();
    let mut unknown = false;
    for t in &req.v3_and_below_topics {
        for p in &t.partitions {
            if b.partition(t.name.as_str(), *p).is_err() {
                unknown = true;
            }
            wanted.push((t.name.as_str().to_string(), *p));
        }
    }
    let code = (!unknown).then(|| {
        let producer = (
            req.v3_and_below_producer_id.0,
            req.v3_and_below_producer_epoch,
        );
        fenced_for(add_to_txn(&mut b, &id, producer, &wanted), version, 2)
    });
    let results = req
        .v3_and_below_topics
        .into_iter()
        .map(|t| {
            let results = t
                .partitions
                .iter()
                .map(|p| {
                    let c = code.unwrap_or_else(|| {
                        if b.partition(t.name.as_str(), *p).is_err() {
                            ResponseError::UnknownTopicOrPartition.code()
                        } else {
                            ResponseError::OperationNotAttempted.code()
                        }
                    });
                    add_partitions_to_txn_response::AddPartitionsToTxnPartitionResult::default()
                        .with_partition_index(*p)
                        .with_partition_error_code(c)
                })
                .collect();
            add_partitions_to_txn_response::AddPartitionsToTxnTopicResult::default()
                .with_name(t.name)
                .with_results_by_partition(results)
        })
        .collect();
    Ok(AddPartitionsToTxnResponse::default().with_results_by_topic_v3_and_below(results))
}

pub(crate) fn add_offsets_to_txn(
    shared: &Shared,
    req: AddOffsetsToTxnRequest,
    version: i16,
) -> Handled<AddOffsetsToTxnResponse> {
    let mut b = shared.broker()?;
    let id = req.transactional_id.as_str().to_string();
    let code = match b.group_partition(req.group_id.as_str()) {
        Err(e) => e.code(),
        Ok(p) => {
            let producer = (req.producer_id.0, req.producer_epoch);
            add_to_txn(&mut b, &id, producer, &[(OFFSETS_TOPIC.to_string(), p)])
        }
    };
    Ok(AddOffsetsToTxnResponse::default().with_error_code(fenced_for(code, version, 2)))
}

pub(crate) fn txn_offset_commit(
    shared: &Shared,
    req: TxnOffsetCommitRequest,
) -> Handled<TxnOffsetCommitResponse> {
    let mut b = shared.broker()?;
    let group = req.group_id.as_str().to_string();
    let pid = req.producer_id.0;
    // KafkaApis.handleTxnOffsetCommitRequest: a partition that does not exist is
    // UNKNOWN_TOPIC_OR_PARTITION and is not committed.
    let mut partitions = Vec::new();
    for t in &req.topics {
        for p in &t.partitions {
            if b.partition(t.name.as_str(), p.partition_index).is_err() {
                continue;
            }
            let offset = (
                p.partition_index,
                p.committed_offset,
                p.committed_leader_epoch,
            );
            partitions.push(commit_partition(&b, &t.name, offset, &p.committed_metadata));
        }
    }
    let code = match b.group_partition(&group) {
        _ if partitions.is_empty() => 0,
        // GroupCoordinatorService.commitTransactionalOffsets, before the transaction is looked at.
        _ if group.is_empty() => ResponseError::InvalidGroupId.code(),
        Err(e) => e.code(),
        Ok(p) if !b.txns.includes(pid, req.producer_epoch, OFFSETS_TOPIC, p) => {
            ResponseError::InvalidTxnState.code()
        }
        Ok(p) => {
            let mut records = Vec::new();
            b.groups
                .txn_commit(&group, pid, &partitions, now_ms(), &mut records);
            match b.append_coordinator(OFFSETS_TOPIC, p, &records, Some((pid, req.producer_epoch)))
            {
                Ok(_) => 0,
                Err(e) => e.code(),
            }
        }
    };
    let topics = req
        .topics
        .into_iter()
        .map(|t| {
            let parts = t
                .partitions
                .iter()
                .map(|p| {
                    let known = b.partition(t.name.as_str(), p.partition_index).is_ok();
                    txn_offset_commit_response::TxnOffsetCommitResponsePartition::default()
                        .with_partition_index(p.partition_index)
                        .with_error_code(if known {
                            code
                        } else {
                            ResponseError::UnknownTopicOrPartition.code()
                        })
                })
                .collect();
            txn_offset_commit_response::TxnOffsetCommitResponseTopic::default()
                .with_name(t.name)
                .with_partitions(parts)
        })
        .collect();
    Ok(TxnOffsetCommitResponse::default().with_topics(topics))
}

pub(crate) fn end_txn(
    shared: &Shared,
    req: EndTxnRequest,
    version: i16,
) -> Handled<EndTxnResponse> {
    let mut b = shared.broker()?;
    let id = req.transactional_id.as_str().to_string();
    let mut records = Vec::new();
    let now = now_ms();
    let code = match b.txns.begin_end(
        &id,
        req.producer_id.0,
        req.producer_epoch,
        req.committed,
        now,
        &mut records,
    ) {
        Err(e) => e.code(),
        Ok(plan) => match b.write_txn_records(&id, &records) {
            Err(e) => e.code(),
            Ok(()) => match plan {
                None => 0,
                Some(plan) => match b.complete_transaction(&plan, now) {
                    Ok(()) => 0,
                    Err(e) => e.code(),
                },
            },
        },
    };
    Ok(EndTxnResponse::default().with_error_code(fenced_for(code, version, 2)))
}
