//! The configs a broker runs a topic's log with, each value with where it came from, resolved
//! as Kafka 4.4 resolves them: the topic's own config (`--topic-config`, else its ConfigRecord in
//! `__cluster_metadata`, else the config its coordinator creates an internal topic with), else
//! the broker's default for it — the broker configs of `ServerTopicConfigSynonyms` in their
//! order (`log.retention.ms`, then `log.retention.minutes`, then `log.retention.hours`), each
//! taken from the broker's dynamic config in `__cluster_metadata`, else the cluster-wide dynamic
//! default there, else the static config the user gives with `--config` (server.properties:
//! dynamic configs win over it, as in `DynamicBrokerConfig`) — else Kafka 4.4's default. The
//! broker-only configs of the retention check and the log cleaner resolve the same way.
//!
//! `--config` and `--topic-config` are parsed and checked here, once, for every command that
//! takes them.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::defs::{
    broker_config_names, broker_config_type, broker_def, check_value, internal_topic_configs,
    list_items, parse_double, topic_def, topic_of_broker_config, TopicDef,
};
use super::{ConfigSource, LogConfigs, Setting};

/// The configs the command line gives, checked against Kafka 4.4's definitions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigFlags {
    /// `--config`: broker config name → value, as server.properties holds them (a topic config
    /// named there is kept under its broker config: `retention.ms` as `log.retention.ms`).
    broker: BTreeMap<&'static str, String>,
    /// `--topic-config`: topic → topic config name → value.
    topics: BTreeMap<String, BTreeMap<&'static str, String>>,
}

/// The topic configs of `kafka-configs.sh --describe --entity-type topics [--all]` output (what
/// an operator saves while a ZooKeeper-mode cluster still runs: its topic configs are in
/// ZooKeeper, never in a log dir) as `--topic-config` arguments, `TOPIC:KEY=VALUE`.
/// `All configs for topic T are:` / `Dynamic configs for topic T are:` start a topic; each
/// `  KEY=VALUE sensitive=... synonyms={...}` line under it is one config. Configs Kafka 4.4
/// does not define for topics (2.x's `message.format.version`, ...) and sensitive ones
/// (`null`) are left out; the values are checked as `--topic-config`'s are.
pub fn describe_output_topic_configs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut topic: Option<&str> = None;
    for line in text.lines() {
        let header = line
            .strip_prefix("All configs for topic ")
            .or_else(|| line.strip_prefix("Dynamic configs for topic "));
        if let Some(rest) = header {
            topic = rest.strip_suffix(" are:");
            continue;
        }
        if !line.starts_with(' ') {
            topic = None;
            continue;
        }
        let Some(t) = topic else { continue };
        let entry = line.trim_start();
        let entry = entry.split_once(" sensitive=").map_or(entry, |(e, _)| e);
        let Some((key, value)) = entry.split_once('=') else {
            continue;
        };
        if topic_def(key).is_none() || value == "null" {
            continue;
        }
        out.push(format!("{t}:{key}={value}"));
    }
    out
}

/// A `--config` or `--topic-config` value refused, and why (in Kafka's words where Kafka has
/// them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFlagError {
    /// `--config` or `--topic-config`.
    pub flag: &'static str,
    /// The argument as given.
    pub given: String,
    pub problem: String,
}

impl fmt::Display for ConfigFlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.flag, self.given, self.problem)
    }
}

impl std::error::Error for ConfigFlagError {}

