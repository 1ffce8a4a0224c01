//! Producer state through Kafka 4.4's load of one partition: the producer snapshots the load
//! keeps, deletes and writes, and the `.txnindex` entries `LogSegment.recover` writes from that
//! state. The sequence is Kafka's:
//!
//! 1. `LogLoader.loadSegmentFiles` recovers each segment missing its `.index` (or whose
//!    `.txnindex` fails its sanity check) as it loads it, through `recoverSegment`: a fresh
//!    `ProducerStateManager` reads the snapshot files in the dir, `UnifiedLog.rebuildProducerState`
//!    brings it to the segment's base offset (deleting snapshots above it or at or below the log
//!    start checkpoint, loading the latest readable one, replaying the segments loaded so far and
//!    writing snapshots on the way), `LogSegment.recover` replays the segment (writing the
//!    `.txnindex`), and `takeSnapshot` writes one at the segment's end.
//! 2. Without a clean shutdown, `LogLoader.recoverLog` does the same for each unflushed segment,
//!    until one is truncated; the later ones are deleted (their snapshots renamed `.deleted` by the
//!    log's own manager, when it knew them).
//! 3. `ProducerStateManager.removeStraySnapshots` keeps, of the snapshots at no segment's base, only
//!    the largest and only above the last base; `rebuildProducerState` to the log end (with the
//!    clean-shutdown shortcut: no snapshot at all after a clean shutdown writes empty ones).
//!
//! Every replay reads the segments as recovery leaves them ([`SegmentView`]). A second replay of
//! the whole log from its start (no snapshot) is the truth the `.txnindex` entries are held
//! against: a stale snapshot makes Kafka's entries wrong ([`StaleAbort`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::ops::Bound::{Excluded, Unbounded};
use std::path::PathBuf;

use crate::pieces::EntrySink;
use kseg_format::control::{decode_control, ControlType};
use kseg_format::log::{BatchInfo, ByteSource, HeaderHop, Hop, LogEntry, RecordScratch};
use kseg_format::producer_snapshot::{
    encode_producer_snapshot, parse_producer_snapshot, JavaLongHashOrder, ProducerEntry,
};
use kseg_format::txn_index::AbortedTxn;
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::source::{open_log, read_small, FileSource};

/// Kafka's default `producer.id.expiration.ms` (one day).
pub const DEFAULT_PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

/// One segment of the partition, as recovery leaves its bytes.
#[derive(Debug, Clone)]
pub struct SegmentView {
    pub base: i64,
    /// The segment's bytes: the first `len` bytes of `path`.
    pub path: PathBuf,
    pub len: u64,
    /// Recovered by `LogLoader.loadSegmentFiles` (no `.index`, or a `.txnindex` failing its
    /// sanity check).
    pub load_recovered: bool,
    /// Recovered by `LogLoader.recoverLog` (unflushed, no clean shutdown), not deleted.
    pub recovered: bool,
    /// Deleted by `recoverLog` after an earlier segment was truncated.
    pub deleted: bool,
    /// The segment's producer batches, kept by the pass that read it ([`ProducerBatches`]), so
    /// that the rebuild does not read the segment again; `None`: read it.
    pub batches: Option<ProducerBatches>,
}

/// The batches of a segment as the producer-state rebuild reads them, with where each ends,
/// gathered by a pass that reads the segment anyway (verify's), within a budget of entries
/// shared by a partition's segments.
#[derive(Debug, Clone, Default)]
pub struct ProducerBatches {
    batches: Vec<(u64, Batch)>,
}

/// Gathers [`ProducerBatches`] from a scan of a segment (its `LogSink::batch` calls).
pub struct BatchCollector {
    batches: Vec<(u64, Batch)>,
    scratch: RecordScratch,
    /// Entries left in the budget; the segment is read again once it runs out.
    budget: usize,
    over: bool,
}

/// At most this many batches are kept per partition (~72 bytes each, 18 MiB): beyond, the
/// rebuild reads the segments again (a 1 GiB segment of 16 KiB batches has 65,536).
pub const PRODUCER_BATCH_BUDGET: usize = 1 << 18;

impl BatchCollector {
    pub fn new(budget: usize) -> Self {
        BatchCollector {
            batches: Vec::new(),
            scratch: RecordScratch::with_cap(1 << 20),
            budget,
            over: false,
        }
    }

    /// One entry of the scan, as the walk without checksums yields them to [`each_batch`] (every
    /// one: a segment's replay moves the state's end past batches without a producer too).
    pub fn batch(&mut self, position: u64, b: &BatchInfo, control: Option<&LogEntry<'_>>) {
        if self.over {
            return;
        }
        if self.batches.len() >= self.budget {
            self.over = true;
            self.batches = Vec::new();
            return;
        }
        let control = b
            .is_control
            .then(|| control.and_then(|entry| first_marker(entry, &mut self.scratch)));
        self.batches
            .push((position + b.size as u64, batch_of(b, control)));
    }

    /// The segment's batches (`None` when the budget ran out), and what is left of the budget.
    pub fn finish(self) -> (Option<ProducerBatches>, usize) {
        if self.over {
            return (None, 0);
        }
        let left = self.budget - self.batches.len();
        (
            Some(ProducerBatches {
                batches: self.batches,
            }),
            left,
        )
    }
}

