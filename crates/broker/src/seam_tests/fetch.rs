//! Fetch, ListOffsets and OffsetForLeaderEpoch: a partition that is not there, an offset out of
//! range, a leader epoch the client got wrong. A read error answers no offsets (-1), as
//! `ReplicaManager.createLogReadResult` does.

use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_protocol::messages::fetch_response::PartitionData;
use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::offset_for_leader_epoch_request::{
    OffsetForLeaderPartition, OffsetForLeaderTopic,
};
use kafka_protocol::messages::{
    FetchRequest, ListOffsetsRequest, OffsetForLeaderEpochRequest, ProduceRequest,
};
use kafka_protocol::ResponseError;

use super::{batch, code, create_topic, topic};
use crate::testing::TestBroker;

/// A broker with `orders` (one partition) holding three records.
fn broker_with_three_records() -> TestBroker {
    use bytes::Bytes;
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(topic("orders"))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Bytes::from(batch(&[b"a", b"b", b"c"]))))])]);
    let answer = broker.ask(9, &request);
    assert_eq!(answer.responses[0].partition_responses[0].error_code, 0);
    broker
}

/// Fetch v12 (topics by name) of one partition at `offset`, not waiting.
fn fetch(
    broker: &mut TestBroker,
    name: &str,
    partition: i32,
    offset: i64,
    epoch: i32,
) -> PartitionData {
    let request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(0)
        .with_min_bytes(1)
        .with_max_bytes(1 << 20)
        .with_topics(vec![FetchTopic::default()
            .with_topic(topic(name))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(partition)
                .with_current_leader_epoch(epoch)
                .with_fetch_offset(offset)
                .with_partition_max_bytes(1 << 20)])]);
    let answer = broker.ask(12, &request);
    assert_eq!(answer.error_code, 0, "{answer:?}");
    answer.responses[0].partitions[0].clone()
}

fn assert_read_error(answer: &PartitionData, error: ResponseError) {
    assert_eq!(answer.error_code, code(error), "{answer:?}");
    assert_eq!(answer.high_watermark, -1, "{answer:?}");
    assert_eq!(answer.last_stable_offset, -1, "{answer:?}");
    assert_eq!(answer.log_start_offset, -1, "{answer:?}");
    assert!(
        answer.records.as_ref().is_none_or(|r| r.is_empty()),
        "{answer:?}"
    );
}

#[test]
fn fetch_of_an_unknown_partition() {
    let mut broker = broker_with_three_records();
    let answer = fetch(&mut broker, "nowhere", 0, 0, -1);
    assert_read_error(&answer, ResponseError::UnknownTopicOrPartition);
    let answer = fetch(&mut broker, "orders", 1, 0, -1);
    assert_read_error(&answer, ResponseError::UnknownTopicOrPartition);
}

#[test]
fn fetch_of_an_unknown_topic_id() {
    let mut broker = broker_with_three_records();
    let request = FetchRequest::default()
        .with_replica_id((-1).into())
        .with_max_wait_ms(0)
        .with_topics(vec![FetchTopic::default()
            .with_topic_id(uuid::Uuid::from_bytes([9; 16]))
            .with_partitions(vec![FetchPartition::default().with_partition(0)])]);
    let answer = broker.ask(13, &request);
    let partition = &answer.responses[0].partitions[0];
    assert_eq!(
        partition.error_code,
        code(ResponseError::UnknownTopicId),
        "{answer:?}"
    );
}

#[test]
fn fetch_out_of_range() {
    let mut broker = broker_with_three_records();
    // The log end (3) is in range; past it and before the log start are not.
    let answer = fetch(&mut broker, "orders", 0, 3, -1);
    assert_eq!(answer.error_code, 0, "{answer:?}");
    assert_eq!(answer.high_watermark, 3, "{answer:?}");
    for offset in [4, 1_000, -1] {
        let answer = fetch(&mut broker, "orders", 0, offset, -1);
        assert_read_error(&answer, ResponseError::OffsetOutOfRange);
    }
}

#[test]
fn fetch_with_a_wrong_leader_epoch() {
    let mut broker = broker_with_three_records();
    let epoch = broker.broker().partition("orders", 0).unwrap().leader_epoch;
    let answer = fetch(&mut broker, "orders", 0, 0, epoch + 1);
    assert_read_error(&answer, ResponseError::UnknownLeaderEpoch);
    if epoch > 0 {
        let answer = fetch(&mut broker, "orders", 0, 0, epoch - 1);
        assert_read_error(&answer, ResponseError::FencedLeaderEpoch);
    }
}

#[test]
fn list_offsets_of_an_unknown_partition() {
    let mut broker = broker_with_three_records();
    let request = ListOffsetsRequest::default()
        .with_replica_id((-1).into())
        .with_topics(vec![ListOffsetsTopic::default()
            .with_name(topic("orders"))
            .with_partitions(vec![
                ListOffsetsPartition::default()
                    .with_partition_index(5)
                    .with_timestamp(-1),
                ListOffsetsPartition::default()
                    .with_partition_index(0)
                    .with_current_leader_epoch(99)
                    .with_timestamp(-1),
            ])]);
    let answer = broker.ask(7, &request);
    let partitions = &answer.topics[0].partitions;
    assert_eq!(
        partitions[0].error_code,
        code(ResponseError::UnknownTopicOrPartition)
    );
    assert_eq!(partitions[0].offset, -1, "{answer:?}");
    assert_eq!(
        partitions[1].error_code,
        code(ResponseError::UnknownLeaderEpoch)
    );
    assert_eq!(partitions[1].offset, -1, "{answer:?}");
}

#[test]
fn offset_for_leader_epoch_of_an_unknown_partition() {
    let mut broker = broker_with_three_records();
    let request = OffsetForLeaderEpochRequest::default()
        .with_replica_id((-1).into())
        .with_topics(vec![OffsetForLeaderTopic::default()
            .with_topic(topic("nowhere"))
            .with_partitions(vec![OffsetForLeaderPartition::default()
                .with_partition(0)
                .with_leader_epoch(0)])]);
    let answer = broker.ask(4, &request);
    let partition = &answer.topics[0].partitions[0];
    assert_eq!(
        partition.error_code,
        code(ResponseError::UnknownTopicOrPartition)
    );
    assert_eq!((partition.leader_epoch, partition.end_offset), (-1, -1));
}
