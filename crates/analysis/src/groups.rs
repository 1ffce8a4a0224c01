//! Rebuilding consumer-group state from `__consumer_offsets` on disk, the way the group
//! coordinator does when it loads a partition: replay in log order, the last value per key wins,
//! tombstones delete, transactional offset commits count only once their producer's COMMIT marker
//! follows (never when aborted).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::fault::{Undecodable, UndecodableWhy};
use crate::group_records::key_identity;
pub use crate::group_records::{
    consumer_group_view, strings, ConsumerGroupView, ConsumerMemberView, GroupRecord,
};
use crate::partition_for::coordinator_key_id;
use crate::rebalances::{Generation, GenerationSink};
use crate::summary::{summarize_partition, LogDirFacts};
use kseg_format::control::{decode_control, ControlType};
use kseg_format::coordinator::{
    decode_offsets_key, decode_offsets_value, is_known_group_record_type, parse_group_metadata,
    parse_offset_commit, GroupMetadata, OffsetCommit,
};
use kseg_format::index::OffsetIndex;
use kseg_format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::source::{open_log, read_small, vanished};

/// One committed offset as the coordinator holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed {
    pub offset: i64,
    pub leader_epoch: Option<i32>,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    /// Where the commit record sits: coordinator partition and offset.
    pub coordinator_partition: i32,
    pub record_offset: i64,
    pub transactional: bool,
}

/// One offset-commit record in log order (`--history`).
#[derive(Debug, Clone, PartialEq)]
pub struct CommitEvent {
    pub group: String,
    pub topic: String,
    pub partition: i32,
    /// `None` for a tombstone (offset deleted).
    pub offset: Option<i64>,
    pub leader_epoch: Option<i32>,
    pub metadata: Option<String>,
    pub commit_timestamp: Option<i64>,
    /// OffsetCommitValue v1's expiry (later versions leave it to the broker's retention).
    pub expire_timestamp: Option<i64>,
    pub record_timestamp: i64,
    pub coordinator_partition: i32,
    pub record_offset: i64,
    /// Producer id of a transactional commit, and what became of it.
    pub transactional: Option<(i64, &'static str)>,
}

/// A committed offset's partition: the topic (one shared copy of each name) and the partition.
pub type OffsetKey = (Arc<str>, i32);

/// Offsets a group keeps in a sorted vector before it moves them to a B-tree.
const SMALL_GROUP: usize = 16;

/// A group's committed offsets by (topic, partition), in that order. Most groups commit a few
/// partitions: they hold a sorted vector of exactly that many entries (a B-tree node would take
/// about a kilobyte per group, which is what made a million groups cost gigabytes); a group with
/// more than [`SMALL_GROUP`] moves to a B-tree, so inserting stays logarithmic.
#[derive(Debug, Clone, Default)]
pub struct OffsetMap {
    small: Vec<(OffsetKey, Committed)>,
    // Boxed: 8 bytes in every group instead of 24, for the few groups that need it.
    #[allow(clippy::box_collection)]
    big: Option<Box<BTreeMap<OffsetKey, Committed>>>,
}

impl OffsetMap {
    fn position(&self, topic: &str, partition: i32) -> Result<usize, usize> {
        self.small
            .binary_search_by(|((t, p), _)| (t.as_ref(), *p).cmp(&(topic, partition)))
    }

    pub fn get(&self, key: &OffsetKey) -> Option<&Committed> {
        match &self.big {
            Some(b) => b.get(key),
            None => self.position(&key.0, key.1).ok().map(|i| &self.small[i].1),
        }
    }

    pub fn insert(&mut self, key: OffsetKey, value: Committed) {
        if let Some(b) = &mut self.big {
            b.insert(key, value);
            return;
        }
        match self.position(&key.0, key.1) {
            Ok(i) => self.small[i].1 = value,
            Err(i) if self.small.len() < SMALL_GROUP => {
                if self.small.capacity() == 0 {
                    self.small.reserve_exact(1);
                }
                self.small.insert(i, (key, value));
            }
            Err(_) => {
                let mut b: BTreeMap<OffsetKey, Committed> =
                    std::mem::take(&mut self.small).into_iter().collect();
                b.insert(key, value);
                self.big = Some(Box::new(b));
            }
        }
    }