/// What the load needs besides the segments.
#[derive(Debug, Clone, Copy)]
pub struct LoadParams {
    pub clean_shutdown: bool,
    /// The partition's `log-start-offset-checkpoint` entry (0 when absent).
    pub log_start_checkpoint: i64,
    /// The log end offset after recovery (`recoverLog`'s `nextOffset`).
    pub log_end: i64,
    /// When Kafka loads the log: snapshot entries idle for `expiration_ms` (no open transaction)
    /// are not loaded (`ProducerStateManager.isProducerExpired`). `None`: nothing expires.
    pub now_ms: Option<i64>,
    pub expiration_ms: i64,
    /// Hold the `.txnindex` entries against a replay of the whole log ([`StaleAbort`]); not on
    /// compacted topics, whose cleaner removes aborted transactions' data.
    pub check_stale: bool,
}

/// A snapshot file after the load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotFile {
    /// The input's file, untouched.
    Input(PathBuf),
    /// A file the load writes, with its bytes.
    Written(Vec<u8>),
}

/// An aborted transaction's `.txnindex` entry that the whole log contradicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleAbort {
    /// The recovered segment whose `.txnindex` gets (or misses) the entry.
    pub segment_base: i64,
    pub producer_id: i64,
    /// The ABORT marker's offset.
    pub marker_offset: i64,
    /// The first offset Kafka's entry gives the transaction (`None`: Kafka writes no entry).
    pub kafka_first: Option<i64>,
    /// The first offset the log says (`None`: no transaction of the producer was open).
    pub true_first: Option<i64>,
    /// The snapshot Kafka's state came from (`None`: the log start).
    pub snapshot: Option<i64>,
}

impl StaleAbort {
    /// Aborted records read_committed consumers get: (first, last) offsets.
    pub fn exposed(&self) -> Option<(i64, i64)> {
        let t = self.true_first?;
        match self.kafka_first {
            None => Some((t, self.marker_offset - 1)),
            Some(k) if k > t => Some((t, k - 1)),
            _ => None,
        }
    }

    /// Records of the producer read_committed consumers skip although they were not aborted.
    pub fn hidden(&self) -> Option<(i64, i64)> {
        let k = self.kafka_first?;
        match self.true_first {
            None => Some((k, self.marker_offset - 1)),
            Some(t) if k < t => Some((k, t - 1)),
            _ => None,
        }
    }
}

/// The load's outcome for producer state.
#[derive(Debug, Default)]
pub struct ProducerLoad {
    /// The snapshot files the load leaves, by offset.
    pub snapshots: BTreeMap<i64, SnapshotFile>,
    /// The `.txnindex` entries of each segment the load recovers (by base offset).
    pub txn_indexes: BTreeMap<i64, Vec<AbortedTxn>>,
    /// Snapshots of the input the load deletes (corrupt, out of range, stray).
    pub deleted: Vec<i64>,
    /// Offsets of the snapshots the load writes (some deleted again before it ends).
    pub written: Vec<i64>,
    /// `.txnindex` entries a stale snapshot makes wrong.
    pub stale: Vec<StaleAbort>,
    /// A bucket of the producers' hash map became a tree: the entry order of written snapshots
    /// may differ from Kafka's.
    pub order_approximate: bool,
}

#[derive(Debug, Clone, Copy)]
enum Marker {
    Abort,
    Commit,
    /// A control record that is no transaction marker, or that does not decode.
    Other,
}

/// The producer fields of a batch.
#[derive(Debug, Clone, Copy)]
struct Batch {
    producer_id: i64,
    epoch: i16,
    base_offset: i64,
    last_offset: i64,
    last_sequence: i32,
    max_timestamp: i64,
    transactional: bool,
    /// Magic 2 (only those carry producer state).
    v2: bool,
    /// A control batch: its first record's marker, coordinator epoch and timestamp (`None`: no
    /// record, the transaction cleaned away).
    control: Option<Option<(Marker, i32, i64)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    epoch: i16,
    /// The last batch kept (`ProducerStateEntry.batchMetadata`'s last): sequence, last offset,
    /// offset delta.
    last: Option<(i32, i64, i32)>,
    coordinator_epoch: i32,
    timestamp: i64,
    txn_first: Option<i64>,
}

impl Entry {
    /// `ProducerStateEntry.empty`.
    const EMPTY: Entry = Entry {
        epoch: -1,
        last: None,
        coordinator_epoch: -1,
        timestamp: -1,
        txn_first: None,
    };
}

/// A transaction whose marker was replayed.
#[derive(Debug, Clone, Copy)]
struct Completed {
    producer_id: i64,
    first: i64,
    marker: i64,
    abort: bool,
}

/// One `ProducerStateManager`.
#[derive(Debug, Default)]
struct State {
    producers: HashMap<i64, Entry>,
    order: JavaLongHashOrder,
    /// Open transactions: first offset → producer id (`ongoingTxns`).
    ongoing: BTreeMap<i64, i64>,
    map_end: i64,
    last_snap: i64,
    /// Where the loaded state came from.
    loaded_from: Option<i64>,
}

impl State {
    fn insert_new(&mut self, pid: i64, entry: Entry) {
        if self.producers.insert(pid, entry).is_none() {
            self.order.insert(pid);
        }
    }

