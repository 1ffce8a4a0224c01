//! Requests written to a broker's socket one by one, encoded with the kafka-protocol crate
//! (the mini-broker's own wire layer, so a test reads the answers the same way for both), so
//! that the mini-broker and a real Kafka can be asked exactly the same bytes and their answers
//! compared — including requests no client library would send.

use bytes::{Buf, BytesMut};
use kafka_protocol::messages::{
    create_topics_request::CreatableTopic,
    find_coordinator_request::FindCoordinatorRequest,
    offset_commit_request::OffsetCommitRequestPartition,
    offset_commit_request::OffsetCommitRequestTopic,
    offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic},
    offset_fetch_request::OffsetFetchRequestTopic,
    ApiKey, CreateTopicsRequest, CreateTopicsResponse, FindCoordinatorResponse, GroupId,
    OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse,
    OffsetFetchRequest, OffsetFetchResponse, RequestHeader, ResponseHeader, TopicName,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

/// One connection; every request gets the next correlation id.
pub struct Conn {
    pub stream: TcpStream,
    correlation: i32,
}

/// What came back for one request.
pub enum Answer<T> {
    Response(T),
    /// The broker closed the connection instead of answering (a request it cannot parse).
    Closed,
}

impl<T: std::fmt::Debug> Answer<T> {
    pub fn response(self, what: &str) -> T {
        match self {
            Answer::Response(r) => r,
            Answer::Closed => panic!("{what}: the broker closed the connection"),
        }
    }

    pub fn is_closed(&self) -> bool {
        matches!(self, Answer::Closed)
    }
}

impl Conn {
    pub fn connect(bootstrap: &str) -> Conn {
        let stream = TcpStream::connect(bootstrap).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Conn {
            stream,
            correlation: 0,
        }
    }

    /// Sends `request` as `api` at `version` and reads the answer.
    pub fn ask<Req, Resp>(&mut self, api: ApiKey, version: i16, request: &Req) -> Answer<Resp>
    where
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        self.correlation += 1;
        let header = RequestHeader::default()
            .with_request_api_key(api as i16)
            .with_request_api_version(version)
            .with_correlation_id(self.correlation)
            .with_client_id(Some(StrBytes::from_static_str("kseg-wire-test")));
        let mut body = BytesMut::new();
        header
            .encode(&mut body, Req::header_version(version))
            .expect("header");
        request.encode(&mut body, version).expect("request");
        let mut frame = (body.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        if self.stream.write_all(&frame).is_err() {
            return Answer::Closed;
        }
        let mut len = [0u8; 4];
        match self.stream.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Answer::Closed,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Answer::Closed,
            Err(e) => panic!("{api:?} v{version}: no answer ({e})"),
        }
        let mut bytes = vec![0u8; i32::from_be_bytes(len) as usize];
        self.stream.read_exact(&mut bytes).expect("response body");
        let mut buf = bytes::Bytes::from(bytes);
        let header = ResponseHeader::decode(&mut buf, Resp::header_version(version))
            .expect("response header");
        assert_eq!(header.correlation_id, self.correlation, "{api:?}");
        let response = Resp::decode(&mut buf, version).expect("response");
        assert_eq!(buf.remaining(), 0, "{api:?} v{version}: bytes left over");
        Answer::Response(response)
    }
}

/// Creates topic `name` (one partition, replication factor 1) with CreateTopics v7.
pub fn create_topic(bootstrap: &str, name: &str) {
    let request = CreateTopicsRequest::default()
        .with_topics(vec![CreatableTopic::default()
            .with_name(TopicName(StrBytes::from_string(name.to_string())))
            .with_num_partitions(1)
            .with_replication_factor(1)])
        .with_timeout_ms(30_000);
    let answer: CreateTopicsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::CreateTopics, 7, &request)
        .response("CreateTopics");
    assert_eq!(answer.topics[0].error_code, 0, "{answer:?}");
}

fn find_coordinator_request(group: &str) -> FindCoordinatorRequest {
    FindCoordinatorRequest::default()
        .with_key_type(0)
        .with_coordinator_keys(vec![StrBytes::from_string(group.to_string())])
}

/// FindCoordinator v4 for `group`: the answer, or Closed.
pub fn find_coordinator(conn: &mut Conn, group: &str) -> Answer<FindCoordinatorResponse> {
    conn.ask(ApiKey::FindCoordinator, 4, &find_coordinator_request(group))
}

/// Waits (≤ 60 s) until `group`'s coordinator is available (Kafka creates
/// `__consumer_offsets` on the first FindCoordinator and loads it).
pub fn wait_for_coordinator(bootstrap: &str, group: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer = find_coordinator(&mut conn, group).response("FindCoordinator");
        let code = answer.coordinators[0].error_code;
        if code == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "no coordinator: error {code}");
        thread::sleep(Duration::from_millis(200));
    }
}

/// Waits (≤ 60 s) until the transaction coordinator of `transactional_id` is available (Kafka
/// creates `__transaction_state` on the first FindCoordinator for a transactional id).
pub fn wait_for_txn_coordinator(bootstrap: &str, transactional_id: &str) {
    let request = find_coordinator_request(transactional_id).with_key_type(1);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer: FindCoordinatorResponse = conn
            .ask(ApiKey::FindCoordinator, 4, &request)
            .response("FindCoordinator");
        let code = answer.coordinators[0].error_code;
        if code == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no transaction coordinator: error {code}"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

/// OffsetCommit v9 of `offset` for `topic`-0 by `group`, as a standalone commit (generation -1,
/// no member): the answer, or Closed.
pub fn commit(
    conn: &mut Conn,
    group: &str,
    topic: &str,
    offset: i64,
) -> Answer<OffsetCommitResponse> {
    let request = OffsetCommitRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(group.to_string())))
        .with_generation_id_or_member_epoch(-1)
        .with_member_id(StrBytes::from_static_str(""))
        .with_topics(vec![OffsetCommitRequestTopic::default()
            .with_name(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partitions(vec![OffsetCommitRequestPartition::default()
                .with_partition_index(0)
                .with_committed_offset(offset)
                .with_committed_leader_epoch(-1)
                .with_committed_metadata(Some(StrBytes::from_static_str("")))])]);
    conn.ask(ApiKey::OffsetCommit, 9, &request)
}

