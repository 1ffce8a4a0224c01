//! `kseg lookup` against a brute-force model of the broker's rules, written here separately
//! from `src/analysis/lookup.rs`: it walks every record of a partition (from the fixture
//! generator's listing, or from `kseg dump-log --json` for the real corpus) and applies
//! `fetchOffsetByTimestamp`, the fetch rule, ListOffsets EARLIEST/LATEST/MAX_TIMESTAMP and
//! `LeaderEpochFileCache.endOffsetFor` without any index.
//!
//! Fixtures: `testdata/lookup/` (kafka-python batches, indexes by Kafka's rules; see
//! `scripts/gen_lookup_fixtures.py`) and the real data sets in `../shared/corpus/real/`.

use crate::common;
use crate::common::*;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use kseg::analysis::lookup::{lookup, Answer, LookupReport, PartitionTarget, Query};
use kseg::storage::discover::discover;
use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/lookup");
const EXPECTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/lookup.expected.json");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/real");
const MAX_DECOMPRESSED: usize = 128 << 20;

// ------------------------------------------------------------------ the model

#[derive(Debug, Clone)]
struct MBatch {
    position: u64,
    last_offset: i64,
    max_ts: i64,
    magic: i64,
    epoch: i64,
    ts_type: String,
    records: Vec<(i64, i64)>,
}

#[derive(Debug, Clone)]
struct MSeg {
    base: i64,
    log: PathBuf,
    batches: Vec<MBatch>,
}

#[derive(Debug, Clone)]
struct MPart {
    name: String,
    dir: PathBuf,
    log_start: i64,
    epochs: Option<Vec<(i32, i64)>>,
    segs: Vec<MSeg>,
}

/// What the model answers: offset, timestamp, segment base and batch position.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MHit {
    offset: i64,
    ts: Option<i64>,
    seg: Option<i64>,
    position: Option<u64>,
}

fn mtime_ms(path: &Path) -> i64 {
    let t = fs::metadata(path).unwrap().modified().unwrap();
    t.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

impl MPart {
    fn log_end(&self) -> i64 {
        let last_base = self.segs.last().unwrap().base;
        self.segs
            .iter()
            .flat_map(|s| s.batches.iter())
            .map(|b| b.last_offset + 1)
            .max()
            .map_or(last_base, |e| e.max(last_base))
    }

    /// `LogSegment.largestTimestamp`: the largest batch maxTimestamp, else the .log mtime.
    fn largest(&self, s: &MSeg) -> i64 {
        let m = s.batches.iter().map(|b| b.max_ts).max().unwrap_or(-1);
        if m >= 0 {
            m
        } else {
            mtime_ms(&s.log)
        }
    }

    fn hit(s: &MSeg, b: &MBatch, offset: i64, ts: i64) -> MHit {
        MHit {
            offset,
            ts: (ts >= 0).then_some(ts),
            seg: Some(s.base),
            position: Some(b.position),
        }
    }

    /// offsetsForTimes: only the first segment whose largest timestamp is >= t is searched;
    /// batches with maxTimestamp < t are skipped; the first record with ts >= t and offset >=
    /// log start in the later batches of that segment.
    fn by_timestamp(&self, t: i64) -> Option<MHit> {
        let s = self.segs.iter().find(|s| self.largest(s) >= t)?;
        for b in s.batches.iter().filter(|b| b.max_ts >= t) {
            for &(o, ts) in &b.records {
                if ts >= t && o >= self.log_start {
                    return Some(Self::hit(s, b, o, ts));
                }
            }
        }
        None
    }

    /// What every record says, without the broker's one-segment rule.
    fn naive_timestamp(&self, t: i64) -> Option<MHit> {
        for s in &self.segs {
            for b in &s.batches {
                for &(o, ts) in &b.records {
                    if ts >= t && o >= self.log_start {
                        return Some(Self::hit(s, b, o, ts));
                    }
                }
            }
        }
        None
    }

    /// A fetch from o: the first record at or after o, when o is in [log start, log end).
    fn by_offset(&self, o: i64) -> Option<MHit> {
        if o < self.log_start || o >= self.log_end() {
            return None;
        }
        for s in &self.segs {
            for b in &s.batches {
                for &(ro, ts) in &b.records {
                    if ro >= o {
                        return Some(Self::hit(s, b, ro, ts));
                    }
                }
            }
        }
        None
    }

    /// MAX_TIMESTAMP: the first segment with the greatest max timestamp, its first batch with
    /// that maxTimestamp, the first record carrying it (none for magic 0).
    fn max_timestamp(&self) -> Option<MHit> {
        let seg_max = |s: &MSeg| s.batches.iter().map(|b| b.max_ts).max().unwrap_or(-1);
        let mut best = &self.segs[0];
        for s in &self.segs[1..] {
            if seg_max(s) > seg_max(best) {
                best = s;
            }
        }
        let m = seg_max(best);
        let b = best.batches.iter().find(|b| b.max_ts == m)?;
        if b.magic == 0 {
            return None;
        }
        let &(o, _) = b.records.iter().find(|r| r.1 == m)?;
        Some(MHit {
            offset: o,
            ts: Some(m),
            seg: Some(best.base),
            position: Some(b.position),
        })
    }

    /// OffsetForLeaderEpoch on the cache as LogLoader leaves it.
    fn end_offset_for_epoch(&self, e: i32) -> Option<(i32, i64)> {
        let leo = self.log_end();
        let mut c = self.epochs.clone().unwrap_or_default();
        c.sort();
        if c.last().is_some_and(|l| l.1 >= leo) {
            c.retain(|x| x.1 < leo);
        }
        let below: Vec<(i32, i64)> = c
            .iter()
            .copied()
            .filter(|x| x.1 <= self.log_start)
            .collect();
        if let Some(&(epoch, _)) = below.last() {
            c.retain(|x| x.1 > self.log_start);
            c.insert(0, (epoch, self.log_start));
        }
        if e < 0 {
            return None;
        }
        if c.last().is_some_and(|l| l.0 == e) {
            return Some((e, leo));
        }
        let higher = c.iter().find(|x| x.0 > e)?;
        let r = match c.iter().rev().find(|x| x.0 <= e) {
            Some(f) => (f.0, higher.1),
            None => (e, higher.1),
        };
        Some(r)
    }

    /// Interesting targets: every record timestamp and its neighbours, batch maxima, segment
    /// mtimes and the ends.
    fn timestamp_targets(&self, every: usize) -> Vec<i64> {
        let mut t = BTreeSet::new();
        let mut all = Vec::new();
        let mut k = 0usize;
        for s in &self.segs {
            let m = mtime_ms(&s.log);
            t.extend([m - 1, m, m + 1]);
            for (i, b) in s.batches.iter().enumerate() {
                // every segment's first and last batch, and a sample of the others
                if i == 0 || i + 1 == s.batches.len() || k.is_multiple_of(every) {
                    t.extend([b.max_ts, b.max_ts + 1]);
                }
                k += 1;
                all.extend(b.records.iter().map(|r| r.1));
            }
        }
        for (i, ts) in all.iter().enumerate() {
            if i.is_multiple_of(every) {
                t.extend([ts - 1, *ts, ts + 1]);
            }
        }
        if let (Some(lo), Some(hi)) = (all.iter().min(), all.iter().max()) {
            t.extend([lo - 1000, hi + 1000, 0, 1]);
        }
        t.into_iter().filter(|x| *x >= 0).collect()
    }
}

fn epochs_of(dir: &Path) -> Option<Vec<(i32, i64)>> {
    let text = fs::read_to_string(dir.join("leader-epoch-checkpoint")).ok()?;
    let mut lines = text.lines();
    lines.next();
    lines.next();
    Some(
        lines
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
            })
            .collect(),
    )
}

