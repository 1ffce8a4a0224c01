//! What Kafka 4.4's log cleaner does next to the partitions whose `cleanup.policy` holds
//! `compact`, and why it does no more: per partition, the range `LogCleanerManager.
//! cleanableOffsets` chooses (first dirty offset from `cleaner-offset-checkpoint` with its reset
//! rules; first uncleanable offset and what set it: the last stable offset and the transaction
//! pinning it, the high watermark, the active segment, `min.compaction.lag.ms`), the dirty
//! ratio against `min.cleanable.dirty.ratio`, whether `max.compaction.lag.ms` forces the pass,
//! the order the cleaner takes the partitions in (filthiest first), and the pass itself
//! ([`pass`]): where the offset map ends ([`offset_map`]), how the segments are grouped, what
//! each batch becomes, the checkpoint it leaves; or the error that makes Kafka mark the
//! partition uncleanable.
//!
//! Offline, the producers' state is the one the log rebuilds ([`facts`]); a producer that wrote
//! nothing left in the log but is still in a snapshot is not seen (its batches are gone, so it
//! changes no decision).

pub mod facts;
pub mod offset_map;
pub mod pass;
pub mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::fault::read_checkpoint;
use crate::summary::{log_dir_facts, Checkpoints};
use crate::topic_configs::{
    log_configs, log_dir_configs, node_id, BrokerLogConfig, ConfigFlags, EffectiveLogConfig,
    LogConfigs,
};
use crate::transactions::{transactional_ids, TransactionState};
use kseg_format::text_files::CheckpointEntry;
use kseg_storage::discover::{discover, DataSet, LogDir, PartitionDir};
use kseg_storage::layout::{FileKind, PartitionState};

use facts::{read_facts, segments_in, Facts};
use offset_map::{map_memory, max_desired_entries, OffsetMap};
use pass::{build_offset_map, clean, txn_cache, Discard, PassParams, PassSink, PassStats, Refusal};

/// Why the first dirty offset is not the checkpoint's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirtyStart {
    /// The `cleaner-offset-checkpoint` entry.
    Checkpoint,
    /// No entry: the log start offset.
    NoCheckpoint,
    /// The entry is below the log start offset: reset to it (and the checkpoint rewritten).
    BelowLogStart(i64),
    /// The entry is past the log end offset: reset to the log start.
    PastLogEnd(i64),
}

/// The transaction whose first offset is the last stable offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinningTxn {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub first_offset: i64,
    /// From `__transaction_state` among the inputs: the transactional id and its state.
    pub transactional_id: Option<(String, String)>,
}

/// What bounds the cleanable range (the smallest of `cleanableOffsets`'s three).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// An open transaction holds the last stable offset.
    OpenTransaction(PinningTxn),
    /// The high watermark (`replication-offset-checkpoint`).
    HighWatermark,
    /// The active segment is never cleaned.
    ActiveSegment,
    /// This segment's largest timestamp is within `min.compaction.lag.ms` of now.
    MinCompactionLag {
        segment: i64,
        largest_timestamp: i64,
    },
}

/// Why no pass runs on a partition.
#[derive(Debug, Clone, PartialEq)]
pub enum Idle {
    /// `log.cleaner.enable=false`.
    CleanerDisabled,
    /// No bytes at all.
    Empty,
    /// Nothing between the first dirty offset and the first uncleanable one.
    NothingCleanable,
    /// The dirty ratio is at or below `min.cleanable.dirty.ratio`, and `max.compaction.lag.ms`
    /// does not force a pass.
    RatioBelowMinimum,
    /// Not a live partition (a `-delete` or `-stray` dir, a future replica).
    NotLive,
}

