//! `--scan`: the answer again from every record of every segment, ignoring the indexes, and
//! why it differs from the index-guided one when it may.

use kseg_format::log::LogRecord;
use kseg_format::text_files::EpochEntry;
use kseg_scan::Flow;

use super::epoch::{assign_from_batch, epoch_answer, load_cache};
use super::explain::Step;
use super::reader::{BatchAt, BatchVisitor, PartitionReader, Visit};
use super::{Answer, EpochDifference, LookupError, Note, Query, ScanReason};

/// What a scan of every batch (and, for some queries, every record) gathers.
struct Gathered<'a> {
    query: Query,
    log_start: i64,
    decode_all: bool,
    logs: Vec<&'a std::path::Path>,
    last_offset: Option<i64>,
    epochs_from_batches: Vec<EpochEntry>,
    /// Per segment: the largest batch maxTimestamp and the broker's candidate for T.
    segment_max: Vec<i64>,
    segment_candidate: Vec<Option<Answer>>,
    first_at_timestamp: Option<Answer>,
    first_at_offset: Option<Answer>,
    max_record: Option<Answer>,
    /// The segment and value of the greatest batch maxTimestamp.
    broker_max: Option<(usize, i64)>,
}

impl Gathered<'_> {
    fn hit(&self, b: &BatchAt, offset: i64, ts: i64) -> Answer {
        Answer::at(self.logs[b.segment], b, offset, (ts >= 0).then_some(ts))
    }
}

impl BatchVisitor for Gathered<'_> {
    fn batch(&mut self, b: &BatchAt) -> Visit {
        let info = &b.info;
        self.last_offset = Some(
            self.last_offset
                .map_or(info.last_offset, |l| l.max(info.last_offset)),
        );
        assign_from_batch(&mut self.epochs_from_batches, info);
        let m = &mut self.segment_max[b.segment];
        *m = (*m).max(info.max_timestamp);
        if !self.decode_all {
            return Visit::Next;
        }
        if matches!(self.query, Query::MaxTimestamp)
            && self.broker_max.is_none_or(|(_, m)| info.max_timestamp > m)
        {
            self.broker_max = Some((b.segment, info.max_timestamp));
        }
        Visit::Records
    }

    fn record(&mut self, b: &BatchAt, r: &LogRecord<'_>) {
        let (offset, ts) = (r.offset, r.timestamp);
        match self.query {
            Query::Timestamp(t) if ts >= t && offset >= self.log_start => {
                if self.first_at_timestamp.is_none() {
                    self.first_at_timestamp = Some(self.hit(b, offset, ts));
                }
                if b.info.max_timestamp >= t && self.segment_candidate[b.segment].is_none() {
                    self.segment_candidate[b.segment] = Some(self.hit(b, offset, ts));
                }
            }
            Query::Offset(o) if offset >= o && self.first_at_offset.is_none() => {
                self.first_at_offset = Some(self.hit(b, offset, ts));
            }
            Query::MaxTimestamp
                if ts >= 0
                    && self
                        .max_record
                        .as_ref()
                        .is_none_or(|m| Some(ts) > m.timestamp) =>
            {
                self.max_record = Some(self.hit(b, offset, ts));
            }
            _ => {}
        }
    }

    fn batch_done(&mut self, _: &BatchAt) -> Flow {
        Flow::Continue
    }
}

