//! `kseg compact --out NEWDIR`: the log dir as Kafka 4.4 leaves it after each partition's next
//! pass. A group of segments becomes one segment at the group's base offset whose `.log` holds
//! the batches the pass writes, `.index` and `.timeindex` entries as `LogSegment.append` adds
//! them (one per batch once `index.interval.bytes` have been written since the last, the time
//! index's last entry added when the segment becomes inactive), the `.txnindex` entries of the
//! ABORT markers kept, and the mtime of the group's last segment (`setLastModified`); the
//! producer snapshots of segments merged away go (`deleteProducerSnapshots`); the log dir's
//! `cleaner-offset-checkpoint` takes each pass's end offset. Everything else is copied with its
//! mtime. The input is only read.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use kseg_format::java_order::{topic_partition_hash, JavaHashMapOrder};
use kseg_format::log::{BatchInfo, LogEntry};
use kseg_format::text_files::{encode_offset_checkpoint, CheckpointEntry};
use kseg_format::txn_index::AbortedTxn;
use kseg_storage::discover::LogDir;
use kseg_storage::layout::{base_offset_of, FileKind};

use super::facts::Segment;
use super::pass::PassSink;
use super::{run_pass, CompactionReport, DirtyStart};
use crate::fault::read_checkpoint;
use crate::topic_configs::BrokerLogConfig;

/// The cleaned segment being written.
struct Cleaned {
    base: i64,
    mtime: i64,
    log: BufWriter<File>,
    position: u64,
    since_index: u64,
    offset_index: Vec<u8>,
    time_index: Vec<u8>,
    last_time: i64,
    max_timestamp: i64,
    max_timestamp_offset: i64,
    txn_index: Vec<u8>,
}

/// Writes one partition's cleaned segments into `dir`.
pub struct SegmentWriter {
    dir: PathBuf,
    index_interval: u64,
    current: Option<Cleaned>,
    /// Base offsets of the segments replaced (every segment of every group).
    pub replaced: Vec<i64>,
    /// Base offsets of the segments merged into an earlier one (their snapshots go).
    pub merged_away: Vec<i64>,
}

impl SegmentWriter {
    pub fn new(dir: &Path, index_interval: i64) -> SegmentWriter {
        SegmentWriter {
            dir: dir.to_path_buf(),
            index_interval: index_interval.max(0) as u64,
            current: None,
            replaced: Vec::new(),
            merged_away: Vec::new(),
        }
    }

    fn path(&self, base: i64, ext: &str) -> PathBuf {
        self.dir.join(format!("{base:020}.{ext}"))
    }
}

impl Cleaned {
    /// `TimeIndex.maybeAppend`: only a timestamp above the last entry's.
    fn time_append(&mut self, timestamp: i64, offset: i64) {
        if timestamp > self.last_time {
            self.time_index.extend_from_slice(&timestamp.to_be_bytes());
            self.time_index
                .extend_from_slice(&((offset - self.base) as i32).to_be_bytes());
            self.last_time = timestamp;
        }
    }
}

impl PassSink for SegmentWriter {
    fn group(&mut self, segments: &[&Segment]) -> io::Result<()> {
        let base = segments[0].base;
        self.replaced.extend(segments.iter().map(|s| s.base));
        self.merged_away
            .extend(segments[1..].iter().map(|s| s.base));
        let log = BufWriter::new(File::create(self.path(base, "log"))?);
        self.current = Some(Cleaned {
            base,
            mtime: segments[segments.len() - 1].mtime_ms,
            log,
            position: 0,
            since_index: 0,
            offset_index: Vec::new(),
            time_index: Vec::new(),
            last_time: -1,
            max_timestamp: -1,
            max_timestamp_offset: base,
            txn_index: Vec::new(),
        });
        Ok(())
    }

    fn batch(&mut self, _original: &BatchInfo, bytes: &[u8]) -> io::Result<()> {
        let interval = self.index_interval;
        let c = self.current.as_mut().expect("a group is open");
        let info = LogEntry::parse(bytes)
            .map_err(|e| io::Error::other(e.message.to_string()))?
            .info_with_crc(Some(true));
        c.log.write_all(bytes)?;
        // LogSegment.append, per batch.
        if info.max_timestamp > c.max_timestamp {
            c.max_timestamp = info.max_timestamp;
            c.max_timestamp_offset = info.last_offset;
        }
        if c.since_index > interval {
            c.offset_index
                .extend_from_slice(&((info.last_offset - c.base) as i32).to_be_bytes());
            c.offset_index
                .extend_from_slice(&(c.position as i32).to_be_bytes());
            let (t, o) = (c.max_timestamp, c.max_timestamp_offset);
            c.time_append(t, o);
            c.since_index = 0;
        }
        c.position += bytes.len() as u64;
        c.since_index += bytes.len() as u64;
        Ok(())
    }

    fn aborted_txn(&mut self, txn: &AbortedTxn) -> io::Result<()> {
        let c = self.current.as_mut().expect("a group is open");
        c.txn_index.extend_from_slice(&txn.encode());
        Ok(())
    }

    fn group_done(&mut self) -> io::Result<()> {
        let Some(mut c) = self.current.take() else {
            return Ok(());
        };
        // onBecomeInactiveSegment: the largest timestamp's entry, then the trimmed indexes.
        let (t, o) = (c.max_timestamp, c.max_timestamp_offset);
        c.time_append(t, o);
        c.log.flush()?;
        drop(c.log);
        fs::write(self.path(c.base, "index"), &c.offset_index)?;
        fs::write(self.path(c.base, "timeindex"), &c.time_index)?;
        if !c.txn_index.is_empty() {
            fs::write(self.path(c.base, "txnindex"), &c.txn_index)?;
        }
        for ext in ["log", "index", "timeindex"] {
            set_mtime(&self.path(c.base, ext), c.mtime)?;
        }
        Ok(())
    }
}

