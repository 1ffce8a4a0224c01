//! Replicas of one partition side by side (`kseg diff`): each replica's offsets and leader-epoch
//! history, the prefix they share batch for batch, where a follower's truncation would cut the
//! log (the leader-epoch rule of OffsetsForLeaderEpoch, as the replica fetcher applies it), and
//! the records that exist on one side only, split at each replica's high watermark.
//!
//! The rules are Kafka's: `LeaderEpochFileCache.endOffsetFor` (storage module) answers "where does
//! epoch E end" on either side, and `AbstractFetcherThread.getOffsetTruncationState` (core) turns
//! the leader's answer into the follower's truncation offset, asking again when the follower does
//! not know the epoch the leader answered with.

use std::collections::BTreeSet;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use crate::fault::{read_checkpoint, FileFault};
use crate::lookup::{end_offset_for, load_cache, EpochEnd};
use crate::summary::LogDirFacts;
use kseg_format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_format::text_files::EpochEntry;
use kseg_scan::{scan_log, Flow, LogFault, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::source::open_log;

/// What identifies a batch across replicas: a follower copies the leader's batches byte for byte
/// (the v2 CRC covers everything after the partition leader epoch), so the same batch has the
/// same offsets, epoch and checksum on every replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSig {
    pub base_offset: i64,
    pub last_offset: i64,
    pub epoch: i32,
    pub crc: u32,
    pub records: u32,
    pub first_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
}

impl BatchSig {
    fn same(&self, other: &BatchSig) -> bool {
        self.base_offset == other.base_offset
            && self.last_offset == other.last_offset
            && self.epoch == other.epoch
            && self.crc == other.crc
    }
}

/// One replica of a partition as its broker's disk holds it.
#[derive(Debug, Clone, Default)]
pub struct Replica {
    /// `broker-<node.id>` from meta.properties, else the log dir's name.
    pub label: String,
    pub broker_id: Option<i32>,
    pub path: PathBuf,
    pub log_start: i64,
    pub log_end: i64,
    pub high_watermark: Option<i64>,
    pub recovery_point: Option<i64>,
    /// Ascending: `leader-epoch-checkpoint`, extended by the epochs the batches after its last
    /// entry carry (as Kafka's cache is assigned on append).
    pub epochs: Vec<EpochEntry>,
    pub batches: Vec<BatchSig>,
    /// Segment files by base offset.
    pub segments: Vec<(i64, PathBuf)>,
    /// The log cleaner's checkpoint (`cleaner-offset-checkpoint`): below it each broker's cleaner
    /// rewrote the batches on its own, so replicas differ there by design.
    pub cleaned_to: Option<i64>,
    pub problems: Vec<ReplicaProblem>,
}

/// A file of a replica that could not be read whole.
#[derive(Debug, Clone)]
pub struct ReplicaProblem {
    pub file: PathBuf,
    pub kind: ReplicaFault,
}

#[derive(Debug, Clone)]
pub enum ReplicaFault {
    /// Something wrong in a segment, found by its scan (which went on).
    Log(LogFault),
    /// The file could not be read (or, a checkpoint, parsed).
    File(FileFault),
}

impl Replica {
    pub fn latest_epoch(&self) -> Option<i32> {
        self.epochs.last().map(|e| e.epoch)
    }
}

struct SigSink<'a> {
    out: &'a mut Vec<BatchSig>,
    problems: &'a mut Vec<ReplicaProblem>,
    file: &'a PathBuf,
}

impl LogSink for SigSink<'_> {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.out.push(BatchSig {
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            epoch: b.partition_leader_epoch,
            crc: b.crc,
            records: b.count.unwrap_or(1).max(0) as u32,
            first_timestamp: b.first_timestamp,
            max_timestamp: b.max_timestamp,
            producer_id: b.producer_id,
        });
        Ok(Flow::Continue)
    }
    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        self.problems.push(ReplicaProblem {
            file: self.file.clone(),
            kind: ReplicaFault::Log(p.to_fault()),
        });
        Ok(Flow::Continue)
    }
}