/// Commits until the coordinator has loaded (≤ 60 s) and returns the partition's error code.
pub fn commit_when_loaded(bootstrap: &str, group: &str, topic: &str, offset: i64) -> i16 {
    const RETRIABLE: [i16; 3] = [14, 15, 16]; // load in progress, not available, not coordinator
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer = commit(&mut conn, group, topic, offset).response("OffsetCommit");
        let code = answer.topics[0].partitions[0].error_code;
        if !RETRIABLE.contains(&code) || Instant::now() > deadline {
            return code;
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// OffsetFetch v7 of `topic`-0 for `group`: the committed offset (-1 for none).
pub fn committed(bootstrap: &str, group: &str, topic: &str) -> i64 {
    let request = OffsetFetchRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(group.to_string())))
        .with_topics(Some(vec![OffsetFetchRequestTopic::default()
            .with_name(TopicName(StrBytes::from_string(topic.to_string())))
            .with_partition_indexes(vec![0])]));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer: OffsetFetchResponse = conn
            .ask(ApiKey::OffsetFetch, 7, &request)
            .response("OffsetFetch");
        // load in progress, not available, not coordinator: Kafka answers these while the
        // group's __consumer_offsets partition settles.
        if [14, 15, 16].contains(&answer.error_code) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(200));
            continue;
        }
        assert_eq!(answer.error_code, 0, "{answer:?}");
        let partition = &answer.topics[0].partitions[0];
        assert_eq!(partition.error_code, 0, "{answer:?}");
        return partition.committed_offset;
    }
}

/// The longest group id Kafka can parse and store (0x7fff bytes).
pub fn longest_group_id() -> String {
    "g".repeat(0x7fff)
}

/// Issue 23's lost commit, asked of any broker (the mini-broker and Kafka get the same
/// bytes): a 40,000-byte group id in a flexible FindCoordinator or OffsetCommit cannot be
/// parsed (Kafka's readers refuse a string over 0x7fff bytes), so the connection is closed —
/// never an acknowledged commit; a 0x7fff-byte id is stored, and offset 7 is committed for it
/// on `topic`-0. The broker keeps serving other connections.
pub fn oversized_group_ids(bootstrap: &str, topic: &str) {
    create_topic(bootstrap, topic);
    wait_for_coordinator(bootstrap, "a-short-group");
    let long = "g".repeat(40_000);
    assert!(
        find_coordinator(&mut Conn::connect(bootstrap), &long).is_closed(),
        "FindCoordinator with a 40,000-byte key was answered"
    );
    assert!(
        commit(&mut Conn::connect(bootstrap), &long, topic, 7).is_closed(),
        "OffsetCommit with a 40,000-byte group id was answered"
    );
    let longest = longest_group_id();
    wait_for_coordinator(bootstrap, &longest);
    assert_eq!(commit_when_loaded(bootstrap, &longest, topic, 7), 0);
    assert_eq!(committed(bootstrap, &longest, topic), 7);
}

/// An OffsetDelete answer: the request's error and each partition's `(topic, partition, error)`,
/// sorted (Kafka merges the partitions it refuses itself with the coordinator's answer, so the
/// order is not part of the contract).
pub type OffsetDeleteOutcome = (i16, Vec<(String, i32, i16)>);

