//! DescribeProducers, DescribeTransactions and ListTransactions asked about things that are
//! not there.

use kafka_protocol::messages::describe_producers_request::TopicRequest;
use kafka_protocol::messages::{
    DescribeProducersRequest, DescribeTransactionsRequest, InitProducerIdRequest,
    ListTransactionsRequest,
};
use kafka_protocol::ResponseError;

use super::{code, create_topic, find_coordinator, topic};
use crate::testing::{text, TestBroker};

#[test]
fn describe_producers_of_unknown_partitions() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let request = DescribeProducersRequest::default().with_topics(vec![
        TopicRequest::default()
            .with_name(topic("nowhere"))
            .with_partition_indexes(vec![0]),
        TopicRequest::default()
            .with_name(topic("bad name!"))
            .with_partition_indexes(vec![0]),
        TopicRequest::default()
            .with_name(topic("orders"))
            .with_partition_indexes(vec![3, 0]),
    ]);
    let answer = broker.ask(0, &request);
    let results: Vec<(i16, Option<&str>)> = answer
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| (p.error_code, p.error_message.as_deref()))
        .collect();
    assert_eq!(
        results,
        [
            (
                code(ResponseError::UnknownTopicOrPartition),
                Some("This server does not host this topic-partition.")
            ),
            (
                code(ResponseError::InvalidTopicException),
                Some(
                    "Topic name is invalid: 'bad name!' contains one or more characters other \
                     than ASCII alphanumerics, '.', '_' and '-'"
                )
            ),
            (code(ResponseError::UnknownTopicOrPartition), None),
            (0, None),
        ]
    );
}

#[test]
fn describe_transactions_of_unknown_ids() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 1, "tx");
    let request = DescribeTransactionsRequest::default()
        .with_transactional_ids(vec![text("nobody").into(), text("").into()]);
    let answer = broker.ask(0, &request);
    let codes: Vec<i16> = answer
        .transaction_states
        .iter()
        .map(|s| s.error_code)
        .collect();
    assert_eq!(
        codes,
        [
            code(ResponseError::TransactionalIdNotFound),
            code(ResponseError::InvalidRequest)
        ]
    );
    // The schema's defaults for the rest, as Kafka's.
    assert_eq!(answer.transaction_states[0].producer_id.0, 0);
    assert!(answer.transaction_states[0].topics.is_empty());
}

#[test]
fn list_transactions_filters() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 1, "tx");
    let init = InitProducerIdRequest::default()
        .with_transactional_id(Some(text("tx").into()))
        .with_transaction_timeout_ms(60_000)
        .with_producer_id((-1).into())
        .with_producer_epoch(-1);
    assert_eq!(broker.ask(4, &init).error_code, 0);
    let list = |broker: &mut TestBroker, request: ListTransactionsRequest| broker.ask(2, &request);
    // A pattern that is not a regular expression fails the request.
    let answer = list(
        &mut broker,
        ListTransactionsRequest::default()
            .with_duration_filter(-1)
            .with_transactional_id_pattern(Some(text("(unclosed"))),
    );
    assert_eq!(
        answer.error_code,
        code(ResponseError::InvalidRegularExpression)
    );
    assert!(answer.transaction_states.is_empty());
    // An unknown state is echoed back, and matches nothing.
    let answer = list(
        &mut broker,
        ListTransactionsRequest::default()
            .with_duration_filter(-1)
            .with_state_filters(vec![text("Sleeping")]),
    );
    assert_eq!(answer.error_code, 0);
    let unknown: Vec<&str> = answer
        .unknown_state_filters
        .iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(unknown, ["Sleeping"]);
    assert!(answer.transaction_states.is_empty());
    // A producer id nobody has.
    let answer = list(
        &mut broker,
        ListTransactionsRequest::default()
            .with_duration_filter(-1)
            .with_producer_id_filters(vec![424_242.into()]),
    );
    assert!(answer.transaction_states.is_empty(), "{answer:?}");
    let answer = list(
        &mut broker,
        ListTransactionsRequest::default().with_duration_filter(-1),
    );
    assert_eq!(answer.transaction_states.len(), 1, "{answer:?}");
}

/// Issue 45: a partition (or transactional id) asked many times is answered each time, as
/// Kafka 4.4 answers it, but described and encoded once: the answer's pieces hold one copy of
/// each distinct description (it built every copy: a 20 KB request about a partition of
/// 10,000 producers took the broker to 3.5 GB).
#[test]
fn describe_producers_answers_a_repeated_partition_from_one_encoding() {
    use super::batch_of;
    use bytes::Bytes;
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_protocol::messages::ProduceRequest;
    use kseg_format::encode::NewBatch;
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    for producer_id in 1..=100 {
        let records = batch_of(
            &NewBatch {
                producer_id,
                producer_epoch: 0,
                base_sequence: 0,
                ..NewBatch::default()
            },
            &[b"v"],
        );
        let request = ProduceRequest::default()
            .with_acks(-1)
            .with_timeout_ms(30_000)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(topic("orders"))
                .with_partition_data(vec![PartitionProduceData::default()
                    .with_index(0)
                    .with_records(Some(Bytes::from(records)))])]);
        let answer = broker.ask(9, &request);
        assert_eq!(answer.responses[0].partition_responses[0].error_code, 0);
    }
    let mut partitions = vec![0; 2_000];
    partitions.push(7);
    partitions.push(7);
    let asked = TopicRequest::default()
        .with_name(topic("orders"))
        .with_partition_indexes(partitions);
    let request = DescribeProducersRequest::default().with_topics(vec![asked.clone(), asked]);
    let (answer, held, length) = broker.ask_held(0, &request);
    assert_eq!(answer.topics.len(), 2);
    for t in &answer.topics {
        assert_eq!(t.name.as_str(), "orders");
        assert_eq!(t.partitions.len(), 2_002);
        assert!(t.partitions[..2_000].iter().all(|p| p == &t.partitions[0]));
        assert_eq!(t.partitions[0].active_producers.len(), 100);
        assert_eq!(
            t.partitions[2_001].error_code,
            code(ResponseError::UnknownTopicOrPartition)
        );
    }
    assert!(length > 4_000 * 100 * 30, "{length} bytes");
    assert!(held < 16 * 1024, "{held} of {length} bytes held");
}

#[test]
fn describe_transactions_answers_a_repeated_id_from_one_encoding() {
    let mut broker = TestBroker::start();
    find_coordinator(&mut broker, 1, "tx");
    let init = InitProducerIdRequest::default()
        .with_transactional_id(Some(text("tx").into()))
        .with_transaction_timeout_ms(60_000)
        .with_producer_id((-1).into())
        .with_producer_epoch(-1);
    assert_eq!(broker.ask(4, &init).error_code, 0);
    let mut ids = vec![text("tx").into(); 20_000];
    ids.push(text("nobody").into());
    let request = DescribeTransactionsRequest::default().with_transactional_ids(ids);
    let (answer, held, length) = broker.ask_held(0, &request);
    assert_eq!(answer.transaction_states.len(), 20_001);
    let first = &answer.transaction_states[0];
    assert_eq!(first.error_code, 0);
    assert_eq!(first.transaction_state.as_str(), "Empty");
    assert!(answer.transaction_states[..20_000]
        .iter()
        .all(|s| s == first));
    assert_eq!(
        answer.transaction_states[20_000].error_code,
        code(ResponseError::TransactionalIdNotFound)
    );
    assert!(held < 1024, "{held} of {length} bytes held");
}
