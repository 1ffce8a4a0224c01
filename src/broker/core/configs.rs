//! Config changes, as Kafka 4.4's controller makes them (`ConfigurationControlManager`):
//! IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT per config) and AlterConfigs (the
//! resource's whole set of overrides replaced) on a topic or on the broker (this node, or `""`:
//! the cluster default). The new values are validated (a topic's as `LogConfig.validate`,
//! INVALID_CONFIG; a broker's as `DynamicBrokerConfig`, INVALID_REQUEST), written as
//! ConfigRecords of the changed keys to the metadata log, and take effect at once: the topic's
//! partitions (every partition for a broker change) get their new log config, so a new
//! `retention.ms` applies at the next retention check, a new `segment.bytes` at the next
//! append, a new `cleanup.policy` to the next produce.

use std::collections::BTreeMap;

use kafka_protocol::ResponseError;

use super::{topic_log_config, Broker};
use crate::broker::broker_config;
use crate::broker::log::LogConfig;
use crate::broker::metadata::{BROKER_RESOURCE, TOPIC_RESOURCE};
use crate::broker::topic_config::{self, Source};
use crate::broker::{now_ms, BrokerError, BrokerResult};

/// One requested change: a config name, the operation (`AlterConfigOp.OpType`: SET 0,
/// DELETE 1, APPEND 2, SUBTRACT 3; AlterConfigs' entries are SETs) and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigChange {
    pub name: String,
    pub op: i8,
    pub value: Option<String>,
}

fn invalid_request(message: impl Into<String>) -> BrokerError {
    BrokerError::new(ResponseError::InvalidRequest, message)
}

fn invalid_config(message: impl Into<String>) -> BrokerError {
    BrokerError::new(ResponseError::InvalidConfig, message)
}

const OP_NAMES: [&str; 4] = ["SET", "DELETE", "APPEND", "SUBTRACT"];

impl Broker {
    /// The broker's log config: its command line, with the dynamic broker configs (the cluster
    /// default, then this broker's) over it.
    pub fn broker_log_config(&self) -> LogConfig {
        topic_config::apply(
            &self.config.log,
            &broker_config::dynamic_log_overrides(&self.metadata.image, self.config.node_id),
        )
    }

    /// The topic configs that dynamic broker configs set, by topic-config name, with their
    /// value and source (DescribeConfigs of a topic).
    pub fn dynamic_topic_defaults(&self) -> BTreeMap<String, (String, Source)> {
        let mut out = BTreeMap::new();
        for (resource, source) in [
            (String::new(), Source::DynamicDefault),
            (self.config.node_id.to_string(), Source::DynamicBroker),
        ] {
            let Some(configs) = self
                .metadata
                .image
                .configs
                .get(&(BROKER_RESOURCE, resource))
            else {
                continue;
            };
            for (broker, topic) in broker_config::TOPIC_SYNONYMS {
                if let Some(v) = configs.get(*broker) {
                    out.insert(topic.to_string(), (v.clone(), source));
                }
            }
        }
        out
    }

