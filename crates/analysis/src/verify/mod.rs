//! `verify-index`: every check of a partition's files against Kafka's writing rules, with the
//! severity Kafka's own behaviour implies, and a preview of what Kafka's recovery would do.
//!
//! Normal states of a crashed broker (preallocated zero-filled indexes, a torn last write in the
//! active segment, no clean-shutdown marker) are `info` or `warning`, never `error`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::pieces::scan_entries_in_pieces;
use crate::producer_load::{
    self, BatchCollector, Gathering, LoadParams, SegmentView, SnapshotFile,
    DEFAULT_PRODUCER_ID_EXPIRATION_MS, PRODUCER_BATCH_BUDGET,
};
use crate::summary::{Checkpoints, LogDirFacts};
use crate::topic_configs::{LogConfigs, TopicLogConfig};
use kseg_format::log::RecordScratch;
use kseg_scan::ScanOptions;
use kseg_storage::discover::{DataFile, PartitionDir, Siblings};
use kseg_storage::layout::{base_offset_of, parse_partition_dir, FileKind};
use kseg_storage::source::{open_log, read_small, vanished};

mod files;
pub use files::txn_index_fails_sanity;
mod indexes;
mod message;
pub use message::{CheckpointKind, IndexWhat, Message};

mod segment;

use crate::load::{self, LoadAction};
use indexes::{IndexSetting, OffsetIndexPass, TimeIndexPass};
use segment::{EpochTrack, SegmentPass, SegmentSetting};

pub use crate::severity::{log_damage, LogDamage, Nature, Severity};

/// Every check id kseg reports; part of the interface (README lists them).
pub const CHECKS: &[(&str, &str)] = &[
    ("crc-mismatch", "a batch whose stored CRC does not match its bytes"),
    ("unknown-magic", "a batch with a magic byte above 2 and a valid CRC: Kafka reads it as v2, no Kafka writes it"),
    ("torn-tail", "a partial last batch: the file ends inside a batch"),
    ("zero-tail", "a zero-filled tail after the last batch (preallocation or a torn write)"),
    ("invalid-bytes", "bytes in the middle of a log that frame no batch; the next valid batch is found after them"),
    ("offset-order", "a batch whose offsets do not increase from the previous batch"),
    ("base-offset-mismatch", "the file name's base offset disagrees with the first batch"),
    ("segment-overlap", "a segment starting at or below the previous segment's last offset; offsets missing between segments (warning, info on compacted topics: internal ones, and those whose cleanup.policy in __cluster_metadata says compact)"),
    ("recovery-empties-segment", "offsets that stop increasing at an index point: Kafka's recovery throws InvalidOffsetException and empties the segment"),
    ("offset-overflow", "offsets too far from the segment base to fit a relative offset"),
    ("offset-index-mismatch", "an .index entry not on a batch boundary or naming an offset the batch there does not end with"),
    ("offset-index-order", ".index entries whose offsets or positions do not strictly increase"),
    ("offset-index-beyond-log", "an .index entry pointing at or past the valid end of the log"),
    ("index-preallocated", "an .index/.timeindex still at its preallocated size with a zero tail"),
    ("index-size", "an index file whose length is not a multiple of its entry size"),
    ("index-sanity", "Kafka's own index sanity check fails (last offset below the base offset, ...)"),
    ("time-index-mismatch", "a .timeindex entry that is not the maximum timestamp so far at the batch it names"),
    ("time-index-order", ".timeindex timestamps or offsets that do not increase"),
    ("time-index-beyond-log", "a .timeindex entry naming an offset past the end of the log"),
    ("missing-index", "a segment without its .index or .timeindex"),
    ("txn-index-mismatch", "a .txnindex that disagrees with the ABORT markers in the log"),
    ("producer-snapshot", "a producer-state snapshot that is corrupt or disagrees with the log"),
    ("stale-producer-snapshot", "a producer snapshot whose state makes Kafka's recovery write a wrong aborted-transaction entry: read_committed consumers see aborted records (or skip committed ones)"),
    ("no-clean-shutdown", "the log dir has no .kafka_cleanshutdown marker: Kafka will run recovery"),
    ("live-broker", "the log dir's .lock is held: a broker is running on it (its active segments are not a crash)"),
    ("checkpoint-range", "a recovery point, log start offset or high watermark outside the log"),
    ("leader-epoch", "a leader-epoch-checkpoint that is unreadable, out of order, or disagrees with the epochs the batches carry"),
    ("broker-will-not-start", "damage Kafka's load cannot read and will not recover (a clean-shutdown marker beside a zero-filled tail, say): the broker does not start"),
    ("acknowledged-loss", "records below the high watermark (acknowledged) that recovery drops"),
    ("load-cleanup", "a file Kafka deletes or renames when it loads the partition (.deleted, .cleaned, .swap, an index without its log)"),
    ("unreadable", "a file kseg could not read"),
];

#[derive(Debug, Clone)]
pub struct Finding {
    pub check: &'static str,
    pub severity: Severity,
    pub file: String,
    pub position: Option<u64>,
    pub offset: Option<i64>,
    /// Worded by the printer.
    pub message: Message,
}

