//! `kseg rescue --state`: the resume file, and the acknowledgements of records sent out of order
//! across partitions folded into it ([`Tracker`]); the records a target holds past a resume
//! point, matched against those the source would send there ([`Tail`]).

use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::rescue_map::RescueMap;
use kseg_storage::source::read_small;

/// `--state FILE`: per source partition the last source offset the target acknowledged with
/// every record before it, and per target partition where the records not yet covered by that
/// begin (a rerun reads the target from there to find what landed after the last save).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ResumeState {
    /// What was asked (sources, targets, ranges); a rerun must ask the same.
    pub plan: String,
    /// Source "topic-partition" -> last source offset acknowledged (all before it too).
    pub acknowledged: BTreeMap<String, i64>,
    /// Target "topic-partition" -> progress there.
    pub targets: BTreeMap<String, TargetProgress>,
    /// Source "topic-partition" -> where its acknowledged records are in the target: the
    /// source→target offset map (see [`crate::rescue_map`]). Every source with an
    /// acknowledged offset has an entry (empty when nothing of it was sent).
    #[serde(default)]
    pub offset_map: BTreeMap<String, RescueMap>,
    /// The target cluster's id when the file was written: a rerun against another cluster is
    /// said, not taken for a resume (absent in files of kseg before 0.1's issue 45).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_id: Option<String>,
    /// Target topic -> its topic id when the file was written: a topic deleted and created
    /// again under the same name has another.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub topic_ids: BTreeMap<String, String>,
    /// Source "topic-partition" -> the record the target refused, where that source stopped: a
    /// rerun resumes from it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refused: BTreeMap<String, RefusedRecord>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetProgress {
    /// The partition's end offset before the first record of the rescue was sent.
    pub start: i64,
    /// Every record at or after this offset came from source records past the acknowledged
    /// ones (or from someone else).
    pub resume_from: i64,
    /// One past the last offset the rescue wrote there (the start when none): the target's log
    /// end can only be at or past it, unless what the rescue wrote is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<i64>,
}

impl TargetProgress {
    /// Where a target partition's log end was before a rescue began.
    pub fn fresh(log_end: i64) -> TargetProgress {
        TargetProgress {
            start: log_end,
            resume_from: log_end,
            end: Some(log_end),
        }
    }
}

/// A record the target refused.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusedRecord {
    /// Its source offset.
    pub offset: i64,
    /// The target's (or the producer's) words.
    pub error: String,
}

/// What the target is now, as the state's check needs it.
#[derive(Debug, Clone, Default)]
pub struct TargetNow {
    pub cluster_id: Option<String>,
    /// Target topic -> its topic id (none: it does not exist, or the cluster has no ids).
    pub topic_ids: BTreeMap<String, Option<String>>,
    /// Target topic -> whether it exists.
    pub exists: BTreeMap<String, bool>,
    /// Target "topic-partition" -> its log end offset (high watermark).
    pub log_ends: BTreeMap<String, i64>,
}

/// Why a `--state` file does not describe the target it is used with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateMismatch {
    /// `--bootstrap` reaches another cluster.
    Cluster { recorded: String, now: String },
    /// The target topic was deleted (and maybe created again under its name).
    TopicGone { topic: String },
    /// The target topic has another id: deleted and created again.
    TopicId {
        topic: String,
        recorded: String,
        now: String,
    },
    /// A target partition ends before what the rescue wrote there.
    LogEnd {
        partition: String,
        written_to: i64,
        now: i64,
    },
}

/// `ResumeState::check`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateCheck {
    pub mismatches: Vec<StateMismatch>,
    /// The file holds no cluster id or topic ids (an older kseg wrote it): only log ends could
    /// be compared.
    pub unidentified: bool,
}

/// The largest `--state` file read (the offset map of a rescue with `--partitioner murmur2` may
/// hold a range per record).
pub const STATE_FILE_LIMIT: u64 = 1 << 30;

