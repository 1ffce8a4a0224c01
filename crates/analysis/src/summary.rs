//! Per-partition summary: what a shallow scan of every segment tells about a partition, set
//! against the log dir's checkpoint files.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::checkpoint_read::RootCheckpointFailure;
use crate::fault::FileFault;
use crate::recovery::always_recovered;
use crate::severity::{log_damage, LogDamage, Nature, Severity};
use kseg_format::log::{BatchInfo, ByteSource, LogEntry, PieceCutter, RecordScratch};
use kseg_format::reader::DecodeError;
use kseg_format::text_files::{read_checkpoint_as_kafka, CheckpointEntry};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions, ScanStats};
use kseg_storage::discover::{LogDir, PartitionDir};
use kseg_storage::layout::{base_offset_of, FileKind, PartitionState};
use kseg_storage::source::{open_log, open_offset_index_of, open_sparse, read_small, vanished};

/// The offsets a log dir's checkpoint files record for one partition.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoints {
    pub recovery_point: Option<i64>,
    pub log_start: Option<i64>,
    pub high_watermark: Option<i64>,
}

/// Facts about a log dir root, shared by its partitions.
#[derive(Debug, Default, Clone)]
pub struct LogDirFacts {
    pub path: PathBuf,
    pub clean_shutdown: bool,
    pub checkpoints: BTreeMap<(String, i32), Checkpoints>,
    /// Checkpoint files that could not be read, and why.
    pub problems: Vec<(PathBuf, FileFault)>,
    /// Root checkpoint files Kafka's `CheckpointFile` fails to read, and what Kafka then does.
    pub checkpoint_failures: Vec<RootCheckpointFailure>,
    /// `kseg recover`'s incomplete-copy marker: the dir is a copy it did not finish.
    pub incomplete_copy: Option<PathBuf>,
    /// Topics whose `cleanup.policy` includes `compact`, when a `__cluster_metadata` partition
    /// among the inputs says so.
    pub compacted_topics: std::collections::HashSet<String>,
    /// The log configs `__cluster_metadata` records (topic configs, cluster defaults).
    pub log_configs: crate::topic_configs::LogConfigs,
    /// Processes holding the log dir's `.lock`: a broker is running on it.
    pub lock_holders: Vec<u32>,
}

pub fn log_dir_facts(dir: &LogDir) -> LogDirFacts {
    use crate::verify::CheckpointKind as Kind;
    let mut facts = LogDirFacts {
        path: dir.path.clone(),
        ..Default::default()
    };
    for f in &dir.files {
        let (kind, slot): (Kind, fn(&mut Checkpoints) -> &mut Option<i64>) = match f.kind {
            FileKind::CleanShutdown => {
                facts.clean_shutdown = true;
                continue;
            }
            FileKind::Lock => {
                facts.lock_holders = kseg_storage::source::lock_holders(&f.path);
                continue;
            }
            FileKind::IncompleteCopy => {
                facts.incomplete_copy = Some(f.path.clone());
                continue;
            }
            FileKind::RecoveryPointCheckpoint => (Kind::RecoveryPoint, |c| &mut c.recovery_point),
            FileKind::LogStartOffsetCheckpoint => (Kind::LogStart, |c| &mut c.log_start),
            FileKind::ReplicationOffsetCheckpoint => {
                (Kind::HighWatermark, |c| &mut c.high_watermark)
            }
            _ => continue,
        };
        let bytes = match read_small(&f.path, 64 << 20) {
            Ok(b) => b,
            Err(e) => {
                facts.problems.push((f.path.clone(), FileFault::io(e)));
                continue;
            }
        };
        // As CheckpointFile.read: the entries count only when the whole file reads.
        let mut entries = Vec::new();
        match read_checkpoint_as_kafka(&bytes, false, |e| entries.push(e)) {
            Ok(_) => {
                for e in entries {
                    if let CheckpointEntry::Partition {
                        topic,
                        partition,
                        offset,
                    } = e
                    {
                        *slot(facts.checkpoints.entry((topic, partition)).or_default()) =
                            Some(offset);
                    }
                }
            }
            Err(error) => facts.checkpoint_failures.push(RootCheckpointFailure::new(
                f.path.clone(),
                kind,
                error,
            )),
        }
    }
    facts
}