impl ConfigFlags {
    /// Parses `--config KEY=VALUE` (a broker config, or a topic config meaning its broker-wide
    /// default) and `--topic-config TOPIC:KEY=VALUE`; a later value of the same key wins.
    pub fn parse(
        config: &[String],
        topic_config: &[String],
    ) -> Result<ConfigFlags, ConfigFlagError> {
        let mut flags = ConfigFlags::default();
        for given in config {
            let fail = |problem: String| ConfigFlagError {
                flag: "--config",
                given: given.clone(),
                problem,
            };
            let (key, value) = split_assignment(given).map_err(fail)?;
            let (name, kind, check) = if let Some((kind, check)) = broker_config_type(key) {
                let name = broker_config_names()
                    .find(|n| *n == key)
                    .expect("a typed broker config is named");
                (name, kind, check)
            } else if let Some(d) = topic_def(key) {
                match d.broker.first() {
                    Some((b, _)) => (*b, d.kind, d.check),
                    None => {
                        return Err(fail(format!(
                            "{key} is a topic config with no broker-wide default: give it with \
                             --topic-config TOPIC:{key}={value}"
                        )))
                    }
                }
            } else {
                return Err(fail(unknown(key, broker_config_names())));
            };
            check_value(kind, check, value).map_err(|why| {
                fail(format!(
                    "Invalid value {value} for configuration {key}: {why}"
                ))
            })?;
            flags.broker.insert(name, value.trim().to_string());
        }
        for given in topic_config {
            let fail = |problem: String| ConfigFlagError {
                flag: "--topic-config",
                given: given.clone(),
                problem,
            };
            let Some((topic, assignment)) = given.split_once(':') else {
                return Err(fail("expected TOPIC:KEY=VALUE".into()));
            };
            if !valid_topic_name(topic) {
                return Err(fail(format!(
                    "{topic:?} is not a topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-')"
                )));
            }
            let (key, value) = split_assignment(assignment).map_err(fail)?;
            let Some(d) = topic_def(key) else {
                let hint = if broker_config_type(key).is_some() {
                    format!("{key} is a broker config: give it with --config {key}={value}")
                } else {
                    unknown(key, super::defs::TOPIC_DEFS.iter().map(|d| d.name))
                };
                return Err(fail(hint));
            };
            check_value(d.kind, d.check, value).map_err(|why| {
                fail(format!(
                    "Invalid value {value} for configuration {key}: {why}"
                ))
            })?;
            flags
                .topics
                .entry(topic.to_string())
                .or_default()
                .insert(d.name, value.trim().to_string());
        }
        Ok(flags)
    }

    pub fn is_empty(&self) -> bool {
        self.broker.is_empty() && self.topics.is_empty()
    }

    /// The topics `--topic-config` names (to say when one matches no partition read).
    pub fn topics(&self) -> impl Iterator<Item = &str> {
        self.topics.keys().map(String::as_str)
    }
}

fn split_assignment(given: &str) -> Result<(&str, &str), String> {
    match given.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim(), v)),
        _ => Err("expected KEY=VALUE".into()),
    }
}