impl ResumeState {
    /// The state file, if there is one: a regular file of at most [`STATE_FILE_LIMIT`] bytes
    /// (a FIFO or a device given by mistake is refused, not read forever).
    pub fn load(path: &Path) -> io::Result<Option<ResumeState>> {
        match read_small(path, STATE_FILE_LIMIT) {
            Ok(bytes) => {
                let bad = |e: String| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{}: not a kseg rescue state file: {e}", path.display()),
                    )
                };
                let state: ResumeState =
                    serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
                if let Some((name, _)) = state.offset_map.iter().find(|(_, m)| !m.is_ordered()) {
                    return Err(bad(format!(
                        "the offset map of {name} is not in source-offset order"
                    )));
                }
                Ok(Some(state))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        }
    }

    /// Whether this state describes `now`: the same cluster, each target topic still the one
    /// written to (its id), and no target partition ending before what was written there.
    pub fn check(&self, now: &TargetNow) -> StateCheck {
        let mut out = StateCheck {
            unidentified: self.cluster_id.is_none() && self.topic_ids.is_empty(),
            ..Default::default()
        };
        if let (Some(recorded), Some(current)) = (&self.cluster_id, &now.cluster_id) {
            if recorded != current {
                out.mismatches.push(StateMismatch::Cluster {
                    recorded: recorded.clone(),
                    now: current.clone(),
                });
                // Every other difference follows from that one.
                return out;
            }
        }
        for (topic, exists) in &now.exists {
            if !exists && self.writes_to(topic) {
                out.mismatches.push(StateMismatch::TopicGone {
                    topic: topic.clone(),
                });
            }
        }
        for (topic, recorded) in &self.topic_ids {
            if let Some(Some(current)) = now.topic_ids.get(topic) {
                if current != recorded {
                    out.mismatches.push(StateMismatch::TopicId {
                        topic: topic.clone(),
                        recorded: recorded.clone(),
                        now: current.clone(),
                    });
                }
            }
        }
        let gone = |name: &str| {
            out.mismatches.iter().any(|m| match m {
                StateMismatch::TopicGone { topic } | StateMismatch::TopicId { topic, .. } => {
                    name.rsplit_once('-').is_some_and(|(t, _)| t == topic)
                }
                _ => false,
            })
        };
        let mut ends = Vec::new();
        for (name, progress) in &self.targets {
            let written_to = progress.end.unwrap_or(progress.resume_from);
            if let Some(&end) = now.log_ends.get(name) {
                if end < written_to && !gone(name) {
                    ends.push(StateMismatch::LogEnd {
                        partition: name.clone(),
                        written_to,
                        now: end,
                    });
                }
            }
        }
        out.mismatches.extend(ends);
        out
    }

    /// Whether the state says records were written to target topic `topic`.
    fn writes_to(&self, topic: &str) -> bool {
        self.topic_ids.contains_key(topic)
            || self
                .targets
                .keys()
                .any(|n| n.rsplit_once('-').is_some_and(|(t, _)| t == topic))
    }

    /// Writes the file whole or not at all (a temporary file renamed over it, synced).
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let tmp = path.with_extension("kseg-tmp");
        {
            let mut f = fs::File::create(&tmp)?;
            let mut w = io::BufWriter::new(&mut f);
            serde_json::to_writer(&mut w, self)?;
            w.write_all(b"\n")?;
            w.flush()?;
            drop(w);
            f.sync_all()?;
        }
        fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

// ---- acknowledgements --------------------------------------------------------------------------

/// One record sent (or found already delivered) and not yet covered by its source's
/// acknowledged offset.
#[derive(Debug, Clone, Copy)]
struct Pending {
    offset: i64,
    target: u32,
    /// Where the target put it, once acknowledged.
    at: Option<i64>,
    /// The target refused it (the source stops there).
    refused: bool,
}

#[derive(Debug, Default)]
struct SourceTrack {
    acknowledged: Option<i64>,
    /// Where the acknowledged records are in the target.
    map: RescueMap,
    /// Sequence number of `pending[0]`.
    front: u64,
    next: u64,
    pending: VecDeque<Pending>,
    /// The record the target refused, and its words.
    refused: Option<RefusedRecord>,
}

/// Acknowledgements of records sent out of order across partitions, folded into the resume
/// state: per source, the offset up to which everything is acknowledged; per target, the first
/// offset of a record not covered by that.
#[derive(Debug, Default)]
pub struct Tracker {
    sources: Vec<SourceTrack>,
    source_names: Vec<String>,
    targets: Vec<(String, TargetProgress)>,
    /// The partition number of each target.
    target_partitions: Vec<i32>,
    /// One past the highest offset acknowledged per target.
    target_end: Vec<Option<i64>>,
    /// The target cluster's id and its topics' ids, kept in the state.
    cluster_id: Option<String>,
    topic_ids: BTreeMap<String, String>,
}

/// A record's ticket through the producer: source index and sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    pub source: u32,
    pub seq: u64,
}

impl Ticket {
    pub fn pack(self) -> usize {
        ((self.source as usize) << 40) | (self.seq as usize & ((1 << 40) - 1))
    }
    pub fn unpack(v: usize) -> Ticket {
        Ticket {
            source: (v >> 40) as u32,
            seq: (v & ((1 << 40) - 1)) as u64,
        }
    }
}

