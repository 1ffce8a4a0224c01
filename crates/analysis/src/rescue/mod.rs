//! `kseg rescue`, the part that needs no network: which records of a source partition are sent
//! (committed data only, in offset order, inside the asked ranges, after what a previous run
//! delivered), where each goes, the resume file, and the content digests that match the
//! records a target holds against the source.
//!
//! Which transactional records were committed comes from [`transaction_outcomes`]; the records
//! themselves from the one scan loop ([`scan_log`]).

pub mod check;
pub mod plan;
mod state;
pub mod topics;
pub mod verify;

pub use plan::{Plan, PlanError, PlanRequest, TargetPartitions};
pub use state::{
    RefusedRecord, ResumeState, StateCheck, StateMismatch, Tail, TargetNow, TargetProgress, Ticket,
    Tracker, STATE_FILE_LIMIT,
};

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;
use std::io;
use std::path::Path;

use serde::Serialize;

use crate::partitioner::partition_for_key;
use crate::rescue_map::NotSent;
use crate::transactions::{transaction_outcomes, TxnOutcomes};
use kseg_format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::FileKind;
use kseg_storage::source::open_log;

/// What to take from each source partition (`--from-offset`, `--to-offset`, `--from-timestamp`,
/// `--to-timestamp`; all inclusive).
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    pub offsets: (i64, i64),
    pub timestamps: (i64, i64),
}

impl Selection {
    /// Every record of the partition.
    pub fn is_everything(&self) -> bool {
        self.offsets == (i64::MIN, i64::MAX) && self.timestamps == (i64::MIN, i64::MAX)
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            offsets: (i64::MIN, i64::MAX),
            timestamps: (i64::MIN, i64::MAX),
        }
    }
}

/// How a record's target partition is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Partitioning {
    /// The source partition's number.
    #[default]
    Same,
    /// The Java client's default for keyed records, `toPositive(murmur2(key)) % partitions`;
    /// records without a key keep their partition number (modulo the count).
    Murmur2,
}

impl Partitioning {
    pub fn target(self, source_partition: i32, key: Option<&[u8]>, partitions: i32) -> i32 {
        match (self, key) {
            (Partitioning::Murmur2, Some(k)) => {
                partition_for_key(k, partitions.max(1) as u32) as i32
            }
            (Partitioning::Murmur2, None) => source_partition % partitions.max(1),
            (Partitioning::Same, _) => source_partition,
        }
    }
}

/// `--topic-map old:new`, parsed. A Kafka internal topic is no target: brokers refuse clients'
/// records for it ([`internal_target`]).
pub fn parse_topic_map(spec: &str) -> Result<(String, String), String> {
    match spec.split_once(':') {
        Some((old, new)) if !old.is_empty() && !new.is_empty() => {
            internal_target(new)?;
            Ok((old.to_string(), new.to_string()))
        }
        _ => Err(format!("--topic-map wants OLD:NEW, not {spec:?}")),
    }
}

/// Refuses a target topic Kafka keeps for itself (`Topic.isInternal`): a broker answers
/// INVALID_TOPIC_EXCEPTION to every record produced into it.
pub fn internal_target(topic: &str) -> Result<(), String> {
    if kseg_format::internal::is_internal_topic(topic) {
        return Err(format!(
            "{topic} is a Kafka internal topic: brokers refuse records produced into it \
             (INVALID_TOPIC_EXCEPTION); --topic-map it to another topic"
        ));
    }
    Ok(())
}

