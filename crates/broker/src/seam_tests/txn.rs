//! InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and EndTxn refused as
//! Kafka's `TransactionCoordinator` refuses them; PRODUCER_FENCED is INVALID_PRODUCER_EPOCH to
//! the versions that predate it (KafkaApis: InitProducerId below v4, the others below v2).

use kafka_protocol::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use kafka_protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use kafka_protocol::messages::{
    AddOffsetsToTxnRequest, AddPartitionsToTxnRequest, EndTxnRequest, InitProducerIdRequest,
    TxnOffsetCommitRequest,
};
use kafka_protocol::ResponseError;

use super::{code, create_topic, find_coordinator, topic};
use crate::testing::{text, TestBroker};

fn init_request(id: Option<&str>, timeout_ms: i32) -> InitProducerIdRequest {
    InitProducerIdRequest::default()
        .with_transactional_id(id.map(|i| text(i).into()))
        .with_transaction_timeout_ms(timeout_ms)
        .with_producer_id((-1).into())
        .with_producer_epoch(-1)
}

/// A broker with `orders` (2 partitions) and the transactional producer `tx`: its id and
/// epoch.
fn broker_with_producer() -> (TestBroker, i64, i16) {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 2);
    find_coordinator(&mut broker, 1, "tx");
    let answer = broker.ask(4, &init_request(Some("tx"), 60_000));
    assert_eq!(answer.error_code, 0, "{answer:?}");
    (broker, answer.producer_id.0, answer.producer_epoch)
}

fn add_partitions(
    broker: &mut TestBroker,
    version: i16,
    (id, pid, epoch): (&str, i64, i16),
    partitions: &[i32],
) -> Vec<i16> {
    let request = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id(text(id).into())
        .with_v3_and_below_producer_id(pid.into())
        .with_v3_and_below_producer_epoch(epoch)
        .with_v3_and_below_topics(vec![AddPartitionsToTxnTopic::default()
            .with_name(topic("orders"))
            .with_partitions(partitions.to_vec())]);
    let answer = broker.ask(version, &request);
    answer.results_by_topic_v3_and_below[0]
        .results_by_partition
        .iter()
        .map(|p| p.partition_error_code)
        .collect()
}

fn end_txn(
    broker: &mut TestBroker,
    version: i16,
    (id, pid, epoch): (&str, i64, i16),
    commit: bool,
) -> i16 {
    let request = EndTxnRequest::default()
        .with_transactional_id(text(id).into())
        .with_producer_id(pid.into())
        .with_producer_epoch(epoch)
        .with_committed(commit);
    broker.ask(version, &request).error_code
}

#[test]
fn init_producer_id_errors() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 1, "tx");
    let refused = |broker: &mut TestBroker, request: InitProducerIdRequest| {
        let answer = broker.ask(4, &request);
        assert_eq!(
            (answer.producer_id.0, answer.producer_epoch),
            (-1, -1),
            "{answer:?}"
        );
        answer.error_code
    };
    assert_eq!(
        refused(&mut broker, init_request(Some(""), 60_000)),
        code(ResponseError::InvalidRequest)
    );
    // transaction.max.timeout.ms is 15 minutes.
    for timeout in [0, -1, 900_001] {
        assert_eq!(
            refused(&mut broker, init_request(Some("tx"), timeout)),
            code(ResponseError::InvalidTransactionTimeout)
        );
    }
    assert!(broker.broker().txns.get("tx").is_none());
}

#[test]
fn init_producer_id_of_a_stale_producer() {
    let (mut broker, pid, epoch) = broker_with_producer();
    // The producer names itself: its epoch is bumped.
    let named = |epoch: i16| {
        init_request(Some("tx"), 60_000)
            .with_producer_id(pid.into())
            .with_producer_epoch(epoch)
    };
    let bumped = broker.ask(4, &named(epoch));
    assert_eq!(bumped.error_code, 0, "{bumped:?}");
    assert_eq!(
        (bumped.producer_id.0, bumped.producer_epoch),
        (pid, epoch + 1)
    );
    // The same request again (its answer lost): answered again, not bumped twice.
    let retried = broker.ask(4, &named(epoch));
    assert_eq!(
        (retried.producer_id.0, retried.producer_epoch),
        (pid, epoch + 1)
    );
    // A new producer of the id bumps past it: the old one is fenced, a retry of its last
    // InitProducerId included.
    let bumped = broker.ask(4, &init_request(Some("tx"), 60_000));
    assert_eq!(bumped.producer_epoch, epoch + 2, "{bumped:?}");
    let stale = broker.ask(4, &named(epoch + 1));
    assert_eq!(
        stale.error_code,
        code(ResponseError::ProducerFenced),
        "{stale:?}"
    );
    // The new producer goes on after an error (bumped), then retries that.
    let bumped = broker.ask(4, &named(epoch + 2));
    assert_eq!(bumped.producer_epoch, epoch + 3, "{bumped:?}");
    let retried = broker.ask(4, &named(epoch + 2));
    assert_eq!(retried.producer_epoch, epoch + 3, "{retried:?}");
    let stale = broker.ask(4, &named(epoch));
    assert_eq!(
        stale.error_code,
        code(ResponseError::ProducerFenced),
        "{stale:?}"
    );
    assert_eq!((stale.producer_id.0, stale.producer_epoch), (-1, -1));
    let half = init_request(Some("tx"), 60_000).with_producer_id(pid.into());
    assert_eq!(
        broker.ask(4, &half).error_code,
        code(ResponseError::InvalidRequest)
    );
    let other = init_request(Some("tx"), 60_000)
        .with_producer_id((pid + 1000).into())
        .with_producer_epoch(0);
    assert_eq!(
        broker.ask(3, &other).error_code,
        code(ResponseError::InvalidProducerEpoch)
    );
}

