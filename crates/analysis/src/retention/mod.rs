//! What Kafka 4.4's next retention check does to a log dir at a given instant, and why it
//! deletes no more: per partition, the segments `UnifiedLog.deleteOldSegments` deletes and by
//! which rule ([`rules`]), the log start offset after, the bytes freed, every segment kept with
//! the reason and the instant it becomes deletable, and what blocks retention (a future
//! timestamp, the high watermark, an older segment not yet expired, the files' mtimes, a
//! disabled log cleaner), each named with its segment, record offset and timestamp.
//!
//! Which partitions are checked, and by whom (`LogManager.cleanupLogs`): every log whose
//! `cleanup.policy` lacks `compact`; a `compact` one only by the log cleaner's threads after
//! their cleaning (`LogCleaner.cleanFilthiestLog` → `deletableLogs`), so with
//! `log.cleaner.enable=false` nothing ever deletes its segments, `compact,delete` included.
//! Tiered storage is not modelled (its rules need the remote log's state).
//!
//! Reads indexes and file metadata ([`segments`]); a `.log` only for the log end offset or a
//! largest timestamp that the broker takes from the batches, and to name a blocking record.

mod rules;
mod segments;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::summary::{log_dir_facts, Checkpoints};
use crate::topic_configs::{
    log_configs, log_dir_configs, node_id, BrokerLogConfig, ConfigFlags, EffectiveLogConfig,
    LogConfigs,
};
use kseg_storage::discover::{discover, DataSet, PartitionDir};
use kseg_storage::layout::PartitionState;

use rules::{delete_old_segments, Outcome, Params, SegmentView, StopCause};
use segments::{segment_files, SegmentFiles, Segments};

/// How the broker left a log dir, which decides where its idea of a segment's largest
/// timestamp comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DirState {
    /// `.kafka_cleanshutdown`: every segment's time index is final.
    Clean,
    /// A broker holds the `.lock`: it has its active segments' largest timestamps in memory,
    /// and its checkpoints lag that memory by seconds.
    Live,
    /// Neither: Kafka's next load recovers the segments from the recovery point first.
    Crashed,
    /// A partition dir outside any log dir: judged as if shut down cleanly.
    Unknown,
}

/// The rule of `deleteOldSegments` that deletes a segment (`SegmentDeletionReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rule {
    LogStartOffset,
    RetentionSize,
    RetentionTime,
}

/// Where a segment's largest timestamp comes from (`LogSegment.largestTimestamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TimestampSource {
    /// The last entry of its `.timeindex`.
    TimeIndex,
    /// Its batches (what the broker holds in memory, or rebuilds on recovery).
    Batches,
    /// No timestamp at all: the `.log` file's mtime (a restored copy has fresh ones).
    ModifiedTime,
}

/// A segment's largest timestamp as the time rule compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Largest {
    pub timestamp: i64,
    /// The last offset of the batch carrying it (none for an mtime).
    pub offset: Option<i64>,
    pub source: TimestampSource,
    /// False when the broker's value comes from batches that were not read (a live broker's
    /// active segment): it can only be later than this.
    pub exact: bool,
}

/// A segment the check deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    pub segment: i64,
    pub rule: Rule,
    /// The `.log`'s bytes (what the size rule counts).
    pub log_bytes: u64,
    /// Every file of the segment (`.log`, indexes, producer snapshot).
    pub bytes: u64,
    /// The timestamp the time rule compared (time rule only).
    pub largest: Option<Largest>,
}

/// Who runs `deleteOldSegments` on the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckedBy {
    /// `LogManager.cleanupLogs`, every `log.retention.check.interval.ms`.
    RetentionCheck,
    /// A log cleaner thread after its cleaning attempt (`compact` in the policy).
    Cleaner,
    /// Nobody.
    Nobody(NotChecked),
}