/// What a partition dir occupies on disk, as `du` counts it (allocated blocks: a preallocated,
/// sparse index counts what it holds, not its length), by kind of file: a full disk is the
/// segments and also their indexes, the producer snapshots, the files Kafka is about to delete
/// (`.deleted`), the cleaner's output (`.cleaned`, `.swap`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskBytes {
    pub log: u64,
    /// `.index`, `.timeindex`, `.txnindex`.
    pub indexes: u64,
    /// `.snapshot` (producer state).
    pub snapshots: u64,
    pub deleted: u64,
    pub cleaned: u64,
    pub swap: u64,
    /// Everything else: checkpoints, `partition.metadata`, temporary files, the dir itself.
    pub other: u64,
}

impl DiskBytes {
    pub fn total(&self) -> u64 {
        self.log
            + self.indexes
            + self.snapshots
            + self.deleted
            + self.cleaned
            + self.swap
            + self.other
    }

    /// The blocks `p`'s files and dir hold (files not followed through symlinks; a file gone
    /// since it was listed counts nothing).
    pub fn of(p: &PartitionDir) -> DiskBytes {
        use std::os::unix::fs::MetadataExt;
        let on_disk = |path: &Path| std::fs::symlink_metadata(path).map_or(0, |m| m.blocks() * 512);
        let mut d = DiskBytes {
            other: on_disk(&p.path),
            ..DiskBytes::default()
        };
        for f in &p.files {
            let n = on_disk(&f.path);
            let slot = match &f.kind {
                FileKind::Log => &mut d.log,
                FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex => &mut d.indexes,
                FileKind::ProducerSnapshot => &mut d.snapshots,
                FileKind::Deleted(_) => &mut d.deleted,
                FileKind::Cleaned(_) => &mut d.cleaned,
                FileKind::Swap(_) => &mut d.swap,
                _ => &mut d.other,
            };
            *slot += n;
        }
        d
    }
}