/// What Kafka's `LogLoader` would do with a partition at the next start.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryPreview {
    pub partition: String,
    pub clean_shutdown: bool,
    pub recovery_point: Option<i64>,
    /// Segments `LogSegment.recover` would re-validate (and whose indexes it would rebuild).
    pub recovered_segments: Vec<String>,
    /// The bytes of the recovered segments (0: they are empty, and so is their recovery).
    pub recovered_bytes: u64,
    /// Where the log would be truncated: the first invalid batch in a recovered segment.
    pub truncate_file: Option<String>,
    pub truncate_position: Option<u64>,
    pub dropped_batches: u64,
    pub dropped_records: u64,
    pub dropped_bytes: u64,
    /// Later unflushed segments Kafka deletes after a truncation.
    pub deleted_segments: Vec<String>,
    /// Index files Kafka rebuilds (missing, or in recovered segments).
    pub rebuilt_indexes: Vec<String>,
    /// File operations of the load before any recovery: stray and orphan files deleted,
    /// interrupted compactions or splits completed through their `.swap` files.
    pub load_actions: Vec<LoadAction>,
    /// The partition's `replication-offset-checkpoint` entry: a lower bound of what was
    /// acknowledged (the broker writes it every few seconds).
    pub high_watermark: Option<i64>,
    /// Dropped records below the high watermark: acknowledged, and lost for certain.
    pub acknowledged_lost: Option<OffsetRun>,
    /// Dropped records at or above it: acknowledged or not (always possibly, with acks=1 or a
    /// single replica).
    pub possibly_acknowledged: Option<OffsetRun>,
    /// The dropped part of the log ends in bytes that frame no batch (a zeroed or torn tail):
    /// records there, their offsets unknown, may have been acknowledged too.
    pub unreadable_end: bool,
    /// Why Kafka's load of this partition throws, stopping the broker.
    pub load_failure: Option<LoadFailure>,
    /// Producer snapshots the load leaves (offsets): those of the input it keeps, and those it
    /// writes (`LogLoader.recoverSegment`, `UnifiedLog.rebuildProducerState`).
    pub producer_snapshots_kept: Vec<i64>,
    pub producer_snapshots_written: Vec<i64>,
    /// Producer snapshots of the input the load deletes (corrupt, out of range, stray).
    pub producer_snapshots_deleted: Vec<i64>,
    /// The log configs the partition was judged with, and where each comes from.
    pub log_config: TopicLogConfig,
}

impl Default for RecoveryPreview {
    fn default() -> Self {
        RecoveryPreview {
            partition: String::new(),
            clean_shutdown: false,
            recovery_point: None,
            recovered_segments: Vec::new(),
            recovered_bytes: 0,
            truncate_file: None,
            truncate_position: None,
            dropped_batches: 0,
            dropped_records: 0,
            dropped_bytes: 0,
            deleted_segments: Vec::new(),
            rebuilt_indexes: Vec::new(),
            load_actions: Vec::new(),
            high_watermark: None,
            acknowledged_lost: None,
            possibly_acknowledged: None,
            unreadable_end: false,
            load_failure: None,
            producer_snapshots_kept: Vec::new(),
            producer_snapshots_written: Vec::new(),
            producer_snapshots_deleted: Vec::new(),
            log_config: TopicLogConfig::defaults(),
        }
    }
}

/// Records in an offset range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetRun {
    pub records: u64,
    pub first_offset: i64,
    pub last_offset: i64,
}

/// Where and why Kafka's load fails.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadFailure {
    pub file: String,
    pub position: u64,
    /// Worded by the printer (the NDJSON's `reason`, after `position`).
    #[serde(skip)]
    pub reason: Message,
}

/// What recovery drops, against the high watermark.
#[derive(Debug, Default)]
struct LossTally {
    first_dropped: Option<i64>,
    last_dropped: Option<i64>,
    acknowledged: u64,
    records: u64,
    /// One past the highest offset the dropped part is known to have held: the last offset of
    /// a readable dropped batch, or the base offset of a later (deleted) segment.
    known_end: Option<i64>,
    /// Offsets are dense (a topic not compacted): the dropped offsets are the dropped records,
    /// whether or not their bytes can still be read.
    dense: bool,
    /// The log's last dropped bytes frame no batch: records there have no known offsets.
    open_end: bool,
}

impl LossTally {
    fn add(&mut self, first: Option<i64>, last: Option<i64>, acknowledged: u64, records: u64) {
        if let Some(f) = first {
            self.first_dropped = Some(self.first_dropped.map_or(f, |x| x.min(f)));
        }
        if let Some(l) = last.filter(|_| records > 0) {
            self.last_dropped = Some(self.last_dropped.map_or(l, |x| x.max(l)));
            self.extend_end(l.saturating_add(1));
        }
        self.acknowledged += acknowledged;
        self.records += records;
    }

    /// Offsets below `end` existed before the recovery.
    fn extend_end(&mut self, end: i64) {
        self.known_end = Some(self.known_end.map_or(end, |e| e.max(end)));
    }