/// Reads one replica: batch headers of every segment, its checkpoints and epoch history.
pub fn load_replica(
    p: &PartitionDir,
    facts: Option<&LogDirFacts>,
    label: String,
    broker_id: Option<i32>,
    mmap: bool,
) -> Replica {
    let mut r = Replica {
        label,
        broker_id,
        path: p.path.clone(),
        ..Default::default()
    };
    let mut scratch = RecordScratch::default();
    // The base offset of the last segment that could be read: an unreadable segment's name says
    // nothing of what it holds, so it does not set the log end.
    let mut last_readable_base = 0;
    for f in &p.files {
        match f.kind {
            FileKind::Log => {
                let name = f.path.file_name().unwrap_or_default().to_string_lossy();
                let Some(base) = base_offset_of(&name) else {
                    continue;
                };
                r.segments.push((base, f.path.clone()));
                match open_log(&f.path, mmap) {
                    Ok(mut src) => {
                        last_readable_base = last_readable_base.max(base);
                        let mut sink = SigSink {
                            out: &mut r.batches,
                            problems: &mut r.problems,
                            file: &f.path,
                        };
                        if let Err(e) = scan_log(
                            src.as_mut(),
                            &ScanOptions::default(),
                            &mut scratch,
                            &mut sink,
                        ) {
                            r.problems.push(ReplicaProblem {
                                file: f.path.clone(),
                                kind: ReplicaFault::File(FileFault::Io(Arc::new(e))),
                            });
                        }
                    }
                    Err(e) => r.problems.push(ReplicaProblem {
                        file: f.path.clone(),
                        kind: ReplicaFault::File(FileFault::Io(Arc::new(e))),
                    }),
                }
            }
            FileKind::LeaderEpochCheckpoint => match read_checkpoint(&f.path, 16 << 20, true) {
                Ok(c) => r.epochs = c.epoch_entries(),
                Err(fault) => r.problems.push(ReplicaProblem {
                    file: f.path.clone(),
                    kind: ReplicaFault::File(fault),
                }),
            },
            _ => {}
        }
    }
    let cps = facts
        .and_then(|f| f.checkpoints.get(&(p.name.topic.clone(), p.name.partition)))
        .copied()
        .unwrap_or_default();
    r.high_watermark = cps.high_watermark;
    r.recovery_point = cps.recovery_point;
    let first_base = r.segments.first().map_or(0, |s| s.0);
    r.log_start = cps.log_start.map_or(first_base, |s| s.max(first_base));
    r.log_end = r
        .batches
        .iter()
        .map(|b| b.last_offset + 1)
        .max()
        .unwrap_or(0)
        .max(last_readable_base);
    // The cache as `LeaderEpochFileCache` and `LogLoader.load` leave it, the one model lookup and
    // verify-index use: entries that conflict with a later one removed (a checkpoint written
    // non-monotonic, "0@0 2@3222 1@4000 2@3222", is not read raw), entries at or past the log
    // end dropped, entries at or before the log start folded into one there.
    let (epochs, _) = load_cache(std::mem::take(&mut r.epochs), r.log_start, r.log_end);
    r.epochs = epochs;
    extend_epochs(&mut r.epochs, &r.batches);
    r
}

/// Adds the epochs of batches newer than the history's last entry (Kafka assigns an epoch to the
/// cache when a batch of a newer epoch is appended), keeping the history ascending.
pub fn extend_epochs(epochs: &mut Vec<EpochEntry>, batches: &[BatchSig]) {
    for b in batches {
        if b.epoch < 0 {
            continue;
        }
        match epochs.last() {
            Some(e) if e.epoch >= b.epoch => {}
            _ => epochs.push(EpochEntry {
                epoch: b.epoch,
                start_offset: b.base_offset,
            }),
        }
    }
}

/// One round of the follower's truncation: what it asked and what each side answered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationStep {
    pub requested_epoch: i32,
    pub leader_epoch: Option<i32>,
    pub leader_end_offset: Option<i64>,
    pub truncate_to: i64,
    pub done: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Where the follower's log ends after truncation: its records from here on go.
    pub offset: i64,
    pub steps: Vec<TruncationStep>,
    /// When Kafka's answer falls back on something other than the epochs.
    #[serde(skip)]
    pub fallback: Option<Fallback>,
}

/// What the follower's truncation falls back on when the epochs do not answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The follower has no leader epoch: it truncates to its high watermark.
    NoFollowerEpoch,
    /// The leader knows no epoch this high (UNDEFINED_EPOCH_OFFSET): the follower keeps its
    /// fetch offset.
    LeaderEpochUndefined,
    /// The epoch histories did not converge.
    NoConvergence,
}

