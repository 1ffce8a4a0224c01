//! Topic facts a KRaft cluster keeps in `__cluster_metadata`: each topic's own configs (its
//! ConfigRecords: what `kafka-configs.sh --describe` lists as the topic's, not the broker
//! defaults); which topics are compacted (`cleanup.policy` containing `compact`), so that their
//! normal offset gaps are not reported as lost data; the log configs a partition's files are judged with (`index.interval.bytes`,
//! `segment.bytes`, `message.timestamp.type`, `preallocate`: the topic's ConfigRecord, else the
//! cluster-wide dynamic default, else Kafka's default); and how many partitions each topic has
//! (its PartitionRecords), which no single broker's partition dirs tell. Replays the latest
//! snapshot, then the log after it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io;

pub mod defs;
pub mod effective;

pub use effective::{
    describe_output_topic_configs, BrokerLogConfig, CleanupPolicy, ConfigEntry, ConfigFlagError,
    ConfigFlags, ConfigValue, EffectiveLogConfig,
};

use serde::Serialize;

use kseg_format::coordinator::{decode_metadata_record, MetadataRecord, Value};
use kseg_format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_format::protocol::uuid_string;
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::FileKind;
use kseg_storage::source::open_log;

/// `ConfigResource.Type.TOPIC`.
const TOPIC_RESOURCE: i64 = 2;
/// `ConfigResource.Type.BROKER`; the cluster-wide default has the empty name.
const BROKER_RESOURCE: i64 = 4;

/// The topic configs kept (and the broker configs giving their cluster-wide defaults).
const TOPIC_CONFIGS: [(&str, &str); 6] = [
    ("cleanup.policy", "log.cleanup.policy"),
    ("index.interval.bytes", "log.index.interval.bytes"),
    ("segment.bytes", "log.segment.bytes"),
    ("internal.segment.bytes", "internal.log.segment.bytes"),
    ("message.timestamp.type", "log.message.timestamp.type"),
    ("preallocate", "log.preallocate"),
];

/// Where a config value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ConfigSource {
    /// Kafka's default (no `__cluster_metadata` among the inputs, or no record setting it).
    Default,
    /// The cluster-wide dynamic broker default (`log.*`) in `__cluster_metadata`.
    ClusterDefault,
    /// The topic's ConfigRecord in `__cluster_metadata`.
    Topic,
    /// The command line.
    Flag,
    /// This broker's own dynamic config (resource `node.id`) in `__cluster_metadata`.
    BrokerDefault,
    /// The config Kafka's coordinator creates its internal topic with (no record of the topic's
    /// configs was read).
    InternalTopic,
    /// `--config`: the broker's static config (server.properties), as the user gives it.
    ConfigFlag,
    /// `--topic-config`.
    TopicConfigFlag,
}

/// A config value and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub source: ConfigSource,
    /// The broker config the value came from when it is not the topic config itself
    /// (`log.retention.hours` for `retention.ms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
}

/// The log configs one topic's partitions are judged with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicLogConfig {
    pub index_interval_bytes: Setting<u64>,
    pub segment_bytes: Setting<u64>,
    pub message_timestamp_type: Setting<String>,
    pub preallocate: Setting<bool>,
}

impl TopicLogConfig {
    /// Kafka's defaults (`LogConfig`, `ServerLogConfigs`).
    pub fn defaults() -> Self {
        let d = |v| Setting {
            value: v,
            source: ConfigSource::Default,
            via: None,
        };
        TopicLogConfig {
            index_interval_bytes: d(4096),
            segment_bytes: d(1 << 30),
            message_timestamp_type: Setting {
                value: "CreateTime".into(),
                source: ConfigSource::Default,
                via: None,
            },
            preallocate: Setting {
                value: false,
                source: ConfigSource::Default,
                via: None,
            },
        }
    }

    /// Whether every value is Kafka's default.
    pub fn all_default(&self) -> bool {
        [
            self.index_interval_bytes.source,
            self.segment_bytes.source,
            self.message_timestamp_type.source,
            self.preallocate.source,
        ]
        .iter()
        .all(|s| *s == ConfigSource::Default)
    }
}

