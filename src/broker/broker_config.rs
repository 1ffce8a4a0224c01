//! Broker-level configs as Kafka 4.4 describes them (`DescribeConfigs` of a BROKER resource,
//! `kafka-configs --describe --entity-type brokers --all`): every config `KafkaConfig` defines,
//! with its type, its default as Kafka reports it, whether it is read-only (not dynamically
//! updatable) and sensitive; the mini-broker's own settings (its command line) as
//! STATIC_BROKER_CONFIG; dynamic broker configs (ConfigRecords of BROKER resources in the
//! metadata log) as DYNAMIC_BROKER_CONFIG (this broker) and DYNAMIC_DEFAULT_BROKER_CONFIG (the
//! cluster default `""`). The validation of IncrementalAlterConfigs / AlterConfigs on a broker
//! resource is Kafka's too (INVALID_REQUEST): read-only configs, types, and the validators of
//! the log configs that are topic-config synonyms.
//!
//! [`KAFKA_BROKER_CONFIGS`] was printed from Kafka 4.4.0 itself: `Admin.describeConfigs` (with
//! synonyms) of broker 1 of a freshly formatted broker+controller, in the order its response
//! lists them; for the configs the test harness sets, the default is the DEFAULT_CONFIG synonym.

use std::collections::BTreeMap;

use kafka_protocol::ResponseError;

use super::core::BrokerConfig;
use super::metadata::{MetadataImage, BROKER_RESOURCE};
use super::topic_config;
use super::BrokerError;

/// `ConfigDef.Type`, with the DescribeConfigs v3+ type codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Boolean = 1,
    String = 2,
    Int = 3,
    Short = 4,
    Long = 5,
    Double = 6,
    List = 7,
    Class = 8,
    Password = 9,
}

use Kind::*;

impl Kind {
    /// `ConfigDef.parseType`'s verdict on a value (trimmed, as Kafka parses it).
    fn parses(self, v: &str) -> Result<(), &'static str> {
        let v = v.trim();
        let ok = match self {
            Boolean => v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false"),
            Int => v.parse::<i32>().is_ok(),
            Short => v.parse::<i16>().is_ok(),
            Long => v.parse::<i64>().is_ok(),
            Double => v.parse::<f64>().is_ok(),
            String | List | Class | Password => true,
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Boolean => "Expected value to be either true or false",
            Int => "Not a number of type INT",
            Short => "Not a number of type SHORT",
            Long => "Not a number of type LONG",
            _ => "Not a number of type DOUBLE",
        })
    }
}

/// One broker config of Kafka 4.4.0.
pub struct Def {
    pub name: &'static str,
    pub kind: Kind,
    /// The value Kafka reports when nothing sets it (`None`: null).
    pub default: Option<&'static str>,
    /// Not dynamically updatable.
    pub read_only: bool,
    pub sensitive: bool,
}

const fn row(
    name: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    read_only: bool,
    sensitive: bool,
) -> Def {
    Def {
        name,
        kind,
        default,
        read_only,
        sensitive,
    }
}

/// Where a described value comes from (`DescribeConfigsResponse.ConfigSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    DynamicBroker = 2,
    DynamicDefault = 3,
    Static = 4,
    Default = 5,
}

/// One described broker config.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    pub name: std::string::String,
    pub value: Option<std::string::String>,
    pub source: Source,
    pub kind: Kind,
    pub read_only: bool,
    pub sensitive: bool,
    /// (name, value, source), the effective one first (`include_synonyms`).
    pub synonyms: Vec<(std::string::String, Option<std::string::String>, Source)>,
}

/// The broker configs that default a topic config (`ServerTopicConfigSynonyms`), as (broker
/// name, topic name).
pub const TOPIC_SYNONYMS: &[(&str, &str)] = &[
    ("log.segment.bytes", "segment.bytes"),
    ("log.roll.ms", "segment.ms"),
    ("log.roll.jitter.ms", "segment.jitter.ms"),
    ("log.index.size.max.bytes", "segment.index.bytes"),
    ("log.flush.interval.messages", "flush.messages"),
    ("log.flush.interval.ms", "flush.ms"),
    ("log.retention.bytes", "retention.bytes"),
    ("log.retention.ms", "retention.ms"),
    ("message.max.bytes", "max.message.bytes"),
    ("log.index.interval.bytes", "index.interval.bytes"),
    ("log.cleaner.delete.retention.ms", "delete.retention.ms"),
    ("log.cleaner.min.compaction.lag.ms", "min.compaction.lag.ms"),
    ("log.cleaner.max.compaction.lag.ms", "max.compaction.lag.ms"),
    ("log.segment.delete.delay.ms", "file.delete.delay.ms"),
    (
        "log.cleaner.min.cleanable.ratio",
        "min.cleanable.dirty.ratio",
    ),
    ("log.cleanup.policy", "cleanup.policy"),
    (
        "unclean.leader.election.enable",
        "unclean.leader.election.enable",
    ),
    ("min.insync.replicas", "min.insync.replicas"),
    ("compression.type", "compression.type"),
    ("compression.gzip.level", "compression.gzip.level"),
    ("compression.lz4.level", "compression.lz4.level"),
    ("compression.zstd.level", "compression.zstd.level"),
    ("log.preallocate", "preallocate"),
    ("log.message.timestamp.type", "message.timestamp.type"),
    (
        "log.message.timestamp.before.max.ms",
        "message.timestamp.before.max.ms",
    ),
    (
        "log.message.timestamp.after.max.ms",
        "message.timestamp.after.max.ms",
    ),
    ("log.local.retention.ms", "local.retention.ms"),
    ("log.local.retention.bytes", "local.retention.bytes"),
];

