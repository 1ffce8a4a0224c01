//! The offset questions: the log start and end offsets, where a fetch from an offset starts
//! (`LocalLog.read`: the segment holding it, the offset-index floor, then batches), earliest and
//! latest (ListOffsets -2 and -1), and the batch holding an offset.

use kseg_format::index::Offsets;
use kseg_format::log::LogRecord;
use kseg_scan::Flow;

use super::epoch::epoch_for_offset;
use super::explain::Step;
use super::reader::{BatchAt, FirstRecord, Headers, PartitionReader, Visit};
use super::{Answer, BatchFacts, LookupError, Note};

impl PartitionReader<'_> {
    /// The first segment's base offset, raised by `log-start-offset-checkpoint`.
    pub(super) fn log_start_offset(&mut self) -> i64 {
        let first = self.base_offset(0);
        let checkpoint = self.target.log_start_checkpoint;
        self.step(Step::LogStart {
            first_base_offset: first,
            checkpoint,
        });
        let notes = self.target.notes.clone();
        self.trace.steps.extend(notes);
        checkpoint.map_or(first, |c| c.max(first))
    }

    /// The log end offset: one past the last batch of the last segment (walked from its last
    /// offset-index entry), or its base offset when it is empty.
    pub(super) fn log_end_offset(&mut self) -> Result<i64, LookupError> {
        let i = self.segments.len() - 1;
        let base = self.base_offset(i);
        let from = self.last_indexed_position(i)?;
        let mut last = None;
        let mut n = 0u64;
        self.walk(
            i,
            from,
            &mut Headers(|b: &BatchAt| {
                n += 1;
                last = Some(b.info.last_offset);
                Flow::Continue
            }),
        )?;
        let leo = last.map_or(base, |l: i64| l.saturating_add(1).max(base));
        self.step(Step::LogEnd {
            offset: leo,
            last_batch_offset: last,
            batches: n,
            from,
            segment: self.log(i).to_path_buf(),
        });
        Ok(leo)
    }

    /// The first record at or after offset `o` in segments `i..`, starting at byte `from` of
    /// segment `i` (`LocalLog.read`: on to the next segment when one holds nothing more).
    fn first_record_from(
        &mut self,
        i: usize,
        from: u64,
        o: i64,
    ) -> Result<Option<Answer>, LookupError> {
        for j in i..self.segments.len() {
            let start = if j == i { from } else { 0 };
            let mut visitor = FirstRecord::new(
                |b: &BatchAt| {
                    if b.info.last_offset < o {
                        Visit::Next
                    } else {
                        Visit::Records
                    }
                },
                |r: &LogRecord<'_>| r.offset >= o,
            );
            // An empty batch (compaction) or one whose records cannot be decoded: on to the
            // next.
            self.walk(j, start, &mut visitor)?;
            if let Some(hit) = visitor.found {
                let ts = hit.timestamp;
                return Ok(Some(Answer::at(
                    self.log(hit.batch.segment),
                    &hit.batch,
                    hit.offset,
                    (ts >= 0).then_some(ts),
                )));
            }
        }
        Ok(None)
    }

    pub(super) fn by_offset(
        &mut self,
        o: i64,
        log_start: i64,
        leo: i64,
    ) -> Result<Answer, LookupError> {
        if o < log_start || o > leo {
            return Ok(Answer::none(Note::OffsetOutOfRange {
                offset: o,
                log_start,
                log_end: leo,
            }));
        }
        if o == leo {
            return Ok(Answer::none(Note::OffsetIsLogEnd { offset: o }));
        }
        let i = self.segment_of(o);
        self.step(Step::SegmentForOffset {
            segment: self.log(i).to_path_buf(),
            base_offset: self.base_offset(i),
            offset: o,
        });
        let entry = self.offset_floor_step(i, o, None)?;
        let from = self.checked_position(i, entry.position as u64)?;
        let before = (self.trace.batches_scanned, self.trace.records_decoded);
        let hit = self.first_record_from(i, from, o)?;
        self.step(Step::ScannedForOffset {
            from,
            batches: self.trace.batches_scanned - before.0,
            records: self.trace.records_decoded - before.1,
            offset: o,
        });
        Ok(match hit {
            Some(mut a) => {
                if a.offset != Some(o) {
                    a.notes.push(Note::OffsetNotInLog {
                        offset: o,
                        starts_at: a.offset.unwrap_or(o),
                    });
                }
                a
            }
            None => Answer::none(Note::NoRecordFromOffset {
                offset: o,
                log_end: leo,
            }),
        })
    }

    /// ListOffsets EARLIEST: the log start offset, with its epoch from the checkpoint.
    pub(super) fn earliest(&mut self, log_start: i64) -> Answer {
        let epoch = self.epoch_checkpoint().and_then(|c| {
            let (c, _) = super::epoch::load_cache(c, log_start, -1);
            epoch_for_offset(&c, log_start)
        });
        Answer {
            offset: Some(log_start),
            leader_epoch: epoch,
            ..Default::default()
        }
    }

    /// ListOffsets LATEST: the log end offset, with the latest epoch of the checkpoint.
    pub(super) fn latest(&mut self, leo: i64) -> Answer {
        let epoch = self
            .epoch_checkpoint()
            .and_then(|c| c.iter().map(|e| e.epoch).max());
        let mut a = Answer {
            offset: Some(leo),
            leader_epoch: epoch,
            ..Default::default()
        };
        if let Some(hw) = self.target.high_watermark {
            if hw != leo {
                a.notes.push(Note::HighWatermark { high_watermark: hw });
            }
        }
        a
    }

    /// The batch holding offset `o` (or the first after it), index-guided.
    pub(super) fn batch_at(&mut self, o: i64) -> Result<Option<BatchFacts>, LookupError> {
        let i = self.segment_of(o);
        let (entry, _) = self.floor::<Offsets>(i, o)?;
        let from = self.checked_position(i, entry.position as u64)?;
        for j in i..self.segments.len() {
            let start = if j == i { from } else { 0 };
            let mut hit = None;
            self.walk(
                j,
                start,
                &mut Headers(|b: &BatchAt| {
                    if b.info.last_offset >= o {
                        hit = Some(b.facts());
                        Flow::Stop
                    } else {
                        Flow::Continue
                    }
                }),
            )?;
            if hit.is_some() {
                return Ok(hit);
            }
        }
        Ok(None)
    }

    /// The last batch of the partition (walked from the last index entry of the last
    /// non-empty segment).
    pub(super) fn last_batch(&mut self) -> Result<Option<BatchFacts>, LookupError> {
        for i in (0..self.segments.len()).rev() {
            let from = self.last_indexed_position(i)?;
            let mut last = None;
            self.walk(
                i,
                from,
                &mut Headers(|b: &BatchAt| {
                    last = Some(b.facts());
                    Flow::Continue
                }),
            )?;
            if last.is_some() {
                return Ok(last);
            }
        }
        Ok(None)
    }
}