impl LogDirFacts {
    /// The first root checkpoint failure that stops Kafka from serving this log dir.
    pub fn stopping_failure(&self) -> Option<&RootCheckpointFailure> {
        self.checkpoint_failures
            .iter()
            .find(|f| f.outcome.stops_log_dir())
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartitionSummary {
    pub path: PathBuf,
    pub log_dir: Option<PathBuf>,
    pub topic: String,
    pub partition: i32,
    pub state: Option<PartitionState>,
    pub segments: u64,
    /// The `.log` segments' lengths.
    pub bytes: u64,
    /// What the partition dir occupies on disk, every file and the dir itself, by kind.
    pub disk: DiskBytes,
    pub log_start_offset: Option<i64>,
    pub log_end_offset: Option<i64>,
    pub batches: u64,
    pub records: u64,
    pub first_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
    pub magics: BTreeMap<i8, u64>,
    pub codecs: BTreeMap<&'static str, u64>,
    pub producer_ids: BTreeSet<i64>,
    pub transactional_batches: u64,
    pub control_batches: u64,
    pub crc_errors: u64,
    pub invalid_bytes: u64,
    pub problems: u64,
    pub clean_shutdown: Option<bool>,
    pub checkpoints: Checkpoints,
    /// What is noted about the partition (checkpoints beyond the log end, ...), worded by the
    /// printer.
    pub warnings: Vec<SummaryNote>,
    /// The worst severity of the damage found (the one severity policy), if any.
    pub severity: Option<Severity>,
}

/// Which checkpoint a [`SummaryNote::CheckpointBeyondEnd`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointKind {
    HighWatermark,
    RecoveryPoint,
    LogStart,
}

/// One thing `summary` notes about a partition.
#[derive(Debug, Clone)]
pub enum SummaryNote {
    /// The largest timestamp is after the time of the run.
    FutureTimestamp { max: i64, now: i64 },
    /// A framed entry of `file` that does not decode.
    BadEntry {
        file: PathBuf,
        batch_position: u64,
        error: DecodeError,
    },
    /// More undecodable entries in `file` than are listed one by one.
    MoreBadEntries {
        file: PathBuf,
        more: u64,
        listed: u64,
    },
    /// A segment gone since it was listed (a live broker's retention): skipped.
    Vanished { file: PathBuf },
    /// A segment that could not be opened.
    CannotRead {
        file: PathBuf,
        error: Arc<io::Error>,
    },
    /// Reading a segment failed during its scan.
    ReadError {
        file: PathBuf,
        error: Arc<io::Error>,
    },
    /// A checkpoint's offset beyond the log end offset.
    CheckpointBeyondEnd {
        checkpoint: CheckpointKind,
        value: i64,
        log_end: i64,
    },
    /// `.swap` files of an interrupted compaction or split.
    SwapFiles(usize),
    /// `.deleted`/`.cleaned` leftovers Kafka's load deletes.
    StrayFiles(usize),
    /// Batches failing their CRC.
    CrcErrors(u64),
    /// Bytes that frame no batch (a torn tail or corruption).
    InvalidBytes(u64),
    /// Kafka's next retention check is held back (`kseg retention` says why in full).
    RetentionBlocked(crate::retention::Blocker),
}

/// Notes on the rows whose partitions' retention is blocked (by path), from a retention plan
/// over the same inputs.
/// Notes a partition whose largest timestamp is after `now`: time-based retention measures a
/// segment's age from its largest timestamp, so nothing up to that record is deleted by age
/// until then.
pub fn note_future_timestamps(rows: &mut [PartitionSummary], now: i64) {
    for r in rows {
        if let Some(max) = r.last_timestamp.filter(|&m| m > now) {
            r.warnings.push(SummaryNote::FutureTimestamp { max, now });
        }
    }
}

pub fn note_retention(rows: &mut [PartitionSummary], plan: &crate::retention::RetentionReport) {
    for p in &plan.partitions {
        let Some(row) = rows.iter_mut().find(|r| r.path == p.path) else {
            continue;
        };
        for b in &p.blocked_by {
            row.warnings.push(SummaryNote::RetentionBlocked(b.clone()));
        }
    }
}

/// Undecodable entries named one by one per segment; more are counted in one line.
const BAD_ENTRIES_LISTED: u64 = 10;

struct Collect<'a> {
    s: &'a mut PartitionSummary,
    file: &'a Path,
    /// The partition's last segment, and whether Kafka's next load recovers it.
    active: bool,
    recovered: bool,
    bad_entries: u64,
    first_in_segment: Option<i64>,
    last_offset: Option<i64>,
}

impl LogSink for Collect<'_> {
    fn batch(&mut self, _position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let s = &mut *self.s;
        s.batches += 1;
        // No count: a compressed legacy wrapper that cannot be decoded (reported as a problem),
        // whose records are unknown.
        s.records += b.count.unwrap_or(0).max(0) as u64;
        *s.magics.entry(b.magic).or_default() += 1;
        *s.codecs.entry(b.codec.name()).or_default() += 1;
        if b.producer_id >= 0 {
            s.producer_ids.insert(b.producer_id);
        }
        s.transactional_batches += b.is_transactional as u64;
        s.control_batches += b.is_control as u64;
        if b.first_timestamp >= 0 {
            s.first_timestamp = Some(
                s.first_timestamp
                    .map_or(b.first_timestamp, |t| t.min(b.first_timestamp)),
            );
        }
        if b.max_timestamp >= 0 {
            s.last_timestamp = Some(
                s.last_timestamp
                    .map_or(b.max_timestamp, |t| t.max(b.max_timestamp)),
            );
        }
        self.first_in_segment.get_or_insert(b.base_offset);
        self.last_offset = Some(
            self.last_offset
                .map_or(b.last_offset, |l| l.max(b.last_offset)),
        );
        Ok(Flow::Continue)
    }

    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        let nature = log_damage(LogDamage::of(problem), self.active, self.recovered);
        self.s.grade(nature);
        // Corrupt regions and tails are summed up as invalid bytes; an entry that frames but
        // does not decode (a compressed v1 wrapper with a broken value) is named.
        if let LogProblem::BadEntry {
            batch_position,
            error,
        } = problem
        {
            self.bad_entries += 1;
            if self.bad_entries <= BAD_ENTRIES_LISTED {
                self.s.warnings.push(SummaryNote::BadEntry {
                    file: self.file.to_path_buf(),
                    batch_position: *batch_position,
                    error: (*error).clone(),
                });
            }
        }
        Ok(Flow::Continue)
    }
}

