//! `kseg rescue`'s source→target offset map and the translation of consumer-group offsets
//! through it.
//!
//! Offsets shift in the target: the records a rescue does not send (aborted, of open
//! transactions, control batches, failing their checksum, outside the asked range) take no offset
//! there, so source offset 1375 may be target offset 1371. The map keeps, per source partition,
//! ranges of consecutive source offsets that were all sent and landed at consecutive target
//! offsets of one target partition: `[first, last, partition, target]` says source offsets
//! `first..=last` are target offsets `target..=target+(last-first)` of target partition
//! `partition`. A source offset in no range was not sent.
//!
//! A committed offset is the next record a consumer reads; translated, it is where the same
//! consumer resumes in the target: the target offset of the record itself when it was sent, else
//! of the next record sent after it (a read_committed consumer skips aborted records and markers
//! the same way), else the end of what was rescued.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::groups::GroupState;

/// Source offsets `first..=last`, every one sent, at target offsets from `target` on in target
/// partition `partition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "[i64; 4]", into = "[i64; 4]")]
pub struct MapRange {
    pub first: i64,
    pub last: i64,
    pub partition: i32,
    pub target: i64,
}

impl MapRange {
    /// The target offset of `last`.
    pub fn target_last(&self) -> i64 {
        self.target + (self.last - self.first)
    }
}

impl TryFrom<[i64; 4]> for MapRange {
    type Error = String;
    fn try_from(a: [i64; 4]) -> Result<Self, String> {
        let [first, last, partition, target] = a;
        let partition = i32::try_from(partition)
            .ok()
            .filter(|p| *p >= 0)
            .ok_or_else(|| format!("offset map range {a:?}: partition {partition} out of range"))?;
        if first < 0 || last < first || target < 0 || target.checked_add(last - first).is_none() {
            return Err(format!(
                "offset map range {a:?}: wants [first source offset, last source offset, target \
                 partition, first target offset] with 0 <= first <= last"
            ));
        }
        Ok(MapRange {
            first,
            last,
            partition,
            target,
        })
    }
}

impl From<MapRange> for [i64; 4] {
    fn from(r: MapRange) -> [i64; 4] {
        [r.first, r.last, r.partition as i64, r.target]
    }
}

/// One source partition's map: its ranges in source-offset order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RescueMap {
    ranges: Vec<MapRange>,
}

impl RescueMap {
    pub fn ranges(&self) -> &[MapRange] {
        &self.ranges
    }

    /// Records the map covers.
    pub fn records(&self) -> u64 {
        self.ranges
            .iter()
            .map(|r| (r.last - r.first) as u64 + 1)
            .sum()
    }

    /// Whether the ranges are in source-offset order without overlapping (a state file read
    /// back is checked: a lookup relies on it).
    pub fn is_ordered(&self) -> bool {
        self.ranges.windows(2).all(|w| w[0].last < w[1].first)
    }

    /// A record sent: source `offset` (greater than every offset before) is target offset
    /// `target` of `partition`.
    pub fn push(&mut self, offset: i64, partition: i32, target: i64) {
        if let Some(last) = self.ranges.last_mut() {
            if last.partition == partition
                && last.last.checked_add(1) == Some(offset)
                && last.target_last().checked_add(1) == Some(target)
            {
                last.last = offset;
                return;
            }
        }
        self.ranges.push(MapRange {
            first: offset,
            last: offset,
            partition,
            target,
        });
    }

    /// `other`'s ranges after this map's (their offsets all greater), joined at the seam.
    pub fn append(&mut self, other: &RescueMap) {
        for r in &other.ranges {
            match self.ranges.last_mut() {
                Some(last)
                    if last.partition == r.partition
                        && last.last.checked_add(1) == Some(r.first)
                        && last.target_last().checked_add(1) == Some(r.target) =>
                {
                    last.last = r.last
                }
                _ => self.ranges.push(*r),
            }
        }
    }

    /// Where source `offset` went, if it was sent: (target partition, target offset).
    pub fn get(&self, offset: i64) -> Option<(i32, i64)> {
        let i = self.ranges.partition_point(|r| r.last < offset);
        let r = self.ranges.get(i)?;
        (r.first <= offset).then(|| (r.partition, r.target + (offset - r.first)))
    }

