//! ApiVersions, request versions the broker does not speak, Metadata, FindCoordinator and
//! DescribeCluster: their refusals, and names asked many times answered once.

use kafka_protocol::messages::find_coordinator_request::FindCoordinatorRequest;
use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, DescribeClusterRequest,
    DescribeLogDirsRequest, DescribeQuorumRequest, MetadataRequest, MetadataResponse,
    UpdateFeaturesRequest,
};
use kafka_protocol::ResponseError;

use super::{code, create_topic, topic};
use crate::core::OFFSETS_TOPIC;
use crate::testing::{text, Outcome, TestBroker};

#[test]
fn api_versions_of_an_unsupported_version_is_answered_at_v0() {
    let mut broker = TestBroker::start();
    // A version from the future: its body is what a v3 body is (a client cannot know better).
    let request = ApiVersionsRequest::default()
        .with_client_software_name(text("seam"))
        .with_client_software_version(text("1"));
    let Outcome::Answer(bytes) = broker.send(ApiKey::ApiVersions, 99, 3, &request) else {
        panic!("no answer");
    };
    let answer: ApiVersionsResponse = broker.decode(ApiKey::ApiVersions, 0, bytes);
    assert_eq!(answer.error_code, code(ResponseError::UnsupportedVersion));
    let api_versions = answer
        .api_keys
        .iter()
        .find(|k| k.api_key == ApiKey::ApiVersions as i16)
        .expect("ApiVersions is listed");
    assert_eq!((api_versions.min_version, api_versions.max_version), (0, 4));
}

#[test]
fn an_unsupported_version_closes_the_connection() {
    let mut broker = TestBroker::start();
    // Metadata v13 is past the broker's v12; Produce v2 is below its v3.
    let outcome = broker.send(ApiKey::Metadata, 13, 12, &MetadataRequest::default());
    assert!(
        matches!(&outcome, Outcome::Closed(why) if why == "unsupported Metadata version 13"),
        "{outcome:?}"
    );
    let produce = kafka_protocol::messages::ProduceRequest::default().with_acks(1);
    let outcome = broker.send(ApiKey::Produce, 2, 3, &produce);
    assert!(matches!(outcome, Outcome::Closed(_)), "{outcome:?}");
}

fn metadata(broker: &mut TestBroker, names: &[&str], auto_create: bool) -> MetadataResponse {
    let request = MetadataRequest::default()
        .with_topics(Some(
            names
                .iter()
                .map(|n| MetadataRequestTopic::default().with_name(Some(topic(n))))
                .collect(),
        ))
        .with_allow_auto_topic_creation(auto_create);
    broker.ask(12, &request)
}

#[test]
fn metadata_of_a_topic_named_many_times_is_answered_once() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 2);
    let names = vec!["orders"; 20_000];
    let answer = metadata(&mut broker, &names, false);
    assert_eq!(answer.topics.len(), 1, "{:?}", answer.topics.first());
    assert_eq!(answer.topics[0].partitions.len(), 2);
}

#[test]
fn metadata_of_unknown_and_invalid_topics() {
    let mut broker = TestBroker::start();
    let answer = metadata(&mut broker, &["nowhere", "bad name!"], false);
    let codes: Vec<i16> = answer.topics.iter().map(|t| t.error_code).collect();
    // KafkaApis.getTopicMetadata: a name Topic.validate refuses is INVALID_TOPIC_EXCEPTION,
    // auto-creation or not.
    assert_eq!(
        codes,
        [
            code(ResponseError::UnknownTopicOrPartition),
            code(ResponseError::InvalidTopicException)
        ]
    );
    let answer = metadata(&mut broker, &["bad name!"], true);
    assert_eq!(
        answer.topics[0].error_code,
        code(ResponseError::InvalidTopicException)
    );
    assert_eq!(broker.broker().topics().count(), 0);
    // An id no topic has.
    let request =
        MetadataRequest::default().with_topics(Some(vec![MetadataRequestTopic::default()
            .with_name(None)
            .with_topic_id(uuid::Uuid::from_bytes([3; 16]))]));
    let answer = broker.ask(12, &request);
    assert_eq!(
        answer.topics[0].error_code,
        code(ResponseError::UnknownTopicId)
    );
}

#[test]
fn metadata_auto_creates_an_internal_topic() {
    // Not without auto-creation, asked or configured.
    let mut broker = TestBroker::start_with(|c| c.auto_create_topics = false);
    let answer = metadata(&mut broker, &[OFFSETS_TOPIC], true);
    assert_eq!(
        answer.topics[0].error_code,
        code(ResponseError::UnknownTopicOrPartition)
    );
    let mut broker = TestBroker::start();
    let answer = metadata(&mut broker, &[OFFSETS_TOPIC], false);
    assert_eq!(
        answer.topics[0].error_code,
        code(ResponseError::UnknownTopicOrPartition)
    );
    assert!(broker.broker().topic(OFFSETS_TOPIC).is_none());
    // Kafka answers LEADER_NOT_AVAILABLE while the topic is made; the mini-broker makes it
    // before it answers, as it does any auto-created topic.
    let answer = metadata(&mut broker, &[OFFSETS_TOPIC], true);
    assert_eq!(answer.topics[0].error_code, 0, "{answer:?}");
    assert!(answer.topics[0].is_internal);
    assert_eq!(
        broker.broker().topic_overrides(OFFSETS_TOPIC)["cleanup.policy"],
        "compact"
    );
}