    /// `ProducerAppendInfo.append` and `ProducerStateManager.update` (origin REPLICATION) for one
    /// batch; a new producer's entry is created but not yet placed in the map's order (the caller
    /// decides when: at once in `LogSegment.recover`, at the end of a read in
    /// `loadProducersFromRecords`). Returns the transaction the batch's marker completes.
    fn apply(&mut self, b: &Batch, new_pids: &mut Vec<i64>) -> Option<Completed> {
        let pid = b.producer_id;
        let entry = self.producers.entry(pid).or_insert_with(|| {
            new_pids.push(pid);
            Entry::EMPTY
        });
        match b.control {
            // An empty control batch: the appendInfo changes nothing, but a producer without
            // state gets an (empty) entry.
            Some(None) => None,
            Some(Some((marker, coordinator_epoch, timestamp))) => {
                if matches!(marker, Marker::Other) {
                    return None;
                }
                let completed = entry.txn_first.map(|first| Completed {
                    producer_id: pid,
                    first,
                    marker: b.base_offset,
                    abort: matches!(marker, Marker::Abort),
                });
                if entry.epoch != b.epoch {
                    entry.epoch = b.epoch;
                    entry.last = None;
                }
                entry.coordinator_epoch = coordinator_epoch;
                entry.txn_first = None;
                entry.timestamp = timestamp;
                completed
            }
            None => {
                entry.epoch = b.epoch;
                entry.last = Some((
                    b.last_sequence,
                    b.last_offset,
                    b.last_offset.wrapping_sub(b.base_offset) as i32,
                ));
                entry.timestamp = b.max_timestamp;
                if b.transactional && entry.txn_first.is_none() {
                    entry.txn_first = Some(b.base_offset);
                    self.ongoing.insert(b.base_offset, pid);
                }
                None
            }
        }
    }

    /// `ProducerStateManager.lastStableOffset`, then `completeTxn`.
    fn complete(&mut self, c: &Completed) -> i64 {
        let lso = self
            .ongoing
            .iter()
            .find(|(_, pid)| **pid != c.producer_id)
            .map_or(c.marker + 1, |(first, _)| *first);
        self.ongoing.remove(&c.first);
        lso
    }

    /// `loadFromSnapshot`'s `loadProducerEntry` for each entry not expired.
    fn load(&mut self, entries: &[ProducerEntry], params: &LoadParams) {
        for e in entries {
            let expired = e.current_txn_first_offset < 0
                && params
                    .now_ms
                    .is_some_and(|now| now.saturating_sub(e.timestamp) >= params.expiration_ms);
            if expired {
                continue;
            }
            let txn_first = (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset);
            self.insert_new(
                e.producer_id,
                Entry {
                    epoch: e.epoch,
                    last: (e.last_offset >= 0).then_some((
                        e.last_sequence,
                        e.last_offset,
                        e.offset_delta,
                    )),
                    coordinator_epoch: e.coordinator_epoch,
                    timestamp: e.timestamp,
                    txn_first,
                },
            );
            if let Some(first) = txn_first {
                self.ongoing.insert(first, e.producer_id);
            }
        }
    }

    /// `writeSnapshot`'s bytes: the producers in the order the map iterates them.
    fn snapshot_bytes(&self) -> io::Result<Vec<u8>> {
        let entries: Vec<ProducerEntry> = self
            .order
            .order()
            .into_iter()
            .filter_map(|pid| Some((pid, self.producers.get(&pid)?)))
            .map(|(pid, e)| ProducerEntry {
                producer_id: pid,
                epoch: e.epoch,
                last_sequence: e.last.map_or(-1, |l| l.0),
                last_offset: e.last.map_or(-1, |l| l.1),
                offset_delta: e.last.map_or(0, |l| l.2),
                timestamp: e.timestamp,
                coordinator_epoch: e.coordinator_epoch,
                current_txn_first_offset: e.txn_first.unwrap_or(-1),
            })
            .collect();
        encode_producer_snapshot(&entries).map_err(io::Error::other)
    }
}

/// A scan's sink that also gathers the segment's batches into a [`BatchCollector`].
pub struct Gathering<'a, S: EntrySink + ?Sized> {
    pub sink: &'a mut S,
    pub collector: &'a mut BatchCollector,
}

impl<S: EntrySink + ?Sized> EntrySink for Gathering<'_, S> {
    fn entry(&mut self, position: u64, info: &BatchInfo, control: Option<&LogEntry<'_>>) {
        self.collector.batch(position, info, control);
        self.sink.entry(position, info, control)
    }
    fn problem(&mut self, problem: &LogProblem<'_>) {
        self.sink.problem(problem)
    }
}

/// A control batch's first record: its marker, coordinator epoch and timestamp (`None`: no
/// record, the transaction cleaned away).
fn first_marker(entry: &LogEntry<'_>, scratch: &mut RecordScratch) -> Option<(Marker, i32, i64)> {
    let mut first = None;
    let _ = kseg_format::log::for_each_record(entry, scratch, |r| {
        if first.is_none() {
            let marker = match decode_control(r.key, r.value) {
                Ok(c) if c.kind == ControlType::Abort => {
                    (Marker::Abort, c.coordinator_epoch.unwrap_or(-1))
                }
                Ok(c) if c.kind == ControlType::Commit => {
                    (Marker::Commit, c.coordinator_epoch.unwrap_or(-1))
                }
                _ => (Marker::Other, -1),
            };
            first = Some((marker.0, marker.1, r.timestamp));
        }
    });
    first
}

/// Walks the batches of a view with a closure.
struct Each<F>(F, RecordScratch);

fn batch_of(b: &BatchInfo, control: Option<Option<(Marker, i32, i64)>>) -> Batch {
    Batch {
        producer_id: b.producer_id,
        epoch: b.producer_epoch,
        base_offset: b.base_offset,
        last_offset: b.last_offset,
        last_sequence: b.last_sequence,
        max_timestamp: b.max_timestamp,
        transactional: b.is_transactional,
        v2: b.magic >= 2,
        control,
    }
}

impl<F: FnMut(&Batch) -> Flow> LogSink for Each<F> {
    fn batch(&mut self, _: u64, entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let control = b.is_control.then(|| first_marker(entry, &mut self.1));
        Ok((self.0)(&batch_of(b, control)))
    }

    fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The smallest read of the header hop: a header and a little of what follows.
const HOP_READ: usize = 4 << 10;

/// The batches of the first `len` bytes of a log, as a walk without checksums yields them. The
/// rebuild needs only their headers (and control batches' first records): over clean framing
/// they are read alone (`HeaderHop`), so that the records of large batches are not read a
/// second time after the verify pass read them; from the first frame the hop does not judge,
/// the walk takes over.
fn each_batch(
    seg: &SegmentView,
    scratch: &mut RecordScratch,
    mut f: impl FnMut(&Batch) -> Flow,
) -> io::Result<()> {
    let (path, len) = (seg.path.as_path(), seg.len);
    if let Some(kept) = &seg.batches {
        // Gathered by the pass that read the whole file: the walk over its first `len` bytes
        // yields those that end within them.
        for (end, batch) in &kept.batches {
            if *end > len || f(batch) == Flow::Stop {
                break;
            }
        }
        return Ok(());
    }
    let mut src = FileSource::with_chunk(path, HOP_READ)?;
    let mut hop = HeaderHop::new(0, len);
    let mut control_scratch = RecordScratch::with_cap(1 << 20);
    let walk_from = loop {
        match hop.next(&mut src)? {
            Hop::End => return Ok(()),
            Hop::Unclean { position } => break position,
            Hop::Batch { position, header } => {
                let control = if header.is_control() {
                    // As the walk: an entry that does not parse is no batch.
                    let Ok(entry) = LogEntry::parse(src.read_at(position, header.size())?) else {
                        continue;
                    };
                    Some(first_marker(&entry, &mut control_scratch))
                } else {
                    None
                };
                let batch = Batch {
                    producer_id: header.producer_id,
                    epoch: header.producer_epoch,
                    base_offset: header.base_offset,
                    last_offset: header.last_offset(),
                    last_sequence: header.last_sequence(),
                    max_timestamp: header.max_timestamp,
                    transactional: header.is_transactional(),
                    v2: true,
                    control,
                };
                if f(&batch) == Flow::Stop {
                    return Ok(());
                }
            }
        }
    };
    let mut src = open_log(path, false)?;
    let opts = ScanOptions {
        check_crc: false,
        max_bytes: len,
        start_position: walk_from,
        ..Default::default()
    };
    let mut sink = Each(f, control_scratch);
    scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
    Ok(())
}

/// Snapshot entries and segments the producer-state rebuilds have visited so far in this
/// process: a recovery of every segment rebuilds once per segment, and each rebuild must cost
/// what it reads, not the whole partition. Counted so that tests assert the growth, never a time.
static REBUILD_WORK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What [`REBUILD_WORK`] has counted so far.
pub fn rebuild_work() -> u64 {
    REBUILD_WORK.load(std::sync::atomic::Ordering::Relaxed)
}

fn count_rebuild_work(n: usize) {
    REBUILD_WORK.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
}

/// The snapshot files of the dir as the load goes, with what it wrote and deleted.
struct Dir<'p> {
    files: BTreeMap<i64, SnapshotFile>,
    params: &'p LoadParams,
    input: HashSet<i64>,
    deleted: Vec<i64>,
    written: Vec<i64>,
    order_approximate: bool,
}

impl Dir<'_> {
    fn remove(&mut self, offset: i64) {
        if let Some(SnapshotFile::Input(_)) = self.files.remove(&offset) {
            self.deleted.push(offset);
        }
    }

    /// `takeSnapshot`: a file at the state's end offset when it is past the last one.
    fn take_snapshot(&mut self, st: &mut State) -> io::Result<()> {
        if st.map_end > st.last_snap {
            self.order_approximate |= st.order.treeified();
            self.files
                .insert(st.map_end, SnapshotFile::Written(st.snapshot_bytes()?));
            self.written.push(st.map_end);
            st.last_snap = st.map_end;
        }
        Ok(())
    }

    /// `loadFromSnapshot`: the latest readable snapshot, deleting the corrupt ones above it.
    fn load_latest(&mut self, st: &mut State, log_start: i64) -> io::Result<()> {
        while let Some((&offset, file)) = self.files.iter().next_back() {
            let entries = match file {
                SnapshotFile::Written(bytes) => parse_producer_snapshot(bytes).ok(),
                SnapshotFile::Input(path) => read_small(path, 1 << 30)
                    .ok()
                    .and_then(|b| parse_producer_snapshot(&b).ok()),
            }
            .filter(|s| s.crc_valid);
            match entries {
                Some(snap) => {
                    st.load(&snap.entries, self.params);
                    st.last_snap = offset;
                    st.map_end = offset;
                    st.loaded_from = Some(offset);
                    return Ok(());
                }
                None => self.remove(offset),
            }
        }
        st.last_snap = log_start;
        st.map_end = log_start;
        Ok(())
    }
}