    /// (lost for certain, possibly acknowledged). On a dense log these count offsets from the
    /// truncation point: every offset below the high watermark was acknowledged, its bytes
    /// readable or not (a zeroed region, a batch whose header is gone); the possibly
    /// acknowledged run ends at the highest offset known to have existed. On a compacted log
    /// only the records of readable dropped batches count.
    fn runs(&self, hw: Option<i64>) -> (Option<OffsetRun>, Option<OffsetRun>) {
        if self.dense {
            let Some(first) = self.first_dropped else {
                return (None, None);
            };
            let certain = hw.filter(|h| *h > first).map(|h| OffsetRun {
                records: (h - first) as u64,
                first_offset: first,
                last_offset: h - 1,
            });
            let from = hw.map_or(first, |h| h.max(first));
            let possible = self.known_end.filter(|e| *e > from).map(|e| OffsetRun {
                records: (e - from) as u64,
                first_offset: from,
                last_offset: e - 1,
            });
            return (certain, possible);
        }
        let (Some(first), Some(last)) = (self.first_dropped, self.last_dropped) else {
            return (None, None);
        };
        let certain = (self.acknowledged > 0).then(|| OffsetRun {
            records: self.acknowledged,
            first_offset: first,
            last_offset: hw.map_or(last, |h| h.saturating_sub(1).min(last)),
        });
        let rest = self.records - self.acknowledged;
        let possible = (rest > 0).then(|| OffsetRun {
            records: rest,
            first_offset: hw.map_or(first, |h| h.max(first)),
            last_offset: last,
        });
        (certain, possible)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct VerifyOptions {
    /// Skip per-batch CRC work (`--index-only`).
    pub index_only: bool,
    /// Kafka's index sanity checks only (`--sanity`).
    pub sanity_only: bool,
    pub mmap: bool,
    /// `--index-interval-bytes`: where recovery rebuilds index entries, for every partition
    /// (`None`: each topic's `index.interval.bytes` from `__cluster_metadata`, else 4096).
    pub index_interval: Option<u64>,
    /// Segments larger than this are read in pieces on the pool's threads
    /// ([`SPLIT_BYTES`] by default; `--split-bytes`, hidden, for tests).
    pub split_bytes: u64,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            index_only: false,
            sanity_only: false,
            mmap: false,
            index_interval: None,
            split_bytes: SPLIT_BYTES,
        }
    }
}

/// Pieces of a large segment: small enough that the entries of the few taken ahead stay small
/// in memory even for the smallest batches (~8 MiB of 70-byte batches: ~15 MB of entries).
pub const SPLIT_BYTES: u64 = 8 << 20;

#[derive(Debug, Default)]
pub struct PartitionReport {
    pub partition: String,
    pub findings: Vec<Finding>,
    pub recovery: Option<RecoveryPreview>,
}

/// Findings listed per (check, file); beyond this a damaged file (say, a garbage index) gets one
/// summary line instead of millions of findings.
const MAX_FINDINGS_PER_CHECK_AND_FILE: u64 = 100;

struct Findings<'a> {
    findings: &'a mut Vec<Finding>,
    /// Findings per (check, file), with the worst severity among them.
    counts: HashMap<(&'static str, String), (u64, Severity)>,
}

impl Findings<'_> {
    /// Reads an index or snapshot file whole, reporting it as unreadable when that fails.
    fn read(&mut self, path: &Path) -> Option<Vec<u8>> {
        match read_small(path, 1 << 30) {
            Ok(b) => Some(b),
            Err(e) => {
                self.unreadable(path, &e);
                None
            }
        }
    }

    fn unreadable(&mut self, path: &Path, e: &std::io::Error) {
        if vanished(path, e) {
            // Gone since it was listed: the dir moved on, nothing is wrong with the data.
            self.add(
                "unreadable",
                Nature::Normal,
                path,
                None,
                None,
                Message::Vanished,
            );
            return;
        }
        self.add(
            "unreadable",
            Nature::Unreadable,
            path,
            None,
            None,
            Message::CannotRead(std::sync::Arc::new(clone_io(e))),
        );
    }

    /// A finding of `check`, graded by what it means for Kafka (the one severity policy).
    fn add(
        &mut self,
        check: &'static str,
        nature: Nature,
        file: &Path,
        position: Option<u64>,
        offset: Option<i64>,
        message: Message,
    ) {
        let severity = nature.severity();
        let file = file.display().to_string();
        let count = self
            .counts
            .entry((check, file.clone()))
            .or_insert((0, severity));
        count.0 += 1;
        count.1 = count.1.max(severity);
        if count.0 > MAX_FINDINGS_PER_CHECK_AND_FILE {
            return;
        }
        self.findings.push(Finding {
            check,
            severity,
            file,
            position,
            offset,
            message,
        });
    }

    /// Adds one line per (check, file) whose findings were cut off.
    fn finish(self) {
        let mut cut: Vec<_> = self
            .counts
            .into_iter()
            .filter(|(_, (n, _))| *n > MAX_FINDINGS_PER_CHECK_AND_FILE)
            .collect();
        cut.sort_by(|a, b| a.0.cmp(&b.0));
        for ((check, file), (n, severity)) in cut {
            self.findings.push(Finding {
                check,
                severity,
                file,
                position: None,
                offset: None,
                message: Message::NotListed {
                    more: n - MAX_FINDINGS_PER_CHECK_AND_FILE,
                    check,
                    listed: MAX_FINDINGS_PER_CHECK_AND_FILE,
                },
            });
        }
    }
}