fn log_start_checkpoint(dir: &Path) -> Option<i64> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let (topic, part) = name.rsplit_once('-')?;
    let text = fs::read_to_string(dir.parent()?.join("log-start-offset-checkpoint")).ok()?;
    text.lines().skip(2).find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() == 3 && f[0] == topic && f[1] == part).then(|| f[2].parse().unwrap())
    })
}

/// The model from the generator's listing.
fn fixture_model(root: &Path) -> Vec<MPart> {
    let doc: Value = serde_json::from_str(&fs::read_to_string(EXPECTED).unwrap()).unwrap();
    let mut parts = Vec::new();
    for (name, p) in doc["partitions"].as_object().unwrap() {
        let dir = root.join(name);
        let segs = p["segments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let base = s["baseOffset"].as_i64().unwrap();
                MSeg {
                    base,
                    log: dir.join(format!("{base:020}.log")),
                    batches: s["batches"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| MBatch {
                            position: b["position"].as_u64().unwrap(),
                            last_offset: b["lastOffset"].as_i64().unwrap(),
                            max_ts: b["maxTimestamp"].as_i64().unwrap(),
                            magic: b["magic"].as_i64().unwrap(),
                            epoch: b["leaderEpoch"].as_i64().unwrap(),
                            ts_type: b["timestampType"].as_str().unwrap().to_string(),
                            records: b["records"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|r| (r[0].as_i64().unwrap(), r[1].as_i64().unwrap()))
                                .collect(),
                        })
                        .collect(),
                }
            })
            .collect();
        let part = MPart {
            name: name.clone(),
            dir: dir.clone(),
            log_start: p["logStartOffset"].as_i64().unwrap(),
            epochs: Some(
                p["leaderEpochs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| (e[0].as_i64().unwrap() as i32, e[1].as_i64().unwrap()))
                    .collect(),
            ),
            segs,
        };
        assert_eq!(part.log_end(), p["logEndOffset"].as_i64().unwrap());
        parts.push(part);
    }
    parts
}

