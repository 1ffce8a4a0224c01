//! Topic facts a KRaft cluster keeps in `__cluster_metadata`: each topic's own configs (its
//! ConfigRecords: what `kafka-configs.sh --describe` lists as the topic's, not the broker
//! defaults), among them which topics are compacted (`cleanup.policy` containing `compact`), so
//! that their normal offset gaps are not reported as lost data, and how many partitions each
//! topic has (its PartitionRecords), which no single broker's partition dirs tell. Replays the
//! latest snapshot, then the log after it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io;

use crate::format::coordinator::{decode_metadata_record, MetadataRecord, Value};
use crate::format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use crate::format::protocol::uuid_string;
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::PartitionDir;
use crate::storage::layout::FileKind;
use crate::storage::source::open_log;

/// `ConfigResource.Type.TOPIC`.
const TOPIC_RESOURCE: i64 = 2;

#[derive(Debug, Default)]
struct Replay {
    /// Topic id → name.
    names: HashMap<String, String>,
    /// Topic name → its configs (name → value).
    configs: HashMap<String, BTreeMap<String, String>>,
    /// Topic id → partition ids.
    partitions: HashMap<String, BTreeSet<i32>>,
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
            "PARTITION_RECORD" => {
                if let (Some(id), Some(p)) = (topic_id(), data.int("partitionId")) {
                    if let Ok(p) = i32::try_from(p) {
                        self.partitions.entry(id).or_default().insert(p);
                    }
                }
            }
            "REMOVE_TOPIC_RECORD" => {
                if let Some(id) = topic_id() {
                    self.partitions.remove(&id);
                    if let Some(name) = self.names.remove(&id) {
                        self.configs.remove(&name);
                    }
                }
            }
            "CONFIG_RECORD" if data.int("resourceType") == Some(TOPIC_RESOURCE) => {
                let (Some(topic), Some(name)) = (data.str("resourceName"), data.str("name")) else {
                    return;
                };
                // A null value deletes the config (the topic falls back to the default).
                match data.str("value") {
                    Some(v) => {
                        self.configs
                            .entry(topic.into_owned())
                            .or_default()
                            .insert(name.into_owned(), v.into_owned());
                    }
                    None => {
                        if let Some(c) = self.configs.get_mut(topic.as_ref()) {
                            c.remove(name.as_ref());
                        }
                    }
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
        // PartitionRecord (3), ConfigRecord (4) and RemoveTopicRecord (9) matter, so the rest is
        // never decoded.
        if let Some(value) = r.value.filter(|v| matches!(v.get(1), Some(2..=4 | 9))) {
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
    let replay = replay(metadata);
    replay
        .configs
        .into_iter()
        .filter(|(_, c)| {
            c.get("cleanup.policy")
                .is_some_and(|policy| policy.split(',').any(|p| p.trim() == "compact"))
        })
        .map(|(topic, _)| topic)
        .collect()
}

/// Each topic's own configs as a `__cluster_metadata` partition records them (its
/// ConfigRecords, a deleted topic's dropped with it); unreadable parts are skipped.
pub fn topic_configs(metadata: &PartitionDir) -> HashMap<String, BTreeMap<String, String>> {
    replay(metadata).configs
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