    /// The first record sent at or after source `offset`: (its source offset, target
    /// partition, target offset).
    pub fn next_sent(&self, offset: i64) -> Option<(i64, i32, i64)> {
        let i = self.ranges.partition_point(|r| r.last < offset);
        let r = self.ranges.get(i)?;
        let at = offset.max(r.first);
        Some((at, r.partition, r.target + (at - r.first)))
    }

    /// One past the last target offset this map wrote to `partition`.
    pub fn end(&self, partition: i32) -> Option<i64> {
        self.ranges
            .iter()
            .rev()
            .find(|r| r.partition == partition)
            .map(|r| r.target_last() + 1)
    }

    /// The last range.
    pub fn last(&self) -> Option<&MapRange> {
        self.ranges.last()
    }

    /// Whether this map can describe what a rescue keeping partition numbers wrote to target
    /// partition `w.partition`: every range there, target offsets rising with source offsets
    /// (a partition is written in order), inside what the rescue wrote (from `w.start` to
    /// `w.end`), no source offset past the acknowledged one, and nothing past the target
    /// partition's log end now. The first fault found, if any.
    pub fn fault(&self, w: &Written) -> Option<MapFault> {
        let mut previous: Option<&MapRange> = None;
        for r in &self.ranges {
            let fault = if r.partition != w.partition {
                Some(MapFault::OtherPartition {
                    range: *r,
                    expected: w.partition,
                })
            } else if let Some(p) = previous.filter(|p| r.target <= p.target_last()) {
                Some(MapFault::Backwards {
                    range: *r,
                    after: p.target_last(),
                })
            } else if let Some(start) = w.start.filter(|s| r.target < *s) {
                Some(MapFault::BeforeStart { range: *r, start })
            } else if let Some(end) = w.end.filter(|e| r.target_last() >= *e) {
                Some(MapFault::PastWritten { range: *r, end })
            } else if w.acknowledged.is_none_or(|a| r.last > a) {
                Some(MapFault::PastAcknowledged {
                    range: *r,
                    acknowledged: w.acknowledged,
                })
            } else {
                w.log_end
                    .filter(|e| r.target_last() >= *e)
                    .map(|end| MapFault::PastLogEnd {
                        range: *r,
                        log_end: end,
                    })
            };
            if fault.is_some() {
                return fault;
            }
            previous = Some(r);
        }
        None
    }
}

/// What a map is checked against ([`RescueMap::fault`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// The target partition the source's records go to.
    pub partition: i32,
    /// Where the rescue began writing it, and one past the last offset it wrote (the
    /// `--state` file's), when known.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// The last source offset acknowledged.
    pub acknowledged: Option<i64>,
    /// The target partition's log end offset now (none: not asked).
    pub log_end: Option<i64>,
}

/// Why an offset map does not describe the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapFault {
    /// A range in another target partition than the source's.
    OtherPartition { range: MapRange, expected: i32 },
    /// A range whose target offsets are not after the previous range's.
    Backwards { range: MapRange, after: i64 },
    /// Target offsets before where the rescue began writing.
    BeforeStart { range: MapRange, start: i64 },
    /// Target offsets at or past the end of what the rescue wrote.
    PastWritten { range: MapRange, end: i64 },
    /// Source offsets past the last one acknowledged.
    PastAcknowledged {
        range: MapRange,
        acknowledged: Option<i64>,
    },
    /// Target offsets at or past the target partition's log end now.
    PastLogEnd { range: MapRange, log_end: i64 },
}

/// Why a source offset was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSent {
    /// A record of an aborted transaction.
    Aborted,
    /// A record of a transaction with no marker (open or hanging).
    Open,
    /// A control record (a transaction marker).
    Control,
    /// A record of a batch failing its checksum.
    BadCrc,
    /// Outside `--from-timestamp`/`--to-timestamp`.
    OutsideTimestamps,
    /// No record has this offset in the source (compacted away, or unreadable).
    NoRecord,
    /// Below `--from-offset`.
    BeforeFromOffset(i64),
    /// Past `--to-offset`.
    AfterToOffset(i64),
    /// Sent, but not in the map (a map missing part of the rescue).
    Unmapped,
}