/// The model from `kseg dump-log --deep-iteration --json` of a real partition dir.
fn dump_model(dir: &Path) -> MPart {
    let run = kseg(&[
        "dump-log",
        "--deep-iteration",
        "--json",
        dir.to_str().unwrap(),
    ]);
    let lines = json_lines(&run.stdout);
    let mut segs: Vec<MSeg> = Vec::new();
    for v in &lines {
        let Some(file) = v["file"].as_str() else {
            continue;
        };
        if !file.ends_with(".log") {
            continue;
        }
        let log = PathBuf::from(file);
        let base: i64 = log
            .file_name()
            .unwrap()
            .to_string_lossy()
            .split('.')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if segs.last().is_none_or(|s| s.base != base) {
            segs.push(MSeg {
                base,
                log: log.clone(),
                batches: Vec::new(),
            });
        }
        let seg = segs.last_mut().unwrap();
        match v["type"].as_str() {
            Some("batch") => seg.batches.push(MBatch {
                position: v["position"].as_u64().unwrap(),
                last_offset: v["lastOffset"].as_i64().unwrap(),
                max_ts: v["maxTimestamp"].as_i64().unwrap(),
                magic: v["magic"].as_i64().unwrap(),
                epoch: v["partitionLeaderEpoch"].as_i64().unwrap(),
                ts_type: v["timestampType"].as_str().unwrap().to_string(),
                records: Vec::new(),
            }),
            Some("record") => {
                let b = seg.batches.last_mut().unwrap();
                assert_eq!(v["batchPosition"].as_u64().unwrap(), b.position);
                b.records.push((
                    v["offset"].as_i64().unwrap(),
                    v["timestamp"].as_i64().unwrap(),
                ));
            }
            _ => {}
        }
    }
    let first = segs.first().map_or(0, |s| s.base);
    MPart {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        dir: dir.to_path_buf(),
        log_start: log_start_checkpoint(dir).map_or(first, |c| c.max(first)),
        epochs: epochs_of(dir),
        segs,
    }
}

// ------------------------------------------------------------------ kseg's answers

fn target_for(dir: &Path) -> PartitionTarget {
    let set = discover(&[dir.to_path_buf()]).unwrap();
    let p = set.partitions.first().expect("a partition dir");
    PartitionTarget::new(p, dir.parent())
}

fn base_of(p: &Path) -> i64 {
    p.file_name()
        .unwrap()
        .to_string_lossy()
        .split('.')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn as_hit(a: &Answer) -> Option<MHit> {
    Some(MHit {
        offset: a.offset?,
        ts: a.timestamp,
        seg: a.segment.as_deref().map(base_of),
        position: a.position(),
    })
}

fn ask(t: &PartitionTarget, q: Query, scan: bool) -> LookupReport {
    lookup(t, q, scan, MAX_DECOMPRESSED).unwrap_or_else(|e| panic!("{q:?}: {e}"))
}

/// Every model answer against kseg's, in process. Returns how many targets were checked.
fn check_partition(m: &MPart, every: usize, scan_every: usize) -> usize {
    let t = target_for(&m.dir);
    let targets = m.timestamp_targets(every);
    for (k, &ts) in targets.iter().enumerate() {
        let scan = k.is_multiple_of(scan_every);
        let r = ask(&t, Query::Timestamp(ts), scan);
        assert_eq!(
            as_hit(&r.answer),
            m.by_timestamp(ts),
            "{}: --timestamp {ts}: {:#?}",
            m.name,
            r.trace.steps
        );
        if let Some(s) = &r.scan {
            let naive = m.naive_timestamp(ts);
            assert_eq!(
                as_hit(&s.answer),
                naive,
                "{}: --scan --timestamp {ts}",
                m.name
            );
            assert_eq!(s.differs, naive != m.by_timestamp(ts), "{}: {ts}", m.name);
        }
    }
    let leo = m.log_end();
    let first = m.log_start.max(1) - 1;
    let mut offsets: BTreeSet<i64> = (first..=(leo + 1).min(m.log_start + 100)).collect();
    offsets.extend((m.log_start..leo).step_by(every.max(1)));
    offsets.extend([leo - 1, leo, leo + 1, -1]);
    for &o in &offsets {
        let r = ask(&t, Query::Offset(o), false);
        assert_eq!(
            as_hit(&r.answer),
            m.by_offset(o),
            "{}: --offset {o}",
            m.name
        );
        assert_eq!(r.log_end_offset, Some(leo));
    }
    let r = ask(&t, Query::Earliest, false);
    assert_eq!(r.answer.offset, Some(m.log_start), "{}: --earliest", m.name);
    let r = ask(&t, Query::Latest, true);
    assert_eq!(r.answer.offset, Some(leo), "{}: --latest", m.name);
    assert!(!r.scan.unwrap().differs);
    let r = ask(&t, Query::MaxTimestamp, true);
    assert_eq!(
        as_hit(&r.answer),
        m.max_timestamp(),
        "{}: --max-timestamp",
        m.name
    );
    let max_epoch = m
        .segs
        .iter()
        .flat_map(|s| s.batches.iter())
        .map(|b| b.epoch as i32)
        .chain(m.epochs.iter().flatten().map(|e| e.0))
        .max()
        .unwrap_or(0);
    if m.epochs.is_some() {
        for e in -1..=max_epoch + 1 {
            let r = ask(&t, Query::EndOffsetForEpoch(e), false);
            let got = r.answer.offset.map(|o| (r.answer.leader_epoch.unwrap(), o));
            assert_eq!(
                got,
                m.end_offset_for_epoch(e),
                "{}: --end-offset-for-epoch {e}",
                m.name
            );
        }
    }
    targets.len() + offsets.len()
}

// ------------------------------------------------------------------ fixture tests

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A copy of `testdata/lookup` whose `.log` mtimes are the ones the broker left (git does not
/// keep mtimes, and Kafka reads them for segments without timestamps).
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("lookup");
    copy_dir(Path::new(FIXTURE), &root);
    let doc: Value = serde_json::from_str(&fs::read_to_string(EXPECTED).unwrap()).unwrap();
    for (name, p) in doc["partitions"].as_object().unwrap() {
        for s in p["segments"].as_array().unwrap() {
            let log = root
                .join(name)
                .join(format!("{:020}.log", s["baseOffset"].as_i64().unwrap()));
            let mtime = UNIX_EPOCH + Duration::from_millis(s["mtime"].as_u64().unwrap());
            fs::OpenOptions::new()
                .write(true)
                .open(&log)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
    }
    (tmp, root)
}

fn part<'a>(parts: &'a [MPart], name: &str) -> &'a MPart {
    parts.iter().find(|p| p.name == name).unwrap()
}

