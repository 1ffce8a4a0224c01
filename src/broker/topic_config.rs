//! Topic-level configs: which of Kafka 4.4's topic configs (`LogConfig`) the mini-broker
//! honours and their validation with Kafka's messages. A topic's overrides are ConfigRecords in
//! the metadata log ([`super::metadata`]); mini-brokers before it kept them in a file of their
//! own ([`LEGACY_TOPIC_CONFIGS_FILE`]), read once to move them there.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use kafka_protocol::ResponseError;

use super::log::LogConfig;
use super::BrokerError;

/// The log-dir file where mini-brokers before the metadata log kept topic config overrides
/// (`topic<TAB>name=value` per line); no Kafka counterpart.
pub const LEGACY_TOPIC_CONFIGS_FILE: &str = "kseg-topic-configs";

/// A config's type, as `ConfigDef.Type` parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Long,
    Double,
    Bool,
    List,
    Str,
}

/// One of Kafka 4.4's topic configs: name, type, Kafka's default, the least value its validator
/// allows (numbers), the values it allows (strings, lists) and whether the mini-broker
/// implements it (otherwise only Kafka's default is accepted).
struct Def {
    name: &'static str,
    kind: Kind,
    default: &'static str,
    at_least: Option<i64>,
    one_of: &'static [&'static str],
    implemented: bool,
}

const fn def(name: &'static str, kind: Kind, default: &'static str) -> Def {
    Def {
        name,
        kind,
        default,
        at_least: None,
        one_of: &[],
        implemented: false,
    }
}

const fn implemented(name: &'static str, kind: Kind, default: &'static str, min: i64) -> Def {
    Def {
        name,
        kind,
        default,
        at_least: Some(min),
        one_of: &[],
        implemented: true,
    }
}

/// Kafka 4.4.0's `LogConfig.configNames()`, with
/// the defaults and validators of `LogConfig.CONFIG` (printed from the 4.4.0 jar).
const DEFS: &[Def] = &[
    implemented("segment.bytes", Kind::Int, "1073741824", 1_048_576),
    implemented("segment.ms", Kind::Long, "604800000", 1),
    def("segment.jitter.ms", Kind::Long, "0"),
    implemented("segment.index.bytes", Kind::Int, "10485760", 4),
    def("flush.messages", Kind::Long, "9223372036854775807"),
    def("flush.ms", Kind::Long, "9223372036854775807"),
    implemented("retention.bytes", Kind::Long, "-1", i64::MIN),
    implemented("retention.ms", Kind::Long, "604800000", -1),
    implemented("max.message.bytes", Kind::Int, "1048588", 0),
    def("max.decompressed.message.bytes", Kind::Int, "2147483639"),
    implemented("index.interval.bytes", Kind::Int, "4096", 0),
    def("delete.retention.ms", Kind::Long, "86400000"),
    def("min.compaction.lag.ms", Kind::Long, "0"),
    def("max.compaction.lag.ms", Kind::Long, "9223372036854775807"),
    implemented("file.delete.delay.ms", Kind::Long, "60000", 0),
    def("min.cleanable.dirty.ratio", Kind::Double, "0.5"),
    Def {
        name: "cleanup.policy",
        kind: Kind::List,
        default: "delete",
        at_least: None,
        one_of: &["compact", "delete"],
        implemented: true,
    },
    def("unclean.leader.election.enable", Kind::Bool, "false"),
    Def {
        name: "min.insync.replicas",
        kind: Kind::Int,
        default: "1",
        at_least: Some(1),
        one_of: &[],
        implemented: false,
    },
    def("compression.type", Kind::Str, "producer"),
    def("compression.gzip.level", Kind::Int, "-1"),
    def("compression.lz4.level", Kind::Int, "9"),
    def("compression.zstd.level", Kind::Int, "3"),
    def("preallocate", Kind::Bool, "false"),
    Def {
        name: "message.timestamp.type",
        kind: Kind::Str,
        default: "CreateTime",
        at_least: None,
        one_of: &["CreateTime", "LogAppendTime"],
        implemented: true,
    },
    def(
        "message.timestamp.before.max.ms",
        Kind::Long,
        "9223372036854775807",
    ),
    implemented("message.timestamp.after.max.ms", Kind::Long, "3600000", 0),
    def("leader.replication.throttled.replicas", Kind::List, ""),
    def("follower.replication.throttled.replicas", Kind::List, ""),
    def("remote.storage.enable", Kind::Bool, "false"),
    def("local.retention.ms", Kind::Long, "-2"),
    def("local.retention.bytes", Kind::Long, "-2"),
    def("remote.log.copy.disable", Kind::Bool, "false"),
    def("remote.copy.lag.ms", Kind::Long, "0"),
    def("remote.copy.lag.bytes", Kind::Long, "-1"),
    def("remote.log.delete.on.disable", Kind::Bool, "false"),
    def("errors.deadletterqueue.group.enable", Kind::Bool, "false"),
    // Internal (not described), but CreateTopics takes it: segments below segment.bytes' 1 MiB
    // minimum, as Kafka's own tests make them. It wins over segment.bytes.
    implemented("internal.segment.bytes", Kind::Int, "", i64::MIN),
];