/// OffsetDelete v0 of `group`'s offsets for `topics` (name, partitions).
pub fn delete_offsets(
    bootstrap: &str,
    group: &str,
    topics: &[(&str, &[i32])],
) -> OffsetDeleteOutcome {
    let request = OffsetDeleteRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(group.to_string())))
        .with_topics(
            topics
                .iter()
                .map(|(name, partitions)| {
                    OffsetDeleteRequestTopic::default()
                        .with_name(TopicName(StrBytes::from_string(name.to_string())))
                        .with_partitions(
                            partitions
                                .iter()
                                .map(|&p| {
                                    OffsetDeleteRequestPartition::default().with_partition_index(p)
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    let answer: OffsetDeleteResponse = Conn::connect(bootstrap)
        .ask(ApiKey::OffsetDelete, 0, &request)
        .response("OffsetDelete");
    let mut partitions: Vec<(String, i32, i16)> = answer
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| (t.name.as_str().to_string(), p.partition_index, p.error_code))
        })
        .collect();
    partitions.sort();
    (answer.error_code, partitions)
}

/// The group whose offsets [`offset_delete`] commits and deletes.
pub const OFFSET_DELETE_GROUP: &str = "offset-delete-group";

/// `kafka-consumer-groups --delete-offsets` at the wire, asked of any broker: a standalone
/// group's committed offset of `topic`-0 is deleted (NONE, then OffsetFetch says -1, and a
/// second delete is NONE again); a partition or topic that does not exist is
/// UNKNOWN_TOPIC_OR_PARTITION (3) beside it; a group that does not exist is GROUP_ID_NOT_FOUND
/// (69) and an empty group id INVALID_GROUP_ID (24), both for the whole request.
pub fn offset_delete(bootstrap: &str, topic: &str) {
    const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
    create_topic(bootstrap, topic);
    wait_for_coordinator(bootstrap, OFFSET_DELETE_GROUP);
    assert_eq!(
        commit_when_loaded(bootstrap, OFFSET_DELETE_GROUP, topic, 5),
        0
    );
    assert_eq!(committed(bootstrap, OFFSET_DELETE_GROUP, topic), 5);
    let asked: [(&str, &[i32]); 2] = [(topic, &[0, 9]), ("no-such-topic", &[0])];
    let expected = (
        0,
        vec![
            ("no-such-topic".to_string(), 0, UNKNOWN_TOPIC_OR_PARTITION),
            (topic.to_string(), 0, 0),
            (topic.to_string(), 9, UNKNOWN_TOPIC_OR_PARTITION),
        ],
    );
    assert_eq!(
        delete_offsets(bootstrap, OFFSET_DELETE_GROUP, &asked),
        expected
    );
    assert_eq!(committed(bootstrap, OFFSET_DELETE_GROUP, topic), -1);
    assert_eq!(
        delete_offsets(bootstrap, OFFSET_DELETE_GROUP, &asked),
        expected
    );
    assert_eq!(
        delete_offsets(bootstrap, "a-group-never-seen", &[(topic, &[0])]),
        (69, vec![])
    );
    assert_eq!(
        delete_offsets(bootstrap, "", &[(topic, &[0])]),
        (24, vec![])
    );
}

/// Creates `name` with `partitions` partitions by CreateTopics v7: the topic's error code.
pub fn create_topic_with(bootstrap: &str, name: &str, partitions: i32) -> i16 {
    let request = CreateTopicsRequest::default()
        .with_topics(vec![CreatableTopic::default()
            .with_name(TopicName(StrBytes::from_string(name.to_string())))
            .with_num_partitions(partitions)
            .with_replication_factor(1)])
        .with_timeout_ms(30_000);
    let answer: CreateTopicsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::CreateTopics, 7, &request)
        .response("CreateTopics");
    let code = answer.topics[0].error_code;
    if code == 0 {
        wait_for_topic(bootstrap, name, partitions);
    }
    code
}

/// Waits (≤ 30 s) until Metadata shows `topic` with `partitions` led partitions (Kafka's
/// brokers learn a new topic from the controller a moment after CreateTopics answers).
pub fn wait_for_topic(bootstrap: &str, topic: &str, partitions: i32) {
    use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
    use kafka_protocol::messages::{MetadataRequest, MetadataResponse};
    let request = MetadataRequest::default()
        .with_topics(Some(vec![
            MetadataRequestTopic::default().with_name(Some(TopicName(str(topic))))
        ]))
        .with_allow_auto_topic_creation(false);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer: MetadataResponse = conn
            .ask(ApiKey::Metadata, 12, &request)
            .response("Metadata");
        let t = &answer.topics[0];
        let ready = t.error_code == 0
            && t.partitions.len() == partitions as usize
            && t.partitions.iter().all(|p| p.leader_id.0 >= 0);
        if ready {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{topic} is not ready: {answer:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

fn str(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

/// A v2 batch of `count` records (values `v0`, `v1`, ...; timestamps `ts`, `ts + 1`, ...) from
/// producer `(id, epoch)` starting at `sequence`.
pub fn producer_batch(
    producer: (i64, i16),
    sequence: i32,
    transactional: bool,
    count: usize,
    ts: i64,
) -> bytes::Bytes {
    let values: Vec<Vec<u8>> = (0..count).map(|i| format!("v{i}").into_bytes()).collect();
    let values: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    batch_of(producer, sequence, transactional, &values, ts)
}

/// A non-transactional v2 batch of records with these values (timestamps `ts`, `ts + 1`, ...).
pub fn producer_batch_of(
    producer: (i64, i16),
    sequence: i32,
    values: &[&[u8]],
    ts: i64,
) -> bytes::Bytes {
    batch_of(producer, sequence, false, values, ts)
}

fn batch_of(
    producer: (i64, i16),
    sequence: i32,
    transactional: bool,
    values: &[&[u8]],
    ts: i64,
) -> bytes::Bytes {
    use kseg::format::encode::{encode_batch, NewBatch, NewRecord};
    let records: Vec<NewRecord> = values
        .iter()
        .enumerate()
        .map(|(i, v)| NewRecord {
            timestamp: ts + i as i64,
            key: None,
            value: Some(v),
            headers: &[],
        })
        .collect();
    let mut out = Vec::new();
    encode_batch(
        &mut out,
        &NewBatch {
            partition_leader_epoch: -1,
            transactional,
            producer_id: producer.0,
            producer_epoch: producer.1,
            base_sequence: sequence,
            ..Default::default()
        },
        &records,
        &mut Vec::new(),
    );
    bytes::Bytes::from(out)
}

/// Produce v9 of `batch` to `topic`-`partition` (acks -1): the partition's error code
/// (NOT_LEADER_OR_FOLLOWER retried for 30 s).
pub fn produce(
    conn: &mut Conn,
    transactional_id: Option<&str>,
    topic: &str,
    partition: i32,
    batch: bytes::Bytes,
) -> i16 {
    produce_answer(conn, transactional_id, topic, partition, batch).0
}

/// [`produce`], with the partition's error message.
pub fn produce_answer(
    conn: &mut Conn,
    transactional_id: Option<&str>,
    topic: &str,
    partition: i32,
    batch: bytes::Bytes,
) -> (i16, Option<String>) {
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_protocol::messages::{ProduceRequest, ProduceResponse, TransactionalId};
    let request = ProduceRequest::default()
        .with_transactional_id(transactional_id.map(|t| TransactionalId(str(t))))
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(str(topic)))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(batch))])]);
    // A topic just created may not have its leader yet (Kafka: NOT_LEADER_OR_FOLLOWER).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer: ProduceResponse = conn.ask(ApiKey::Produce, 9, &request).response("Produce");
        let p = &answer.responses[0].partition_responses[0];
        if p.error_code != 6 || Instant::now() > deadline {
            let message = p.error_message.as_ref().map(|m| m.as_str().to_string());
            return (p.error_code, message);
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// InitProducerId v4 (`transactional_id` `None`: an idempotent producer), retried while the
/// transaction coordinator loads (≤ 60 s): `(producer id, epoch)`.
pub fn init_producer_id(bootstrap: &str, transactional_id: Option<&str>) -> (i64, i16) {
    use kafka_protocol::messages::{
        InitProducerIdRequest, InitProducerIdResponse, TransactionalId,
    };
    let request = InitProducerIdRequest::default()
        .with_transactional_id(transactional_id.map(|t| TransactionalId(str(t))))
        .with_transaction_timeout_ms(60_000)
        .with_producer_id((-1).into())
        .with_producer_epoch(-1);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut conn = Conn::connect(bootstrap);
    loop {
        let answer: InitProducerIdResponse = conn
            .ask(ApiKey::InitProducerId, 4, &request)
            .response("InitProducerId");
        if answer.error_code == 0 {
            return (answer.producer_id.0, answer.producer_epoch);
        }
        // Loading, not available, not the coordinator, or (Kafka) still aborting the id's
        // previous transaction: CONCURRENT_TRANSACTIONS.
        assert!(
            [14, 15, 16, 51].contains(&answer.error_code) && Instant::now() < deadline,
            "InitProducerId: {answer:?}"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

/// The producers DescribeProducers v0 reports for `topic`-`partition`:
/// `(error, [(producer id, epoch, last sequence, last timestamp, coordinator epoch, current
/// transaction start offset)])`, sorted by producer id.
pub type Producers = (i16, Vec<(i64, i32, i32, i64, i32, i64)>);

/// DescribeProducers v0 of `asked` (topic, partitions): per topic and partition, the error,
/// its message, and the producers (as [`Producers`]).
#[allow(clippy::type_complexity)]
pub fn describe_producers(
    bootstrap: &str,
    asked: &[(&str, &[i32])],
) -> Vec<(
    String,
    i32,
    i16,
    Option<String>,
    Vec<(i64, i32, i32, i64, i32, i64)>,
)> {
    use kafka_protocol::messages::describe_producers_request::TopicRequest;
    use kafka_protocol::messages::{DescribeProducersRequest, DescribeProducersResponse};
    let request = DescribeProducersRequest::default().with_topics(
        asked
            .iter()
            .map(|(t, p)| {
                TopicRequest::default()
                    .with_name(TopicName(str(t)))
                    .with_partition_indexes(p.to_vec())
            })
            .collect(),
    );
    let answer: DescribeProducersResponse = Conn::connect(bootstrap)
        .ask(ApiKey::DescribeProducers, 0, &request)
        .response("DescribeProducers");
    let mut out = Vec::new();
    for t in answer.topics {
        for p in t.partitions {
            let mut producers: Vec<_> = p
                .active_producers
                .iter()
                .map(|s| {
                    (
                        s.producer_id.0,
                        s.producer_epoch,
                        s.last_sequence,
                        s.last_timestamp,
                        s.coordinator_epoch,
                        s.current_txn_start_offset,
                    )
                })
                .collect();
            producers.sort();
            out.push((
                t.name.as_str().to_string(),
                p.partition_index,
                p.error_code,
                p.error_message.map(|m| m.as_str().to_string()),
                producers,
            ));
        }
    }
    out
}

/// DescribeTransactions v0 of `ids`: per id, `(id, error, state, timeout, start time, producer
/// id, epoch, [(topic, partitions)])`.
#[allow(clippy::type_complexity)]
pub fn describe_transactions(
    bootstrap: &str,
    ids: &[&str],
) -> Vec<(
    String,
    i16,
    String,
    i32,
    i64,
    i64,
    i16,
    Vec<(String, Vec<i32>)>,
)> {
    use kafka_protocol::messages::{
        DescribeTransactionsRequest, DescribeTransactionsResponse, TransactionalId,
    };
    let request = DescribeTransactionsRequest::default()
        .with_transactional_ids(ids.iter().map(|i| TransactionalId(str(i))).collect());
    let answer: DescribeTransactionsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::DescribeTransactions, 0, &request)
        .response("DescribeTransactions");
    answer
        .transaction_states
        .into_iter()
        .map(|s| {
            (
                s.transactional_id.as_str().to_string(),
                s.error_code,
                s.transaction_state.as_str().to_string(),
                s.transaction_timeout_ms,
                s.transaction_start_time_ms,
                s.producer_id.0,
                s.producer_epoch,
                s.topics
                    .iter()
                    .map(|t| (t.topic.as_str().to_string(), t.partitions.clone()))
                    .collect(),
            )
        })
        .collect()
}

/// What ListTransactions answered: the error, the unknown state filters and the
/// `(transactional id, producer id, state)` of each transaction, sorted.
pub type Listed = (i16, Vec<String>, Vec<(String, i64, String)>);

/// ListTransactions at `version` with these filters.
pub fn list_transactions(
    bootstrap: &str,
    version: i16,
    states: &[&str],
    producer_ids: &[i64],
    duration: i64,
    pattern: Option<&str>,
) -> Listed {
    use kafka_protocol::messages::{ListTransactionsRequest, ListTransactionsResponse};
    let request = ListTransactionsRequest::default()
        .with_state_filters(states.iter().map(|s| str(s)).collect())
        .with_producer_id_filters(producer_ids.iter().map(|&p| p.into()).collect())
        .with_duration_filter(duration)
        .with_transactional_id_pattern(pattern.map(str));
    let answer: ListTransactionsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::ListTransactions, version, &request)
        .response("ListTransactions");
    let mut listed: Vec<_> = answer
        .transaction_states
        .iter()
        .map(|s| {
            (
                s.transactional_id.as_str().to_string(),
                s.producer_id.0,
                s.transaction_state.as_str().to_string(),
            )
        })
        .collect();
    listed.sort();
    (
        answer.error_code,
        answer
            .unknown_state_filters
            .iter()
            .map(|s| s.as_str().to_string())
            .collect(),
        listed,
    )
}

/// AddPartitionsToTxn v3: `topic`-`partition` joins the open transaction of `id`: its error.
pub fn add_partition_to_txn(
    bootstrap: &str,
    id: &str,
    producer: (i64, i16),
    topic: &str,
    partition: i32,
) -> i16 {
    use kafka_protocol::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
    use kafka_protocol::messages::{
        AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, TransactionalId,
    };
    let request = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id(TransactionalId(str(id)))
        .with_v3_and_below_producer_id(producer.0.into())
        .with_v3_and_below_producer_epoch(producer.1)
        .with_v3_and_below_topics(vec![AddPartitionsToTxnTopic::default()
            .with_name(TopicName(str(topic)))
            .with_partitions(vec![partition])]);
    let answer: AddPartitionsToTxnResponse = Conn::connect(bootstrap)
        .ask(ApiKey::AddPartitionsToTxn, 3, &request)
        .response("AddPartitionsToTxn");
    answer.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
}

/// EndTxn v3 of `id`'s transaction: its error.
pub fn end_txn(bootstrap: &str, id: &str, producer: (i64, i16), commit: bool) -> i16 {
    use kafka_protocol::messages::{EndTxnRequest, EndTxnResponse, TransactionalId};
    let request = EndTxnRequest::default()
        .with_transactional_id(TransactionalId(str(id)))
        .with_producer_id(producer.0.into())
        .with_producer_epoch(producer.1)
        .with_committed(commit);
    let answer: EndTxnResponse = Conn::connect(bootstrap)
        .ask(ApiKey::EndTxn, 3, &request)
        .response("EndTxn");
    answer.error_code
}

/// The transactional id [`transactions_described`] opens a transaction with.
pub const DESCRIBED_TXN: &str = "described-txn";

/// `kafka-transactions list / describe / describe-producers` at the wire, asked of any broker:
/// an idempotent producer writes 3 records to `topic`-0 and a transactional one 2 more in an
/// open transaction; DescribeProducers, ListTransactions (every filter) and
/// DescribeTransactions report them from the partition's producer state and the transaction
/// coordinator, with Kafka's errors for what does not exist; after the commit they report the
/// completed transaction. Returns the two producers, idempotent first.
pub fn transactions_described(bootstrap: &str, topic: &str) -> ((i64, i16), (i64, i16)) {
    const TS: i64 = 1_700_000_000_000;
    const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
    const INVALID_TOPIC: i16 = 17;
    const INVALID_REQUEST: i16 = 42;
    const TRANSACTIONAL_ID_NOT_FOUND: i16 = 105;
    const INVALID_REGULAR_EXPRESSION: i16 = 128;
    assert_eq!(create_topic_with(bootstrap, topic, 2), 0);
    let idempotent = init_producer_id(bootstrap, None);
    let mut conn = Conn::connect(bootstrap);
    let batch = producer_batch(idempotent, 0, false, 3, TS);
    assert_eq!(produce(&mut conn, None, topic, 0, batch), 0);
    wait_for_txn_coordinator(bootstrap, DESCRIBED_TXN);
    let txn = init_producer_id(bootstrap, Some(DESCRIBED_TXN));
    assert_eq!(
        add_partition_to_txn(bootstrap, DESCRIBED_TXN, txn, topic, 0),
        0
    );
    let batch = producer_batch(txn, 0, true, 2, TS + 10);
    assert_eq!(produce(&mut conn, Some(DESCRIBED_TXN), topic, 0, batch), 0);

    let described = describe_producers(
        bootstrap,
        &[
            (topic, &[0, 1, 7]),
            ("no-such-topic", &[0]),
            ("bad/name", &[0]),
        ],
    );
    let mut producers = vec![
        (idempotent.0, idempotent.1 as i32, 2, TS + 2, -1, -1),
        (txn.0, txn.1 as i32, 1, TS + 11, -1, 3),
    ];
    producers.sort();
    let expected = vec![
        (topic.to_string(), 0, 0, None, producers),
        (topic.to_string(), 1, 0, None, vec![]),
        (
            topic.to_string(),
            7,
            UNKNOWN_TOPIC_OR_PARTITION,
            None,
            vec![],
        ),
        (
            "no-such-topic".to_string(),
            0,
            UNKNOWN_TOPIC_OR_PARTITION,
            Some("This server does not host this topic-partition.".to_string()),
            vec![],
        ),
        (
            "bad/name".to_string(),
            0,
            INVALID_TOPIC,
            Some(
                "Topic name is invalid: 'bad/name' contains one or more characters other than \
                 ASCII alphanumerics, '.', '_' and '-'"
                    .to_string(),
            ),
            vec![],
        ),
    ];
    assert_eq!(described, expected);

    let ongoing = (DESCRIBED_TXN.to_string(), txn.0, "Ongoing".to_string());
    let ours = |l: Listed| -> Listed {
        (
            l.0,
            l.1,
            l.2.into_iter().filter(|t| t.0 == DESCRIBED_TXN).collect(),
        )
    };
    for version in 0..=2 {
        assert_eq!(
            ours(list_transactions(bootstrap, version, &[], &[], -1, None)),
            (0, vec![], vec![ongoing.clone()]),
            "ListTransactions v{version}"
        );
    }
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            0,
            &["Ongoing", "Bogus"],
            &[txn.0],
            -1,
            None
        )),
        (0, vec!["Bogus".to_string()], vec![ongoing.clone()])
    );
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            0,
            &["CompleteCommit"],
            &[],
            -1,
            None
        )),
        (0, vec![], vec![])
    );
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            0,
            &[],
            &[idempotent.0],
            -1,
            None
        )),
        (0, vec![], vec![])
    );
    assert_eq!(
        ours(list_transactions(bootstrap, 1, &[], &[], 3_600_000, None)),
        (0, vec![], vec![])
    );
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            2,
            &[],
            &[],
            -1,
            Some("described-t.*")
        )),
        (0, vec![], vec![ongoing.clone()])
    );
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            2,
            &[],
            &[],
            -1,
            Some("described")
        )),
        (0, vec![], vec![]),
        "a pattern matches the whole id"
    );
    assert_eq!(
        list_transactions(bootstrap, 2, &[], &[], -1, Some("[")),
        (INVALID_REGULAR_EXPRESSION, vec![], vec![])
    );

    let d = describe_transactions(bootstrap, &[DESCRIBED_TXN, "never-seen", ""]);
    assert_eq!(d.len(), 3, "{d:?}");
    let (id, error, state, timeout, start, pid, epoch, topics) = d[0].clone();
    assert_eq!(
        (id.as_str(), error, state.as_str(), timeout, pid, epoch),
        (DESCRIBED_TXN, 0, "Ongoing", 60_000, txn.0, txn.1),
        "{d:?}"
    );
    assert!(
        start > TS,
        "the start time is the AddPartitionsToTxn's: {d:?}"
    );
    assert_eq!(topics, vec![(topic.to_string(), vec![0])]);
    for (i, (want_id, want_error)) in [
        ("never-seen", TRANSACTIONAL_ID_NOT_FOUND),
        ("", INVALID_REQUEST),
    ]
    .into_iter()
    .enumerate()
    {
        let got = &d[i + 1];
        assert_eq!(
            (got.0.as_str(), got.1, got.2.as_str(), got.5, got.7.len()),
            (want_id, want_error, "", 0, 0),
            "{d:?}"
        );
    }

    assert_eq!(end_txn(bootstrap, DESCRIBED_TXN, txn, true), 0);
    // Kafka writes the markers after answering EndTxn (PrepareCommit until they are written).
    let deadline = Instant::now() + Duration::from_secs(30);
    let d = loop {
        let d = describe_transactions(bootstrap, &[DESCRIBED_TXN]);
        if d[0].2 != "PrepareCommit" || Instant::now() > deadline {
            break d;
        }
        thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        (d[0].1, d[0].2.as_str(), d[0].5, d[0].7.len()),
        (0, "CompleteCommit", txn.0, 0),
        "{d:?}"
    );
    assert_eq!(
        ours(list_transactions(
            bootstrap,
            0,
            &["CompleteCommit"],
            &[],
            -1,
            None
        )),
        (
            0,
            vec![],
            vec![(
                DESCRIBED_TXN.to_string(),
                txn.0,
                "CompleteCommit".to_string()
            )]
        )
    );
    let described = describe_producers(bootstrap, &[(topic, &[0])]);
    let producers = &described[0].4;
    assert_eq!(producers.len(), 2, "{described:?}");
    let t = producers.iter().find(|p| p.0 == txn.0).unwrap();
    assert_eq!(
        (t.2, t.5),
        (1, -1),
        "the marker ends the transaction: {described:?}"
    );
    assert!(t.4 >= 0, "the marker's coordinator epoch: {described:?}");
    assert!(
        t.3 > TS + 11,
        "the marker's timestamp is the last: {described:?}"
    );
    (idempotent, txn)
}