#[test]
fn add_partitions_to_txn_errors() {
    let (mut broker, pid, epoch) = broker_with_producer();
    let mapping = code(ResponseError::InvalidProducerIdMapping);
    assert_eq!(
        add_partitions(&mut broker, 3, ("nobody", pid, epoch), &[0]),
        [mapping]
    );
    assert_eq!(
        add_partitions(&mut broker, 3, ("tx", pid + 1, epoch), &[0]),
        [mapping]
    );
    assert_eq!(
        add_partitions(&mut broker, 3, ("tx", pid, epoch + 1), &[0]),
        [code(ResponseError::ProducerFenced)]
    );
    assert_eq!(
        add_partitions(&mut broker, 1, ("tx", pid, epoch + 1), &[0]),
        [code(ResponseError::InvalidProducerEpoch)]
    );
    // One partition that does not exist: nothing is added, the others not attempted.
    assert_eq!(
        add_partitions(&mut broker, 3, ("tx", pid, epoch), &[0, 7]),
        [
            code(ResponseError::OperationNotAttempted),
            code(ResponseError::UnknownTopicOrPartition)
        ]
    );
    assert!(broker
        .broker()
        .txns
        .get("tx")
        .unwrap()
        .partitions
        .is_empty());
}

#[test]
fn end_txn_errors() {
    let (mut broker, pid, epoch) = broker_with_producer();
    let producer = ("tx", pid, epoch);
    // Nothing open: a commit is an invalid transition.
    assert_eq!(
        end_txn(&mut broker, 3, producer, true),
        code(ResponseError::InvalidTxnState)
    );
    assert_eq!(
        end_txn(&mut broker, 3, ("tx", pid + 1, epoch), true),
        code(ResponseError::InvalidProducerIdMapping)
    );
    assert_eq!(
        end_txn(&mut broker, 3, ("tx", pid, epoch + 1), true),
        code(ResponseError::ProducerFenced)
    );
    assert_eq!(
        end_txn(&mut broker, 1, ("tx", pid, epoch + 1), true),
        code(ResponseError::InvalidProducerEpoch)
    );
    // Committed, then asked to abort: invalid; asked to commit again: a retry.
    assert_eq!(add_partitions(&mut broker, 3, producer, &[0]), [0]);
    assert_eq!(end_txn(&mut broker, 3, producer, true), 0);
    assert_eq!(
        end_txn(&mut broker, 3, producer, false),
        code(ResponseError::InvalidTxnState)
    );
    assert_eq!(end_txn(&mut broker, 3, producer, true), 0);
}

#[test]
fn add_offsets_and_txn_offset_commit_errors() {
    let (mut broker, pid, epoch) = broker_with_producer();
    let add_offsets = |broker: &mut TestBroker, version: i16, epoch: i16| {
        let request = AddOffsetsToTxnRequest::default()
            .with_transactional_id(text("tx").into())
            .with_producer_id(pid.into())
            .with_producer_epoch(epoch)
            .with_group_id(text("g").into());
        broker.ask(version, &request).error_code
    };
    assert_eq!(
        add_offsets(&mut broker, 3, epoch + 1),
        code(ResponseError::ProducerFenced)
    );
    assert_eq!(
        add_offsets(&mut broker, 1, epoch + 1),
        code(ResponseError::InvalidProducerEpoch)
    );
    // TxnOffsetCommit before the group's partition joined the transaction; and to a partition
    // that does not exist.
    let request = TxnOffsetCommitRequest::default()
        .with_transactional_id(text("tx").into())
        .with_group_id(text("g").into())
        .with_producer_id(pid.into())
        .with_producer_epoch(epoch)
        .with_generation_id(-1)
        .with_topics(vec![TxnOffsetCommitRequestTopic::default()
            .with_name(topic("orders"))
            .with_partitions(vec![
                TxnOffsetCommitRequestPartition::default()
                    .with_partition_index(0)
                    .with_committed_offset(1),
                TxnOffsetCommitRequestPartition::default()
                    .with_partition_index(9)
                    .with_committed_offset(1),
            ])]);
    let answer = broker.ask(3, &request.clone().with_group_id(text("").into()));
    let codes: Vec<i16> = answer.topics[0]
        .partitions
        .iter()
        .map(|p| p.error_code)
        .collect();
    assert_eq!(
        codes,
        [
            code(ResponseError::InvalidGroupId),
            code(ResponseError::UnknownTopicOrPartition)
        ]
    );
    let answer = broker.ask(3, &request);
    let codes: Vec<i16> = answer.topics[0]
        .partitions
        .iter()
        .map(|p| p.error_code)
        .collect();
    assert_eq!(
        codes,
        [
            code(ResponseError::InvalidTxnState),
            code(ResponseError::UnknownTopicOrPartition)
        ]
    );
}