/// The topic configs and cluster-wide defaults `__cluster_metadata` records.
#[derive(Debug, Clone, Default)]
pub struct LogConfigs {
    /// Topic → config name → value: every config the topic's ConfigRecords set.
    topics: HashMap<String, BTreeMap<String, String>>,
    /// Broker config name (`log.*`) → value, cluster-wide.
    cluster: HashMap<String, String>,
    /// Broker id → broker config name → value: one broker's own dynamic configs.
    brokers: HashMap<i32, HashMap<String, String>>,
}

impl LogConfigs {
    /// Adds another metadata partition's configs (the later wins on a conflict).
    pub fn merge(&mut self, other: LogConfigs) {
        for (topic, configs) in other.topics {
            self.topics.entry(topic).or_default().extend(configs);
        }
        self.cluster.extend(other.cluster);
        for (broker, configs) in other.brokers {
            self.brokers.entry(broker).or_default().extend(configs);
        }
    }

    /// A topic config, else its cluster default.
    fn get(&self, topic: &str, name: &str) -> Option<(&str, ConfigSource)> {
        let broker_name = TOPIC_CONFIGS.iter().find(|(t, _)| *t == name)?.1;
        self.topics
            .get(topic)
            .and_then(|c| c.get(name))
            .map(|v| (v.as_str(), ConfigSource::Topic))
            .or_else(|| {
                self.cluster
                    .get(broker_name)
                    .map(|v| (v.as_str(), ConfigSource::ClusterDefault))
            })
    }

    /// Topics whose `cleanup.policy` includes `compact`.
    pub fn compacted_topics(&self) -> HashSet<String> {
        self.topics
            .keys()
            .filter(|t| {
                self.get(t, "cleanup.policy")
                    .is_some_and(|(v, _)| v.split(',').any(|p| p.trim() == "compact"))
            })
            .cloned()
            .collect()
    }

    /// The values `topic`'s partitions are judged with; `index_interval_flag` (the command
    /// line's `--index-interval-bytes`) wins over the metadata.
    pub fn for_topic(&self, topic: &str, index_interval_flag: Option<u64>) -> TopicLogConfig {
        let mut c = TopicLogConfig::defaults();
        let number = |name: &str| {
            self.get(topic, name)
                .and_then(|(v, s)| Some((v.trim().parse::<u64>().ok()?, s)))
        };
        if let Some((v, source)) = number("index.interval.bytes") {
            c.index_interval_bytes = Setting {
                value: v,
                source,
                via: None,
            };
        }
        if let Some(v) = index_interval_flag {
            c.index_interval_bytes = Setting {
                value: v,
                source: ConfigSource::Flag,
                via: None,
            };
        }
        // LogConfig.segmentSize: internal.segment.bytes, when set, wins.
        if let Some((v, source)) =
            number("internal.segment.bytes").or_else(|| number("segment.bytes"))
        {
            c.segment_bytes = Setting {
                value: v,
                source,
                via: None,
            };
        }
        if let Some((v, source)) = self.get(topic, "message.timestamp.type") {
            c.message_timestamp_type = Setting {
                value: v.to_string(),
                source,
                via: None,
            };
        }
        if let Some((v, source)) = self.get(topic, "preallocate") {
            c.preallocate = Setting {
                value: v.trim().eq_ignore_ascii_case("true"),
                source,
                via: None,
            };
        }
        c
    }
}

/// Whether a broker config bears on logs (kept from the metadata's broker ConfigRecords).
fn is_broker_log_config(name: &str) -> bool {
    TOPIC_CONFIGS.iter().any(|(_, b)| *b == name) || defs::broker_config_type(name).is_some()
}

/// The broker a log dir belongs to: `node.id` (KRaft) or `broker.id` (ZooKeeper) in its
/// meta.properties.
pub fn node_id(dir: &kseg_storage::discover::LogDir) -> Option<i32> {
    let meta = dir
        .files
        .iter()
        .find(|f| f.kind == FileKind::MetaProperties)?;
    let text = kseg_storage::source::read_small(&meta.path, 1 << 20).ok()?;
    let props = kseg_format::text_files::parse_properties(&String::from_utf8_lossy(&text));
    props
        .iter()
        .find(|(k, _)| k == "node.id")
        .or_else(|| props.iter().find(|(k, _)| k == "broker.id"))
        .and_then(|(_, v)| v.trim().parse().ok())
}