fn cli_json(args: &[&str]) -> Vec<Value> {
    let run = kseg(args);
    assert_eq!(run.code, 0, "kseg {args:?}: {}", run.stderr);
    json_lines(&run.stdout)
}

fn hit_of(v: &Value) -> Option<MHit> {
    Some(MHit {
        offset: v["offset"].as_i64()?,
        ts: v["timestamp"].as_i64(),
        seg: v["segment"].as_str().map(|s| base_of(Path::new(s))),
        position: v["position"].as_u64(),
    })
}

#[test]
fn every_answer_matches_the_model_on_kafka_python_data() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    assert_eq!(parts.len(), 4);
    let mut checked = 0;
    for m in &parts {
        checked += check_partition(m, 1, 3);
    }
    assert!(checked > 1500, "{checked} lookups");
}

#[test]
fn named_timestamp_cases_through_the_cli() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let e0 = part(&parts, "events-0");
    let dir = e0.dir.to_str().unwrap();
    let records: Vec<(usize, &MBatch, i64, i64)> = e0
        .segs
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.batches
                .iter()
                .flat_map(move |b| b.records.iter().map(move |r| (i, b, r.0, r.1)))
        })
        .collect();
    let min = records.iter().map(|r| r.3).min().unwrap();
    let max = records.iter().map(|r| r.3).max().unwrap();
    let at = |t: i64| -> Option<MHit> {
        let v = cli_json(&["lookup", dir, "--timestamp", &t.to_string(), "--json"]);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["type"], "lookup");
        assert_eq!(v[0]["topic"], "events");
        assert_eq!(v[0]["partition"], 0);
        assert_eq!(v[0]["target"]["kind"], "timestamp");
        assert_eq!(v[0]["target"]["value"], t);
        let got = hit_of(&v[0]);
        assert_eq!(got, e0.by_timestamp(t), "--timestamp {t}");
        got
    };
    // before all data: the first record
    assert_eq!(at(min - 1).unwrap().offset, 0);
    // after all data: none, `offset: null`
    assert_eq!(at(max + 1), None);
    let v = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        &(max + 1).to_string(),
        "--json",
    ]);
    assert!(v[0]["offset"].is_null() && v[0]["segment"].is_null());
    // equal to a record timestamp, and between two records
    let k = (40..records.len())
        .find(|&k| records[..k].iter().all(|r| r.3 < records[k].3))
        .unwrap();
    let (_, _, o, t) = records[k];
    let got = at(t).unwrap();
    assert_eq!(got.ts, Some(t));
    assert!(got.offset <= o);
    let sorted: BTreeSet<i64> = records.iter().map(|r| r.3).collect();
    let gap = sorted
        .iter()
        .zip(sorted.iter().skip(1))
        .find(|(a, b)| **b - **a > 10 && **a > min + 20_000)
        .unwrap();
    let got = at(gap.0 + 1).unwrap();
    assert!(got.ts.unwrap() > gap.0 + 1);
    // inside out-of-order regions: a batch older than the max before it (skewed clock), and a
    // batch whose records are out of order
    let skewed = records
        .windows(2)
        .find(|w| w[1].3 + 60_000 < w[0].3)
        .map(|w| w[1])
        .unwrap();
    let got = at(skewed.3).unwrap();
    assert!(
        got.offset <= skewed.2,
        "the first record at or after the skewed time"
    );
    let disordered = records
        .windows(2)
        .find(|w| w[0].1.position == w[1].1.position && w[1].3 < w[0].3)
        .map(|w| w[1])
        .unwrap();
    at(disordered.3);
    at(disordered.3 + 1);
    // at segment boundaries: each segment's largest timestamp and one past it
    for s in &e0.segs {
        if let Some(m) = s.batches.iter().map(|b| b.max_ts).max() {
            at(m);
            at(m + 1);
        }
        if let Some(b) = s.batches.first() {
            at(b.records[0].1);
        }
    }
    // LogAppendTime batches: the record timestamp is the batch's append time
    let lat = e0
        .segs
        .iter()
        .flat_map(|s| s.batches.iter())
        .filter(|b| b.ts_type == "LogAppendTime")
        .nth(3)
        .unwrap();
    let v = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        &lat.max_ts.to_string(),
        "--json",
    ]);
    assert_eq!(v[0]["batch"]["timestampType"], "LogAppendTime");
    assert_eq!(v[0]["timestamp"], lat.max_ts);
    assert_eq!(v[0]["offset"], lat.records[0].0);
    // the COMMIT marker carries the largest timestamp of its region: it is a candidate too
    let marker = e0
        .segs
        .iter()
        .flat_map(|s| s.batches.iter())
        .find(|b| {
            b.records.len() == 1 && b.magic == 2 && b.epoch >= 0 && {
                let v = cli_json(&[
                    "lookup",
                    dir,
                    "--offset",
                    &b.records[0].0.to_string(),
                    "--json",
                ]);
                v[0]["batch"]["isControl"] == true
            }
        })
        .unwrap();
    let v = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        &marker.max_ts.to_string(),
        "--json",
    ]);
    assert_eq!(v[0]["offset"], marker.records[0].0);
    assert_eq!(v[0]["batch"]["isControl"], true);
}