/// What one source partition's rescue gives the translation.
#[derive(Debug, Clone)]
pub struct SourceView<'a> {
    /// "topic-partition" of the source.
    pub name: String,
    pub map: &'a RescueMap,
    pub target_topic: String,
    /// The target partition (rescue keeps partition numbers).
    pub target_partition: i32,
    /// Where the rescue began writing the target partition: the end of what it rescued when
    /// it sent nothing there.
    pub target_start: Option<i64>,
    /// The source partition's log start and end offsets.
    pub log_start: Option<i64>,
    pub log_end: Option<i64>,
    /// `--from-offset`/`--to-offset`.
    pub offsets: (i64, i64),
    /// Map ranges from this source offset on are predicted (a dry run), not acknowledged.
    pub predicted_from: Option<i64>,
    /// Why the offsets that need it were not sent ([`offsets_needing_reasons`]).
    pub reasons: BTreeMap<i64, NotSent>,
    /// Why the map cannot be trusted ([`RescueMap::fault`]): nothing is translated through it.
    pub fault: Option<MapFault>,
    /// The target partition's log start and end offsets now, when asked: a translation outside
    /// them is not committed (a predicted one may be past the end).
    pub target_log: Option<(i64, i64)>,
}

impl SourceView<'_> {
    /// One past the last target offset of what was rescued from this source.
    fn end(&self) -> Option<i64> {
        self.map.end(self.target_partition).or(self.target_start)
    }

    fn predicted(&self, source_offset: Option<i64>) -> bool {
        match (self.predicted_from, source_offset) {
            (Some(p), Some(o)) => o >= p,
            // The end: predicted when the last range is.
            (Some(p), None) => self.map.last().is_none_or(|r| r.last >= p),
            (None, _) => false,
        }
    }

    fn reason(&self, offset: i64) -> NotSent {
        if offset < self.offsets.0 {
            NotSent::BeforeFromOffset(self.offsets.0)
        } else if offset > self.offsets.1 {
            NotSent::AfterToOffset(self.offsets.1)
        } else {
            self.reasons
                .get(&offset)
                .copied()
                .unwrap_or(NotSent::Unmapped)
        }
    }

    /// Committed offsets whose reason must be read from the source (records inside the asked
    /// range that are not in the map).
    pub fn offsets_needing_reasons(&self, committed: impl Iterator<Item = i64>) -> BTreeSet<i64> {
        committed
            .filter(|&c| {
                c >= self.offsets.0
                    && c <= self.offsets.1
                    && self.log_start.is_none_or(|s| c >= s)
                    && self.log_end.is_none_or(|e| c < e)
                    && self.map.get(c).is_none()
            })
            .collect()
    }

    /// Translates committed offset `c`, and checks the answer against the target partition's
    /// log now.
    pub fn translate(&self, c: i64) -> Translated {
        if let Some(f) = self.fault {
            return Translated::NotTranslated(Untranslatable::MapFault(f));
        }
        let t = self.translate_through_map(c);
        let (Some(target), Some((start, end))) = (t.target(), self.target_log) else {
            return t;
        };
        if target > end && !t.predicted() {
            Translated::NotTranslated(Untranslatable::BeyondTargetEnd {
                target,
                log_end: end,
            })
        } else if target < start {
            Translated::NotTranslated(Untranslatable::BelowTargetStart {
                target,
                log_start: start,
            })
        } else {
            t
        }
    }

    fn translate_through_map(&self, c: i64) -> Translated {
        if let Some(s) = self.log_start.filter(|&s| c < s) {
            return Translated::NotTranslated(Untranslatable::BelowLogStart(s));
        }
        if let Some(e) = self.log_end.filter(|&e| c > e) {
            return Translated::NotTranslated(Untranslatable::BeyondLogEnd(e));
        }
        if let Some((_, t)) = self.map.get(c) {
            return Translated::Exact {
                target: t,
                predicted: self.predicted(Some(c)),
            };
        }
        let Some(end) = self.end() else {
            return Translated::NotTranslated(Untranslatable::NoTargetPosition);
        };
        if self.log_end == Some(c) {
            return Translated::End {
                target: end,
                predicted: self.predicted(None),
            };
        }
        let why = self.reason(c);
        match self.map.next_sent(c) {
            Some((next, _, target)) => Translated::NextSent {
                target,
                why,
                next_source: Some(next),
                predicted: self.predicted(Some(next)),
            },
            None => Translated::NextSent {
                target: end,
                why,
                next_source: None,
                predicted: self.predicted(None),
            },
        }
    }
}