/// `Topic.validate`'s legal names.
fn valid_topic_name(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 249
        && t != "."
        && t != ".."
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// "unknown config X", with the known name closest to it when one is close.
fn unknown(key: &str, known: impl Iterator<Item = &'static str>) -> String {
    let closest = known
        .map(|n| (edit_distance(key, n), n))
        .min()
        .filter(|(d, _)| *d <= 3);
    match closest {
        Some((_, n)) => format!("unknown config {key} (did you mean {n}?)"),
        None => format!(
            "unknown config {key}: kseg knows Kafka 4.4's configs of retention, segments and \
             the log cleaner (see --help)"
        ),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `cleanup.policy`: whether it holds `compact` and `delete` (`LogConfig.compact`/`.delete`,
/// compared in lower case). Neither: infinite retention, no compaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CleanupPolicy {
    pub compact: bool,
    pub delete: bool,
}

impl CleanupPolicy {
    pub fn parse(list: &str) -> CleanupPolicy {
        let mut p = CleanupPolicy::default();
        for item in list_items(list) {
            match item.to_ascii_lowercase().as_str() {
                "compact" => p.compact = true,
                "delete" => p.delete = true,
                _ => {}
            }
        }
        p
    }

    /// Kafka's spelling: `delete`, `compact`, `compact,delete`, or the empty list.
    pub fn as_str(self) -> &'static str {
        match (self.compact, self.delete) {
            (true, true) => "compact,delete",
            (true, false) => "compact",
            (false, true) => "delete",
            (false, false) => "",
        }
    }
}

impl Serialize for CleanupPolicy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One topic's log configs as its broker runs them (`LogConfig`), each with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectiveLogConfig {
    pub cleanup_policy: Setting<CleanupPolicy>,
    /// `-1`: no time limit.
    pub retention_ms: Setting<i64>,
    /// Negative: no size limit.
    pub retention_bytes: Setting<i64>,
    /// `LogConfig.segmentSize`: `internal.segment.bytes` when set, else `segment.bytes`.
    pub segment_bytes: Setting<i64>,
    pub segment_ms: Setting<i64>,
    pub segment_jitter_ms: Setting<i64>,
    pub segment_index_bytes: Setting<i64>,
    pub index_interval_bytes: Setting<i64>,
    pub delete_retention_ms: Setting<i64>,
    pub min_compaction_lag_ms: Setting<i64>,
    pub max_compaction_lag_ms: Setting<i64>,
    pub min_cleanable_dirty_ratio: Setting<f64>,
    pub file_delete_delay_ms: Setting<i64>,
    pub message_timestamp_type: Setting<String>,
    pub message_timestamp_before_max_ms: Setting<i64>,
    pub message_timestamp_after_max_ms: Setting<i64>,
    pub max_message_bytes: Setting<i64>,
    pub compression_type: Setting<String>,
    pub compression_gzip_level: Setting<i64>,
    pub compression_lz4_level: Setting<i64>,
    pub compression_zstd_level: Setting<i64>,
    pub preallocate: Setting<bool>,
    pub remote_storage_enable: Setting<bool>,
    /// `-2`: `retention.ms`'s value.
    pub local_retention_ms: Setting<i64>,
    /// `-2`: `retention.bytes`'s value.
    pub local_retention_bytes: Setting<i64>,
    pub remote_log_copy_disable: Setting<bool>,
}

/// The broker-wide configs of the retention check, the log cleaner and producer expiry.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerLogConfig {
    /// The broker whose dynamic configs in `__cluster_metadata` were applied (`node.id` in the
    /// log dir's meta.properties).
    pub node_id: Option<i32>,
    pub cleaner_enable: Setting<bool>,
    pub cleaner_threads: Setting<i64>,
    pub cleaner_dedupe_buffer_size: Setting<i64>,
    pub cleaner_io_buffer_size: Setting<i64>,
    pub cleaner_io_buffer_load_factor: Setting<f64>,
    pub cleaner_backoff_ms: Setting<i64>,
    pub cleaner_io_max_bytes_per_second: Setting<f64>,
    pub retention_check_interval_ms: Setting<i64>,
    pub initial_task_delay_ms: Setting<i64>,
    pub producer_id_expiration_ms: Setting<i64>,
    pub producer_id_expiration_check_interval_ms: Setting<i64>,
    pub remote_log_storage_system_enable: Setting<bool>,
    /// `message.max.bytes`: the cleaner's largest batch (`CleanerConfig.maxMessageSize`).
    pub message_max_bytes: Setting<i64>,
}

/// A resolved value in text, before it is typed.
struct Found<'a> {
    text: &'a str,
    source: ConfigSource,
    via: Option<&'static str>,
    factor: i64,
}

/// Where the broker-level value of a broker config lives, for one broker: its dynamic config,
/// the cluster's dynamic default, the static config given with `--config`.
struct BrokerLevel<'a> {
    metadata: &'a LogConfigs,
    flags: &'a ConfigFlags,
    node_id: Option<i32>,
}

impl<'a> BrokerLevel<'a> {
    fn get(&self, name: &str) -> Option<(&'a str, ConfigSource)> {
        let valid =
            |v: &str| broker_config_type(name).is_none_or(|(k, c)| check_value(k, c, v).is_ok());
        self.node_id
            .and_then(|id| self.metadata.brokers.get(&id))
            .and_then(|c| c.get(name))
            .filter(|v| valid(v))
            .map(|v| (v.as_str(), ConfigSource::BrokerDefault))
            .or_else(|| {
                self.metadata
                    .cluster
                    .get(name)
                    .filter(|v| valid(v))
                    .map(|v| (v.as_str(), ConfigSource::ClusterDefault))
            })
            .or_else(|| {
                self.flags
                    .broker
                    .get(name)
                    .map(|v| (v.as_str(), ConfigSource::ConfigFlag))
            })
    }

