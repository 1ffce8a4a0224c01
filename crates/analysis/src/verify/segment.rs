//! One pass over a segment's log: the log checks, the recovery simulation, the ABORT markers and
//! the index checks all consume each batch as it streams past, so memory does not grow with the
//! number of batches in a segment.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::indexes::{OffsetIndexPass, TimeIndexPass};
use super::{log_damage, Findings, LogDamage, Message, Nature};
use crate::pieces::EntrySink;
use crate::recovery::{IndexRebuild, IndexedBatch, InvalidIndexOffset};
use kseg_format::control::{decode_control, ControlType};
use kseg_format::log::{for_each_record, BatchInfo, LogEntry, RecordScratch, TailKind};
use kseg_scan::LogProblem;

/// A batch that starts a larger leader epoch than every batch before it in the partition (the
/// rule `LogSegment.recover` assigns epochs by).
#[derive(Debug, Clone)]
pub(super) struct EpochStart {
    pub epoch: i32,
    pub offset: i64,
    pub path: PathBuf,
    pub position: u64,
    /// In a segment Kafka's recovery re-reads (which assigns the epoch to the cache).
    pub recovered: bool,
}

/// Leader epochs as the partition's batches start them.
#[derive(Debug, Default)]
pub(super) struct EpochTrack {
    pub starts: Vec<EpochStart>,
    /// The first batch whose epoch is below an earlier batch's: (file, position, epoch, the
    /// larger epoch before it).
    pub first_decrease: Option<(PathBuf, u64, i32, i32)>,
}

impl EpochTrack {
    fn batch(&mut self, seg: &SegmentSetting<'_>, position: u64, b: &BatchInfo) {
        if b.magic < 2 || b.partition_leader_epoch < 0 {
            return;
        }
        let epoch = b.partition_leader_epoch;
        match self.starts.last().map(|s| s.epoch) {
            Some(latest) if epoch == latest => {}
            Some(latest) if epoch < latest => {
                if self.first_decrease.is_none() {
                    self.first_decrease = Some((seg.path.to_path_buf(), position, epoch, latest));
                }
            }
            _ => self.starts.push(EpochStart {
                epoch,
                offset: b.base_offset,
                path: seg.path.to_path_buf(),
                position,
                recovered: seg.recovered,
            }),
        }
    }
}

/// What the partition-level checks need to know about a segment.
#[derive(Debug, Clone, Copy)]
pub(super) struct SegmentSetting<'p> {
    pub path: &'p Path,
    pub base: i64,
    pub active: bool,
    /// Kafka's recovery re-validates this segment at the next start.
    pub recovered: bool,
    /// `LogLoader.loadSegmentFiles` recovers it already (no `.index`, or a `.txnindex` failing
    /// its sanity check): its truncation happens at load and deletes no later segment.
    pub load_recovered: bool,
    /// Internal topics are compacted: gaps are normal.
    pub compacted: bool,
    pub check_crc: bool,
    /// Report log findings (not with `--sanity`).
    pub log_checks: bool,
    pub index_interval: u64,
    /// The topic's `preallocate`: a zero-filled tail is then the preallocated rest of a segment
    /// not closed.
    pub preallocate: bool,
    /// The partition's high watermark checkpoint.
    pub high_watermark: Option<i64>,
}

/// Where Kafka's recovery cuts a segment and what it loses.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cut {
    pub position: u64,
    /// `LogLoader.recoverLog` deletes the later unflushed segments after this cut.
    pub deletes_later: bool,
    pub dropped_batches: u64,
    pub dropped_records: u64,
    /// Dropped records of batches ending below the high watermark.
    pub dropped_acknowledged: u64,
    /// The first offset the cut drops: the log end offset after it.
    pub first_dropped_offset: i64,
}

/// A segment after its pass.
#[derive(Debug, Default)]
pub(super) struct SegmentFacts {
    pub batches: u64,
    pub records: u64,
    /// Base offset of the first batch in file order.
    pub first_base_offset: Option<i64>,
    /// Last offset of the last batch in file order.
    pub last_batch_last_offset: Option<i64>,
    /// The largest last offset of any batch.
    pub max_last_offset: Option<i64>,
    /// ABORT markers: (offset, producer id, whether that producer's transactional data precedes
    /// the marker in this segment — only then is a `.txnindex` entry certain).
    pub aborts: Vec<(i64, i64, bool)>,
    /// Where recovery truncates this segment (only computed for recovered segments).
    pub cut: Option<Cut>,
    /// Records of batches ending below the high watermark.
    pub acknowledged_records: u64,
    /// The first bytes framing no batch (`FileLogInputStream.nextBatch` stops or throws there).
    pub first_frame_problem: Option<u64>,
    /// Those first bytes are the zero-filled tail of a `preallocate=true` segment: space the
    /// file was given, not written records.
    pub preallocated_tail: bool,
    /// Bytes framing no batch after the last valid batch: the segment's end is unreadable (a
    /// damaged region followed by valid batches is not).
    pub unreadable_tail: bool,
    /// Recovering this segment at load throws where nothing catches it: (position, why).
    pub load_failure: Option<(u64, Message)>,
    /// The first batch recovery keeps whose last offset no relative offset can hold:
    /// (position, offset). `LogSegment.recover` throws LogSegmentOffsetOverflowException there.
    pub first_overflow: Option<(u64, i64)>,
}