/// The configs a coarser one defaults (`KafkaConfig`'s ms ← minutes ← hours): listed as
/// synonyms after the config itself.
fn coarser(name: &str) -> &'static [&'static str] {
    match name {
        "log.retention.ms" => &["log.retention.minutes", "log.retention.hours"],
        "log.retention.minutes" => &["log.retention.hours"],
        "log.roll.ms" => &["log.roll.hours"],
        "log.roll.jitter.ms" => &["log.roll.jitter.hours"],
        _ => &[],
    }
}

pub fn def(name: &str) -> Option<&'static Def> {
    KAFKA_BROKER_CONFIGS.iter().find(|d| d.name == name)
}

/// The mini-broker's settings as Kafka names them, where they are not Kafka's default (or have
/// none): what DescribeConfigs reports as STATIC_BROKER_CONFIG.
pub fn static_configs(c: &BrokerConfig) -> BTreeMap<&'static str, std::string::String> {
    let mut m: BTreeMap<&'static str, std::string::String> = BTreeMap::new();
    let id = c.node_id.to_string();
    m.insert("node.id", id.clone());
    m.insert("broker.id", id);
    m.insert("process.roles", "broker,controller".into());
    m.insert("log.dirs", c.log_dir.display().to_string());
    if let Some((host, port)) = &c.listener {
        m.insert("listeners", format!("PLAINTEXT://{host}:{port}"));
        m.insert("advertised.listeners", format!("PLAINTEXT://{host}:{port}"));
    }
    m.insert("inter.broker.listener.name", "PLAINTEXT".into());
    m.insert(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT".into(),
    );
    // A single broker: the internal topics have one replica.
    m.insert("offsets.topic.replication.factor", "1".into());
    m.insert("transaction.state.log.replication.factor", "1".into());
    m.insert("transaction.state.log.min.isr", "1".into());
    m.insert(
        "share.coordinator.state.topic.replication.factor",
        "1".into(),
    );
    m.insert("share.coordinator.state.topic.min.isr", "1".into());
    let l = &c.log;
    let settings: [(&'static str, std::string::String); 17] = [
        ("num.partitions", c.num_partitions.to_string()),
        (
            "auto.create.topics.enable",
            c.auto_create_topics.to_string(),
        ),
        ("log.segment.bytes", l.segment_bytes.to_string()),
        ("log.roll.ms", l.segment_ms.to_string()),
        (
            "log.index.interval.bytes",
            l.index_interval_bytes.to_string(),
        ),
        (
            "log.index.size.max.bytes",
            l.segment_index_bytes.to_string(),
        ),
        ("log.retention.ms", l.retention_ms.to_string()),
        ("log.retention.bytes", l.retention_bytes.to_string()),
        (
            "log.retention.check.interval.ms",
            c.retention_check_interval_ms.to_string(),
        ),
        (
            "log.segment.delete.delay.ms",
            l.file_delete_delay_ms.to_string(),
        ),
        (
            "log.message.timestamp.type",
            if l.log_append_time {
                "LogAppendTime"
            } else {
                "CreateTime"
            }
            .into(),
        ),
        ("message.max.bytes", l.max_message_bytes.to_string()),
        (
            "offsets.topic.num.partitions",
            c.offsets_topic_partitions.to_string(),
        ),
        (
            "transaction.state.log.num.partitions",
            c.transaction_topic_partitions.to_string(),
        ),
        (
            "group.initial.rebalance.delay.ms",
            c.group_initial_rebalance_delay_ms.to_string(),
        ),
        (
            "group.consumer.session.timeout.ms",
            c.consumer_groups.session_timeout_ms.to_string(),
        ),
        (
            "group.consumer.heartbeat.interval.ms",
            c.consumer_groups.heartbeat_interval_ms.to_string(),
        ),
    ];
    for (name, value) in settings {
        // What Kafka's default comes to: log.retention.ms and log.roll.ms default to null,
        // their hours synonyms to 168.
        let kafka_default = match name {
            "log.retention.ms" | "log.roll.ms" => Some("604800000"),
            _ => def(name).and_then(|d| d.default),
        };
        if kafka_default != Some(value.as_str()) {
            m.insert(name, value);
        }
    }
    m
}