    /// A broker-only config: its broker-level value, else Kafka's default.
    fn broker_only(&self, name: &'static str) -> Found<'a> {
        let d = broker_def(name).expect("a broker-only config of the table");
        match self.get(name) {
            Some((text, source)) => Found {
                text,
                source,
                via: None,
                factor: 1,
            },
            None => Found {
                text: d.default,
                source: ConfigSource::Default,
                via: None,
                factor: 1,
            },
        }
    }
}

/// The value of topic config `d` for `topic`: the topic's own, else the broker's, else Kafka's
/// default (`None` for a config whose default is null, unset).
fn find<'a>(level: &BrokerLevel<'a>, topic: &str, d: &'static TopicDef) -> Option<Found<'a>> {
    let topic_level = |text: &'a str, source| Found {
        text,
        source,
        via: None,
        factor: 1,
    };
    let valid = |v: &str| check_value(d.kind, d.check, v).is_ok();
    if let Some(v) = level.flags.topics.get(topic).and_then(|c| c.get(d.name)) {
        return Some(topic_level(v, ConfigSource::TopicConfigFlag));
    }
    if let Some(v) = level
        .metadata
        .topics
        .get(topic)
        .and_then(|c| c.get(d.name))
        .filter(|v| valid(v))
    {
        return Some(topic_level(v, ConfigSource::Topic));
    }
    if let Some((_, v)) = internal_topic_configs(topic)
        .iter()
        .find(|(n, _)| *n == d.name)
    {
        return Some(topic_level(v, ConfigSource::InternalTopic));
    }
    for (name, unit) in d.broker {
        if let Some((text, source)) = level.get(name) {
            return Some(Found {
                text,
                source,
                via: Some(name),
                factor: unit.factor(),
            });
        }
    }
    d.default.map(|text| Found {
        text,
        source: ConfigSource::Default,
        via: None,
        factor: 1,
    })
}

fn as_long(f: &Found<'_>) -> i64 {
    f.text
        .trim()
        .parse::<i64>()
        .unwrap_or(0)
        .saturating_mul(f.factor)
}

fn setting<T>(f: &Found<'_>, value: T) -> Setting<T> {
    Setting {
        value,
        source: f.source,
        via: f.via,
    }
}

fn long_setting(f: &Found<'_>) -> Setting<i64> {
    setting(f, as_long(f))
}

fn double_setting(f: &Found<'_>) -> Setting<f64> {
    setting(f, parse_double(f.text).unwrap_or(0.0))
}

fn bool_setting(f: &Found<'_>) -> Setting<bool> {
    setting(f, f.text.trim().eq_ignore_ascii_case("true"))
}

fn text_setting(f: &Found<'_>) -> Setting<String> {
    setting(f, f.text.trim().to_string())
}

