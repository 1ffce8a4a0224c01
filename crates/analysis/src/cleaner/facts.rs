//! A partition's segments and producers as the log cleaner sees them, from one walk of the
//! batch headers: each segment's size, mtime, index sizes, first batch's max timestamp
//! (`LogSegment.getFirstBatchTimestamp`), largest timestamp (`LogSegment.largestTimestamp`),
//! next offset, the first bytes Kafka's reader would refuse, and the producers' state
//! (`ProducerStateManager`: epoch, last data offset, last timestamp, open transaction).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use kseg_format::log::{LogEntry, LogWalker, WalkEvent};
use kseg_format::txn_index::{parse_txn_index, AbortedTxn};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::source::{open_log, read_small};

/// One segment.
#[derive(Debug, Clone)]
pub struct Segment {
    pub base: i64,
    pub log: PathBuf,
    /// `LogSegment.size`: the `.log`'s bytes.
    pub size: u64,
    /// `File.lastModified` of the `.log`, in ms.
    pub mtime_ms: i64,
    /// `offsetIndex().sizeInBytes()`: whole 8-byte entries.
    pub offset_index_bytes: u64,
    /// `timeIndex().sizeInBytes()`: whole 12-byte entries.
    pub time_index_bytes: u64,
    pub txn_index: Option<PathBuf>,
    /// The first batch's max timestamp.
    pub first_batch_timestamp: Option<i64>,
    /// The largest max timestamp of its batches (none: the broker takes the mtime).
    pub max_timestamp: Option<i64>,
    /// The offset after its last batch (`readNextOffset`); none when it holds no batch.
    pub next_offset: Option<i64>,
    /// Where Kafka's reader refuses its bytes: (byte position, what is wrong).
    pub unreadable: Option<(u64, String)>,
    /// A batch whose last offset is more than 2^31-1 past the base offset (an old segment
    /// Kafka must split): its base offset.
    pub overflow: Option<i64>,
}

impl Segment {
    /// `LogSegment.largestTimestamp`: the max timestamp, else the `.log` mtime.
    pub fn largest_timestamp(&self) -> i64 {
        match self.max_timestamp {
            Some(t) if t >= 0 => t,
            _ => self.mtime_ms,
        }
    }
}

/// One producer as `ProducerStateManager` holds it after loading the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Producer {
    pub epoch: i16,
    /// The last offset of its last data batch in the current epoch.
    pub last_data_offset: Option<i64>,
    /// The max timestamp of its last batch (data or marker).
    pub last_timestamp: i64,
    /// The first offset of its transaction with no marker yet.
    pub open_first: Option<i64>,
}

/// What the cleaner needs of one partition.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub segments: Vec<Segment>,
    pub producers: HashMap<i64, Producer>,
    /// The offset after the last batch of the log (the first segment's base when empty).
    pub log_end_offset: i64,
    /// Files that could not be read at all.
    pub unreadable_files: Vec<(PathBuf, String)>,
}

/// `File.lastModified`: milliseconds, 0 when unknown.
pub fn mtime_ms(path: &Path) -> i64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis().min(i64::MAX as u128) as i64)
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Walks the headers of every segment of `p`.
pub fn read_facts(p: &PartitionDir) -> Facts {
    let mut facts = Facts::default();
    let mut by_base: std::collections::BTreeMap<i64, Segment> = Default::default();
    let base_of = |path: &Path| {
        path.file_name()
            .and_then(|n| base_offset_of(&n.to_string_lossy()))
    };
    for f in &p.files {
        if f.kind == FileKind::Log {
            if let Some(base) = base_of(&f.path) {
                by_base.insert(
                    base,
                    Segment {
                        base,
                        log: f.path.clone(),
                        size: file_len(&f.path),
                        mtime_ms: mtime_ms(&f.path),
                        offset_index_bytes: 0,
                        time_index_bytes: 0,
                        txn_index: None,
                        first_batch_timestamp: None,
                        max_timestamp: None,
                        next_offset: None,
                        unreadable: None,
                        overflow: None,
                    },
                );
            }
        }
    }
    for f in &p.files {
        let Some(s) = base_of(&f.path).and_then(|b| by_base.get_mut(&b)) else {
            continue;
        };
        match f.kind {
            FileKind::OffsetIndex => s.offset_index_bytes = file_len(&f.path) / 8 * 8,
            FileKind::TimeIndex => s.time_index_bytes = file_len(&f.path) / 12 * 12,
            FileKind::TxnIndex => s.txn_index = Some(f.path.clone()),
            _ => {}
        }
    }
    facts.segments = by_base.into_values().collect();
    let mut end = facts.segments.first().map_or(0, |s| s.base);
    for s in facts.segments.iter_mut() {
        if let Err(e) = walk_headers(s, &mut facts.producers) {
            facts.unreadable_files.push((s.log.clone(), e.to_string()));
        }
        end = end.max(s.next_offset.unwrap_or(s.base));
    }
    facts.log_end_offset = end;
    facts
}

