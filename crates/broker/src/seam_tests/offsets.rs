//! OffsetCommit, OffsetFetch and OffsetDelete: what Kafka refuses, and that a refused commit
//! leaves nothing behind, on disk included (the broker restarted on its dir).

use kafka_protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kafka_protocol::messages::offset_delete_request::{
    OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
};
use kafka_protocol::messages::offset_fetch_request::{
    OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use kafka_protocol::messages::{
    ApiKey, OffsetCommitRequest, OffsetDeleteRequest, OffsetFetchRequest,
};
use kafka_protocol::ResponseError;

use super::{
    code, create_topic, find_coordinator, join_classic_group, join_classic_group_of, topic,
};
use crate::testing::{text, Outcome, TestBroker};

/// OffsetCommit v8 of offset 5 for each `(topic, partition)`.
fn commit_request(
    group: &str,
    member: &str,
    generation: i32,
    partitions: &[(&str, i32)],
) -> OffsetCommitRequest {
    let topics = partitions
        .iter()
        .map(|(name, partition)| {
            OffsetCommitRequestTopic::default()
                .with_name(topic(name))
                .with_partitions(vec![OffsetCommitRequestPartition::default()
                    .with_partition_index(*partition)
                    .with_committed_offset(5)])
        })
        .collect();
    OffsetCommitRequest::default()
        .with_group_id(text(group).into())
        .with_generation_id_or_member_epoch(generation)
        .with_member_id(text(member))
        .with_topics(topics)
}

fn commit(
    broker: &mut TestBroker,
    group: &str,
    member: &str,
    generation: i32,
    partitions: &[(&str, i32)],
) -> Vec<i16> {
    let answer = broker.ask(8, &commit_request(group, member, generation, partitions));
    answer
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter().map(|p| p.error_code))
        .collect()
}

/// The committed offset of `group` for `orders`-0 (OffsetFetch v7), -1 when none.
fn committed(broker: &mut TestBroker, group: &str) -> i64 {
    let request = OffsetFetchRequest::default()
        .with_group_id(text(group).into())
        .with_topics(Some(vec![OffsetFetchRequestTopic::default()
            .with_name(topic("orders"))
            .with_partition_indexes(vec![0])]));
    let answer = broker.ask(7, &request);
    answer.topics[0].partitions[0].committed_offset
}

#[test]
fn offset_commit_of_an_unknown_partition() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    find_coordinator(&mut broker, 0, "g");
    let unknown = code(ResponseError::UnknownTopicOrPartition);
    assert_eq!(
        commit(
            &mut broker,
            "g",
            "",
            -1,
            &[("orders", 1), ("nowhere", 0), ("orders", 0)]
        ),
        [unknown, unknown, 0]
    );
    assert_eq!(committed(&mut broker, "g"), 5);
}

#[test]
fn offset_commit_with_a_group_id_too_long_to_store() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    find_coordinator(&mut broker, 0, "g");
    // Only a flexible version (v8+, a compact string) can even carry a 40,000-byte id, and
    // Kafka's generated parser refuses a string over 0x7fff bytes: the request is not parsed
    // and the connection closes, before any coordinator sees it.
    let group = "g".repeat(40_000);
    for version in [8, 9] {
        let request = commit_request(&group, "", -1, &[("orders", 0)]);
        match broker.send(ApiKey::OffsetCommit, version, version, &request) {
            Outcome::Closed(why) => assert!(why.contains("over 32767"), "{why}"),
            other => panic!("v{version}: {other:?}"),
        }
    }
    let stored = |broker: &TestBroker| broker.broker().groups.committed_partitions(&group);
    assert!(stored(&broker).is_empty());
    broker.restart();
    assert!(stored(&broker).is_empty());
    // The longest id a request carries (32767 bytes) is stored, and kept.
    let longest = "l".repeat(0x7fff);
    assert_eq!(commit(&mut broker, &longest, "", -1, &[("orders", 0)]), [0]);
    broker.restart();
    assert_eq!(committed(&mut broker, &longest), 5);
}

#[test]
fn offset_commit_with_a_stale_member() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let (member, generation) = join_classic_group(&mut broker, "g", &["orders"]);
    assert_eq!(
        commit(&mut broker, "g", "ghost", generation, &[("orders", 0)]),
        [code(ResponseError::UnknownMemberId)]
    );
    assert_eq!(
        commit(&mut broker, "g", &member, generation + 1, &[("orders", 0)]),
        [code(ResponseError::IllegalGeneration)]
    );
    assert_eq!(committed(&mut broker, "g"), -1);
    assert_eq!(
        commit(&mut broker, "g", &member, generation, &[("orders", 0)]),
        [0]
    );
    // What was committed is kept across a restart.
    broker.restart();
    assert_eq!(committed(&mut broker, "g"), 5);
}

