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