/// What one source partition gave (or, with `--dry-run`, would give).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Tally {
    /// Records handed on to be sent.
    pub records: u64,
    /// Their key, value and header bytes.
    pub bytes: u64,
    pub first_offset: Option<i64>,
    pub last_offset: Option<i64>,
    /// Records of aborted transactions, left out.
    pub aborted_records: u64,
    /// Records of transactions with no marker (open or hanging), left out.
    pub open_records: u64,
    /// Control batches (transaction markers and others), never sent.
    pub control_batches: u64,
    /// Records outside `--from-timestamp`/`--to-timestamp`.
    pub outside_timestamps: u64,
    /// Records at or before the resume point of `--state`.
    pub already_acknowledged: u64,
    /// Records of batches whose checksum is wrong: not sent.
    pub bad_crc_records: u64,
    /// Undecodable or torn data, with file and byte position.
    pub problems: Vec<String>,
}

struct SelectSink<'a, F> {
    file: &'a Path,
    sel: Selection,
    outcomes: &'a TxnOutcomes,
    tally: &'a mut Tally,
    /// Why the records of the current batch are left out, if they are.
    skip: Skip,
    visit: F,
    /// Told of each record left out, with why.
    skipped: Option<&'a mut dyn FnMut(i64, NotSent)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Skip {
    No,
    Aborted,
    Open,
    BadCrc,
    Control,
}

impl<F: FnMut(&LogRecord<'_>) -> io::Result<Flow>> LogSink for SelectSink<'_, F> {
    fn batch(&mut self, position: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.skip = if b.is_control {
            self.tally.control_batches += 1;
            Skip::Control
        } else if !b.crc_valid {
            self.tally.problems.push(format!(
                "{}: batch at byte {position} (offsets {}..{}) fails its checksum; its records \
                 are not sent",
                self.file.display(),
                b.base_offset,
                b.last_offset
            ));
            Skip::BadCrc
        } else if !self.outcomes.committed(b) {
            if self.outcomes.aborted(b) {
                Skip::Aborted
            } else {
                Skip::Open
            }
        } else {
            Skip::No
        };
        Ok(Flow::Continue)
    }

    fn record(&mut self, _p: u64, _b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        let t = &mut *self.tally;
        let why = match self.skip {
            Skip::Control => NotSent::Control,
            Skip::Aborted => {
                t.aborted_records += 1;
                NotSent::Aborted
            }
            Skip::Open => {
                t.open_records += 1;
                NotSent::Open
            }
            Skip::BadCrc => {
                t.bad_crc_records += 1;
                NotSent::BadCrc
            }
            Skip::No => {
                let (from, to) = self.sel.timestamps;
                if r.timestamp < from || r.timestamp > to {
                    t.outside_timestamps += 1;
                    if let Some(f) = self.skipped.as_mut() {
                        f(r.offset, NotSent::OutsideTimestamps);
                    }
                    return Ok(Flow::Continue);
                }
                t.records += 1;
                t.bytes += record_bytes(r);
                t.first_offset.get_or_insert(r.offset);
                t.last_offset = Some(r.offset);
                return (self.visit)(r);
            }
        };
        if let Some(f) = self.skipped.as_mut() {
            f(r.offset, why);
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        self.tally
            .problems
            .push(format!("{}: {}", self.file.display(), p.message()));
        Ok(Flow::Continue)
    }
}

/// What the send did with one source partition: the send's hand-off to the report.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    pub tally: Tally,
    /// Records found already in the target by a resume, not sent again.
    pub resumed: u64,
    /// Target partition -> records sent there.
    pub to: BTreeMap<i32, u64>,
    /// The record the target refused: where this source stopped.
    pub refused: Option<RefusedRecord>,
    /// Records after the refused one the target took anyway (they were on their way):
    /// (target "topic-partition", offset).
    pub landed_after: Vec<(String, i64)>,
}

/// The whole send.
#[derive(Debug, Clone, Default)]
pub struct SendReport {
    pub sources: Vec<Sent>,
    pub sent: u64,
    /// Key, value and header bytes sent.
    pub bytes: u64,
    pub acknowledged: u64,
    /// Records the target refused (each stopped its source).
    pub refused: u64,
    pub unacknowledged: usize,
    /// Records a resume found delivered by the run before, and records past the resume point
    /// that are no record of this rescue (another producer's, or copies out of order).
    pub resume_matched: u64,
    pub foreign: u64,
    pub seconds: f64,
    /// Why the run stopped, when it is not one record's refusal.
    pub error: Option<String>,
}

impl SendReport {
    /// Records per second, whole.
    pub fn rate(&self) -> u64 {
        (self.sent as f64 / self.seconds.max(1e-9)).round() as u64
    }
}

/// Key, value and header bytes of a record.
pub fn record_bytes(r: &LogRecord<'_>) -> u64 {
    let mut n = r.key.map_or(0, <[u8]>::len) + r.value.map_or(0, <[u8]>::len);
    for h in r.headers.iter() {
        n += h.key.len() + h.value.map_or(0, <[u8]>::len);
    }
    n as u64
}

/// A source partition ready to be read: its transactions' outcomes are known.
pub struct Source<'a> {
    pub dir: &'a PartitionDir,
    pub outcomes: TxnOutcomes,
}

