//! The timestamp questions: `offsetsForTimes` (ListOffsets with a time, as
//! `UnifiedLog.fetchOffsetByTimestamp` answers it) and MAX_TIMESTAMP (-3), both over each
//! segment's largest timestamp (`LogSegment.maxTimestampSoFar`, `largestTimestamp`).

use kseg_format::index::{Offsets, Times};
use kseg_format::log::LogRecord;
use kseg_scan::Flow;

use super::explain::{LargestTimestamp, RaisedTarget, SegmentMaxSource, Step};
use super::reader::{BatchAt, FirstRecord, Headers, PartitionReader, SegmentMax, Visit};
use super::{Answer, LookupError, Note};

impl PartitionReader<'_> {
    /// `LogSegment.maxTimestampSoFar` with the offset carrying it: the last time-index entry,
    /// raised by the batches after the last offset-index entry (what the broker has in memory
    /// for an active segment, and after recovery rebuilds a crashed segment's indexes).
    pub(super) fn segment_max(&mut self, i: usize) -> Result<SegmentMax, LookupError> {
        if let Some(m) = &self.segments[i].max {
            return Ok(m.clone());
        }
        let base = self.base_offset(i);
        let files = self.segments[i].files;
        if files.time_index.is_none() && files.offset_index.is_some() && i + 1 < self.segments.len()
        {
            // LogLoader creates a missing `.timeindex` empty beside an existing `.index` (with
            // no `.index` it would recover the segment and rebuild both) and
            // LogSegment takes its max timestamp from the time index: none, so the broker
            // falls back to the file's mtime for this sealed segment.
            let m = SegmentMax {
                timestamp: -1,
                offset: base,
                source: SegmentMaxSource::NoTimeIndex,
            };
            self.segments[i].max = Some(m.clone());
            return Ok(m);
        }
        let last_time_entry = self.last_entry::<Times>(i)?;
        let (mut timestamp, mut offset) =
            last_time_entry.map_or((-1, base), |e| (e.timestamp, e.offset));
        let from = self.last_indexed_position(i)?;
        let mut batches = 0u64;
        let mut raised = false;
        self.walk(
            i,
            from,
            &mut Headers(|b: &BatchAt| {
                batches += 1;
                if b.info.max_timestamp > timestamp {
                    timestamp = b.info.max_timestamp;
                    offset = b.info.last_offset;
                    raised = true;
                }
                Flow::Continue
            }),
        )?;
        let m = SegmentMax {
            timestamp,
            offset,
            source: SegmentMaxSource::Indexes {
                last_time_entry,
                batches,
                from,
                raised,
            },
        };
        self.segments[i].max = Some(m.clone());
        Ok(m)
    }

    /// `LogSegment.largestTimestamp`: the max timestamp, or the `.log` mtime when there is none.
    fn largest_timestamp(&mut self, i: usize) -> Result<LargestTimestamp, LookupError> {
        let m = self.segment_max(i)?;
        let from_mtime = m.timestamp < 0;
        Ok(LargestTimestamp {
            timestamp: if from_mtime {
                self.mtime_ms(i)
            } else {
                m.timestamp
            },
            source: m.source,
            from_mtime,
        })
    }

    pub(super) fn by_timestamp(&mut self, t: i64, log_start: i64) -> Result<Answer, LookupError> {
        let mut chosen = None;
        for i in 0..self.segments.len() {
            let largest = self.largest_timestamp(i)?;
            let reaches = largest.timestamp >= t;
            self.step(Step::SegmentByLargestTimestamp {
                segment: self.log(i).to_path_buf(),
                largest,
                target: t,
                chosen: reaches,
            });
            if reaches {
                chosen = Some(i);
                break;
            }
        }
        let Some(i) = chosen else {
            return Ok(Answer::none(Note::NoSegmentReaches { target: t }));
        };
        let (time_entry, time_slot) = self.floor::<Times>(i, t)?;
        let entries = self.index_entries::<Times>(i);
        self.step(Step::TimeIndexFloor {
            entries,
            target: t,
            entry: time_entry,
            slot: time_slot,
        });
        let start_offset = time_entry.offset.max(log_start);
        let entry = self.offset_floor_step(
            i,
            start_offset,
            Some(RaisedTarget {
                time_index_offset: time_entry.offset,
                log_start,
            }),
        )?;
        let from = self.checked_position(i, entry.position as u64)?;
        let before = (self.trace.batches_scanned, self.trace.records_decoded);
        let mut skipped = 0u64;
        let mut visitor = FirstRecord::new(
            |b: &BatchAt| {
                if b.info.max_timestamp < t {
                    skipped += 1;
                    Visit::Next
                } else {
                    Visit::Records
                }
            },
            |r: &LogRecord<'_>| r.timestamp >= t && r.offset >= log_start,
        );
        self.walk(i, from, &mut visitor)?;
        let found = visitor.found;
        self.step(Step::ScannedForTimestamp {
            segment: self.log(i).to_path_buf(),
            from,
            batches: self.trace.batches_scanned - before.0,
            skipped,
            records: self.trace.records_decoded - before.1,
            target: t,
        });
        Ok(match found {
            Some(hit) => Answer::at(self.log(i), &hit.batch, hit.offset, Some(hit.timestamp)),
            None => Answer::none(Note::NoRecordInSegment {
                segment: self.log(i).to_path_buf(),
                target: t,
                log_start,
            }),
        })
    }

    pub(super) fn max_timestamp(&mut self) -> Result<Answer, LookupError> {
        let mut best: Option<(usize, SegmentMax)> = None;
        for i in 0..self.segments.len() {
            let m = self.segment_max(i)?;
            self.step(Step::SegmentMaxTimestamp {
                segment: self.log(i).to_path_buf(),
                timestamp: m.timestamp,
                offset: m.offset,
                source: m.source.clone(),
            });
            if best.as_ref().is_none_or(|(_, b)| m.timestamp > b.timestamp) {
                best = Some((i, m));
            }
        }
        let (i, m) = best.expect("at least one segment");
        let (entry, _) = self.floor::<Offsets>(i, m.offset)?;
        self.step(Step::GreatestMaxTimestamp {
            segment: self.log(i).to_path_buf(),
            offset: m.offset,
            entry,
        });
        let from = self.checked_position(i, entry.position as u64)?;
        let mut none_reason = None;
        let before = self.trace.batches_scanned;
        // RecordBatch.offsetOfMaxTimestamp: none for magic 0, else the first record carrying
        // the batch's max timestamp; only the first batch with that maxTimestamp is looked at.
        let mut visitor = FirstRecord::new(
            |b: &BatchAt| {
                if b.info.max_timestamp != m.timestamp {
                    Visit::Next
                } else if b.info.magic == 0 {
                    none_reason = Some(Note::MaxTimestampInMagic0 {
                        position: b.position,
                    });
                    Visit::Stop
                } else {
                    Visit::Records
                }
            },
            |r: &LogRecord<'_>| r.timestamp == m.timestamp,
        );
        visitor.stop_after_batch = true;
        self.walk(i, from, &mut visitor)?;
        let (found, decoded_batch) = (visitor.found, visitor.last_decoded.map(|b| b.position));
        self.step(Step::ScannedForMaxTimestamp {
            from,
            batches: self.trace.batches_scanned - before,
            max_timestamp: m.timestamp,
        });
        if let Some(hit) = found {
            return Ok(Answer::at(
                self.log(i),
                &hit.batch,
                hit.offset,
                Some(hit.batch.info.max_timestamp),
            ));
        }
        Ok(Answer::none(none_reason.unwrap_or_else(
            || match decoded_batch {
                Some(position) => Note::MaxTimestampNotInRecords {
                    position,
                    max_timestamp: m.timestamp,
                },
                None => Note::NoBatchWithMaxTimestamp {
                    segment: self.log(i).to_path_buf(),
                    from,
                    max_timestamp: m.timestamp,
                },
            },
        )))
    }
}