/// DescribeLogDirs at `version` (`None`: every partition): per log dir `(error, path, total
/// bytes, usable bytes, cordoned, [(topic, [(partition, size, offset lag, future)])])`, topics
/// and partitions sorted.
#[allow(clippy::type_complexity)]
pub fn describe_log_dirs(
    bootstrap: &str,
    version: i16,
    asked: Option<&[(&str, &[i32])]>,
) -> Vec<(
    i16,
    String,
    i64,
    i64,
    bool,
    Vec<(String, Vec<(i32, i64, i64, bool)>)>,
)> {
    use kafka_protocol::messages::describe_log_dirs_request::DescribableLogDirTopic;
    use kafka_protocol::messages::{DescribeLogDirsRequest, DescribeLogDirsResponse};
    let request = DescribeLogDirsRequest::default().with_topics(asked.map(|a| {
        a.iter()
            .map(|(t, p)| {
                DescribableLogDirTopic::default()
                    .with_topic(TopicName(str(t)))
                    .with_partitions(p.to_vec())
            })
            .collect()
    }));
    let answer: DescribeLogDirsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::DescribeLogDirs, version, &request)
        .response("DescribeLogDirs");
    assert_eq!(answer.error_code, 0, "{answer:?}");
    answer
        .results
        .iter()
        .map(|r| {
            let mut topics: Vec<_> = r
                .topics
                .iter()
                .map(|t| {
                    let mut p: Vec<_> = t
                        .partitions
                        .iter()
                        .map(|p| {
                            (
                                p.partition_index,
                                p.partition_size,
                                p.offset_lag,
                                p.is_future_key,
                            )
                        })
                        .collect();
                    p.sort();
                    (t.name.as_str().to_string(), p)
                })
                .collect();
            topics.sort();
            (
                r.error_code,
                r.log_dir.as_str().to_string(),
                r.total_bytes,
                r.usable_bytes,
                r.is_cordoned,
                topics,
            )
        })
        .collect()
}

