//! Kafka 4.4's definitions of the configs that decide what happens to a log: each topic config
//! with its type, default and validator (`LogConfig.CONFIG`), the broker configs that give its
//! default in Kafka's order (`ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS`, with their
//! unit conversions), the broker-only configs of the retention check, the log cleaner and
//! producer expiry (`ServerLogConfigs`, `CleanerConfig`, `TransactionLogConfig`), and the
//! configs Kafka's coordinators create their internal topics with. Values are checked as
//! `ConfigDef` parses them, with its messages.

/// A config's type, as `ConfigDef.Type` parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    Int,
    Long,
    Double,
    Bool,
    /// Comma-separated items, trimmed; the empty string is the empty list.
    List,
    Str,
}

/// How a broker config's value turns into its topic config's (`ConfigSynonym`'s converters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Same,
    MinutesToMs,
    HoursToMs,
}

impl Unit {
    pub(crate) fn factor(self) -> i64 {
        match self {
            Unit::Same => 1,
            Unit::MinutesToMs => 60_000,
            Unit::HoursToMs => 3_600_000,
        }
    }
}

/// A validator of `ConfigDef` (`atLeast`, `between`, `ValidString.in`, `ValidList.in`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    Any,
    AtLeast(i64),
    Between(f64, f64),
    OneOf(&'static [&'static str]),
}

/// A topic config: Kafka's name, type, Kafka 4.4's default (`None`: null, unset) and the broker
/// configs that give its default, first found wins.
#[derive(Debug, Clone, Copy)]
pub struct TopicDef {
    pub name: &'static str,
    pub kind: ConfigType,
    pub default: Option<&'static str>,
    pub check: Check,
    pub broker: &'static [(&'static str, Unit)],
}

/// A broker-only config (no topic counterpart).
#[derive(Debug, Clone, Copy)]
pub struct BrokerDef {
    pub name: &'static str,
    pub kind: ConfigType,
    pub default: &'static str,
    pub check: Check,
}

const fn topic(
    name: &'static str,
    kind: ConfigType,
    default: &'static str,
    check: Check,
    broker: &'static [(&'static str, Unit)],
) -> TopicDef {
    TopicDef {
        name,
        kind,
        default: Some(default),
        check,
        broker,
    }
}

const fn broker(
    name: &'static str,
    kind: ConfigType,
    default: &'static str,
    check: Check,
) -> BrokerDef {
    BrokerDef {
        name,
        kind,
        default,
        check,
    }
}

use Check::{AtLeast, Between, OneOf};
use ConfigType::{Bool, Double, Int, List, Long, Str};
use Unit::{HoursToMs, MinutesToMs, Same};

pub const LONG_MAX: &str = "9223372036854775807";