/// Everything about one partition.
pub fn verify_partition(
    p: &PartitionDir,
    facts: Option<&LogDirFacts>,
    opts: &VerifyOptions,
) -> PartitionReport {
    let label = format!("{}-{}", p.name.topic, p.name.partition);
    let mut findings = Vec::new();
    let mut ctx = Findings {
        findings: &mut findings,
        counts: HashMap::new(),
    };
    let mut scratch = RecordScratch::default();
    // Unknown log dir state (a loose partition or file): assume Kafka will run recovery.
    // KafkaRaftLog opens the metadata log with no clean-shutdown credit and recovery point 0.
    let raft = crate::recovery::always_recovered(&p.name.topic, p.name.partition);
    let clean_shutdown = !raft && facts.is_some_and(|f| f.clean_shutdown);
    let checkpoints = facts
        .and_then(|f| {
            f.checkpoints
                .get(&(p.name.topic.clone(), p.name.partition))
                .copied()
        })
        .unwrap_or_default();
    let checkpoints = if raft {
        Checkpoints {
            recovery_point: Some(0),
            log_start: Some(0),
            ..checkpoints
        }
    } else {
        checkpoints
    };
    // The topic's log configs (its ConfigRecords in __cluster_metadata, else Kafka's defaults).
    let log_config = facts
        .map(|f| f.log_configs.for_topic(&p.name.topic, opts.index_interval))
        .unwrap_or_else(|| LogConfigs::default().for_topic(&p.name.topic, opts.index_interval));
    // Internal topics are compacted; others when the cluster metadata says so.
    let compacted = p.name.topic.starts_with("__")
        || facts.is_some_and(|f| f.compacted_topics.contains(&p.name.topic));

    // The checks run on the files as Kafka's load leaves them.
    let load = load::plan(&p.files, &mut scratch);
    let loaded = &load.files;
    for a in &load.actions {
        ctx.add(
            "load-cleanup",
            if a.replaces_data {
                Nature::RepairedAtLoad
            } else {
                Nature::Normal
            },
            &a.path,
            None,
            None,
            Message::LoadCleanup(a.reason.clone()),
        );
    }

    for f in p
        .files
        .iter()
        .filter(|f| f.kind == FileKind::IncompleteCopy)
    {
        ctx.add(
            "incomplete-copy",
            Nature::DamagedData,
            &f.path,
            None,
            None,
            Message::IncompleteCopy,
        );
    }

    let segments: Vec<&DataFile> = loaded.iter().filter(|f| f.kind == FileKind::Log).collect();
    let bases: Vec<i64> = segments
        .iter()
        .map(|f| {
            base_offset_of(&f.path.file_name().unwrap_or_default().to_string_lossy()).unwrap_or(0)
        })
        .collect();
    // Kafka recovers from the segment holding the recovery point on (all of them when the
    // partition is missing from the checkpoint).
    let recovery_from = if clean_shutdown {
        None
    } else {
        let rp = checkpoints.recovery_point.unwrap_or(0);
        Some(
            bases
                .iter()
                .copied()
                .filter(|b| *b <= rp)
                .max()
                .unwrap_or(i64::MIN),
        )
    };
    let mut loss = LossTally {
        dense: !compacted,
        ..Default::default()
    };
    let mut preview = RecoveryPreview {
        partition: label.clone(),
        clean_shutdown,
        recovery_point: checkpoints.recovery_point,
        high_watermark: checkpoints.high_watermark,
        load_actions: load.actions,
        log_config: log_config.clone(),
        ..Default::default()
    };

    // Producer snapshots are read first: the segment passes note which of their last offsets
    // some batch ends at, instead of keeping every batch's offsets.
    let snapshots: Vec<(&Path, Vec<u8>)> = if opts.sanity_only {
        Vec::new()
    } else {
        loaded
            .iter()
            .filter(|f| f.kind == FileKind::ProducerSnapshot)
            .filter_map(|f| Some((f.path.as_path(), ctx.read(&f.path)?)))
            .collect()
    };
    let snapshot_wanted: HashSet<i64> = snapshots
        .iter()
        .flat_map(|(_, bytes)| files::snapshot_last_offsets(bytes))
        .collect();
    let mut snapshot_found = HashSet::new();
    let mut smallest_last_offset: Option<i64> = None;
    let mut epochs = EpochTrack::default();

    let mut prev_last: Option<i64> = None;
    let mut log_end: Option<i64> = None;
    // The segments as the load leaves them, and the log end after it, for the producer state.
    let mut views: Vec<SegmentView> = Vec::new();
    // Entries the segments' gathered batches may still take (`ProducerBatches`).
    let mut batch_budget = PRODUCER_BATCH_BUDGET;
    let mut end_after_load: Option<i64> = None;
    // The records, batches and bytes of the segments the load keeps.
    let mut kept = (0u64, 0u64, 0u64);
    let mut log_start: Option<i64> = None;
    let mut truncated = false;

    let siblings = Siblings::new(loaded);
    for (i, seg) in segments.iter().enumerate() {
        let base = bases[i];
        let active = i + 1 == segments.len();
        let recovered = recovery_from.is_some_and(|from| base >= from);
        let mut src = match open_log(&seg.path, opts.mmap) {
            Ok(s) => s,
            Err(e) => {
                ctx.unreadable(&seg.path, &e);
                continue;
            }
        };
        let size = src.len();
        let index = siblings.get(base, &FileKind::OffsetIndex);
        let time_index = siblings.get(base, &FileKind::TimeIndex);
        // LogLoader: a missing .index makes Kafka recover the segment (both indexes rebuilt,
        // whatever the shutdown); a missing .timeindex beside an .index is created empty, and
        // only a recovery fills it.
        // LogLoader.loadSegmentFiles recovers a segment itself when its .index is missing or
        // its .txnindex fails the sanity check.
        // Read once: for that decision here and for its checks after the log's pass.
        let txn_index = siblings
            .get(base, &FileKind::TxnIndex)
            .and_then(|f| Some((f.path.as_path(), ctx.read(&f.path)?)));
        let index_created = load.empty_index_created.contains(&base);
        let load_recovered = (index.is_none() && !index_created)
            || txn_index
                .as_ref()
                .is_some_and(|(_, bytes)| files::txn_index_fails_sanity(bytes, base));
        let rebuilds_all = recovered || load_recovered;
        let at = IndexSetting {
            base,
            active,
            rebuilt: recovered,
        };
        let offset_pass = index.and_then(|f| OffsetIndexPass::open(&mut ctx, &f.path, at, opts));
        let time_pass = time_index.and_then(|f| TimeIndexPass::open(&mut ctx, &f.path, at, opts));
        let setting = SegmentSetting {
            path: &seg.path,
            base,
            active,
            recovered,
            load_recovered,
            compacted,
            check_crc: !opts.index_only,
            log_checks: !opts.sanity_only,
            index_interval: log_config.index_interval_bytes.value,
            preallocate: log_config.preallocate.value,
            high_watermark: checkpoints.high_watermark,
        };
        let mut pass = SegmentPass::new(
            &mut ctx,
            setting,
            prev_last,
            offset_pass,
            time_pass,
            &snapshot_wanted,
            &mut snapshot_found,
            &mut epochs,
        );
        // Records are decoded only in control batches (the pass reads ABORT markers itself).
        let scan_opts = ScanOptions {
            check_crc: !opts.index_only,
            ..Default::default()
        };
        // The producer-state preview reads the batches gathered here, not the file again.
        let mut collector = BatchCollector::new(batch_budget);
        // A large segment is read in pieces on the pool's threads, replayed here in order.
        let scanned = scan_entries_in_pieces(
            src.as_mut(),
            &seg.path,
            &scan_opts,
            opts.split_bytes,
            &mut scratch,
            &mut Gathering {
                sink: &mut pass,
                collector: &mut collector,
            },
        );
        let (gathered, left) = collector.finish();
        batch_budget = left;
        let seg_facts = pass.finish();
        if let Err(e) = scanned {
            ctx.unreadable(&seg.path, &e);
            continue;
        }

        // LogLoader.recoverLog stops recovering at the first segment it truncates and deletes the
        // later unflushed ones without recovering them; a segment without its .index was
        // recovered already by loadSegmentFiles (which runs before recoverLog), deleted or not.
        let deleted = truncated && recovered;
        if (recovered && !deleted) || load_recovered {
            preview
                .recovered_segments
                .push(seg.path.display().to_string());
            preview.recovered_bytes += size;
        }
        if deleted {
            preview
                .deleted_segments
                .push(seg.path.display().to_string());
            preview.dropped_batches += seg_facts.batches;
            preview.dropped_records += seg_facts.records;
            preview.dropped_bytes += size;
            loss.add(
                seg_facts.first_base_offset,
                seg_facts.max_last_offset,
                seg_facts.acknowledged_records,
                seg_facts.records,
            );
            // A later segment starting at `base`: the offsets below it existed.
            loss.extend_end(base);
            // Only an unreadable end hides records past the last offset anything tells.
            loss.open_end = active && seg_facts.unreadable_tail && !seg_facts.preallocated_tail;
        } else if let Some(cut) = seg_facts.cut {
            loss.add(
                Some(cut.first_dropped_offset),
                seg_facts.max_last_offset,
                cut.dropped_acknowledged,
                cut.dropped_records,
            );
            loss.open_end = active
                && !seg_facts.preallocated_tail
                && seg_facts.unreadable_tail
                && seg_facts
                    .first_frame_problem
                    .is_some_and(|at| at >= cut.position);
            truncated |= cut.deletes_later;
            if preview.truncate_file.is_none() {
                preview.truncate_file = Some(seg.path.display().to_string());
                preview.truncate_position = Some(cut.position);
            }
            preview.dropped_batches += cut.dropped_batches;
            preview.dropped_records += cut.dropped_records;
            preview.dropped_bytes += size.saturating_sub(cut.position);
        }
        let rebuilt = (recovered && !deleted) || load_recovered;
        let kept_len = seg_facts
            .cut
            .as_ref()
            .filter(|_| rebuilt)
            .map_or(size, |c| c.position);
        views.push(SegmentView {
            base,
            path: seg.path.clone(),
            len: kept_len,
            load_recovered,
            recovered: recovered && !deleted,
            deleted,
            batches: gathered,
        });
        if !deleted {
            let seg_end = match seg_facts.cut.as_ref().filter(|_| rebuilt) {
                Some(c) => c.first_dropped_offset,
                None => seg_facts
                    .last_batch_last_offset
                    .map(|l| l.saturating_add(1))
                    .unwrap_or(base),
            };
            end_after_load = Some(seg_end.max(base));
            let cut = seg_facts.cut.as_ref().filter(|_| rebuilt);
            kept.0 += seg_facts.records - cut.map_or(0, |c| c.dropped_records);
            kept.1 += seg_facts.batches - cut.map_or(0, |c| c.dropped_batches);
            kept.2 += kept_len;
        }
        if let Some((position, reason)) = &seg_facts.load_failure {
            preview.load_failure.get_or_insert(LoadFailure {
                file: seg.path.display().to_string(),
                position: *position,
                reason: reason.clone(),
            });
        }
        // LogSegment.recover throws LogSegmentOffsetOverflowException at a kept batch whose
        // offset overflows; LogLoader.retryOnOffsetOverflow then splits the segment, but
        // LocalLog.splitOverflowedSegment requires the segment's last offset to overflow
        // (hasOverflow, from readNextOffset): when only an earlier batch does (a corrupted base
        // offset, which the CRC does not cover), it throws IllegalArgumentException and the
        // broker does not start.
        if let Some((at, offset)) = seg_facts.first_overflow.filter(|_| !deleted) {
            let last_fits = seg_facts
                .last_batch_last_offset
                .is_some_and(|l| (0..=i32::MAX as i64).contains(&l.saturating_sub(base)));
            if last_fits {
                let reason = Message::OverflowUnsplittable {
                    offset,
                    position: at,
                    base,
                };
                ctx.add(
                    "broker-will-not-start",
                    Nature::BrokerWillNotStart,
                    &seg.path,
                    Some(at),
                    Some(offset),
                    reason.clone(),
                );
                preview.load_failure.get_or_insert(LoadFailure {
                    file: seg.path.display().to_string(),
                    position: at,
                    reason,
                });
            }
        }
        // With the clean-shutdown credit the active segment is used unrecovered, and
        // LogLoader.recoverLog reads its end (LogSegment.readNextOffset), framing batches with
        // FileLogInputStream: bytes whose size field is below 14 there throw
        // CorruptRecordException out of the load (a zero-filled tail beside a marker that lies).
        if active && !recovered && !load_recovered {
            if let Some(at) = seg_facts.first_frame_problem {
                let thrown = src
                    .read_at(at, 17)
                    .ok()
                    .and_then(|h| crate::recovery::next_batch_throws(h, at, size));
                if let Some(declared) = thrown {
                    let reason = Message::MarkerBesideBadEnd {
                        position: at,
                        declared,
                    };
                    ctx.add(
                        "broker-will-not-start",
                        Nature::BrokerWillNotStart,
                        &seg.path,
                        Some(at),
                        None,
                        reason.clone(),
                    );
                    preview.load_failure = Some(LoadFailure {
                        file: seg.path.display().to_string(),
                        position: at,
                        reason,
                    });
                }
            }
        }
        if let Some(l) = seg_facts.max_last_offset {
            prev_last = Some(prev_last.map_or(l, |p| p.max(l)));
            smallest_last_offset = Some(smallest_last_offset.map_or(l, |s| s.min(l)));
        }
        if log_start.is_none() {
            log_start = Some(seg_facts.first_base_offset.map_or(base, |f| f.min(base)));
        }
        let seg_end = seg_facts
            .last_batch_last_offset
            .map(|l| l.saturating_add(1))
            .unwrap_or(base)
            .max(base);
        log_end = Some(log_end.map_or(seg_end, |e: i64| e.max(seg_end)));

        if seg_facts.batches > 0 {
            if index.is_none() && !index_created {
                if !deleted {
                    preview
                        .rebuilt_indexes
                        .push(format!("{} (offset index, missing)", seg.path.display()));
                }
                ctx.add(
                    "missing-index",
                    if active {
                        Nature::Normal
                    } else {
                        Nature::RepairedAtLoad
                    },
                    &seg.path,
                    None,
                    None,
                    Message::MissingOffsetIndex,
                );
            }
            if time_index.is_none() {
                if rebuilds_all && !deleted {
                    preview
                        .rebuilt_indexes
                        .push(format!("{} (time index, missing)", seg.path.display()));
                }
                ctx.add(
                    "missing-index",
                    if active {
                        Nature::Normal
                    } else {
                        Nature::RepairedAtLoad
                    },
                    &seg.path,
                    None,
                    None,
                    Message::MissingTimeIndex {
                        rebuilt: rebuilds_all,
                    },
                );
            }
        }
        // The indexes of a deleted segment are deleted with it, not rebuilt.
        if rebuilds_all && !deleted {
            for f in [index, time_index].into_iter().flatten() {
                preview.rebuilt_indexes.push(f.path.display().to_string());
            }
        }
        if let Some((path, bytes)) = &txn_index {
            files::check_txn_index(
                &mut ctx,
                path,
                bytes,
                base,
                &seg_facts.aborts,
                rebuilds_all,
                opts,
            );
        } else if !opts.sanity_only {
            let aborts = &seg_facts.aborts;
            let certain = aborts.iter().filter(|a| a.2).count();
            if let Some(first) = aborts.first() {
                ctx.add(
                    "txn-index-mismatch",
                    if certain == 0 {
                        Nature::Normal
                    } else if recovered {
                        Nature::RepairedAtLoad
                    } else {
                        Nature::DamagedData
                    },
                    &seg.path,
                    None,
                    Some(first.0),
                    Message::AbortsWithoutTxnIndex {
                        markers: aborts.len(),
                        certain,
                    },
                );
            }
        }
    }

    // LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd, after recoverLog: a log start offset
    // checkpoint beyond the log end deletes every segment.
    let wiped = match (checkpoints.log_start, end_after_load) {
        (Some(start), Some(end)) if end < start && views.iter().any(|v| !v.deleted) => {
            let mut segments = 0;
            for v in views.iter_mut().filter(|v| !v.deleted) {
                preview.deleted_segments.push(v.path.display().to_string());
                // ProducerStateManager.truncateFullyAndStartAt deletes every snapshot, the
                // ones its recovery wrote included.
                v.deleted = true;
                v.recovered = false;
                v.load_recovered = false;
                segments += 1;
            }
            preview.dropped_records += kept.0;
            preview.dropped_batches += kept.1;
            preview.dropped_bytes += kept.2;
            ctx.add(
                "log-start-beyond-end",
                Nature::DamagedData,
                &p.path,
                None,
                Some(start),
                Message::LogStartBeyondEnd {
                    log_start: start,
                    log_end: end,
                    segments,
                    records: kept.0,
                },
            );
            end_after_load = Some(start);
            true
        }
        _ => false,
    };
    let (certain, possible) = loss.runs(checkpoints.high_watermark);
    if let Some(c) = certain.filter(|_| !opts.sanity_only) {
        ctx.add(
            "acknowledged-loss",
            Nature::AcknowledgedLoss,
            &p.path,
            None,
            Some(c.first_offset),
            Message::AcknowledgedLoss {
                records: c.records,
                first_offset: c.first_offset,
                last_offset: c.last_offset,
                high_watermark: checkpoints.high_watermark.unwrap_or_default(),
            },
        );
    }
    preview.acknowledged_lost = certain;
    preview.possibly_acknowledged = possible;
    // Bytes at the log's end that frame no batch hide records whose offsets nothing tells:
    // acknowledged ones among them are lost too, whether or not any readable record is (the
    // high watermark checkpoint lags the acknowledgements by up to its interval).
    preview.unreadable_end = loss.open_end;
    if !opts.sanity_only && preview.load_failure.is_none() {
        producer_state(
            &mut ctx,
            &mut preview,
            &p.path,
            &views,
            &snapshots,
            &LoadParams {
                clean_shutdown,
                log_start_checkpoint: checkpoints.log_start.unwrap_or(0),
                log_end: end_after_load.unwrap_or(checkpoints.log_start.unwrap_or(0)),
                now_ms: None,
                expiration_ms: DEFAULT_PRODUCER_ID_EXPIRATION_MS,
                check_stale: !compacted,
            },
            &mut scratch,
        );
    }
    if !opts.sanity_only {
        for (path, bytes) in &snapshots {
            files::check_producer_snapshot(
                &mut ctx,
                path,
                bytes,
                log_end,
                &snapshot_found,
                smallest_last_offset,
            );
        }
        if let Some(end) = log_end {
            let start = checkpoints.log_start.or(log_start).unwrap_or(0);
            let checkpoint = loaded
                .iter()
                .find(|f| f.kind == FileKind::LeaderEpochCheckpoint)
                .map(|f| f.path.as_path());
            let is_partition_dir = p
                .path
                .file_name()
                .and_then(|n| parse_partition_dir(&n.to_string_lossy()))
                .is_some();
            // Kafka folds the cache at the log start offset checkpoint (0 when absent).
            let epoch_failure = files::check_leader_epochs(
                &mut ctx,
                &p.path,
                is_partition_dir,
                checkpoint,
                &epochs,
                checkpoints.log_start.unwrap_or(0),
                end,
            );
            if let (Some((position, reason)), Some(path)) = (epoch_failure, checkpoint) {
                preview.load_failure.get_or_insert(LoadFailure {
                    file: path.display().to_string(),
                    position,
                    reason,
                });
            }
            for (checkpoint, value) in [
                (CheckpointKind::RecoveryPoint, checkpoints.recovery_point),
                (CheckpointKind::LogStart, checkpoints.log_start),
                (CheckpointKind::HighWatermark, checkpoints.high_watermark),
            ] {
                let Some(v) = value else { continue };
                if wiped && checkpoint == CheckpointKind::LogStart {
                    continue;
                }
                if v > end {
                    ctx.add(
                        "checkpoint-range",
                        Nature::Tolerated,
                        &p.path,
                        None,
                        Some(v),
                        Message::CheckpointBeyondEnd {
                            checkpoint,
                            value: v,
                            log_end: end,
                        },
                    );
                } else if v < start && checkpoint != CheckpointKind::LogStart {
                    ctx.add(
                        "checkpoint-range",
                        Nature::Tolerated,
                        &p.path,
                        None,
                        Some(v),
                        Message::CheckpointBeforeStart {
                            checkpoint,
                            value: v,
                            log_start: start,
                        },
                    );
                }
            }
        }
    }
    ctx.finish();
    PartitionReport {
        partition: label,
        findings,
        recovery: (!opts.sanity_only).then_some(preview),
    }
}

