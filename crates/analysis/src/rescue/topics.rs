//! The source's own bookkeeping a rescue reads beside its partitions (the internal partitions
//! of the log dirs given, or beside the partition dirs given), and the target topics
//! `--create-topics` makes: each missing one with its source topic's own configs (its
//! ConfigRecords in the source's `__cluster_metadata`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use kseg_storage::discover::{discover, DataSet, PartitionDir};
use kseg_storage::layout::PartitionState;

use super::Plan;
use crate::topic_configs::topic_configs;

/// The live partition dirs of internal topic `topic` that go with the sources: those in the log
/// dirs and partition dirs given, and those beside each partition dir given (in its log dir);
/// one per partition number (the first found).
pub fn internal_partitions(set: &DataSet, topic: &str) -> Vec<PartitionDir> {
    let mut found: BTreeMap<i32, PartitionDir> = BTreeMap::new();
    let wanted = |p: &PartitionDir| p.name.topic == topic && p.name.state == PartitionState::Live;
    for p in set.all_partitions().filter(|p| wanted(p)) {
        found.entry(p.name.partition).or_insert_with(|| p.clone());
    }
    let parents: BTreeSet<PathBuf> = set
        .partitions
        .iter()
        .filter_map(|p| p.path.parent().map(Path::to_path_buf))
        .filter(|d| !set.log_dirs.iter().any(|l| &l.path == d))
        .collect();
    let prefix = format!("{topic}-");
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        if dirs.is_empty() {
            continue;
        }
        if let Ok(beside) = discover(&dirs) {
            for p in beside.all_partitions().filter(|p| wanted(p)) {
                found.entry(p.name.partition).or_insert_with(|| p.clone());
            }
        }
    }
    found.into_values().collect()
}

/// Configs a source topic's ConfigRecords may hold that are never taken into another cluster:
/// the replication throttles name the source cluster's brokers, and `internal.segment.bytes` is
/// Kafka's internal (test) setting, which DescribeConfigs does not list — tiny segments that
/// refuse the rescue's batches.
pub const NOT_CARRIED: [&str; 3] = [
    "leader.replication.throttled.replicas",
    "follower.replication.throttled.replicas",
    "internal.segment.bytes",
];

/// Where a new topic's configs came from, in the order said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigNote {
    /// No `__cluster_metadata` in the given paths or beside them.
    NoMetadata { source: String },
    /// The source topic's configs taken.
    Taken {
        source: String,
        configs: BTreeMap<String, String>,
    },
    /// The source topic had configs, none taken.
    NoneTaken { source: String },
    /// Configs of the source topic left out ([`NOT_CARRIED`], `--skip-topic-config`).
    LeftOut(Vec<String>),
    /// The source's `__cluster_metadata` records no configs of the topic.
    NoneRecorded { source: String },
    /// Another source topic going to the same target has other configs.
    Differs { source: String },
    /// `--topic-config`.
    Given(BTreeMap<String, String>),
    /// No config set: the target's defaults.
    Defaults,
}

/// A target topic `--create-topics` creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTopic {
    pub name: String,
    pub partitions: i32,
    pub configs: BTreeMap<String, String>,
    pub notes: Vec<ConfigNote>,
}

/// The topics `--create-topics` creates: each missing target topic (name, partitions) with its
/// source topic's own configs (from `metadata`, the source's `__cluster_metadata` partitions),
/// less `skip` and [`NOT_CARRIED`], under `given` (`--topic-config`).
pub fn new_topics(
    plan: &Plan<'_>,
    metadata: &[PartitionDir],
    missing: &[(String, i32)],
    skip: &[String],
    given: &BTreeMap<String, String>,
) -> Vec<NewTopic> {
    let mut recorded: HashMap<String, BTreeMap<String, String>> = HashMap::new();
    for m in metadata {
        for (topic, configs) in topic_configs(m) {
            recorded.entry(topic).or_insert(configs);
        }
    }
    let sources = plan.source_topics();
    let mut out = Vec::new();
    for (name, partitions) in missing {
        let from: Vec<&str> = sources
            .iter()
            .copied()
            .filter(|s| plan.target_topic(s) == name)
            .collect();
        let mut notes = Vec::new();
        let mut configs: BTreeMap<String, String> = BTreeMap::new();
        if let Some(src) = from.first() {
            let source = src.to_string();
            match recorded.get(*src) {
                _ if metadata.is_empty() => notes.push(ConfigNote::NoMetadata { source }),
                Some(c) => {
                    let mut taken = c.clone();
                    let left: Vec<String> = taken
                        .keys()
                        .filter(|k| NOT_CARRIED.contains(&k.as_str()) || skip.contains(k))
                        .cloned()
                        .collect();
                    for k in &left {
                        taken.remove(k);
                    }
                    notes.push(if taken.is_empty() {
                        ConfigNote::NoneTaken { source }
                    } else {
                        ConfigNote::Taken {
                            source,
                            configs: taken.clone(),
                        }
                    });
                    if !left.is_empty() {
                        notes.push(ConfigNote::LeftOut(left));
                    }
                    configs = taken;
                }
                None => notes.push(ConfigNote::NoneRecorded { source }),
            }
            for other in &from[1..] {
                if recorded.get(*other) != recorded.get(*src) {
                    notes.push(ConfigNote::Differs {
                        source: other.to_string(),
                    });
                }
            }
        }
        if !given.is_empty() {
            notes.push(ConfigNote::Given(given.clone()));
            configs.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if configs.is_empty() {
            notes.push(ConfigNote::Defaults);
        }
        out.push(NewTopic {
            name: name.clone(),
            partitions: *partitions,
            configs,
            notes,
        });
    }
    out
}