/// Counts of batches and records before some position.
#[derive(Debug, Clone, Copy, Default)]
struct Before {
    batches: u64,
    records: u64,
    /// Records of batches ending below the high watermark (acknowledged for certain).
    acknowledged: u64,
    /// The largest last offset so far.
    last_offset: Option<i64>,
}

pub(super) struct SegmentPass<'p, 'c, 'f> {
    ctx: &'c mut Findings<'f>,
    seg: SegmentSetting<'p>,
    /// The largest last offset of the partition's earlier segments.
    prev_last: Option<i64>,
    facts: SegmentFacts,
    /// The first batch Kafka's recovery rejects (a framing problem or a CRC failure).
    first_invalid: Option<(u64, Before)>,
    rebuild: Option<IndexRebuild>,
    before_first_index_entry: Before,
    rebuild_failure: Option<InvalidIndexOffset>,
    offset_index: Option<OffsetIndexPass>,
    time_index: Option<TimeIndexPass>,
    /// Producers with transactional data and no marker yet, in this segment.
    txn_open: HashSet<i64>,
    /// Producer-snapshot last offsets to look for, and those found as a batch's last offset.
    snapshot_wanted: &'c HashSet<i64>,
    snapshot_found: &'c mut HashSet<i64>,
    control_scratch: RecordScratch,
    epochs: &'c mut EpochTrack,
    /// End of the last batch: the log's valid end for the index checks.
    valid_end: u64,
    /// End of the last bytes framing no batch.
    invalid_end: u64,
}