/// Kafka 4.4's topic configs that bear on a log's files, retention and cleaning.
pub const TOPIC_DEFS: &[TopicDef] = &[
    topic(
        "cleanup.policy",
        List,
        "delete",
        OneOf(&["compact", "delete"]),
        &[("log.cleanup.policy", Same)],
    ),
    topic(
        "retention.ms",
        Long,
        "604800000",
        AtLeast(-1),
        &[
            ("log.retention.ms", Same),
            ("log.retention.minutes", MinutesToMs),
            ("log.retention.hours", HoursToMs),
        ],
    ),
    topic(
        "retention.bytes",
        Long,
        "-1",
        Check::Any,
        &[("log.retention.bytes", Same)],
    ),
    topic(
        "segment.bytes",
        Int,
        "1073741824",
        AtLeast(1 << 20),
        &[("log.segment.bytes", Same)],
    ),
    // Internal (never described), for segments below segment.bytes' 1 MiB minimum as Kafka's
    // own tests make them: when set it wins over segment.bytes (`LogConfig.segmentSize`).
    TopicDef {
        name: "internal.segment.bytes",
        kind: Int,
        default: None,
        check: Check::Any,
        broker: &[],
    },
    topic(
        "segment.ms",
        Long,
        "604800000",
        AtLeast(1),
        &[("log.roll.ms", Same), ("log.roll.hours", HoursToMs)],
    ),
    topic(
        "segment.jitter.ms",
        Long,
        "0",
        AtLeast(0),
        &[
            ("log.roll.jitter.ms", Same),
            ("log.roll.jitter.hours", HoursToMs),
        ],
    ),
    topic(
        "segment.index.bytes",
        Int,
        "10485760",
        AtLeast(4),
        &[("log.index.size.max.bytes", Same)],
    ),
    topic(
        "index.interval.bytes",
        Int,
        "4096",
        AtLeast(0),
        &[("log.index.interval.bytes", Same)],
    ),
    topic(
        "delete.retention.ms",
        Long,
        "86400000",
        AtLeast(0),
        &[("log.cleaner.delete.retention.ms", Same)],
    ),
    topic(
        "min.compaction.lag.ms",
        Long,
        "0",
        AtLeast(0),
        &[("log.cleaner.min.compaction.lag.ms", Same)],
    ),
    topic(
        "max.compaction.lag.ms",
        Long,
        LONG_MAX,
        AtLeast(1),
        &[("log.cleaner.max.compaction.lag.ms", Same)],
    ),
    topic(
        "min.cleanable.dirty.ratio",
        Double,
        "0.5",
        Between(0.0, 1.0),
        &[("log.cleaner.min.cleanable.ratio", Same)],
    ),
    topic(
        "file.delete.delay.ms",
        Long,
        "60000",
        AtLeast(0),
        &[("log.segment.delete.delay.ms", Same)],
    ),
    topic(
        "message.timestamp.type",
        Str,
        "CreateTime",
        OneOf(&["CreateTime", "LogAppendTime"]),
        &[("log.message.timestamp.type", Same)],
    ),
    topic(
        "message.timestamp.before.max.ms",
        Long,
        LONG_MAX,
        AtLeast(0),
        &[("log.message.timestamp.before.max.ms", Same)],
    ),
    topic(
        "message.timestamp.after.max.ms",
        Long,
        "3600000",
        AtLeast(0),
        &[("log.message.timestamp.after.max.ms", Same)],
    ),
    topic(
        "max.message.bytes",
        Int,
        "1048588",
        AtLeast(0),
        &[("message.max.bytes", Same)],
    ),
    topic(
        "compression.type",
        Str,
        "producer",
        OneOf(&["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"]),
        &[("compression.type", Same)],
    ),
    // `CompressionType.GZIP`: 1..=9, or -1 (Deflater's default).
    topic(
        "compression.gzip.level",
        Int,
        "-1",
        Check::Any,
        &[("compression.gzip.level", Same)],
    ),
    topic(
        "compression.lz4.level",
        Int,
        "9",
        Between(1.0, 17.0),
        &[("compression.lz4.level", Same)],
    ),
    topic(
        "compression.zstd.level",
        Int,
        "3",
        Between(-131072.0, 22.0),
        &[("compression.zstd.level", Same)],
    ),
    topic(
        "preallocate",
        Bool,
        "false",
        Check::Any,
        &[("log.preallocate", Same)],
    ),
    topic("remote.storage.enable", Bool, "false", Check::Any, &[]),
    topic(
        "local.retention.ms",
        Long,
        "-2",
        AtLeast(-2),
        &[("log.local.retention.ms", Same)],
    ),
    topic(
        "local.retention.bytes",
        Long,
        "-2",
        AtLeast(-2),
        &[("log.local.retention.bytes", Same)],
    ),
    topic("remote.log.copy.disable", Bool, "false", Check::Any, &[]),
];

/// Kafka 4.4's broker-only configs of the retention check, the log cleaner and producer expiry.
pub const BROKER_DEFS: &[BrokerDef] = &[
    // Deprecated since 4.1 (always on from 5.0), still honoured by 4.4's LogManager.
    broker("log.cleaner.enable", Bool, "true", Check::Any),
    broker("log.cleaner.threads", Int, "1", AtLeast(0)),
    broker(
        "log.cleaner.dedupe.buffer.size",
        Long,
        "134217728",
        Check::Any,
    ),
    broker("log.cleaner.io.buffer.size", Int, "524288", AtLeast(0)),
    // The dedupe buffer's load factor, under Kafka's name for it.
    broker(
        "log.cleaner.io.buffer.load.factor",
        Double,
        "0.9",
        Check::Any,
    ),
    broker("log.cleaner.backoff.ms", Long, "15000", AtLeast(0)),
    broker(
        "log.cleaner.io.max.bytes.per.second",
        Double,
        "1.7976931348623157E308",
        Check::Any,
    ),
    broker(
        "log.retention.check.interval.ms",
        Long,
        "300000",
        AtLeast(1),
    ),
    broker("log.initial.task.delay.ms", Long, "30000", AtLeast(0)),
    broker("producer.id.expiration.ms", Int, "86400000", AtLeast(1)),
    broker(
        "producer.id.expiration.check.interval.ms",
        Int,
        "600000",
        AtLeast(1),
    ),
    broker(
        "remote.log.storage.system.enable",
        Bool,
        "false",
        Check::Any,
    ),
];