    pub fn remove(&mut self, key: &OffsetKey) {
        match &mut self.big {
            Some(b) => {
                b.remove(key);
            }
            None => {
                if let Ok(i) = self.position(&key.0, key.1) {
                    self.small.remove(i);
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.big.as_ref().map_or(self.small.len(), |b| b.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// In (topic, partition) order.
    pub fn iter(&self) -> impl Iterator<Item = (&OffsetKey, &Committed)> {
        self.small
            .iter()
            .map(|(k, v)| (k, v))
            .chain(self.big.iter().flat_map(|b| b.iter()))
    }
}

#[derive(Debug, Clone, Default)]
pub struct GroupState {
    pub coordinator_partition: Option<i32>,
    pub offsets: OffsetMap,
    /// The classic group's last GroupMetadataValue (None after a tombstone).
    pub classic: Option<Box<GroupMetadata>>,
    /// Whether a group-metadata tombstone was the last word on the classic group.
    pub classic_deleted: bool,
    /// KIP-848/share/streams group records: the latest value per (record type, key), keyed
    /// by the key's fields as JSON text (which orders them as `dump-log` prints them).
    pub records: BTreeMap<(i16, String), GroupRecord>,
}

#[derive(Debug, Default)]
pub struct Replay {
    pub groups: BTreeMap<String, GroupState>,
    pub history: Vec<CommitEvent>,
    pub commits: u64,
    /// Records that could not be decoded, and segments that could not be read.
    pub undecodable: Vec<Undecodable>,
    /// Segments gone between discovery and reading (a live broker's retention): skipped, not
    /// a problem with the data.
    pub vanished: Vec<std::path::PathBuf>,
    /// Records of a type this kseg does not know, skipped as Kafka's loader skips them:
    /// (coordinator partition, offset, record type).
    pub unknown_types: Vec<(i32, i64, i16)>,
    /// (group, topic, partition) of transactional commits whose transaction is still open at the
    /// end of the log: the coordinator does not expire those offsets.
    pub pending_transactional: std::collections::BTreeSet<(String, String, i32)>,
    /// Groups whose records all end in tombstones (deleted, or every offset deleted), with
    /// their coordinator partition: the broker no longer knows them.
    pub deleted: BTreeMap<String, Option<i32>>,
    /// Groups an offset tombstone named that had no state (yet): with the groups above, every
    /// group a partition's records touched (a parallel replay checks that no group spans two
    /// coordinator partitions).
    tombstoned_unknown: BTreeSet<String>,
    /// One shared copy of each topic name.
    topics: HashSet<Arc<str>>,
}

impl Replay {
    fn group_mut(&mut self, name: &str) -> &mut GroupState {
        // Two searches either way, and the name copied only for a new group.
        if self.groups.contains_key(name) {
            return self.groups.get_mut(name).expect("just found");
        }
        self.groups.entry(name.to_string()).or_default()
    }

    fn topic(&mut self, name: &str) -> Arc<str> {
        if let Some(t) = self.topics.get(name) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(name);
        self.topics.insert(t.clone());
        t
    }
}

struct Pending {
    key: Vec<u8>,
    value: Option<Vec<u8>>,
    record_offset: i64,
    record_timestamp: i64,
    history_index: Option<usize>,
}

struct ReplaySink<'a> {
    replay: &'a mut Replay,
    partition: i32,
    filter: &'a [String],
    history: bool,
    pending: HashMap<i64, Vec<Pending>>,
    /// The segment being read (for messages).
    file: Option<PathBuf>,
}

/// Why a coordinator record key gives no record type and id: too short, or an id that is not
/// UTF-8 (then where, and the id).
fn bad_key(key: &[u8], file: Option<&Path>, batch_position: u64) -> UndecodableWhy {
    let at = file.map(|f| (f.to_path_buf(), batch_position));
    let len = key
        .get(2..4)
        .map(|b| i16::from_be_bytes([b[0], b[1]]))
        .unwrap_or(-1);
    if let Some(id) = usize::try_from(len).ok().and_then(|n| key.get(4..4 + n)) {
        if let Err(e) = std::str::from_utf8(id) {
            return UndecodableWhy::IdNotUtf8 {
                byte: 4 + e.valid_up_to(),
                id: id.to_vec(),
                at,
            };
        }
    }
    UndecodableWhy::KeyTooShort { len: key.len(), at }
}

impl ReplaySink<'_> {
    fn undecodable(&mut self, offset: i64, why: UndecodableWhy) {
        self.replay.undecodable.push(Undecodable {
            partition: self.partition,
            offset,
            why,
        });
    }
    fn wanted(&self, group: &str) -> bool {
        self.filter.is_empty() || self.filter.iter().any(|g| g == group)
    }

    fn apply_commit(
        &mut self,
        key: &[u8],
        value: Option<&[u8]>,
        record_offset: i64,
        transactional: bool,
    ) {
        match value {
            Some(v) => match parse_offset_commit(key, v) {
                Ok(OffsetCommit { key: k, value: c }) => {
                    let topic = self.replay.topic(&k.topic);
                    let state = self.replay.group_mut(&k.group);
                    state.coordinator_partition = Some(self.partition);
                    let key = (topic, k.partition);
                    // A transactional commit made visible by its COMMIT marker does not replace
                    // a commit written later in the log (Kafka keeps the higher record offset).
                    let newer_exists = state
                        .offsets
                        .get(&key)
                        .is_some_and(|e| e.record_offset > record_offset);
                    if transactional && newer_exists {
                        return;
                    }
                    state.offsets.insert(
                        key,
                        Committed {
                            offset: c.offset,
                            leader_epoch: c.leader_epoch,
                            metadata: c.metadata,
                            commit_timestamp: c.commit_timestamp,
                            expire_timestamp: c.expire_timestamp,
                            coordinator_partition: self.partition,
                            record_offset,
                            transactional,
                        },
                    );
                }
                Err(e) => self.undecodable(record_offset, UndecodableWhy::Decode(e)),
            },
            None => {
                if let Ok(k) = kseg_format::coordinator::parse_offset_commit_key(key) {
                    let topic = self.replay.topics.get(k.topic.as_str()).cloned();
                    match self.replay.groups.get_mut(&k.group) {
                        Some(state) => {
                            if let Some(topic) = topic {
                                state.offsets.remove(&(topic, k.partition));
                            }
                        }
                        None => {
                            self.replay.tombstoned_unknown.insert(k.group);
                        }
                    }
                }
            }
        }
    }

    fn history_event(
        &mut self,
        key: &[u8],
        value: Option<&[u8]>,
        r: &LogRecord<'_>,
        txn: Option<i64>,
    ) -> Option<usize> {
        if !self.history {
            return None;
        }
        let (group, topic, partition, commit) = match value {
            Some(v) => {
                let OffsetCommit { key: k, value: c } = parse_offset_commit(key, v).ok()?;
                (k.group, k.topic, k.partition, Some(c))
            }
            None => {
                let k = kseg_format::coordinator::parse_offset_commit_key(key).ok()?;
                (k.group, k.topic, k.partition, None)
            }
        };
        let (offset, leader_epoch, commit_timestamp, expire_timestamp) = match &commit {
            Some(c) => (
                Some(c.offset),
                c.leader_epoch,
                Some(c.commit_timestamp),
                c.expire_timestamp,
            ),
            None => (None, None, None, None),
        };
        self.replay.history.push(CommitEvent {
            group,
            topic,
            partition,
            offset,
            leader_epoch,
            metadata: commit.map(|c| c.metadata),
            commit_timestamp,
            expire_timestamp,
            record_timestamp: r.timestamp,
            coordinator_partition: self.partition,
            record_offset: r.offset,
            transactional: txn.map(|p| (p, "pending")),
        });
        Some(self.replay.history.len() - 1)
    }
}

impl LogSink for ReplaySink<'_> {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, _b: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }

    fn record(&mut self, p: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if b.is_control {
            if let Ok(c) = decode_control(r.key, r.value) {
                let outcome = match c.kind {
                    ControlType::Commit => "committed",
                    ControlType::Abort => "aborted",
                    _ => return Ok(Flow::Continue),
                };
                for p in self.pending.remove(&b.producer_id).unwrap_or_default() {
                    if let Some(i) = p.history_index {
                        if let Some(e) = self.replay.history.get_mut(i) {
                            e.transactional = Some((b.producer_id, outcome));
                        }
                    }
                    if outcome == "committed" {
                        self.apply_commit(&p.key, p.value.as_deref(), p.record_offset, true);
                    }
                    let _ = p.record_timestamp;
                }
            }
            return Ok(Flow::Continue);
        }
        let Some(key) = r.key else {
            return Ok(Flow::Continue);
        };
        if let Some(t) = key.get(..2).map(|b| i16::from_be_bytes([b[0], b[1]])) {
            if !is_known_group_record_type(t) {
                // CoordinatorLoaderImpl: "Unknown record type ... Ignoring it." The rest of its
                // key need not hold a group id, so no group is made up from it.
                self.replay
                    .unknown_types
                    .push((self.partition, r.offset, t));
                return Ok(Flow::Continue);
            }
        }
        let Some((record_type, group)) = coordinator_key_id(key) else {
            let why = bad_key(key, self.file.as_deref(), p);
            self.undecodable(r.offset, why);
            return Ok(Flow::Continue);
        };
        if !self.wanted(group) {
            return Ok(Flow::Continue);
        }
        match record_type {
            0 | 1 => {
                self.replay.commits += 1;
                if b.is_transactional {
                    let idx = self.history_event(key, r.value, r, Some(b.producer_id));
                    self.pending
                        .entry(b.producer_id)
                        .or_default()
                        .push(Pending {
                            key: key.to_vec(),
                            value: r.value.map(<[u8]>::to_vec),
                            record_offset: r.offset,
                            record_timestamp: r.timestamp,
                            history_index: idx,
                        });
                } else {
                    self.history_event(key, r.value, r, None);
                    if r.value.is_none() {
                        // An offset tombstone also drops pending transactional offsets of the key.
                        for list in self.pending.values_mut() {
                            list.retain(|p| p.key != key);
                        }
                    }
                    self.apply_commit(key, r.value, r.offset, false);
                }
            }
            2 => {
                let state = self.replay.group_mut(group);
                state.coordinator_partition = Some(self.partition);
                match r.value {
                    None => {
                        state.classic = None;
                        state.classic_deleted = true;
                    }
                    Some(v) => match parse_group_metadata(v) {
                        Ok(m) => {
                            state.classic = Some(Box::new(m));
                            state.classic_deleted = false;
                        }
                        Err(e) => self.undecodable(r.offset, UndecodableWhy::Decode(e)),
                    },
                }
            }
            _ => {
                let decoded_key = decode_offsets_key(key);
                let state = self.replay.group_mut(group);
                state.coordinator_partition = Some(self.partition);
                match decoded_key {
                    Ok(k) => {
                        let id = (record_type, key_identity(&k.data));
                        match r.value {
                            None => {
                                state.records.remove(&id);
                            }
                            Some(v) => match decode_offsets_value(record_type, v) {
                                Ok(_) => {
                                    if let Some(record) = GroupRecord::new(key, v) {
                                        state.records.insert(id, record);
                                    }
                                }
                                Err(e) => {
                                    self.undecodable(r.offset, UndecodableWhy::Schema(e.kind))
                                }
                            },
                        }
                    }
                    Err(e) => self.undecodable(r.offset, UndecodableWhy::Schema(e.kind)),
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// What [`replay`] reads and keeps.
pub struct ReplayOptions<'a> {
    /// Only these groups (all when empty).
    pub filter: &'a [String],
    /// Keep every commit in log order (`--history`).
    pub history: bool,
    /// Also collect the generations (`--rebalances`), with the topic names KIP-848 records
    /// refer to by id.
    pub rebalances: Option<&'a HashMap<String, String>>,
    pub mmap: bool,
    /// Partitions replayed at once (rayon's pool decides the threads; 1: one after another).
    pub parallel: bool,
}

/// Replays one coordinator partition into `replay` (and its generations into `generations`):
/// one pass over each segment feeding the offsets replay and the rebalance history together.
fn replay_partition(
    p: &PartitionDir,
    opts: &ReplayOptions<'_>,
    replay: &mut Replay,
    generations: &mut Vec<Generation>,
    segment_read: &(dyn Fn(&Path) + Sync),
) -> io::Result<()> {
    let mut scratch = RecordScratch::default();
    let scan = ScanOptions {
        deep: true,
        ..Default::default()
    };
    let mut sink = ReplaySink {
        replay,
        partition: p.name.partition,
        filter: opts.filter,
        history: opts.history,
        pending: HashMap::new(),
        file: None,
    };
    let no_names = HashMap::new();
    let mut gens = GenerationSink::new(
        generations,
        p.name.partition,
        opts.filter,
        opts.rebalances.unwrap_or(&no_names),
    );
    for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
        let mut src = match open_log(&f.path, opts.mmap) {
            Ok(src) => src,
            Err(e) if vanished(&f.path, &e) => {
                sink.replay.vanished.push(f.path.clone());
                segment_read(&f.path);
                continue;
            }
            Err(e) => {
                // Keep going: the rest of the partition still says something.
                sink.replay.undecodable.push(Undecodable {
                    partition: p.name.partition,
                    offset: -1,
                    why: UndecodableWhy::CannotRead {
                        file: f.path.clone(),
                        error: Arc::new(e),
                    },
                });
                segment_read(&f.path);
                continue;
            }
        };
        sink.file = Some(f.path.clone());
        if opts.rebalances.is_some() {
            let mut both = Tee(&mut sink, &mut gens);
            scan_log(src.as_mut(), &scan, &mut scratch, &mut both)?;
        } else {
            scan_log(src.as_mut(), &scan, &mut scratch, &mut sink)?;
        }
        segment_read(&f.path);
    }
    gens.finish();
    // Commits of transactions still open at the end of the log are not (yet) visible.
    let replay = sink.replay;
    for (pid, pending) in sink.pending.drain() {
        for p in pending {
            if let Ok(k) = kseg_format::coordinator::parse_offset_commit_key(&p.key) {
                replay
                    .pending_transactional
                    .insert((k.group, k.topic, k.partition));
            }
            if let Some(i) = p.history_index {
                if let Some(e) = replay.history.get_mut(i) {
                    e.transactional = Some((pid, "open"));
                }
            }
        }
    }
    Ok(())
}

/// Two sinks fed from one scan: every call goes to both; the scan stops only when both say so.
struct Tee<'a, A: LogSink, B: LogSink>(&'a mut A, &'a mut B);

impl<A: LogSink, B: LogSink> LogSink for Tee<'_, A, B> {
    fn batch(&mut self, p: u64, e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let a = self.0.batch(p, e, b)?;
        let b = self.1.batch(p, e, b)?;
        Ok(both(a, b))
    }
    fn record(&mut self, p: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        let x = self.0.record(p, b, r)?;
        let y = self.1.record(p, b, r)?;
        Ok(both(x, y))
    }
    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        let a = self.0.problem(p)?;
        let b = self.1.problem(p)?;
        Ok(both(a, b))
    }
}

fn both(a: Flow, b: Flow) -> Flow {
    if matches!(a, Flow::Stop) && matches!(b, Flow::Stop) {
        Flow::Stop
    } else {
        Flow::Continue
    }
}

/// Replays the `__consumer_offsets` partitions (any order given; read in partition order, each
/// in its own log order), with the generations when `opts.rebalances` asks for them.
/// `segment_read` is told of each segment once it has been read (for a progress display).
///
/// With `opts.parallel` the partitions are replayed at once, each into its own state, and the
/// states merged in partition order — the same result as one after another, because a group
/// lives in one coordinator partition. When a group's records are found in two partitions (a
/// changed partition count, a copied dir), the merge could not reproduce the sequential
/// replay's last-word-wins across them, so the partitions are replayed again one after another.
pub fn replay(
    partitions: &[&PartitionDir],
    opts: &ReplayOptions<'_>,
    segment_read: &(dyn Fn(&Path) + Sync),
) -> io::Result<(Replay, Vec<Generation>)> {
    let mut sorted: Vec<&PartitionDir> = partitions.to_vec();
    sorted.sort_by_key(|p| p.name.partition);
    let mut replay = Replay::default();
    let mut generations = Vec::new();
    let mut done = false;
    if opts.parallel && sorted.len() > 1 {
        let parts: Vec<(Replay, Vec<Generation>)> = sorted
            .par_iter()
            .map(|p| {
                let mut r = Replay::default();
                let mut g = Vec::new();
                replay_partition(p, opts, &mut r, &mut g, &|_| {})?;
                Ok((r, g))
            })
            .collect::<io::Result<_>>()?;
        if let Some(merged) = merge(parts) {
            (replay, generations) = merged;
            done = true;
        }
        for p in &sorted {
            for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
                segment_read(&f.path);
            }
        }
    }
    if !done {
        for p in &sorted {
            replay_partition(p, opts, &mut replay, &mut generations, segment_read)?;
        }
    }
    // A group with nothing left is gone (remembered, to say so when it is asked for).
    let mut deleted = BTreeMap::new();
    replay.groups.retain(|name, g| {
        let live = !g.offsets.is_empty() || g.classic.is_some() || !g.records.is_empty();
        if !live {
            deleted.insert(name.clone(), g.coordinator_partition);
        }
        live
    });
    replay.deleted = deleted;
    replay.tombstoned_unknown.clear();
    Ok((replay, generations))
}

/// Per-partition replays merged in partition order, or `None` when a group's records are in more
/// than one of them.
fn merge(parts: Vec<(Replay, Vec<Generation>)>) -> Option<(Replay, Vec<Generation>)> {
    // Every group name with the partition that touched it, sorted: a name twice with two
    // partitions is a group in two partitions. (Sorting once is linear-logarithmic; merging
    // the maps pairwise would cost the whole map per partition.)
    let mut names: Vec<(&str, usize)> = parts
        .iter()
        .enumerate()
        .flat_map(|(i, (r, _))| {
            r.groups
                .keys()
                .chain(r.tombstoned_unknown.iter())
                .map(move |g| (g.as_str(), i))
        })
        .collect();
    names.sort_unstable();
    if names
        .windows(2)
        .any(|w| w[0].0 == w[1].0 && w[0].1 != w[1].1)
    {
        return None;
    }
    drop(names);
    let mut replay = Replay::default();
    let mut generations = Vec::new();
    let mut groups = Vec::new();
    for (r, g) in parts {
        groups.push(r.groups);
        let mut r = Replay {
            groups: BTreeMap::new(),
            ..r
        };
        replay.history.append(&mut r.history);
        replay.commits += r.commits;
        replay.undecodable.append(&mut r.undecodable);
        replay.vanished.append(&mut r.vanished);
        replay.unknown_types.append(&mut r.unknown_types);
        replay
            .pending_transactional
            .append(&mut r.pending_transactional);
        generations.extend(g);
    }
    // No name is in two maps: one bulk build from every entry (each map freed as it is read).
    let mut all = Vec::with_capacity(groups.iter().map(BTreeMap::len).sum());
    for g in groups {
        all.extend(g);
    }
    replay.groups = all.into_iter().collect();
    Some((replay, generations))
}

/// What the data partition looks like, for lag and the forensic flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct PartitionFacts {
    pub log_start_offset: Option<i64>,
    pub log_end_offset: Option<i64>,
    pub newest_timestamp: Option<i64>,
}

pub fn partition_facts(p: &PartitionDir, facts: Option<&LogDirFacts>) -> PartitionFacts {
    let mut scratch = RecordScratch::default();
    let s = summarize_partition(p, facts, false, &mut scratch);
    PartitionFacts {
        log_start_offset: s.log_start_offset,
        log_end_offset: s.log_end_offset,
        newest_timestamp: s.last_timestamp,
    }
}

struct FindRecord {
    target: i64,
    found: Option<i64>,
}

impl LogSink for FindRecord {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, _b: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    fn record(&mut self, _p: u64, _b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if r.offset >= self.target {
            self.found = Some(r.timestamp);
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The timestamp of the first record at or after `offset`, found through the offset index.
pub fn timestamp_at(p: &PartitionDir, offset: i64) -> Option<i64> {
    let segments: Vec<(i64, &Path)> = p
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .filter_map(|f| {
            Some((
                base_offset_of(&f.path.file_name()?.to_string_lossy())?,
                f.path.as_path(),
            ))
        })
        .collect();
    let start = segments
        .iter()
        .rposition(|(b, _)| *b <= offset)
        .unwrap_or(0);
    let mut scratch = RecordScratch::default();
    for (base, path) in &segments[start..] {
        let index = path.with_extension("index");
        let position = read_small(&index, 1 << 30)
            .ok()
            .map(|bytes| OffsetIndex::new(*base, &bytes).lookup(offset).position as u64)
            .unwrap_or(0);
        let mut src = open_log(path, false).ok()?;
        let opts = ScanOptions {
            deep: true,
            offsets: (offset, i64::MAX),
            start_position: position,
            ..Default::default()
        };
        let mut sink = FindRecord {
            target: offset,
            found: None,
        };
        scan_log(src.as_mut(), &opts, &mut scratch, &mut sink).ok()?;
        if sink.found.is_some() {
            return sink.found;
        }
    }
    None
}