/// Kafka's load of the partition's producer state (`producer_load`): the snapshots it keeps,
/// deletes and writes, and — an error — the aborted-transaction entries a stale snapshot makes
/// it write wrong.
#[allow(clippy::too_many_arguments)]
fn producer_state(
    ctx: &mut Findings<'_>,
    preview: &mut RecoveryPreview,
    dir: &Path,
    views: &[SegmentView],
    snapshots: &[(&Path, Vec<u8>)],
    params: &LoadParams,
    scratch: &mut RecordScratch,
) {
    let files: Vec<(i64, PathBuf)> = snapshots
        .iter()
        .filter_map(|(p, _)| {
            let name = p.file_name()?.to_string_lossy();
            Some((base_offset_of(&name)?, p.to_path_buf()))
        })
        .collect();
    let load = match producer_load::simulate(views, &files, params, scratch) {
        Ok(l) => l,
        Err(e) => {
            ctx.unreadable(dir, &e);
            return;
        }
    };
    for (offset, file) in &load.snapshots {
        match file {
            SnapshotFile::Input(_) => preview.producer_snapshots_kept.push(*offset),
            SnapshotFile::Written(_) => preview.producer_snapshots_written.push(*offset),
        }
    }
    preview.producer_snapshots_deleted = load.deleted.clone();
    for stale in &load.stale {
        let file = stale
            .snapshot
            .and_then(|s| files.iter().find(|(o, _)| *o == s))
            .map_or(dir, |(_, p)| p.as_path());
        ctx.add(
            "stale-producer-snapshot",
            Nature::DamagedData,
            file,
            None,
            Some(stale.marker_offset),
            Message::StaleSnapshot(stale.clone()),
        );
    }
}