    /// IncrementalAlterConfigs (`incremental`) or AlterConfigs of one resource. `validate_only`
    /// checks everything and changes nothing.
    pub fn alter_configs(
        &mut self,
        resource_type: i8,
        resource: &str,
        changes: &[ConfigChange],
        incremental: bool,
        validate_only: bool,
    ) -> BrokerResult<()> {
        let mut names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(invalid_request("Error due to duplicate config keys"));
        }
        let current: BTreeMap<String, String> = match resource_type {
            TOPIC_RESOURCE => {
                if self.topic(resource).is_none() {
                    return Err(BrokerError::new(
                        ResponseError::UnknownTopicOrPartition,
                        format!("The topic '{resource}' does not exist."),
                    ));
                }
                self.topic_overrides(resource)
            }
            BROKER_RESOURCE => {
                if !resource.is_empty() && resource != self.config.node_id.to_string() {
                    return Err(invalid_request(format!(
                        "Unexpected broker id, expected {} or empty string, but received {resource}",
                        self.config.node_id
                    )));
                }
                self.metadata
                    .image
                    .configs
                    .get(&(BROKER_RESOURCE, resource.to_string()))
                    .cloned()
                    .unwrap_or_default()
            }
            other => {
                return Err(invalid_request(format!(
                    "kseg mini-broker alters topic (2) and broker (4) configs, not resource type {other}"
                )))
            }
        };
        let mut new = if incremental {
            current.clone()
        } else {
            BTreeMap::new()
        };
        for c in changes {
            let op = if incremental { c.op } else { 0 };
            match op {
                0 => match &c.value {
                    Some(v) => {
                        new.insert(c.name.clone(), v.clone());
                    }
                    None if resource_type == TOPIC_RESOURCE => {
                        return Err(invalid_config(format!(
                            "Null value not supported for topic configs: {}",
                            c.name
                        )))
                    }
                    None => {
                        return Err(invalid_request(format!(
                            "Null value not supported for : {}",
                            c.name
                        )))
                    }
                },
                1 => {
                    new.remove(&c.name);
                }
                2 | 3 => {
                    let (list, default) = list_config(resource_type, &c.name);
                    if !list {
                        return Err(invalid_config(format!(
                            "Can't {} to key {} because its type is not LIST.",
                            OP_NAMES[op as usize], c.name
                        )));
                    }
                    let old = new.get(&c.name).cloned().or(default).unwrap_or_default();
                    let mut items: Vec<String> = split_list(&old);
                    for v in split_list(c.value.as_deref().unwrap_or("")) {
                        if op == 2 {
                            if !items.contains(&v) {
                                items.push(v);
                            }
                        } else {
                            items.retain(|x| *x != v);
                        }
                    }
                    new.insert(c.name.clone(), items.join(","));
                }
                other => {
                    return Err(invalid_request(format!(
                        "Unknown alter configs operation type {other}"
                    )))
                }
            }
        }
        let mut changed: Vec<(String, Option<String>)> = Vec::new();
        for k in current.keys().chain(new.keys()) {
            if current.get(k) != new.get(k) && !changed.iter().any(|(n, _)| n == k) {
                changed.push((k.clone(), new.get(k).cloned()));
            }
        }
        match resource_type {
            TOPIC_RESOURCE => {
                let set: Vec<(String, Option<String>)> = changed
                    .iter()
                    .filter(|(_, v)| v.is_some())
                    .cloned()
                    .collect();
                topic_config::validate(&set)?;
            }
            _ => broker_config::validate(resource, &changed)?,
        }
        if validate_only || changed.is_empty() {
            return Ok(());
        }
        self.metadata
            .alter_configs(resource_type, resource, &changed, now_ms())?;
        self.refresh_log_configs((resource_type == TOPIC_RESOURCE).then_some(resource));
        Ok(())
    }

    /// Gives the partitions of `topic` (every topic when `None`) their log config as the
    /// metadata log now says.
    fn refresh_log_configs(&mut self, topic: Option<&str>) {
        let base = self.broker_log_config();
        let metadata = &self.metadata;
        for t in self.topics.values_mut() {
            if topic.is_some_and(|n| n != t.name) {
                continue;
            }
            let config = topic_log_config(&base, &t.name, metadata.image.topic_configs(&t.name));
            for log in &mut t.partitions {
                log.config = config.clone();
            }
        }
    }
}