/// `kafka-log-dirs --describe` at the wire, asked of any broker whose one log dir is `log_dir`
/// (absolute): `topic` is created with 2 partitions and 3 records go to partition 0; every
/// version reports the dir with partition 0's size (the batch's bytes) and partition 1 empty,
/// no lag; v4+ the volume's total and usable bytes; named partitions that do not exist are left
/// out.
pub fn log_dirs_described(bootstrap: &str, log_dir: &std::path::Path, topic: &str) {
    assert_eq!(create_topic_with(bootstrap, topic, 2), 0);
    let batch = producer_batch((-1, -1), -1, false, 3, 1_700_000_000_000);
    let size = batch.len() as i64;
    assert_eq!(
        produce(&mut Conn::connect(bootstrap), None, topic, 0, batch),
        0
    );
    let ours = vec![(
        topic.to_string(),
        vec![(0, size, 0, false), (1, 0, 0, false)],
    )];
    for version in 1..=5 {
        let dirs = describe_log_dirs(bootstrap, version, None);
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        let (error, path, total, usable, cordoned, topics) = dirs[0].clone();
        assert_eq!(
            (error, path.as_str(), cordoned),
            (0, log_dir.to_str().unwrap(), false)
        );
        let mine: Vec<_> = topics.into_iter().filter(|t| t.0 == topic).collect();
        assert_eq!(mine, ours, "DescribeLogDirs v{version}");
        if version >= 4 {
            assert!(total > 0 && usable >= 0 && usable <= total, "{dirs:?}");
        } else {
            assert_eq!((total, usable), (-1, -1), "{dirs:?}");
        }
    }
    let asked: [(&str, &[i32]); 2] = [(topic, &[1, 9]), ("no-such-topic", &[0])];
    let dirs = describe_log_dirs(bootstrap, 5, Some(&asked));
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert_eq!(
        dirs[0].5,
        vec![(topic.to_string(), vec![(1, 0, 0, false)])],
        "only what exists of what was asked"
    );
    assert_eq!(
        describe_log_dirs(bootstrap, 5, Some(&[]))[0].5,
        vec![],
        "no topics asked: none described"
    );
}

