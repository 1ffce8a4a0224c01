//! Moving the log start offset and deleting old segments, as Kafka's `UnifiedLog` does:
//! `maybeIncrementLogStartOffset` (DeleteRecords), `deleteOldSegments` (the retention check:
//! segments before the log start offset, then past `retention.bytes`, then past
//! `retention.ms`), with deleted files renamed to `.deleted` and removed after
//! `file.delete.delay.ms`.

use std::fs;
use std::io;
use std::path::PathBuf;

use kafka_protocol::ResponseError;

use super::{remove_if_exists, PartitionLog, Segment};
use crate::{BrokerError, BrokerResult};
use kseg_format::text_files::EpochEntry;
use kseg_storage::layout::offset_file_name;

/// Why segments are deleted (Kafka's `SegmentDeletionReason`), for the broker's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeletionReason {
    LogStartOffset,
    RetentionSize,
    RetentionTime,
}

impl DeletionReason {
    pub fn name(self) -> &'static str {
        match self {
            DeletionReason::LogStartOffset => "log start offset breach",
            DeletionReason::RetentionSize => "retention size breach",
            DeletionReason::RetentionTime => "retention time breach",
        }
    }
}

impl Segment {
    /// `LogSegment.largestTimestamp`: the largest record timestamp, else the file's mtime.
    fn largest_timestamp(&self) -> i64 {
        if self.max_timestamp >= 0 {
            return self.max_timestamp;
        }
        self.log
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_millis() as i64)
    }
}