/// Whether a config is a LIST (APPEND and SUBTRACT apply), and its default as the list an
/// APPEND starts from when nothing overrides it.
fn list_config(resource_type: i8, name: &str) -> (bool, Option<String>) {
    if resource_type == TOPIC_RESOURCE {
        return topic_config::list_default(name);
    }
    match broker_config::def(name) {
        Some(d) => (
            d.kind == broker_config::Kind::List,
            d.default.map(str::to_string),
        ),
        None => (false, None),
    }
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::BrokerConfig;
    use super::*;

    fn set(name: &str, value: &str) -> ConfigChange {
        ConfigChange {
            name: name.into(),
            op: 0,
            value: Some(value.into()),
        }
    }

    #[test]
    fn topic_and_broker_configs_change_persist_and_take_effect() {
        let dir = tempfile::tempdir().unwrap();
        let config = BrokerConfig::new(dir.path().join("data"));
        let (mut b, _) = Broker::open(config.clone()).unwrap();
        b.create_topic("t", 2).unwrap();
        b.alter_configs(
            TOPIC_RESOURCE,
            "t",
            &[set("retention.ms", "1000"), set("segment.bytes", "1048576")],
            true,
            false,
        )
        .unwrap();
        assert_eq!(b.partition("t", 1).unwrap().config.retention_ms, 1000);
        assert_eq!(b.partition("t", 0).unwrap().config.segment_bytes, 1 << 20);
        // APPEND starts from the default list; SUBTRACT removes.
        let append = ConfigChange {
            name: "cleanup.policy".into(),
            op: 2,
            value: Some("compact".into()),
        };
        b.alter_configs(TOPIC_RESOURCE, "t", &[append], true, false)
            .unwrap();
        assert_eq!(
            b.topic_overrides("t")
                .get("cleanup.policy")
                .map(String::as_str),
            Some("delete,compact")
        );
        assert!(b.partition("t", 0).unwrap().config.compact);
        let e = b
            .alter_configs(
                TOPIC_RESOURCE,
                "t",
                &[ConfigChange {
                    name: "retention.ms".into(),
                    op: 2,
                    value: Some("5".into()),
                }],
                true,
                false,
            )
            .unwrap_err();
        assert_eq!(e.code(), ResponseError::InvalidConfig.code());
        assert_eq!(
            e.to_string(),
            "Can't APPEND to key retention.ms because its type is not LIST."
        );
        let e = b
            .alter_configs(
                TOPIC_RESOURCE,
                "t",
                &[set("retention.ms", "abc")],
                true,
                false,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value abc for configuration retention.ms: Not a number of type LONG"
        );
        let e = b
            .alter_configs(
                TOPIC_RESOURCE,
                "nope",
                &[set("retention.ms", "1")],
                true,
                false,
            )
            .unwrap_err();
        assert_eq!(e.code(), ResponseError::UnknownTopicOrPartition.code());
        // AlterConfigs replaces the whole set: retention.ms and segment.bytes go.
        b.alter_configs(
            TOPIC_RESOURCE,
            "t",
            &[set("retention.bytes", "5000")],
            false,
            false,
        )
        .unwrap();
        assert_eq!(
            b.topic_overrides("t"),
            BTreeMap::from([("retention.bytes".into(), "5000".into())])
        );
        assert_eq!(
            b.partition("t", 0).unwrap().config.retention_ms,
            604_800_000
        );
        // Broker: read-only refused, a dynamic log default applies to topics without an
        // override, an unknown name is kept.
        let e = b
            .alter_configs(
                BROKER_RESOURCE,
                "1",
                &[set("num.partitions", "3")],
                true,
                false,
            )
            .unwrap_err();
        assert_eq!(
            (e.code(), e.to_string().as_str()),
            (
                ResponseError::InvalidRequest.code(),
                "Cannot update these configs dynamically: [num.partitions]"
            )
        );
        let e = b
            .alter_configs(
                BROKER_RESOURCE,
                "1",
                &[set("log.segment.bytes", "100")],
                true,
                false,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value 100 for configuration log.segment.bytes: Value must be at least 1048576"
        );
        b.alter_configs(
            BROKER_RESOURCE,
            "",
            &[set("log.retention.ms", "7000"), set("foo.bar", "1")],
            true,
            false,
        )
        .unwrap();
        assert_eq!(b.partition("t", 0).unwrap().config.retention_ms, 7000);
        // validate_only changes nothing.
        b.alter_configs(TOPIC_RESOURCE, "t", &[set("retention.ms", "9")], true, true)
            .unwrap();
        assert_eq!(b.partition("t", 0).unwrap().config.retention_ms, 7000);
        b.shutdown().unwrap();
        drop(b);
        let (b, _) = Broker::open(config).unwrap();
        assert_eq!(b.partition("t", 1).unwrap().config.retention_ms, 7000);
        assert_eq!(b.partition("t", 1).unwrap().config.retention_bytes, 5000);
    }
}