impl PartitionSummary {
    fn grade(&mut self, nature: Nature) {
        self.severity = self.severity.max(Some(nature.severity()));
    }

    /// Adds what [`Collect`] gathered from a later piece of the same segment (`bad_listed`: the
    /// segment's bad entries listed so far, against [`BAD_ENTRIES_LISTED`]).
    fn add_piece(&mut self, piece: PartitionSummary, bad_listed: &mut u64) {
        self.batches += piece.batches;
        self.records += piece.records;
        for (magic, n) in piece.magics {
            *self.magics.entry(magic).or_default() += n;
        }
        for (codec, n) in piece.codecs {
            *self.codecs.entry(codec).or_default() += n;
        }
        self.producer_ids.extend(piece.producer_ids);
        self.transactional_batches += piece.transactional_batches;
        self.control_batches += piece.control_batches;
        self.first_timestamp = min_some(self.first_timestamp, piece.first_timestamp);
        self.last_timestamp = self.last_timestamp.max(piece.last_timestamp);
        self.severity = self.severity.max(piece.severity);
        for w in piece.warnings {
            if *bad_listed < BAD_ENTRIES_LISTED {
                *bad_listed += 1;
                self.warnings.push(w);
            }
        }
    }
}

fn min_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Segments larger than this are scanned in pieces of about this size, in parallel when the
/// thread pool has more than one thread (`--threads`): one large segment keeps both cores busy.
pub const SPLIT_BYTES: u64 = 32 << 20;

/// Scans one segment into `s`: its scan counts, last offset and bad entries. A large one is cut
/// into pieces (`format::log::PieceCutter`: at its offset index's positions, else where its
/// frames step), scanned on the pool and added in order up to the first whose walk did not land
/// on its end and went on to the end of the file (the pieces after it are void): the same sums,
/// extremes and listed notes as one walk.
fn scan_segment(
    src: &mut dyn ByteSource,
    (file, mmap): (&Path, bool),
    (active, recovered): (bool, bool),
    split: u64,
    s: &mut PartitionSummary,
    scratch: &mut RecordScratch,
) -> io::Result<(ScanStats, Option<i64>, u64)> {
    let piece = |s: &mut PartitionSummary,
                 src: &mut dyn ByteSource,
                 (start, end): (u64, Option<u64>),
                 scratch: &mut RecordScratch| {
        let mut sink = Collect {
            s,
            file,
            active,
            recovered,
            bad_entries: 0,
            first_in_segment: None,
            last_offset: None,
        };
        let opts = ScanOptions {
            start_position: start,
            stop_at: end,
            ..ScanOptions::default()
        };
        let stats = scan_log(src, &opts, scratch, &mut sink)?;
        Ok::<_, io::Error>((stats, sink.last_offset, sink.bad_entries))
    };
    if rayon::current_num_threads() <= 1 || src.len() <= split {
        return piece(s, src, (0, None), scratch);
    }
    // Each piece goes to the pool as soon as its end is found, while the cutting goes on.
    type Scanned = io::Result<(PartitionSummary, (ScanStats, Option<i64>, u64))>;
    let slots: Mutex<Vec<Option<Scanned>>> = Mutex::new(Vec::new());
    let cap = scratch.decompressor.max_output;
    let mut cutter = PieceCutter::new(0, true);
    // Where the first piece that went on past its end starts: the pieces after it are skipped.
    let ran_past_from = AtomicU64::new(u64::MAX);
    rayon::scope(|pool| -> io::Result<()> {
        // Opened here: a source is not `Send`.
        let mut sparse = open_sparse(file)?;
        let mut index = open_offset_index_of(file);
        let mut start = 0;
        loop {
            if ran_past_from.load(Ordering::SeqCst) < start {
                return Ok(());
            }
            let end = cutter.next_cut(sparse.as_mut(), index.as_deref_mut(), split)?;
            let j = {
                let mut slots = slots.lock().unwrap_or_else(|e| e.into_inner());
                slots.push(None);
                slots.len() - 1
            };
            let (slots, piece, ran_past_from) = (&slots, &piece, &ran_past_from);
            pool.spawn(move |_| {
                if ran_past_from.load(Ordering::SeqCst) < start {
                    return;
                }
                let scanned = (|| {
                    let mut part = PartitionSummary::default();
                    let mut src = open_log(file, mmap)?;
                    let mut scratch = RecordScratch::with_cap(cap);
                    let scanned = piece(&mut part, src.as_mut(), (start, end), &mut scratch)?;
                    if scanned.0.ran_past_cut {
                        ran_past_from.fetch_min(start, Ordering::SeqCst);
                    }
                    Ok((part, scanned))
                })();
                slots.lock().unwrap_or_else(|e| e.into_inner())[j] = Some(scanned);
            });
            match end {
                Some(e) => start = e,
                None => return Ok(()),
            }
        }
    })?;
    let pieces = slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        // Only a piece after one that ran past its end is left empty.
        .map_while(|slot| slot);
    let mut total = ScanStats::default();
    let mut last = None;
    let mut bad = 0;
    let mut bad_listed = 0;
    for result in pieces {
        let (part, (stats, piece_last, piece_bad)) = result?;
        let ran_past_cut = stats.ran_past_cut;
        s.add_piece(part, &mut bad_listed);
        total.crc_errors += stats.crc_errors;
        total.invalid_bytes += stats.invalid_bytes;
        total.problems += stats.problems;
        last = last.max(piece_last);
        bad += piece_bad;
        if ran_past_cut {
            // It walked the later pieces' bytes itself.
            break;
        }
    }
    Ok((total, last, bad))
}