/// What the cleaner would do to one partition.
#[derive(Debug, Clone)]
pub struct PartitionCompaction {
    pub topic: String,
    pub partition: i32,
    pub path: PathBuf,
    pub log_dir: Option<PathBuf>,
    pub config: EffectiveLogConfig,
    pub log_start_offset: i64,
    /// `None`: no `replication-offset-checkpoint` entry, taken at the log end.
    pub high_watermark: Option<i64>,
    pub log_end_offset: i64,
    pub last_stable_offset: i64,
    pub checkpoint: Option<i64>,
    pub first_dirty_offset: i64,
    pub dirty_start: DirtyStart,
    /// `firstUncleanableDirtyOffset`: the smallest bound, never below the first dirty offset.
    pub uncleanable_bound: i64,
    pub bound: Bound,
    /// `LogToClean.firstUncleanableOffset`: the base of the segment holding the bound.
    pub first_uncleanable_offset: i64,
    pub clean_bytes: u64,
    pub cleanable_bytes: u64,
    pub dirty_ratio: f64,
    /// `maxCompactionDelay`: how long past `max.compaction.lag.ms` the oldest dirty segment's
    /// first batch is (positive: the pass is forced).
    pub compaction_delay_ms: i64,
    pub idle: Option<Idle>,
    /// 1-based: the cleaner's order among the partitions it cleans (filthiest first).
    pub order: Option<usize>,
    /// The error the pass hits: Kafka marks the partition uncleanable until a restart.
    pub uncleanable: Option<Refusal>,
    /// A segment with a batch more than 2^31-1 past its base: the pass aborts and Kafka splits
    /// the segment (`splitOverflowedSegment`), cleaning on the next pass.
    pub overflow: Option<i64>,
    pub pass: Option<PassOutcome>,
    pub segments: usize,
    pub bytes: u64,
    /// Files that could not be read.
    pub unreadable: Vec<(PathBuf, String)>,
    pub facts: Facts,
}

impl PartitionCompaction {
    pub fn will_clean(&self) -> bool {
        self.idle.is_none()
    }
}

/// A pass, previewed.
#[derive(Debug, Clone)]
pub struct PassOutcome {
    pub map_memory: usize,
    pub map_slots: usize,
    pub map_limit: usize,
    pub keys: usize,
    /// The map filled at this record: the next pass goes on from `end_offset`.
    pub full_at: Option<i64>,
    /// The checkpoint the pass leaves (`offsetMap.latestOffset + 1`).
    pub end_offset: i64,
    /// Each group's segment base offsets.
    pub groups: Vec<Vec<i64>>,
    pub stats: PassStats,
    pub bytes_after: u64,
    /// The delete horizon stamped on batches with tombstones or empty-transaction markers.
    pub horizon: i64,
}

/// The whole answer.
#[derive(Debug, Clone)]
pub struct CompactionReport {
    pub now: i64,
    /// The partitions with `compact` in their policy, in input order.
    pub partitions: Vec<PartitionCompaction>,
    /// Partitions read whose policy lacks `compact`.
    pub not_compacted: usize,
    pub broker: BrokerLogConfig,
    pub unmatched_topic_flags: Vec<String>,
    /// Whether `__transaction_state` was among the inputs.
    pub have_transaction_state: bool,
}

impl CompactionReport {
    /// The answer is a problem: a partition the cleaner will give up on.
    pub fn problem(&self) -> bool {
        self.partitions.iter().any(|p| p.uncleanable.is_some())
    }
}

/// A log dir's checkpoints, and the cleaner's.
struct DirContext {
    path: PathBuf,
    node_id: Option<i32>,
    checkpoints: BTreeMap<(String, i32), Checkpoints>,
    cleaner: BTreeMap<(String, i32), i64>,
}

fn dir_context(dir: &LogDir) -> DirContext {
    let facts = log_dir_facts(dir);
    let mut cleaner = BTreeMap::new();
    if let Some(f) = dir
        .files
        .iter()
        .find(|f| f.kind == FileKind::CleanerOffsetCheckpoint)
    {
        if let Ok(c) = read_checkpoint(&f.path, 64 << 20, false) {
            for e in c.entries {
                if let CheckpointEntry::Partition {
                    topic,
                    partition,
                    offset,
                } = e
                {
                    cleaner.insert((topic, partition), offset);
                }
            }
        }
    }
    DirContext {
        path: dir.path.clone(),
        node_id: node_id(dir),
        checkpoints: facts.checkpoints,
        cleaner,
    }
}