/// `UnifiedLog.rebuildProducerState` on a fresh `ProducerStateManager`, over `segs` (the log's
/// segments at that moment, in order).
fn rebuild(
    dir: &mut Dir<'_>,
    segs: &[&SegmentView],
    log_start: i64,
    last_offset: i64,
    reload_clean: bool,
    scratch: &mut RecordScratch,
) -> io::Result<State> {
    let mut st = State::default();
    let n = segs.len();
    let mut offsets_to_snapshot: Vec<i64> =
        segs[n.saturating_sub(2)..].iter().map(|s| s.base).collect();
    offsets_to_snapshot.push(last_offset);
    if dir.files.is_empty() && reload_clean {
        // The upgrade shortcut: empty snapshots at the last two bases and the log end.
        for o in offsets_to_snapshot {
            st.map_end = o;
            dir.take_snapshot(&mut st)?;
        }
        return Ok(st);
    }
    let empty_before = last_offset <= 0;
    // truncateAndReload: snapshots out of (logStart, lastOffset] go. Ranges of the ordered map,
    // not a pass over it: a recovery of every segment calls this once per segment.
    let out_of_range: Vec<i64> = if log_start >= last_offset {
        dir.files.keys().copied().collect()
    } else {
        dir.files
            .range(..=log_start)
            .chain(dir.files.range((Excluded(last_offset), Unbounded)))
            .map(|(o, _)| *o)
            .collect()
    };
    // The look-up counts one, and each snapshot it yields one.
    count_rebuild_work(1 + out_of_range.len());
    for o in out_of_range {
        dir.remove(o);
    }
    if last_offset != st.map_end {
        dir.load_latest(&mut st, log_start)?;
    } else {
        st.map_end = st.map_end.max(log_start);
        st.last_snap = dir.files.keys().next_back().copied().unwrap_or(log_start);
    }
    if last_offset > st.map_end && !empty_before {
        // LogSegments.values(mapEndOffset, lastOffset): from the floor segment of the map's end.
        // `segs` is in offset order: the floors and the range by binary search, so that a
        // rebuild per recovered segment stays linear in the segments it reads.
        let from = st.map_end;
        let floor_at = segs.partition_point(|s| s.base <= from).checked_sub(1);
        let last_floor = segs
            .partition_point(|s| s.base <= last_offset)
            .checked_sub(1)
            .map(|i| segs[i].base);
        let end = segs.partition_point(|s| s.base < last_offset);
        let first = floor_at.unwrap_or(0).min(end);
        count_rebuild_work(end - first);
        for seg in &segs[first..end] {
            let start = seg.base.max(st.map_end).max(log_start);
            st.map_end = start;
            if offsets_to_snapshot.contains(&seg.base) {
                dir.take_snapshot(&mut st)?;
            }
            let bounded = Some(seg.base) == last_floor;
            // loadProducersFromRecords: one ProducerAppendInfo per producer over the read; the
            // new producers enter the map in the order a HashMap of that read iterates them.
            let mut seen: Vec<i64> = Vec::new();
            let mut seen_set: HashSet<i64> = HashSet::new();
            let mut new_pids = Vec::new();
            let mut completed = Vec::new();
            let mut started = false;
            each_batch(seg, scratch, |b| {
                if !started {
                    if b.last_offset < start {
                        return Flow::Continue;
                    }
                    started = true;
                }
                if bounded && b.last_offset >= last_offset {
                    return Flow::Stop;
                }
                if b.v2 && b.producer_id >= 0 {
                    if seen_set.insert(b.producer_id) {
                        seen.push(b.producer_id);
                    }
                    if let Some(c) = st.apply(b, &mut new_pids) {
                        completed.push(c);
                    }
                }
                Flow::Continue
            })?;
            let mut read_order = JavaLongHashOrder::default();
            for pid in &seen {
                read_order.insert(*pid);
            }
            let new: HashSet<i64> = new_pids.into_iter().collect();
            for pid in read_order.order() {
                if new.contains(&pid) {
                    st.order.insert(pid);
                }
            }
            for c in completed {
                st.ongoing.remove(&c.first);
            }
        }
    }
    st.map_end = last_offset;
    dir.take_snapshot(&mut st)?;
    Ok(st)
}

/// An ABORT marker a recovery replayed, with the first offset Kafka's state gave its transaction.
#[derive(Debug, Clone, Copy)]
struct AbortSeen {
    marker: i64,
    producer_id: i64,
    kafka_first: Option<i64>,
}

/// One segment recovery's replay.
#[derive(Debug, Default)]
struct Replayed {
    /// The `.txnindex` entries written.
    entries: Vec<AbortedTxn>,
    aborts: Vec<AbortSeen>,
    /// The snapshot the state was loaded from.
    from: Option<i64>,
}

/// `LogLoader.recoverSegment`: the state rebuilt to the segment's base, the segment replayed as
/// `LogSegment.recover` does (its `.txnindex` entries returned), a snapshot at its end.
fn recover_segment(
    dir: &mut Dir<'_>,
    segs: &[&SegmentView],
    seg: &SegmentView,
    scratch: &mut RecordScratch,
) -> io::Result<Replayed> {
    let log_start = dir.params.log_start_checkpoint;
    let mut st = rebuild(dir, segs, log_start, seg.base, false, scratch)?;
    let mut entries = Vec::new();
    // Every ABORT marker with Kafka's first offset for it: (marker, producer, first).
    let mut aborts = Vec::new();
    let mut new_pids = Vec::new();
    each_batch(seg, scratch, |b| {
        if !b.v2 {
            return Flow::Continue;
        }
        if b.producer_id >= 0 {
            let was_open = st.producers.get(&b.producer_id).and_then(|e| e.txn_first);
            let completed = st.apply(b, &mut new_pids);
            for pid in new_pids.drain(..) {
                st.order.insert(pid);
            }
            if let Some(Some((Marker::Abort, _, _))) = b.control {
                aborts.push(AbortSeen {
                    marker: b.base_offset,
                    producer_id: b.producer_id,
                    kafka_first: was_open,
                });
            }
            if let Some(c) = completed {
                let lso = st.complete(&c);
                if c.abort {
                    entries.push(AbortedTxn::new(c.producer_id, c.first, c.marker, lso));
                }
            }
        }
        st.map_end = b.last_offset.saturating_add(1);
        Flow::Continue
    })?;
    dir.take_snapshot(&mut st)?;
    Ok(Replayed {
        entries,
        aborts,
        from: st.loaded_from,
    })
}

