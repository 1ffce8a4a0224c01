//! Produce: `KafkaApis.handleProduceRequest` answers an unknown partition first, then
//! `ReplicaManager.appendRecords` the acks, the internal topics and the batch's validation.
//! Only a record's validation failure carries a message (`LogAppendResult.errorMessage`).

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::produce_response::PartitionProduceResponse;
use kafka_protocol::messages::{ApiKey, ProduceRequest};
use kafka_protocol::ResponseError;

use super::{batch, code, create_topic, find_coordinator, topic};
use crate::core::{OFFSETS_TOPIC, TRANSACTION_TOPIC};
use crate::testing::{Outcome, TestBroker};

fn produce_request(name: &str, partition: i32, acks: i16, records: Vec<u8>) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(acks)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(topic(name))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(Bytes::from(records)))])])
}

/// Produce v9 of one batch to `name`-`partition`: that partition's answer.
fn produce(
    broker: &mut TestBroker,
    name: &str,
    partition: i32,
    acks: i16,
    records: Vec<u8>,
) -> PartitionProduceResponse {
    let answer = broker.ask(9, &produce_request(name, partition, acks, records));
    assert_eq!(answer.responses.len(), 1, "{answer:?}");
    let mut partitions = answer.responses[0].partition_responses.clone();
    assert_eq!(partitions.len(), 1, "{answer:?}");
    partitions.remove(0)
}

/// The log end offset of `name`-`partition`, read from the broker itself.
fn log_end(broker: &TestBroker, name: &str, partition: i32) -> i64 {
    broker
        .broker()
        .partition(name, partition)
        .unwrap()
        .log_end_offset()
}

/// A refused partition: the code, no message, and Kafka's -1 offsets.
fn assert_refused(answer: &PartitionProduceResponse, error: ResponseError) {
    assert_eq!(answer.error_code, code(error), "{answer:?}");
    assert_eq!(answer.error_message, None, "{answer:?}");
    assert_eq!(answer.base_offset, -1, "{answer:?}");
    assert_eq!(answer.log_append_time_ms, -1, "{answer:?}");
}

#[test]
fn unknown_topic_and_partition() {
    let mut broker = TestBroker::start();
    let answer = produce(&mut broker, "nowhere", 0, -1, batch(&[b"v"]));
    assert_refused(&answer, ResponseError::UnknownTopicOrPartition);
    // Produce never auto-creates a topic.
    assert!(broker.broker().topic("nowhere").is_none());
    create_topic(&mut broker, "orders", 2);
    for partition in [2, -1, i32::MAX] {
        let answer = produce(&mut broker, "orders", partition, -1, batch(&[b"v"]));
        assert_refused(&answer, ResponseError::UnknownTopicOrPartition);
    }
}

#[test]
fn internal_topics_are_not_written_by_clients() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 0, "group");
    find_coordinator(&mut broker, 1, "txn");
    for internal in [OFFSETS_TOPIC, TRANSACTION_TOPIC] {
        let answer = produce(&mut broker, internal, 0, -1, batch(&[b"v"]));
        assert_refused(&answer, ResponseError::InvalidTopicException);
    }
}

#[test]
fn wrong_acks() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    for acks in [2, -2, 5] {
        let answer = produce(&mut broker, "orders", 0, acks, batch(&[b"v"]));
        assert_refused(&answer, ResponseError::InvalidRequiredAcks);
    }
    // An unknown partition is answered before the acks are looked at.
    let answer = produce(&mut broker, "nowhere", 0, 2, batch(&[b"v"]));
    assert_refused(&answer, ResponseError::UnknownTopicOrPartition);
    assert_eq!(log_end(&broker, "orders", 0), 0);
}

#[test]
fn oversize_batch() {
    let mut broker = TestBroker::start_with(|c| c.log.max_message_bytes = 1_000);
    create_topic(&mut broker, "orders", 1);
    let answer = produce(&mut broker, "orders", 0, -1, batch(&[&[7u8; 2_000]]));
    assert_refused(&answer, ResponseError::MessageTooLarge);
    let answer = produce(&mut broker, "orders", 0, -1, batch(&[&[7u8; 100]]));
    assert_eq!(answer.error_code, 0, "{answer:?}");
    assert_eq!(answer.base_offset, 0, "{answer:?}");
}

#[test]
fn bad_crc() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let mut records = batch(&[b"value"]);
    let last = records.len() - 1;
    records[last] ^= 0xff;
    let answer = produce(&mut broker, "orders", 0, -1, records);
    assert_refused(&answer, ResponseError::CorruptMessage);
    assert_eq!(log_end(&broker, "orders", 0), 0);
}

#[test]
fn acks_zero_is_not_answered() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let request = produce_request("orders", 0, 0, batch(&[b"v"]));
    let outcome = broker.send(ApiKey::Produce, 9, 9, &request);
    assert!(matches!(outcome, Outcome::NoAnswer), "{outcome:?}");
    assert_eq!(log_end(&broker, "orders", 0), 1);
}

#[test]
fn idempotent_producer_errors() {
    use super::batch_of;
    use kseg_format::encode::NewBatch;
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let idempotent = |epoch: i16, sequence: i32| {
        batch_of(
            &NewBatch {
                producer_id: 7,
                producer_epoch: epoch,
                base_sequence: sequence,
                ..NewBatch::default()
            },
            &[b"v"],
        )
    };
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(0, 0));
    assert_eq!(
        (answer.error_code, answer.base_offset),
        (0, 0),
        "{answer:?}"
    );
    // The same batch again: a duplicate, answered with its first append's offset.
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(0, 0));
    assert_eq!(
        (answer.error_code, answer.base_offset),
        (0, 0),
        "{answer:?}"
    );
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(0, 5));
    assert_refused(&answer, ResponseError::OutOfOrderSequenceNumber);
    // A new epoch starts at sequence 0.
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(1, 3));
    assert_refused(&answer, ResponseError::OutOfOrderSequenceNumber);
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(1, 0));
    assert_eq!(
        (answer.error_code, answer.base_offset),
        (0, 1),
        "{answer:?}"
    );
    let answer = produce(&mut broker, "orders", 0, -1, idempotent(0, 1));
    assert_refused(&answer, ResponseError::InvalidProducerEpoch);
    // A transactional batch outside any transaction.
    let transactional = batch_of(
        &NewBatch {
            producer_id: 8,
            producer_epoch: 0,
            base_sequence: 0,
            transactional: true,
            ..NewBatch::default()
        },
        &[b"v"],
    );
    let answer = produce(&mut broker, "orders", 0, -1, transactional);
    assert_refused(&answer, ResponseError::InvalidTxnState);
    assert_eq!(log_end(&broker, "orders", 0), 2);
}

#[test]
fn refused_batches_are_not_kept_across_a_crash() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let answer = produce(&mut broker, "orders", 0, -1, batch(&[b"a", b"b"]));
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let mut corrupt = batch(&[b"c"]);
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    let answer = produce(&mut broker, "orders", 0, -1, corrupt);
    assert_refused(&answer, ResponseError::CorruptMessage);
    broker.restart_after_crash();
    // What was acknowledged is there after recovery; what was refused is not.
    assert_eq!(log_end(&broker, "orders", 0), 2);
    let answer = produce(&mut broker, "orders", 0, -1, batch(&[b"d"]));
    assert_eq!(
        (answer.error_code, answer.base_offset),
        (0, 2),
        "{answer:?}"
    );
}
