//! `UnifiedLog.deleteOldSegments` as Kafka 4.4 runs it, over what a [`SegmentView`] tells of a
//! partition's segments: the log-start-offset rule, then (with `delete` in `cleanup.policy`)
//! the size rule and the time rule, each walking from the oldest segment until the first that
//! does not qualify (`deletableSegments`): never a segment reaching past the high watermark,
//! never a last segment that is empty; deleting every segment rolls a new empty one at the log
//! end offset first (`deleteSegments`). Remote storage off. Pure: no file is touched here.

use super::{Largest, Rule};

/// A partition's segments as the rules see them. A `.log` is read (by [`SegmentView::largest`]
/// and [`SegmentView::log_end_offset`]) only when Kafka's decision needs what only it holds.
pub(super) trait SegmentView {
    fn count(&self) -> usize;
    fn base(&self, i: usize) -> i64;
    /// `LogSegment.size`: the `.log`'s bytes.
    fn size(&self, i: usize) -> u64;
    /// `LogSegment.largestTimestamp` as the broker has it in memory.
    fn largest(&mut self, i: usize) -> Largest;
    /// `UnifiedLog.logEndOffset`.
    fn log_end_offset(&mut self) -> i64;
}

/// Why a rule's walk stopped at a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StopCause {
    /// The high watermark is below the segment's end (the next segment's base offset, or the
    /// log end offset for the last; `None` when it is below the last segment's base, so that
    /// the log end was not needed).
    HighWatermark { upper: Option<i64> },
    /// The rule's own test failed.
    Rule,
    /// The last segment, empty: never deleted.
    LastAndEmpty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stop {
    pub at: usize,
    pub cause: StopCause,
}

/// What the rules are run with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Params {
    pub now: i64,
    /// `None`: at the log end (no checkpoint says otherwise).
    pub high_watermark: Option<i64>,
    pub log_start_offset: i64,
    pub delete: bool,
    pub retention_ms: i64,
    pub retention_bytes: i64,
}

/// One run of `deleteOldSegments`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Outcome {
    /// Segments deleted (by index), in order, with the rule that deleted them.
    pub deleted: Vec<(usize, Rule)>,
    /// The log end offset where a new empty segment was rolled (every segment went).
    pub rolled_at: Option<i64>,
    pub log_start_offset_after: i64,
    /// The first segment left (== count when every one went).
    pub first_kept: usize,
    pub start_stop: Option<Stop>,
    pub size_stop: Option<Stop>,
    /// The excess over `retention.bytes` left when the size rule stopped.
    pub size_excess: Option<i64>,
    pub time_stop: Option<Stop>,
}

struct Walk<'v, V: SegmentView> {
    view: &'v mut V,
    params: Params,
    first: usize,
    rolled_at: Option<i64>,
    log_start: i64,
    deleted: Vec<(usize, Rule)>,
}

impl<V: SegmentView> Walk<'_, V> {
    /// `deletableSegments`: from the oldest segment left while `test` holds; the test is not
    /// asked of a segment the high watermark stops (`highWatermark >= upper && test`).
    fn deletable(
        &mut self,
        test: &mut dyn FnMut(&mut V, usize, Option<usize>) -> bool,
    ) -> (usize, Option<Stop>) {
        if self.rolled_at.is_some() {
            // Only the new empty active segment is left.
            return (0, None);
        }
        let n = self.view.count();
        let mut count = 0;
        for i in self.first..n {
            let next = (i + 1 < n).then_some(i + 1);
            let hw_ok = match (self.params.high_watermark, next) {
                (None, _) => true,
                (Some(hw), Some(j)) => hw >= self.view.base(j),
                (Some(hw), None) => hw >= self.view.base(i) && hw >= self.view.log_end_offset(),
            };
            let holds = hw_ok && test(self.view, i, next);
            let last_and_empty = next.is_none() && self.view.size(i) == 0;
            if holds && !last_and_empty {
                count += 1;
                continue;
            }
            // An empty last segment is never deleted, whatever its mtime says: it holds nothing
            // and shields nothing, so its (mtime) timestamp is no blocker.
            let cause = if last_and_empty {
                StopCause::LastAndEmpty
            } else if !hw_ok {
                let upper = match next {
                    Some(j) => Some(self.view.base(j)),
                    None if self.params.high_watermark >= Some(self.view.base(i)) => {
                        Some(self.view.log_end_offset())
                    }
                    None => None,
                };
                StopCause::HighWatermark { upper }
            } else {
                StopCause::Rule
            };
            return (count, Some(Stop { at: i, cause }));
        }
        (count, None)
    }

    /// `deleteSegments`: the first `count` segments left go; when they are all of them, a new
    /// segment is rolled at the log end first. The log start offset moves to the first segment
    /// left (`maybeIncrementLogStartOffset`: only forward).
    fn delete(&mut self, count: usize, rule: Rule) {
        if count == 0 {
            return;
        }
        let n = self.view.count();
        let end = self.first + count;
        self.deleted.extend((self.first..end).map(|i| (i, rule)));
        let new_start = if end == n {
            let leo = self.view.log_end_offset();
            self.rolled_at = Some(leo);
            leo
        } else {
            self.view.base(end)
        };
        self.log_start = self.log_start.max(new_start);
        self.first = end;
    }

    fn size_left(&self) -> i64 {
        (self.first..self.view.count())
            .map(|i| self.view.size(i) as i64)
            .sum()
    }
}

