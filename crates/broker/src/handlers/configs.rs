//! DescribeConfigs, IncrementalAlterConfigs and AlterConfigs, on topics and on the broker.

use std::collections::HashMap;

use bytes::Bytes;
use kafka_protocol::messages::*;
use kafka_protocol::ResponseError;

use super::{coded, str_bytes, INVALID_REQUEST_MESSAGE};
use crate::broker_config;
use crate::core::{topic_log_config, Broker, ConfigChange};
use crate::dispatch::{Handled, RequestError};
use crate::frame::Repeated;
use crate::metadata::{BROKER_RESOURCE, TOPIC_RESOURCE};
use crate::server::Shared;
use crate::topic_config::{self, Described};

/// Every topic config of a topic, with its value and source.
pub(super) fn described_topic(b: &Broker, topic: &str) -> Vec<Described> {
    let base = topic_log_config(&b.broker_log_config(), topic, None);
    topic_config::describe(
        &base,
        &b.topic_overrides(topic),
        &b.dynamic_topic_defaults(),
    )
}

fn synonym(
    name: &str,
    value: Option<&str>,
    source: i8,
) -> describe_configs_response::DescribeConfigsSynonym {
    describe_configs_response::DescribeConfigsSynonym::default()
        .with_name(str_bytes(name))
        .with_value(value.map(str_bytes))
        .with_source(source)
}

/// DescribeConfigs: each resource asked is answered, in order, as Kafka does; a resource asked
/// many times (the same type, name and keys) is described and encoded once and its bytes
/// repeated ([`Repeated`]).
pub(crate) fn describe_configs(
    shared: &Shared,
    req: DescribeConfigsRequest,
    version: i16,
) -> Handled<Repeated> {
    let b = shared.broker()?;
    // ConfigHelper.handleDescribeConfigsRequest throws on a type ConfigResource.Type does not
    // know: the request's error answer (DescribeConfigsRequest.getErrorResponse) refuses every
    // resource with INVALID_REQUEST and the error's default message.
    let unknown_type = req
        .resources
        .iter()
        .any(|r| !matches!(r.resource_type, 2 | 4 | 8 | 16 | 32));
    type Key = (i8, String, Option<Vec<String>>);
    let mut cache: HashMap<Key, Bytes> = HashMap::new();
    let mut elements = Vec::with_capacity(req.resources.len());
    for res in &req.resources {
        let key: Key = (
            res.resource_type,
            res.resource_name.as_str().to_string(),
            res.configuration_keys
                .as_ref()
                .map(|k| k.iter().map(|k| k.as_str().to_string()).collect()),
        );
        let element = Repeated::element(&mut cache, key, version, || {
            let name = res.resource_name.as_str().to_string();
            let keys: Option<Vec<String>> = res
                .configuration_keys
                .as_ref()
                .map(|k| k.iter().map(|k| k.as_str().to_string()).collect());
            let wanted = |n: &str| keys.as_ref().is_none_or(|k| k.iter().any(|x| x == n));
            let mut r = describe_configs_response::DescribeConfigsResult::default()
                .with_resource_type(res.resource_type)
                .with_resource_name(res.resource_name.clone());
            if unknown_type {
                r.error_code = ResponseError::InvalidRequest.code();
                r.error_message = Some(str_bytes(INVALID_REQUEST_MESSAGE));
                return r;
            }
            match res.resource_type {
                TOPIC_RESOURCE if b.topic(&name).is_some() => {
                    let broker_rows = broker_config::describe(
                        &b.config,
                        &b.metadata.image,
                        &b.config.node_id.to_string(),
                    );
                    r.configs = described_topic(&b, &name)
                        .into_iter()
                        .filter(|d| wanted(d.name))
                        .map(|d| {
                            let mut e =
                                describe_configs_response::DescribeConfigsResourceResult::default()
                                    .with_name(str_bytes(d.name))
                                    .with_value(Some(str_bytes(&d.value)))
                                    .with_config_source(d.source as i8)
                                    .with_config_type(if version >= 3 { d.type_code } else { 0 })
                                    .with_documentation(None);
                            if req.include_synonyms {
                                // The topic's own override, then the broker config that
                                // defaults it, as Kafka lists them.
                                if d.source == topic_config::Source::Topic {
                                    e.synonyms.push(synonym(d.name, Some(&d.value), 1));
                                }
                                let broker_name = broker_config::TOPIC_SYNONYMS
                                    .iter()
                                    .find(|(_, t)| *t == d.name)
                                    .map(|(n, _)| *n);
                                match broker_rows
                                    .iter()
                                    .find(|x| Some(x.name.as_str()) == broker_name)
                                {
                                    Some(row) => e.synonyms.extend(row.synonyms.iter().map(
                                        |(n, v, s)| synonym(n, v.as_deref(), *s as i8),
                                    )),
                                    None if d.source != topic_config::Source::Topic => {
                                        e.synonyms
                                            .push(synonym(d.name, Some(&d.value), d.source as i8))
                                    }
                                    None => {}
                                }
                            }
                            e
                        })
                        .collect();
                }
                TOPIC_RESOURCE => {
                    r.error_code = ResponseError::UnknownTopicOrPartition.code();
                    r.error_message = Some(str_bytes(&format!("The topic '{name}' does not exist.")));
                }
                BROKER_RESOURCE if name.is_empty() || name == b.config.node_id.to_string() => {
                    r.configs = broker_config::describe(&b.config, &b.metadata.image, &name)
                        .into_iter()
                        .filter(|d| wanted(&d.name))
                        .map(|d| {
                            let mut e =
                                describe_configs_response::DescribeConfigsResourceResult::default()
                                    .with_name(str_bytes(&d.name))
                                    .with_value(d.value.as_deref().map(str_bytes))
                                    .with_read_only(d.read_only)
                                    .with_config_source(d.source as i8)
                                    .with_is_sensitive(d.sensitive)
                                    .with_config_type(if version >= 3 { d.kind as i8 } else { 0 })
                                    .with_documentation(None);
                            if req.include_synonyms {
                                e.synonyms = d
                                    .synonyms
                                    .iter()
                                    .map(|(n, v, s)| synonym(n, v.as_deref(), *s as i8))
                                    .collect();
                            }
                            e
                        })
                        .collect();
                }
                BROKER_RESOURCE => {
                    r.error_code = ResponseError::InvalidRequest.code();
                    r.error_message = Some(str_bytes(&format!(
                        "Unexpected broker id, expected {} or empty string, but received {name}",
                        b.config.node_id
                    )));
                }
                other => {
                    r.error_code = ResponseError::InvalidRequest.code();
                    r.error_message = Some(str_bytes(&format!(
                        "kseg mini-broker describes topic (2) and broker (4) configs, not resource type {other}"
                    )));
                }
            }
            r
        })
        .map_err(|source| RequestError::Encode {
            key: ApiKey::DescribeConfigs,
            version,
            source,
        })?;
        elements.push(element);
    }
    Ok(Repeated::of(version >= 4, elements))
}

