//! Loading a partition dir as Kafka's `LogLoader` does: leftovers of deletions removed, the
//! segments from the recovery point on re-validated and cut at the first invalid batch (their
//! indexes rebuilt by [`kseg_analysis::recovery`]), later segments deleted, producer state
//! replayed from the newest usable snapshot; and the producer snapshots themselves.

use std::fs;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::append::producer_batch;
use super::scratch::with_scratch;
use super::segment::{HeaderWalk, Segment};
use super::{open_rw, read_at, remove_if_exists, AbortedTxn, LogConfig, PartitionLog};
use crate::files::{
    partition_metadata_text, random_uuid, read_epoch_checkpoint, read_partition_metadata,
    write_atomically, LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA,
};
use crate::producer_state::{CompletedTxn, ProducerStateManager};
use kseg_analysis::recovery::{analyse_segment, TruncateReason};
use kseg_format::control::{decode_control, ControlType};
use kseg_format::log::{for_each_record, LogEntry};
use kseg_storage::layout::{base_offset_of, classify_file, offset_file_name, FileKind};

/// What loading found, for the broker's log.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    pub recovered_segments: usize,
    pub truncated_at: Option<(PathBuf, u64, Option<TruncateReason>)>,
    pub deleted_segments: Vec<i64>,
}