/// Kafka's load of one partition's producer state. `snapshots`: the `.snapshot` files the load
/// plan leaves (offset, path); `segments`: every segment in offset order.
pub fn simulate(
    segments: &[SegmentView],
    snapshots: &[(i64, PathBuf)],
    params: &LoadParams,
    scratch: &mut RecordScratch,
) -> io::Result<ProducerLoad> {
    let mut dir = Dir {
        files: snapshots
            .iter()
            .map(|(o, p)| (*o, SnapshotFile::Input(p.clone())))
            .collect(),
        params,
        input: snapshots.iter().map(|(o, _)| *o).collect(),
        deleted: Vec::new(),
        written: Vec::new(),
        order_approximate: false,
    };
    // Per recovered segment (the last recovery of it).
    let mut replayed: BTreeMap<i64, Replayed> = BTreeMap::new();
    // 1. loadSegmentFiles: the segments loaded so far are those before.
    let all: Vec<&SegmentView> = segments.iter().collect();
    for (i, seg) in segments.iter().enumerate() {
        if seg.load_recovered {
            replayed.insert(
                seg.base,
                recover_segment(&mut dir, &all[..i], seg, scratch)?,
            );
        }
    }
    // 2. recoverLog, over every segment loaded.
    if !params.clean_shutdown {
        for seg in segments.iter().filter(|s| s.recovered) {
            replayed.insert(seg.base, recover_segment(&mut dir, &all, seg, scratch)?);
        }
    }
    // The deleted segments' snapshots, renamed `.deleted` by the log's own manager when it listed
    // them at its construction (UnifiedLog.deleteProducerSnapshots).
    for seg in segments.iter().filter(|s| s.deleted) {
        replayed.remove(&seg.base);
        if dir.input.contains(&seg.base) {
            dir.files.remove(&seg.base);
            dir.deleted.push(seg.base);
        }
    }
    let kept: Vec<&SegmentView> = segments.iter().filter(|s| !s.deleted).collect();
    let bases: Vec<i64> = if kept.is_empty() {
        vec![params.log_start_checkpoint]
    } else {
        kept.iter().map(|s| s.base).collect()
    };
    // 3. removeStraySnapshots, then the log's own rebuild to the log end.
    let max_base = bases.iter().copied().max();
    let base_set: HashSet<i64> = bases.iter().copied().collect();
    let strays: Vec<i64> = dir
        .files
        .keys()
        .copied()
        .filter(|o| !base_set.contains(o))
        .collect();
    if let Some((&largest, rest)) = strays.split_last() {
        for o in rest {
            dir.remove(*o);
        }
        if max_base.is_some_and(|m| largest < m) {
            dir.remove(largest);
        }
    }
    let new_log_start = params
        .log_start_checkpoint
        .max(bases.first().copied().unwrap_or(0));
    rebuild(
        &mut dir,
        &kept,
        new_log_start,
        params.log_end,
        params.clean_shutdown,
        scratch,
    )?;

    // Kafka's state is the log's own unless a snapshot fed it.
    let stale = if params.check_stale
        && replayed
            .values()
            .any(|r| !r.aborts.is_empty() && r.from.is_some())
    {
        stale_aborts(&kept, &replayed, params, scratch)?
    } else {
        Vec::new()
    };
    let deleted = dir.deleted.clone();
    let written = dir.written.clone();
    Ok(ProducerLoad {
        snapshots: dir.files,
        txn_indexes: replayed
            .into_iter()
            .map(|(base, r)| (base, r.entries))
            .collect(),
        deleted,
        written,
        stale,
        order_approximate: dir.order_approximate,
    })
}