#[test]
fn a_later_segment_does_not_count_and_scan_says_so() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let e1 = part(&parts, "events-1");
    assert_eq!(e1.log_start, 9);
    // The first segment's largest timestamp comes from batches below the log start offset.
    let seg0_max = e1.segs[0].batches.iter().map(|b| b.max_ts).max().unwrap();
    let t = e1.segs[0].batches.last().unwrap().max_ts + 1;
    assert!(t < seg0_max);
    assert_eq!(e1.by_timestamp(t), None);
    let naive = e1
        .naive_timestamp(t)
        .expect("a later segment holds later records");
    let dir = e1.dir.to_str().unwrap();
    let v = cli_json(&["lookup", dir, "--timestamp", &t.to_string(), "--json"]);
    assert!(v[0]["offset"].is_null(), "{}", v[0]);
    let run = kseg(&[
        "lookup",
        dir,
        "--timestamp",
        &t.to_string(),
        "--json",
        "--scan",
        "--explain",
    ]);
    assert_eq!(run.code, 1, "a differing scan is a finding: {}", run.stdout);
    let v = json_lines(&run.stdout);
    // The headline and `offset` stay the broker's answer (none); the scan's is a finding.
    assert!(v[0]["offset"].is_null(), "{}", v[0]);
    assert!(v[0]["segment"].is_null(), "{}", v[0]);
    assert_eq!(v[0]["scanOffset"], naive.offset);
    assert_eq!(v[0]["scan"]["offset"], naive.offset);
    assert_eq!(v[0]["scanDiffers"], true);
    let reason = v[0]["scanReason"].as_str().unwrap();
    assert!(reason.contains("broker's rule"), "{reason}");
    let run = kseg(&["lookup", dir, "--timestamp", &t.to_string(), "--scan"]);
    assert_eq!(run.code, 1, "a differing scan is a finding: {}", run.stdout);
    assert!(run.stdout.starts_with("events:1:\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "FINDING: a scan of every record answers offset {}; the broker answers none",
            naive.offset
        )),
        "{}",
        run.stdout
    );

    // log start offset from the checkpoint: --earliest, and offsets below it are out of range
    let v = cli_json(&["lookup", dir, "--earliest", "--json"]);
    assert_eq!(v[0]["offset"], 9);
    let run = kseg(&["lookup", dir, "--offset", "3"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("events:1:\n"), "{}", run.stdout);
    assert!(run.stdout.contains("out of range"), "{}", run.stdout);
}

#[test]
fn segments_without_timestamps_use_the_mtime() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let l = part(&parts, "legacy-0");
    assert!(l.segs[0].batches.iter().all(|b| b.magic == 0));
    let mtime = mtime_ms(&l.segs[0].log);
    // Up to the mtime the broker searches the v0 segment, which has no timestamp: none,
    // although every record of the next segments is later.
    assert_eq!(l.by_timestamp(mtime), None);
    assert_eq!(l.naive_timestamp(mtime).unwrap().seg, Some(l.segs[1].base));
    let dir = l.dir.to_str().unwrap();
    let run = kseg(&[
        "lookup",
        dir,
        "--timestamp",
        &mtime.to_string(),
        "--explain",
    ]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("legacy:0:\n"), "{}", run.stdout);
    assert!(run.stdout.contains("mtime"), "{}", run.stdout);
    // After it, the v1 segment.
    let v = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        &(mtime + 1).to_string(),
        "--json",
    ]);
    assert_eq!(hit_of(&v[0]), l.by_timestamp(mtime + 1));
    assert!(v[0]["offset"].is_number());
    // A LogAppendTime v1 wrapper: its inner records report the wrapper's time.
    let wrapper = l
        .segs
        .iter()
        .flat_map(|s| s.batches.iter())
        .find(|b| b.magic == 1 && b.ts_type == "LogAppendTime" && b.records.len() > 1)
        .unwrap();
    let v = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        &wrapper.max_ts.to_string(),
        "--json",
    ]);
    assert_eq!(v[0]["timestamp"], wrapper.max_ts);
    assert_eq!(v[0]["offset"], wrapper.records[0].0);
}