/// `kafka-metadata-quorum describe --status / --replication` at the wire, asked of any
/// single-node KRaft broker whose node id is 1: every version describes `__cluster_metadata-0`
/// with node 1 as leader and only voter (its log end at or past the high watermark, fetch and
/// caught-up times now from v1), no observers, and from v2 the voter's one `CONTROLLER`
/// endpoint on 127.0.0.1; any other partition is UNKNOWN_TOPIC_OR_PARTITION. Returns the v2
/// answer's `(leader epoch, high watermark)`.
pub fn quorum_described(bootstrap: &str) -> (i32, i64) {
    use kafka_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
    use kafka_protocol::messages::{DescribeQuorumRequest, DescribeQuorumResponse};
    let ask = |version: i16, topic: &str, partition: i32| -> DescribeQuorumResponse {
        let request = DescribeQuorumRequest::default().with_topics(vec![TopicData::default()
            .with_topic_name(TopicName(str(topic)))
            .with_partitions(vec![
                PartitionData::default().with_partition_index(partition)
            ])]);
        Conn::connect(bootstrap)
            .ask(ApiKey::DescribeQuorum, version, &request)
            .response("DescribeQuorum")
    };
    let mut last = (0, 0);
    for version in 0..=2 {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let answer = ask(version, "__cluster_metadata", 0);
        assert_eq!(
            (answer.error_code, answer.topics.len()),
            (0, 1),
            "{answer:?}"
        );
        let t = &answer.topics[0];
        assert_eq!(
            (t.topic_name.as_str(), t.partitions.len()),
            ("__cluster_metadata", 1)
        );
        let p = &t.partitions[0];
        assert_eq!(
            (p.partition_index, p.error_code, p.leader_id.0),
            (0, 0, 1),
            "{answer:?}"
        );
        assert!(p.leader_epoch >= 1 && p.high_watermark >= 0, "{answer:?}");
        assert!(p.observers.is_empty(), "{answer:?}");
        assert_eq!(p.current_voters.len(), 1, "{answer:?}");
        let v = &p.current_voters[0];
        assert_eq!(v.replica_id.0, 1);
        assert!(v.log_end_offset >= p.high_watermark, "{answer:?}");
        if version >= 1 {
            assert!(
                v.last_fetch_timestamp >= before && v.last_caught_up_timestamp >= before,
                "the leader's own times are now: {answer:?}"
            );
        }
        if version >= 2 {
            assert_eq!(v.replica_directory_id, uuid::Uuid::nil(), "a static voter");
            assert_eq!(answer.nodes.len(), 1, "{answer:?}");
            let n = &answer.nodes[0];
            let listeners: Vec<_> = n
                .listeners
                .iter()
                .map(|l| (l.name.as_str(), l.host.as_str()))
                .collect();
            assert_eq!(
                (n.node_id.0, listeners),
                (1, vec![("CONTROLLER", "127.0.0.1")]),
                "{answer:?}"
            );
        } else {
            assert!(answer.nodes.is_empty());
        }
        last = (p.leader_epoch, p.high_watermark);
    }
    for (topic, partition) in [("t", 0), ("__cluster_metadata", 1)] {
        let answer = ask(2, topic, partition);
        let p = &answer.topics[0].partitions[0];
        assert_eq!(
            (
                answer.error_code,
                p.partition_index,
                p.error_code,
                p.error_message.as_ref().map(|m| m.as_str())
            ),
            (
                0,
                partition,
                3,
                Some("This server does not host this topic-partition.")
            ),
            "{answer:?}"
        );
    }
    last
}

/// CreatePartitions v3 of `(topic, count)`s: each result's `(name, error, message)`, sorted
/// (Kafka answers from a hash set: the order is not part of the contract).
pub fn create_partitions(
    bootstrap: &str,
    topics: &[(&str, i32)],
    validate_only: bool,
) -> Vec<(String, i16, Option<String>)> {
    use kafka_protocol::messages::create_partitions_request::CreatePartitionsTopic;
    use kafka_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};
    let request = CreatePartitionsRequest::default()
        .with_timeout_ms(30_000)
        .with_validate_only(validate_only)
        .with_topics(
            topics
                .iter()
                .map(|(t, c)| {
                    CreatePartitionsTopic::default()
                        .with_name(TopicName(str(t)))
                        .with_count(*c)
                        .with_assignments(None)
                })
                .collect(),
        );
    let answer: CreatePartitionsResponse = Conn::connect(bootstrap)
        .ask(ApiKey::CreatePartitions, 3, &request)
        .response("CreatePartitions");
    let mut out: Vec<_> = answer
        .results
        .iter()
        .map(|r| {
            (
                r.name.as_str().to_string(),
                r.error_code,
                r.error_message.as_ref().map(|m| m.as_str().to_string()),
            )
        })
        .collect();
    out.sort();
    out
}