/// DescribeConfigs of the BROKER resource `resource` (this node's id, or `""`: the cluster
/// default, which lists its dynamic configs only), every config in Kafka's order.
pub fn describe(c: &BrokerConfig, image: &MetadataImage, resource: &str) -> Vec<Described> {
    let empty = BTreeMap::new();
    let dynamic_default = image
        .configs
        .get(&(BROKER_RESOURCE, std::string::String::new()))
        .unwrap_or(&empty);
    if resource.is_empty() {
        return dynamic_default
            .iter()
            .map(|(name, value)| {
                let d = def(name);
                let value = Some(value.clone());
                Described {
                    name: name.clone(),
                    value: if d.is_some_and(|d| d.sensitive) || d.is_none() {
                        None
                    } else {
                        value.clone()
                    },
                    source: Source::DynamicDefault,
                    kind: d.map_or(Password, |d| d.kind),
                    read_only: false,
                    sensitive: d.is_none_or(|d| d.sensitive),
                    synonyms: vec![(name.clone(), value, Source::DynamicDefault)],
                }
            })
            .collect();
    }
    let dynamic = image
        .configs
        .get(&(BROKER_RESOURCE, resource.to_string()))
        .unwrap_or(&empty);
    let statics = static_configs(c);
    let mut out: Vec<Described> = KAFKA_BROKER_CONFIGS
        .iter()
        .map(|d| {
            let mut synonyms = Vec::new();
            for name in std::iter::once(d.name).chain(coarser(d.name).iter().copied()) {
                if let Some(v) = dynamic.get(name) {
                    synonyms.push((name.to_string(), Some(v.clone()), Source::DynamicBroker));
                }
                if let Some(v) = dynamic_default.get(name) {
                    synonyms.push((name.to_string(), Some(v.clone()), Source::DynamicDefault));
                }
                if let Some(v) = statics.get(name) {
                    synonyms.push((name.to_string(), Some(v.clone()), Source::Static));
                }
            }
            for name in std::iter::once(d.name).chain(coarser(d.name).iter().copied()) {
                if let Some(v) = def(name).and_then(|x| x.default) {
                    synonyms.push((name.to_string(), Some(v.to_string()), Source::Default));
                    break;
                }
            }
            let (value, source) = match synonyms.first() {
                Some((n, v, s)) if n == d.name => (v.clone(), *s),
                // Set only through a coarser synonym (log.retention.hours): Kafka reports the
                // config itself as null from its default, with no synonyms.
                _ => {
                    synonyms.clear();
                    (None, Source::Default)
                }
            };
            Described {
                name: d.name.to_string(),
                value: if d.sensitive { None } else { value },
                source,
                kind: d.kind,
                read_only: d.read_only,
                sensitive: d.sensitive,
                synonyms: if d.sensitive {
                    synonyms.into_iter().map(|(n, _, s)| (n, None, s)).collect()
                } else {
                    synonyms
                },
            }
        })
        .collect();
    // Dynamic configs Kafka does not know are described too, as sensitive (their values are
    // not shown).
    for name in dynamic.keys().filter(|n| def(n).is_none()) {
        out.push(Described {
            name: name.clone(),
            value: None,
            source: Source::DynamicBroker,
            kind: Password,
            read_only: false,
            sensitive: true,
            synonyms: vec![(name.clone(), None, Source::DynamicBroker)],
        });
    }
    out
}

fn invalid_request(message: std::string::String) -> BrokerError {
    BrokerError::new(ResponseError::InvalidRequest, message)
}

/// Validates new dynamic values for a BROKER resource (`""`: the cluster default) as Kafka's
/// controller does: read-only configs refused ("Cannot update these configs dynamically"),
/// per-broker configs refused at the cluster level, then each value's type and, for the log
/// configs that default a topic config, that config's validator; all INVALID_REQUEST.
pub fn validate(
    resource: &str,
    values: &[(std::string::String, Option<std::string::String>)],
) -> Result<(), BrokerError> {
    let read_only: Vec<&str> = values
        .iter()
        .filter(|(n, _)| def(n).is_some_and(|d| d.read_only))
        .map(|(n, _)| n.as_str())
        .collect();
    if !read_only.is_empty() {
        return Err(invalid_request(format!(
            "Cannot update these configs dynamically: [{}]",
            read_only.join(", ")
        )));
    }
    if resource.is_empty() {
        let per_broker: Vec<&str> = values
            .iter()
            .filter(|(n, _)| PER_BROKER.contains(&n.as_str()))
            .map(|(n, _)| n.as_str())
            .collect();
        if !per_broker.is_empty() {
            return Err(invalid_request(format!(
                "Cannot update these configs at default cluster level, broker id must be specified: [{}]",
                per_broker.join(", ")
            )));
        }
    }
    for (name, value) in values {
        let (Some(d), Some(value)) = (def(name), value) else {
            continue;
        };
        d.kind.parses(value).map_err(|why| {
            invalid_request(format!(
                "Invalid value {value} for configuration {name}: {why}"
            ))
        })?;
        if let Some((_, topic)) = TOPIC_SYNONYMS.iter().find(|(b, _)| b == name) {
            topic_config::check_value(topic, value, name).map_err(invalid_request)?;
        }
    }
    Ok(())
}

/// `DynamicBrokerConfig.PerBrokerConfigs`: the listener and SSL/SASL keystore settings.
const PER_BROKER: &[&str] = &[
    "advertised.listeners",
    "broker.id",
    "listeners",
    "listener.security.protocol.map",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.type",
    "ssl.key.password",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.type",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.certificates",
];

/// The dynamic broker configs that default topic configs, as topic-config overrides: the
/// cluster default first, this broker's over it.
pub fn dynamic_log_overrides(
    image: &MetadataImage,
    node_id: i32,
) -> BTreeMap<std::string::String, std::string::String> {
    let mut out = BTreeMap::new();
    for resource in [std::string::String::new(), node_id.to_string()] {
        let Some(configs) = image.configs.get(&(BROKER_RESOURCE, resource)) else {
            continue;
        };
        for (broker, topic) in TOPIC_SYNONYMS {
            if let Some(v) = configs.get(*broker) {
                out.insert(topic.to_string(), v.clone());
            }
        }
    }
    out
}