/// Whether a log dir is a ZooKeeper-mode broker's: `meta.properties` version 0 (KRaft writes
/// version 1, `kafka.server.BrokerMetadataCheckpoint`/`MetaProperties`) and no
/// `__cluster_metadata` partition. Its topic configs and partition counts live in ZooKeeper,
/// never in the dir.
pub fn zookeeper_mode(dir: &kseg_storage::discover::LogDir) -> bool {
    let Some(meta) = dir
        .files
        .iter()
        .find(|f| f.kind == FileKind::MetaProperties)
    else {
        return false;
    };
    let Ok(text) = kseg_storage::source::read_small(&meta.path, 1 << 20) else {
        return false;
    };
    let props = kseg_format::text_files::parse_properties(&String::from_utf8_lossy(&text));
    let version_zero = props.iter().any(|(k, v)| k == "version" && v.trim() == "0");
    version_zero
        && !dir
            .partitions
            .iter()
            .any(|p| p.name.topic == "__cluster_metadata")
}

#[derive(Debug, Default)]
struct Replay {
    /// Topic id → name.
    names: HashMap<String, String>,
    /// The log configs.
    configs: LogConfigs,
    /// Topic id → partition ids.
    partitions: HashMap<String, BTreeSet<i32>>,
    /// (topic id, partition) → its replicas (broker ids), as the latest PartitionRecord or
    /// PartitionChangeRecord that set them says.
    replicas: HashMap<(String, i32), Vec<i64>>,
    /// Offsets below this were replayed from a snapshot.
    from_offset: i64,
}