/// Whether topic config `name` is a LIST (IncrementalAlterConfigs' APPEND and SUBTRACT apply),
/// with its default (what an APPEND adds to when the topic does not override it).
pub fn list_default(name: &str) -> (bool, Option<String>) {
    match DEFS.iter().find(|d| d.name == name) {
        Some(d) => (d.kind == Kind::List, Some(d.default.to_string())),
        None => (false, None),
    }
}

/// `LogConfig.nonInternalConfigNames`: what DescribeConfigs lists.
fn described_config(d: &Def) -> bool {
    d.name != "internal.segment.bytes"
}

/// The topic configs the mini-broker honours.
pub fn implemented_names() -> impl Iterator<Item = &'static str> {
    DEFS.iter()
        .filter(|d| d.implemented && described_config(d))
        .map(|d| d.name)
}

fn invalid(message: String) -> BrokerError {
    BrokerError::new(ResponseError::InvalidConfig, message)
}

/// A value as Kafka's parser normalises it, for comparing with the default.
#[derive(Debug, PartialEq)]
enum Parsed {
    Number(i64),
    Ratio(f64),
    Flag(bool),
    Items(Vec<String>),
    Text(String),
}

fn parse(d: &Def, raw: &str) -> Result<Parsed, BrokerError> {
    parse_as(d, raw, d.name)
}