/// Why nobody checks a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NotChecked {
    /// `compact` in the policy and `log.cleaner.enable=false`.
    CleanerDisabled,
    /// `remote.storage.enable`: tiered storage's rules, not modelled.
    TieredStorage,
    /// A `-delete` dir: the topic was deleted, the whole dir goes.
    PendingDelete,
    /// A `-stray` dir: not a log of this broker any more.
    Stray,
    /// `__cluster_metadata`: KRaft's snapshots decide what it keeps.
    ClusterMetadata,
}

/// Why a segment is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum KeptReason {
    /// Nobody checks the partition ([`CheckedBy::Nobody`]).
    NotChecked,
    /// `cleanup.policy` without `delete`: only segments below the log start offset go.
    NoDeletePolicy,
    /// `retention.ms` is -1, and `retention.bytes` (if set) is not exceeded by enough.
    NoTimeLimit,
    /// The high watermark is below its end (`upper`: the next segment's base offset or the log
    /// end offset, when known).
    HighWatermark {
        high_watermark: i64,
        upper: Option<i64>,
    },
    /// The last segment, empty.
    EmptyActive,
    /// Its largest timestamp lies after now.
    FutureTimestamp,
    /// Its largest timestamp is inside `retention.ms`.
    WithinRetention,
    /// Expired itself, but behind `segment`, where the time rule stops.
    Behind { segment: i64 },
}

/// When a kept segment becomes deletable by time (if nothing else holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "at")]
pub enum Deletable {
    At(i64),
    /// The active segment (or one whose largest timestamp the broker takes from batches not
    /// read): not before this, later if records arrive.
    NotBefore(i64),
    /// Never by time (no time limit, no `delete` in the policy, nobody checks it).
    Never,
}

/// A segment kept, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub segment: i64,
    pub log_bytes: u64,
    pub largest: Largest,
    pub reason: KeptReason,
    pub deletable: Deletable,
}

/// What blocks retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BlockReason {
    /// A segment whose largest timestamp lies in the future stops the time rule.
    FutureTimestamp,
    /// Segments reaching past the high watermark are never deleted.
    HighWatermark,
    /// A segment with no timestamp, judged by a recent `.log` mtime, stops the time rule.
    ModifiedTime,
    /// An older segment inside `retention.ms` holds back later segments that are expired.
    NotExpired,
    /// `compact` in the policy and the log cleaner disabled: nothing checks the partition.
    CleanerDisabled,
}

/// One thing blocking retention, with the bytes it holds back (expired segments kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocker {
    pub reason: BlockReason,
    pub segment: Option<i64>,
    /// The record carrying the timestamp, or the high watermark.
    pub offset: Option<i64>,
    pub timestamp: Option<i64>,
    /// Bytes of `.log` held back that would be deleted without it.
    pub bytes: u64,
    /// The answer is a problem (exit 1): a future timestamp that holds back expired data or
    /// lies further ahead than `message.timestamp.after.max.ms` lets a record be.
    pub problem: bool,
}

/// Things to know about a partition's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetentionNote {
    /// No `replication-offset-checkpoint` entry: the high watermark is taken at the log end.
    HighWatermarkAssumed,
    /// Kept segments judged by their `.log` mtime (no timestamp in their time indexes).
    ModifiedTimes { segments: usize, newest: i64 },
    /// A file could not be read (what stands in for it: an empty index, no segment).
    Unreadable { file: PathBuf, error: String },
    /// Deleted segments' files (`.deleted`) waiting `file.delete.delay.ms`.
    PendingDeletion { bytes: u64 },
}

/// Where the log start offset comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LogStartSource {
    Checkpoint,
    FirstSegment,
}

/// What the next check does to one partition.
#[derive(Debug, Clone)]
pub struct PartitionRetention {
    pub topic: String,
    pub partition: i32,
    pub path: PathBuf,
    pub log_dir: Option<PathBuf>,
    pub state: PartitionState,
    pub config: EffectiveLogConfig,
    pub checked_by: CheckedBy,
    pub log_start_offset: i64,
    pub log_start_source: LogStartSource,
    /// From `replication-offset-checkpoint` (raised to the log start, as the broker loads it);
    /// `None`: none, taken at the log end.
    pub high_watermark: Option<i64>,
    /// When it was read.
    pub log_end_offset: Option<i64>,
    pub segments: usize,
    /// Every segment file's bytes.
    pub bytes: u64,
    pub deletions: Vec<Deletion>,
    /// Every segment goes: Kafka rolls a new empty one at this offset first.
    pub rolled_at: Option<i64>,
    pub log_start_offset_after: i64,
    pub bytes_freed: u64,
    pub kept: Vec<Kept>,
    pub blocked_by: Vec<Blocker>,
    pub notes: Vec<RetentionNote>,
    /// `.log` bytes read for the answer.
    pub log_bytes_read: u64,
}