impl LogConfigs {
    /// The log configs of `topic` as broker `node_id` runs them, with the command line's.
    pub fn effective(
        &self,
        topic: &str,
        flags: &ConfigFlags,
        node_id: Option<i32>,
    ) -> EffectiveLogConfig {
        let level = BrokerLevel {
            metadata: self,
            flags,
            node_id,
        };
        let get = |name: &str| {
            let d = topic_def(name).expect("a topic config of the table");
            find(&level, topic, d).expect("a config with a default")
        };
        let long = |name: &str| long_setting(&get(name));
        let flag = |name: &str| bool_setting(&get(name));
        let policy = get("cleanup.policy");
        // LogConfig.segmentSize: internal.segment.bytes, when the topic sets it, wins.
        let segment_bytes = topic_def("internal.segment.bytes")
            .and_then(|d| find(&level, topic, d))
            .map(|f| {
                let mut s = long_setting(&f);
                s.via = Some("internal.segment.bytes");
                s
            })
            .unwrap_or_else(|| long("segment.bytes"));
        let mut retention_ms = long("retention.ms");
        // AbstractKafkaConfig.logRetentionTimeMillis: any negative broker value is unlimited.
        if retention_ms.via.is_some() && retention_ms.value < 0 {
            retention_ms.value = -1;
        }
        EffectiveLogConfig {
            cleanup_policy: setting(&policy, CleanupPolicy::parse(policy.text)),
            retention_ms,
            retention_bytes: long("retention.bytes"),
            segment_bytes,
            segment_ms: long("segment.ms"),
            segment_jitter_ms: long("segment.jitter.ms"),
            segment_index_bytes: long("segment.index.bytes"),
            index_interval_bytes: long("index.interval.bytes"),
            delete_retention_ms: long("delete.retention.ms"),
            min_compaction_lag_ms: long("min.compaction.lag.ms"),
            max_compaction_lag_ms: long("max.compaction.lag.ms"),
            min_cleanable_dirty_ratio: double_setting(&get("min.cleanable.dirty.ratio")),
            file_delete_delay_ms: long("file.delete.delay.ms"),
            message_timestamp_type: text_setting(&get("message.timestamp.type")),
            message_timestamp_before_max_ms: long("message.timestamp.before.max.ms"),
            message_timestamp_after_max_ms: long("message.timestamp.after.max.ms"),
            max_message_bytes: long("max.message.bytes"),
            compression_type: text_setting(&get("compression.type")),
            compression_gzip_level: long("compression.gzip.level"),
            compression_lz4_level: long("compression.lz4.level"),
            compression_zstd_level: long("compression.zstd.level"),
            preallocate: flag("preallocate"),
            remote_storage_enable: flag("remote.storage.enable"),
            local_retention_ms: long("local.retention.ms"),
            local_retention_bytes: long("local.retention.bytes"),
            remote_log_copy_disable: flag("remote.log.copy.disable"),
        }
    }

    /// The broker-wide configs of broker `node_id`, with the command line's.
    pub fn broker(&self, flags: &ConfigFlags, node_id: Option<i32>) -> BrokerLogConfig {
        let level = BrokerLevel {
            metadata: self,
            flags,
            node_id,
        };
        let long = |name: &'static str| long_setting(&level.broker_only(name));
        let flag = |name: &'static str| bool_setting(&level.broker_only(name));
        let double = |name: &'static str| double_setting(&level.broker_only(name));
        let message_max_bytes = match level.get("message.max.bytes") {
            Some((text, source)) => long_setting(&Found {
                text,
                source,
                via: None,
                factor: 1,
            }),
            None => Setting {
                value: 1_048_588,
                source: ConfigSource::Default,
                via: None,
            },
        };
        BrokerLogConfig {
            node_id,
            cleaner_enable: flag("log.cleaner.enable"),
            cleaner_threads: long("log.cleaner.threads"),
            cleaner_dedupe_buffer_size: long("log.cleaner.dedupe.buffer.size"),
            cleaner_io_buffer_size: long("log.cleaner.io.buffer.size"),
            cleaner_io_buffer_load_factor: double("log.cleaner.io.buffer.load.factor"),
            cleaner_backoff_ms: long("log.cleaner.backoff.ms"),
            cleaner_io_max_bytes_per_second: double("log.cleaner.io.max.bytes.per.second"),
            retention_check_interval_ms: long("log.retention.check.interval.ms"),
            initial_task_delay_ms: long("log.initial.task.delay.ms"),
            producer_id_expiration_ms: long("producer.id.expiration.ms"),
            producer_id_expiration_check_interval_ms: long(
                "producer.id.expiration.check.interval.ms",
            ),
            remote_log_storage_system_enable: flag("remote.log.storage.system.enable"),
            message_max_bytes,
        }
    }
}

/// A config value for listing (printers, JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ConfigValue {
    Number(i64),
    Ratio(f64),
    Flag(bool),
    Text(String),
}