/// Where `follower` truncates when it starts fetching from `leader`, per
/// `AbstractFetcherThread.getOffsetTruncationState` over `LeaderEpochFileCache.endOffsetFor`.
pub fn truncation(follower: &Replica, leader: &Replica) -> Truncation {
    let mut epochs = follower.epochs.clone();
    let mut end = follower.log_end;
    let mut steps = Vec::new();
    // Each round drops at least one epoch of the follower's history.
    for _ in 0..=follower.epochs.len() {
        let Some(&EpochEntry {
            epoch: requested, ..
        }) = epochs.last()
        else {
            let offset = follower.high_watermark.unwrap_or(end).min(end);
            return Truncation {
                offset,
                steps,
                fallback: Some(Fallback::NoFollowerEpoch),
            };
        };
        let Some(EpochEnd {
            epoch: leader_epoch,
            end_offset: leader_end,
        }) = end_offset_for(&leader.epochs, requested, leader.log_end)
        else {
            steps.push(TruncationStep {
                requested_epoch: requested,
                leader_epoch: None,
                leader_end_offset: None,
                truncate_to: end,
                done: true,
            });
            return Truncation {
                offset: end,
                steps,
                fallback: Some(Fallback::LeaderEpochUndefined),
            };
        };
        let (offset, done) = match end_offset_for(&epochs, leader_epoch, end) {
            Some(f) if f.epoch != leader_epoch => (f.end_offset.min(end), false),
            Some(f) => (f.end_offset.min(leader_end).min(end), true),
            None => (leader_end.min(end), true),
        };
        steps.push(TruncationStep {
            requested_epoch: requested,
            leader_epoch: Some(leader_epoch),
            leader_end_offset: Some(leader_end),
            truncate_to: offset,
            done,
        });
        if done {
            return Truncation {
                offset,
                steps,
                fallback: None,
            };
        }
        // `LeaderEpochFileCache.truncateFromEnd`: entries starting at or after the new end go.
        epochs.retain(|e| e.start_offset < offset);
        end = offset;
    }
    Truncation {
        offset: end,
        steps,
        fallback: Some(Fallback::NoConvergence),
    }
}

/// The end of the prefix two replicas share batch for batch (same offsets, epoch and CRC), from
/// the later of their log starts and cleaner checkpoints; and how many batches it holds.
pub fn common_prefix(a: &Replica, b: &Replica) -> (i64, u64) {
    let start = comparable_from(a, b);
    let mut xs = a
        .batches
        .iter()
        .filter(|x| x.base_offset >= start)
        .peekable();
    let mut ys = b
        .batches
        .iter()
        .filter(|y| y.base_offset >= start)
        .peekable();
    let mut end = start;
    let mut n = 0;
    while let (Some(x), Some(y)) = (xs.peek(), ys.peek()) {
        if !x.same(y) {
            break;
        }
        end = x.last_offset + 1;
        n += 1;
        xs.next();
        ys.next();
    }
    (end, n)
}

/// Where two replicas' batches can be compared: after both log starts and both cleaner
/// checkpoints.
pub fn comparable_from(a: &Replica, b: &Replica) -> i64 {
    [
        a.log_start,
        b.log_start,
        a.cleaned_to.unwrap_or(0),
        b.cleaned_to.unwrap_or(0),
    ]
    .into_iter()
    .max()
    .unwrap_or(0)
}

/// Offsets, times and producers of a run of records.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub records: u64,
    pub first_offset: Option<i64>,
    pub last_offset: Option<i64>,
    pub first_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
    pub producer_ids: BTreeSet<i64>,
}

impl Span {
    fn add(&mut self, offset: i64, timestamp: i64, producer_id: i64) {
        self.records += 1;
        self.first_offset = Some(self.first_offset.map_or(offset, |o| o.min(offset)));
        self.last_offset = Some(self.last_offset.map_or(offset, |o| o.max(offset)));
        if timestamp >= 0 {
            self.first_timestamp =
                Some(self.first_timestamp.map_or(timestamp, |t| t.min(timestamp)));
            self.last_timestamp = Some(self.last_timestamp.map_or(timestamp, |t| t.max(timestamp)));
        }
        if producer_id >= 0 {
            self.producer_ids.insert(producer_id);
        }
    }

    /// A batch's offsets `first..=last` holding `records` records, from its header.
    fn add_batch(&mut self, first: i64, last: i64, records: u64, b: &BatchSig) {
        self.add(first, b.first_timestamp, b.producer_id);
        self.add(last, b.max_timestamp, b.producer_id);
        self.records = self.records - 2 + records;
    }

