//! Naming rules of a Kafka log dir: what every file and directory is.

use std::path::{Path, PathBuf};

/// What a file in a data dir is, by Kafka's naming rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// `<20 digits>.log` (also `*.records.bin` wire captures, read as log data).
    Log,
    OffsetIndex,
    TimeIndex,
    TxnIndex,
    /// Producer-state snapshot `<offset>.snapshot`.
    ProducerSnapshot,
    /// KRaft snapshot `<end offset>-<epoch>.checkpoint`, read as a log.
    KraftSnapshot {
        end_offset: i64,
        epoch: i32,
    },
    /// `bootstrap.checkpoint`, the binary bootstrap metadata, read as a log.
    BootstrapCheckpoint,
    LeaderEpochCheckpoint,
    PartitionMetadata,
    RecoveryPointCheckpoint,
    LogStartOffsetCheckpoint,
    ReplicationOffsetCheckpoint,
    CleanerOffsetCheckpoint,
    MetaProperties,
    CleanShutdown,
    Lock,
    QuorumState,
    /// `<file>.deleted`: scheduled for asynchronous deletion.
    Deleted(Box<FileKind>),
    /// `<file>.cleaned`: log-cleaner output being written (deleted on startup).
    Cleaned(Box<FileKind>),
    /// `<file>.swap`: a cleaned or split segment waiting to replace the originals.
    Swap(Box<FileKind>),
    /// `<file>.tmp` left by an interrupted tmp-and-rename write, or a `.checkpoint.part`.
    Temporary,
    /// [`INCOMPLETE_COPY_MARKER`]: `kseg recover` was writing this copy and did not finish.
    IncompleteCopy,
    Unknown,
}

/// The file `kseg recover` writes first into a copy and removes last: a dir holding it is an
/// incomplete copy (the run was killed or failed mid-write), which a rerun redoes.
pub const INCOMPLETE_COPY_MARKER: &str = ".kseg-recover-incomplete";

impl FileKind {
    pub fn describe(&self) -> String {
        match self {
            FileKind::Log => "log segment".into(),
            FileKind::OffsetIndex => "offset index".into(),
            FileKind::TimeIndex => "time index".into(),
            FileKind::TxnIndex => "transaction index".into(),
            FileKind::ProducerSnapshot => "producer state snapshot".into(),
            FileKind::KraftSnapshot { .. } => "KRaft snapshot".into(),
            FileKind::BootstrapCheckpoint => "KRaft bootstrap snapshot".into(),
            FileKind::LeaderEpochCheckpoint => "leader epoch checkpoint".into(),
            FileKind::PartitionMetadata => "partition metadata".into(),
            FileKind::RecoveryPointCheckpoint => "recovery point checkpoint".into(),
            FileKind::LogStartOffsetCheckpoint => "log start offset checkpoint".into(),
            FileKind::ReplicationOffsetCheckpoint => {
                "replication (high watermark) checkpoint".into()
            }
            FileKind::CleanerOffsetCheckpoint => "cleaner offset checkpoint".into(),
            FileKind::MetaProperties => "meta.properties".into(),
            FileKind::CleanShutdown => "clean shutdown marker".into(),
            FileKind::Lock => "broker lock file".into(),
            FileKind::QuorumState => "KRaft quorum state".into(),
            FileKind::Deleted(k) => format!("{} scheduled for deletion", k.describe()),
            FileKind::Cleaned(k) => format!("{} being written by the log cleaner", k.describe()),
            FileKind::Swap(k) => format!("{} waiting to be swapped in", k.describe()),
            FileKind::Temporary => "temporary file of an interrupted write".into(),
            FileKind::IncompleteCopy => "kseg recover's incomplete-copy marker".into(),
            FileKind::Unknown => "unrecognised file".into(),
        }
    }

    /// True for files whose content is a sequence of batches.
    pub fn is_log_data(&self) -> bool {
        matches!(
            self,
            FileKind::Log | FileKind::KraftSnapshot { .. } | FileKind::BootstrapCheckpoint
        )
    }
}