/// One segment's batch headers: its facts, and the producers' state advanced over them.
fn walk_headers(s: &mut Segment, producers: &mut HashMap<i64, Producer>) -> io::Result<()> {
    let mut src = open_log(&s.log, false)?;
    let mut walker = LogWalker::new(u64::MAX).with_crc_check(false);
    while let Some(event) = walker.next(src.as_mut())? {
        let (position, bytes) = match event {
            WalkEvent::Entry { position, bytes } => (position, bytes),
            WalkEvent::Corrupt {
                position, reason, ..
            } => {
                s.unreadable.get_or_insert((position, reason.to_string()));
                continue;
            }
            WalkEvent::Tail {
                position,
                length,
                kind,
            } => {
                s.unreadable
                    .get_or_insert((position, kind.describe(length)));
                continue;
            }
        };
        let info = match LogEntry::parse(bytes) {
            Ok(e) => e.info_with_crc(Some(true)),
            Err(e) => {
                s.unreadable
                    .get_or_insert((position, e.message.to_string()));
                continue;
            }
        };
        if s.first_batch_timestamp.is_none() {
            s.first_batch_timestamp = Some(info.max_timestamp);
        }
        s.max_timestamp = Some(
            s.max_timestamp
                .map_or(info.max_timestamp, |m| m.max(info.max_timestamp)),
        );
        s.next_offset = Some(info.last_offset.saturating_add(1));
        if info.last_offset.saturating_sub(s.base) > i32::MAX as i64 && s.overflow.is_none() {
            s.overflow = Some(info.base_offset);
        }
        if info.producer_id < 0 {
            continue;
        }
        // ProducerAppendInfo: a new epoch drops the batch metadata of the old one.
        let entry = producers.entry(info.producer_id).or_insert(Producer {
            epoch: info.producer_epoch,
            last_data_offset: None,
            last_timestamp: info.max_timestamp,
            open_first: None,
        });
        if info.producer_epoch != entry.epoch {
            entry.epoch = info.producer_epoch;
            entry.last_data_offset = None;
        }
        entry.last_timestamp = info.max_timestamp;
        if info.is_control {
            entry.open_first = None;
        } else {
            entry.last_data_offset = Some(info.last_offset);
            if info.is_transactional && entry.open_first.is_none() {
                entry.open_first = Some(info.base_offset);
            }
        }
    }
    Ok(())
}

/// A segment's `.txnindex` entries (a missing or unreadable one is empty, as Kafka's).
pub fn txn_entries(s: &Segment) -> Vec<AbortedTxn> {
    let Some(path) = &s.txn_index else {
        return Vec::new();
    };
    let Ok(bytes) = read_small(path, 64 << 20) else {
        return Vec::new();
    };
    parse_txn_index(&bytes).0.into_iter().flatten().collect()
}

/// `LocalLog.collectAbortedTransactions(logStartOffset, base, upper)`: from the segment holding
/// `base` on, the entries whose last offset is at or after the log start offset (Kafka passes
/// the log start, not `base`) and whose first offset is below `upper`, until a segment holds an
/// entry whose last stable offset reaches `upper` (entries after it in that index are not
/// taken).
pub fn collect_aborted(
    segments: &[Segment],
    txn: &mut dyn FnMut(usize) -> Vec<AbortedTxn>,
    log_start: i64,
    base: i64,
    upper: i64,
) -> Vec<AbortedTxn> {
    let mut out = Vec::new();
    let Some(first) = floor_segment(segments, base) else {
        return out;
    };
    for i in first..segments.len() {
        for t in txn(i) {
            if t.last_offset >= log_start && t.first_offset < upper {
                out.push(t);
            }
            if t.last_stable_offset >= upper {
                return out;
            }
        }
    }
    out
}

/// The index of the segment holding `offset` (the last whose base is at or below it).
pub fn floor_segment(segments: &[Segment], offset: i64) -> Option<usize> {
    segments
        .partition_point(|s| s.base <= offset)
        .checked_sub(1)
}

/// `LogSegments.values(from, to)`: the segments overlapping `[from, to)`, from the one holding
/// `from` (or the first at or after it) to the last based below `to`.
pub fn segments_in(segments: &[Segment], from: i64, to: i64) -> std::ops::Range<usize> {
    if from == to {
        return 0..0;
    }
    let start = floor_segment(segments, from).unwrap_or(0);
    let end = segments.partition_point(|s| s.base < to);
    start..end.max(start)
}