    /// Both spans as one.
    pub fn merged(mut self, other: &Span) -> Span {
        self.records += other.records;
        let min = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).min();
        let max = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).max();
        self.first_offset = min(self.first_offset, other.first_offset);
        self.last_offset = max(self.last_offset, other.last_offset);
        self.first_timestamp = min(self.first_timestamp, other.first_timestamp);
        self.last_timestamp = max(self.last_timestamp, other.last_timestamp);
        self.producer_ids.extend(&other.producer_ids);
        self
    }
}

/// Records of one replica from an offset on, split at its high watermark: below it they were
/// acknowledged to `acks=all` producers, above it never.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OneSided {
    pub from_offset: i64,
    pub acknowledged: Span,
    pub unacknowledged: Span,
}

impl OneSided {
    pub fn records(&self) -> u64 {
        self.acknowledged.records + self.unacknowledged.records
    }
}

struct SpanSink {
    from: i64,
    until: i64,
    hw: i64,
    out: OneSided,
    producer: i64,
}

impl LogSink for SpanSink {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.producer = b.producer_id;
        Ok(Flow::Continue)
    }
    fn record(&mut self, _p: u64, _b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if r.offset >= self.from && r.offset < self.until {
            let span = if r.offset < self.hw {
                &mut self.out.acknowledged
            } else {
                &mut self.out.unacknowledged
            };
            span.add(r.offset, r.timestamp, self.producer);
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The segments of `r` holding offsets from `from` on.
pub fn segments_from(r: &Replica, from: i64) -> impl Iterator<Item = &PathBuf> {
    let first = r.segments.iter().rposition(|s| s.0 <= from).unwrap_or(0);
    r.segments[first..].iter().map(|s| &s.1)
}

/// The records of `r` at offsets from `from` up to `until` (exclusive), record by record (a
/// deep scan of that stretch).
pub fn one_sided(r: &Replica, from: i64, until: i64, mmap: bool) -> io::Result<OneSided> {
    let hw = r.high_watermark.unwrap_or(i64::MAX);
    let mut sink = SpanSink {
        from,
        until,
        hw,
        out: OneSided {
            from_offset: from,
            ..Default::default()
        },
        producer: -1,
    };
    if from >= r.log_end || from >= until {
        return Ok(sink.out);
    }
    let mut scratch = RecordScratch::default();
    let opts = ScanOptions {
        deep: true,
        offsets: (from, until - 1),
        ..Default::default()
    };
    for path in segments_from(r, from) {
        // The error names the file: a segment gone since the replica was read (a live broker's
        // retention) said only "No such file or directory".
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let mut src = open_log(path, mmap).map_err(named)?;
        scan_log(src.as_mut(), &opts, &mut scratch, &mut sink).map_err(named)?;
    }
    Ok(sink.out)
}

/// The same, from batch headers only (for the leader's side, which may be the whole log when a
/// follower is empty): record counts per batch, offsets and times of the batches.
pub fn one_sided_by_batch(r: &Replica, from: i64, until: i64) -> OneSided {
    let hw = r.high_watermark.unwrap_or(i64::MAX);
    let mut out = OneSided {
        from_offset: from,
        ..Default::default()
    };
    for b in r
        .batches
        .iter()
        .filter(|b| b.last_offset >= from && b.base_offset < until)
    {
        let span = if b.base_offset < hw {
            &mut out.acknowledged
        } else {
            &mut out.unacknowledged
        };
        let (first, last) = (b.base_offset.max(from), b.last_offset.min(until - 1));
        let whole = b.base_offset >= from && b.last_offset < until;
        // A cut batch: the offsets in range (v2 offsets are contiguous unless compacted).
        let records = if whole {
            u64::from(b.records)
        } else {
            (last - first + 1) as u64
        };
        span.add_batch(first, last, records, b);
    }
    out
}

/// A follower set against its leader.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairDiff {
    pub leader: usize,
    pub follower: usize,
    pub common_prefix_end: i64,
    pub common_batches: u64,
    pub truncation: Truncation,
    /// The follower's records its truncation removes.
    pub lost: OneSided,
    /// The leader's records past the truncation point that the follower lacks (re-fetched).
    pub missing: OneSided,
    /// The follower's records between the common prefix and the truncation point: they differ
    /// from the leader's at the same offsets, yet no truncation removes them (two logs of the
    /// same epoch that disagree, which Kafka's replication never produces).
    pub conflicting: OneSided,
    /// The leader epoch in which the leader's log parts from the follower's.
    pub diverging_epoch: Option<i32>,
}

impl PairDiff {
    pub fn identical(&self, replicas: &[Replica]) -> bool {
        let (l, f) = (&replicas[self.leader], &replicas[self.follower]);
        l.log_end == f.log_end
            && self.common_prefix_end == l.log_end
            && self.lost.records() == 0
            && self.missing.records() == 0
            && self.conflicting.records() == 0
    }
}

pub fn compare(
    replicas: &[Replica],
    leader: usize,
    follower: usize,
    mmap: bool,
) -> io::Result<PairDiff> {
    let (l, f) = (&replicas[leader], &replicas[follower]);
    let (common_prefix_end, common_batches) = common_prefix(l, f);
    let truncation = truncation(f, l);
    let lost = one_sided(f, truncation.offset, i64::MAX, mmap)?;
    let conflicting = if common_prefix_end < truncation.offset.min(l.log_end) {
        one_sided(f, common_prefix_end, truncation.offset.min(l.log_end), mmap)?
    } else {
        OneSided {
            from_offset: common_prefix_end,
            ..Default::default()
        }
    };
    let missing = one_sided_by_batch(l, truncation.offset, i64::MAX);
    // The leader's epoch that begins where the follower's log is cut, when it is one the follower
    // never knew: the leadership that parted the logs.
    let diverging_epoch = l
        .epochs
        .iter()
        .find(|e| e.start_offset >= truncation.offset)
        .map(|e| e.epoch)
        .filter(|e| lost.records() > 0 && f.latest_epoch().is_none_or(|fe| *e > fe));
    Ok(PairDiff {
        leader,
        follower,
        common_prefix_end,
        common_batches,
        truncation,
        lost,
        missing,
        conflicting,
        diverging_epoch,
    })
}

/// Which replica leads, as far as the disks tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leadership {
    /// Named by the user (`--leader`).
    Given(usize),
    /// The replica whose history holds the newest leader epoch (with the longest log among those
    /// sharing it): only a leader creates an epoch and followers learn it from its batches.
    NewestEpoch(usize),
    /// The histories cannot tell (no epochs, or the same newest epoch with different data).
    Unknown,
}