/// Scans every segment of a partition (headers and CRCs only).
pub fn summarize_partition(
    p: &PartitionDir,
    facts: Option<&LogDirFacts>,
    mmap: bool,
    scratch: &mut RecordScratch,
) -> PartitionSummary {
    summarize_in_pieces(p, facts, mmap, scratch, SPLIT_BYTES)
}

/// [`summarize_partition`], segments larger than `split` bytes scanned in pieces.
fn summarize_in_pieces(
    p: &PartitionDir,
    facts: Option<&LogDirFacts>,
    mmap: bool,
    scratch: &mut RecordScratch,
    split: u64,
) -> PartitionSummary {
    let mut s = PartitionSummary {
        path: p.path.clone(),
        log_dir: facts.map(|f| f.path.clone()),
        topic: p.name.topic.clone(),
        partition: p.name.partition,
        state: Some(p.name.state),
        clean_shutdown: facts.map(|f| f.clean_shutdown),
        disk: DiskBytes::of(p),
        ..Default::default()
    };
    if let Some(f) = facts {
        s.checkpoints = f
            .checkpoints
            .get(&(p.name.topic.clone(), p.name.partition))
            .copied()
            .unwrap_or_default();
    }
    let mut last_segment_base = None;
    let mut last_offset: Option<i64> = None;
    // Kafka's next load recovers the active segment without a clean-shutdown marker (and the
    // metadata log's always); a partition alone is read as after a crash, as verify-index does.
    let recovered = always_recovered(&p.name.topic, p.name.partition)
        || facts.is_none_or(|f| !f.clean_shutdown);
    let logs = p.files.iter().filter(|f| f.kind == FileKind::Log).count();
    for (i, file) in p
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .enumerate()
    {
        s.segments += 1;
        let name = file
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let base = base_offset_of(&name);
        last_segment_base = base.or(last_segment_base);
        if s.log_start_offset.is_none() {
            s.log_start_offset = base;
        }
        let mut src = match open_log(&file.path, mmap) {
            Ok(src) => src,
            Err(e) if vanished(&file.path, &e) => {
                s.warnings.push(SummaryNote::Vanished {
                    file: file.path.clone(),
                });
                continue;
            }
            Err(e) => {
                s.problems += 1;
                s.grade(Nature::Unreadable);
                s.warnings.push(SummaryNote::CannotRead {
                    file: file.path.clone(),
                    error: Arc::new(e),
                });
                continue;
            }
        };
        s.bytes += src.len();
        let active = i + 1 == logs;
        let scanned = scan_segment(
            src.as_mut(),
            (&file.path, mmap),
            (active, recovered),
            split,
            &mut s,
            scratch,
        );
        match scanned {
            Ok((stats, seg_last, bad_entries)) => {
                if bad_entries > BAD_ENTRIES_LISTED {
                    s.warnings.push(SummaryNote::MoreBadEntries {
                        file: file.path.clone(),
                        more: bad_entries - BAD_ENTRIES_LISTED,
                        listed: BAD_ENTRIES_LISTED,
                    });
                }
                s.crc_errors += stats.crc_errors;
                if stats.crc_errors > 0 {
                    s.grade(log_damage(LogDamage::Crc, i + 1 == logs, recovered));
                }
                s.invalid_bytes += stats.invalid_bytes;
                s.problems += stats.problems;
                if let Some(l) = seg_last {
                    last_offset = Some(last_offset.map_or(l, |x: i64| x.max(l)));
                }
            }
            Err(e) => {
                s.problems += 1;
                s.grade(Nature::Unreadable);
                s.warnings.push(SummaryNote::ReadError {
                    file: file.path.clone(),
                    error: Arc::new(e),
                });
            }
        }
    }
    // The log end offset is one past the last batch, or the active segment's base when empty.
    s.log_end_offset = match (last_offset, last_segment_base) {
        (Some(l), Some(b)) => Some(l.saturating_add(1).max(b)),
        (Some(l), None) => Some(l.saturating_add(1)),
        (None, b) => b,
    };
    // Bytes recovery drops at the end of the log while the high watermark says records up to
    // it were acknowledged: acknowledged records lost, not a crash's harmless tail.
    if let (Some(hw), Some(end)) = (s.checkpoints.high_watermark, s.log_end_offset) {
        if hw > end && s.invalid_bytes > 0 && recovered {
            s.grade(Nature::AcknowledgedLoss);
        }
    }
    if let (Some(ckpt), Some(start)) = (s.checkpoints.log_start, s.log_start_offset) {
        if ckpt > start {
            s.log_start_offset = Some(ckpt);
        }
    }
    if let Some(end) = s.log_end_offset {
        for (checkpoint, value) in [
            (CheckpointKind::HighWatermark, s.checkpoints.high_watermark),
            (CheckpointKind::RecoveryPoint, s.checkpoints.recovery_point),
            (CheckpointKind::LogStart, s.checkpoints.log_start),
        ] {
            if let Some(value) = value {
                if value > end {
                    s.warnings.push(SummaryNote::CheckpointBeyondEnd {
                        checkpoint,
                        value,
                        log_end: end,
                    });
                }
            }
        }
    }
    // Leftovers Kafka's load acts on (verify-index says exactly what it does with them).
    let swaps = p
        .files
        .iter()
        .filter(|f| matches!(f.kind, FileKind::Swap(_)))
        .count();
    let strays = p
        .files
        .iter()
        .filter(|f| match &f.kind {
            FileKind::Cleaned(_) => true,
            FileKind::Deleted(inner) => !matches!(**inner, FileKind::KraftSnapshot { .. }),
            _ => false,
        })
        .count();
    if swaps > 0 {
        s.warnings.push(SummaryNote::SwapFiles(swaps));
    }
    if strays > 0 {
        s.warnings.push(SummaryNote::StrayFiles(strays));
    }
    if s.crc_errors > 0 {
        s.warnings.push(SummaryNote::CrcErrors(s.crc_errors));
    }
    if s.invalid_bytes > 0 {
        s.warnings.push(SummaryNote::InvalidBytes(s.invalid_bytes));
    }
    s
}