impl Tracker {
    /// A source, with what a previous run acknowledged of it and where that is in the target.
    pub fn add_source(&mut self, name: String, acknowledged: Option<i64>, map: RescueMap) -> u32 {
        self.sources.push(SourceTrack {
            acknowledged,
            map,
            ..Default::default()
        });
        self.source_names.push(name);
        (self.sources.len() - 1) as u32
    }

    /// The target the state describes: its cluster id and its topics' ids.
    pub fn set_identity(
        &mut self,
        cluster_id: Option<String>,
        topic_ids: BTreeMap<String, String>,
    ) {
        self.cluster_id = cluster_id;
        self.topic_ids = topic_ids;
    }

    pub fn add_target(&mut self, name: String, partition: i32, progress: TargetProgress) -> u32 {
        self.targets.push((name, progress));
        self.target_partitions.push(partition);
        self.target_end.push(None);
        (self.targets.len() - 1) as u32
    }

    /// A record about to be sent to target `target`.
    pub fn sent(&mut self, source: u32, offset: i64, target: u32) -> Ticket {
        let s = &mut self.sources[source as usize];
        s.pending.push_back(Pending {
            offset,
            target,
            at: None,
            refused: false,
        });
        s.next += 1;
        Ticket {
            source,
            seq: s.next - 1,
        }
    }

    /// A record found already in the target (at offset `at`) by a resume.
    pub fn delivered_before(&mut self, source: u32, offset: i64, target: u32, at: i64) {
        let t = self.sent(source, offset, target);
        self.acknowledged(t, at);
    }

    /// The target acknowledged a record at offset `at`.
    pub fn acknowledged(&mut self, ticket: Ticket, at: i64) {
        let s = &mut self.sources[ticket.source as usize];
        let Some(i) = ticket.seq.checked_sub(s.front) else {
            return;
        };
        let Some(p) = s.pending.get_mut(i as usize) else {
            return;
        };
        p.at = Some(at);
        let end = &mut self.target_end[p.target as usize];
        *end = Some(end.map_or(at + 1, |e| e.max(at + 1)));
        while let Some(Pending {
            offset,
            target,
            at: Some(at),
            ..
        }) = s.pending.front().copied()
        {
            s.pending.pop_front();
            s.front += 1;
            s.acknowledged = Some(offset);
            s.map
                .push(offset, self.target_partitions[target as usize], at);
        }
    }

    /// The target refused a record (`error`, its words): its source stops there. Returns the
    /// record's source offset.
    pub fn refused(&mut self, ticket: Ticket, error: String) -> Option<i64> {
        let s = &mut self.sources[ticket.source as usize];
        let i = ticket.seq.checked_sub(s.front)?;
        let p = s.pending.get_mut(i as usize)?;
        p.refused = true;
        let offset = p.offset;
        // The first refused record is where the source stopped.
        if s.refused.as_ref().is_none_or(|r| r.offset > offset) {
            s.refused = Some(RefusedRecord { offset, error });
        }
        Some(offset)
    }

    /// The record of source `source` the target refused, if it did.
    pub fn refusal(&self, source: u32) -> Option<&RefusedRecord> {
        self.sources[source as usize].refused.as_ref()
    }

    /// Records of source `source` after the one refused that the target took anyway (they
    /// were on their way): (target index, target offset), in source order.
    pub fn landed_after_refusal(&self, source: u32) -> Vec<(u32, i64)> {
        let s = &self.sources[source as usize];
        let Some(r) = &s.refused else {
            return Vec::new();
        };
        s.pending
            .iter()
            .filter(|p| p.offset > r.offset)
            .filter_map(|p| Some((p.target, p.at?)))
            .collect()
    }

    /// The offset map of source `source` so far.
    pub fn map(&self, source: u32) -> &RescueMap {
        &self.sources[source as usize].map
    }

    /// The last offset of source `source` acknowledged with every one before it.
    pub fn acknowledged_through(&self, source: u32) -> Option<i64> {
        self.sources[source as usize].acknowledged
    }

    /// Records sent and neither acknowledged nor refused yet.
    pub fn in_flight(&self) -> usize {
        self.sources
            .iter()
            .map(|s| {
                s.pending
                    .iter()
                    .filter(|p| p.at.is_none() && !p.refused)
                    .count()
            })
            .sum()
    }