/// `UnifiedLog.deleteOldSegments` at `params.now`.
pub(super) fn delete_old_segments<V: SegmentView>(view: &mut V, params: Params) -> Outcome {
    let mut w = Walk {
        view,
        params,
        first: 0,
        rolled_at: None,
        log_start: params.log_start_offset,
        deleted: Vec::new(),
    };
    let mut out = Outcome::default();
    // deleteLogStartOffsetBreachedSegments: the next segment starts at or below the log start.
    let log_start = w.log_start;
    let (n, stop) = w.deletable(&mut |v, _, next| next.is_some_and(|j| v.base(j) <= log_start));
    w.delete(n, Rule::LogStartOffset);
    out.start_stop = stop;
    if params.delete {
        // deleteRetentionSizeBreachedSegments: whole segments while the excess covers them.
        let size = w.size_left();
        if params.retention_bytes >= 0 && size >= params.retention_bytes {
            let mut diff = size - params.retention_bytes;
            let (n, stop) = w.deletable(&mut |v, i, _| {
                let s = v.size(i) as i64;
                let delete = diff.wrapping_sub(s) >= 0;
                if delete {
                    diff -= s;
                }
                delete
            });
            w.delete(n, Rule::RetentionSize);
            out.size_stop = stop;
            out.size_excess = Some(diff);
        }
        // deleteRetentionMsBreachedSegments: now - largestTimestamp > retention.ms (Java's
        // wrapping long arithmetic).
        if params.retention_ms >= 0 {
            let (now, limit) = (params.now, params.retention_ms);
            let (n, stop) =
                w.deletable(&mut |v, i, _| now.wrapping_sub(v.largest(i).timestamp) > limit);
            w.delete(n, Rule::RetentionTime);
            out.time_stop = stop;
        }
    }
    out.deleted = w.deleted;
    out.rolled_at = w.rolled_at;
    out.log_start_offset_after = w.log_start;
    out.first_kept = w.first;
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::TimestampSource;
    use super::*;

    /// Segments as (base, size, largest timestamp), with the log end offset.
    pub struct Fake {
        pub segs: Vec<(i64, u64, i64)>,
        pub leo: i64,
        pub leo_asked: bool,
        pub largest_asked: Vec<usize>,
    }

    impl Fake {
        pub fn new(segs: &[(i64, u64, i64)], leo: i64) -> Fake {
            Fake {
                segs: segs.to_vec(),
                leo,
                leo_asked: false,
                largest_asked: Vec::new(),
            }
        }
    }

    impl SegmentView for Fake {
        fn count(&self) -> usize {
            self.segs.len()
        }
        fn base(&self, i: usize) -> i64 {
            self.segs[i].0
        }
        fn size(&self, i: usize) -> u64 {
            self.segs[i].1
        }
        fn largest(&mut self, i: usize) -> Largest {
            self.largest_asked.push(i);
            Largest {
                timestamp: self.segs[i].2,
                offset: None,
                source: TimestampSource::TimeIndex,
                exact: true,
            }
        }
        fn log_end_offset(&mut self) -> i64 {
            self.leo_asked = true;
            self.leo
        }
    }

    const DAY: i64 = 86_400_000;
    const NOW: i64 = 100 * DAY;

    pub fn params() -> Params {
        Params {
            now: NOW,
            high_watermark: None,
            log_start_offset: 0,
            delete: true,
            retention_ms: 7 * DAY,
            retention_bytes: -1,
        }
    }

    fn deleted(o: &Outcome) -> Vec<(usize, Rule)> {
        o.deleted.clone()
    }

    #[test]
    fn time_rule_stops_at_the_first_segment_inside_retention() {
        let mut f = Fake::new(
            &[
                (0, 100, NOW - 9 * DAY),
                (10, 100, NOW - 8 * DAY),
                (20, 100, NOW - DAY),
                (30, 100, NOW - 20 * DAY),
                (40, 50, NOW),
            ],
            45,
        );
        let o = delete_old_segments(&mut f, params());
        assert_eq!(
            deleted(&o),
            [(0, Rule::RetentionTime), (1, Rule::RetentionTime)]
        );
        assert_eq!(o.log_start_offset_after, 20);
        assert_eq!(
            o.time_stop,
            Some(Stop {
                at: 2,
                cause: StopCause::Rule
            })
        );
        // Segment 3 is older but behind segment 2; its timestamp was never asked.
        assert!(!f.largest_asked.contains(&3));
        assert!(!f.leo_asked);
    }

    #[test]
    fn a_future_timestamp_shields_every_later_segment() {
        let mut f = Fake::new(
            &[
                (0, 100, NOW - 9 * DAY),
                (10, 100, NOW + 365 * DAY),
                (20, 100, NOW - 9 * DAY),
                (30, 10, NOW),
            ],
            35,
        );
        let o = delete_old_segments(&mut f, params());
        assert_eq!(deleted(&o), [(0, Rule::RetentionTime)]);
        assert_eq!(
            o.time_stop,
            Some(Stop {
                at: 1,
                cause: StopCause::Rule
            })
        );
    }

    #[test]
    fn exactly_at_retention_is_kept_one_ms_later_deleted() {
        let mut p = params();
        let mut f = Fake::new(&[(0, 100, NOW - 7 * DAY), (10, 1, NOW)], 11);
        assert!(delete_old_segments(&mut f, p).deleted.is_empty());
        p.now += 1;
        assert_eq!(
            delete_old_segments(&mut f, p).deleted,
            [(0, Rule::RetentionTime)]
        );
    }

    #[test]
    fn the_high_watermark_stops_every_rule_and_spares_the_size_budget() {
        let mut p = params();
        p.high_watermark = Some(15);
        p.retention_bytes = 100;
        let mut f = Fake::new(
            &[
                (0, 100, NOW - 9 * DAY),
                (10, 100, NOW - 9 * DAY),
                (20, 100, NOW - 9 * DAY),
            ],
            30,
        );
        let o = delete_old_segments(&mut f, p);
        // Size: 300 - 100 = 200 covers two segments, but the second ends at 20 > 15.
        assert_eq!(deleted(&o), [(0, Rule::RetentionSize)]);
        assert_eq!(
            o.size_stop,
            Some(Stop {
                at: 1,
                cause: StopCause::HighWatermark { upper: Some(20) }
            })
        );
        // The test was not run for the stopped segment: the excess still holds its size.
        assert_eq!(o.size_excess, Some(100));
        assert_eq!(
            o.time_stop,
            Some(Stop {
                at: 1,
                cause: StopCause::HighWatermark { upper: Some(20) }
            })
        );
        assert!(!f.leo_asked);
    }

    #[test]
    fn size_rule_deletes_whole_segments_while_the_excess_covers_them() {
        let mut p = params();
        p.retention_ms = -1;
        p.retention_bytes = 250;
        let mut f = Fake::new(&[(0, 100, 0), (10, 100, 0), (20, 100, 0), (30, 100, 0)], 40);
        // 400 - 250 = 150: the first (100) fits, the second (100 > 50) does not.
        let o = delete_old_segments(&mut f, p);
        assert_eq!(deleted(&o), [(0, Rule::RetentionSize)]);
        assert_eq!(o.size_excess, Some(50));
        p.retention_bytes = 200;
        let o = delete_old_segments(&mut f, p);
        assert_eq!(
            deleted(&o),
            [(0, Rule::RetentionSize), (1, Rule::RetentionSize)]
        );
        // Below the limit, the rule does not run at all.
        p.retention_bytes = 401;
        assert_eq!(delete_old_segments(&mut f, p).size_excess, None);
    }

    #[test]
    fn the_active_segment_goes_only_when_non_empty_and_at_the_high_watermark_and_kafka_rolls_first()
    {
        let mut p = params();
        let segs = [(0, 100, NOW - 9 * DAY), (10, 100, NOW - 9 * DAY)];
        let mut f = Fake::new(&segs, 17);
        let o = delete_old_segments(&mut f, p);
        assert_eq!(
            deleted(&o),
            [(0, Rule::RetentionTime), (1, Rule::RetentionTime)]
        );
        assert_eq!(
            (o.rolled_at, o.log_start_offset_after, o.first_kept),
            (Some(17), 17, 2)
        );
        p.high_watermark = Some(16);
        let mut f = Fake::new(&segs, 17);
        let o = delete_old_segments(&mut f, p);
        assert_eq!(deleted(&o), [(0, Rule::RetentionTime)]);
        assert_eq!(
            o.time_stop,
            Some(Stop {
                at: 1,
                cause: StopCause::HighWatermark { upper: Some(17) }
            })
        );
        // An empty last segment is never deleted, the rest are.
        let mut f = Fake::new(&[(0, 100, NOW - 9 * DAY), (10, 0, NOW - 9 * DAY)], 10);
        let o = delete_old_segments(&mut f, params());
        assert_eq!(deleted(&o), [(0, Rule::RetentionTime)]);
        assert_eq!(
            o.time_stop,
            Some(Stop {
                at: 1,
                cause: StopCause::LastAndEmpty
            })
        );
        assert_eq!(o.rolled_at, None);
    }

    #[test]
    fn log_start_offset_rule_runs_without_delete_in_the_policy() {
        let mut p = params();
        p.delete = false;
        p.log_start_offset = 25;
        let mut f = Fake::new(
            &[
                (0, 100, NOW - 9 * DAY),
                (10, 100, NOW - 9 * DAY),
                (20, 100, NOW - 9 * DAY),
                (30, 5, NOW),
            ],
            31,
        );
        let o = delete_old_segments(&mut f, p);
        // Segment 20 holds the log start: it stays.
        assert_eq!(
            deleted(&o),
            [(0, Rule::LogStartOffset), (1, Rule::LogStartOffset)]
        );
        assert_eq!(o.log_start_offset_after, 25);
        assert_eq!(o.time_stop, None);
    }
}