pub fn leadership(replicas: &[Replica], given: Option<usize>) -> Leadership {
    if let Some(g) = given {
        return Leadership::Given(g);
    }
    let newest = replicas.iter().filter_map(Replica::latest_epoch).max();
    let Some(newest) = newest else {
        return Leadership::Unknown;
    };
    let mut top: Vec<usize> = (0..replicas.len())
        .filter(|&i| replicas[i].latest_epoch() == Some(newest))
        .collect();
    top.sort_by_key(|&i| std::cmp::Reverse(replicas[i].log_end));
    let best = top[0];
    // Sharing the newest epoch, the others must hold a prefix of the longest.
    let consistent = top[1..].iter().all(|&i| {
        let (end, _) = common_prefix(&replicas[best], &replicas[i]);
        end >= replicas[i].log_end
    });
    if consistent {
        Leadership::NewestEpoch(best)
    } else {
        Leadership::Unknown
    }
}

/// Every comparison one partition needs: each other replica against the leader, or, when the
/// leader is unknown, each other replica and the first both ways (two candidate answers).
pub fn compare_all(
    replicas: &[Replica],
    lead: Leadership,
    mmap: bool,
) -> io::Result<Vec<PairDiff>> {
    let mut out = Vec::new();
    match lead {
        Leadership::Given(l) | Leadership::NewestEpoch(l) => {
            for f in (0..replicas.len()).filter(|&f| f != l) {
                out.push(compare(replicas, l, f, mmap)?);
            }
        }
        Leadership::Unknown => {
            for other in 1..replicas.len() {
                out.push(compare(replicas, 0, other, mmap)?);
                out.push(compare(replicas, other, 0, mmap)?);
            }
        }
    }
    Ok(out)
}

