//! Every handler's error paths, driven in process through [`crate::testing::TestBroker`]: the
//! request encoded as a client would, dispatched, the answer decoded and checked against what
//! Kafka 4.4 answers (its code, and its message where Kafka sends one).

mod cluster;
mod configs;
mod consumer_group;
mod fetch;
mod groups;
mod off_lock;
mod offsets;
mod produce;
mod topics;
mod txn;
mod txn_admin;

use kafka_protocol::messages::create_topics_request::CreatableTopic;
use kafka_protocol::messages::find_coordinator_request::FindCoordinatorRequest;
use kafka_protocol::messages::{CreateTopicsRequest, TopicName};
use kafka_protocol::ResponseError;
use kseg_format::encode::{encode_batch, NewBatch, NewRecord};

use crate::testing::{text, TestBroker};

/// The code Kafka answers with `error`.
fn code(error: ResponseError) -> i16 {
    error.code()
}

fn topic(name: &str) -> TopicName {
    TopicName(text(name))
}

/// Creates `name` with `partitions` partitions through CreateTopics v7.
fn create_topic(broker: &mut TestBroker, name: &str, partitions: i32) {
    let request = CreateTopicsRequest::default()
        .with_topics(vec![CreatableTopic::default()
            .with_name(topic(name))
            .with_num_partitions(partitions)
            .with_replication_factor(1)])
        .with_timeout_ms(30_000);
    let answer = broker.ask(7, &request);
    assert_eq!(answer.topics[0].error_code, 0, "{answer:?}");
}

/// Makes a coordinator topic exist (FindCoordinator creates it, as Kafka's does): key type 0
/// for `__consumer_offsets`, 1 for `__transaction_state`.
fn find_coordinator(broker: &mut TestBroker, key_type: i8, key: &str) {
    let request = FindCoordinatorRequest::default()
        .with_key_type(key_type)
        .with_coordinator_keys(vec![text(key)]);
    let answer = broker.ask(4, &request);
    assert_eq!(answer.coordinators[0].error_code, 0, "{answer:?}");
}

/// One v2 batch of `values` (keyed "k"), as a plain producer sends it.
fn batch(values: &[&[u8]]) -> Vec<u8> {
    batch_of(&NewBatch::default(), values)
}

fn batch_of(header: &NewBatch, values: &[&[u8]]) -> Vec<u8> {
    let records: Vec<NewRecord<'_>> = values
        .iter()
        .map(|v| NewRecord {
            timestamp: crate::now_ms(),
            key: Some(b"k"),
            value: Some(v),
            headers: &[],
        })
        .collect();
    let mut out = Vec::new();
    encode_batch(&mut out, header, &records, &mut Vec::new());
    out
}

/// A consumer's subscription to `topics` (`ConsumerProtocolSubscription` v0), as JoinGroup
/// metadata carries it.
fn subscription(topics: &[&str]) -> bytes::Bytes {
    let mut out = Vec::new();
    out.extend_from_slice(&0i16.to_be_bytes());
    out.extend_from_slice(&(topics.len() as i32).to_be_bytes());
    for t in topics {
        out.extend_from_slice(&(t.len() as i16).to_be_bytes());
        out.extend_from_slice(t.as_bytes());
    }
    out.extend_from_slice(&(-1i32).to_be_bytes());
    bytes::Bytes::from(out)
}

/// A classic consumer group of one member subscribed to `topics`, through JoinGroup v5 (a
/// member id asked for, then the join) and SyncGroup: the member id and the generation.
fn join_classic_group(broker: &mut TestBroker, group: &str, topics: &[&str]) -> (String, i32) {
    join_classic_group_of(broker, group, "consumer", topics)
}

/// [`join_classic_group`] with another protocol type (Connect's "connect", say).
fn join_classic_group_of(
    broker: &mut TestBroker,
    group: &str,
    protocol_type: &str,
    topics: &[&str],
) -> (String, i32) {
    use kafka_protocol::messages::join_group_request::JoinGroupRequestProtocol;
    use kafka_protocol::messages::{JoinGroupRequest, SyncGroupRequest};
    find_coordinator(broker, 0, group);
    let join = |member: &str| {
        JoinGroupRequest::default()
            .with_group_id(text(group).into())
            .with_session_timeout_ms(30_000)
            .with_rebalance_timeout_ms(30_000)
            .with_member_id(text(member))
            .with_protocol_type(text(protocol_type))
            .with_protocols(vec![JoinGroupRequestProtocol::default()
                .with_name(text("range"))
                .with_metadata(subscription(topics))])
    };
    let first = broker.ask(5, &join(""));
    assert_eq!(
        first.error_code,
        code(ResponseError::MemberIdRequired),
        "{first:?}"
    );
    let member = first.member_id.to_string();
    let joined = broker.ask(5, &join(&member));
    assert_eq!(joined.error_code, 0, "{joined:?}");
    let sync = SyncGroupRequest::default()
        .with_group_id(text(group).into())
        .with_generation_id(joined.generation_id)
        .with_member_id(text(&member));
    let synced = broker.ask(3, &sync);
    assert_eq!(synced.error_code, 0, "{synced:?}");
    (member, joined.generation_id)
}