impl PartitionRetention {
    /// `deleteSegments`: the base offsets deleted, ascending.
    pub fn delete_segments(&self) -> Vec<i64> {
        self.deletions.iter().map(|d| d.segment).collect()
    }

    pub fn problem(&self) -> bool {
        self.blocked_by.iter().any(|b| b.problem)
    }
}

/// Per log dir: what the next check frees and what is held back.
#[derive(Debug, Clone)]
pub struct LogDirRetention {
    pub path: PathBuf,
    pub node_id: Option<i32>,
    /// A ZooKeeper-mode broker's dir: its topic configs are not in it (only the flags say them).
    pub zookeeper_mode: bool,
    pub state: DirState,
    pub broker: BrokerLogConfig,
    pub partitions: usize,
    pub bytes: u64,
    pub bytes_freed: u64,
    pub segments_deleted: usize,
    pub partitions_deleting: usize,
    /// Bytes held back, by reason, with how many partitions.
    pub blocked: BTreeMap<BlockReason, (u64, usize)>,
    pub pending_deletion: u64,
}

/// The whole answer.
#[derive(Debug, Clone)]
pub struct RetentionReport {
    pub now: i64,
    /// In input order: each log dir's partitions, then partition dirs given alone.
    pub partitions: Vec<PartitionRetention>,
    pub log_dirs: Vec<LogDirRetention>,
    /// The broker configs of partitions outside any log dir.
    pub loose_broker: BrokerLogConfig,
    /// `--topic-config` topics that match no partition read.
    pub unmatched_topic_flags: Vec<String>,
}

impl RetentionReport {
    pub fn problem(&self) -> bool {
        self.partitions.iter().any(PartitionRetention::problem)
    }
}

/// A log dir's facts as retention uses them.
struct DirContext {
    path: PathBuf,
    state: DirState,
    node_id: Option<i32>,
    zookeeper_mode: bool,
    checkpoints: BTreeMap<(String, i32), Checkpoints>,
    broker: BrokerLogConfig,
}

fn dir_context(
    dir: &kseg_storage::discover::LogDir,
    configs: &LogConfigs,
    flags: &ConfigFlags,
) -> DirContext {
    let facts = log_dir_facts(dir);
    let state = if !facts.lock_holders.is_empty() {
        DirState::Live
    } else if facts.clean_shutdown {
        DirState::Clean
    } else {
        DirState::Crashed
    };
    let node_id = node_id(dir);
    DirContext {
        path: dir.path.clone(),
        state,
        node_id,
        zookeeper_mode: crate::topic_configs::zookeeper_mode(dir),
        checkpoints: facts.checkpoints,
        broker: configs.broker(flags, node_id),
    }
}