/// One config as a printer lists it: Kafka's name, the value, where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigEntry {
    pub name: &'static str,
    pub value: ConfigValue,
    pub source: ConfigSource,
    /// The broker config the value came from, when it is not the topic config itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
}

fn entry<T: Clone>(
    name: &'static str,
    s: &Setting<T>,
    value: impl Fn(T) -> ConfigValue,
) -> ConfigEntry {
    ConfigEntry {
        name,
        value: value(s.value.clone()),
        source: s.source,
        via: s.via,
    }
}

impl EffectiveLogConfig {
    /// Every value, by Kafka's name, in the table's order.
    pub fn entries(&self) -> Vec<ConfigEntry> {
        use ConfigValue::{Flag, Number, Ratio, Text};
        vec![
            entry("cleanup.policy", &self.cleanup_policy, |p| {
                Text(p.as_str().to_string())
            }),
            entry("retention.ms", &self.retention_ms, Number),
            entry("retention.bytes", &self.retention_bytes, Number),
            entry("segment.bytes", &self.segment_bytes, Number),
            entry("segment.ms", &self.segment_ms, Number),
            entry("segment.jitter.ms", &self.segment_jitter_ms, Number),
            entry("segment.index.bytes", &self.segment_index_bytes, Number),
            entry("index.interval.bytes", &self.index_interval_bytes, Number),
            entry("delete.retention.ms", &self.delete_retention_ms, Number),
            entry("min.compaction.lag.ms", &self.min_compaction_lag_ms, Number),
            entry("max.compaction.lag.ms", &self.max_compaction_lag_ms, Number),
            entry(
                "min.cleanable.dirty.ratio",
                &self.min_cleanable_dirty_ratio,
                Ratio,
            ),
            entry("file.delete.delay.ms", &self.file_delete_delay_ms, Number),
            entry("message.timestamp.type", &self.message_timestamp_type, Text),
            entry(
                "message.timestamp.before.max.ms",
                &self.message_timestamp_before_max_ms,
                Number,
            ),
            entry(
                "message.timestamp.after.max.ms",
                &self.message_timestamp_after_max_ms,
                Number,
            ),
            entry("max.message.bytes", &self.max_message_bytes, Number),
            entry("compression.type", &self.compression_type, Text),
            entry(
                "compression.gzip.level",
                &self.compression_gzip_level,
                Number,
            ),
            entry("compression.lz4.level", &self.compression_lz4_level, Number),
            entry(
                "compression.zstd.level",
                &self.compression_zstd_level,
                Number,
            ),
            entry("preallocate", &self.preallocate, Flag),
            entry("remote.storage.enable", &self.remote_storage_enable, Flag),
            entry("local.retention.ms", &self.local_retention_ms, Number),
            entry("local.retention.bytes", &self.local_retention_bytes, Number),
            entry(
                "remote.log.copy.disable",
                &self.remote_log_copy_disable,
                Flag,
            ),
        ]
    }
}

impl BrokerLogConfig {
    /// Every value, by Kafka's name.
    pub fn entries(&self) -> Vec<ConfigEntry> {
        use ConfigValue::{Flag, Number, Ratio};
        vec![
            entry("log.cleaner.enable", &self.cleaner_enable, Flag),
            entry("log.cleaner.threads", &self.cleaner_threads, Number),
            entry(
                "log.cleaner.dedupe.buffer.size",
                &self.cleaner_dedupe_buffer_size,
                Number,
            ),
            entry(
                "log.cleaner.io.buffer.size",
                &self.cleaner_io_buffer_size,
                Number,
            ),
            entry(
                "log.cleaner.io.buffer.load.factor",
                &self.cleaner_io_buffer_load_factor,
                Ratio,
            ),
            entry("log.cleaner.backoff.ms", &self.cleaner_backoff_ms, Number),
            entry(
                "log.cleaner.io.max.bytes.per.second",
                &self.cleaner_io_max_bytes_per_second,
                Ratio,
            ),
            entry(
                "log.retention.check.interval.ms",
                &self.retention_check_interval_ms,
                Number,
            ),
            entry(
                "log.initial.task.delay.ms",
                &self.initial_task_delay_ms,
                Number,
            ),
            entry(
                "producer.id.expiration.ms",
                &self.producer_id_expiration_ms,
                Number,
            ),
            entry(
                "producer.id.expiration.check.interval.ms",
                &self.producer_id_expiration_check_interval_ms,
                Number,
            ),
            entry(
                "remote.log.storage.system.enable",
                &self.remote_log_storage_system_enable,
                Flag,
            ),
            entry("message.max.bytes", &self.message_max_bytes, Number),
        ]
    }
}