#[test]
fn find_coordinator_errors() {
    let mut broker = TestBroker::start();
    let request = FindCoordinatorRequest::default()
        .with_key_type(9)
        .with_coordinator_keys(vec![text("g")]);
    let answer = broker.ask(4, &request);
    let c = &answer.coordinators[0];
    assert_eq!(
        c.error_code,
        code(ResponseError::InvalidRequest),
        "{answer:?}"
    );
    assert_eq!((c.node_id.0, c.port), (-1, -1), "{answer:?}");
    assert_eq!(c.host.as_str(), "");
    assert!(c
        .error_message
        .as_deref()
        .is_some_and(|m| m.starts_with("This most likely occurs because of a request")));
}

#[test]
fn describe_cluster_of_a_controller_endpoint() {
    let mut broker = TestBroker::start();
    let request = DescribeClusterRequest::default().with_endpoint_type(2);
    let answer = broker.ask(1, &request);
    assert_eq!(
        answer.error_code,
        code(ResponseError::MismatchedEndpointType),
        "{answer:?}"
    );
    assert_eq!(
        answer.error_message.as_deref(),
        Some(
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of \
             type CONTROLLER"
        )
    );
}

#[test]
fn update_features_errors() {
    use kafka_protocol::messages::update_features_request::FeatureUpdateKey;
    let mut broker = TestBroker::start();
    let update = |feature: &str, level: i16, upgrade_type: i8| {
        UpdateFeaturesRequest::default()
            .with_timeout_ms(30_000)
            .with_feature_updates(vec![FeatureUpdateKey::default()
                .with_feature(text(feature))
                .with_max_version_level(level)
                .with_upgrade_type(upgrade_type)])
    };
    let prefix = "The update failed for all features since the following feature had an error: ";
    let cases = [
        (
            update("no.such.feature", 1, 1),
            "Invalid update version 1 for feature no.such.feature. Local controller 1 does not \
             support this feature.",
        ),
        (
            update("no.such.feature", -1, 1),
            "Invalid update version -1 for feature no.such.feature. A feature version cannot \
             be less than 0.",
        ),
        (
            update("no.such.feature", 1, 9),
            "Invalid update version 1 for feature no.such.feature. The controller does not \
             support the given upgrade type.",
        ),
    ];
    for (request, message) in cases {
        let answer = broker.ask(1, &request);
        assert_eq!(
            answer.error_code,
            code(ResponseError::InvalidUpdateVersion),
            "{answer:?}"
        );
        assert_eq!(
            answer.error_message.as_deref(),
            Some(format!("{prefix}{message}").as_str())
        );
    }
}

/// Issue 45: an update to the level a feature is at already changes nothing, and Kafka's
/// `FeatureControlManager` writes nothing for it: the metadata log does not grow however often
/// it is asked (it appended a FeatureLevelRecord each time).
#[test]
fn update_features_at_the_current_level_appends_nothing() {
    use kafka_protocol::messages::update_features_request::FeatureUpdateKey;
    let mut broker = TestBroker::start();
    let (level, end) = {
        let b = broker.broker();
        let level = b.metadata.image.features["metadata.version"];
        (level, b.metadata.log_end_offset())
    };
    let request = UpdateFeaturesRequest::default()
        .with_timeout_ms(30_000)
        .with_feature_updates(vec![FeatureUpdateKey::default()
            .with_feature(text("metadata.version"))
            .with_max_version_level(level)
            .with_upgrade_type(1)]);
    for _ in 0..20 {
        let answer = broker.ask(1, &request);
        assert_eq!(answer.error_code, 0, "{answer:?}");
    }
    assert_eq!(broker.broker().metadata.log_end_offset(), end);
    assert_eq!(
        broker.broker().metadata.image.features["metadata.version"],
        level
    );
}

#[test]
fn describe_quorum_of_another_partition() {
    use kafka_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
    let mut broker = TestBroker::start();
    let request = DescribeQuorumRequest::default().with_topics(vec![TopicData::default()
        .with_topic_name(topic("__cluster_metadata"))
        .with_partitions(vec![PartitionData::default().with_partition_index(1)])]);
    // (v2 carries the message.)
    let answer = broker.ask(2, &request);
    let partition = &answer.topics[0].partitions[0];
    assert_eq!(
        partition.error_code,
        code(ResponseError::UnknownTopicOrPartition)
    );
    assert_eq!(
        partition.error_message.as_deref(),
        Some("This server does not host this topic-partition.")
    );
}

#[test]
fn describe_log_dirs_of_unknown_partitions() {
    use kafka_protocol::messages::describe_log_dirs_request::DescribableLogDirTopic;
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let request = DescribeLogDirsRequest::default().with_topics(Some(vec![
        DescribableLogDirTopic::default()
            .with_topic(topic("nowhere"))
            .with_partitions(vec![0]),
        DescribableLogDirTopic::default()
            .with_topic(topic("orders"))
            .with_partitions(vec![4]),
    ]));
    let answer = broker.ask(4, &request);
    // Partitions this broker does not hold are left out (ReplicaManager.describeLogDirs).
    assert_eq!(answer.error_code, 0, "{answer:?}");
    assert_eq!(answer.results.len(), 1, "{answer:?}");
    assert_eq!(answer.results[0].error_code, 0, "{answer:?}");
    assert!(answer.results[0].topics.is_empty(), "{answer:?}");
}