/// Summaries for loose segment files given directly: one row per file.
pub fn summarize_file(path: &Path, mmap: bool, scratch: &mut RecordScratch) -> PartitionSummary {
    let p = PartitionDir {
        path: path.to_path_buf(),
        name: kseg_storage::layout::PartitionName {
            topic: path.display().to_string(),
            partition: -1,
            state: PartitionState::Live,
        },
        files: vec![kseg_storage::discover::DataFile {
            path: path.to_path_buf(),
            kind: FileKind::Log,
        }],
    };
    let mut s = summarize_partition(&p, None, mmap, scratch);
    s.state = None;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_storage::discover::DataFile;
    use kseg_storage::layout::{PartitionName, PartitionState};

    fn partition(dir: &Path, segment: &str) -> PartitionDir {
        PartitionDir {
            path: dir.to_path_buf(),
            name: PartitionName {
                topic: "orders".into(),
                partition: 0,
                state: PartitionState::Live,
            },
            files: vec![DataFile {
                path: dir.join(segment),
                kind: FileKind::Log,
            }],
        }
    }

    /// A segment listed by discovery and deleted before it is read (a live broker's retention)
    /// is skipped with a note; a dangling symlink in its place is a problem.
    #[test]
    fn a_segment_gone_since_it_was_listed_is_not_a_problem() {
        let t = tempfile::tempdir().unwrap();
        let gone = partition(t.path(), "00000000000000000000.log");
        let s = summarize_partition(&gone, None, false, &mut RecordScratch::default());
        assert_eq!(s.problems, 0, "{:?}", s.warnings);
        assert!(
            s.warnings
                .iter()
                .any(|w| matches!(w, SummaryNote::Vanished { .. })),
            "{:?}",
            s.warnings
        );

        std::os::unix::fs::symlink(
            t.path().join("nowhere"),
            t.path().join("00000000000000000100.log"),
        )
        .unwrap();
        let dangling = partition(t.path(), "00000000000000000100.log");
        let s = summarize_partition(&dangling, None, false, &mut RecordScratch::default());
        assert_eq!(s.problems, 1, "{:?}", s.warnings);
    }

    /// A segment scanned in pieces on two threads sums up as one walk over it: counts,
    /// extremes, producers, damage and its notes (a bad CRC mid-file, a torn tail).
    #[test]
    fn a_segment_in_pieces_sums_up_as_one_walk() {
        let t = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/example-datadir/orders-0/00000000000000000000.log");
        let mut log = std::fs::read(src).unwrap();
        let n = log.len();
        // Every frame's start, for an offset index that guesses the cuts.
        let mut starts = Vec::new();
        let mut at = 0;
        while at + 12 <= n {
            starts.push(at);
            at += 12 + i32::from_be_bytes(log[at + 8..at + 12].try_into().unwrap()) as usize;
        }
        assert!(starts.len() > 4);
        log[n / 2] ^= 0x40;
        log.truncate(n - 9);
        std::fs::write(t.path().join("00000000000000000000.log"), &log).unwrap();
        let p = partition(t.path(), "00000000000000000000.log");
        let summary = |threads: usize, split: u64| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let s = summarize_in_pieces(&p, None, false, &mut RecordScratch::default(), split);
                format!("{s:?}")
            })
        };
        let one = summary(1, 1);
        assert!(one.contains("crc_errors: 1"), "{one}");
        for split in [1, 300, 2000] {
            assert_eq!(summary(2, split), one, "split {split}");
        }
        // Cut at an offset index's positions: every frame's start, and one inside a frame.
        // Then with the second batch's size too small, a corrupt stretch before later cuts.
        let mut index = Vec::new();
        for (i, &start) in starts.iter().enumerate().skip(1) {
            index.extend((i as u32).to_be_bytes());
            index.extend((start as u32).to_be_bytes());
            if i == 2 {
                index.extend((i as u32).to_be_bytes());
                index.extend((start as u32 + 20).to_be_bytes());
            }
        }
        std::fs::write(t.path().join("00000000000000000000.index"), &index).unwrap();
        for split in [1, 300, 2000] {
            assert_eq!(summary(2, split), one, "indexed, split {split}");
        }
        log[starts[1] + 8..starts[1] + 12].copy_from_slice(&5i32.to_be_bytes());
        std::fs::write(t.path().join("00000000000000000000.log"), &log).unwrap();
        let one = summary(1, 1);
        assert!(one.contains("problems: 2"), "{one}");
        for split in [1, 300, 2000] {
            assert_eq!(summary(2, split), one, "indexed, damaged, split {split}");
        }
    }
}