/// Issue 26: CreatePartitions refused as Kafka 4.4 refuses it, asked of any broker: 2^31-1
/// partitions, or more than 10,000 new ones over a whole request (here 6,000 + 6,000, and with
/// `validate_only`), refuse every topic of the request with POLICY_VIOLATION at once and create
/// nothing; a name asked twice gets one INVALID_REQUEST; an unknown topic, a count that is no
/// increase, then a fitting request that creates its partitions.
pub fn create_partitions_refused(bootstrap: &str, a: &str, b: &str) {
    const TOO_MANY: &str = "Excessively large number of additional partitions per request.";
    let policy = |t: &str| (t.to_string(), 44, Some(TOO_MANY.to_string()));
    assert_eq!(create_topic_with(bootstrap, a, 1), 0);
    assert_eq!(create_topic_with(bootstrap, b, 1), 0);
    assert_eq!(
        create_partitions(bootstrap, &[(a, i32::MAX)], false),
        vec![policy(a)]
    );
    for validate_only in [false, true] {
        assert_eq!(
            create_partitions(bootstrap, &[(a, 6_001), (b, 6_001)], validate_only),
            vec![policy(a), policy(b)]
        );
    }
    assert_eq!(
        create_partitions(bootstrap, &[(a, 3), (b, 2), (a, 4)], false),
        vec![
            (a.to_string(), 42, Some("Duplicate topic name.".to_string())),
            (b.to_string(), 0, None)
        ]
    );
    assert_eq!(
        create_partitions(bootstrap, &[("no-such-topic", 2), (a, 0)], false),
        vec![
            (
                a.to_string(),
                37,
                Some(format!(
                    "The topic {a} currently has 1 partition(s); 0 would not be an increase."
                ))
            ),
            ("no-such-topic".to_string(), 3, None),
        ]
    );
    assert_eq!(
        create_partitions(bootstrap, &[(a, 1)], false),
        vec![(
            a.to_string(),
            37,
            Some("Topic already has 1 partition(s).".to_string())
        )],
        "nothing was created by the refused requests"
    );
    assert_eq!(
        create_partitions(bootstrap, &[(a, 3)], false),
        vec![(a.to_string(), 0, None)]
    );
    assert_eq!(
        create_partitions(bootstrap, &[(a, 3), (b, 2)], true),
        vec![
            (
                a.to_string(),
                37,
                Some("Topic already has 3 partition(s).".to_string())
            ),
            (
                b.to_string(),
                37,
                Some("Topic already has 2 partition(s).".to_string())
            ),
        ]
    );
}

/// Issue 26: a client's Produce into `__consumer_offsets` or `__transaction_state` is refused
/// as Kafka 4.4 refuses it (INVALID_TOPIC_EXCEPTION, no message: Kafka's Produce answers one
/// only for records that fail validation; a partition that does not exist is
/// UNKNOWN_TOPIC_OR_PARTITION first), asked of any broker:
/// a forged commit (an OffsetCommit key and value) would otherwise be served to the group.
pub fn internal_topics_refused(bootstrap: &str, group: &str) {
    wait_for_coordinator(bootstrap, group);
    wait_for_txn_coordinator(bootstrap, "internal-refusal");
    let mut conn = Conn::connect(bootstrap);
    for topic in ["__consumer_offsets", "__transaction_state"] {
        let batch = producer_batch((-1, -1), -1, false, 1, 1_700_000_000_000);
        assert_eq!(
            produce_answer(&mut conn, None, topic, 0, batch),
            (17, None),
            "{topic}"
        );
        let batch = producer_batch((-1, -1), -1, false, 1, 1_700_000_000_000);
        assert_eq!(
            produce_answer(&mut conn, None, topic, 9_999, batch).0,
            3,
            "{topic}"
        );
    }
}

/// OffsetCommit v9 by `group` as `(member, generation)` of `(topic, partition, offset)`s: each
/// partition's `(topic, partition, error)`, sorted.
pub fn commit_many(
    bootstrap: &str,
    group: &str,
    member: (&str, i32),
    offsets: &[(&str, i32, i64)],
) -> Vec<(String, i32, i16)> {
    let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
    for &(topic, partition, offset) in offsets {
        let p = OffsetCommitRequestPartition::default()
            .with_partition_index(partition)
            .with_committed_offset(offset)
            .with_committed_leader_epoch(-1)
            .with_committed_metadata(Some(StrBytes::from_static_str("")));
        match topics.iter_mut().find(|t| t.name.as_str() == topic) {
            Some(t) => t.partitions.push(p),
            None => topics.push(
                OffsetCommitRequestTopic::default()
                    .with_name(TopicName(str(topic)))
                    .with_partitions(vec![p]),
            ),
        }
    }
    let request = OffsetCommitRequest::default()
        .with_group_id(GroupId(str(group)))
        .with_generation_id_or_member_epoch(member.1)
        .with_member_id(str(member.0))
        .with_topics(topics);
    let answer: OffsetCommitResponse = Conn::connect(bootstrap)
        .ask(ApiKey::OffsetCommit, 9, &request)
        .response("OffsetCommit");
    let mut out: Vec<_> = answer
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| (t.name.as_str().to_string(), p.partition_index, p.error_code))
        })
        .collect();
    out.sort();
    out
}

/// Every offset `group` has committed (OffsetFetch v7, all topics): `(topic, partition,
/// offset)`, sorted.
pub fn all_committed(bootstrap: &str, group: &str) -> Vec<(String, i32, i64)> {
    let request = OffsetFetchRequest::default()
        .with_group_id(GroupId(str(group)))
        .with_topics(None);
    let answer: OffsetFetchResponse = Conn::connect(bootstrap)
        .ask(ApiKey::OffsetFetch, 7, &request)
        .response("OffsetFetch");
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let mut out: Vec<_> = answer
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions.iter().map(|p| {
                (
                    t.name.as_str().to_string(),
                    p.partition_index,
                    p.committed_offset,
                )
            })
        })
        .collect();
    out.sort();
    out
}