    /// The resume state as of now.
    pub fn state(&self, plan: &str) -> ResumeState {
        let mut resume_from: Vec<Option<i64>> = vec![None; self.targets.len()];
        for s in &self.sources {
            for p in &s.pending {
                if let Some(at) = p.at {
                    let r = &mut resume_from[p.target as usize];
                    *r = Some(r.map_or(at, |v| v.min(at)));
                }
            }
        }
        let mut state = ResumeState {
            plan: plan.to_string(),
            cluster_id: self.cluster_id.clone(),
            topic_ids: self.topic_ids.clone(),
            ..Default::default()
        };
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(r) = &s.refused {
                state
                    .refused
                    .insert(self.source_names[i].clone(), r.clone());
            }
            if let Some(a) = s.acknowledged {
                state.acknowledged.insert(self.source_names[i].clone(), a);
                state
                    .offset_map
                    .insert(self.source_names[i].clone(), s.map.clone());
            }
        }
        for (i, (name, progress)) in self.targets.iter().enumerate() {
            let resume = resume_from[i]
                .or(self.target_end[i])
                .unwrap_or(progress.resume_from);
            // A file of an older kseg has no end: where its uncovered records began is past
            // everything it wrote and saw acknowledged.
            let before = progress.end.unwrap_or(progress.resume_from);
            state.targets.insert(
                name.clone(),
                TargetProgress {
                    start: progress.start,
                    resume_from: resume,
                    end: Some(self.target_end[i].map_or(before, |e| e.max(before))),
                },
            );
        }
        state
    }
}

/// The records a target partition holds past a resume point, matched in order against the
/// records the source would send there: a record that matches was delivered before the stop.
///
/// Only a prefix of the tail is matched: once a record must be sent to the partition
/// ([`Tail::close`]), a later record of the tail that matches is a copy that landed out of
/// order (after a record the target refused, or another producer's), and taking it for
/// delivered would leave the record sent now behind it — the stale value as the key's latest.
#[derive(Debug, Default)]
pub struct Tail {
    /// (offset, content digest, CreateTime timestamp if the target kept one).
    pub records: VecDeque<(i64, u64, Option<i64>)>,
    closed: bool,
}

impl Tail {
    /// Whether the next record of the tail is this one (then it is taken off): returns its
    /// target offset.
    pub fn take_if(&mut self, digest: u64, timestamp: Option<i64>) -> Option<i64> {
        if self.closed {
            return None;
        }
        let &(at, d, ts) = self.records.front()?;
        let ts_matches = match (ts, timestamp) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        if d == digest && ts_matches {
            self.records.pop_front();
            Some(at)
        } else {
            None
        }
    }