fn set_mtime(path: &Path, ms: i64) -> io::Result<()> {
    let at = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    File::options().write(true).open(path)?.set_modified(at)
}

/// Copies `from` to `to` with its mtime, to the nanosecond.
fn copy_file(from: &Path, to: &Path) -> io::Result<()> {
    fs::copy(from, to)?;
    let at = fs::metadata(from)?.modified()?;
    File::options().write(true).open(to)?.set_modified(at)
}

/// What `--out` wrote.
#[derive(Debug, Clone, Default)]
pub struct OutSummary {
    pub partitions_cleaned: usize,
    pub partitions_copied: usize,
    pub checkpoint_entries: usize,
}

/// Writes `dir` as the passes of `report` leave it into `out` (which must not exist, or be an
/// empty dir).
pub fn write_log_dir(
    report: &mut CompactionReport,
    dir: &LogDir,
    broker: &BrokerLogConfig,
    out: &Path,
) -> io::Result<OutSummary> {
    fs::create_dir_all(out)?;
    let mut summary = OutSummary::default();
    for f in &dir.files {
        if f.kind == FileKind::CleanerOffsetCheckpoint || !f.path.is_file() {
            continue;
        }
        if let Some(name) = f.path.file_name() {
            copy_file(&f.path, &out.join(name))?;
        }
    }
    let now = report.now;
    let mut updates: Vec<(String, i32, i64)> = Vec::new();
    for p in &dir.partitions {
        let name = p.path.file_name().expect("a partition dir has a name");
        let target = out.join(name);
        fs::create_dir_all(&target)?;
        let found = report.partitions.iter_mut().find(|c| c.path == p.path);
        let mut skip: Vec<i64> = Vec::new();
        let mut snapshots_gone: Vec<i64> = Vec::new();
        if let Some(c) = found {
            match c.dirty_start {
                DirtyStart::BelowLogStart(_) | DirtyStart::PastLogEnd(_) => {
                    updates.push((c.topic.clone(), c.partition, c.first_dirty_offset))
                }
                DirtyStart::Checkpoint | DirtyStart::NoCheckpoint => {}
            }
            if c.will_clean() && c.uncleanable.is_none() && c.overflow.is_none() {
                let mut writer = SegmentWriter::new(&target, c.config.index_interval_bytes.value);
                run_pass(c, broker, now, &mut writer);
                if let Some(pass) = &c.pass {
                    updates.push((c.topic.clone(), c.partition, pass.end_offset));
                    skip = writer.replaced;
                    snapshots_gone = writer.merged_away;
                    summary.partitions_cleaned += 1;
                }
            }
        }
        if skip.is_empty() {
            summary.partitions_copied += 1;
        }
        for f in &p.files {
            let Some(file_name) = f.path.file_name() else {
                continue;
            };
            let base = base_offset_of(&file_name.to_string_lossy());
            let segment_file = matches!(
                f.kind,
                FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex
            );
            if let Some(b) = base {
                if segment_file && skip.contains(&b) {
                    continue;
                }
                if f.kind == FileKind::ProducerSnapshot && snapshots_gone.contains(&b) {
                    continue;
                }
            }
            if f.path.is_file() {
                copy_file(&f.path, &target.join(file_name))?;
            }
        }
    }
    summary.checkpoint_entries = write_checkpoint(dir, out, &updates)?;
    Ok(summary)
}

/// `LogCleanerManager.updateCheckpoints`: the entries of partitions still in the dir, updated,
/// in the order of the `HashMap` the file is written from.
fn write_checkpoint(dir: &LogDir, out: &Path, updates: &[(String, i32, i64)]) -> io::Result<usize> {
    let mut entries: Vec<(String, i32, i64)> = Vec::new();
    let input = dir
        .files
        .iter()
        .find(|f| f.kind == FileKind::CleanerOffsetCheckpoint);
    if let Some(f) = input {
        if let Ok(c) = read_checkpoint(&f.path, 64 << 20, false) {
            for e in c.entries {
                if let CheckpointEntry::Partition {
                    topic,
                    partition,
                    offset,
                } = e
                {
                    let present = dir
                        .partitions
                        .iter()
                        .any(|p| p.name.topic == topic && p.name.partition == partition);
                    if present {
                        entries.push((topic, partition, offset));
                    }
                }
            }
        }
    }
    if input.is_none() && updates.is_empty() {
        return Ok(0);
    }
    for (t, p, o) in updates {
        match entries.iter_mut().find(|e| e.0 == *t && e.1 == *p) {
            Some(e) => e.2 = *o,
            None => entries.push((t.clone(), *p, *o)),
        }
    }
    let mut order = JavaHashMapOrder::default();
    for (t, p, _) in &entries {
        order.insert(topic_partition_hash(t, *p));
    }
    let ordered: Vec<&(String, i32, i64)> =
        order.order().into_iter().map(|i| &entries[i]).collect();
    let text = encode_offset_checkpoint(ordered.iter().map(|(t, p, o)| (t.as_str(), *p, *o)));
    fs::write(out.join("cleaner-offset-checkpoint"), text)?;
    Ok(entries.len())
}