/// The next retention check at `now` over every partition of `set` (partition dirs given alone
/// are judged with their parent log dir's checkpoints and marker when it is one).
pub fn plan(set: &DataSet, flags: &ConfigFlags, now: i64) -> RetentionReport {
    let mut configs = LogConfigs::default();
    for p in set
        .all_partitions()
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        configs.merge(log_configs(p));
    }
    // Partition dirs given alone: their parent log dir, discovered once each.
    let mut parents: Vec<kseg_storage::discover::LogDir> = Vec::new();
    let mut parent_of: Vec<Option<usize>> = Vec::new();
    for p in &set.partitions {
        let parent = p.path.parent().map(Path::to_path_buf);
        let found = parent.and_then(|parent| {
            if let Some(i) = parents.iter().position(|d| d.path == parent) {
                return Some(i);
            }
            let dir = discover(std::slice::from_ref(&parent))
                .ok()?
                .log_dirs
                .into_iter()
                .next()?;
            configs.merge(log_dir_configs(&dir));
            parents.push(dir);
            Some(parents.len() - 1)
        });
        parent_of.push(found);
    }
    let dirs: Vec<DirContext> = set
        .log_dirs
        .iter()
        .map(|d| dir_context(d, &configs, flags))
        .collect();
    let parent_dirs: Vec<DirContext> = parents
        .iter()
        .map(|d| dir_context(d, &configs, flags))
        .collect();
    let loose_broker = configs.broker(flags, None);
    let mut work: Vec<(&PartitionDir, Option<&DirContext>)> = Vec::new();
    for (dir, ctx) in set.log_dirs.iter().zip(&dirs) {
        work.extend(dir.partitions.iter().map(|p| (p, Some(ctx))));
    }
    for (p, parent) in set.partitions.iter().zip(&parent_of) {
        work.push((p, parent.map(|i| &parent_dirs[i])));
    }
    let partitions: Vec<PartitionRetention> = work
        .par_iter()
        .map(|(p, ctx)| {
            let broker = ctx.map_or(&loose_broker, |c| &c.broker);
            let config = configs.effective(&p.name.topic, flags, ctx.and_then(|c| c.node_id));
            partition(p, *ctx, config, broker, now)
        })
        .collect();
    let mut log_dirs: Vec<LogDirRetention> = Vec::new();
    for ctx in dirs.iter().chain(&parent_dirs) {
        let mine: Vec<&PartitionRetention> = partitions
            .iter()
            .filter(|p| p.log_dir.as_deref() == Some(ctx.path.as_path()))
            .collect();
        if mine.is_empty() {
            continue;
        }
        log_dirs.push(dir_totals(ctx, &mine));
    }
    let unmatched_topic_flags = flags
        .topics()
        .filter(|t| !partitions.iter().any(|p| p.topic == *t))
        .map(str::to_string)
        .collect();
    RetentionReport {
        now,
        partitions,
        log_dirs,
        loose_broker,
        unmatched_topic_flags,
    }
}

fn dir_totals(ctx: &DirContext, mine: &[&PartitionRetention]) -> LogDirRetention {
    let mut blocked: BTreeMap<BlockReason, (u64, usize)> = BTreeMap::new();
    for p in mine {
        let mut seen = Vec::new();
        for b in &p.blocked_by {
            let slot = blocked.entry(b.reason).or_default();
            slot.0 += b.bytes;
            if !seen.contains(&b.reason) {
                slot.1 += 1;
                seen.push(b.reason);
            }
        }
    }
    LogDirRetention {
        path: ctx.path.clone(),
        node_id: ctx.node_id,
        zookeeper_mode: ctx.zookeeper_mode,
        state: ctx.state,
        broker: ctx.broker.clone(),
        partitions: mine.len(),
        bytes: mine.iter().map(|p| p.bytes).sum(),
        bytes_freed: mine.iter().map(|p| p.bytes_freed).sum(),
        segments_deleted: mine.iter().map(|p| p.deletions.len()).sum(),
        partitions_deleting: mine.iter().filter(|p| !p.deletions.is_empty()).count(),
        blocked,
        pending_deletion: mine
            .iter()
            .flat_map(|p| &p.notes)
            .map(|n| match n {
                RetentionNote::PendingDeletion { bytes } => *bytes,
                _ => 0,
            })
            .sum(),
    }
}

