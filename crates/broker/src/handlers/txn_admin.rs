//! Describing producers and transactions, as `kafka-transactions` asks: DescribeProducers
//! (`ReplicaManager.activeProducerState`: each partition's producer state), ListTransactions
//! and DescribeTransactions (`TransactionCoordinator` / `TransactionStateManager`: the
//! coordinator's transactional ids).

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::{str_bytes, topic_name};
use crate::core::topic_name_problem;
use crate::dispatch::{Handled, RequestError};
use crate::frame::{put_unsigned_varint, Repeated};
use crate::now_ms;
use crate::server::Shared;
use kseg_format::coordinator::TransactionState;

/// `Errors.UNKNOWN_TOPIC_OR_PARTITION.message()`.
const UNKNOWN_TOPIC_MESSAGE: &str = "This server does not host this topic-partition.";

/// DescribeProducers. Kafka answers every partition asked, a repeated one each time
/// (`KafkaApis.handleDescribeProducersRequest` walks the request's lists): so does this, but a
/// partition asked many times is described and encoded once and its bytes repeated
/// ([`Repeated`]), so a small request naming one busy partition thousands of times costs the
/// broker one description, not thousands.
pub(crate) fn describe_producers(
    shared: &Shared,
    req: DescribeProducersRequest,
    version: i16,
) -> Handled<Repeated> {
    let encode_error = |source| RequestError::Encode {
        key: ApiKey::DescribeProducers,
        version,
        source,
    };
    let b = shared.broker()?;
    let mut cache: HashMap<(String, i32), Bytes> = HashMap::new();
    let mut pieces = Vec::new();
    for t in &req.topics {
        let name = t.name.as_str();
        // KafkaApis.handleDescribeProducersRequest: an illegal name, then an unknown topic,
        // fail every partition asked with the message `ApiError` carries; an unknown
        // partition of a known topic has no message (ReplicaManager.getPartitionOrError).
        let topic_error: Option<(i16, String)> = match topic_name_problem(name) {
            Some(why) => Some((
                ResponseError::InvalidTopicException.code(),
                format!("Topic name is invalid: {why}"),
            )),
            None if b.topic(name).is_none() => Some((
                ResponseError::UnknownTopicOrPartition.code(),
                UNKNOWN_TOPIC_MESSAGE.into(),
            )),
            None => None,
        };
        // A TopicResponse, written out: its name, its partitions' count, each partition's
        // (shared) bytes, its (empty) tagged fields.
        let mut head = BytesMut::new();
        put_unsigned_varint(&mut head, name.len() as u64 + 1);
        head.extend_from_slice(name.as_bytes());
        put_unsigned_varint(&mut head, t.partition_indexes.len() as u64 + 1);
        pieces.push(head.freeze());
        for &p in &t.partition_indexes {
            let key = (name.to_string(), p);
            let piece = Repeated::element(&mut cache, key, version, || {
                let mut r = describe_producers_response::PartitionResponse::default()
                    .with_partition_index(p);
                if let Some((code, message)) = &topic_error {
                    r.error_code = *code;
                    r.error_message = Some(str_bytes(message));
                    return r;
                }
                match b.partition(name, p) {
                    Err(_) => r.error_code = ResponseError::UnknownTopicOrPartition.code(),
                    Ok(log) => {
                        r.active_producers = log
                            .producers
                            .producers()
                            .map(|e| {
                                describe_producers_response::ProducerState::default()
                                    .with_producer_id(e.producer_id.into())
                                    .with_producer_epoch(e.epoch as i32)
                                    .with_last_sequence(e.last_seq())
                                    .with_last_timestamp(e.last_timestamp)
                                    .with_coordinator_epoch(e.coordinator_epoch)
                                    .with_current_txn_start_offset(
                                        e.current_txn_first_offset.unwrap_or(-1),
                                    )
                            })
                            .collect();
                    }
                }
                r
            })
            .map_err(encode_error)?;
            pieces.push(piece);
        }
        pieces.push(Bytes::from_static(&[0]));
    }
    Ok(Repeated {
        flexible: true,
        count: req.topics.len(),
        elements: pieces,
    })
}