    /// A record is sent to the partition: nothing after it in the tail is matched any more.
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// Whether records are still matched.
    pub fn is_open(&self) -> bool {
        !self.closed && !self.records.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_acknowledges_in_source_order_and_resumes_before_gaps() {
        let mut t = Tracker::default();
        let s = t.add_source("a-0".into(), None, RescueMap::default());
        let t0 = t.add_target("b-0".into(), 0, TargetProgress::fresh(100));
        let t1 = t.add_target("b-1".into(), 1, TargetProgress::fresh(7));
        let k0 = t.sent(s, 10, t0);
        let k1 = t.sent(s, 11, t1);
        let k2 = t.sent(s, 12, t0);
        assert_eq!(Ticket::unpack(k2.pack()), k2);
        // 12 acknowledged before 11: the source is acknowledged to 10 only.
        t.acknowledged(k0, 100);
        t.acknowledged(k2, 101);
        let st = t.state("p");
        assert_eq!(st.acknowledged["a-0"], 10);
        // 12 sits at b-0 101 and is not covered: a resume reads b-0 from 101.
        assert_eq!(st.targets["b-0"].resume_from, 101);
        assert_eq!(st.targets["b-1"].resume_from, 7);
        assert_eq!(t.in_flight(), 1);
        t.acknowledged(k1, 7);
        let st = t.state("p");
        assert_eq!(st.acknowledged["a-0"], 12);
        assert_eq!(st.targets["b-0"].resume_from, 102);
        assert_eq!(st.targets["b-1"].resume_from, 8);
        assert_eq!(t.in_flight(), 0);
        // The map: 10 at b-0 100, 11 at b-1 7, 12 at b-0 101; kept in the state.
        let ranges: Vec<[i64; 4]> = st.offset_map["a-0"]
            .ranges()
            .iter()
            .map(|r| (*r).into())
            .collect();
        assert_eq!(ranges, [[10, 10, 0, 100], [11, 11, 1, 7], [12, 12, 0, 101]]);
        assert_eq!(t.map(s).get(11), Some((1, 7)));
    }

    #[test]
    fn tails_match_in_order_and_skip_timestamps_the_target_replaced() {
        let mut tail = Tail::default();
        tail.records.push_back((5, 1, Some(10)));
        tail.records.push_back((6, 2, None));
        assert_eq!(tail.take_if(2, Some(11)), None);
        assert_eq!(tail.take_if(1, Some(11)), None);
        assert_eq!(tail.take_if(1, Some(10)), Some(5));
        assert_eq!(tail.take_if(2, Some(99)), Some(6));
        assert_eq!(tail.take_if(2, None), None);
    }

    #[test]
    fn a_closed_tail_matches_nothing_more() {
        let mut tail = Tail::default();
        tail.records.push_back((5, 1, None));
        tail.records.push_back((6, 2, None));
        // Source record with digest 9 is not the front: it is sent, and the tail closes; the
        // copy of the next source record (digest 1) is not taken for delivered.
        assert_eq!(tail.take_if(9, None), None);
        tail.close();
        assert!(!tail.is_open());
        assert_eq!(tail.take_if(1, None), None);
        assert_eq!(tail.records.len(), 2);
    }

    #[test]
    fn a_refused_record_stops_its_source_and_keeps_its_place() {
        let mut t = Tracker::default();
        let s = t.add_source("a-0".into(), None, RescueMap::default());
        let t0 = t.add_target("b-0".into(), 0, TargetProgress::fresh(0));
        let k0 = t.sent(s, 0, t0);
        let k1 = t.sent(s, 1, t0);
        let k2 = t.sent(s, 2, t0);
        t.acknowledged(k0, 0);
        assert_eq!(
            t.refused(k1, "Broker: Message size too large".into()),
            Some(1)
        );
        // Record 2 was on its way and landed at target offset 1.
        t.acknowledged(k2, 1);
        assert_eq!(t.in_flight(), 0);
        assert_eq!(t.acknowledged_through(s), Some(0));
        assert_eq!(t.landed_after_refusal(s), [(t0, 1)]);
        let st = t.state("p");
        assert_eq!(st.acknowledged["a-0"], 0);
        assert_eq!(st.refused["a-0"].offset, 1);
        // A rerun reads the target from the copy of record 2.
        assert_eq!(st.targets["b-0"].resume_from, 1);
        assert_eq!(st.targets["b-0"].end, Some(2));
    }

    #[test]
    fn a_state_is_checked_against_the_target_it_describes() {
        let mut t = Tracker::default();
        let s = t.add_source("a-0".into(), None, RescueMap::default());
        let t0 = t.add_target("b-0".into(), 0, TargetProgress::fresh(10));
        t.set_identity(
            Some("cluster-1".into()),
            BTreeMap::from([("b".to_string(), "id-1".to_string())]),
        );
        let k = t.sent(s, 0, t0);
        t.acknowledged(k, 10);
        let st = t.state("p");
        let now = |cluster: &str, id: Option<&str>, end: i64| TargetNow {
            cluster_id: Some(cluster.into()),
            topic_ids: BTreeMap::from([("b".to_string(), id.map(String::from))]),
            exists: BTreeMap::from([("b".to_string(), id.is_some())]),
            log_ends: BTreeMap::from([("b-0".to_string(), end)]),
        };
        assert_eq!(
            st.check(&now("cluster-1", Some("id-1"), 11)),
            StateCheck::default()
        );
        assert_eq!(
            st.check(&now("cluster-2", Some("id-1"), 11)).mismatches,
            [StateMismatch::Cluster {
                recorded: "cluster-1".into(),
                now: "cluster-2".into()
            }]
        );
        // Deleted and created again: another id, and (said once) an empty partition.
        assert_eq!(
            st.check(&now("cluster-1", Some("id-2"), 0)).mismatches,
            [StateMismatch::TopicId {
                topic: "b".into(),
                recorded: "id-1".into(),
                now: "id-2".into()
            }]
        );
        assert_eq!(
            st.check(&now("cluster-1", None, 0)).mismatches,
            [StateMismatch::TopicGone { topic: "b".into() }]
        );
        // Same id, but the partition ends before what was written (an unclean election).
        assert_eq!(
            st.check(&now("cluster-1", Some("id-1"), 10)).mismatches,
            [StateMismatch::LogEnd {
                partition: "b-0".into(),
                written_to: 11,
                now: 10
            }]
        );
        // A file of an older kseg: no ids, only the log end compared.
        let mut old = st.clone();
        old.cluster_id = None;
        old.topic_ids.clear();
        let c = old.check(&now("cluster-2", Some("id-2"), 11));
        assert!(c.unidentified && c.mismatches.is_empty(), "{c:?}");
    }
}