/// One finding of a comparison: what the follower's truncation or the replicas' difference
/// means, with the replicas' labels and the counts and offsets it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairFinding {
    /// An epoch of the leader the follower never knew truncates acknowledged records of it.
    UncleanElection {
        epoch: i32,
        leader: String,
        acknowledged: u64,
        follower: String,
    },
    /// Acknowledged records of the follower beyond the leader's log: truncated.
    AcknowledgedTruncated {
        acknowledged: u64,
        follower: String,
        first_offset: i64,
        last_offset: i64,
        leader: String,
    },
    /// The follower has no high watermark on disk: its records count as acknowledged.
    NoHighWatermark {
        follower: String,
    },
    /// Records above the follower's high watermark truncated.
    UnacknowledgedTruncated {
        records: u64,
        follower: String,
    },
    /// Records of the follower that differ from the leader's and that no truncation removes.
    Disagree {
        records: u64,
        follower: String,
        first_offset: i64,
        last_offset: i64,
        acknowledged: u64,
        leader: String,
    },
    Identical,
    /// The leader's log ends later, but its offsets past the follower's end hold no record.
    EndsDifferNothingMissing {
        follower: String,
        follower_end: i64,
        leader: String,
        leader_end: i64,
    },
    /// The follower lacks the leader's records past its end.
    FollowerBehind {
        follower: String,
        missing: u64,
        leader: String,
        first_offset: i64,
        last_offset: i64,
    },
    /// The logs differ from an offset although no truncation follows.
    DifferWithoutTruncation {
        from_offset: i64,
    },
}

/// A finding, and when the leader is unknown the candidate leader it assumes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `Some(label)`: the finding holds if this replica leads.
    pub if_leads: Option<String>,
    pub kind: PairFinding,
}

/// The findings of one comparison.
pub fn findings(replicas: &[Replica], d: &PairDiff, candidate: bool) -> Vec<Finding> {
    let (l, f) = (&replicas[d.leader], &replicas[d.follower]);
    let mut kinds = Vec::new();
    let acked = d.lost.acknowledged.records;
    let unacked = d.lost.unacknowledged.records;
    if acked > 0 {
        kinds.push(match d.diverging_epoch {
            Some(epoch) => PairFinding::UncleanElection {
                epoch,
                leader: l.label.clone(),
                acknowledged: acked,
                follower: f.label.clone(),
            },
            None => PairFinding::AcknowledgedTruncated {
                acknowledged: acked,
                follower: f.label.clone(),
                first_offset: d.lost.acknowledged.first_offset.unwrap_or(0),
                last_offset: d.lost.acknowledged.last_offset.unwrap_or(0),
                leader: l.label.clone(),
            },
        });
    }
    if acked > 0 && f.high_watermark.is_none() {
        kinds.push(PairFinding::NoHighWatermark {
            follower: f.label.clone(),
        });
    }
    if unacked > 0 {
        kinds.push(PairFinding::UnacknowledgedTruncated {
            records: unacked,
            follower: f.label.clone(),
        });
    }
    let conflicting = &d.conflicting;
    if conflicting.records() > 0 {
        let all = conflicting
            .acknowledged
            .clone()
            .merged(&conflicting.unacknowledged);
        kinds.push(PairFinding::Disagree {
            records: conflicting.records(),
            follower: f.label.clone(),
            first_offset: all.first_offset.unwrap_or(0),
            last_offset: all.last_offset.unwrap_or(0),
            acknowledged: conflicting.acknowledged.records,
            leader: l.label.clone(),
        });
    }
    if d.identical(replicas) {
        kinds.push(PairFinding::Identical);
    } else if acked == 0 && unacked == 0 && conflicting.records() == 0 {
        if f.log_end < l.log_end && d.missing.records() == 0 {
            // The leader's log end is past the follower's but no record lies between (an empty
            // segment rolled there, or compaction emptied the range): nothing is missing.
            kinds.push(PairFinding::EndsDifferNothingMissing {
                follower: f.label.clone(),
                follower_end: f.log_end,
                leader: l.label.clone(),
                leader_end: l.log_end,
            });
        } else if f.log_end < l.log_end {
            kinds.push(PairFinding::FollowerBehind {
                follower: f.label.clone(),
                missing: d.missing.records(),
                leader: l.label.clone(),
                first_offset: f.log_end,
                last_offset: l.log_end - 1,
            });
        } else if d.common_prefix_end < f.log_end.min(l.log_end) {
            kinds.push(PairFinding::DifferWithoutTruncation {
                from_offset: d.common_prefix_end,
            });
        }
    }
    let if_leads = candidate.then(|| l.label.clone());
    kinds
        .into_iter()
        .map(|kind| Finding {
            if_leads: if_leads.clone(),
            kind,
        })
        .collect()
}