/// DescribeTransactions. Each id asked is answered, a repeated one each time, as
/// `TransactionCoordinator.handleDescribeTransactions` does; a repeated id's answer is built
/// and encoded once and its bytes repeated ([`Repeated`]).
pub(crate) fn describe_transactions(
    shared: &Shared,
    req: DescribeTransactionsRequest,
    version: i16,
) -> Handled<Repeated> {
    let b = shared.broker()?;
    let mut cache: HashMap<String, Bytes> = HashMap::new();
    let mut elements = Vec::with_capacity(req.transactional_ids.len());
    for id in req.transactional_ids {
        let key = id.as_str().to_string();
        let element = Repeated::element(&mut cache, key, version, || {
            let mut s = describe_transactions_response::TransactionState::default()
                .with_transactional_id(id.clone());
            // TransactionCoordinator.handleDescribeTransactions.
            let found = b.txns.get(id.as_str());
            match found {
                _ if id.is_empty() => s.error_code = ResponseError::InvalidRequest.code(),
                Some(m) if m.state != TransactionState::Dead => {
                    let mut topics: Vec<describe_transactions_response::TopicData> = Vec::new();
                    // `partitions` is ordered by topic then partition: one entry per topic.
                    for (topic, partition) in &m.partitions {
                        match topics.last_mut() {
                            Some(t) if t.topic.as_str() == topic => t.partitions.push(*partition),
                            _ => topics.push(
                                describe_transactions_response::TopicData::default()
                                    .with_topic(topic_name(topic))
                                    .with_partitions(vec![*partition]),
                            ),
                        }
                    }
                    s = s
                        .with_producer_id(m.producer_id.into())
                        .with_producer_epoch(m.epoch)
                        .with_transaction_state(str_bytes(m.state.name()))
                        .with_transaction_timeout_ms(m.timeout_ms)
                        .with_transaction_start_time_ms(m.start)
                        .with_topics(topics);
                }
                _ => s.error_code = ResponseError::TransactionalIdNotFound.code(),
            }
            s
        })
        .map_err(|source| RequestError::Encode {
            key: ApiKey::DescribeTransactions,
            version,
            source,
        })?;
        elements.push(element);
    }
    Ok(Repeated::of(true, elements))
}

/// `TransactionState.fromName`.
fn state_named(name: &str) -> Option<TransactionState> {
    (0..=7)
        .filter_map(TransactionState::from_id)
        .find(|s| s.name() == name)
}

pub(crate) fn list_transactions(
    shared: &Shared,
    req: ListTransactionsRequest,
) -> Handled<ListTransactionsResponse> {
    let mut resp = ListTransactionsResponse::default();
    // TransactionStateManager.listTransactionStates: a pattern that is not a regular expression
    // fails the request (KafkaApis answers the exception's code); `matches()` is a whole match.
    let pattern = match req.transactional_id_pattern.as_ref().map(|p| p.as_str()) {
        None | Some("") => None,
        Some(p) => match regex::Regex::new(&format!("^(?:{p})$")) {
            Ok(r) => Some(r),
            Err(_) => {
                return Ok(resp.with_error_code(ResponseError::InvalidRegularExpression.code()))
            }
        },
    };
    let mut states = Vec::new();
    for name in &req.state_filters {
        match state_named(name.as_str()) {
            Some(s) => states.push(s),
            None => resp.unknown_state_filters.push(name.clone()),
        }
    }
    let b = shared.broker()?;
    let now = now_ms();
    let included = |m: &crate::txn::TxnMetadata| {
        m.state != TransactionState::Dead
            && (req.producer_id_filters.is_empty()
                || req.producer_id_filters.iter().any(|p| p.0 == m.producer_id))
            && (req.state_filters.is_empty() || states.contains(&m.state))
            && (req.duration_filter < 0 || now - m.start > req.duration_filter)
            && pattern
                .as_ref()
                .is_none_or(|r| r.is_match(&m.transactional_id))
    };
    resp.transaction_states = b
        .txns
        .all()
        .filter(|m| included(m))
        .map(|m| {
            list_transactions_response::TransactionState::default()
                .with_transactional_id(TransactionalId(str_bytes(&m.transactional_id)))
                .with_producer_id(m.producer_id.into())
                .with_transaction_state(str_bytes(m.state.name()))
        })
        .collect();
    Ok(resp)
}