/// Who checks the partition.
fn checked_by(
    p: &PartitionDir,
    config: &EffectiveLogConfig,
    broker: &BrokerLogConfig,
) -> CheckedBy {
    match p.name.state {
        PartitionState::PendingDelete => return CheckedBy::Nobody(NotChecked::PendingDelete),
        PartitionState::Stray => return CheckedBy::Nobody(NotChecked::Stray),
        PartitionState::Live | PartitionState::Future => {}
    }
    if p.name.topic == "__cluster_metadata" {
        return CheckedBy::Nobody(NotChecked::ClusterMetadata);
    }
    // UnifiedLog.remoteLogEnabled: the broker's remote log system and the topic's flag.
    if broker.remote_log_storage_system_enable.value && config.remote_storage_enable.value {
        return CheckedBy::Nobody(NotChecked::TieredStorage);
    }
    if config.cleanup_policy.value.compact {
        if broker.cleaner_enable.value {
            CheckedBy::Cleaner
        } else {
            CheckedBy::Nobody(NotChecked::CleanerDisabled)
        }
    } else {
        CheckedBy::RetentionCheck
    }
}

/// The next check of one partition.
fn partition(
    p: &PartitionDir,
    ctx: Option<&DirContext>,
    config: EffectiveLogConfig,
    broker: &BrokerLogConfig,
    now: i64,
) -> PartitionRetention {
    let mut notes = Vec::new();
    let (files, pending) = segment_files(p, &mut notes);
    if pending > 0 {
        notes.push(RetentionNote::PendingDeletion { bytes: pending });
    }
    let checkpoints = ctx
        .and_then(|c| c.checkpoints.get(&(p.name.topic.clone(), p.name.partition)))
        .copied()
        .unwrap_or_default();
    let first_base = files.first().map_or(0, |s| s.base);
    // LogLoader: max(the checkpoint's log start, the first segment's base offset).
    let (log_start_offset, log_start_source) = match checkpoints.log_start {
        Some(c) if c > first_base => (c, LogStartSource::Checkpoint),
        _ => (first_base, LogStartSource::FirstSegment),
    };
    // UnifiedLog.updateHighWatermark: never below the log start.
    let high_watermark = checkpoints.high_watermark.map(|h| h.max(log_start_offset));
    let checked_by = checked_by(p, &config, broker);
    // Only where a retention check runs does the high watermark matter (the metadata log has
    // no replication-offset-checkpoint entry, and needs none).
    if high_watermark.is_none() && !files.is_empty() && !matches!(checked_by, CheckedBy::Nobody(_))
    {
        notes.push(RetentionNote::HighWatermarkAssumed);
    }
    let state = ctx.map_or(DirState::Unknown, |c| c.state);
    let mut view = Segments::new(&files, state, checkpoints.recovery_point);
    let mut out = PartitionRetention {
        topic: p.name.topic.clone(),
        partition: p.name.partition,
        path: p.path.clone(),
        log_dir: ctx.map(|c| c.path.clone()),
        state: p.name.state,
        checked_by,
        log_start_offset,
        log_start_source,
        high_watermark,
        log_end_offset: None,
        segments: files.len(),
        bytes: files.iter().map(|s| s.all_bytes).sum(),
        deletions: Vec::new(),
        rolled_at: None,
        log_start_offset_after: log_start_offset,
        bytes_freed: 0,
        kept: Vec::new(),
        blocked_by: Vec::new(),
        notes,
        log_bytes_read: 0,
        config,
    };
    let simulated = matches!(
        checked_by,
        CheckedBy::RetentionCheck
            | CheckedBy::Cleaner
            | CheckedBy::Nobody(NotChecked::CleanerDisabled)
    );
    if files.is_empty() || !simulated {
        out.kept = (0..files.len())
            .map(|i| Kept {
                segment: files[i].base,
                log_bytes: files[i].log_bytes,
                largest: view.largest_known(i),
                reason: KeptReason::NotChecked,
                deletable: Deletable::Never,
            })
            .collect();
        finish(&mut out, view);
        return out;
    }
    let policy = out.config.cleanup_policy.value;
    let params = Params {
        now,
        high_watermark,
        log_start_offset,
        delete: policy.delete,
        retention_ms: out.config.retention_ms.value,
        retention_bytes: out.config.retention_bytes.value,
    };
    let outcome = delete_old_segments(&mut view, params);
    let deletions: Vec<Deletion> = outcome
        .deleted
        .iter()
        .map(|&(i, rule)| Deletion {
            segment: files[i].base,
            rule,
            log_bytes: files[i].log_bytes,
            bytes: files[i].all_bytes,
            largest: (rule == Rule::RetentionTime).then(|| view.largest(i)),
        })
        .collect();
    let kept = kept_segments(&files, &mut view, &outcome, &params, policy.delete);
    let mut blocked_by = blockers(&files, &mut view, &outcome, &params, &kept, &out.config);
    if checked_by == CheckedBy::Nobody(NotChecked::CleanerDisabled) {
        // Nothing runs the rules: what they would delete is held back by the disabled cleaner.
        if let Some(first) = deletions.first() {
            blocked_by.insert(
                0,
                Blocker {
                    reason: BlockReason::CleanerDisabled,
                    segment: Some(first.segment),
                    offset: None,
                    timestamp: None,
                    bytes: deletions.iter().map(|d| d.log_bytes).sum(),
                    problem: false,
                },
            );
        }
        out.kept = (0..files.len())
            .map(|i| Kept {
                segment: files[i].base,
                log_bytes: files[i].log_bytes,
                largest: view.largest_known(i),
                reason: KeptReason::NotChecked,
                deletable: Deletable::Never,
            })
            .collect();
    } else {
        out.bytes_freed = deletions.iter().map(|d| d.bytes).sum();
        out.log_start_offset_after = outcome.log_start_offset_after;
        out.rolled_at = outcome.rolled_at;
        out.deletions = deletions;
        out.kept = kept;
    }
    out.blocked_by = blocked_by;
    finish(&mut out, view);
    out
}