/// Whether a comparison shows acknowledged records on one replica only: its truncation loses
/// them, or the replicas disagree on them.
pub fn loses_acknowledged(d: &PairDiff) -> bool {
    d.lost.acknowledged.records > 0 || d.conflicting.acknowledged.records > 0
}

/// One partition's replicas, compared.
#[derive(Debug, Clone)]
pub struct PartitionDiff {
    pub topic: String,
    pub partition: i32,
    pub replicas: Vec<Replica>,
    pub lead: Leadership,
    pub pairs: Vec<PairDiff>,
    /// Per pair, its findings.
    pub findings: Vec<Vec<Finding>>,
}

impl PartitionDiff {
    pub fn identical(&self) -> bool {
        self.pairs.iter().all(|d| d.identical(&self.replicas))
    }

    pub fn loses_acknowledged(&self) -> bool {
        self.pairs.iter().any(loses_acknowledged)
    }

    /// The verdict's findings: none when every replica is identical, else every finding
    /// but "identical".
    pub fn verdict(&self) -> Vec<&Finding> {
        if self.identical() {
            return Vec::new();
        }
        self.findings
            .iter()
            .flatten()
            .filter(|f| f.kind != PairFinding::Identical)
            .collect()
    }

    pub fn leader(&self) -> Option<&Replica> {
        match self.lead {
            Leadership::Given(l) | Leadership::NewestEpoch(l) => Some(&self.replicas[l]),
            Leadership::Unknown => None,
        }
    }
}