impl<'p, 'c, 'f> SegmentPass<'p, 'c, 'f> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: &'c mut Findings<'f>,
        seg: SegmentSetting<'p>,
        prev_last: Option<i64>,
        offset_index: Option<OffsetIndexPass>,
        time_index: Option<TimeIndexPass>,
        snapshot_wanted: &'c HashSet<i64>,
        snapshot_found: &'c mut HashSet<i64>,
        epochs: &'c mut EpochTrack,
    ) -> Self {
        SegmentPass {
            ctx,
            rebuild: (seg.recovered || seg.load_recovered)
                .then(|| IndexRebuild::new(seg.base, seg.index_interval)),
            seg,
            prev_last,
            facts: SegmentFacts::default(),
            first_invalid: None,
            before_first_index_entry: Before::default(),
            rebuild_failure: None,
            offset_index,
            time_index,
            txn_open: HashSet::new(),
            snapshot_wanted,
            snapshot_found,
            control_scratch: RecordScratch::with_cap(1 << 20),
            epochs,
            valid_end: 0,
            invalid_end: 0,
        }
    }

    fn before(&self) -> Before {
        Before {
            batches: self.facts.batches,
            records: self.facts.records,
            acknowledged: self.facts.acknowledged_records,
            last_offset: self.facts.max_last_offset,
        }
    }

    fn mark_invalid(&mut self, position: u64) {
        if self.first_invalid.is_none() {
            self.first_invalid = Some((position, self.before()));
        }
    }

    /// The first batch: its base offset against the file name and the previous segment.
    fn first_batch_checks(&mut self, position: u64, base_offset: i64) {
        let (path, base) = (self.seg.path, self.seg.base);
        if base_offset < base {
            self.ctx.add(
                "base-offset-mismatch",
                Nature::DamagedData,
                path,
                Some(position),
                Some(base_offset),
                Message::BaseBelowName {
                    base,
                    first: base_offset,
                },
            );
        } else if base_offset > base && !self.seg.compacted {
            self.ctx.add(
                "base-offset-mismatch",
                Nature::Normal,
                path,
                Some(position),
                Some(base_offset),
                Message::BaseAboveName {
                    base,
                    first: base_offset,
                },
            );
        }
        if let Some(prev) = self.prev_last {
            if base <= prev {
                self.ctx.add(
                    "segment-overlap",
                    Nature::DamagedData,
                    path,
                    Some(0),
                    Some(base),
                    Message::SegmentOverlap {
                        base,
                        prev_last: prev,
                    },
                );
            } else if base_offset > prev.saturating_add(1) {
                self.ctx.add(
                    "segment-overlap",
                    if self.seg.compacted {
                        Nature::Normal
                    } else {
                        Nature::Tolerated
                    },
                    path,
                    Some(position),
                    Some(base_offset),
                    Message::OffsetsMissing {
                        from: prev.saturating_add(1),
                        to: base_offset.saturating_sub(1),
                    },
                );
            }
        }
    }

    fn order_checks(&mut self, position: u64, b: &BatchInfo) {
        let (path, base) = (self.seg.path, self.seg.base);
        if let Some(l) = self.facts.max_last_offset {
            if b.base_offset <= l {
                self.ctx.add(
                    "offset-order",
                    Nature::DamagedData,
                    path,
                    Some(position),
                    Some(b.base_offset),
                    Message::OffsetOrder {
                        base_offset: b.base_offset,
                        prev_last: l,
                    },
                );
            }
        }
        if !(0..=i32::MAX as i64).contains(&b.last_offset.saturating_sub(base)) {
            self.ctx.add(
                "offset-overflow",
                Nature::DamagedData,
                path,
                Some(position),
                Some(b.last_offset),
                Message::OffsetOverflow {
                    offset: b.last_offset,
                    base,
                },
            );
        }
    }

    /// ABORT markers, and whether the producer's data precedes them in this segment.
    fn track_transactions(&mut self, control: Option<&LogEntry<'_>>, b: &BatchInfo) {
        if b.is_transactional && !b.is_control {
            self.txn_open.insert(b.producer_id);
        }
        if b.is_control {
            // Kafka indexes an aborted transaction only when it had data (an empty one, or one
            // whose data is in an earlier segment, may legitimately have no entry here).
            let had_data = self.txn_open.remove(&b.producer_id);
            let aborts = &mut self.facts.aborts;
            let Some(entry) = control else {
                return;
            };
            let _ = for_each_record(entry, &mut self.control_scratch, |r| {
                if let Ok(c) = decode_control(r.key, r.value) {
                    if c.kind == ControlType::Abort {
                        aborts.push((r.offset, b.producer_id, had_data));
                    }
                }
            });
        }
    }

    /// Ends the pass: the index checks that need the whole log, and the recovery cut.
    pub fn finish(mut self) -> SegmentFacts {
        if let Some(pass) = self.offset_index.take() {
            pass.finish(self.ctx, self.valid_end);
        }
        if let Some(pass) = self.time_index.take() {
            pass.finish(self.ctx, self.seg.active, self.facts.batches > 0);
        }
        if let Some(rebuild) = self.rebuild.take() {
            if let Err(e) = rebuild.finish() {
                self.rebuild_failure = Some(e);
            }
        }
        self.facts.unreadable_tail = self.invalid_end > self.valid_end;
        let total = self.before();
        if let Some(invalid) = self.rebuild_failure.filter(|_| self.seg.log_checks) {
            let message = if self.seg.load_recovered {
                // Thrown inside loadSegmentFiles, where nothing catches it.
                let m = Message::IndexRebuildAtLoad(invalid);
                self.facts.load_failure = Some((invalid.position, m.clone()));
                m
            } else {
                Message::IndexRebuildEmpties(invalid)
            };
            self.ctx.add(
                "recovery-empties-segment",
                Nature::DamagedData,
                self.seg.path,
                Some(invalid.position),
                Some(invalid.offset),
                message,
            );
        }
        let cut = match (self.rebuild_failure, self.first_invalid) {
            // The load fails: there is no cut to preview.
            (Some(_), _) if self.seg.load_recovered => None,
            (Some(invalid), _) => {
                let before = if invalid.truncate_to == 0 {
                    Before::default()
                } else {
                    self.before_first_index_entry
                };
                Some((invalid.truncate_to, before))
            }
            (None, first_invalid) if self.seg.recovered || self.seg.load_recovered => first_invalid,
            _ => None,
        };
        // A segment recovered at load is already cut when recoverLog reaches it: nothing is
        // truncated then, so nothing later is deleted.
        let deletes_later = self.seg.recovered && !self.seg.load_recovered;
        let base = self.seg.base;
        self.facts.cut = cut.map(|(position, before)| Cut {
            position,
            deletes_later,
            dropped_batches: total.batches - before.batches,
            dropped_records: total.records - before.records,
            dropped_acknowledged: total.acknowledged - before.acknowledged,
            first_dropped_offset: before
                .last_offset
                .map_or(base, |l| l.saturating_add(1).max(base)),
        });
        self.facts
    }
}