/// Notes and counters from the view, once the answer is complete.
fn finish(out: &mut PartitionRetention, view: Segments<'_>) {
    let mtimes: Vec<i64> = out
        .kept
        .iter()
        // Only where the time rule judges the segment: a compact-only topic's mtimes decide
        // nothing.
        .filter(|k| {
            k.largest.source == TimestampSource::ModifiedTime
                && !matches!(
                    k.reason,
                    KeptReason::NotChecked | KeptReason::NoDeletePolicy | KeptReason::EmptyActive
                )
        })
        .map(|k| k.largest.timestamp)
        .collect();
    if let Some(newest) = mtimes.iter().max() {
        out.notes.push(RetentionNote::ModifiedTimes {
            segments: mtimes.len(),
            newest: *newest,
        });
    }
    out.log_end_offset = view.known_log_end().or(out.rolled_at);
    out.log_bytes_read = view.log_bytes_read;
    out.notes.extend(view.notes);
}

/// The segments left after the check, each with why it stays and when it can go.
fn kept_segments(
    files: &[SegmentFiles],
    view: &mut Segments<'_>,
    o: &Outcome,
    p: &Params,
    delete: bool,
) -> Vec<Kept> {
    let n = files.len();
    let mut out = Vec::with_capacity(n.saturating_sub(o.first_kept));
    let time_rule = delete && p.retention_ms >= 0;
    let mut deadline = i64::MIN;
    let mut exact = true;
    for i in o.first_kept..n {
        let largest = view.largest_known(i);
        let last = i + 1 == n;
        let upper = if last {
            view.known_log_end()
        } else {
            Some(files[i + 1].base)
        };
        let hw_below = p.high_watermark.is_some_and(|hw| match upper {
            Some(u) => hw < u,
            None => last && hw < files[i].base,
        });
        let own_expired = p.now.wrapping_sub(largest.timestamp) > p.retention_ms;
        let empty_active = last && files[i].log_bytes == 0;
        let hw_reason = || KeptReason::HighWatermark {
            high_watermark: p.high_watermark.unwrap_or_default(),
            upper,
        };
        let reason = if !delete {
            KeptReason::NoDeletePolicy
        } else if !time_rule {
            KeptReason::NoTimeLimit
        } else if empty_active {
            KeptReason::EmptyActive
        } else if let Some(stop) = o.time_stop.filter(|s| s.at == i) {
            match stop.cause {
                StopCause::HighWatermark { upper } => KeptReason::HighWatermark {
                    high_watermark: p.high_watermark.unwrap_or_default(),
                    upper,
                },
                StopCause::LastAndEmpty => KeptReason::EmptyActive,
                StopCause::Rule if largest.timestamp > p.now => KeptReason::FutureTimestamp,
                StopCause::Rule => KeptReason::WithinRetention,
            }
        } else if own_expired {
            match o.time_stop {
                Some(s) => KeptReason::Behind {
                    segment: files[s.at].base,
                },
                None if hw_below => hw_reason(),
                None => KeptReason::WithinRetention,
            }
        } else if largest.timestamp > p.now {
            KeptReason::FutureTimestamp
        } else {
            KeptReason::WithinRetention
        };
        let deletable = if !time_rule || empty_active {
            Deletable::Never
        } else {
            // The first instant `now - largest > retention.ms` holds for it and every segment
            // before it.
            deadline = deadline.max(
                largest
                    .timestamp
                    .saturating_add(p.retention_ms)
                    .saturating_add(1),
            );
            exact &= largest.exact;
            if last || !exact {
                Deletable::NotBefore(deadline)
            } else {
                Deletable::At(deadline)
            }
        };
        out.push(Kept {
            segment: files[i].base,
            log_bytes: files[i].log_bytes,
            largest,
            reason,
            deletable,
        });
    }
    out
}