#[test]
fn offsets_gaps_ends_and_epochs() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let e2 = part(&parts, "events-2");
    let dir = e2.dir.to_str().unwrap();
    // An offset removed by compaction: a fetch starts at the next record.
    let (gap_batch, missing) = e2
        .segs
        .iter()
        .flat_map(|s| s.batches.iter())
        .find_map(|b| {
            b.records
                .windows(2)
                .find(|w| w[1].0 > w[0].0 + 1)
                .map(|w| (b, w[0].0 + 1))
        })
        .unwrap();
    let run = kseg(&["lookup", dir, "--offset", &missing.to_string()]);
    assert_eq!(run.code, 0);
    let next = e2.by_offset(missing).unwrap();
    assert!(next.offset > missing && next.position == Some(gap_batch.position));
    assert!(
        run.stdout
            .starts_with(&format!("events:2:{}\n", next.offset)),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("not in the log"), "{}", run.stdout);
    // The log end offset (the last segment is empty: its base offset).
    let leo = e2.log_end();
    assert_eq!(e2.segs.last().unwrap().batches.len(), 0);
    assert_eq!(leo, e2.segs.last().unwrap().base);
    let v = cli_json(&["lookup", dir, "--latest", "--json"]);
    assert_eq!(v[0]["offset"], leo);
    let run = kseg(&["lookup", dir, "--offset", &leo.to_string()]);
    assert!(run.stdout.contains("log end offset"), "{}", run.stdout);
    // Max timestamp.
    let v = cli_json(&["lookup", dir, "--max-timestamp", "--json"]);
    assert_eq!(hit_of(&v[0]), e2.max_timestamp());
    // Leader epochs of events-0: 0, 2, 3 (1 never led it).
    let e0 = part(&parts, "events-0");
    let dir0 = e0.dir.to_str().unwrap();
    assert_eq!(
        e0.epochs
            .as_ref()
            .unwrap()
            .iter()
            .map(|e| e.0)
            .collect::<Vec<_>>(),
        [0, 2, 3]
    );
    for (e, want) in [
        (1, e0.end_offset_for_epoch(1)),
        (3, Some((3, e0.log_end()))),
    ] {
        let v = cli_json(&[
            "lookup",
            dir0,
            "--end-offset-for-epoch",
            &e.to_string(),
            "--json",
        ]);
        let got = v[0]["offset"]
            .as_i64()
            .map(|o| (v[0]["leaderEpoch"].as_i64().unwrap() as i32, o));
        assert_eq!(got, want, "epoch {e}");
        assert!(
            !v[0]["notes"].to_string().contains("disagree"),
            "{}",
            v[0]["notes"]
        );
    }
    let v = cli_json(&[
        "lookup",
        dir0,
        "--end-offset-for-epoch",
        "9",
        "--json",
        "--scan",
    ]);
    assert!(v[0]["offset"].is_null());
    assert_eq!(v[0]["scanDiffers"], false);
}

