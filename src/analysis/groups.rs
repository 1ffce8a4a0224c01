//! Rebuilding consumer-group state from `__consumer_offsets` on disk, the way the group
//! coordinator does when it loads a partition: replay in log order, the last value per key wins,
//! tombstones delete, transactional offset commits count only once their producer's COMMIT marker
//! follows (never when aborted).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::partition_for::coordinator_key_id;
use crate::analysis::rebalances::{Generation, GenerationSink};
use crate::analysis::summary::{summarize_partition, LogDirFacts};
use crate::format::control::{decode_control, ControlType};
use crate::format::coordinator::{
    decode_offsets_key, decode_offsets_value, is_known_group_record_type, parse_group_metadata,
    parse_offset_commit, CoordinatorKey, CoordinatorValue, GroupMetadata, OffsetCommit,
    StructValue, Value,
};
use crate::format::index::OffsetIndex;
use crate::format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use crate::format::protocol::uuid_string;
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::PartitionDir;
use crate::storage::layout::{base_offset_of, FileKind};
use crate::storage::source::{open_log, read_small};

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
    pub commit_timestamp: Option<i64>,
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

/// A KIP-848/share/streams group record as it was read: its key and (non-null) value bytes,
/// which decoded when they were read and are decoded again, borrowed, on use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRecord {
    pub record_type: i16,
    key: Vec<u8>,
    value: Vec<u8>,
}

impl GroupRecord {
    /// The record, when its key and value decode (`None` otherwise).
    pub fn new(key: &[u8], value: &[u8]) -> Option<GroupRecord> {
        let record_type = decode_offsets_key(key).ok()?.record_type;
        decode_offsets_value(record_type, value).ok()?;
        Some(GroupRecord {
            record_type,
            key: key.to_vec(),
            value: value.to_vec(),
        })
    }

    /// The decoded key and value (they decoded when the record was made).
    pub fn decoded(&self) -> Option<(CoordinatorKey<'_>, CoordinatorValue<'_>)> {
        let key = decode_offsets_key(&self.key).ok()?;
        let value = decode_offsets_value(self.record_type, &self.value).ok()?;
        Some((key, value))
    }

    /// The decoded value's fields.
    pub fn data(&self) -> Option<StructValue<'_>> {
        self.decoded().map(|(_, v)| v.data)
    }
}