impl EntrySink for SegmentPass<'_, '_, '_> {
    fn entry(&mut self, position: u64, b: &BatchInfo, control: Option<&LogEntry<'_>>) {
        let path = self.seg.path;
        let records = b.count.unwrap_or(1).max(0) as u64;
        if self.seg.check_crc && !b.crc_valid {
            if self.seg.log_checks {
                self.ctx.add(
                    "crc-mismatch",
                    log_damage(LogDamage::Crc, self.seg.active, self.seg.recovered),
                    path,
                    Some(position),
                    Some(b.base_offset),
                    Message::CrcMismatch,
                );
            }
            self.mark_invalid(position);
        }
        if self.seg.log_checks {
            if b.magic > 2 {
                self.ctx.add(
                    "unknown-magic",
                    Nature::Tolerated,
                    path,
                    Some(position),
                    Some(b.base_offset),
                    Message::UnknownMagic(b.magic),
                );
            }
            if self.facts.first_base_offset.is_none() {
                self.first_batch_checks(position, b.base_offset);
            }
            self.order_checks(position, b);
        }
        // Recovery rebuilds the indexes from the batches before the first invalid one.
        if self.first_invalid.is_none() {
            if (self.seg.recovered || self.seg.load_recovered)
                && !(0..=i32::MAX as i64).contains(&b.last_offset.saturating_sub(self.seg.base))
            {
                self.facts
                    .first_overflow
                    .get_or_insert((position, b.last_offset));
            }
            let before = self.before();
            if let Some(rebuild) = &mut self.rebuild {
                if !rebuild.has_entries() {
                    self.before_first_index_entry = before;
                }
                let pushed = rebuild.push(IndexedBatch {
                    size: b.size as u64,
                    last_offset: b.last_offset,
                    max_timestamp: b.max_timestamp,
                });
                if let Err(e) = pushed {
                    self.rebuild_failure = Some(e);
                    self.rebuild = None;
                }
            }
        }
        if let Some(pass) = &mut self.offset_index {
            pass.batch(self.ctx, position, b.base_offset, b.last_offset);
        }
        if let Some(pass) = &mut self.time_index {
            pass.batch(self.ctx, b.base_offset, b.last_offset, b.max_timestamp);
        }
        self.track_transactions(control, b);
        self.epochs.batch(&self.seg, position, b);
        if self.snapshot_wanted.contains(&b.last_offset) {
            self.snapshot_found.insert(b.last_offset);
        }
        self.valid_end = position + b.size as u64;
        let f = &mut self.facts;
        f.first_base_offset.get_or_insert(b.base_offset);
        f.last_batch_last_offset = Some(b.last_offset);
        f.max_last_offset = Some(
            f.max_last_offset
                .map_or(b.last_offset, |l| l.max(b.last_offset)),
        );
        f.batches += 1;
        f.records += records;
        if self.seg.high_watermark.is_some_and(|hw| b.last_offset < hw) {
            f.acknowledged_records += records;
        }
    }

    fn problem(&mut self, p: &LogProblem<'_>) {
        let (position, length) = (p.position(), p.length());
        self.mark_invalid(position);
        if !matches!(p, LogProblem::BadEntry { .. }) {
            self.invalid_end = self.invalid_end.max(position + length.max(1));
        }
        if !matches!(p, LogProblem::BadEntry { .. }) && self.facts.first_frame_problem.is_none() {
            self.facts.first_frame_problem = Some(position);
            self.facts.preallocated_tail = self.seg.preallocate
                && matches!(
                    p,
                    LogProblem::Tail {
                        kind: TailKind::ZeroFilled,
                        ..
                    }
                );
        }
        if !self.seg.log_checks {
            return;
        }
        let (active, recovered) = (
            self.seg.active,
            self.seg.recovered || self.seg.load_recovered,
        );
        let (check, severity, text) = match p {
            LogProblem::Tail {
                kind: TailKind::Partial { .. } | TailKind::Short,
                ..
            } => (
                "torn-tail",
                // A partial last write in a segment Kafka recovers is the normal state after a crash.
                log_damage(LogDamage::TornTail, active, recovered),
                Message::TornTail(p.to_fault()),
            ),
            LogProblem::Tail {
                kind: TailKind::ZeroFilled,
                ..
            } => (
                "zero-tail",
                // Beside a clean-shutdown marker Kafka reads the end of the active segment at
                // load: a zero size field there throws (see broker-will-not-start).
                log_damage(LogDamage::ZeroTail, active, recovered),
                Message::ZeroTail {
                    length,
                    preallocate: self.seg.preallocate,
                },
            ),
            LogProblem::Corrupt { .. } | LogProblem::Tail { .. } | LogProblem::BadEntry { .. } => (
                "invalid-bytes",
                log_damage(LogDamage::InvalidBytes, active, recovered),
                Message::InvalidBytes(p.to_fault()),
            ),
        };
        self.ctx
            .add(check, severity, self.seg.path, Some(position), None, text);
    }
}