/// The configs Kafka 4.4's coordinators create their topics with
/// (`GroupCoordinatorService.groupMetadataTopicConfigs`,
/// `TransactionCoordinator.transactionStateTopicConfigs`,
/// `ShareCoordinatorService.shareGroupStateTopicConfigs`,
/// `TopicBasedRemoteLogMetadataManager.newRemoteLogMetadataTopic`), with their brokers' default
/// segment sizes and retention: what the topic has when no record of its configs is read.
pub fn internal_topic_configs(topic: &str) -> &'static [(&'static str, &'static str)] {
    match topic {
        "__consumer_offsets" => &[
            ("cleanup.policy", "compact"),
            ("compression.type", "producer"),
            ("segment.bytes", "104857600"),
        ],
        "__transaction_state" => &[
            ("cleanup.policy", "compact"),
            ("compression.type", "uncompressed"),
            ("segment.bytes", "104857600"),
        ],
        "__share_group_state" => &[
            ("cleanup.policy", "delete"),
            ("compression.type", "producer"),
            ("segment.bytes", "104857600"),
            ("retention.ms", "-1"),
        ],
        "__remote_log_metadata" => &[
            ("cleanup.policy", "delete"),
            ("retention.ms", "-1"),
            ("remote.storage.enable", "false"),
        ],
        _ => &[],
    }
}

pub fn topic_def(name: &str) -> Option<&'static TopicDef> {
    TOPIC_DEFS.iter().find(|d| d.name == name)
}

pub fn broker_def(name: &str) -> Option<&'static BrokerDef> {
    BROKER_DEFS.iter().find(|d| d.name == name)
}

/// The topic config a broker config gives the default of, with its unit.
pub fn topic_of_broker_config(name: &str) -> Option<(&'static TopicDef, Unit)> {
    TOPIC_DEFS.iter().find_map(|d| {
        d.broker
            .iter()
            .find(|(b, _)| *b == name)
            .map(|(_, unit)| (d, *unit))
    })
}

/// The type and validator of a broker config: broker-only, or a topic config's synonym (whose
/// own type may differ: `log.retention.hours` is an INT, `retention.ms` a LONG).
pub fn broker_config_type(name: &str) -> Option<(ConfigType, Check)> {
    if let Some(d) = broker_def(name) {
        return Some((d.kind, d.check));
    }
    let (d, unit) = topic_of_broker_config(name)?;
    Some(match (name, unit) {
        // `log.retention.hours`, `log.retention.minutes`, `log.roll.hours`, ...: INTs whose
        // validators differ from the topic config's.
        ("log.roll.hours", _) => (Int, AtLeast(1)),
        ("log.roll.jitter.hours", _) => (Int, AtLeast(0)),
        (_, MinutesToMs | HoursToMs) => (Int, Check::Any),
        // `log.retention.ms` and `log.roll.ms` are nullable LONGs without validators; the
        // retention's negative values all mean unlimited (`logRetentionTimeMillis`).
        ("log.retention.ms" | "log.roll.ms" | "log.roll.jitter.ms", _) => (Long, Check::Any),
        _ => (d.kind, d.check),
    })
}

/// Every name `--config` takes: broker-only configs, then the topic configs' broker synonyms.
pub fn broker_config_names() -> impl Iterator<Item = &'static str> {
    BROKER_DEFS.iter().map(|d| d.name).chain(
        TOPIC_DEFS
            .iter()
            .flat_map(|d| d.broker.iter().map(|(b, _)| *b)),
    )
}