/// The offset in a segment-style file name: the digits before the first `.`.
pub fn base_offset_of(name: &str) -> Option<i64> {
    let stem = name.split('.').next()?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// Whether the folder of the segment file `path` holds a `.log` with a higher base offset: the
/// segment was rolled (it is not the active one).
pub fn later_segment_exists(path: &Path) -> bool {
    let Some(base) = base_offset_of(&path.file_name().unwrap_or_default().to_string_lossy()) else {
        return false;
    };
    path.parent()
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".log") && base_offset_of(&name).is_some_and(|b| b > base)
        })
}

pub fn classify_file(name: &str) -> FileKind {
    for (suffix, wrap) in [
        (
            ".deleted",
            FileKind::Deleted as fn(Box<FileKind>) -> FileKind,
        ),
        (".cleaned", FileKind::Cleaned),
        (".swap", FileKind::Swap),
    ] {
        if let Some(inner) = name.strip_suffix(suffix) {
            return wrap(Box::new(classify_file(inner)));
        }
    }
    if name.ends_with(".tmp") || name.ends_with(".checkpoint.part") {
        return FileKind::Temporary;
    }
    match name {
        "leader-epoch-checkpoint" => return FileKind::LeaderEpochCheckpoint,
        "partition.metadata" => return FileKind::PartitionMetadata,
        "recovery-point-offset-checkpoint" => return FileKind::RecoveryPointCheckpoint,
        "log-start-offset-checkpoint" => return FileKind::LogStartOffsetCheckpoint,
        "replication-offset-checkpoint" => return FileKind::ReplicationOffsetCheckpoint,
        "cleaner-offset-checkpoint" => return FileKind::CleanerOffsetCheckpoint,
        "meta.properties" => return FileKind::MetaProperties,
        ".kafka_cleanshutdown" => return FileKind::CleanShutdown,
        ".lock" => return FileKind::Lock,
        "quorum-state" => return FileKind::QuorumState,
        "bootstrap.checkpoint" => return FileKind::BootstrapCheckpoint,
        INCOMPLETE_COPY_MARKER => return FileKind::IncompleteCopy,
        _ => {}
    }
    if name.ends_with(".records.bin") {
        return FileKind::Log;
    }
    if let Some(stem) = name.strip_suffix(".checkpoint") {
        if let Some((off, epoch)) = stem.split_once('-') {
            if let (Ok(end_offset), Ok(epoch)) = (off.parse(), epoch.parse()) {
                return FileKind::KraftSnapshot { end_offset, epoch };
            }
        }
        return FileKind::Unknown;
    }
    if base_offset_of(name).is_none() {
        return FileKind::Unknown;
    }
    match name.rsplit('.').next() {
        Some("log") => FileKind::Log,
        Some("index") => FileKind::OffsetIndex,
        Some("timeindex") => FileKind::TimeIndex,
        Some("txnindex") => FileKind::TxnIndex,
        Some("snapshot") => FileKind::ProducerSnapshot,
        _ => FileKind::Unknown,
    }
}

/// Why a partition directory exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PartitionState {
    Live,
    /// `.<uuid>-delete`: the topic was deleted; the broker removes the dir asynchronously.
    PendingDelete,
    /// `.<uuid>-future`: target of an intra-broker replica move.
    Future,
    /// `.<uuid>-stray`: no longer assigned to this broker by KRaft metadata.
    Stray,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartitionName {
    pub topic: String,
    pub partition: i32,
    pub state: PartitionState,
}

/// Parses `<topic>-<partition>` (split at the last `-`), with the `-delete`/`-future`/`-stray`
/// forms.
pub fn parse_partition_dir(name: &str) -> Option<PartitionName> {
    let (base, state) = if let Some(rest) = name.strip_suffix("-delete") {
        (strip_uuid(rest)?, PartitionState::PendingDelete)
    } else if let Some(rest) = name.strip_suffix("-future") {
        (strip_uuid(rest)?, PartitionState::Future)
    } else if let Some(rest) = name.strip_suffix("-stray") {
        (strip_uuid(rest)?, PartitionState::Stray)
    } else {
        (name, PartitionState::Live)
    };
    let (topic, partition) = base.rsplit_once('-')?;
    if topic.is_empty() || partition.is_empty() || !partition.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !topic
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return None;
    }
    Some(PartitionName {
        topic: topic.to_string(),
        partition: partition.parse().ok()?,
        state,
    })
}

