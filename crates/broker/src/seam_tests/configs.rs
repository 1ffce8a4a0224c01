//! DescribeConfigs, IncrementalAlterConfigs and AlterConfigs: resources that are not there,
//! values Kafka's `ConfigDef` refuses, and a refused change that leaves nothing on disk.

use kafka_protocol::messages::describe_configs_request::DescribeConfigsResource;
use kafka_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig,
};
use kafka_protocol::messages::{DescribeConfigsRequest, IncrementalAlterConfigsRequest};
use kafka_protocol::ResponseError;

use super::{code, create_topic};
use crate::metadata::{BROKER_RESOURCE, TOPIC_RESOURCE};
use crate::testing::{text, TestBroker};

fn describe_resource(
    resource_type: i8,
    name: &str,
    keys: Option<Vec<&str>>,
) -> DescribeConfigsResource {
    DescribeConfigsResource::default()
        .with_resource_type(resource_type)
        .with_resource_name(text(name))
        .with_configuration_keys(keys.map(|k| k.into_iter().map(text).collect()))
}

#[test]
fn describe_configs_of_unknown_resources() {
    let mut broker = TestBroker::start();
    let request = DescribeConfigsRequest::default().with_resources(vec![
        describe_resource(TOPIC_RESOURCE, "nowhere", None),
        describe_resource(BROKER_RESOURCE, "7", None),
    ]);
    let answer = broker.ask(4, &request);
    let results: Vec<(i16, Option<&str>)> = answer
        .results
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref()))
        .collect();
    assert_eq!(
        results,
        [
            (
                code(ResponseError::UnknownTopicOrPartition),
                Some("The topic 'nowhere' does not exist.")
            ),
            (
                code(ResponseError::InvalidRequest),
                Some("Unexpected broker id, expected 1 or empty string, but received 7")
            ),
        ]
    );
}

#[test]
fn describe_configs_asked_many_times() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    // A key named many times is described once; a resource asked many times is answered each
    // time (its answer encoded once).
    let keys = vec!["retention.ms"; 100];
    let request = DescribeConfigsRequest::default().with_resources(vec![
        describe_resource(
            TOPIC_RESOURCE,
            "orders",
            Some(keys)
        );
        2_000
    ]);
    let answer = broker.ask(4, &request);
    assert_eq!(answer.results.len(), 2_000);
    for r in &answer.results {
        assert_eq!(r.error_code, 0, "{r:?}");
        let names: Vec<&str> = r.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["retention.ms"]);
    }
}

fn alter(
    broker: &mut TestBroker,
    resource_type: i8,
    name: &str,
    configs: &[(&str, i8, Option<&str>)],
) -> (i16, Option<String>) {
    let request = IncrementalAlterConfigsRequest::default().with_resources(vec![
        AlterConfigsResource::default()
            .with_resource_type(resource_type)
            .with_resource_name(text(name))
            .with_configs(
                configs
                    .iter()
                    .map(|(n, op, v)| {
                        AlterableConfig::default()
                            .with_name(text(n))
                            .with_config_operation(*op)
                            .with_value(v.map(text))
                    })
                    .collect(),
            ),
    ]);
    let answer = broker.ask(1, &request);
    let r = &answer.responses[0];
    (
        r.error_code,
        r.error_message.as_ref().map(|m| m.to_string()),
    )
}

#[test]
fn incremental_alter_configs_errors() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let set = 0;
    assert_eq!(
        alter(
            &mut broker,
            TOPIC_RESOURCE,
            "nowhere",
            &[("retention.ms", set, Some("1"))]
        ),
        (
            code(ResponseError::UnknownTopicOrPartition),
            Some("The topic 'nowhere' does not exist.".into())
        )
    );
    assert_eq!(
        alter(
            &mut broker,
            TOPIC_RESOURCE,
            "orders",
            &[("retention.ms", set, Some("soon"))]
        ),
        (
            code(ResponseError::InvalidConfig),
            Some(
                "Invalid value soon for configuration retention.ms: Not a number of type LONG"
                    .into()
            )
        )
    );
    assert_eq!(
        alter(
            &mut broker,
            TOPIC_RESOURCE,
            "orders",
            &[("no.such.config", set, Some("1"))]
        ),
        (
            code(ResponseError::InvalidConfig),
            Some("Unknown topic config name: no.such.config".into())
        )
    );
    // APPEND (2) to a config that is not a list.
    assert_eq!(
        alter(
            &mut broker,
            TOPIC_RESOURCE,
            "orders",
            &[("retention.ms", 2, Some("1"))]
        ),
        (
            code(ResponseError::InvalidConfig),
            Some("Can't APPEND to key retention.ms because its type is not LIST.".into())
        )
    );
    assert_eq!(
        alter(
            &mut broker,
            TOPIC_RESOURCE,
            "orders",
            &[
                ("retention.ms", set, Some("1")),
                ("retention.ms", set, Some("2"))
            ]
        ),
        (
            code(ResponseError::InvalidRequest),
            Some("Error due to duplicate config keys".into())
        )
    );
    assert_eq!(
        alter(
            &mut broker,
            BROKER_RESOURCE,
            "7",
            &[("log.retention.ms", set, Some("1"))]
        )
        .0,
        code(ResponseError::InvalidRequest)
    );
    // Nothing of it was kept.
    broker.restart();
    assert!(broker.broker().topic_overrides("orders").is_empty());
}

#[test]
fn alter_configs_errors() {
    use kafka_protocol::messages::alter_configs_request::{
        AlterConfigsResource as Resource, AlterableConfig as Config,
    };
    use kafka_protocol::messages::AlterConfigsRequest;
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let alter = |broker: &mut TestBroker, name: &str, value: Option<&str>| {
        let request = AlterConfigsRequest::default().with_resources(vec![Resource::default()
            .with_resource_type(TOPIC_RESOURCE)
            .with_resource_name(text(name))
            .with_configs(vec![Config::default()
                .with_name(text("retention.ms"))
                .with_value(value.map(text))])]);
        let answer = broker.ask(2, &request);
        let r = &answer.responses[0];
        (
            r.error_code,
            r.error_message.as_ref().map(|m| m.to_string()),
        )
    };
    assert_eq!(
        alter(&mut broker, "nowhere", Some("1")),
        (
            code(ResponseError::UnknownTopicOrPartition),
            Some("The topic 'nowhere' does not exist.".into())
        )
    );
    assert_eq!(
        alter(&mut broker, "orders", None),
        (
            code(ResponseError::InvalidConfig),
            Some("Null value not supported for topic configs: retention.ms".into())
        )
    );
    assert!(broker.broker().topic_overrides("orders").is_empty());
}

#[test]
fn describe_configs_of_an_unknown_resource_type() {
    let mut broker = TestBroker::start();
    create_topic(&mut broker, "orders", 1);
    let request = DescribeConfigsRequest::default().with_resources(vec![
        describe_resource(TOPIC_RESOURCE, "orders", None),
        describe_resource(99, "what", None),
    ]);
    let answer = broker.ask(4, &request);
    // Every resource is refused, the known one too.
    for r in &answer.results {
        assert_eq!(r.error_code, code(ResponseError::InvalidRequest), "{r:?}");
        assert_eq!(
            r.error_message.as_deref(),
            Some(
                "This most likely occurs because of a request being malformed by the client \
                 library or the message was sent to an incompatible broker. See the broker logs \
                 for more details."
            )
        );
        assert!(r.configs.is_empty());
    }
}