/// What holds back segments that would otherwise go.
fn blockers(
    files: &[SegmentFiles],
    view: &mut Segments<'_>,
    o: &Outcome,
    p: &Params,
    kept: &[Kept],
    config: &EffectiveLogConfig,
) -> Vec<Blocker> {
    let mut out = Vec::new();
    let expired = |k: &Kept| p.now.wrapping_sub(k.largest.timestamp) > p.retention_ms;
    if let (Some(stop), true) = (o.time_stop, p.delete && p.retention_ms >= 0) {
        let at = stop.at;
        let Some(first) = kept.iter().position(|k| k.segment == files[at].base) else {
            return out;
        };
        let later: u64 = kept[first + 1..]
            .iter()
            .filter(|k| expired(k) && k.reason != KeptReason::EmptyActive)
            .map(|k| k.log_bytes)
            .sum();
        let this = &kept[first];
        match stop.cause {
            StopCause::HighWatermark { .. } => {
                let bytes = later + if expired(this) { this.log_bytes } else { 0 };
                if bytes > 0 {
                    out.push(Blocker {
                        reason: BlockReason::HighWatermark,
                        segment: Some(this.segment),
                        offset: p.high_watermark,
                        timestamp: None,
                        bytes,
                        problem: false,
                    });
                }
            }
            StopCause::Rule => {
                let largest = view.largest(at);
                let future = largest.timestamp > p.now;
                let far = largest.timestamp.saturating_sub(p.now)
                    > config.message_timestamp_after_max_ms.value;
                let reason = if future {
                    BlockReason::FutureTimestamp
                } else if largest.source == TimestampSource::ModifiedTime {
                    BlockReason::ModifiedTime
                } else {
                    BlockReason::NotExpired
                };
                let problem = future && (later > 0 || far);
                if later > 0 || problem {
                    let offset = match largest.source {
                        TimestampSource::ModifiedTime => None,
                        _ => view.record_of(at, &largest),
                    };
                    out.push(Blocker {
                        reason,
                        segment: Some(this.segment),
                        offset,
                        timestamp: Some(largest.timestamp),
                        bytes: later,
                        problem,
                    });
                }
            }
            StopCause::LastAndEmpty => {}
        }
    } else if let (Some(stop), Some(excess)) = (o.size_stop, o.size_excess) {
        // Only the size rule runs: the high watermark stopped it where the excess still covered
        // the segment.
        if let StopCause::HighWatermark { .. } = stop.cause {
            let size = files[stop.at].log_bytes as i64;
            if excess >= size {
                out.push(Blocker {
                    reason: BlockReason::HighWatermark,
                    segment: Some(files[stop.at].base),
                    offset: p.high_watermark,
                    timestamp: None,
                    bytes: size as u64,
                    problem: false,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