/// Issue 26: commits to partitions that do not exist are UNKNOWN_TOPIC_OR_PARTITION and never
/// stored, as Kafka 4.4 answers, asked of any broker: beside a partition that exists (stored),
/// and alone — then the group's member checks are not even made (an unknown member gets
/// UNKNOWN_TOPIC_OR_PARTITION, not UNKNOWN_MEMBER_ID).
pub fn commits_to_missing_partitions_refused(bootstrap: &str, topic: &str, group: &str) {
    const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
    assert_eq!(create_topic_with(bootstrap, topic, 1), 0);
    wait_for_coordinator(bootstrap, group);
    assert_eq!(commit_when_loaded(bootstrap, group, topic, 1), 0);
    let asked = [(topic, 0, 5), (topic, 3, 6), ("no-such-topic", 0, 7)];
    let sorted = |mut v: Vec<(String, i32, i16)>| {
        v.sort();
        v
    };
    assert_eq!(
        commit_many(bootstrap, group, ("", -1), &asked),
        sorted(vec![
            ("no-such-topic".to_string(), 0, UNKNOWN_TOPIC_OR_PARTITION),
            (topic.to_string(), 0, 0),
            (topic.to_string(), 3, UNKNOWN_TOPIC_OR_PARTITION),
        ])
    );
    let missing = [(topic, 1, 8), ("no-such-topic", 2, 9)];
    assert_eq!(
        commit_many(bootstrap, group, ("no-such-member", 7), &missing),
        sorted(vec![
            ("no-such-topic".to_string(), 2, UNKNOWN_TOPIC_OR_PARTITION),
            (topic.to_string(), 1, UNKNOWN_TOPIC_OR_PARTITION),
        ])
    );
    assert_eq!(
        all_committed(bootstrap, group),
        vec![(topic.to_string(), 0, 5)]
    );
}

/// Issue 26: a Metadata request naming one topic many times is answered once per topic (Kafka
/// asks its metadata cache for a set), asked of any broker: `topic` (3 partitions) named 20,000
/// times beside one unknown topic named twice.
pub fn metadata_answers_a_repeated_topic_once(bootstrap: &str, topic: &str) {
    use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
    use kafka_protocol::messages::{MetadataRequest, MetadataResponse};
    assert_eq!(create_topic_with(bootstrap, topic, 3), 0);
    let named = |t: &str| MetadataRequestTopic::default().with_name(Some(TopicName(str(t))));
    let mut topics: Vec<MetadataRequestTopic> = (0..20_000).map(|_| named(topic)).collect();
    topics.push(named("no-such-topic"));
    topics.push(named("no-such-topic"));
    let request = MetadataRequest::default()
        .with_topics(Some(topics))
        .with_allow_auto_topic_creation(false);
    let answer: MetadataResponse = Conn::connect(bootstrap)
        .ask(ApiKey::Metadata, 12, &request)
        .response("Metadata");
    let mut got: Vec<(String, i16, usize)> = answer
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_ref().map_or("", |n| n.as_str()).to_string(),
                t.error_code,
                t.partitions.len(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("no-such-topic".to_string(), 3, 0),
            (topic.to_string(), 0, 3)
        ]
    );
}

/// OffsetFetch v9 of every offset of `group`, the group named `times` times: each group's
/// answer as `(group, error, [(topic, partition, offset)])`.
#[allow(clippy::type_complexity)]
pub fn fetch_group_repeated(
    bootstrap: &str,
    group: &str,
    times: usize,
) -> Vec<(String, i16, Vec<(String, i32, i64)>)> {
    use kafka_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
    let request = OffsetFetchRequest::default().with_groups(
        (0..times)
            .map(|_| {
                OffsetFetchRequestGroup::default()
                    .with_group_id(GroupId(str(group)))
                    .with_topics(None)
            })
            .collect(),
    );
    let mut conn = Conn::connect(bootstrap);
    conn.stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let answer: OffsetFetchResponse = conn
        .ask(ApiKey::OffsetFetch, 9, &request)
        .response("OffsetFetch");
    answer
        .groups
        .iter()
        .map(|g| {
            let mut offsets: Vec<_> = g
                .topics
                .iter()
                .flat_map(|t| {
                    t.partitions.iter().map(|p| {
                        (
                            t.name.as_str().to_string(),
                            p.partition_index,
                            p.committed_offset,
                        )
                    })
                })
                .collect();
            offsets.sort();
            (g.group_id.as_str().to_string(), g.error_code, offsets)
        })
        .collect()
}

/// DescribeConfigs v4 of topic `topic`, named `times` times: each result's `(error, name,
/// [(config, value)])`.
#[allow(clippy::type_complexity)]
pub fn describe_topic_repeated(
    bootstrap: &str,
    topic: &str,
    times: usize,
) -> Vec<(i16, String, Vec<(String, Option<String>)>)> {
    use kafka_protocol::messages::describe_configs_request::DescribeConfigsResource;
    use kafka_protocol::messages::{DescribeConfigsRequest, DescribeConfigsResponse};
    let request = DescribeConfigsRequest::default().with_resources(
        (0..times)
            .map(|_| {
                DescribeConfigsResource::default()
                    .with_resource_type(2)
                    .with_resource_name(str(topic))
                    .with_configuration_keys(None)
            })
            .collect(),
    );
    let mut conn = Conn::connect(bootstrap);
    conn.stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let answer: DescribeConfigsResponse = conn
        .ask(ApiKey::DescribeConfigs, 4, &request)
        .response("DescribeConfigs");
    answer
        .results
        .iter()
        .map(|r| {
            let mut configs: Vec<_> = r
                .configs
                .iter()
                .map(|c| {
                    (
                        c.name.as_str().to_string(),
                        c.value.as_ref().map(|v| v.as_str().to_string()),
                    )
                })
                .collect();
            configs.sort();
            (r.error_code, r.resource_name.as_str().to_string(), configs)
        })
        .collect()
}

/// Issue 26, asked of any broker: OffsetFetch naming a group three times and DescribeConfigs
/// naming a topic three times answer each one, the same answer each time (Kafka does not
/// collapse these; the mini-broker builds the answer once and repeats it).
pub fn repeated_groups_and_configs_answered_each_time(bootstrap: &str, topic: &str, group: &str) {
    assert_eq!(create_topic_with(bootstrap, topic, 1), 0);
    wait_for_coordinator(bootstrap, group);
    assert_eq!(commit_when_loaded(bootstrap, group, topic, 4), 0);
    let groups = fetch_group_repeated(bootstrap, group, 3);
    let one = (group.to_string(), 0, vec![(topic.to_string(), 0, 4)]);
    assert_eq!(groups, vec![one.clone(), one.clone(), one]);
    let described = describe_topic_repeated(bootstrap, topic, 3);
    assert_eq!(described.len(), 3);
    assert_eq!((described[0].0, described[0].1.as_str()), (0, topic));
    assert!(
        described[0].2.iter().any(|c| c.0 == "retention.ms"),
        "{described:?}"
    );
    assert!(described.iter().all(|d| *d == described[0]));
}