impl<'a> Source<'a> {
    /// Reads the partition's batch headers once to learn how its transactions ended.
    pub fn open(dir: &'a PartitionDir, scratch: &mut RecordScratch) -> io::Result<Source<'a>> {
        Ok(Source {
            dir,
            outcomes: transaction_outcomes(dir, scratch)?,
        })
    }

    /// "topic-partition" of the source.
    pub fn name(&self) -> String {
        format!("{}-{}", self.dir.name.topic, self.dir.name.partition)
    }

    /// Calls `visit` for every record to send, in offset order: committed data records of
    /// `sel`, after offset `after` (the resume point). Records already acknowledged are counted
    /// in the tally, not visited.
    pub fn select(
        &self,
        sel: Selection,
        after: Option<i64>,
        scratch: &mut RecordScratch,
        mut visit: impl FnMut(&LogRecord<'_>) -> io::Result<Flow>,
    ) -> io::Result<Tally> {
        let mut tally = Tally::default();
        let from = match after {
            Some(a) => sel.offsets.0.max(a.saturating_add(1)),
            None => sel.offsets.0,
        };
        let opts = ScanOptions {
            deep: true,
            offsets: (from, sel.offsets.1),
            ..Default::default()
        };
        for f in self.dir.files.iter().filter(|f| f.kind == FileKind::Log) {
            let mut src = open_log(&f.path, false)?;
            let mut sink = SelectSink {
                file: &f.path,
                sel,
                outcomes: &self.outcomes,
                tally: &mut tally,
                skip: Skip::No,
                visit: &mut visit,
                skipped: None,
            };
            let stats = scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
            if stats.stopped {
                break;
            }
        }
        if let Some(a) = after {
            // What the resume point covers, counted for the report (headers only would do, but
            // the records are needed for the timestamp range and the transactions).
            if a >= sel.offsets.0 {
                let mut done = Tally::default();
                let opts = ScanOptions {
                    deep: true,
                    offsets: (sel.offsets.0, a),
                    ..Default::default()
                };
                for f in self.dir.files.iter().filter(|f| f.kind == FileKind::Log) {
                    let mut src = open_log(&f.path, false)?;
                    let mut sink = SelectSink {
                        file: &f.path,
                        sel,
                        outcomes: &self.outcomes,
                        tally: &mut done,
                        skip: Skip::No,
                        visit: |_: &LogRecord<'_>| Ok(Flow::Continue),
                        skipped: None,
                    };
                    scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
                }
                tally.already_acknowledged = done.records;
                tally.aborted_records += done.aborted_records;
                tally.open_records += done.open_records;
                tally.control_batches += done.control_batches;
                tally.outside_timestamps += done.outside_timestamps;
            }
        }
        Ok(tally)
    }
}

impl Source<'_> {
    /// Why each of `offsets` (source offsets inside `sel`) was not sent: one walk over their
    /// span. An offset no record has (compacted away, unreadable) is [`NotSent::NoRecord`]; one
    /// that is sent is left out of the answer.
    pub fn not_sent(
        &self,
        offsets: &BTreeSet<i64>,
        sel: Selection,
        scratch: &mut RecordScratch,
    ) -> io::Result<BTreeMap<i64, NotSent>> {
        let (Some(&lo), Some(&hi)) = (offsets.first(), offsets.last()) else {
            return Ok(BTreeMap::new());
        };
        let mut found: BTreeMap<i64, NotSent> = BTreeMap::new();
        let mut sent: BTreeSet<i64> = BTreeSet::new();
        let span = Selection {
            offsets: (lo.max(sel.offsets.0), hi.min(sel.offsets.1)),
            timestamps: sel.timestamps,
        };
        let opts = ScanOptions {
            deep: true,
            offsets: span.offsets,
            ..Default::default()
        };
        let mut tally = Tally::default();
        let mut note = |o: i64, why: NotSent| {
            if offsets.contains(&o) {
                found.insert(o, why);
            }
        };
        for f in self.dir.files.iter().filter(|f| f.kind == FileKind::Log) {
            let mut src = open_log(&f.path, false)?;
            let mut sink = SelectSink {
                file: &f.path,
                sel: span,
                outcomes: &self.outcomes,
                tally: &mut tally,
                skip: Skip::No,
                visit: |r: &LogRecord<'_>| {
                    if offsets.contains(&r.offset) {
                        sent.insert(r.offset);
                    }
                    Ok(Flow::Continue)
                },
                skipped: Some(&mut note),
            };
            scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
        }
        for o in offsets {
            if !sent.contains(o) {
                found.entry(*o).or_insert(NotSent::NoRecord);
            }
        }
        Ok(found)
    }
}