#[test]
fn a_log_dir_with_topic_prints_like_kafka_get_offsets() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let run = kseg(&[
        "lookup",
        root.to_str().unwrap(),
        "--topic",
        "events",
        "--latest",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    let want: Vec<String> = ["events-0", "events-1", "events-2"]
        .iter()
        .enumerate()
        .map(|(i, n)| format!("events:{i}:{}", part(&parts, n).log_end()))
        .collect();
    assert_eq!(lines, want);
    // Without --topic a log dir is refused with the topics it holds.
    let run = kseg(&["lookup", root.to_str().unwrap(), "--latest"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--topic") && run.stderr.contains("events"),
        "{}",
        run.stderr
    );
}

#[test]
fn times_without_a_zone_are_refused_and_bad_targets_exit_2() {
    let (_tmp, root) = fixture();
    let dir = root.join("events-0");
    let dir = dir.to_str().unwrap();
    let run = kseg(&["lookup", dir, "--timestamp", "2024-07-03T09:50:00"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no time zone"), "{}", run.stderr);
    assert!(
        run.stderr.contains("2024-07-03T09:50:00Z"),
        "{}",
        run.stderr
    );
    // With a zone it is the same instant as epoch milliseconds.
    let a = cli_json(&[
        "lookup",
        dir,
        "--timestamp",
        "2024-07-03T11:47:00+02:00",
        "--json",
    ]);
    let b = cli_json(&["lookup", dir, "--timestamp", "1720000020000", "--json"]);
    assert_eq!(a[0]["offset"], b[0]["offset"]);
    assert_eq!(a[0]["target"]["value"], 1720000020000i64);
    let run = kseg(&["lookup", "/nonexistent/orders-0", "--latest"]);
    assert_eq!(run.code, 2);
    let run = kseg(&["lookup", dir, "--latest", "--earliest"]);
    assert_eq!(run.code, 2);
    // A partition whose .log cannot be read: an error naming the file, exit 2.
    let broken = root.join("broken-0");
    fs::create_dir_all(&broken).unwrap();
    std::os::unix::fs::symlink("/nonexistent/kseg", broken.join("00000000000000000000.log"))
        .unwrap();
    let run = kseg(&["lookup", broken.to_str().unwrap(), "--offset", "0"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("00000000000000000000.log"),
        "{}",
        run.stderr
    );
}

#[test]
fn index_guided_lookups_read_a_few_pages() {
    let (_tmp, root) = fixture();
    let dir = root.join("events-0");
    let dir = dir.to_str().unwrap();
    let total: u64 = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .map(|p| fs::metadata(p).unwrap().len())
        .sum();
    let v = cli_json(&[
        "lookup",
        dir,
        "--offset",
        "150",
        "--json",
        "--explain",
        "--scan",
    ]);
    let ex = &v[0]["explain"];
    assert!(ex["logBytesRead"].as_u64().unwrap() <= 3 * 4096, "{ex}");
    assert!(ex["steps"].to_string().contains("offset index"), "{ex}");
    assert_eq!(v[0]["scanExplain"]["logBytesRead"].as_u64().unwrap(), total);
    assert_eq!(v[0]["scanDiffers"], false);
}

// ------------------------------------------------------------------ the real corpus

/// Partition dirs of the real corpus with a non-empty `.index`.
fn corpus_partitions() -> Vec<PathBuf> {
    fn visit(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut has_index = false;
        let mut subdirs = Vec::new();
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                subdirs.push(p);
            } else if p.extension().is_some_and(|x| x == "index")
                && fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false)
            {
                has_index = true;
            }
        }
        if has_index {
            out.push(dir.to_path_buf());
        }
        subdirs.sort();
        for d in subdirs {
            visit(&d, out);
        }
    }
    let mut out = Vec::new();
    visit(Path::new(CORPUS), &mut out);
    out
}

#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn every_answer_matches_the_model_on_real_brokers_data() {
    if !Path::new(CORPUS).is_dir() {
        common::corpus_missing("the lookup model check on real brokers' data");
        return;
    }
    let dirs = corpus_partitions();
    for named in [
        "William0423__kafka/kafka-logs/__consumer_offsets-28",
        "rjmfernandes__flink-on-prem/data/__cluster_metadata-0",
        "Danielowo2000__BigDataTechnologies-Version-2/kafka_2.13-3.5.0/kraft-combined-logs/__cluster_metadata-0",
    ] {
        assert!(
            dirs.iter().any(|d| d.ends_with(named)),
            "{named} not found in the corpus"
        );
    }
    assert!(
        dirs.len() >= 10,
        "{} partition dirs with indexes",
        dirs.len()
    );
    for dir in &dirs {
        let m = dump_model(dir);
        let records: usize = m
            .segs
            .iter()
            .flat_map(|s| s.batches.iter())
            .map(|b| b.records.len())
            .sum();
        // Thin out the targets of big partitions: about 100 record timestamps each.
        let every = (records / 100).max(1);
        let started = std::time::Instant::now();
        let n = check_partition(&m, every, 25);
        eprintln!("{}: {n} lookups in {:?}", dir.display(), started.elapsed());
    }
}

/// A sealed segment whose `.timeindex` is gone (its `.index` still there): Kafka creates the time
/// index empty, so the segment's largest timestamp is its `.log` mtime. With a late mtime, a time
/// past everything the segment holds still selects it — and the broker answers none, although
/// later segments hold such records.
#[test]
fn a_sealed_segment_without_its_time_index_is_judged_by_its_mtime() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    let p = parts
        .iter()
        .find(|p| {
            p.segs.len() >= 2 && {
                let max0 = p.segs[0]
                    .batches
                    .iter()
                    .map(|b| b.max_ts)
                    .max()
                    .unwrap_or(-1);
                max0 >= 0
                    && p.segs[1..]
                        .iter()
                        .flat_map(|s| s.batches.iter())
                        .any(|b| b.max_ts > max0)
            }
        })
        .expect("a partition with timestamps in several segments");
    let seg0 = &p.segs[0];
    let max0 = seg0.batches.iter().map(|b| b.max_ts).max().unwrap();
    let target = max0 + 1;
    let dir = p.dir.to_str().unwrap().to_string();
    let answer = |args: &[&str]| {
        let mut all = vec!["lookup", dir.as_str(), "--timestamp"];
        let t = target.to_string();
        all.push(&t);
        all.extend_from_slice(args);
        cli_json(&all)
    };
    // With its time index, a later segment answers.
    assert!(answer(&["--json"])[0]["offset"].is_number());
    fs::remove_file(seg0.log.with_extension("timeindex")).unwrap();
    fs::File::options()
        .write(true)
        .open(&seg0.log)
        .unwrap()
        .set_modified(UNIX_EPOCH + Duration::from_millis((target + 86_400_000) as u64))
        .unwrap();
    let v = answer(&["--json"]);
    assert!(v[0]["offset"].is_null(), "{v:?}");
    let run = kseg(&[
        "lookup",
        &dir,
        "--timestamp",
        &target.to_string(),
        "--explain",
    ]);
    assert!(run.stdout.contains("no .timeindex file"), "{}", run.stdout);
}