/// The log dir level: the clean-shutdown marker.
pub fn verify_log_dir(facts: &LogDirFacts, findings: &mut Vec<Finding>) {
    if !facts.lock_holders.is_empty() {
        findings.push(Finding {
            check: "live-broker",
            severity: Nature::Normal.severity(),
            file: facts.path.join(".lock").display().to_string(),
            position: None,
            offset: None,
            message: Message::LiveBroker {
                pids: facts.lock_holders.clone(),
            },
        });
    }
    if !facts.clean_shutdown {
        findings.push(Finding {
            check: "no-clean-shutdown",
            severity: Nature::Normal.severity(),
            file: facts.path.display().to_string(),
            position: None,
            offset: None,
            message: Message::NoCleanShutdown,
        });
    }
    for (path, fault) in &facts.problems {
        findings.push(Finding {
            check: "checkpoint-range",
            severity: Nature::DamagedData.severity(),
            file: path.display().to_string(),
            position: None,
            offset: None,
            message: Message::UnreadableCheckpoint(fault.clone()),
        });
    }
    if let Some(marker) = &facts.incomplete_copy {
        findings.push(Finding {
            check: "incomplete-copy",
            severity: Nature::DamagedData.severity(),
            file: marker.display().to_string(),
            position: None,
            offset: None,
            message: Message::IncompleteCopy,
        });
    }
    for failure in &facts.checkpoint_failures {
        let nature = if failure.outcome.stops_log_dir() {
            Nature::BrokerWillNotStart
        } else {
            Nature::RepairedAtLoad
        };
        findings.push(Finding {
            check: "checkpoint-read",
            severity: nature.severity(),
            file: failure.path.display().to_string(),
            position: Some(failure.error.position as u64),
            offset: None,
            message: Message::CheckpointRead(failure.clone()),
        });
    }
}

/// An I/O error kept for a finding: its kind, OS code and text.
fn clone_io(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(e.kind(), e.to_string()),
    }
}

/// Segments given as loose files are verified as a one-segment partition.
pub fn loose_partition(path: &Path) -> PartitionDir {
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let base = name.split('.').next().unwrap_or_default().to_string();
    let files = ["log", "index", "timeindex", "txnindex"]
        .iter()
        .map(|ext| dir.join(format!("{base}.{ext}")))
        .filter(|p| p.exists())
        .map(|p| {
            let kind = kseg_storage::layout::classify_file(
                &p.file_name().unwrap_or_default().to_string_lossy(),
            );
            DataFile { path: p, kind }
        })
        .collect();
    PartitionDir {
        path: dir,
        name: kseg_storage::layout::PartitionName {
            topic: path.display().to_string(),
            partition: 0,
            state: kseg_storage::layout::PartitionState::Live,
        },
        files,
    }
}