/// Why a value is refused, in `ConfigDef`'s words (after "Invalid value V for configuration N: ").
pub fn check_value(kind: ConfigType, check: Check, raw: &str) -> Result<(), String> {
    let v = raw.trim();
    let number = match kind {
        Int => Some(
            v.parse::<i32>()
                .map_err(|_| "Not a number of type INT".to_string())? as f64,
        ),
        Long => Some(
            v.parse::<i64>()
                .map_err(|_| "Not a number of type LONG".to_string())? as f64,
        ),
        Double => Some(parse_double(v).ok_or_else(|| "Not a number of type DOUBLE".to_string())?),
        Bool => {
            if !v.eq_ignore_ascii_case("true") && !v.eq_ignore_ascii_case("false") {
                return Err("Expected value to be either true or false".into());
            }
            None
        }
        List | Str => None,
    };
    match (check, number) {
        (AtLeast(min), Some(n)) if n < min as f64 => Err(format!("Value must be at least {min}")),
        (Between(lo, hi), Some(n)) if !(lo..=hi).contains(&n) => Err(format!(
            "Value must be no less than {} and no more than {}",
            java_number(lo),
            java_number(hi)
        )),
        (OneOf(allowed), None) if kind == List => {
            match list_items(v).find(|item| !allowed.contains(item)) {
                Some(item) => Err(format!(
                    "Invalid value {item} for configuration: String must be one of: {}",
                    allowed.join(", ")
                )),
                None => Ok(()),
            }
        }
        (OneOf(allowed), None) if !allowed.contains(&v) => {
            Err(format!("String must be one of: {}", allowed.join(", ")))
        }
        _ => Ok(()),
    }
}

fn java_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// `Double.parseDouble`, as far as config values go (Java's "Infinity" and Rust's "inf" both).
pub fn parse_double(v: &str) -> Option<f64> {
    match v.trim() {
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        t => t.parse::<f64>().ok(),
    }
}

/// A LIST value's items (`ConfigDef.parseType`: split on commas, trimmed; empty: none).
pub fn list_items(v: &str) -> impl Iterator<Item = &str> {
    let v = v.trim();
    v.split(',').map(str::trim).filter(move |_| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_broker_synonym_has_a_type_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for n in broker_config_names() {
            assert!(seen.insert(n), "{n} twice");
            assert!(broker_config_type(n).is_some(), "{n}");
        }
        for d in TOPIC_DEFS {
            if let Some(v) = d.default {
                assert_eq!(check_value(d.kind, d.check, v), Ok(()), "{}", d.name);
            }
        }
        for d in BROKER_DEFS {
            assert_eq!(
                check_value(d.kind, d.check, d.default),
                Ok(()),
                "{}",
                d.name
            );
        }
        for t in [
            "__consumer_offsets",
            "__transaction_state",
            "__share_group_state",
        ] {
            for (name, value) in internal_topic_configs(t) {
                let d = topic_def(name).unwrap();
                assert_eq!(check_value(d.kind, d.check, value), Ok(()));
            }
        }
    }

    #[test]
    fn values_are_checked_as_config_def_checks_them() {
        assert_eq!(
            check_value(Long, AtLeast(-1), "x"),
            Err("Not a number of type LONG".into())
        );
        assert_eq!(
            check_value(Int, AtLeast(0), "3000000000"),
            Err("Not a number of type INT".into())
        );
        assert_eq!(
            check_value(Long, AtLeast(-1), "-2"),
            Err("Value must be at least -1".into())
        );
        assert_eq!(
            check_value(Double, Between(0.0, 1.0), "1.5"),
            Err("Value must be no less than 0 and no more than 1".into())
        );
        assert_eq!(check_value(Double, Between(0.0, 1.0), "0.25"), Ok(()));
        assert!(check_value(Bool, Check::Any, "yes").is_err());
        assert_eq!(check_value(Bool, Check::Any, "TRUE"), Ok(()));
        let policy = topic_def("cleanup.policy").unwrap();
        assert_eq!(check_value(List, policy.check, "compact, delete"), Ok(()));
        assert_eq!(check_value(List, policy.check, ""), Ok(()));
        assert!(check_value(List, policy.check, "compact,remove").is_err());
        assert!(check_value(Str, OneOf(&["CreateTime"]), "Create").is_err());
        assert_eq!(list_items(" ").count(), 0);
        assert_eq!(
            list_items("compact, delete").collect::<Vec<_>>(),
            ["compact", "delete"]
        );
    }
}
