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
    stream: TcpStream,
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