impl PartitionLog {
    /// Loads an existing partition dir. Without a clean shutdown, segments from the one holding
    /// the recovery point on are recovered like Kafka's `LogLoader`. The partition becomes
    /// leader at `leader_epoch` (or its last epoch + 2 when `None`, as a restarted single-node
    /// KRaft cluster moves leadership away and back).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        dir: &Path,
        topic: &str,
        partition: i32,
        config: LogConfig,
        clean: bool,
        recovery_point: Option<i64>,
        log_start: Option<i64>,
        leader_epoch: Option<i32>,
    ) -> io::Result<(PartitionLog, LoadReport)> {
        let mut report = LoadReport::default();
        let topic_id = match read_partition_metadata(dir) {
            Some(id) => id,
            None => {
                let id = random_uuid();
                write_atomically(
                    &dir.join(PARTITION_METADATA),
                    partition_metadata_text(&id).as_bytes(),
                )?;
                id
            }
        };
        // LogLoader.removeTempFilesAndCollectSwapFiles: files a deletion left behind go now.
        for e in fs::read_dir(dir)?.filter_map(|e| e.ok()) {
            if e.file_name().to_string_lossy().ends_with(".deleted") {
                remove_if_exists(&e.path())?;
            }
        }
        let mut bases = offsets_named(dir, FileKind::Log)?;
        bases.sort_unstable();
        let recovery_point = recovery_point.unwrap_or(0);
        // The first segment to re-validate: the one holding the recovery point.
        let recover_from = if clean {
            None
        } else {
            Some(
                bases
                    .iter()
                    .rev()
                    .find(|b| **b <= recovery_point)
                    .or(bases.first())
                    .copied()
                    .unwrap_or(0),
            )
        };
        let mut segments: Vec<Segment> = Vec::new();
        let mut first_recovered: Option<i64> = None;
        let mut deleting = false;
        for &base in &bases {
            if deleting {
                let seg = Segment::open(dir, base, &config)?;
                seg.delete_files()?;
                report.deleted_segments.push(base);
                continue;
            }
            let missing_index = !dir.join(offset_file_name(base, "index")).exists();
            let recover = recover_from.is_some_and(|r| base >= r) || missing_index;
            if !recover {
                segments.push(Segment::open(dir, base, &config)?);
                continue;
            }
            report.recovered_segments += 1;
            first_recovered.get_or_insert(base);
            let log_path = dir.join(offset_file_name(base, "log"));
            let plan = with_scratch(|scratch| {
                analyse_segment(&log_path, base, config.index_interval_bytes, scratch)
            })?;
            if let Some(at) = plan.truncate_at {
                let f = open_rw(&log_path, false)?;
                f.set_len(at)?;
                f.sync_all()?;
                report.truncated_at = Some((log_path.clone(), at, plan.truncate_reason.clone()));
                // A segment cut while being loaded (no .index) makes recoverLog delete nothing.
                deleting |= !missing_index;
            }
            let (index, time_index) = plan.kept_indexes();
            write_atomically(&dir.join(offset_file_name(base, "index")), &index)?;
            write_atomically(&dir.join(offset_file_name(base, "timeindex")), &time_index)?;
            // The transaction index is rebuilt by the producer-state replay below.
            let _ = fs::remove_file(dir.join(offset_file_name(base, "txnindex")));
            segments.push(Segment::open(dir, base, &config)?);
        }
        if segments.is_empty() {
            let base = log_start.unwrap_or(0).max(0);
            segments.push(Segment::create(dir, base, &config)?);
        }
        let leo = segments.last().map_or(0, |s| s.next_offset);
        let mut aborted = Vec::new();
        for s in &segments {
            if first_recovered.is_none_or(|r| s.base_offset < r) {
                aborted.extend(s.read_txn_index());
            }
        }
        let first_base = segments[0].base_offset;
        let epochs = read_epoch_checkpoint(&dir.join(LEADER_EPOCH_CHECKPOINT));
        // The partition's current epoch lives in KRaft metadata, not here; the checkpoint's
        // largest epoch (read before it is cut at the log end) is the last one this broker led.
        let last_epoch = epochs.iter().map(|e| e.epoch).max();
        let mut log = PartitionLog {
            topic: topic.to_string(),
            partition,
            dir: dir.to_path_buf(),
            topic_id,
            config,
            segments,
            log_start_offset: log_start.unwrap_or(first_base).max(first_base).min(leo),
            // LogLoader.recoverLog: the log end after a clean shutdown; otherwise the checkpoint,
            // unless the log now ends before it. Only a flush moves it further.
            recovery_point: if clean { leo } else { recovery_point.min(leo) },
            leader_epoch: 0,
            epochs,
            producers: ProducerStateManager::default(),
            aborted,
            last_snapshot_offset: -1,
            pending_deletes: Vec::new(),
            flushes: super::flush::FlushProgress::new(0),
            flush_queued_upto: 0,
            epoch_file: Default::default(),
            epoch_generation: 0,
            waiters: super::Waiters::default(),
        };
        // Segments below the recovery point are on disk; recovered ones were rewritten here.
        log.flush_queued_upto = log.recovery_point;
        log.load_producer_state(first_recovered)?;
        // Cut what the log no longer holds: snapshots and epochs past the end.
        log.remove_snapshots_after(leo)?;
        log.remove_stray_snapshots()?;
        let before = log.epochs.len();
        log.epochs.retain(|e| e.start_offset < leo);
        if log.epochs.len() != before {
            log.write_epochs()?;
        }
        let active = log.segments.last().expect("at least one segment");
        active.index.preallocate()?;
        active.time_index.preallocate()?;
        // An epoch from the metadata log never moves the cache backwards.
        let epoch = match leader_epoch {
            Some(e) => e.max(last_epoch.unwrap_or(e)),
            None => last_epoch.map_or(0, |e| e.saturating_add(2)),
        };
        log.leader_epoch = epoch;
        log.assign_epoch(epoch, leo)?;
        Ok((log, report))
    }

    /// Loads the newest usable producer snapshot and replays the batches after it, rebuilding the
    /// transaction index of recovered segments on the way.
    fn load_producer_state(&mut self, first_recovered: Option<i64>) -> io::Result<()> {
        let leo = self.log_end_offset();
        let limit = first_recovered.unwrap_or(leo);
        let mut snaps = self.snapshot_offsets()?;
        snaps.sort_unstable();
        if first_recovered.is_some() {
            // LogLoader.recoverSegment rebuilds producer state up to the first recovered
            // segment (ProducerStateManager.truncateAndReload): snapshots past it go.
            for off in snaps.iter().filter(|o| **o > limit) {
                remove_if_exists(&self.dir.join(offset_file_name(*off, "snapshot")))?;
            }
            snaps.retain(|o| *o <= limit);
        }
        let mut start = self.log_start_offset;
        for off in snaps.iter().rev().filter(|o| **o <= limit) {
            let path = self.dir.join(offset_file_name(*off, "snapshot"));
            // An unreadable or corrupt snapshot is passed over: the state is rebuilt from the log.
            let loaded = fs::read(&path)
                .ok()
                .and_then(|b| ProducerStateManager::from_snapshot(&b).ok());
            if let Some(state) = loaded {
                self.producers = state;
                start = *off;
                break;
            }
        }
        self.last_snapshot_offset = snaps.last().copied().unwrap_or(-1).min(leo);
        let from_segment = self
            .segments
            .iter()
            .rposition(|s| s.base_offset <= start)
            .unwrap_or(0);
        // Recovery snapshots the producer state as Kafka does: at the start of each recovered
        // segment (recoverSegment's takeSnapshot after the previous one), at the last two
        // segments' bases while replaying (rebuildProducerState) and at the log end.
        let n = self.segments.len();
        let last_two: Vec<i64> = self.segments[n.saturating_sub(2)..]
            .iter()
            .map(|s| s.base_offset)
            .collect();
        for i in from_segment..self.segments.len() {
            let rebuild_txn = first_recovered.is_some_and(|r| self.segments[i].base_offset >= r);
            let base = self.segments[i].base_offset;
            if first_recovered.is_some()
                && base >= start
                && (rebuild_txn || last_two.contains(&base))
            {
                self.write_snapshot(base)?;
            }
            let seg = &self.segments[i];
            let mut batches = Vec::new();
            let mut walk =
                HeaderWalk::new(&seg.log, seg.index.lookup(start).position as u64, seg.size);
            while let Some((pos, h)) = walk.next()? {
                if h.last_offset() >= start && h.producer_id >= 0 {
                    batches.push((pos, h));
                }
            }
            for (pos, h) in batches {
                if h.is_control() {
                    let bytes = read_at(&self.segments[i].log, pos, h.size())?;
                    let Some((commit, coordinator_epoch)) = control_marker(&bytes) else {
                        continue;
                    };
                    if let Some(done) = self.producers.complete_txn(
                        h.producer_id,
                        h.producer_epoch,
                        coordinator_epoch,
                        h.base_offset,
                        !commit,
                        h.max_timestamp,
                    ) {
                        if done.aborted && rebuild_txn {
                            self.record_abort(i, &done)?;
                        }
                    }
                } else {
                    self.producers.update(
                        &producer_batch(&h),
                        h.base_offset,
                        h.last_offset(),
                        h.max_timestamp,
                    );
                }
            }
        }
        if first_recovered.is_some() {
            self.write_snapshot(leo)?;
        }
        Ok(())
    }

    /// `ProducerStateManager.removeStraySnapshots`: snapshots at no segment's base offset are
    /// deleted, but for the newest one when it lies past the last segment's base.
    fn remove_stray_snapshots(&mut self) -> io::Result<()> {
        let bases: Vec<i64> = self.segments.iter().map(|s| s.base_offset).collect();
        let max_base = bases.iter().copied().max();
        let mut snaps = self.snapshot_offsets()?;
        snaps.sort_unstable();
        let mut strays: Vec<i64> = snaps.into_iter().filter(|o| !bases.contains(o)).collect();
        if let Some(&newest) = strays.last() {
            if max_base.is_some_and(|m| newest > m) {
                strays.pop();
            }
        }
        for off in strays {
            remove_if_exists(&self.dir.join(offset_file_name(off, "snapshot")))?;
        }
        self.last_snapshot_offset = self
            .snapshot_offsets()?
            .into_iter()
            .max()
            .unwrap_or(-1)
            .min(self.log_end_offset());
        Ok(())
    }

    pub(super) fn record_abort(&mut self, segment: usize, done: &CompletedTxn) -> io::Result<()> {
        let entry = AbortedTxn {
            producer_id: done.producer_id,
            first_offset: done.first_offset,
            last_offset: done.last_offset,
            last_stable_offset: self.producers.last_stable_offset_after(done),
        };
        self.segments[segment].append_txn_index(&entry)?;
        self.aborted.push(entry);
        Ok(())
    }

    pub(super) fn snapshot_offsets(&self) -> io::Result<Vec<i64>> {
        offsets_named(&self.dir, FileKind::ProducerSnapshot)
    }

    fn remove_snapshots_after(&mut self, offset: i64) -> io::Result<()> {
        for off in self.snapshot_offsets()? {
            if off > offset {
                fs::remove_file(self.dir.join(offset_file_name(off, "snapshot")))?;
            }
        }
        self.last_snapshot_offset = self.last_snapshot_offset.min(offset);
        Ok(())
    }

    pub(super) fn write_snapshot(&mut self, offset: i64) -> io::Result<()> {
        if let Some(f) = self.write_snapshot_unsynced(offset)? {
            f.sync_all()?;
        }
        Ok(())
    }

    /// The producer snapshot named `offset`, written and not yet fsynced (`takeSnapshot(false)`
    /// at a roll, whose flush task syncs it); `None` when one at or after it exists.
    pub(super) fn write_snapshot_unsynced(&mut self, offset: i64) -> io::Result<Option<fs::File>> {
        if offset <= self.last_snapshot_offset {
            return Ok(None);
        }
        let path = self.dir.join(offset_file_name(offset, "snapshot"));
        let f = open_rw(&path, true)?;
        let bytes = self.producers.snapshot_bytes().map_err(io::Error::other)?;
        f.write_all_at(&bytes, 0)?;
        self.last_snapshot_offset = offset;
        Ok(Some(f))
    }
}

/// The offsets naming the files of `kind` in `dir` (directory order).
fn offsets_named(dir: &Path, kind: FileKind) -> io::Result<Vec<i64>> {
    Ok(fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (classify_file(&name) == kind)
                .then(|| base_offset_of(&name))
                .flatten()
        })
        .collect())
}

/// (commit?, coordinator epoch) of a transaction marker batch.
fn control_marker(bytes: &[u8]) -> Option<(bool, i32)> {
    let entry = LogEntry::parse(bytes).ok()?;
    let mut out = None;
    let _ = with_scratch(|scratch| {
        for_each_record(&entry, scratch, |r| {
            if let Ok(c) = decode_control(r.key, r.value) {
                match c.kind {
                    ControlType::Commit => out = Some((true, c.coordinator_epoch.unwrap_or(-1))),
                    ControlType::Abort => out = Some((false, c.coordinator_epoch.unwrap_or(-1))),
                    _ => {}
                }
            }
        })
    });
    out
}