#[test]
fn json_log_end_offset_is_filled_for_every_query_kind() {
    let (_tmp, root) = fixture();
    let parts = fixture_model(&root);
    for name in ["events-0", "legacy-0"] {
        let m = part(&parts, name);
        let dir = m.dir.to_str().unwrap();
        let queries: [&[&str]; 6] = [
            &["--earliest"],
            &["--latest"],
            &["--max-timestamp"],
            &["--timestamp", "1"],
            &["--offset", "0"],
            &["--end-offset-for-epoch", "0"],
        ];
        for q in queries {
            let mut args = vec!["lookup", dir, "--json"];
            args.extend_from_slice(q);
            let v = cli_json(&args);
            assert_eq!(v.len(), 1, "{args:?}");
            assert_eq!(
                v[0]["logEndOffset"].as_i64(),
                Some(m.log_end()),
                "{args:?}: {}",
                v[0]
            );
        }
    }
}

/// A legacy wrapper whose compressed value is damaged: a walk that wants its records notes it
/// once, at its byte (it is decompressed once, by the scan loop), and goes on to the next
/// batch; a walk that does not want them (its last offset is below the target) says nothing.
#[test]
fn a_damaged_legacy_wrapper_is_noted_once_and_walked_past() {
    let (_tmp, root) = fixture();
    let part = root.join("legacy-0");
    // The gzip wrapper at byte 71 (offsets 13..15, 162 bytes): bytes inside its value.
    let log = part.join("00000000000000000012.log");
    let mut bytes = fs::read(&log).unwrap();
    bytes[131..136].copy_from_slice(&[0x99, 0x98, 0x97, 0x96, 0x95]);
    fs::write(&log, &bytes).unwrap();
    let part_s = part.to_str().unwrap();
    let steps_of = |v: &Value| -> Vec<String> {
        v["explain"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let v = cli_json(&["lookup", part_s, "--offset", "14", "--explain", "--json"]);
    assert_eq!(v[0]["offset"], 16, "{}", v[0]);
    let steps = steps_of(&v[0]);
    let damaged: Vec<&String> = steps
        .iter()
        .filter(|s| s.contains("cannot be decoded"))
        .collect();
    assert_eq!(damaged.len(), 1, "{steps:#?}");
    assert!(
        damaged[0].contains(
            "00000000000000000012.log: byte 83: records of the batch at byte 71 cannot be \
             decoded: wrapper value:"
        ),
        "{}",
        damaged[0]
    );
    assert!(
        steps
            .iter()
            .any(|s| s.starts_with("scanned 3 batches from byte 0")),
        "{steps:#?}"
    );
    let v = cli_json(&["lookup", part_s, "--offset", "16", "--explain", "--json"]);
    assert_eq!(v[0]["offset"], 16, "{}", v[0]);
    let steps = steps_of(&v[0]);
    assert!(
        !steps.iter().any(|s| s.contains("cannot be decoded")),
        "{steps:#?}"
    );
}

#[test]
fn print_data_log_shows_the_record_found_as_dump_log_does() {
    let dir = "testdata/example-datadir/legacy-0";
    // Offset 3 is inside a gzip'd magic-1 wrapper; offset 50 in an lz4 v2 batch.
    let run = kseg(&["lookup", dir, "--offset", "3", "--print-data-log"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("legacy:0:3"), "{}", run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("legacy-0: offset: 8 position: 291 ")),
        "the batch line: {}",
        run.stdout
    );
    let record: Vec<&&str> = lines.iter().filter(|l| l.contains("| offset: ")).collect();
    assert_eq!(record.len(), 1, "one record: {}", run.stdout);
    assert!(
        record[0].starts_with("legacy-0:3 | offset: 3 CreateTime: 1717000040780 ")
            && record[0].contains(" key: sensor-5 payload: "),
        "{}",
        record[0]
    );

    let run = kseg(&[
        "lookup",
        dir,
        "--max-timestamp",
        "--print-data-log",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = json_lines(&run.stdout);
    assert_eq!(lines[0]["type"], "lookup");
    let offset = lines[0]["offset"].as_i64().unwrap();
    let records = of_type(&lines, "record");
    assert_eq!(records.len(), 1, "{}", run.stdout);
    assert_eq!(records[0]["offset"], offset);
    assert_eq!(records[0]["batchPosition"], lines[0]["position"]);
    assert_eq!(of_type(&lines, "batch").len(), 1);

    // No record to show (the log end): the answer alone.
    let run = kseg(&["lookup", dir, "--latest", "--print-data-log"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("| offset: "), "{}", run.stdout);
}