#[test]
fn offset_fetch_of_a_group_asked_many_times() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    find_coordinator(&mut broker, 0, "g");
    assert_eq!(commit(&mut broker, "g", "", -1, &[("orders", 0)]), [0]);
    let group = OffsetFetchRequestGroup::default()
        .with_group_id(text("g").into())
        .with_topics(Some(vec![OffsetFetchRequestTopics::default()
            .with_name(topic("orders"))
            .with_partition_indexes(vec![0])]));
    let request = OffsetFetchRequest::default().with_groups(vec![group; 10_000]);
    let answer = broker.ask(8, &request);
    // Each group asked is answered, in order, as Kafka does (the answer is encoded once).
    assert_eq!(answer.groups.len(), 10_000);
    for g in &answer.groups {
        assert_eq!(g.error_code, 0, "{g:?}");
        assert_eq!(g.topics[0].partitions[0].committed_offset, 5, "{g:?}");
    }
}

fn delete_offsets(broker: &mut TestBroker, group: &str, topics: &[&str]) -> (i16, Vec<i16>) {
    let request = OffsetDeleteRequest::default()
        .with_group_id(text(group).into())
        .with_topics(
            topics
                .iter()
                .map(|name| {
                    OffsetDeleteRequestTopic::default()
                        .with_name(topic(name))
                        .with_partitions(vec![
                            OffsetDeleteRequestPartition::default().with_partition_index(0)
                        ])
                })
                .collect(),
        );
    let answer = broker.ask(0, &request);
    let codes = answer
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter().map(|p| p.error_code))
        .collect();
    (answer.error_code, codes)
}

#[test]
fn offset_delete_errors() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    create_topic(&mut broker, "audit", 1);
    find_coordinator(&mut broker, 0, "nowhere");
    assert_eq!(
        delete_offsets(&mut broker, "nowhere", &["orders"]),
        (code(ResponseError::GroupIdNotFound), vec![])
    );
    assert_eq!(
        delete_offsets(&mut broker, "", &["orders"]),
        (code(ResponseError::InvalidGroupId), vec![])
    );
    // A consumer group with a member subscribed to `orders`: its offsets stay; those of a
    // topic it does not read go.
    let (member, generation) = join_classic_group(&mut broker, "g", &["orders"]);
    assert_eq!(
        commit(
            &mut broker,
            "g",
            &member,
            generation,
            &[("orders", 0), ("audit", 0)]
        ),
        [0, 0]
    );
    assert_eq!(
        delete_offsets(&mut broker, "g", &["orders", "audit", "nowhere"]),
        (
            0,
            vec![
                code(ResponseError::GroupSubscribedToTopic),
                0,
                code(ResponseError::UnknownTopicOrPartition)
            ]
        )
    );
    assert_eq!(committed(&mut broker, "g"), 5);
}

#[test]
fn offset_commit_to_a_group_that_is_not_there_or_busy() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    find_coordinator(&mut broker, 0, "nowhere");
    // A generation for a group that is not there (OffsetMetadataManager.validateOffsetCommit):
    // ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9.
    let request = commit_request("nowhere", "m", 3, &[("orders", 0)]);
    let answer = broker.ask(8, &request);
    assert_eq!(
        answer.topics[0].partitions[0].error_code,
        code(ResponseError::IllegalGeneration)
    );
    let answer = broker.ask(9, &request);
    assert_eq!(
        answer.topics[0].partitions[0].error_code,
        code(ResponseError::GroupIdNotFound)
    );
    assert!(broker.broker().groups.group("nowhere").is_none());
    // No generation: an empty group takes the commit, whatever member id it names.
    find_coordinator(&mut broker, 0, "simple");
    assert_eq!(commit(&mut broker, "simple", "", -1, &[("orders", 0)]), [0]);
    assert_eq!(
        commit(&mut broker, "simple", "anyone", -1, &[("orders", 0)]),
        [0]
    );
    // A commit without member or generation to a group with members.
    let (_, _) = join_classic_group(&mut broker, "g", &["orders"]);
    assert_eq!(
        commit(&mut broker, "g", "", -1, &[("orders", 0)]),
        [code(ResponseError::UnknownMemberId)]
    );
}

#[test]
fn offset_delete_of_a_busy_group_of_another_protocol() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let (member, generation) = join_classic_group_of(&mut broker, "workers", "connect", &[]);
    assert_eq!(
        commit(
            &mut broker,
            "workers",
            &member,
            generation,
            &[("orders", 0)]
        ),
        [0]
    );
    // ClassicGroup.validateDeleteOffsets: a group with members that is not a consumer group.
    assert_eq!(
        delete_offsets(&mut broker, "workers", &["orders"]),
        (code(ResponseError::NonEmptyGroup), vec![])
    );
}