/// A committed offset that is not translated, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untranslatable {
    /// Below the source's log start offset (deleted there): a consumer resets it by its
    /// `auto.offset.reset`.
    BelowLogStart(i64),
    /// Beyond the source's log end offset.
    BeyondLogEnd(i64),
    /// Nothing was rescued from the source and where its target partition began is unknown.
    NoTargetPosition,
    /// The group has offsets on two source partitions that go to one target partition (named).
    SharedTarget(String),
    /// The offset map does not describe the target.
    MapFault(MapFault),
    /// The translation (`target`) is past the target partition's log end.
    BeyondTargetEnd { target: i64, log_end: i64 },
    /// The translation is below the target partition's log start (deleted there).
    BelowTargetStart { target: i64, log_start: i64 },
}

/// A committed offset translated (or not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Translated {
    /// The committed offset is a record sent: where it is in the target.
    Exact {
        target: i64,
        predicted: bool,
    },
    /// The source's log end (the consumer had read everything): the end of what was rescued.
    End {
        target: i64,
        predicted: bool,
    },
    /// The committed offset is a record not sent (`why`): the target offset of the next record
    /// sent (`next_source`), or the end of what was rescued when none follows.
    NextSent {
        target: i64,
        why: NotSent,
        next_source: Option<i64>,
        predicted: bool,
    },
    NotTranslated(Untranslatable),
}

impl Translated {
    pub fn target(&self) -> Option<i64> {
        match self {
            Translated::Exact { target, .. }
            | Translated::End { target, .. }
            | Translated::NextSent { target, .. } => Some(*target),
            Translated::NotTranslated(_) => None,
        }
    }

    /// `exact`, `next-sent` or `not-translated`.
    pub fn kind(&self) -> &'static str {
        match self {
            Translated::Exact { .. } | Translated::End { .. } => "exact",
            Translated::NextSent { .. } => "next-sent",
            Translated::NotTranslated(_) => "not-translated",
        }
    }

    pub fn predicted(&self) -> bool {
        match self {
            Translated::Exact { predicted, .. }
            | Translated::End { predicted, .. }
            | Translated::NextSent { predicted, .. } => *predicted,
            Translated::NotTranslated(_) => false,
        }
    }
}

/// One group's committed offset on a rescued source partition, translated.
#[derive(Debug, Clone)]
pub struct GroupOffset<'a> {
    pub group: &'a str,
    pub topic: &'a str,
    pub partition: i32,
    pub committed: i64,
    pub metadata: &'a str,
    pub target_topic: &'a str,
    pub target_partition: i32,
    pub translated: Translated,
}

/// Every group's committed offsets on the rescued partitions, translated; and per group how
/// many of its offsets are on partitions this rescue does not cover (left alone).
pub struct GroupTranslation<'a> {
    pub offsets: Vec<GroupOffset<'a>>,
    pub not_rescued: BTreeMap<&'a str, usize>,
}