impl PartitionReader<'_> {
    /// Answers from every record of every segment, ignoring the indexes; returns the answer and
    /// why it differs from `indexed` (computed only when it may).
    pub(super) fn scan(
        &mut self,
        query: Query,
        log_start: i64,
        indexed: &Answer,
    ) -> Result<(Answer, Option<ScanReason>), LookupError> {
        let n = self.segments.len();
        let decode_all = matches!(
            query,
            Query::Timestamp(_) | Query::Offset(_) | Query::MaxTimestamp
        );
        let mut g = Gathered {
            query,
            log_start,
            decode_all,
            logs: (0..n).map(|i| self.log(i)).collect(),
            last_offset: None,
            epochs_from_batches: Vec::new(),
            segment_max: vec![-1; n],
            segment_candidate: vec![None; n],
            first_at_timestamp: None,
            first_at_offset: None,
            max_record: None,
            broker_max: None,
        };
        for i in 0..n {
            self.walk(i, 0, &mut g)?;
        }
        let last_base = self.base_offset(n - 1);
        let leo = g
            .last_offset
            .map_or(last_base, |l| l.saturating_add(1).max(last_base));
        self.step(Step::ReadEverything {
            segments: n,
            records_decoded: decode_all,
            log_end: leo,
        });
        Ok(match query {
            Query::Timestamp(t) => self.timestamp_reason(g, t, indexed),
            Query::Offset(o) => {
                let answer = if o < log_start || o > leo {
                    Answer::none(Note::ScanOffsetOutOfRange {
                        offset: o,
                        log_start,
                        log_end: leo,
                    })
                } else if o == leo {
                    Answer::none(Note::ScanOffsetIsLogEnd { offset: o })
                } else {
                    g.first_at_offset
                        .unwrap_or_else(|| Answer::none(Note::ScanNoRecordFromOffset { offset: o }))
                };
                (answer, Some(ScanReason::OffsetIndexesDisagree))
            }
            Query::Earliest => (indexed.clone(), None),
            Query::Latest => (
                Answer {
                    offset: Some(leo),
                    leader_epoch: indexed.leader_epoch,
                    ..Default::default()
                },
                Some(ScanReason::LogEndDiffers { log_end: leo }),
            ),
            Query::MaxTimestamp => {
                let answer = g
                    .max_record
                    .unwrap_or_else(|| Answer::none(Note::ScanNoTimestamp));
                let reason = match g.broker_max {
                    Some((i, m)) if answer.timestamp != Some(m) => ScanReason::BatchMaxTimestamps {
                        max_timestamp: m,
                        segment: self.log(i).to_path_buf(),
                    },
                    _ => ScanReason::TimeIndexesDisagree,
                };
                (answer, Some(reason))
            }
            Query::EndOffsetForEpoch(e) => {
                let (cache, _) = load_cache(g.epochs_from_batches, log_start, leo);
                self.step(Step::EpochsFromBatches(cache.clone()));
                let mut answer = epoch_answer(&cache, e, leo);
                let checkpoint = self
                    .epoch_checkpoint()
                    .map(|c| load_cache(c, log_start, leo).0);
                let reason = match checkpoint {
                    Some(c) if c != cache => {
                        let d = EpochDifference::between(&c, &cache);
                        answer.notes.push(Note::CheckpointAndBatches(d.clone()));
                        Some(ScanReason::EpochCaches(d))
                    }
                    _ => None,
                };
                (answer, reason)
            }
        })
    }

    /// The scan's answer for a timestamp, and why the index-guided one differs: the broker's
    /// rule (only the first segment whose largest timestamp reaches the target is searched),
    /// applied to the records without the indexes, or indexes that disagree with the log.
    fn timestamp_reason(
        &self,
        g: Gathered<'_>,
        t: i64,
        indexed: &Answer,
    ) -> (Answer, Option<ScanReason>) {
        let answer = g.first_at_timestamp.unwrap_or_else(|| {
            Answer::none(Note::ScanNoRecordAtTimestamp {
                target: t,
                log_start: g.log_start,
            })
        });
        let mut broker: Option<(usize, i64)> = None;
        for (i, &m) in g.segment_max.iter().enumerate() {
            let largest = if m >= 0 { m } else { self.mtime_ms(i) };
            if largest >= t {
                broker = Some((i, largest));
                break;
            }
        }
        let broker_answer = broker.and_then(|(i, _)| g.segment_candidate[i].clone());
        let reason = if broker_answer.as_ref().is_none_or(|b| b.same_as(indexed))
            && (broker_answer.is_some() || indexed.offset.is_none())
        {
            match broker {
                Some((i, largest)) => ScanReason::OnlyFirstSegmentSearched {
                    target: t,
                    segment: self.log(i).to_path_buf(),
                    largest,
                    from_mtime: g.segment_max[i] < 0,
                    indexed: Box::new(indexed.clone()),
                },
                None => ScanReason::NoSegmentReaches,
            }
        } else {
            ScanReason::TimestampIndexesDisagree {
                by_rule: broker_answer.map(Box::new),
                indexed: Box::new(indexed.clone()),
            }
        };
        (answer, Some(reason))
    }
}