/// A digest of what a consumer is given of a record besides its timestamp: key, value and
/// headers, with null told apart from empty. The same function digests the source and the
/// target, so that `--verify` and a resume compare records without keeping them.
pub fn content_digest<'h>(
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: impl Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
) -> u64 {
    // Compared within one run only (never stored), so the standard hasher serves.
    let mut h = std::hash::DefaultHasher::new();
    let mut field = |b: Option<&[u8]>| match b {
        None => h.write_u8(0),
        Some(b) => {
            h.write_u8(1);
            h.write_u64(b.len() as u64);
            h.write(b);
        }
    };
    field(key);
    field(value);
    for (k, v) in headers {
        field(Some(k));
        field(v);
    }
    h.finish()
}

pub fn record_digest(r: &LogRecord<'_>) -> u64 {
    content_digest(r.key, r.value, r.headers.iter().map(|h| (h.key, h.value)))
}

/// The timestamp a rescued record is sent with: its own (CreateTime, or the append time a
/// LogAppendTime batch gave it), or none for a record without one (magic 0, or 0 which the
/// producer library reads as "now").
pub fn sent_timestamp(r: &LogRecord<'_>) -> Option<i64> {
    (r.timestamp > 0).then_some(r.timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_tell_null_from_empty_and_headers_apart() {
        let none = content_digest(None, Some(b"v"), std::iter::empty());
        let empty = content_digest(Some(b""), Some(b"v"), std::iter::empty());
        assert_ne!(none, empty);
        let h1 = content_digest(None, None, [(&b"a"[..], None)].into_iter());
        let h2 = content_digest(None, None, [(&b"a"[..], Some(&b""[..]))].into_iter());
        assert_ne!(h1, h2);
        assert_eq!(
            h1,
            content_digest(None, None, [(&b"a"[..], None)].into_iter())
        );
    }

    #[test]
    fn murmur2_partitioning_is_the_java_clients() {
        // Kafka's DefaultPartitionerTest/BuiltInPartitioner: murmur2 of "key" -> partition.
        let p = Partitioning::Murmur2.target(0, Some(b"key"), 1000);
        assert_eq!(p as u32, partition_for_key(b"key", 1000));
        assert_eq!(Partitioning::Murmur2.target(5, None, 3), 2);
        assert_eq!(Partitioning::Same.target(5, Some(b"k"), 3), 5);
    }

    /// payments-0 of the example data dir: a committed transaction (0..4), its COMMIT (5), an
    /// aborted one (6..8, also in the segment's `.txnindex`), its ABORT (9), then idempotent
    /// records (10..13).
    #[test]
    fn only_committed_data_records_are_selected() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/example-datadir");
        let set = kseg_storage::discover::discover(&[dir]).unwrap();
        let p = set
            .all_partitions()
            .find(|p| p.name.topic == "payments")
            .unwrap();
        let mut scratch = RecordScratch::default();
        let src = Source::open(p, &mut scratch).unwrap();
        let mut offsets = Vec::new();
        let tally = src
            .select(Selection::default(), None, &mut scratch, |r| {
                offsets.push(r.offset);
                Ok(Flow::Continue)
            })
            .unwrap();
        assert_eq!(offsets, [0, 1, 2, 3, 4, 10, 11, 12, 13]);
        assert_eq!((tally.aborted_records, tally.open_records), (3, 0));
        assert_eq!(tally.control_batches, 2);
        // Kafka's own record of the abort agrees.
        let txn = std::fs::read(p.path.join("00000000000000000000.txnindex")).unwrap();
        let (entries, _) = kseg_format::txn_index::parse_txn_index(&txn);
        let aborted = entries[0].as_ref().unwrap();
        assert!(offsets
            .iter()
            .all(|o| *o < aborted.first_offset || *o > aborted.last_offset));

        // Resumed after offset 3, within offsets 2..=11: 4 and 10, 11.
        let mut offsets = Vec::new();
        let sel = Selection {
            offsets: (2, 11),
            ..Default::default()
        };
        let tally = src
            .select(sel, Some(3), &mut scratch, |r| {
                offsets.push(r.offset);
                Ok(Flow::Continue)
            })
            .unwrap();
        assert_eq!(offsets, [4, 10, 11]);
        assert_eq!(tally.already_acknowledged, 2);
    }

    /// Why each offset of payments-0 was left out, as `--groups` explains a committed offset.
    #[test]
    fn not_sent_names_why_each_offset_was_left_out() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/example-datadir");
        let set = kseg_storage::discover::discover(&[dir]).unwrap();
        let p = set
            .all_partitions()
            .find(|p| p.name.topic == "payments")
            .unwrap();
        let mut scratch = RecordScratch::default();
        let src = Source::open(p, &mut scratch).unwrap();
        let why = src
            .not_sent(
                &BTreeSet::from([3, 5, 7, 9, 99]),
                Selection::default(),
                &mut scratch,
            )
            .unwrap();
        assert_eq!(
            why,
            BTreeMap::from([
                (5, NotSent::Control),
                (7, NotSent::Aborted),
                (9, NotSent::Control),
                (99, NotSent::NoRecord)
            ])
        );
        // Outside a time range: offset 12's record (1717003960010) is after --to-timestamp.
        let sel = Selection {
            timestamps: (i64::MIN, 1717003960005),
            ..Default::default()
        };
        let why = src
            .not_sent(&BTreeSet::from([12]), sel, &mut scratch)
            .unwrap();
        assert_eq!(why, BTreeMap::from([(12, NotSent::OutsideTimestamps)]));
    }

    #[test]
    fn topic_maps() {
        assert_eq!(
            parse_topic_map("a:b.c").unwrap(),
            ("a".to_string(), "b.c".to_string())
        );
        assert!(parse_topic_map("a").is_err());
        for internal in [
            "__consumer_offsets",
            "__transaction_state",
            "__share_group_state",
        ] {
            let e = parse_topic_map(&format!("a:{internal}")).unwrap_err();
            assert!(e.contains("internal topic"), "{e}");
        }
        assert!(parse_topic_map(":b").is_err());
    }
}