/// The names `--config` takes, for `--help` and errors.
pub fn config_flag_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = broker_config_names().collect();
    names.extend(
        super::defs::TOPIC_DEFS
            .iter()
            .filter(|d| !d.broker.is_empty())
            .map(|d| d.name),
    );
    names
}

/// The broker config a topic config's broker-wide default is named by (`retention.ms` →
/// `log.retention.ms`), if it has one.
pub fn broker_synonym(topic_config: &str) -> Option<&'static str> {
    topic_def(topic_config).and_then(|d| d.broker.first().map(|(b, _)| *b))
}

/// The topic config a broker config is the default of.
pub fn topic_config_of(broker_config: &str) -> Option<&'static str> {
    topic_of_broker_config(broker_config).map(|(d, _)| d.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn metadata() -> LogConfigs {
        let mut m = LogConfigs::default();
        m.topics.insert(
            "orders".into(),
            [("retention.ms".to_string(), "3600000".to_string())].into(),
        );
        m.cluster
            .insert("log.retention.bytes".into(), "1000000".into());
        m.brokers.insert(
            2,
            [("log.retention.bytes".to_string(), "2000000".to_string())].into(),
        );
        m
    }

    #[test]
    fn kafka_defaults_with_nothing_given() {
        let c = LogConfigs::default().effective("t", &ConfigFlags::default(), None);
        assert_eq!(c.retention_ms.value, 604_800_000);
        assert_eq!(c.retention_ms.source, ConfigSource::Default);
        assert_eq!(c.retention_bytes.value, -1);
        assert_eq!(
            c.cleanup_policy.value,
            CleanupPolicy {
                compact: false,
                delete: true
            }
        );
        assert_eq!(c.segment_bytes.value, 1 << 30);
        assert_eq!(c.max_compaction_lag_ms.value, i64::MAX);
        assert_eq!(c.min_cleanable_dirty_ratio.value, 0.5);
        let b = LogConfigs::default().broker(&ConfigFlags::default(), None);
        assert!(b.cleaner_enable.value);
        assert_eq!(b.cleaner_dedupe_buffer_size.value, 128 << 20);
        assert_eq!(b.retention_check_interval_ms.value, 300_000);
        assert_eq!(b.producer_id_expiration_ms.value, 86_400_000);
    }

    #[test]
    fn topic_beats_broker_and_dynamic_beats_static() {
        let flags = ConfigFlags::parse(
            &s(&[
                "log.retention.hours=1",
                "log.retention.bytes=5",
                "log.cleaner.enable=false",
            ]),
            &[],
        )
        .unwrap();
        let m = metadata();
        let orders = m.effective("orders", &flags, Some(1));
        assert_eq!(
            (orders.retention_ms.value, orders.retention_ms.source),
            (3_600_000, ConfigSource::Topic)
        );
        // The cluster's dynamic default wins over the static --config; broker 2's own dynamic
        // config over both.
        assert_eq!(
            (orders.retention_bytes.value, orders.retention_bytes.source),
            (1_000_000, ConfigSource::ClusterDefault)
        );
        let on_2 = m.effective("orders", &flags, Some(2));
        assert_eq!(
            (on_2.retention_bytes.value, on_2.retention_bytes.source),
            (2_000_000, ConfigSource::BrokerDefault)
        );
        let other = m.effective("other", &flags, Some(1));
        assert_eq!(
            (
                other.retention_ms.value,
                other.retention_ms.source,
                other.retention_ms.via
            ),
            (
                3_600_000,
                ConfigSource::ConfigFlag,
                Some("log.retention.hours")
            )
        );
        assert!(!m.broker(&flags, None).cleaner_enable.value);
        let topic_flag = ConfigFlags::parse(
            &[],
            &s(&[
                "orders:retention.ms=5",
                "orders:cleanup.policy=compact,delete",
            ]),
        )
        .unwrap();
        let o = m.effective("orders", &topic_flag, None);
        assert_eq!(
            (o.retention_ms.value, o.retention_ms.source),
            (5, ConfigSource::TopicConfigFlag)
        );
        assert_eq!(
            o.cleanup_policy.value,
            CleanupPolicy {
                compact: true,
                delete: true
            }
        );
    }

    #[test]
    fn synonyms_in_kafkas_order_and_negative_retention_is_unlimited() {
        let both = ConfigFlags::parse(
            &s(&["log.retention.hours=2", "log.retention.minutes=3"]),
            &[],
        )
        .unwrap();
        let c = LogConfigs::default().effective("t", &both, None);
        assert_eq!(
            (c.retention_ms.value, c.retention_ms.via),
            (180_000, Some("log.retention.minutes"))
        );
        let negative = ConfigFlags::parse(&s(&["log.retention.ms=-5"]), &[]).unwrap();
        assert_eq!(
            LogConfigs::default()
                .effective("t", &negative, None)
                .retention_ms
                .value,
            -1
        );
        // A topic config name given to --config is its broker-wide default.
        let ratio = ConfigFlags::parse(&s(&["min.cleanable.dirty.ratio=0.1"]), &[]).unwrap();
        let c = LogConfigs::default().effective("t", &ratio, None);
        assert_eq!(
            (
                c.min_cleanable_dirty_ratio.value,
                c.min_cleanable_dirty_ratio.via
            ),
            (0.1, Some("log.cleaner.min.cleanable.ratio"))
        );
    }

    #[test]
    fn internal_topics_have_their_creation_configs() {
        let c =
            LogConfigs::default().effective("__consumer_offsets", &ConfigFlags::default(), None);
        assert_eq!(
            c.cleanup_policy.value,
            CleanupPolicy {
                compact: true,
                delete: false
            }
        );
        assert_eq!(c.cleanup_policy.source, ConfigSource::InternalTopic);
        assert_eq!(c.segment_bytes.value, 100 << 20);
        let share =
            LogConfigs::default().effective("__share_group_state", &ConfigFlags::default(), None);
        assert_eq!(share.retention_ms.value, -1);
    }

    #[test]
    fn bad_flags_are_refused_with_kafkas_words() {
        let err =
            |c: &[&str], t: &[&str]| ConfigFlags::parse(&s(c), &s(t)).unwrap_err().to_string();
        assert_eq!(
            err(&["log.retention.hours=x"], &[]),
            "--config log.retention.hours=x: Invalid value x for configuration log.retention.hours: \
             Not a number of type INT"
        );
        assert!(err(&["log.retention.hour=1"], &[]).contains("did you mean log.retention.hours?"));
        assert!(err(&["retention"], &[]).contains("expected KEY=VALUE"));
        assert!(err(&["remote.storage.enable=true"], &[]).contains("--topic-config"));
        assert!(err(&[], &["orders:log.retention.ms=5"]).contains("is a broker config"));
        assert!(err(&[], &["retention.ms=5"]).contains("expected TOPIC:KEY=VALUE"));
        assert!(err(&[], &["a b:retention.ms=5"]).contains("not a topic name"));
        assert!(err(&[], &["t:retention.ms=-7"]).contains("Value must be at least -1"));
        assert!(err(&[], &["t:min.cleanable.dirty.ratio=2"]).contains("no more than 1"));
        assert!(err(&[], &["t:cleanup.policy=compact,purge"]).contains("String must be one of"));
    }
}