/// Checks `raw` as a value of topic config `topic_name` (its type and validator), in messages
/// called `shown` (a broker config that defaults it: `log.segment.bytes`). Unknown names pass.
pub fn check_value(topic_name: &str, raw: &str, shown: &str) -> Result<(), String> {
    match DEFS.iter().find(|d| d.name == topic_name) {
        Some(d) => parse_as(d, raw, shown)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

fn parse_as(d: &Def, raw: &str, shown: &str) -> Result<Parsed, BrokerError> {
    let v = raw.trim();
    let bad = |why: &str| {
        invalid(format!(
            "Invalid value {raw} for configuration {shown}: {why}"
        ))
    };
    let parsed = match d.kind {
        Kind::Int => Parsed::Number(
            v.parse::<i32>()
                .map_err(|_| bad("Not a number of type INT"))?
                .into(),
        ),
        Kind::Long => Parsed::Number(
            v.parse::<i64>()
                .map_err(|_| bad("Not a number of type LONG"))?,
        ),
        Kind::Double => Parsed::Ratio(
            v.parse::<f64>()
                .map_err(|_| bad("Not a number of type DOUBLE"))?,
        ),
        Kind::Bool => match v.to_ascii_lowercase().as_str() {
            "true" => Parsed::Flag(true),
            "false" => Parsed::Flag(false),
            _ => return Err(bad("Expected value to be either true or false")),
        },
        Kind::List => {
            let mut items: Vec<String> = v
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if !d.one_of.is_empty() {
                if let Some(x) = items.iter().find(|x| !d.one_of.contains(&x.as_str())) {
                    return Err(invalid(format!(
                        "Invalid value {x} for configuration {shown}: String must be one of: {}",
                        d.one_of.join(", ")
                    )));
                }
            }
            items.sort();
            items.dedup();
            Parsed::Items(items)
        }
        Kind::Str => {
            if !d.one_of.is_empty() && !d.one_of.contains(&v) {
                return Err(bad(&format!(
                    "String must be one of: {}",
                    d.one_of.join(", ")
                )));
            }
            Parsed::Text(v.to_string())
        }
    };
    if let (Parsed::Number(n), Some(min)) = (&parsed, d.at_least) {
        if *n < min {
            return Err(bad(&format!("Value must be at least {min}")));
        }
    }
    Ok(parsed)
}

/// Validates CreateTopics configs as Kafka does (`LogConfig.validate`: unknown names, types,
/// validators; a null value is refused) and refuses, with INVALID_CONFIG, a value other than
/// Kafka's default for a config the mini-broker does not implement. Returns the overrides to keep.
pub fn validate(
    configs: &[(String, Option<String>)],
) -> Result<BTreeMap<String, String>, BrokerError> {
    let mut out = BTreeMap::new();
    for (name, value) in configs {
        let Some(d) = DEFS.iter().find(|d| d.name == name) else {
            return Err(invalid(format!("Unknown topic config name: {name}")));
        };
        let Some(value) = value else {
            return Err(invalid(format!(
                "Null value not supported for topic configs: {name}"
            )));
        };
        let parsed = parse(d, value)?;
        if !d.implemented {
            if parsed != parse(d, d.default)? {
                return Err(invalid(format!(
                    "topic config {name}={value} is not implemented by kseg mini-broker (only \
                     Kafka's default {:?} is accepted); it honours {}",
                    d.default,
                    implemented_names().collect::<Vec<_>>().join(", ")
                )));
            }
            continue;
        }
        out.insert(name.clone(), value.trim().to_string());
    }
    Ok(out)
}

/// The log config of a topic: the broker's, with the topic's (validated) overrides.
pub fn apply(base: &LogConfig, overrides: &BTreeMap<String, String>) -> LogConfig {
    let mut c = base.clone();
    for (name, value) in overrides {
        let n = || value.parse::<i64>().unwrap_or(0);
        match name.as_str() {
            "segment.bytes" if !overrides.contains_key("internal.segment.bytes") => {
                c.segment_bytes = n().max(1) as u64
            }
            "internal.segment.bytes" => c.segment_bytes = n().max(1) as u64,
            "segment.ms" => c.segment_ms = n(),
            "segment.index.bytes" => c.segment_index_bytes = n().max(4) as u64,
            "retention.bytes" => c.retention_bytes = n(),
            "retention.ms" => c.retention_ms = n(),
            "max.message.bytes" => c.max_message_bytes = n().max(0) as usize,
            "index.interval.bytes" => c.index_interval_bytes = n().max(0) as u64,
            "file.delete.delay.ms" => c.file_delete_delay_ms = n(),
            "message.timestamp.type" => c.log_append_time = value == "LogAppendTime",
            "message.timestamp.after.max.ms" => c.timestamp_after_max_ms = n(),
            "cleanup.policy" => {
                let items: Vec<&str> = value.split(',').map(str::trim).collect();
                c.delete = items.contains(&"delete");
                c.compact = items.contains(&"compact");
            }
            _ => {}
        }
    }
    c
}

/// Where a described value comes from (DescribeConfigs `config_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Set on the topic (`DYNAMIC_TOPIC_CONFIG`, 1).
    Topic = 1,
    /// A dynamic config of this broker (`DYNAMIC_BROKER_CONFIG`, 2).
    DynamicBroker = 2,
    /// A dynamic cluster-default broker config (`DYNAMIC_DEFAULT_BROKER_CONFIG`, 3).
    DynamicDefault = 3,
    /// A mini-broker command-line setting (`STATIC_BROKER_CONFIG`, 4).
    Broker = 4,
    /// Kafka's default (`DEFAULT_CONFIG`, 5).
    Default = 5,
}

/// One described config: name, value, source, Kafka's type code (DescribeConfigs v3+).
pub struct Described {
    pub name: &'static str,
    pub value: String,
    pub source: Source,
    pub type_code: i8,
}

fn effective(name: &str, c: &LogConfig) -> Option<String> {
    Some(match name {
        "segment.bytes" => c.segment_bytes.to_string(),
        "segment.ms" => c.segment_ms.to_string(),
        "segment.index.bytes" => c.segment_index_bytes.to_string(),
        "retention.bytes" => c.retention_bytes.to_string(),
        "retention.ms" => c.retention_ms.to_string(),
        "max.message.bytes" => c.max_message_bytes.to_string(),
        "index.interval.bytes" => c.index_interval_bytes.to_string(),
        "file.delete.delay.ms" => c.file_delete_delay_ms.to_string(),
        "message.timestamp.type" => if c.log_append_time {
            "LogAppendTime"
        } else {
            "CreateTime"
        }
        .to_string(),
        "message.timestamp.after.max.ms" => c.timestamp_after_max_ms.to_string(),
        "cleanup.policy" => match (c.compact, c.delete) {
            (true, true) => "compact,delete",
            (true, false) => "compact",
            (false, true) => "delete",
            (false, false) => "",
        }
        .to_string(),
        _ => return None,
    })
}

/// Every topic config with the value the topic has (DescribeConfigs on a topic), in Kafka's
/// order; `broker` is the log config without topic overrides.
///
/// `dynamic` holds the topic configs that dynamic broker configs set (by topic-config name,
/// with their value and source); `broker` already has them applied.
pub fn describe(
    broker: &LogConfig,
    overrides: &BTreeMap<String, String>,
    dynamic: &BTreeMap<String, (String, Source)>,
) -> Vec<Described> {
    let topic = apply(broker, overrides);
    DEFS.iter()
        .filter(|d| described_config(d))
        .map(|d| {
            // A value set on the topic or the broker is described as it was given (Kafka keeps
            // the text: `delete,compact` stays in that order).
            let value = overrides
                .get(d.name)
                .or_else(|| dynamic.get(d.name).map(|(v, _)| v))
                .cloned()
                .or_else(|| effective(d.name, &topic))
                .unwrap_or_else(|| d.default.to_string());
            let source = if overrides.contains_key(d.name) {
                Source::Topic
            } else if let Some((_, s)) = dynamic.get(d.name) {
                *s
            } else if effective(d.name, broker)
                .is_some_and(|v| parse(d, &v).ok() != parse(d, d.default).ok())
            {
                Source::Broker
            } else {
                Source::Default
            };
            // ConfigDef.Type codes of DescribeConfigs v3: BOOLEAN 1, STRING 2, INT 3, LONG 5,
            // DOUBLE 6, LIST 7.
            let type_code = match d.kind {
                Kind::Bool => 1,
                Kind::Str => 2,
                Kind::Int => 3,
                Kind::Long => 5,
                Kind::Double => 6,
                Kind::List => 7,
            };
            Described {
                name: d.name,
                value,
                source,
                type_code,
            }
        })
        .collect()
}

/// Reads the overrides of every topic from [`LEGACY_TOPIC_CONFIGS_FILE`]; a missing file is
/// none. Lines that do not parse, and values that do not validate, are skipped.
pub fn read_legacy(dir: &Path) -> io::Result<BTreeMap<String, BTreeMap<String, String>>> {
    let text = match fs::read_to_string(dir.join(LEGACY_TOPIC_CONFIGS_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e),
    };
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines() {
        let Some((topic, kv)) = line.split_once('\t') else {
            continue;
        };
        let Some((k, v)) = kv.split_once('=') else {
            continue;
        };
        if validate(&[(k.to_string(), Some(v.to_string()))]).is_err() {
            continue;
        }
        out.entry(topic.to_string())
            .or_default()
            .insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// Removes [`LEGACY_TOPIC_CONFIGS_FILE`] once its configs are in the metadata log.
pub fn remove_legacy(dir: &Path) -> io::Result<()> {
    match fs::remove_file(dir.join(LEGACY_TOPIC_CONFIGS_FILE)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str) -> Result<BTreeMap<String, String>, BrokerError> {
        validate(&[(name.to_string(), Some(value.to_string()))])
    }

    #[test]
    fn kafka_messages_for_bad_configs() {
        // The messages Kafka 4.4.0's LogConfig.validate gives for the same values.
        for (name, value, message) in [
            ("foo.bar", "1", "Unknown topic config name: foo.bar"),
            ("segment.bytes", "16384", "Invalid value 16384 for configuration segment.bytes: Value must be at least 1048576"),
            ("segment.bytes", "abc", "Invalid value abc for configuration segment.bytes: Not a number of type INT"),
            ("retention.ms", "-2", "Invalid value -2 for configuration retention.ms: Value must be at least -1"),
            ("cleanup.policy", "foo", "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete"),
            ("message.timestamp.type", "Foo", "Invalid value Foo for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"),
            ("min.insync.replicas", "0", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
        ] {
            let e = one(name, value).unwrap_err();
            assert_eq!(e.code(), ResponseError::InvalidConfig.code());
            assert_eq!(e.to_string(), message);
        }
        assert!(one("compression.type", "zstd")
            .unwrap_err()
            .to_string()
            .contains("not implemented by kseg mini-broker"));
        assert!(
            one("min.insync.replicas", "1").unwrap().is_empty(),
            "a default is accepted, not kept"
        );
        assert!(
            one("retention.bytes", "-5").is_ok(),
            "Kafka has no lower bound here"
        );
        let o = one("internal.segment.bytes", "16384").unwrap();
        let both = validate(&[
            ("internal.segment.bytes".into(), Some("16384".into())),
            ("segment.bytes".into(), Some("1048576".into())),
        ])
        .unwrap();
        assert_eq!(apply(&LogConfig::default(), &o).segment_bytes, 16384);
        assert_eq!(apply(&LogConfig::default(), &both).segment_bytes, 16384);
    }

    #[test]
    fn overrides_apply_and_describe() {
        let base = LogConfig {
            segment_bytes: 16384,
            ..LogConfig::default()
        };
        let o = validate(&[
            ("cleanup.policy".into(), Some("compact".into())),
            ("retention.ms".into(), Some("1000".into())),
            (
                "message.timestamp.type".into(),
                Some("LogAppendTime".into()),
            ),
        ])
        .unwrap();
        let c = apply(&base, &o);
        assert!(c.compact && !c.delete && c.log_append_time);
        assert_eq!((c.retention_ms, c.segment_bytes), (1000, 16384));
        let d = describe(&base, &o, &BTreeMap::new());
        let get = |n: &str| d.iter().find(|x| x.name == n).unwrap();
        assert_eq!(get("retention.ms").source, Source::Topic);
        assert_eq!(get("segment.bytes").source, Source::Broker);
        assert_eq!(get("segment.bytes").value, "16384");
        assert_eq!(get("compression.type").source, Source::Default);
        assert_eq!(get("cleanup.policy").value, "compact");
    }

    #[test]
    fn the_legacy_file_is_read_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LEGACY_TOPIC_CONFIGS_FILE);
        fs::write(&path, "t\tretention.ms=5\nt\tretention.ms=x\nbad line\n").unwrap();
        let mut all = BTreeMap::new();
        all.insert("t".to_string(), one("retention.ms", "5").unwrap());
        assert_eq!(read_legacy(dir.path()).unwrap(), all);
        remove_legacy(dir.path()).unwrap();
        assert!(!path.exists());
        assert!(read_legacy(dir.path()).unwrap().is_empty());
    }
}