fn strip_uuid(s: &str) -> Option<&str> {
    let (base, uuid) = s.rsplit_once('.')?;
    (uuid.len() == 32 && uuid.bytes().all(|b| b.is_ascii_hexdigit())).then_some(base)
}

/// Kafka's name for an offset-named file: the offset as 20 zero-padded digits, then `.suffix`
/// (`00000000000000001234.log`, `.index`, `.timeindex`, `.txnindex`, `.snapshot`).
pub fn offset_file_name(offset: i64, suffix: &str) -> String {
    format!("{offset:020}.{suffix}")
}

/// Order of files inside a partition: by offset, then log before its indexes.
pub fn file_order(name: &str) -> (i64, u8, String) {
    let kind = classify_file(name);
    let kind_rank = match kind {
        FileKind::Log => 0,
        FileKind::OffsetIndex => 1,
        FileKind::TimeIndex => 2,
        FileKind::TxnIndex => 3,
        FileKind::ProducerSnapshot => 4,
        FileKind::KraftSnapshot { .. } => 5,
        _ => 9,
    };
    let offset = match kind {
        FileKind::KraftSnapshot { end_offset, .. } => end_offset,
        _ => base_offset_of(name).unwrap_or(i64::MAX),
    };
    (offset, kind_rank, name.to_string())
}

/// Redpanda names segments `<base>-<term>-v1.log` and keeps `.base_index` files and
/// `<partition>_<revision>` dirs; none of it is Kafka's format.
pub fn is_redpanda_file_name(name: &str) -> bool {
    name.ends_with(".base_index")
        || name.ends_with(".compaction_index")
        || name == "kvstore"
        || name.strip_suffix("-v1.log").is_some_and(|s| {
            s.split('-')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Joins the path given on the command line with a name found inside it.
pub fn child(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(classify_file("00000000000000000000.log"), FileKind::Log);
        assert_eq!(
            classify_file("00000000000000001234.index"),
            FileKind::OffsetIndex
        );
        assert_eq!(
            classify_file("00000000000000001234.timeindex"),
            FileKind::TimeIndex
        );
        assert_eq!(
            classify_file("00000000000000001234.log.deleted"),
            FileKind::Deleted(Box::new(FileKind::Log))
        );
        assert_eq!(
            classify_file("00000000000000001234.index.swap"),
            FileKind::Swap(Box::new(FileKind::OffsetIndex))
        );
        assert_eq!(
            classify_file("00000000000000017073-0000000004.checkpoint"),
            FileKind::KraftSnapshot {
                end_offset: 17073,
                epoch: 4
            }
        );
        assert_eq!(
            classify_file("bootstrap.checkpoint"),
            FileKind::BootstrapCheckpoint
        );
        assert_eq!(
            classify_file("recovery-point-offset-checkpoint.tmp"),
            FileKind::Temporary
        );
        assert_eq!(classify_file("notes.txt"), FileKind::Unknown);
        assert_eq!(base_offset_of("00000000000000001234.log"), Some(1234));
        assert_eq!(offset_file_name(1234, "log"), "00000000000000001234.log");
        assert_eq!(
            base_offset_of(&offset_file_name(i64::MAX, "index")),
            Some(i64::MAX)
        );
    }

    #[test]
    fn partition_dirs() {
        assert_eq!(
            parse_partition_dir("__consumer_offsets-28"),
            Some(PartitionName {
                topic: "__consumer_offsets".into(),
                partition: 28,
                state: PartitionState::Live
            })
        );
        assert_eq!(
            parse_partition_dir("my-topic-name-3").unwrap().topic,
            "my-topic-name"
        );
        assert_eq!(
            parse_partition_dir("orders-3.0123456789abcdef0123456789abcdef-delete")
                .unwrap()
                .state,
            PartitionState::PendingDelete
        );
        assert_eq!(parse_partition_dir("kafka-logs"), None);
        assert_eq!(parse_partition_dir("0_12"), None);
        assert!(is_redpanda_file_name("685-0-v1.log"));
        assert!(!is_redpanda_file_name("00000000000000000000.log"));
    }
}