/// The cleaner's next pass over every compacted partition of `set`, at `now`.
pub fn plan(set: &DataSet, flags: &ConfigFlags, now: i64) -> CompactionReport {
    let mut configs = LogConfigs::default();
    for p in set
        .all_partitions()
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        configs.merge(log_configs(p));
    }
    let mut parents: Vec<LogDir> = Vec::new();
    let mut parent_of: Vec<Option<usize>> = Vec::new();
    for p in &set.partitions {
        let found = p.path.parent().map(Path::to_path_buf).and_then(|parent| {
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
    let dirs: Vec<DirContext> = set.log_dirs.iter().map(dir_context).collect();
    let parent_dirs: Vec<DirContext> = parents.iter().map(dir_context).collect();
    let mut work: Vec<(&PartitionDir, Option<&DirContext>)> = Vec::new();
    for (dir, ctx) in set.log_dirs.iter().zip(&dirs) {
        work.extend(dir.partitions.iter().map(|p| (p, Some(ctx))));
    }
    for (p, parent) in set.partitions.iter().zip(&parent_of) {
        work.push((p, parent.map(|i| &parent_dirs[i])));
    }
    let node = dirs.iter().chain(&parent_dirs).find_map(|d| d.node_id);
    let broker = configs.broker(flags, node);
    let txn_parts: Vec<&PartitionDir> = set
        .all_partitions()
        .filter(|p| p.name.topic == "__transaction_state")
        .collect();
    let have_transaction_state = !txn_parts.is_empty();
    let txn_state = transactional_ids(&txn_parts).unwrap_or_default();
    let mut not_compacted = 0;
    let mut chosen = Vec::new();
    for (p, ctx) in work {
        let config = configs.effective(&p.name.topic, flags, ctx.and_then(|c| c.node_id));
        if !config.cleanup_policy.value.compact || p.name.topic == "__cluster_metadata" {
            not_compacted += 1;
            continue;
        }
        chosen.push((p, ctx, config));
    }
    let mut partitions: Vec<PartitionCompaction> = chosen
        .into_par_iter()
        .map(|(p, ctx, config)| choose(p, ctx, config, &broker, &txn_state, now))
        .collect();
    order_filthiest(&mut partitions);
    // The passes one after the other, as one cleaner thread takes them: one offset map.
    for p in partitions.iter_mut().filter(|p| p.will_clean()) {
        run_pass(p, &broker, now, &mut Discard);
    }
    let unmatched_topic_flags = flags
        .topics()
        .filter(|t| !partitions.iter().any(|p| p.topic == *t))
        .map(str::to_string)
        .collect();
    CompactionReport {
        now,
        partitions,
        not_compacted,
        broker,
        unmatched_topic_flags,
        have_transaction_state,
    }
}

/// `grabFilthiestCompactedLog`, repeated: the partitions it would clean, highest dirty ratio
/// first. Among equal ratios `Stream.max` keeps the first in the iteration order of the log
/// manager's ConcurrentHashMap, which is not modelled: ties are given in input order.
fn order_filthiest(partitions: &mut [PartitionCompaction]) {
    let mut order: Vec<usize> = (0..partitions.len())
        .filter(|&i| partitions[i].will_clean())
        .collect();
    order.sort_by(|&a, &b| {
        partitions[b]
            .dirty_ratio
            .partial_cmp(&partitions[a].dirty_ratio)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    for (rank, i) in order.into_iter().enumerate() {
        partitions[i].order = Some(rank + 1);
    }
}

/// `cleanableOffsets`, `LogToClean` and the eligibility test of `grabFilthiestCompactedLog`.
fn choose(
    p: &PartitionDir,
    ctx: Option<&DirContext>,
    config: EffectiveLogConfig,
    broker: &BrokerLogConfig,
    txn_state: &TransactionState,
    now: i64,
) -> PartitionCompaction {
    let facts = read_facts(p);
    let key = (p.name.topic.clone(), p.name.partition);
    let checkpoints = ctx
        .and_then(|c| c.checkpoints.get(&key))
        .copied()
        .unwrap_or_default();
    let checkpoint = ctx.and_then(|c| c.cleaner.get(&key)).copied();
    let first_base = facts.segments.first().map_or(0, |s| s.base);
    let log_start = checkpoints
        .log_start
        .map_or(first_base, |c| c.max(first_base));
    let log_end = facts.log_end_offset;
    let high_watermark = checkpoints
        .high_watermark
        .map(|h| h.max(log_start).min(log_end));
    let hw = high_watermark.unwrap_or(log_end);
    // The last stable offset: the first offset of the earliest open transaction, when below
    // the high watermark.
    let open = facts
        .producers
        .iter()
        .filter_map(|(pid, pr)| pr.open_first.map(|f| (f, *pid, pr.epoch)))
        .min();
    let lso = match open {
        Some((first, _, _)) if first < hw => first,
        _ => hw,
    };
    let (first_dirty, dirty_start) = match checkpoint {
        None => (log_start, DirtyStart::NoCheckpoint),
        Some(c) if c < log_start => (log_start, DirtyStart::BelowLogStart(c)),
        Some(c) if c > log_end => (log_start, DirtyStart::PastLogEnd(c)),
        Some(c) => (c, DirtyStart::Checkpoint),
    };
    let active_base = facts.segments.last().map_or(0, |s| s.base);
    let lag = config.min_compaction_lag_ms.value.max(0);
    let lag_segment = if lag > 0 {
        let range = segments_in(&facts.segments, first_dirty, active_base);
        facts.segments[range]
            .iter()
            .find(|s| s.largest_timestamp() > now - lag)
            .map(|s| (s.base, s.largest_timestamp()))
    } else {
        None
    };
    let mut bound_offset = lso;
    let mut bound = match open {
        Some((first, pid, epoch)) if first == lso => Bound::OpenTransaction(PinningTxn {
            producer_id: pid,
            producer_epoch: epoch,
            first_offset: first,
            transactional_id: txn_state
                .ids
                .values()
                .find(|i| i.state.producer_id == pid)
                .map(|i| (i.id.clone(), i.state_name())),
        }),
        _ => Bound::HighWatermark,
    };
    if active_base < bound_offset {
        bound_offset = active_base;
        bound = Bound::ActiveSegment;
    }
    if let Some((segment, largest_timestamp)) = lag_segment {
        if segment < bound_offset {
            bound_offset = segment;
            bound = Bound::MinCompactionLag {
                segment,
                largest_timestamp,
            };
        }
    }
    let uncleanable_bound = first_dirty.max(bound_offset);
    // calculateCleanableBytes: the first non-active segment from the bound, else the active.
    let non_active = segments_in(&facts.segments, uncleanable_bound, active_base);
    let first_uncleanable = if non_active.is_empty() {
        active_base
    } else {
        facts.segments[non_active.start].base
    };
    let size = |r: std::ops::Range<usize>| facts.segments[r].iter().map(|s| s.size).sum::<u64>();
    let cleanable_bytes = size(segments_in(
        &facts.segments,
        first_dirty.min(first_uncleanable),
        first_uncleanable,
    ));
    let clean_bytes = size(segments_in(&facts.segments, -1, first_dirty));
    let total = clean_bytes + cleanable_bytes;
    let dirty_ratio = if total == 0 {
        f64::NAN
    } else {
        cleanable_bytes as f64 / total as f64
    };
    // maxCompactionDelay: the dirty non-active segments' first batch timestamps.
    let earliest = facts.segments[segments_in(&facts.segments, first_dirty, active_base)]
        .iter()
        .filter_map(|s| s.first_batch_timestamp)
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(i64::MAX);
    let clean_until = now - config.max_compaction_lag_ms.value.max(0);
    let compaction_delay_ms = if earliest < clean_until {
        clean_until - earliest
    } else {
        0
    };
    let idle = if p.name.state != PartitionState::Live {
        Some(Idle::NotLive)
    } else if !broker.cleaner_enable.value {
        Some(Idle::CleanerDisabled)
    } else if total == 0 {
        Some(Idle::Empty)
    } else if (compaction_delay_ms > 0 && cleanable_bytes > 0)
        || dirty_ratio > config.min_cleanable_dirty_ratio.value
    {
        None
    } else if cleanable_bytes == 0 {
        Some(Idle::NothingCleanable)
    } else {
        Some(Idle::RatioBelowMinimum)
    };
    let overflow = facts.segments[segments_in(&facts.segments, 0, first_uncleanable)]
        .iter()
        .find_map(|s| s.overflow);
    PartitionCompaction {
        topic: p.name.topic.clone(),
        partition: p.name.partition,
        path: p.path.clone(),
        log_dir: ctx.map(|c| c.path.clone()),
        log_start_offset: log_start,
        high_watermark,
        log_end_offset: log_end,
        last_stable_offset: lso,
        checkpoint,
        first_dirty_offset: first_dirty,
        dirty_start,
        uncleanable_bound,
        bound,
        first_uncleanable_offset: first_uncleanable,
        clean_bytes,
        cleanable_bytes,
        dirty_ratio,
        compaction_delay_ms,
        idle,
        order: None,
        uncleanable: None,
        overflow,
        pass: None,
        segments: facts.segments.len(),
        bytes: facts.segments.iter().map(|s| s.size).sum(),
        unreadable: facts.unreadable_files.clone(),
        config,
        facts,
    }
}

/// The settings of `p`'s pass.
pub fn pass_params(p: &PartitionCompaction, broker: &BrokerLogConfig, now: i64) -> PassParams {
    PassParams {
        now,
        log_start: p.log_start_offset,
        first_dirty: p.first_dirty_offset,
        first_uncleanable: p.first_uncleanable_offset,
        high_watermark: p.high_watermark.unwrap_or(p.log_end_offset),
        delete_retention_ms: p.config.delete_retention_ms.value,
        segment_bytes: p.config.segment_bytes.value,
        max_index_bytes: p.config.segment_index_bytes.value,
        producer_id_expiration_ms: broker.producer_id_expiration_ms.value,
        map_memory: map_memory(
            broker.cleaner_dedupe_buffer_size.value,
            broker.cleaner_threads.value,
        ),
        load_factor: broker.cleaner_io_buffer_load_factor.value,
    }
}

/// Runs `p`'s pass into `sink`, recording its outcome (or the error that makes Kafka give up).
pub fn run_pass(
    p: &mut PartitionCompaction,
    broker: &BrokerLogConfig,
    now: i64,
    sink: &mut dyn PassSink,
) {
    let params = pass_params(p, broker, now);
    let mut map = OffsetMap::new(params.map_memory);
    let facts = &p.facts;
    let mut txns = txn_cache(facts);
    let built = match build_offset_map(facts, &params, &mut map, &mut txns) {
        Ok(b) => b,
        Err(r) => {
            p.uncleanable = Some(r);
            return;
        }
    };
    if p.overflow.is_some() {
        return;
    }
    match clean(facts, &params, &mut map, built.end_offset, &mut txns, sink) {
        Ok((stats, groups)) => {
            let below = segments_in(&facts.segments, 0, built.end_offset);
            let groups = groups
                .iter()
                .map(|g| {
                    facts.segments[below.start + g.start..below.start + g.end]
                        .iter()
                        .map(|s| s.base)
                        .collect()
                })
                .collect();
            let bytes_after = p.bytes - stats.bytes_read + stats.bytes_written;
            p.pass = Some(PassOutcome {
                map_memory: params.map_memory,
                map_slots: map.slots(),
                map_limit: max_desired_entries(params.map_memory, params.load_factor),
                keys: built.keys,
                full_at: built.full_at,
                end_offset: built.end_offset,
                groups,
                stats,
                bytes_after,
                horizon: now.saturating_add(params.delete_retention_ms),
            });
        }
        Err(r) => p.uncleanable = Some(r),
    }
}

#[cfg(test)]
mod tests;