impl PartitionLog {
    /// The bytes of every segment (`UnifiedLog.size`).
    pub fn size_in_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.size).sum()
    }

    /// `UnifiedLog.maybeIncrementLogStartOffset`: DeleteRecords and segment deletion move the log
    /// start offset (never past the high watermark), cut the leader epoch cache from the start
    /// and drop producer state before it. Returns whether it moved.
    pub fn increment_log_start_offset(&mut self, offset: i64) -> BrokerResult<bool> {
        if offset > self.high_watermark() {
            return Err(BrokerError::new(
                ResponseError::OffsetOutOfRange,
                format!(
                    "Cannot increment the log start offset to {offset} of partition {}-{} since \
                     it is larger than the high watermark {}",
                    self.topic,
                    self.partition,
                    self.high_watermark()
                ),
            ));
        }
        if offset <= self.log_start_offset {
            return Ok(false);
        }
        self.log_start_offset = offset;
        // LeaderEpochFileCache.truncateFromStart: entries starting at or before the new start
        // go, the last of them comes back starting at it.
        let removed: Vec<EpochEntry> = self
            .epochs
            .iter()
            .copied()
            .filter(|e| e.start_offset <= offset)
            .collect();
        if let Some(&EpochEntry { epoch, .. }) = removed.last() {
            self.epochs.retain(|e| e.start_offset > offset);
            self.epochs.insert(
                0,
                EpochEntry {
                    epoch,
                    start_offset: offset,
                },
            );
            // Written by the flush thread, as Kafka's truncateFromStartAsyncFlush does: until
            // then (or after a crash before it) the file still lists the entries cut here.
            self.write_epochs_later();
        }
        Ok(true)
    }

    /// `UnifiedLog.deleteOldSegments`: returns the base offsets deleted and why.
    pub fn delete_old_segments(&mut self, now: i64) -> io::Result<Vec<(i64, DeletionReason)>> {
        let mut deleted = Vec::new();
        let start = self.log_start_offset;
        let n = self.deletable(|_, next| next.is_some_and(|b| b <= start));
        deleted.extend(
            self.delete_segments(n, now)?
                .into_iter()
                .map(|b| (b, DeletionReason::LogStartOffset)),
        );
        if !self.config.delete {
            return Ok(deleted);
        }
        let retention_bytes = self.config.retention_bytes;
        let size = self.size_in_bytes() as i64;
        if retention_bytes >= 0 && size >= retention_bytes {
            let mut diff = size - retention_bytes;
            let n = self.deletable(|s, _| {
                let keep_going = diff - s.size as i64 >= 0;
                if keep_going {
                    diff -= s.size as i64;
                }
                keep_going
            });
            deleted.extend(
                self.delete_segments(n, now)?
                    .into_iter()
                    .map(|b| (b, DeletionReason::RetentionSize)),
            );
        }
        let retention_ms = self.config.retention_ms;
        if retention_ms >= 0 {
            let n = self.deletable(|s, _| now - s.largest_timestamp() > retention_ms);
            deleted.extend(
                self.delete_segments(n, now)?
                    .into_iter()
                    .map(|b| (b, DeletionReason::RetentionTime)),
            );
        }
        Ok(deleted)
    }

    /// `UnifiedLog.deletableSegments`: how many segments from the oldest the predicate allows,
    /// never one reaching past the high watermark, never a last segment that is empty.
    fn deletable(&self, mut predicate: impl FnMut(&Segment, Option<i64>) -> bool) -> usize {
        let hw = self.high_watermark();
        let mut n = 0;
        for (i, seg) in self.segments.iter().enumerate() {
            let next = self.segments.get(i + 1).map(|s| s.base_offset);
            let last_and_empty = next.is_none() && seg.size == 0;
            let upper = next.unwrap_or_else(|| self.log_end_offset());
            if hw >= upper && predicate(seg, next) && !last_and_empty {
                n += 1;
            } else {
                break;
            }
        }
        n
    }

    /// `UnifiedLog.deleteSegments`: the first `n` segments go (after a roll when that is all of
    /// them), the log start offset moves to the next segment, and their files and producer
    /// snapshots are renamed `.deleted` for later removal.
    fn delete_segments(&mut self, n: usize, now: i64) -> io::Result<Vec<i64>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        if n == self.segments.len() {
            self.roll()?;
        }
        let n = n.min(self.segments.len() - 1);
        let next_base = self.segments[n].base_offset;
        if next_base > self.log_start_offset {
            self.increment_log_start_offset(next_base)
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        let due = now.saturating_add(self.config.file_delete_delay_ms.max(0));
        let gone: Vec<Segment> = self.segments.drain(..n).collect();
        let mut bases = Vec::with_capacity(gone.len());
        for seg in gone {
            bases.push(seg.base_offset);
            for suffix in ["log", "index", "timeindex", "txnindex", "snapshot"] {
                self.rename_for_deletion(offset_file_name(seg.base_offset, suffix), due)?;
            }
        }
        if self.last_snapshot_offset < self.segments[0].base_offset {
            self.last_snapshot_offset = -1;
        }
        let first = self.log_start_offset;
        self.aborted.retain(|a| a.last_offset >= first);
        Ok(bases)
    }

    fn rename_for_deletion(&mut self, name: String, due: i64) -> io::Result<()> {
        let from = self.dir.join(&name);
        let to: PathBuf = self.dir.join(format!("{name}.deleted"));
        match fs::rename(&from, &to) {
            Ok(()) => {
                self.pending_deletes.push((due, to));
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Removes the `.deleted` files whose delay is over (all of them with `force`).
    pub fn remove_deleted_files(&mut self, now: i64, force: bool) -> io::Result<()> {
        for path in self.take_due_deletes(now, force) {
            remove_if_exists(&path)?;
        }
        Ok(())
    }

    /// The `.deleted` files whose delay is over (all of them with `force`), forgotten here: the
    /// caller removes them, without the broker lock (Kafka's "delete-file" task).
    pub fn take_due_deletes(&mut self, now: i64, force: bool) -> Vec<PathBuf> {
        let (due, keep): (Vec<(i64, PathBuf)>, _) = std::mem::take(&mut self.pending_deletes)
            .into_iter()
            .partition(|(at, _)| force || *at <= now);
        self.pending_deletes = keep;
        due.into_iter().map(|(_, path)| path).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::client_batch;
    use super::*;
    use crate::log::LogConfig;

    const NOW: i64 = 1_700_000_000_000;

    fn log_with_segments(dir: &std::path::Path, config: LogConfig, stamps: &[i64]) -> PartitionLog {
        let mut log = PartitionLog::create(dir, "t", 0, [1; 16], config, 0).unwrap();
        // Each ~600-byte batch fills most of a 1000-byte segment: one batch per segment.
        for ts in stamps {
            log.append_client(client_batch(1, 600, *ts), NOW).unwrap();
        }
        log
    }

    fn config() -> LogConfig {
        LogConfig {
            segment_bytes: 1000,
            retention_ms: -1,
            ..Default::default()
        }
    }

    fn files(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir.join("t-0"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn retention_by_size_deletes_the_oldest_whole_segments() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = log_with_segments(dir.path(), config(), &[NOW; 4]);
        assert_eq!(log.segment_bases(), vec![0, 1, 2, 3]);
        let seg = log.segments[0].size as i64;
        // Whole segments go while the excess over retention.bytes covers them: with just under
        // two segments allowed, two of four go (the log stays above the limit).
        log.config.retention_bytes = 2 * seg - 1;
        let gone = log.delete_old_segments(NOW).unwrap();
        assert_eq!(
            gone,
            vec![
                (0, DeletionReason::RetentionSize),
                (1, DeletionReason::RetentionSize)
            ]
        );
        assert_eq!(log.segment_bases(), vec![2, 3]);
        assert_eq!(log.log_start_offset, 2);
        let names = files(dir.path());
        assert!(
            names.contains(&"00000000000000000000.log.deleted".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"00000000000000000001.snapshot.deleted".to_string()),
            "{names:?}"
        );
        assert_eq!(
            log.epochs(),
            &[EpochEntry {
                epoch: 0,
                start_offset: 2
            }],
            "the epoch cache is cut at the new start"
        );
        log.remove_deleted_files(NOW + 59_999, false).unwrap();
        assert!(
            files(dir.path()).iter().any(|n| n.ends_with(".deleted")),
            "file.delete.delay.ms"
        );
        log.remove_deleted_files(NOW + 60_000, false).unwrap();
        assert!(!files(dir.path()).iter().any(|n| n.ends_with(".deleted")));
    }

    #[test]
    fn retention_by_time_keeps_the_active_segment_unless_all_expired() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = config();
        c.retention_ms = 1000;
        let old = NOW - 10_000;
        let mut log = log_with_segments(dir.path(), c.clone(), &[old, old, NOW]);
        let gone = log.delete_old_segments(NOW).unwrap();
        assert_eq!(gone.iter().map(|g| g.0).collect::<Vec<_>>(), vec![0, 1]);
        assert!(gone.iter().all(|g| g.1 == DeletionReason::RetentionTime));
        assert_eq!(log.segment_bases(), vec![2]);
        // Everything expired: Kafka rolls first so a log always keeps a segment.
        let dir2 = tempfile::tempdir().unwrap();
        let mut log = log_with_segments(dir2.path(), c, &[old, old]);
        let gone = log.delete_old_segments(NOW).unwrap();
        assert_eq!(gone.len(), 2);
        assert_eq!(log.segment_bases(), vec![2]);
        assert_eq!((log.log_start_offset, log.log_end_offset()), (2, 2));
        // The empty active segment is never deleted.
        assert!(log.delete_old_segments(NOW + 10_000).unwrap().is_empty());
    }

    #[test]
    fn delete_records_moves_the_start_and_the_next_check_drops_segments() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = log_with_segments(dir.path(), config(), &[NOW; 3]);
        let e = log.increment_log_start_offset(4).unwrap_err();
        assert_eq!(e.code(), ResponseError::OffsetOutOfRange.code());
        assert!(log.increment_log_start_offset(2).unwrap());
        assert!(
            !log.increment_log_start_offset(1).unwrap(),
            "never backwards"
        );
        assert_eq!(
            log.segment_bases(),
            vec![0, 1, 2],
            "segments stay until the check"
        );
        let gone = log.delete_old_segments(NOW).unwrap();
        assert_eq!(
            gone,
            vec![
                (0, DeletionReason::LogStartOffset),
                (1, DeletionReason::LogStartOffset)
            ]
        );
        assert_eq!(log.log_start_offset, 2);
    }

    /// A moved log start offset cuts the leader epoch cache at once and has the flush thread
    /// rewrite `leader-epoch-checkpoint` (`truncateFromStartAsyncFlush`); a clean close waits
    /// for that write.
    #[test]
    fn the_epoch_checkpoint_cut_from_the_start_is_written_by_the_flush_thread() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = log_with_segments(dir.path(), config(), &[NOW; 3]);
        assert!(log.increment_log_start_offset(2).unwrap());
        assert_eq!(
            log.epochs(),
            [EpochEntry {
                epoch: 0,
                start_offset: 2
            }]
        );
        log.close().unwrap();
        let path = dir
            .path()
            .join("t-0")
            .join(crate::files::LEADER_EPOCH_CHECKPOINT);
        assert_eq!(fs::read_to_string(path).unwrap(), "0\n1\n0 2\n");
    }
}