pub fn diff_partition(
    topic: &str,
    partition: i32,
    replicas: Vec<Replica>,
    given_leader: Option<usize>,
    mmap: bool,
) -> io::Result<PartitionDiff> {
    let lead = leadership(&replicas, given_leader);
    let pairs = compare_all(&replicas, lead, mmap)?;
    let candidate = lead == Leadership::Unknown;
    let findings = pairs
        .iter()
        .map(|d| findings(&replicas, d, candidate))
        .collect();
    Ok(PartitionDiff {
        topic: topic.to_string(),
        partition,
        replicas,
        lead,
        pairs,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(base: i64, last: i64, epoch: i32, crc: u32) -> BatchSig {
        BatchSig {
            base_offset: base,
            last_offset: last,
            epoch,
            crc,
            records: (last - base + 1) as u32,
            first_timestamp: 1000 + base,
            max_timestamp: 1000 + last,
            producer_id: 7,
        }
    }

    fn replica(label: &str, batches: Vec<BatchSig>, hw: i64) -> Replica {
        let mut r = Replica {
            label: label.into(),
            log_end: batches.last().map_or(0, |b| b.last_offset + 1),
            high_watermark: Some(hw),
            batches,
            ..Default::default()
        };
        extend_epochs(&mut r.epochs, &r.batches);
        r
    }

    #[test]
    fn unclean_election_truncates_the_old_leaders_acknowledged_tail() {
        // Epoch 0 on all; broker-1 led epoch 1 alone and acknowledged 0..=19; broker-2, which
        // had stopped at 10, was elected uncleanly in epoch 2 and wrote 10..=14 of its own.
        let old = replica("broker-1", vec![batch(0, 9, 0, 1), batch(10, 19, 1, 2)], 20);
        let new = replica("broker-2", vec![batch(0, 9, 0, 1), batch(10, 14, 2, 3)], 15);
        let replicas = vec![old, new];
        assert_eq!(leadership(&replicas, None), Leadership::NewestEpoch(1));
        let t = truncation(&replicas[0], &replicas[1]);
        // broker-1 asks for epoch 1; broker-2 knows 0 then 2: epoch 0 ends at 10.
        assert_eq!(t.offset, 10);
        assert_eq!(t.steps[0].leader_epoch, Some(0));
        assert_eq!(common_prefix(&replicas[0], &replicas[1]), (10, 1));
        let d = PairDiff {
            leader: 1,
            follower: 0,
            common_prefix_end: 10,
            common_batches: 1,
            truncation: t,
            lost: {
                let mut o = OneSided::default();
                for off in 10..20 {
                    o.acknowledged.add(off, 0, 7);
                }
                o
            },
            missing: one_sided_by_batch(&replicas[1], 10, i64::MAX),
            conflicting: OneSided::default(),
            diverging_epoch: Some(2),
        };
        assert_eq!(d.missing.records(), 5);
        assert_eq!(
            findings(&replicas, &d, false),
            vec![Finding {
                if_leads: None,
                kind: PairFinding::UncleanElection {
                    epoch: 2,
                    leader: "broker-2".into(),
                    acknowledged: 10,
                    follower: "broker-1".into()
                }
            }]
        );
    }

    #[test]
    fn a_follower_with_an_unknown_epoch_asks_again() {
        // The follower knows epoch 1 until 40 and then 2, which never reached the leader; the
        // leader has 1 until 50, then 3. Asked for 2, the leader answers (1, 50); the follower's
        // epoch 1 ends at 40: it truncates to 40 in one round.
        let f = replica("f", vec![batch(0, 39, 1, 1), batch(40, 59, 2, 2)], 40);
        let l = replica(
            "l",
            vec![batch(0, 39, 1, 1), batch(40, 49, 1, 9), batch(50, 69, 3, 4)],
            70,
        );
        let t = truncation(&f, &l);
        assert_eq!(t.offset, 40);
        assert_eq!(t.steps.len(), 1);
        // The leader answers with an epoch the follower does not know (2): the follower cuts to
        // the end of its floor epoch (0 ends at 10) and asks again for 0, which ends at 8.
        let f = replica("f", vec![batch(0, 9, 0, 1), batch(10, 19, 3, 2)], 0);
        let l = replica(
            "l",
            vec![batch(0, 7, 0, 5), batch(8, 11, 2, 6), batch(12, 29, 4, 7)],
            0,
        );
        let t = truncation(&f, &l);
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[0].leader_epoch, Some(2));
        assert_eq!(t.steps[0].truncate_to, 10);
        assert!(!t.steps[0].done);
        assert_eq!(t.offset, 8);
    }

    #[test]
    fn healthy_replicas_are_identical_or_behind() {
        let l = replica("a", vec![batch(0, 9, 0, 1), batch(10, 19, 0, 2)], 20);
        let same = replica("b", vec![batch(0, 9, 0, 1), batch(10, 19, 0, 2)], 20);
        let behind = replica("c", vec![batch(0, 9, 0, 1)], 10);
        let replicas = vec![l, same, behind];
        let lead = leadership(&replicas, None);
        assert_eq!(lead, Leadership::NewestEpoch(0));
        let ds = compare_all(&replicas, lead, false).unwrap();
        let kinds = |d| -> Vec<PairFinding> {
            findings(&replicas, d, false)
                .into_iter()
                .map(|f| f.kind)
                .collect()
        };
        assert_eq!(kinds(&ds[0]), vec![PairFinding::Identical]);
        assert_eq!(
            kinds(&ds[1]),
            vec![PairFinding::FollowerBehind {
                follower: "c".into(),
                missing: 10,
                leader: "a".into(),
                first_offset: 10,
                last_offset: 19
            }]
        );
        assert!(!ds.iter().any(loses_acknowledged));
    }

    #[test]
    fn a_log_end_past_an_empty_range_is_not_records_missing() {
        // Both hold offsets 0..9; the leader's log end is 20 (an empty segment rolled at 20, or
        // compaction emptied 10..19): nothing is missing from the follower.
        let mut l = replica("a", vec![batch(0, 9, 0, 1)], 20);
        l.log_end = 20;
        let f = replica("b", vec![batch(0, 9, 0, 1)], 10);
        let replicas = vec![l, f];
        let ds = compare_all(&replicas, Leadership::Given(0), false).unwrap();
        let found = findings(&replicas, &ds[0], false);
        assert_eq!(
            found.iter().map(|f| &f.kind).collect::<Vec<_>>(),
            vec![&PairFinding::EndsDifferNothingMissing {
                follower: "b".into(),
                follower_end: 10,
                leader: "a".into(),
                leader_end: 20
            }],
        );
    }

    #[test]
    fn same_newest_epoch_with_different_data_leaves_the_leader_unknown() {
        let a = replica("a", vec![batch(0, 9, 0, 1), batch(10, 19, 1, 2)], 20);
        let b = replica("b", vec![batch(0, 9, 0, 1), batch(10, 24, 1, 3)], 25);
        assert_eq!(leadership(&[a, b], None), Leadership::Unknown);
    }
}