pub(crate) fn incremental_alter_configs(
    shared: &Shared,
    req: IncrementalAlterConfigsRequest,
) -> Handled<IncrementalAlterConfigsResponse> {
    let mut b = shared.broker()?;
    let responses = req
        .resources
        .iter()
        .map(|r| {
            let changes: Vec<ConfigChange> = r
                .configs
                .iter()
                .map(|c| ConfigChange {
                    name: c.name.as_str().to_string(),
                    op: c.config_operation,
                    value: c.value.as_ref().map(|v| v.as_str().to_string()),
                })
                .collect();
            let mut out =
                incremental_alter_configs_response::AlterConfigsResourceResponse::default()
                    .with_resource_type(r.resource_type)
                    .with_resource_name(r.resource_name.clone());
            let name = r.resource_name.as_str();
            if let Err(e) =
                b.alter_configs(r.resource_type, name, &changes, true, req.validate_only)
            {
                (out.error_code, out.error_message) = coded(&e);
            }
            out
        })
        .collect();
    Ok(IncrementalAlterConfigsResponse::default().with_responses(responses))
}

pub(crate) fn alter_configs(
    shared: &Shared,
    req: AlterConfigsRequest,
) -> Handled<AlterConfigsResponse> {
    let mut b = shared.broker()?;
    let responses = req
        .resources
        .iter()
        .map(|r| {
            let changes: Vec<ConfigChange> = r
                .configs
                .iter()
                .map(|c| ConfigChange {
                    name: c.name.as_str().to_string(),
                    op: 0,
                    value: c.value.as_ref().map(|v| v.as_str().to_string()),
                })
                .collect();
            let mut out = alter_configs_response::AlterConfigsResourceResponse::default()
                .with_resource_type(r.resource_type)
                .with_resource_name(r.resource_name.clone());
            let name = r.resource_name.as_str();
            if let Err(e) =
                b.alter_configs(r.resource_type, name, &changes, false, req.validate_only)
            {
                (out.error_code, out.error_message) = coded(&e);
            }
            out
        })
        .collect();
    Ok(AlterConfigsResponse::default().with_responses(responses))
}