/// Kafka 4.4.0's broker configs (see the module doc for how this table was made).
#[rustfmt::skip]
pub static KAFKA_BROKER_CONFIGS: &[Def] = &[
    row("log.cleaner.min.compaction.lag.ms", Long, Some("0"), false, false),
    row("offsets.topic.num.partitions", Int, Some("50"), true, false),
    row("sasl.oauthbearer.jwks.endpoint.refresh.ms", Long, Some("3600000"), true, false),
    row("remote.log.metadata.manager.listener.name", String, None, true, false),
    row("log.flush.interval.messages", Long, Some("9223372036854775807"), false, false),
    row("controller.socket.timeout.ms", Int, Some("30000"), true, false),
    row("log.flush.interval.ms", Long, None, false, false),
    row("principal.builder.class", Class, Some("org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"), false, false),
    row("controller.quorum.request.timeout.ms", Int, Some("2000"), true, false),
    row("errors.deadletterqueue.auto.create.topics.enable", Boolean, Some("false"), false, false),
    row("min.insync.replicas", Int, Some("1"), false, false),
    row("sasl.oauthbearer.expected.audience", List, Some(""), true, false),
    row("remote.log.manager.thread.pool.size", Int, Some("2"), true, false),
    row("group.consumer.max.session.timeout.ms", Int, Some("60000"), true, false),
    row("num.recovery.threads.per.data.dir", Int, Some("2"), false, false),
    row("ssl.keystore.type", String, Some("JKS"), false, false),
    row("sasl.oauthbearer.assertion.private.key.file", String, None, true, false),
    row("share.coordinator.state.topic.replication.factor", Short, Some("3"), true, false),
    row("controller.quorum.bootstrap.servers", List, Some(""), true, false),
    row("sasl.mechanism.inter.broker.protocol", String, Some("GSSAPI"), false, false),
    row("metadata.log.segment.bytes", Int, Some("1073741824"), true, false),
    row("fetch.purgatory.purge.interval.requests", Int, Some("1000"), true, false),
    row("group.streams.num.standby.replicas", Int, Some("0"), true, false),
    row("group.share.record.lock.duration.ms", Int, Some("30000"), true, false),
    row("ssl.endpoint.identification.algorithm", String, Some("https"), false, false),
    row("replica.socket.timeout.ms", Int, Some("30000"), true, false),
    row("message.max.bytes", Int, Some("1048588"), false, false),
    row("share.coordinator.state.topic.segment.bytes", Int, Some("104857600"), true, false),
    row("remote.log.manager.fetch.max.bytes.per.second", Long, Some("9223372036854775807"), false, false),
    row("group.share.session.timeout.ms", Int, Some("45000"), true, false),
    row("max.connection.creation.rate", Int, Some("2147483647"), false, false),
    row("sasl.oauthbearer.assertion.claim.exp.seconds", Int, Some("300"), true, false),
    row("connections.max.reauth.ms", Long, Some("0"), true, false),
    row("share.coordinator.state.topic.min.isr", Short, Some("2"), true, false),
    row("remote.log.manager.copy.quota.window.size.seconds", Int, Some("1"), true, false),
    row("log.flush.offset.checkpoint.interval.ms", Int, Some("60000"), true, false),
    row("sasl.oauthbearer.assertion.claim.aud", String, None, true, false),
    row("quota.window.num", Int, Some("11"), true, false),
    row("sasl.oauthbearer.clock.skew.seconds", Int, Some("30"), true, false),
    row("group.share.min.assignment.interval.ms", Int, Some("0"), true, false),
    row("group.consumer.min.session.timeout.ms", Int, Some("45000"), true, false),
    row("authorizer.class.name", String, Some(""), true, false),
    row("num.replica.fetchers", Int, Some("1"), false, false),
    row("alter.log.dirs.replication.quota.window.size.seconds", Int, Some("1"), true, false),
    row("sasl.oauthbearer.scope", String, None, true, false),
    row("sasl.oauthbearer.jwks.endpoint.url", String, None, true, false),
    row("remote.log.metadata.custom.metadata.max.bytes", Int, Some("128"), true, false),
    row("log.roll.jitter.hours", Int, Some("0"), true, false),
    row("telemetry.max.bytes", Int, Some("1048576"), true, false),
    row("log.cleaner.delete.retention.ms", Long, Some("86400000"), false, false),
    row("sasl.oauthbearer.assertion.file", String, None, true, false),
    row("sasl.login.retry.backoff.ms", Long, Some("100"), true, false),
    row("queued.max.requests", Int, Some("500"), true, false),
    row("log.cleaner.threads", Int, Some("1"), false, false),
    row("sasl.kerberos.service.name", String, None, false, false),
    row("socket.request.max.bytes", Int, Some("104857600"), true, false),
    row("group.consumer.max.size", Int, Some("2147483647"), true, false),
    row("group.consumer.assignors", List, Some("uniform,range"), true, false),
    row("remote.log.storage.system.enable", Boolean, Some("false"), true, false),
    row("group.streams.assignors", List, Some("sticky"), true, false),
    row("log.message.timestamp.type", String, Some("CreateTime"), false, false),
    row("connections.max.idle.ms", Long, Some("600000"), true, false),
    row("max.connections", Int, Some("2147483647"), false, false),
    row("delegation.token.expiry.time.ms", Long, Some("86400000"), true, false),
    row("transaction.state.log.num.partitions", Int, Some("50"), true, false),
    row("controller.quorum.election.timeout.ms", Int, Some("1000"), true, false),
    row("listener.security.protocol.map", String, Some("SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"), false, false),
    row("log.retention.hours", Int, Some("168"), true, false),
    row("client.quota.callback.class", Class, None, true, false),
    row("remote.log.storage.manager.impl.prefix", String, Some("rsm.config."), true, false),
    row("ssl.provider", String, None, false, false),
    row("delete.records.purgatory.purge.interval.requests", Int, Some("1"), true, false),
    row("producer.id.expiration.ms", Int, Some("86400000"), false, false),
    row("log.roll.ms", Long, None, false, false),
    row("ssl.cipher.suites", List, Some(""), false, false),
    row("controller.quorum.retry.backoff.ms", Int, Some("20"), true, false),
    row("remote.log.manager.copy.max.bytes.per.second", Long, Some("9223372036854775807"), false, false),
    row("broker.session.timeout.ms", Int, Some("9000"), true, false),
    row("security.inter.broker.protocol", String, Some("PLAINTEXT"), true, false),
    row("group.consumer.assignment.interval.ms", Int, Some("1000"), false, false),
    row("group.share.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("delegation.token.secret.key", Password, None, true, true),
    row("remote.log.manager.fetch.quota.window.num", Int, Some("11"), true, false),
    row("remote.fetch.max.wait.ms", Int, Some("500"), false, false),
    row("group.streams.max.heartbeat.interval.ms", Int, Some("15000"), true, false),
    row("sasl.oauthbearer.assertion.claim.jti.include", Boolean, Some("false"), true, false),
    row("node.id", Int, None, true, false),
    row("replica.high.watermark.checkpoint.interval.ms", Long, Some("5000"), true, false),
    row("replication.quota.window.size.seconds", Int, Some("1"), true, false),
    row("log.local.retention.ms", Long, Some("-2"), false, false),
    row("share.coordinator.append.linger.ms", Int, Some("-1"), true, false),
    row("remote.log.reader.threads", Int, Some("10"), false, false),
    row("share.coordinator.snapshot.update.records.per.snapshot", Int, Some("500"), true, false),
    row("follower.fetch.last.tiered.offset.enable", Boolean, Some("false"), false, false),
    row("sasl.kerberos.ticket.renew.window.factor", Double, Some("0.8"), false, false),
    row("group.coordinator.threads", Int, Some("4"), true, false),
    row("sasl.oauthbearer.assertion.private.key.passphrase", Password, None, true, true),
    row("metrics.recording.level", String, Some("INFO"), true, false),
    row("sasl.oauthbearer.assertion.template.file", String, None, true, false),
    row("log.dir.failure.timeout.ms", Long, Some("30000"), true, false),
    row("transaction.partition.verification.enable", Boolean, Some("true"), false, false),
    row("controller.quorum.auto.join.enable", Boolean, Some("false"), true, false),
    row("group.share.min.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("ssl.principal.mapping.rules", String, Some("DEFAULT"), true, false),
    row("remote.log.manager.fetch.quota.window.size.seconds", Int, Some("1"), true, false),
    row("replica.selector.class", String, None, true, false),
    row("max.connections.per.ip", Int, Some("2147483647"), false, false),
    row("background.threads", Int, Some("10"), false, false),
    row("group.streams.max.assignment.interval.ms", Int, Some("15000"), true, false),
    row("request.timeout.ms", Int, Some("30000"), true, false),
    row("add.partitions.to.txn.retry.backoff.ms", Int, Some("20"), true, false),
    row("sasl.login.class", Class, None, true, false),
    row("remote.log.index.file.cache.total.size.bytes", Long, Some("1073741824"), false, false),
    row("log.dir", List, Some("/tmp/kafka-logs"), true, false),
    row("log.segment.bytes", Int, Some("1073741824"), false, false),
    row("replica.fetch.response.max.bytes", Int, Some("10485760"), true, false),
    row("group.max.session.timeout.ms", Int, Some("1800000"), true, false),
    row("group.consumer.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("controller.listener.names", List, None, true, false),
    row("log.message.timestamp.after.max.ms", Long, Some("3600000"), false, false),
    row("controller.quorum.append.linger.ms", Int, Some("25"), true, false),
    row("log.retention.minutes", Int, None, true, false),
    row("log.segment.delete.delay.ms", Long, Some("60000"), false, false),
    row("log.dirs", List, None, true, false),
    row("early.start.listeners", List, None, true, false),
    row("controlled.shutdown.enable", Boolean, Some("true"), true, false),
    row("share.coordinator.state.topic.compression.codec", Int, Some("0"), true, false),
    row("log.message.timestamp.before.max.ms", Long, Some("9223372036854775807"), false, false),
    row("group.share.min.partition.max.record.locks", Int, Some("100"), true, false),
    row("remote.log.manager.copier.thread.pool.size", Int, Some("10"), false, false),
    row("socket.connection.setup.timeout.max.ms", Long, Some("30000"), true, false),
    row("sasl.login.refresh.min.period.seconds", Short, Some("60"), false, false),
    row("sasl.oauthbearer.scope.claim.name", String, Some("scope"), true, false),
    row("sasl.oauthbearer.expected.issuer", String, None, true, false),
    row("sasl.login.read.timeout.ms", Int, None, true, false),
    row("transaction.abort.timed.out.transaction.cleanup.interval.ms", Int, Some("10000"), true, false),
    row("sasl.kerberos.kinit.cmd", String, Some("/usr/bin/kinit"), false, false),
    row("group.consumer.min.assignment.interval.ms", Int, Some("0"), true, false),
    row("log.cleaner.io.max.bytes.per.second", Double, Some("1.7976931348623157E308"), false, false),
    row("auto.leader.rebalance.enable", Boolean, Some("true"), true, false),
    row("leader.imbalance.check.interval.seconds", Long, Some("300"), true, false),
    row("log.cleaner.min.cleanable.ratio", Double, Some("0.5"), false, false),
    row("group.share.min.record.lock.duration.ms", Int, Some("15000"), true, false),
    row("replica.lag.time.max.ms", Long, Some("30000"), true, false),
    row("num.network.threads", Int, Some("3"), false, false),
    row("group.share.min.session.timeout.ms", Int, Some("45000"), true, false),
    row("ssl.keystore.key", Password, None, false, true),
    row("sasl.client.callback.handler.class", Class, None, true, false),
    row("compression.gzip.level", Int, Some("-1"), false, false),
    row("metrics.num.samples", Int, Some("2"), true, false),
    row("socket.send.buffer.bytes", Int, Some("102400"), true, false),
    row("group.coordinator.rebalance.protocols", List, Some("classic,consumer,streams"), true, false),
    row("remote.log.storage.manager.class.name", String, None, true, false),
    row("socket.receive.buffer.bytes", Int, Some("102400"), true, false),
    row("group.streams.initial.rebalance.delay.ms", Int, Some("3000"), true, false),
    row("replica.fetch.min.bytes", Int, Some("1"), true, false),
    row("group.streams.max.session.timeout.ms", Int, Some("60000"), true, false),
    row("sasl.oauthbearer.sub.claim.name", String, Some("sub"), true, false),
    row("broker.rack", String, None, true, false),
    row("unclean.leader.election.enable", Boolean, Some("false"), false, false),
    row("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Long, Some("100"), true, false),
    row("max.decompressed.message.bytes", Int, Some("2147483639"), false, false),
    row("offsets.retention.check.interval.ms", Long, Some("600000"), true, false),
    row("group.share.min.delivery.count.limit", Int, Some("2"), true, false),
    row("producer.purgatory.purge.interval.requests", Int, Some("1000"), true, false),
    row("controller.quorum.voters", List, Some(""), true, false),
    row("group.share.assignors", List, Some("simple"), true, false),
    row("metrics.sample.window.ms", Long, Some("30000"), true, false),
    row("log.remote.copy.lag.ms", Long, Some("0"), false, false),
    row("log.retention.check.interval.ms", Long, Some("300000"), true, false),
    row("group.consumer.session.timeout.ms", Int, Some("45000"), true, false),
    row("sasl.login.refresh.window.jitter", Double, Some("0.05"), false, false),
    row("group.share.max.assignment.interval.ms", Int, Some("15000"), true, false),
    row("controller.quota.window.num", Int, Some("11"), true, false),
    row("group.streams.session.timeout.ms", Int, Some("45000"), true, false),
    row("metric.reporters", List, Some("org.apache.kafka.common.metrics.JmxReporter"), false, false),
    row("sasl.oauthbearer.token.endpoint.url", String, None, true, false),
    row("auto.create.topics.enable", Boolean, Some("true"), true, false),
    row("group.share.partition.max.record.locks", Int, Some("2000"), true, false),
    row("ssl.engine.factory.class", Class, None, false, false),
    row("replica.socket.receive.buffer.bytes", Int, Some("65536"), true, false),
    row("ssl.allow.dn.changes", Boolean, Some("false"), true, false),
    row("replica.fetch.wait.max.ms", Int, Some("500"), true, false),
    row("log.remote.copy.lag.bytes", Long, Some("-1"), false, false),
    row("group.coordinator.background.threads", Int, Some("2"), true, false),
    row("group.consumer.min.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("group.share.max.delivery.count.limit", Int, Some("10"), true, false),
    row("group.streams.min.session.timeout.ms", Int, Some("45000"), true, false),
    row("default.replication.factor", Int, Some("1"), true, false),
    row("group.streams.topology.description.plugin.class", Class, None, true, false),
    row("ssl.truststore.password", Password, None, false, true),
    row("group.share.assignment.interval.ms", Int, Some("1000"), false, false),
    row("log.preallocate", Boolean, Some("false"), false, false),
    row("sasl.kerberos.principal.to.local.rules", List, Some("DEFAULT"), false, false),
    row("remote.log.reader.max.pending.tasks", Int, Some("100"), true, false),
    row("transactional.id.expiration.ms", Int, Some("604800000"), true, false),
    row("transaction.state.log.replication.factor", Short, Some("3"), true, false),
    row("num.io.threads", Int, Some("8"), false, false),
    row("group.streams.max.size", Int, Some("2147483647"), true, false),
    row("sasl.login.refresh.buffer.seconds", Short, Some("300"), false, false),
    row("connection.failed.authentication.delay.ms", Int, Some("100"), true, false),
    row("group.share.max.heartbeat.interval.ms", Int, Some("15000"), true, false),
    row("share.coordinator.write.timeout.ms", Int, Some("5000"), true, false),
    row("delete.topic.enable", Boolean, Some("true"), true, false),
    row("quota.window.size.seconds", Int, Some("1"), true, false),
    row("ssl.truststore.type", String, Some("JKS"), false, false),
    row("offsets.commit.timeout.ms", Int, Some("5000"), true, false),
    row("sasl.oauthbearer.assertion.algorithm", String, Some("RS256"), true, false),
    row("broker.heartbeat.interval.ms", Int, Some("2000"), true, false),
    row("sasl.mechanism.controller.protocol", String, Some("GSSAPI"), true, false),
    row("group.share.max.record.lock.duration.ms", Int, Some("60000"), true, false),
    row("log.cleaner.max.compaction.lag.ms", Long, Some("9223372036854775807"), false, false),
    row("group.streams.rack.aware.assignment.tags", List, Some(""), true, false),
    row("remote.log.storage.manager.class.path", String, None, true, false),
    row("log.retention.ms", Long, None, false, false),
    row("share.fetch.purgatory.purge.interval.requests", Int, Some("1000"), true, false),
    row("alter.log.dirs.replication.quota.window.num", Int, Some("11"), true, false),
    row("log.cleaner.enable", Boolean, Some("true"), true, false),
    row("controller.quorum.fetch.timeout.ms", Int, Some("2000"), true, false),
    row("offsets.load.buffer.size", Int, Some("5242880"), true, false),
    row("ssl.client.auth", String, Some("none"), false, false),
    row("errors.deadletterqueue.topic.name.prefix", String, Some("dlq."), false, false),
    row("offsets.topic.replication.factor", Short, Some("3"), true, false),
    row("transaction.state.log.min.isr", Int, Some("2"), true, false),
    row("ssl.secure.random.implementation", String, None, false, false),
    row("sasl.kerberos.ticket.renew.jitter", Double, Some("0.05"), false, false),
    row("ssl.trustmanager.algorithm", String, Some("PKIX"), false, false),
    row("group.streams.assignment.interval.ms", Int, Some("1000"), false, false),
    row("log.local.retention.bytes", Long, Some("-2"), false, false),
    row("log.retention.bytes", Long, Some("-1"), false, false),
    row("remote.log.metadata.manager.impl.prefix", String, Some("rlmm.config."), true, false),
    row("controller.quota.window.size.seconds", Int, Some("1"), true, false),
    row("sasl.jaas.config", Password, None, false, true),
    row("sasl.oauthbearer.allow.unverified.issuer", Boolean, Some("false"), true, false),
    row("share.coordinator.state.topic.num.partitions", Int, Some("50"), true, false),
    row("sasl.kerberos.min.time.before.relogin", Long, Some("60000"), false, false),
    row("offsets.retention.minutes", Int, Some("10080"), true, false),
    row("replica.fetch.backoff.ms", Int, Some("1000"), true, false),
    row("group.share.delivery.count.limit", Int, Some("5"), true, false),
    row("kafka.metrics.reporters", List, Some(""), true, false),
    row("compression.zstd.level", Int, Some("3"), false, false),
    row("ssl.allow.san.changes", Boolean, Some("false"), true, false),
    row("remote.log.manager.copy.quota.window.num", Int, Some("11"), true, false),
    row("num.partitions", Int, Some("1"), true, false),
    row("ssl.keystore.certificate.chain", Password, None, false, true),
    row("socket.connection.setup.timeout.ms", Long, Some("10000"), true, false),
    row("listeners", List, Some("PLAINTEXT://:9092"), false, false),
    row("sasl.oauthbearer.client.credentials.client.id", String, None, true, false),
    row("ssl.enabled.protocols", List, Some("TLSv1.2,TLSv1.3"), false, false),
    row("inter.broker.listener.name", String, None, true, false),
    row("sasl.oauthbearer.assertion.claim.nbf.seconds", Int, Some("60"), true, false),
    row("alter.config.policy.class.name", Class, None, true, false),
    row("delegation.token.expiry.check.interval.ms", Long, Some("3600000"), true, false),
    row("log.flush.scheduler.interval.ms", Long, Some("9223372036854775807"), true, false),
    row("remote.log.manager.expiration.thread.pool.size", Int, Some("10"), false, false),
    row("group.consumer.max.assignment.interval.ms", Int, Some("15000"), true, false),
    row("log.index.size.max.bytes", Int, Some("10485760"), false, false),
    row("group.share.max.share.sessions", Int, Some("2000"), true, false),
    row("ssl.keymanager.algorithm", String, Some("SunX509"), false, false),
    row("sasl.login.callback.handler.class", Class, None, true, false),
    row("replica.fetch.max.bytes", Int, Some("1048576"), true, false),
    row("sasl.server.callback.handler.class", Class, None, true, false),
    row("share.coordinator.cached.buffer.max.bytes", Int, Some("1048588"), false, false),
    row("log.cleaner.dedupe.buffer.size", Long, Some("134217728"), false, false),
    row("log.cleaner.io.buffer.size", Int, Some("524288"), false, false),
    row("config.providers", List, Some(""), false, false),
    row("create.topic.policy.class.name", Class, None, true, false),
    row("socket.listen.backlog.size", Int, Some("50"), true, false),
    row("ssl.truststore.certificates", Password, None, false, true),
    row("controller.quorum.fetch.snapshot.max.bytes", Int, Some("1048576"), true, false),
    row("sasl.oauthbearer.jwt.validator.class", Class, Some("org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator"), true, false),
    row("share.coordinator.threads", Int, Some("1"), true, false),
    row("sasl.server.max.receive.size", Int, Some("524288"), true, false),
    row("security.providers", String, None, true, false),
    row("metadata.log.max.snapshot.interval.ms", Long, Some("3600000"), true, false),
    row("group.streams.max.standby.replicas", Int, Some("2"), true, false),
    row("compression.lz4.level", Int, Some("9"), false, false),
    row("log.roll.hours", Int, Some("168"), true, false),
    row("controller.quorum.fetch.max.bytes", Int, Some("1048576"), true, false),
    row("log.cleanup.policy", List, Some("delete"), false, false),
    row("initial.broker.registration.timeout.ms", Int, Some("60000"), true, false),
    row("log.flush.start.offset.checkpoint.interval.ms", Int, Some("60000"), true, false),
    row("log.roll.jitter.ms", Long, None, false, false),
    row("transaction.state.log.segment.bytes", Int, Some("104857600"), true, false),
    row("offsets.topic.segment.bytes", Int, Some("104857600"), true, false),
    row("sasl.oauthbearer.assertion.claim.sub", String, None, true, false),
    row("metadata.max.idle.interval.ms", Int, Some("500"), true, false),
    row("remote.log.metadata.manager.class.name", String, Some("org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager"), true, false),
    row("sasl.oauthbearer.client.credentials.client.secret", Password, None, true, true),
    row("remote.log.manager.task.interval.ms", Long, Some("30000"), true, false),
    row("sasl.login.retry.backoff.max.ms", Long, Some("10000"), true, false),
    row("sasl.oauthbearer.allow.unverified.audience", Boolean, Some("false"), true, false),
    row("group.initial.rebalance.delay.ms", Int, Some("3000"), true, false),
    row("log.index.interval.bytes", Int, Some("4096"), false, false),
    row("log.cleaner.backoff.ms", Long, Some("15000"), false, false),
    row("share.coordinator.load.buffer.size", Int, Some("5242880"), true, false),
    row("cordoned.log.dirs", List, Some(""), false, false),
    row("offset.metadata.max.bytes", Int, Some("4096"), true, false),
    row("ssl.truststore.location", String, None, false, false),
    row("ssl.keystore.password", Password, None, false, true),
    row("transaction.two.phase.commit.enable", Boolean, Some("false"), true, false),
    row("fetch.max.bytes", Int, Some("57671680"), true, false),
    row("metadata.max.retention.bytes", Long, Some("104857600"), true, false),
    row("compression.type", String, Some("producer"), false, false),
    row("group.streams.min.assignment.interval.ms", Int, Some("0"), true, false),
    row("sasl.login.connect.timeout.ms", Int, None, true, false),
    row("max.connections.per.ip.overrides", String, Some(""), false, false),
    row("remote.log.metadata.manager.class.path", String, None, true, false),
    row("group.consumer.max.heartbeat.interval.ms", Int, Some("15000"), true, false),
    row("sasl.login.refresh.window.factor", Double, Some("0.8"), false, false),
    row("kafka.metrics.polling.interval.secs", Int, Some("10"), true, false),
    row("add.partitions.to.txn.retry.backoff.max.ms", Int, Some("100"), true, false),
    row("remote.log.manager.follower.thread.pool.size", Int, Some("2"), false, false),
    row("metadata.log.max.record.bytes.between.snapshots", Long, Some("20971520"), true, false),
    row("metadata.max.retention.ms", Long, Some("604800000"), true, false),
    row("group.share.max.size", Int, Some("200"), true, false),
    row("controller.quorum.election.backoff.max.ms", Int, Some("1000"), true, false),
    row("max.incremental.fetch.session.cache.slots", Int, Some("1000"), true, false),
    row("sasl.oauthbearer.assertion.claim.iss", String, None, true, false),
    row("group.share.max.partition.max.record.locks", Int, Some("4000"), true, false),
    row("ssl.key.password", Password, None, false, true),
    row("transaction.remove.expired.transaction.cleanup.interval.ms", Int, Some("3600000"), true, false),
    row("ssl.protocol", String, Some("TLSv1.3"), false, false),
    row("group.consumer.migration.policy", String, Some("bidirectional"), true, false),
    row("metadata.log.segment.ms", Long, Some("604800000"), true, false),
    row("transaction.state.log.load.buffer.size", Int, Some("5242880"), true, false),
    row("group.coordinator.append.linger.ms", Int, Some("-1"), true, false),
    row("ssl.keystore.location", String, None, false, false),
    row("remote.list.offsets.request.timeout.ms", Long, Some("30000"), false, false),
    row("num.replica.alter.log.dirs.threads", Int, None, true, false),
    row("sasl.enabled.mechanisms", List, Some("GSSAPI"), false, false),
    row("sasl.oauthbearer.jwt.retriever.class", Class, Some("org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever"), true, false),
    row("group.share.max.session.timeout.ms", Int, Some("60000"), true, false),
    row("group.min.session.timeout.ms", Int, Some("6000"), true, false),
    row("metadata.log.dir", String, None, true, false),
    row("log.cleaner.io.buffer.load.factor", Double, Some("0.9"), false, false),
    row("transaction.max.timeout.ms", Int, Some("900000"), true, false),
    row("group.streams.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("process.roles", List, None, true, false),
    row("group.max.size", Int, Some("2147483647"), true, false),
    row("broker.id", Int, Some("-1"), true, false),
    row("max.request.partition.size.limit", Int, Some("2000"), true, false),
    row("offsets.topic.compression.codec", Int, Some("0"), true, false),
    row("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Long, Some("10000"), true, false),
    row("delegation.token.max.lifetime.ms", Long, Some("604800000"), true, false),
    row("replication.quota.window.num", Int, Some("11"), true, false),
    row("group.streams.min.heartbeat.interval.ms", Int, Some("5000"), true, false),
    row("advertised.listeners", List, None, true, false),
    row("group.coordinator.cached.buffer.max.bytes", Int, Some("1048588"), false, false),
    row("queued.max.request.bytes", Long, Some("-1"), true, false),
];