/// The whole log replayed from its start, without snapshots: each ABORT marker's true first
/// offset, against Kafka's in the recovered segments. A producer's state counts as known from
/// the log start when the log starts at offset 0, otherwise after its first marker or
/// non-transactional batch.
fn stale_aborts(
    kept: &[&SegmentView],
    replayed: &BTreeMap<i64, Replayed>,
    params: &LoadParams,
    scratch: &mut RecordScratch,
) -> io::Result<Vec<StaleAbort>> {
    let complete_history =
        params.log_start_checkpoint <= 0 && kept.first().is_none_or(|s| s.base == 0);
    let mut open: HashMap<i64, i64> = HashMap::new();
    let mut known: HashSet<i64> = HashSet::new();
    // Marker offset → (producer, true first offset) where the state was known.
    let mut truth: HashMap<i64, (i64, Option<i64>)> = HashMap::new();
    let last_replayed = replayed.keys().next_back().copied().unwrap_or(i64::MIN);
    for seg in kept.iter().filter(|s| s.base <= last_replayed) {
        let in_replayed = replayed.contains_key(&seg.base);
        each_batch(seg, scratch, |b| {
            if !b.v2 || b.producer_id < 0 {
                return Flow::Continue;
            }
            let pid = b.producer_id;
            let is_known = complete_history || known.contains(&pid);
            match b.control {
                Some(Some((marker, _, _))) if !matches!(marker, Marker::Other) => {
                    if in_replayed && matches!(marker, Marker::Abort) && is_known {
                        truth.insert(b.base_offset, (pid, open.get(&pid).copied()));
                    }
                    open.remove(&pid);
                    known.insert(pid);
                }
                Some(_) => {}
                None => {
                    if b.transactional {
                        open.entry(pid).or_insert(b.base_offset);
                    } else {
                        open.remove(&pid);
                        known.insert(pid);
                    }
                }
            }
            Flow::Continue
        })?;
    }
    let mut out = Vec::new();
    for (base, r) in replayed {
        for a in &r.aborts {
            let Some(&(_, true_first)) = truth.get(&a.marker) else {
                continue;
            };
            if a.kafka_first != true_first {
                out.push(StaleAbort {
                    segment_base: *base,
                    producer_id: a.producer_id,
                    marker_offset: a.marker,
                    kafka_first: a.kafka_first,
                    true_first,
                    snapshot: r.from,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pieces::scan_entries_in_pieces;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};

    fn data(base: i64, n: usize, pid: i64, txn: bool, ts: i64) -> Vec<u8> {
        let records: Vec<NewRecord<'_>> = (0..n)
            .map(|_| NewRecord {
                timestamp: ts,
                key: None,
                value: Some(b"v"),
                headers: &[],
            })
            .collect();
        let mut out = Vec::new();
        encode_batch(
            &mut out,
            &NewBatch {
                base_offset: base,
                transactional: txn,
                producer_id: pid,
                producer_epoch: 0,
                base_sequence: if pid >= 0 { base as i32 } else { -1 },
                ..Default::default()
            },
            &records,
            &mut Vec::new(),
        );
        out
    }

    fn marker(offset: i64, pid: i64, abort: bool, ts: i64) -> Vec<u8> {
        let key = [0u8, 0, 0, if abort { 0 } else { 1 }];
        let value = [0u8, 0, 0, 0, 0, 5];
        let mut out = Vec::new();
        encode_batch(
            &mut out,
            &NewBatch {
                base_offset: offset,
                transactional: true,
                control: true,
                producer_id: pid,
                producer_epoch: 0,
                ..Default::default()
            },
            &[NewRecord {
                timestamp: ts,
                key: Some(&key),
                value: Some(&value),
                headers: &[],
            }],
            &mut Vec::new(),
        );
        out
    }

    fn view(dir: &std::path::Path, base: i64, bytes: &[u8]) -> SegmentView {
        let path = dir.join(format!("{base:020}.log"));
        std::fs::write(&path, bytes).unwrap();
        SegmentView {
            base,
            path,
            len: bytes.len() as u64,
            load_recovered: false,
            recovered: false,
            deleted: false,
            batches: None,
        }
    }

    fn params(clean: bool, log_end: i64) -> LoadParams {
        LoadParams {
            clean_shutdown: clean,
            log_start_checkpoint: 0,
            log_end,
            now_ms: None,
            expiration_ms: DEFAULT_PRODUCER_ID_EXPIRATION_MS,
            check_stale: true,
        }
    }

    fn entries(f: &SnapshotFile) -> Vec<ProducerEntry> {
        match f {
            SnapshotFile::Written(b) => parse_producer_snapshot(b).unwrap().entries,
            SnapshotFile::Input(p) => {
                parse_producer_snapshot(&std::fs::read(p).unwrap())
                    .unwrap()
                    .entries
            }
        }
    }

    /// The view with its batches gathered by a scan (as verify's pass gathers them), within
    /// `budget` entries.
    fn gathered(mut v: SegmentView, budget: usize) -> SegmentView {
        struct Nothing;
        impl EntrySink for Nothing {
            fn entry(&mut self, _: u64, _: &BatchInfo, _: Option<&LogEntry<'_>>) {}
            fn problem(&mut self, _: &LogProblem<'_>) {}
        }
        let mut collector = BatchCollector::new(budget);
        let mut src = open_log(&v.path, false).unwrap();
        scan_entries_in_pieces(
            src.as_mut(),
            &v.path,
            &ScanOptions::default(),
            u64::MAX,
            &mut RecordScratch::default(),
            &mut Gathering {
                sink: &mut Nothing,
                collector: &mut collector,
            },
        )
        .unwrap();
        v.batches = collector.finish().0;
        v
    }

    /// Everything a load says, comparable.
    fn outcome(load: &ProducerLoad) -> String {
        let snaps: Vec<(i64, Vec<ProducerEntry>)> = load
            .snapshots
            .iter()
            .map(|(o, f)| (*o, entries(f)))
            .collect();
        format!(
            "{snaps:?} {:?} {:?} {:?} {:?}",
            load.txn_indexes, load.deleted, load.written, load.stale
        )
    }

    #[test]
    fn gathered_batches_load_as_the_files_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        // Transactions of two producers, a non-idempotent batch last in each segment (it still
        // moves the replay's end), a segment cut short by recovery (`len`).
        let mut seg0 = data(0, 2, 7, true, 100);
        seg0.extend(data(2, 2, 8, true, 101));
        seg0.extend(data(4, 3, -1, false, 101));
        let mut seg1 = marker(7, 7, true, 102);
        seg1.extend(data(8, 2, 9, false, 103));
        seg1.extend(data(10, 1, -1, false, 104));
        let cut_at = seg1.len() as u64;
        seg1.extend(marker(11, 8, false, 105));
        let views = || {
            let a = view(tmp.path(), 0, &seg0);
            let mut b = view(tmp.path(), 7, &seg1);
            b.recovered = true;
            b.len = cut_at;
            vec![a, b]
        };
        let want = simulate(
            &views(),
            &[],
            &params(false, 11),
            &mut RecordScratch::default(),
        )
        .unwrap();
        for budget in [PRODUCER_BATCH_BUDGET, 2] {
            let kept: Vec<SegmentView> = views().into_iter().map(|v| gathered(v, budget)).collect();
            assert_eq!(kept[0].batches.is_some(), budget > 3, "budget {budget}");
            let got = simulate(
                &kept,
                &[],
                &params(false, 11),
                &mut RecordScratch::default(),
            )
            .unwrap();
            assert_eq!(outcome(&got), outcome(&want), "budget {budget}");
        }
        assert_eq!(want.txn_indexes[&7], vec![AbortedTxn::new(7, 0, 7, 2)]);
    }

    #[test]
    fn a_clean_load_without_snapshots_writes_empty_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let a = view(tmp.path(), 0, &data(0, 3, 7, false, 100));
        let b = view(tmp.path(), 3, &data(3, 2, 7, false, 100));
        let load = simulate(
            &[a, b],
            &[],
            &params(true, 5),
            &mut RecordScratch::default(),
        )
        .unwrap();
        // Snapshots at the last two bases (0 is not past the start) and the log end, empty.
        assert_eq!(
            load.snapshots.keys().copied().collect::<Vec<_>>(),
            vec![3, 5]
        );
        assert!(load.snapshots.values().all(|f| entries(f).is_empty()));
    }

    #[test]
    fn recovery_writes_a_snapshot_per_segment_and_rebuilds_the_txn_index() {
        let tmp = tempfile::tempdir().unwrap();
        // Producer 7 opens a transaction at 0, producer 8 at 2; 7 aborts at 4 (LSO: 8's first
        // offset, 2), 8 commits at 5.
        let mut seg0 = data(0, 2, 7, true, 100);
        seg0.extend(data(2, 2, 8, true, 101));
        let mut seg1 = marker(4, 7, true, 102);
        seg1.extend(marker(5, 8, false, 103));
        let a = view(tmp.path(), 0, &seg0);
        let mut b = view(tmp.path(), 4, &seg1);
        b.recovered = true;
        let load = simulate(
            &[a, b],
            &[],
            &params(false, 6),
            &mut RecordScratch::default(),
        )
        .unwrap();
        assert_eq!(
            load.txn_indexes[&4],
            vec![AbortedTxn::new(7, 0, 4, 2)],
            "the abort's entry"
        );
        // Rebuilding to 4 snapshots the second-last base (0: not past the start) and 4; the
        // recovery one at 6 (the log end).
        assert_eq!(
            load.snapshots.keys().copied().collect::<Vec<_>>(),
            vec![4, 6]
        );
        let at4 = entries(&load.snapshots[&4]);
        assert_eq!(at4.len(), 2);
        assert!(at4.iter().all(|e| e.current_txn_first_offset >= 0));
        let at6 = entries(&load.snapshots[&6]);
        assert_eq!(
            at6.iter()
                .map(|e| (e.producer_id, e.current_txn_first_offset, e.timestamp))
                .collect::<Vec<_>>(),
            vec![(7, -1, 102), (8, -1, 103)]
        );
        assert!(load.stale.is_empty());
    }

    #[test]
    fn a_stale_snapshot_makes_the_abort_entry_wrong() {
        let tmp = tempfile::tempdir().unwrap();
        // Producer 7's transaction starts at 0 and aborts at 6; a snapshot at 4 says it began
        // at 2.
        let seg0 = [data(0, 2, 7, true, 100), data(2, 2, 7, true, 100)].concat();
        let seg1 = [data(4, 2, 7, true, 100), marker(6, 7, true, 101)].concat();
        let a = view(tmp.path(), 0, &seg0);
        let mut b = view(tmp.path(), 4, &seg1);
        b.recovered = true;
        let stale = ProducerEntry {
            producer_id: 7,
            epoch: 0,
            last_sequence: 3,
            last_offset: 3,
            offset_delta: 1,
            timestamp: 100,
            coordinator_epoch: -1,
            current_txn_first_offset: 2,
        };
        let snap = tmp.path().join("00000000000000000004.snapshot");
        std::fs::write(&snap, encode_producer_snapshot(&[stale]).unwrap()).unwrap();
        let load = simulate(
            &[a, b],
            &[(4, snap)],
            &params(false, 7),
            &mut RecordScratch::default(),
        )
        .unwrap();
        assert_eq!(load.txn_indexes[&4], vec![AbortedTxn::new(7, 2, 6, 7)]);
        assert_eq!(load.stale.len(), 1);
        let s = &load.stale[0];
        assert_eq!(
            (s.kafka_first, s.true_first, s.snapshot),
            (Some(2), Some(0), Some(4))
        );
        assert_eq!(s.exposed(), Some((0, 1)));
    }

    #[test]
    fn strays_but_the_largest_above_the_last_base_go() {
        let tmp = tempfile::tempdir().unwrap();
        let a = view(tmp.path(), 0, &data(0, 5, 7, false, 100));
        let b = view(tmp.path(), 5, &data(5, 5, 7, false, 100));
        let mut snaps = Vec::new();
        for o in [2, 5, 7, 9] {
            let p = tmp.path().join(format!("{o:020}.snapshot"));
            std::fs::write(&p, encode_producer_snapshot(&[]).unwrap()).unwrap();
            snaps.push((o, p));
        }
        let load = simulate(
            &[a, b],
            &snaps,
            &params(true, 10),
            &mut RecordScratch::default(),
        )
        .unwrap();
        // 2 and 7 are strays below 9; 9 is the largest stray; the log end (10) gets one.
        assert_eq!(
            load.snapshots.keys().copied().collect::<Vec<_>>(),
            vec![5, 9, 10]
        );
        assert_eq!(load.deleted, vec![2, 7]);
    }
}