impl Replay {
    fn apply(&mut self, record: &MetadataRecord<'_>) {
        let data = &record.data;
        let topic_id = || {
            data.get("topicId")
                .and_then(Value::as_uuid)
                .map(|u| uuid_string(&u))
        };
        match record.name {
            "TOPIC_RECORD" => {
                if let (Some(name), Some(id)) = (data.str("name"), topic_id()) {
                    self.names.insert(id, name.into_owned());
                }
            }
            "PARTITION_RECORD" | "PARTITION_CHANGE_RECORD" => {
                if let (Some(id), Some(p)) = (topic_id(), data.int("partitionId")) {
                    if let Ok(p) = i32::try_from(p) {
                        // A change record's null replicas leave them as they were.
                        if let Some(r) = data.get("replicas").and_then(Value::as_array) {
                            let ids = r.iter().filter_map(|v| match v {
                                Value::Int(b) => Some(*b),
                                _ => None,
                            });
                            self.replicas.insert((id.clone(), p), ids.collect());
                        }
                        if record.name == "PARTITION_RECORD" {
                            self.partitions.entry(id).or_default().insert(p);
                        }
                    }
                }
            }
            "REMOVE_TOPIC_RECORD" => {
                if let Some(id) = topic_id() {
                    self.partitions.remove(&id);
                    self.replicas.retain(|(t, _), _| *t != id);
                    if let Some(name) = self.names.remove(&id) {
                        self.configs.topics.remove(&name);
                    }
                }
            }
            "CONFIG_RECORD" => {
                let (Some(kind), Some(resource), Some(name)) = (
                    data.int("resourceType"),
                    data.str("resourceName"),
                    data.str("name"),
                ) else {
                    return;
                };
                // A null value deletes the config (the topic falls back to the default).
                match kind {
                    TOPIC_RESOURCE => {
                        let slot = self
                            .configs
                            .topics
                            .entry(resource.into_owned())
                            .or_default();
                        match data.str("value") {
                            Some(v) => slot.insert(name.into_owned(), v.into_owned()),
                            None => slot.remove(name.as_ref()),
                        };
                    }
                    BROKER_RESOURCE if is_broker_log_config(&name) => {
                        // The cluster-wide default has the empty name, a broker's own its id.
                        let slot = if resource.is_empty() {
                            &mut self.configs.cluster
                        } else if let Ok(id) = resource.parse::<i32>() {
                            self.configs.brokers.entry(id).or_default()
                        } else {
                            return;
                        };
                        match data.str("value") {
                            Some(v) => slot.insert(name.into_owned(), v.into_owned()),
                            None => slot.remove(name.as_ref()),
                        };
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

impl LogSink for Replay {
    fn batch(&mut self, _: u64, _: &LogEntry<'_>, _: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }

    fn record(&mut self, _: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        // Control batches (snapshot header/footer, leader changes) carry no configuration.
        if b.is_control || r.offset < self.from_offset {
            return Ok(Flow::Continue);
        }
        // Frame version 1, then the record type as an unsigned varint: only TopicRecord (2),
        // PartitionRecord (3), ConfigRecord (4), PartitionChangeRecord (5) and RemoveTopicRecord
        // (9) matter, so the rest is never decoded.
        if let Some(value) = r.value.filter(|v| matches!(v.get(1), Some(2..=5 | 9))) {
            if let Ok(v) = decode_metadata_record(value) {
                self.apply(&v);
            }
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// Replays a `__cluster_metadata` partition: its latest snapshot, then the log after it;
/// unreadable parts are skipped.
fn replay(metadata: &PartitionDir) -> Replay {
    let mut replay = Replay::default();
    let mut scratch = RecordScratch::default();
    let deep = ScanOptions {
        deep: true,
        check_crc: false,
        ..Default::default()
    };
    let snapshot = metadata
        .files
        .iter()
        .filter_map(|f| match f.kind {
            FileKind::KraftSnapshot { end_offset, .. } => Some((end_offset, &f.path)),
            _ => None,
        })
        .max_by_key(|(end, _)| *end);
    if let Some((end, path)) = snapshot {
        if let Ok(mut src) = open_log(path, false) {
            let _ = scan_log(src.as_mut(), &deep, &mut scratch, &mut replay);
        }
        replay.from_offset = end;
    }
    for f in metadata.files.iter().filter(|f| f.kind == FileKind::Log) {
        if let Ok(mut src) = open_log(&f.path, false) {
            let _ = scan_log(src.as_mut(), &deep, &mut scratch, &mut replay);
        }
    }
    replay
}

/// The compacted topics a `__cluster_metadata` partition records; unreadable parts are skipped
/// (the answer only softens how offset gaps are graded).
pub fn compacted_topics(metadata: &PartitionDir) -> HashSet<String> {
    replay(metadata).configs.compacted_topics()
}

/// The log configs a log dir's `__cluster_metadata` partition records.
pub fn log_dir_configs(dir: &kseg_storage::discover::LogDir) -> LogConfigs {
    let mut configs = LogConfigs::default();
    for p in dir
        .partitions
        .iter()
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        configs.merge(log_configs(p));
    }
    configs
}

/// The log configs a `__cluster_metadata` partition records; unreadable parts are skipped.
pub fn log_configs(metadata: &PartitionDir) -> LogConfigs {
    replay(metadata).configs
}

/// Each topic's own configs as a `__cluster_metadata` partition records them (its
/// ConfigRecords, a deleted topic's dropped with it); unreadable parts are skipped.
pub fn topic_configs(metadata: &PartitionDir) -> HashMap<String, BTreeMap<String, String>> {
    replay(metadata).configs.topics
}

/// The partition count of each topic a `__cluster_metadata` partition records: one more than
/// the highest partition id of its PartitionRecords (a topic's partitions are numbered from 0).
pub fn partition_counts(metadata: &PartitionDir) -> HashMap<String, u32> {
    let replay = replay(metadata);
    replay
        .partitions
        .iter()
        .filter_map(|(id, ps)| {
            let name = replay.names.get(id)?;
            let highest = *ps.iter().next_back()?;
            Some((name.clone(), u32::try_from(highest).ok()? + 1))
        })
        .collect()
}

/// The replicas (broker ids) of each partition a `__cluster_metadata` partition records, by
/// (topic name, partition); unreadable parts are skipped.
pub fn partition_replicas(metadata: &PartitionDir) -> HashMap<(String, i32), Vec<i64>> {
    let replay = replay(metadata);
    replay
        .replicas
        .iter()
        .filter_map(|((id, p), r)| Some(((replay.names.get(id)?.clone(), *p), r.clone())))
        .collect()
}