/// A record key's identity in [`GroupState::records`]: its fields as compact JSON text.
fn key_identity(key: &StructValue<'_>) -> String {
    let mut out = String::from("{");
    for (i, (f, v)) in key.fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(f.name));
        out.push(':');
        match v {
            Value::Str(_) => out.push_str(&json_string(&v.as_str().unwrap_or_default())),
            Value::Int(n) => out.push_str(&n.to_string()),
            Value::Uuid(u) => out.push_str(&json_string(&uuid_string(u))),
            other => out.push_str(&json_string(&format!("{other:?}"))),
        }
    }
    out.push('}');
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[derive(Debug, Default)]
pub struct Replay {
    pub groups: BTreeMap<String, GroupState>,
    pub history: Vec<CommitEvent>,
    pub commits: u64,
    /// Records that could not be decoded: (coordinator partition, offset, message).
    pub undecodable: Vec<(i32, i64, String)>,
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
/// UTF-8 (then where, and the id escaped).
fn bad_key_message(key: &[u8], file: Option<&Path>, batch_position: u64) -> String {
    let at = match file {
        Some(f) => format!(
            " (in {} at byte {batch_position})",
            crate::print::escape::escaped_path(f)
        ),
        None => String::new(),
    };
    let len = key
        .get(2..4)
        .map(|b| i16::from_be_bytes([b[0], b[1]]))
        .unwrap_or(-1);
    if let Some(id) = usize::try_from(len).ok().and_then(|n| key.get(4..4 + n)) {
        if let Err(e) = std::str::from_utf8(id) {
            return format!(
                "the group id is not valid UTF-8: invalid byte at byte {} of the record key{at}; \
                 the id, escaped: \"{}\"",
                4 + e.valid_up_to(),
                {
                    let mut v = Vec::new();
                    crate::print::escape::push_escaped(&mut v, id);
                    String::from_utf8_lossy(&v).into_owned()
                }
            );
        }
    }
    format!(
        "record key too short for a coordinator key ({} bytes){at}",
        key.len()
    )
}

impl ReplaySink<'_> {
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
                Err(e) => self.replay.undecodable.push((
                    self.partition,
                    record_offset,
                    e.message.to_string(),
                )),
            },
            None => {
                if let Ok(k) = crate::format::coordinator::parse_offset_commit_key(key) {
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
        let (group, topic, partition, offset, ts) = match value {
            Some(v) => {
                let OffsetCommit { key: k, value: c } = parse_offset_commit(key, v).ok()?;
                (
                    k.group,
                    k.topic,
                    k.partition,
                    Some(c.offset),
                    Some(c.commit_timestamp),
                )
            }
            None => {
                let k = crate::format::coordinator::parse_offset_commit_key(key).ok()?;
                (k.group, k.topic, k.partition, None, None)
            }
        };
        self.replay.history.push(CommitEvent {
            group,
            topic,
            partition,
            offset,
            commit_timestamp: ts,
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
            let msg = bad_key_message(key, self.file.as_deref(), p);
            self.replay
                .undecodable
                .push((self.partition, r.offset, msg));
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
                        Err(e) => self.replay.undecodable.push((
                            self.partition,
                            r.offset,
                            e.message.to_string(),
                        )),
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
                                Err(e) => self.replay.undecodable.push((
                                    self.partition,
                                    r.offset,
                                    e.kind.to_string(),
                                )),
                            },
                        }
                    }
                    Err(e) => {
                        self.replay
                            .undecodable
                            .push((self.partition, r.offset, e.kind.to_string()))
                    }
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
            Err(e) => {
                // Keep going: the rest of the partition still says something.
                sink.replay.undecodable.push((
                    p.name.partition,
                    -1,
                    format!("cannot read {}: {e}", f.path.display()),
                ));
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
    // Commits of transactions still open at the end of the log are not (yet) visible.
    let replay = sink.replay;
    for (pid, pending) in sink.pending.drain() {
        for p in pending {
            if let Ok(k) = crate::format::coordinator::parse_offset_commit_key(&p.key) {
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

/// A KIP-848 consumer group, assembled from its latest records (types 3, 5, 6, 7 and 8).
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupView {
    pub group_epoch: Option<i64>,
    pub assignment_epoch: Option<i64>,
    pub members: Vec<ConsumerMemberView>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerMemberView {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub client_id: Option<String>,
    pub client_host: Option<String>,
    pub subscribed_topics: Vec<String>,
    pub subscribed_regex: Option<String>,
    pub member_epoch: Option<i64>,
    /// Partitions the member owns now, then what the assignor targets, as `topic:[p,...]`
    /// (topic names resolved through the log dirs' partition.metadata where possible).
    pub assigned: Vec<(String, Vec<i64>)>,
    pub target: Vec<(String, Vec<i64>)>,
    pub pending_revocation: Vec<(String, Vec<i64>)>,
}

fn topic_partitions(
    data: &StructValue<'_>,
    field: &str,
    topic_names: &HashMap<String, String>,
) -> Vec<(String, Vec<i64>)> {
    let list = data
        .get(field)
        .and_then(Value::as_array)
        .unwrap_or_default();
    list.iter()
        .filter_map(Value::as_struct)
        .map(|tp| {
            let id = tp
                .get("topicId")
                .and_then(Value::as_uuid)
                .map(|u| uuid_string(&u));
            let id = id.unwrap_or_default();
            let name = topic_names.get(&id).cloned().unwrap_or(id);
            let parts = tp
                .get("partitions")
                .and_then(Value::as_array)
                .map(|ps| ps.iter().filter_map(Value::as_int).collect())
                .unwrap_or_default();
            (name, parts)
        })
        .collect()
}

/// A list of strings (`subscribedTopicNames`, ...), empty when absent.
pub fn strings(data: &StructValue<'_>, field: &str) -> Vec<String> {
    data.get(field)
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t.as_str().map(|t| t.into_owned()))
        .collect()
}

/// The structured view of a KIP-848 group, or `None` when the group has no such records.
pub fn consumer_group_view(
    state: &GroupState,
    topic_names: &HashMap<String, String>,
) -> Option<ConsumerGroupView> {
    let mut view = ConsumerGroupView::default();
    let mut members: BTreeMap<String, ConsumerMemberView> = BTreeMap::new();
    let mut any = false;
    for ((record_type, _), record) in &state.records {
        let Some((key, value)) = record.decoded() else {
            continue;
        };
        let data = &value.data;
        let text = |f: &str| data.str(f).map(|s| s.into_owned());
        let member = || key.data.str("memberId").unwrap_or_default().into_owned();
        match record_type {
            3 => view.group_epoch = data.int("epoch"),
            6 => view.assignment_epoch = data.int("assignmentEpoch"),
            5 => {
                let m = members.entry(member()).or_default();
                m.instance_id = text("instanceId");
                m.client_id = text("clientId");
                m.client_host = text("clientHost");
                m.subscribed_topics = strings(data, "subscribedTopicNames");
                m.subscribed_regex = text("subscribedTopicRegex");
            }
            7 => {
                members.entry(member()).or_default().target =
                    topic_partitions(data, "topicPartitions", topic_names)
            }
            8 => {
                let m = members.entry(member()).or_default();
                m.member_epoch = data.int("memberEpoch");
                m.assigned = topic_partitions(data, "assignedPartitions", topic_names);
                m.pending_revocation =
                    topic_partitions(data, "partitionsPendingRevocation", topic_names);
            }
            _ => continue,
        }
        any = true;
    }
    for (id, mut m) in members {
        m.member_id = id;
        view.members.push(m);
    }
    any.then_some(view)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::coordinator::encode::StructBuilder;
    use crate::format::coordinator::Coordinator;

    /// Puts a record of `record_type` in `state`: key field `groupId` "g" and any other key
    /// field (`memberId`, ...) `member`, value v0 built by `value` from the value's schema.
    pub(crate) fn put_record(
        state: &mut GroupState,
        record_type: i16,
        member: &'static str,
        value: impl FnOnce(StructBuilder<'static>) -> StructBuilder<'static>,
    ) {
        let (key_msg, value_msg) = Coordinator::Group.messages(record_type).unwrap();
        let mut key = StructBuilder::new(key_msg);
        for f in key_msg.root.fields {
            let text: &'static str = if f.name == "groupId" { "g" } else { member };
            key = key.set(f.name, Value::Str(text.as_bytes()));
        }
        let key = key.build();
        let key_bytes = Coordinator::Group.encode_key(record_type, &key).unwrap();
        let value = value(StructBuilder::new(value_msg)).build();
        let value_bytes = Coordinator::Group
            .encode_value(record_type, 0, &value)
            .unwrap();
        state.records.insert(
            (record_type, key_identity(&key)),
            GroupRecord::new(&key_bytes, &value_bytes).unwrap(),
        );
    }

    fn topic(b: &StructBuilder<'static>, field: &str, parts: &[i64]) -> Value<'static> {
        Value::Array(vec![Value::Struct(
            StructBuilder::of(b.element(field))
                .set("topicId", Value::Uuid([7; 16]))
                .set(
                    "partitions",
                    Value::Array(parts.iter().map(|&p| Value::Int(p)).collect()),
                )
                .build(),
        )])
    }

    #[test]
    fn kip848_records_assemble_into_members() {
        let mut state = GroupState::default();
        put_record(&mut state, 3, "", |b| b.set("epoch", Value::Int(7)));
        put_record(&mut state, 6, "", |b| {
            b.set("assignmentEpoch", Value::Int(7))
        });
        put_record(&mut state, 5, "m1", |b| {
            b.set("instanceId", Value::Null)
                .set("rackId", Value::Null)
                .set("clientId", Value::Str(b"c1"))
                .set("clientHost", Value::Str(b"/10.0.0.1"))
                .set(
                    "subscribedTopicNames",
                    Value::Array(vec![Value::Str(b"orders")]),
                )
                .set("subscribedTopicRegex", Value::Null)
                .set("rebalanceTimeoutMs", Value::Int(-1))
                .set("serverAssignor", Value::Null)
        });
        put_record(&mut state, 8, "m1", |b| {
            let assigned = topic(&b, "assignedPartitions", &[0, 2]);
            b.set("memberEpoch", Value::Int(7))
                .set("previousMemberEpoch", Value::Int(6))
                .set("state", Value::Int(0))
                .set("assignedPartitions", assigned)
                .set("partitionsPendingRevocation", Value::Array(vec![]))
        });
        put_record(&mut state, 7, "m1", |b| {
            let target = topic(&b, "topicPartitions", &[0, 1, 2]);
            b.set("topicPartitions", target)
        });
        assert_eq!(
            state
                .records
                .keys()
                .map(|(t, id)| (*t, id.as_str()))
                .collect::<Vec<_>>(),
            [
                (3, r#"{"groupId":"g"}"#),
                (5, r#"{"groupId":"g","memberId":"m1"}"#),
                (6, r#"{"groupId":"g"}"#),
                (7, r#"{"groupId":"g","memberId":"m1"}"#),
                (8, r#"{"groupId":"g","memberId":"m1"}"#),
            ]
        );
        let names = HashMap::from([(uuid_string(&[7; 16]), "orders".to_string())]);
        let v = consumer_group_view(&state, &names).unwrap();
        assert_eq!(v.group_epoch, Some(7));
        assert_eq!(v.assignment_epoch, Some(7));
        assert_eq!(v.members.len(), 1);
        let m = &v.members[0];
        assert_eq!(m.member_id, "m1");
        assert_eq!(m.instance_id, None);
        assert_eq!(m.client_id.as_deref(), Some("c1"));
        assert_eq!(m.subscribed_topics, ["orders"]);
        assert_eq!(m.member_epoch, Some(7));
        assert_eq!(m.assigned, vec![("orders".to_string(), vec![0, 2])]);
        assert_eq!(m.target, vec![("orders".to_string(), vec![0, 1, 2])]);
        assert!(consumer_group_view(&GroupState::default(), &names).is_none());
    }

    #[test]
    fn key_identity_is_the_keys_json_text() {
        let (msg, _) = Coordinator::Group.messages(5).unwrap();
        let key = StructBuilder::new(msg)
            .set("groupId", Value::Str(b"g\"\n"))
            .set("memberId", Value::Str(b"\xffm"))
            .build();
        assert_eq!(
            key_identity(&key),
            "{\"groupId\":\"g\\\"\\n\",\"memberId\":\"\u{fffd}m\"}"
        );
    }
}
