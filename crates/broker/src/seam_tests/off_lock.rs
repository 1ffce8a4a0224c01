//! Issue 23: no request waits for another's disk I/O. The requests whose files Kafka makes or
//! moves off a request handler's thread (CreateTopics, auto-creation, DeleteTopics) do that work
//! without the broker lock: another request is answered while it is held
//! ([`TestBroker::ask_during`]), and what lands on disk is what Kafka writes.

use std::fs;
use std::path::Path;

use bytes::Bytes;
use kafka_protocol::messages::create_topics_request::CreatableTopic;
use kafka_protocol::messages::delete_topics_request::DeleteTopicState;
use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    ApiVersionsRequest, CreateTopicsRequest, DeleteTopicsRequest, FindCoordinatorRequest,
    MetadataRequest, ProduceRequest,
};

use super::{batch, create_topic, topic};
use crate::core::OFFSETS_TOPIC;
use crate::files::RECOVERY_POINT_CHECKPOINT;
use crate::testing::{text, TestBroker};

fn produce_request(name: &str, records: Vec<u8>) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(topic(name))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Bytes::from(records)))])])
}

fn delete_request(name: &str) -> DeleteTopicsRequest {
    DeleteTopicsRequest::default()
        .with_topics(vec![
            DeleteTopicState::default().with_name(Some(topic(name)))
        ])
        .with_timeout_ms(30_000)
}

fn metadata_request(name: &str) -> MetadataRequest {
    MetadataRequest::default()
        .with_topics(Some(vec![
            MetadataRequestTopic::default().with_name(Some(topic(name)))
        ]))
        .with_allow_auto_topic_creation(true)
}

/// The entries of the log dir whose names start with `prefix`, sorted.
fn dirs_starting(log_dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(log_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names
}

#[test]
fn a_produce_is_answered_while_a_create_topics_makes_its_files() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "existing", 1);
    let create = CreateTopicsRequest::default()
        .with_topics(vec![CreatableTopic::default()
            .with_name(topic("wide"))
            .with_num_partitions(20)
            .with_replication_factor(1)])
        .with_timeout_ms(30_000);
    let (created, produced) =
        broker.ask_during(7, &create, 9, &produce_request("existing", batch(&[b"v"])));
    let p = &produced.responses[0].partition_responses[0];
    assert_eq!((p.error_code, p.base_offset), (0, 0), "{produced:?}");
    assert_eq!(created.topics[0].error_code, 0, "{created:?}");
    assert_eq!(broker.broker().topic("wide").unwrap().partitions.len(), 20);
}

/// DeleteTopics renames each partition dir `<topic>-<partition>.<uuid without dashes>-delete`
/// (`UnifiedLog.logDeleteDirName`) while another request is answered, drops the topic from the
/// checkpoints, and the periodic work removes the dirs once `file.delete.delay.ms` is over.
#[test]
fn delete_topics_renames_the_dirs_off_the_lock_then_removes_them() {
    let mut broker = TestBroker::start_with(|c| c.log.file_delete_delay_ms = 0);
    create_topic(&mut broker, "kept", 1);
    create_topic(&mut broker, "gone", 3);
    let log_dir = broker.broker().config.log_dir.clone();
    let (deleted, versions) = broker.ask_during(
        6,
        &delete_request("gone"),
        3,
        &ApiVersionsRequest::default(),
    );
    assert_eq!(versions.error_code, 0);
    assert_eq!(deleted.responses[0].error_code, 0, "{deleted:?}");
    assert!(!deleted.responses[0].topic_id.is_nil(), "{deleted:?}");
    let renamed = dirs_starting(&log_dir, "gone-");
    assert_eq!(renamed.len(), 3, "{renamed:?}");
    for (p, name) in renamed.iter().enumerate() {
        let (base, rest) = name.split_once('.').expect("a suffix");
        assert_eq!(base, format!("gone-{p}"));
        let unique = rest.strip_suffix("-delete").expect("-delete");
        assert_eq!(unique.len(), 32, "{name}");
        assert!(unique.bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
    }
    let recovery = fs::read_to_string(log_dir.join(RECOVERY_POINT_CHECKPOINT)).unwrap();
    assert!(!recovery.contains("gone"), "{recovery}");
    assert!(recovery.contains("kept 0 0"), "{recovery}");
    // The periodic work hands the due dirs back; they go without the broker.
    let due = broker.broker().tick().unwrap();
    assert!(!due.is_empty());
    due.remove().unwrap();
    assert_eq!(dirs_starting(&log_dir, "gone-"), Vec::<String>::new());
    assert!(log_dir.join("kept-0").is_dir());
}

/// A topic deleted and created again under its name: the new topic's dirs are made after the
/// old ones are renamed (admin requests run one at a time), so both are on disk as Kafka has
/// them.
#[test]
fn a_topic_created_again_after_its_deletion_gets_fresh_dirs() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "again", 2);
    let answer = broker.ask(6, &delete_request("again"));
    assert_eq!(answer.responses[0].error_code, 0, "{answer:?}");
    create_topic(&mut broker, "again", 2);
    let log_dir = broker.broker().config.log_dir.clone();
    let names = dirs_starting(&log_dir, "again-");
    let fresh: Vec<&String> = names.iter().filter(|n| !n.ends_with("-delete")).collect();
    assert_eq!(fresh, ["again-0", "again-1"], "{names:?}");
    assert_eq!(names.len(), 4, "{names:?}");
}

#[test]
fn metadata_auto_creates_its_topic_off_the_lock() {
    let mut broker = TestBroker::start_with(|c| c.num_partitions = 4);
    create_topic(&mut broker, "existing", 1);
    let (metadata, produced) = broker.ask_during(
        12,
        &metadata_request("auto"),
        9,
        &produce_request("existing", batch(&[b"v"])),
    );
    assert_eq!(produced.responses[0].partition_responses[0].error_code, 0);
    let t = &metadata.topics[0];
    assert_eq!((t.error_code, t.partitions.len()), (0, 4), "{metadata:?}");
    assert!(!t.topic_id.is_nil());
    assert_eq!(broker.broker().topic("auto").unwrap().partitions.len(), 4);
}

#[test]
fn find_coordinator_creates_the_offsets_topic_off_the_lock() {
    let mut broker = TestBroker::start_with(|c| c.offsets_topic_partitions = 5);
    create_topic(&mut broker, "existing", 1);
    let find = FindCoordinatorRequest::default()
        .with_key_type(0)
        .with_coordinator_keys(vec![text("g")]);
    let (found, metadata) = broker.ask_during(4, &find, 12, &metadata_request("existing"));
    assert_eq!(metadata.topics[0].error_code, 0, "{metadata:?}");
    assert_eq!(found.coordinators[0].error_code, 0, "{found:?}");
    assert_eq!(
        broker
            .broker()
            .topic(OFFSETS_TOPIC)
            .unwrap()
            .partitions
            .len(),
        5
    );
    // With the topic there, FindCoordinator has no disk work left: answered at once.
    let again = broker.ask(4, &find);
    assert_eq!(again.coordinators[0].error_code, 0, "{again:?}");
}