/// Translates `groups`' committed offsets through `sources` (by source topic and partition).
pub fn translate_groups<'a>(
    groups: &'a BTreeMap<String, GroupState>,
    sources: &'a HashMap<(String, i32), SourceView<'a>>,
) -> GroupTranslation<'a> {
    let mut out = GroupTranslation {
        offsets: Vec::new(),
        not_rescued: BTreeMap::new(),
    };
    for (group, state) in groups {
        let first = out.offsets.len();
        for (key, committed) in state.offsets.iter() {
            let (topic, partition) = (key.0.as_ref(), key.1);
            let Some(view) = sources.get(&(topic.to_string(), partition)) else {
                *out.not_rescued.entry(group.as_str()).or_default() += 1;
                continue;
            };
            out.offsets.push(GroupOffset {
                group,
                topic,
                partition,
                committed: committed.offset,
                metadata: &committed.metadata,
                target_topic: &view.target_topic,
                target_partition: view.target_partition,
                translated: view.translate(committed.offset),
            });
        }
        // Two source partitions of one group going to one target partition (--topic-map
        // joining topics): neither offset is committed.
        let mine = &mut out.offsets[first..];
        let mut by_target: HashMap<(&str, i32), Vec<usize>> = HashMap::new();
        for (i, o) in mine.iter().enumerate() {
            by_target
                .entry((o.target_topic, o.target_partition))
                .or_default()
                .push(i);
        }
        for idx in by_target.values().filter(|v| v.len() > 1) {
            let names: Vec<String> = idx
                .iter()
                .map(|&i| format!("{}-{}", mine[i].topic, mine[i].partition))
                .collect();
            for (k, &i) in idx.iter().enumerate() {
                let others: Vec<&str> = names
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, n)| n.as_str())
                    .collect();
                mine[i].translated =
                    Translated::NotTranslated(Untranslatable::SharedTarget(others.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(sent: &[(i64, i64)]) -> RescueMap {
        let mut m = RescueMap::default();
        for &(o, t) in sent {
            m.push(o, 0, t);
        }
        m
    }

    #[test]
    fn ranges_join_consecutive_records_and_break_at_gaps() {
        // 0..=4 sent, 5 (a marker) and 6..=9 (aborted) not, 10..=13 sent.
        let sent: Vec<(i64, i64)> = (0..5).chain(10..14).zip(0..).collect();
        let m = map(&sent);
        assert_eq!(
            m.ranges(),
            [
                MapRange {
                    first: 0,
                    last: 4,
                    partition: 0,
                    target: 0
                },
                MapRange {
                    first: 10,
                    last: 13,
                    partition: 0,
                    target: 5
                }
            ]
        );
        assert_eq!(m.get(12), Some((0, 7)));
        assert_eq!(m.get(7), None);
        assert_eq!(m.next_sent(7), Some((10, 0, 5)));
        assert_eq!(m.next_sent(14), None);
        assert_eq!(m.end(0), Some(9));
        assert_eq!(m.records(), 9);
        // A target offset jump (another producer's record between) also starts a range.
        let mut j = map(&[(0, 0), (1, 1)]);
        j.push(2, 0, 3);
        assert_eq!(j.ranges().len(), 2);
        // Appending a map that goes on where this one ends joins them.
        let mut a = map(&[(0, 0), (1, 1)]);
        a.append(&map(&[(2, 2), (3, 3)]));
        assert_eq!(a.ranges().len(), 1);
        assert!(a.is_ordered());
    }

    #[test]
    fn ranges_serialize_as_four_numbers_and_refuse_nonsense() {
        let m = map(&[(3, 10), (4, 11)]);
        assert_eq!(serde_json::to_string(&m).unwrap(), "[[3,4,0,10]]");
        let back: RescueMap = serde_json::from_str("[[3,4,0,10],[7,7,1,0]]").unwrap();
        assert!(back.is_ordered());
        let unordered: RescueMap = serde_json::from_str("[[7,7,1,0],[3,4,0,10]]").unwrap();
        assert!(!unordered.is_ordered());
        for bad in [
            "[[4,3,0,0]]",
            "[[0,1,-1,0]]",
            "[[0,1,4294967296,0]]",
            "[[0,1,0]]",
        ] {
            assert!(serde_json::from_str::<RescueMap>(bad).is_err(), "{bad}");
        }
    }

    fn view(m: &RescueMap) -> SourceView<'_> {
        SourceView {
            name: "t-0".into(),
            map: m,
            target_topic: "t".into(),
            target_partition: 0,
            target_start: Some(0),
            log_start: Some(0),
            log_end: Some(16),
            offsets: (i64::MIN, i64::MAX),
            predicted_from: None,
            reasons: BTreeMap::new(),
            fault: None,
            target_log: None,
        }
    }

    /// payments-0's shape: committed 0..=4, COMMIT 5, aborted 6..=8, ABORT 9, 10..=13, then
    /// an open transaction's 14 and 15 (log end 16).
    #[test]
    fn committed_offsets_translate_as_a_consumer_resumes() {
        let sent: Vec<(i64, i64)> = (0..5).chain(10..14).zip(0..).collect();
        let m = map(&sent);
        let mut v = view(&m);
        assert_eq!(
            v.offsets_needing_reasons([3, 5, 7, 14, 16, 20].into_iter()),
            BTreeSet::from([5, 7, 14])
        );
        v.reasons = BTreeMap::from([
            (5, NotSent::Control),
            (7, NotSent::Aborted),
            (14, NotSent::Open),
        ]);
        assert_eq!(
            v.translate(3),
            Translated::Exact {
                target: 3,
                predicted: false
            }
        );
        let t = v.translate(7);
        assert_eq!(t.target(), Some(5));
        assert_eq!(t.kind(), "next-sent");
        assert!(
            matches!(
                t,
                Translated::NextSent {
                    why: NotSent::Aborted,
                    next_source: Some(10),
                    ..
                }
            ),
            "{t:?}"
        );
        assert_eq!(v.translate(5).target(), Some(5));
        // Past the last record sent: the end of the rescued records.
        let t = v.translate(14);
        assert_eq!(t.target(), Some(9));
        assert!(matches!(
            t,
            Translated::NextSent {
                why: NotSent::Open,
                next_source: None,
                ..
            }
        ));
        assert_eq!(
            v.translate(16),
            Translated::End {
                target: 9,
                predicted: false
            }
        );
        assert_eq!(
            v.translate(20),
            Translated::NotTranslated(Untranslatable::BeyondLogEnd(16))
        );
        v.log_start = Some(2);
        assert_eq!(v.translate(1).kind(), "not-translated");
        // A range cut by --from-offset.
        v.offsets = (10, i64::MAX);
        let t = v.translate(4);
        assert_eq!(t.target(), Some(4), "4 was sent: it is in the map");
        let t = v.translate(7);
        assert!(
            matches!(
                t,
                Translated::NextSent {
                    why: NotSent::BeforeFromOffset(10),
                    ..
                }
            ),
            "{t:?}"
        );
        // Predicted ranges (a dry run) are said to be.
        v.predicted_from = Some(10);
        assert!(v.translate(11).predicted());
        assert!(!v.translate(3).predicted());
    }

    #[test]
    fn a_source_with_nothing_sent_translates_to_where_the_rescue_began() {
        let m = RescueMap::default();
        let mut v = view(&m);
        v.target_start = Some(42);
        v.reasons.insert(3, NotSent::Aborted);
        assert_eq!(v.translate(3).target(), Some(42));
        v.target_start = None;
        assert_eq!(
            v.translate(3),
            Translated::NotTranslated(Untranslatable::NoTargetPosition)
        );
    }

    #[test]
    fn a_map_that_does_not_describe_the_target_translates_nothing() {
        let sent: Vec<(i64, i64)> = (0..5).chain(10..14).zip(0..).collect();
        let m = map(&sent);
        let w = Written {
            partition: 0,
            start: Some(0),
            end: Some(9),
            acknowledged: Some(13),
            log_end: Some(9),
        };
        assert_eq!(m.fault(&w), None);
        assert!(matches!(
            m.fault(&Written { partition: 1, ..w }),
            Some(MapFault::OtherPartition { expected: 1, .. })
        ));
        assert!(matches!(
            m.fault(&Written {
                log_end: Some(5),
                ..w
            }),
            Some(MapFault::PastLogEnd { log_end: 5, .. })
        ));
        assert!(matches!(
            m.fault(&Written {
                acknowledged: Some(4),
                ..w
            }),
            Some(MapFault::PastAcknowledged { .. })
        ));
        assert!(matches!(
            m.fault(&Written {
                start: Some(3),
                ..w
            }),
            Some(MapFault::BeforeStart { start: 3, .. })
        ));
        // 10^15 on a partition of 9 records: past what was written.
        let mut huge = map(&[(0, 0)]);
        huge.push(1, 0, 1_000_000_000_000_000);
        assert!(matches!(
            huge.fault(&Written {
                acknowledged: Some(1),
                ..w
            }),
            Some(MapFault::PastWritten { end: 9, .. })
        ));
        let back: RescueMap = serde_json::from_str("[[0,4,0,5],[5,6,0,2]]").unwrap();
        assert!(matches!(
            back.fault(&Written {
                end: None,
                log_end: None,
                ..w
            }),
            Some(MapFault::Backwards { after: 9, .. })
        ));
        let mut v = view(&huge);
        v.fault = huge.fault(&Written {
            acknowledged: Some(1),
            ..w
        });
        assert!(matches!(
            v.translate(1),
            Translated::NotTranslated(Untranslatable::MapFault(_))
        ));
    }

    #[test]
    fn translations_are_checked_against_the_target_log() {
        let sent: Vec<(i64, i64)> = (0..5).chain(10..14).zip(0..).collect();
        let m = map(&sent);
        let mut v = view(&m);
        v.target_log = Some((0, 9));
        assert_eq!(v.translate(16).target(), Some(9));
        v.target_log = Some((0, 7));
        assert_eq!(
            v.translate(16),
            Translated::NotTranslated(Untranslatable::BeyondTargetEnd {
                target: 9,
                log_end: 7
            })
        );
        v.target_log = Some((4, 9));
        assert_eq!(
            v.translate(2),
            Translated::NotTranslated(Untranslatable::BelowTargetStart {
                target: 2,
                log_start: 4
            })
        );
        // A prediction (a dry run) may lie past today's end.
        v.target_log = Some((0, 0));
        v.predicted_from = Some(0);
        assert_eq!(v.translate(16).target(), Some(9));
    }
}
