//! Transactions from disk: the coordinator's view (`__transaction_state`, last value per
//! transactional id) and the data partitions' view (transactional batches with no COMMIT/ABORT
//! marker after them: open or hanging transactions).

use std::collections::{BTreeMap, HashMap};
use std::io;

use crate::fault::{Undecodable, UndecodableWhy};
use kseg_format::control::ControlType;
use kseg_format::coordinator::{
    is_known_transaction_record_type, parse_transaction_key, parse_transaction_value,
    transaction_state_name, TransactionLog, TransactionState as CoordinatorState,
};
use kseg_format::log::{for_each_record, BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::FileKind;
use kseg_storage::source::open_log;

#[derive(Debug, Clone)]
pub struct TransactionalId {
    pub id: String,
    pub coordinator_partition: i32,
    pub state: TransactionLog,
    pub record_offset: i64,
}

impl TransactionalId {
    pub fn state_name(&self) -> String {
        transaction_state_name(self.state.status)
            .map_or(self.state.status.to_string(), str::to_string)
    }
}

struct StateSink<'a> {
    partition: i32,
    ids: &'a mut BTreeMap<String, TransactionalId>,
    undecodable: &'a mut Vec<Undecodable>,
    unknown_types: &'a mut Vec<(i32, i64, i16)>,
}

impl LogSink for StateSink<'_> {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, _b: &BatchInfo) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    fn record(&mut self, _p: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if b.is_control {
            return Ok(Flow::Continue);
        }
        let Some(key) = r.key else {
            return Ok(Flow::Continue);
        };
        if let Some(t) = key.get(..2).map(|b| i16::from_be_bytes([b[0], b[1]])) {
            if !is_known_transaction_record_type(t) {
                // TransactionStateManager: "Unknown message key with version ... Ignoring it."
                self.unknown_types.push((self.partition, r.offset, t));
                return Ok(Flow::Continue);
            }
        }
        let id = match parse_transaction_key(key) {
            Ok(id) => id,
            Err(e) => {
                self.undecodable.push(Undecodable {
                    partition: self.partition,
                    offset: r.offset,
                    why: UndecodableWhy::Decode(e),
                });
                return Ok(Flow::Continue);
            }
        };
        match r.value {
            None => {
                self.ids.remove(&id);
            }
            Some(v) => match parse_transaction_value(v) {
                Ok(state) => {
                    self.ids.insert(
                        id.clone(),
                        TransactionalId {
                            id,
                            coordinator_partition: self.partition,
                            state,
                            record_offset: r.offset,
                        },
                    );
                }
                Err(e) => self.undecodable.push(Undecodable {
                    partition: self.partition,
                    offset: r.offset,
                    why: UndecodableWhy::Decode(e),
                }),
            },
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// What the `__transaction_state` partitions hold, replayed as the coordinator loads them.
#[derive(Debug, Default)]
pub struct TransactionState {
    pub ids: BTreeMap<String, TransactionalId>,
    /// Records that could not be decoded.
    pub undecodable: Vec<Undecodable>,
    /// Records whose key version this kseg does not know, skipped as Kafka skips them:
    /// (coordinator partition, offset, key version).
    pub unknown_types: Vec<(i32, i64, i16)>,
}

pub fn transactional_ids(partitions: &[&PartitionDir]) -> io::Result<TransactionState> {
    let mut ids = BTreeMap::new();
    let mut undecodable = Vec::new();
    let mut unknown_types = Vec::new();
    let mut scratch = RecordScratch::default();
    let opts = ScanOptions {
        deep: true,
        ..Default::default()
    };
    for p in partitions {
        let mut sink = StateSink {
            partition: p.name.partition,
            ids: &mut ids,
            undecodable: &mut undecodable,
            unknown_types: &mut unknown_types,
        };
        for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
            let mut src = open_log(&f.path, false)?;
            scan_log(src.as_mut(), &opts, &mut scratch, &mut sink)?;
        }
    }
    Ok(TransactionState {
        ids,
        undecodable,
        unknown_types,
    })
}

/// A transaction with data in a partition and no marker after it.
#[derive(Debug, Clone)]
pub struct OpenTransaction {
    pub topic: String,
    pub partition: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub first_offset: i64,
    pub last_offset: i64,
    pub first_timestamp: i64,
    /// How long it has been open up to the newest write in the dir: the newest timestamp of
    /// the partitions read minus the transaction's first ([`set_ages`]).
    pub age_ms: Option<i64>,
    /// What it blocks: the partition's last stable offset (the first offset of its earliest
    /// open transaction), where read_committed consumers stop and the log cleaner cannot pass
    /// (`UnifiedLog.lastStableOffset`, `LogCleanerManager`'s first unstable offset).
    pub last_stable_offset: i64,
    /// The data records at or after the last stable offset: invisible to read_committed
    /// consumers until the transactions before them end.
    pub records_held: u64,
    /// The partition's log end offset.
    pub log_end: i64,
}

/// Sets each open transaction's age: from its first timestamp to `newest`, the newest write in
/// the dir (a transaction open two minutes in a dir written until now is two minutes old, even
/// when its own partition got nothing after it).
pub fn set_ages(open: &mut [OpenTransaction], newest: Option<i64>) {
    for t in open {
        t.age_ms = newest
            .filter(|_| t.first_timestamp >= 0)
            .map(|n| (n - t.first_timestamp).max(0));
    }
}

/// What the coordinator state says of an open transaction.
#[derive(Debug, Clone)]
pub struct OpenVerdict {
    /// The transactional id and coordinator state of its producer, when known here.
    pub coordinator: Option<(String, String)>,
    /// An Ongoing transaction's end: its coordinator aborts it at its start plus
    /// `transaction.timeout.ms` (`TransactionCoordinator.abortTimedOutTransactions`), once a
    /// broker runs; (that time, the timeout).
    pub aborted_at: Option<(i64, i32)>,
    pub status: OpenStatus,
    /// Open in the data while the coordinator has finished it: no marker will come, and
    /// read_committed consumers are blocked.
    pub hanging: bool,
}

/// What an open transaction is, as far as the coordinator state here tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenStatus {
    /// The coordinator has it ongoing or preparing its end: the marker is still to come.
    InProgress,
    /// The coordinator has finished the producer's transaction: no marker will come.
    Hanging,
    /// No `__transaction_state` partition among the inputs.
    NoCoordinatorState,
    /// No coordinator record for the producer here (its partition may be on another broker,
    /// or the id expired).
    NoCoordinatorRecord,
}

/// The verdict on `t`: a transaction still open in a partition while its producer's
/// coordinator state is complete (or gone) will never get its marker, it is hanging.
/// `have_state` says whether any `__transaction_state` partition was read.
pub fn judge_open(t: &OpenTransaction, state: &TransactionState, have_state: bool) -> OpenVerdict {
    let id = state
        .ids
        .values()
        .find(|i| i.state.producer_id == t.producer_id);
    let status = match id.map(|i| i.state.state()) {
        Some(Some(
            CoordinatorState::Ongoing
            | CoordinatorState::PrepareCommit
            | CoordinatorState::PrepareAbort
            | CoordinatorState::PrepareEpochFence,
        )) => OpenStatus::InProgress,
        Some(_) => OpenStatus::Hanging,
        None if !have_state => OpenStatus::NoCoordinatorState,
        None => OpenStatus::NoCoordinatorRecord,
    };
    let aborted_at = id
        .filter(|i| i.state.state() == Some(CoordinatorState::Ongoing))
        .filter(|i| i.state.start_timestamp >= 0)
        .map(|i| {
            (
                i.state.start_timestamp + i64::from(i.state.timeout_ms),
                i.state.timeout_ms,
            )
        });
    OpenVerdict {
        coordinator: id.map(|i| (i.id.clone(), i.state_name())),
        aborted_at,
        status,
        hanging: status == OpenStatus::Hanging,
    }
}

/// The transactions a walk of batch headers leaves open: transactional data batches with no
/// marker of their producer after them.
#[derive(Default)]
pub struct OpenSink {
    /// Producer id -> (epoch, first offset, last offset, first timestamp, data records before
    /// its first batch).
    open: HashMap<i64, (i16, i64, i64, i64, u64)>,
    newest: Option<i64>,
    /// Data records walked so far, and the offset after the last batch.
    data_records: u64,
    log_end: i64,
}

impl LogSink for OpenSink {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        if b.max_timestamp >= 0 {
            self.newest = Some(
                self.newest
                    .map_or(b.max_timestamp, |n| n.max(b.max_timestamp)),
            );
        }
        self.log_end = self.log_end.max(b.last_offset + 1);
        let before = self.data_records;
        if !b.is_control {
            // A legacy wrapper declares no count: its offsets say how many it holds.
            let n = b.count.map_or(b.last_offset - b.base_offset + 1, i64::from);
            self.data_records += n.max(0) as u64;
        }
        if !b.is_transactional || b.producer_id < 0 {
            return Ok(Flow::Continue);
        }
        if b.is_control {
            // A COMMIT or ABORT marker closes whatever the producer had open here.
            self.open.remove(&b.producer_id);
        } else {
            let e = self.open.entry(b.producer_id).or_insert((
                b.producer_epoch,
                b.base_offset,
                b.last_offset,
                b.first_timestamp,
                before,
            ));
            e.0 = b.producer_epoch;
            e.2 = b.last_offset;
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The open transactions of one partition, and its newest timestamp.
pub struct OpenScan {
    pub open: Vec<OpenTransaction>,
    pub newest: Option<i64>,
}

/// Transactional batches of `p` with no later marker of their producer (headers only): each
/// one's ages are left to [`set_ages`], which needs the whole dir's newest write.
pub fn open_transactions(p: &PartitionDir, scratch: &mut RecordScratch) -> io::Result<OpenScan> {
    let mut sink = OpenSink::default();
    for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
        let mut src = open_log(&f.path, false)?;
        scan_log(src.as_mut(), &ScanOptions::default(), scratch, &mut sink)?;
    }
    // The earliest open transaction holds the last stable offset, and every record from there.
    let held = sink.open.values().map(|e| (e.1, e.4)).min();
    let (last_stable_offset, records_before) = held.unwrap_or((sink.log_end, sink.data_records));
    let mut out: Vec<OpenTransaction> = sink
        .open
        .into_iter()
        .map(|(pid, (epoch, first, last, ts, _))| OpenTransaction {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            producer_id: pid,
            producer_epoch: epoch,
            first_offset: first,
            last_offset: last,
            first_timestamp: ts,
            age_ms: None,
            last_stable_offset,
            records_held: sink.data_records - records_before,
            log_end: sink.log_end,
        })
        .collect();
    out.sort_by_key(|t| t.first_offset);
    Ok(OpenScan {
        open: out,
        newest: sink.newest,
    })
}

/// How the transactional data batches of one partition ended, read from the COMMIT and ABORT
/// markers in the log itself: what a `read_committed` consumer is given once every transaction
/// is over. A transaction with no marker (open or hanging) counts as not committed: its
/// coordinator aborts it when it times out.
#[derive(Debug, Default)]
pub struct TxnOutcomes {
    /// Base offsets of the transactional batches not committed: true when aborted, false when
    /// never ended.
    pub not_committed: HashMap<i64, bool>,
    pub committed_batches: u64,
    pub aborted_batches: u64,
    pub open_batches: u64,
    /// Records of the data (not control) batches, by their headers' counts.
    pub data_records: u64,
    /// Of those, the records of transactions not committed.
    pub not_committed_records: u64,
}

impl TxnOutcomes {
    /// Whether the records of the batch based at `base_offset` were committed (or are not
    /// transactional at all).
    pub fn committed(&self, info: &BatchInfo) -> bool {
        !(info.is_transactional && self.not_committed.contains_key(&info.base_offset))
    }

    /// Whether the batch belongs to an aborted transaction.
    pub fn aborted(&self, info: &BatchInfo) -> bool {
        info.is_transactional && self.not_committed.get(&info.base_offset) == Some(&true)
    }
}

#[derive(Default)]
struct OutcomeSink {
    scratch: RecordScratch,
    /// Producer id -> (base offset, record count) of its batches since its last marker.
    pending: HashMap<i64, Vec<(i64, u64)>>,
    outcomes: TxnOutcomes,
}

impl LogSink for OutcomeSink {
    fn batch(&mut self, _p: u64, e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let count = b.count.map_or(1, |c| c.max(0) as u64);
        if !b.is_control {
            self.outcomes.data_records += count;
        }
        if !b.is_transactional || b.producer_id < 0 {
            return Ok(Flow::Continue);
        }
        if !b.is_control {
            self.pending
                .entry(b.producer_id)
                .or_default()
                .push((b.base_offset, count));
            return Ok(Flow::Continue);
        }
        // A marker decides every batch its producer wrote since the previous one; a marker
        // whose control record cannot be read aborts, as ABORT is the only safe reading.
        let mut commit = false;
        let _ = for_each_record(e, &mut self.scratch, |r| {
            // ControlRecordType.parse: the type is the key's second int16.
            if let Some(k) = r.key.and_then(|k| k.get(2..4)) {
                commit =
                    ControlType::from_id(i16::from_be_bytes([k[0], k[1]])) == ControlType::Commit;
            }
        });
        let batches = self.pending.remove(&b.producer_id).unwrap_or_default();
        let o = &mut self.outcomes;
        if commit {
            o.committed_batches += batches.len() as u64;
        } else {
            o.aborted_batches += batches.len() as u64;
            o.not_committed_records += batches.iter().map(|b| b.1).sum::<u64>();
            o.not_committed
                .extend(batches.into_iter().map(|b| (b.0, true)));
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The outcome of every transaction in `p` (batch headers only, every segment in order).
pub fn transaction_outcomes(
    p: &PartitionDir,
    scratch: &mut RecordScratch,
) -> io::Result<TxnOutcomes> {
    let mut sink = OutcomeSink::default();
    for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
        let mut src = open_log(&f.path, false)?;
        scan_log(src.as_mut(), &ScanOptions::default(), scratch, &mut sink)?;
    }
    let mut outcomes = sink.outcomes;
    for (_, batches) in sink.pending {
        outcomes.open_batches += batches.len() as u64;
        outcomes.not_committed_records += batches.iter().map(|b| b.1).sum::<u64>();
        outcomes
            .not_committed
            .extend(batches.into_iter().map(|b| (b.0, false)));
    }
    Ok(outcomes)
}

/// The transactional state of a record (`kseg grep --txn-state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxnState {
    /// Not in a transaction: a batch without the transactional flag or without a producer id
    /// (legacy v0/v1 messages included).
    NonTransactional,
    /// In a transaction its COMMIT marker ended (or one still open whose producer has not been
    /// seen open: see [`TxnView`]).
    Committed,
    /// In a transaction Kafka's fetch reports aborted.
    Aborted,
    /// In a transaction with no marker after it in the log: a read_committed consumer is held
    /// at its first offset (the last stable offset).
    Open,
}

impl TxnState {
    pub fn name(self) -> &'static str {
        match self {
            TxnState::NonTransactional => "non-transactional",
            TxnState::Committed => "committed",
            TxnState::Aborted => "aborted",
            TxnState::Open => "open",
        }
    }
}

/// One partition's transactions as a `read_committed` consumer is given them, walked batch by
/// batch in offset order. Kafka's fetch (`UnifiedLog.read` / `LocalLog.collectAbortedTransactions`)
/// returns the aborted transactions of the `.txnindex` files, `(producerId, firstOffset)`, from
/// the segment holding the fetch offset on, whose last offset is at or after it; the consumer
/// (`CompletedFetch.nextFetchedRecord`) walks the batches: at each batch with a producer id it
/// takes the aborted transactions whose first offset is at or below the batch's last offset into
/// its aborted producer set; an ABORT marker of a producer in the set takes it out again, and a
/// transactional data batch of a producer in the set is skipped as aborted. Control batches
/// are never given to the application. A read_committed fetch also ends at the last stable
/// offset: the first offset of the earliest transaction still open.
///
/// The markers themselves are compared with the index: an ABORT marker whose producer was not
/// taken in from the index (a missing or stale `.txnindex`) and index entries no marker ended
/// are collected for the caller to report; the consumer's answer follows the index, as Kafka's.
#[derive(Default)]
pub struct TxnView {
    /// Aborted transactions not yet taken in, by first offset (the consumer's priority queue).
    pending: Vec<kseg_format::txn_index::AbortedTxn>,
    next: usize,
    /// Producers inside an aborted transaction, with the index entry's last offset.
    aborted_producers: HashMap<i64, i64>,
    /// Producer -> first offset of its transaction with no marker after it, when known.
    open: Option<HashMap<i64, i64>>,
    /// The smallest of those first offsets.
    last_stable: Option<i64>,
    scratch: RecordScratch,
    /// ABORT markers (offset, producer id) whose transaction the index does not list.
    pub unindexed_aborts: Vec<(i64, i64)>,
    /// The last offset walked.
    walked_to: Option<i64>,
    /// The next batch may come after batches not walked (a seek): start afresh there.
    resumed: bool,
}

impl TxnView {
    /// The view of a partition read from `start` on, from the aborted transactions of its
    /// `.txnindex` files (any order) and, when known, the open transactions (producer id ->
    /// first offset, [`open_transaction_starts`]).
    pub fn new(
        aborted: Vec<kseg_format::txn_index::AbortedTxn>,
        open: Option<HashMap<i64, i64>>,
        start: i64,
    ) -> TxnView {
        let mut pending: Vec<_> = aborted
            .into_iter()
            .filter(|t| t.last_offset >= start)
            .collect();
        pending.sort_by_key(|t| t.first_offset);
        TxnView {
            pending,
            last_stable: open.as_ref().and_then(|o| o.values().copied().min()),
            open,
            ..TxnView::default()
        }
    }

    /// Whether open transactions are known (then [`TxnState::Open`] and
    /// [`TxnView::last_stable_offset`] are answered).
    pub fn knows_open(&self) -> bool {
        self.open.is_some()
    }

    /// The first offset of the earliest open transaction: a read_committed consumer is given
    /// nothing at or after it. `None` when none is open (or open ones are not known).
    #[inline]
    pub fn last_stable_offset(&self) -> Option<i64> {
        self.last_stable
    }

    /// The producer and first offset of the open transaction holding the last stable offset.
    pub fn first_open(&self) -> Option<(i64, i64)> {
        self.open
            .as_ref()?
            .iter()
            .map(|(p, f)| (*p, *f))
            .min_by_key(|(p, f)| (*f, *p))
    }

    /// The state of the records of the next batch (every batch must be shown, in offset order,
    /// pruned or not). A marker has the state of the transaction it ends: ABORT aborted, COMMIT
    /// committed.
    pub fn batch_state(&mut self, entry: &LogEntry<'_>, b: &BatchInfo) -> TxnState {
        if std::mem::take(&mut self.resumed) {
            self.restart_at(b.base_offset);
        }
        self.walked_to = Some(b.last_offset);
        // RecordBatch.hasProducerId: legacy messages and batches without one are never aborted.
        if b.producer_id < 0 {
            return TxnState::NonTransactional;
        }
        while let Some(t) = self.pending.get(self.next) {
            if t.first_offset > b.last_offset {
                break;
            }
            self.aborted_producers.insert(t.producer_id, t.last_offset);
            self.next += 1;
        }
        if b.is_control {
            if !b.is_transactional {
                return TxnState::NonTransactional;
            }
            if self.is_abort_marker(entry) {
                if self.aborted_producers.remove(&b.producer_id).is_none() {
                    self.unindexed_aborts.push((b.base_offset, b.producer_id));
                }
                return TxnState::Aborted;
            }
            return TxnState::Committed;
        }
        if !b.is_transactional {
            return TxnState::NonTransactional;
        }
        if self.aborted_producers.contains_key(&b.producer_id) {
            return TxnState::Aborted;
        }
        match &self.open {
            Some(open)
                if open
                    .get(&b.producer_id)
                    .is_some_and(|&f| f <= b.base_offset) =>
            {
                TxnState::Open
            }
            _ => TxnState::Committed,
        }
    }

    /// The walk goes on after a seek: batches may have been skipped before the next one.
    pub fn resume(&mut self) {
        self.resumed = true;
    }

    /// As a fetch from `offset` would begin: the aborted transactions whose ABORT marker lies
    /// before it (skipped) are over. Without a gap it changes nothing: those markers were
    /// walked and ended them already.
    fn restart_at(&mut self, offset: i64) {
        self.aborted_producers.retain(|_, last| *last >= offset);
        let next = self.next;
        let mut i = 0;
        self.pending.retain(|t| {
            i += 1;
            i > next && t.last_offset >= offset
        });
        self.next = 0;
    }

    /// `containsAbortMarker`: the first record's control type (the key's second int16) is ABORT.
    fn is_abort_marker(&mut self, entry: &LogEntry<'_>) -> bool {
        let mut first = None;
        let _ = for_each_record(entry, &mut self.scratch, |r| {
            if first.is_none() {
                first = Some(
                    r.key
                        .and_then(|k| k.get(2..4))
                        .map(|k| ControlType::from_id(i16::from_be_bytes([k[0], k[1]]))),
                );
            }
        });
        first.flatten() == Some(ControlType::Abort)
    }

    /// Index entries (producer id, last offset) taken in whose ABORT marker was walked past
    /// without being seen: the `.txnindex` lists an abort the log does not hold there.
    pub fn unended_index_entries(&self) -> Vec<(i64, i64)> {
        let Some(walked) = self.walked_to else {
            return Vec::new();
        };
        let mut out: Vec<(i64, i64)> = self
            .aborted_producers
            .iter()
            .filter(|(_, &last)| last <= walked)
            .map(|(&p, &last)| (p, last))
            .collect();
        out.sort_by_key(|&(p, last)| (last, p));
        out
    }
}

/// Producer id -> first offset of each transaction with no COMMIT or ABORT marker after it in
/// `files` (one partition's segments in offset order; batch headers only, control batches'
/// records aside).
pub fn open_transaction_starts<'p>(
    files: impl IntoIterator<Item = &'p std::path::Path>,
    scratch: &mut RecordScratch,
) -> io::Result<HashMap<i64, i64>> {
    let mut sink = OpenSink::default();
    // Problems are the search's to report; the checksums too.
    let opts = ScanOptions {
        check_crc: false,
        ..ScanOptions::default()
    };
    for f in files {
        let mut src = open_log(f, false)?;
        scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
    }
    Ok(sink.starts())
}

impl OpenSink {
    /// Producer id -> first offset of its open transaction.
    pub fn starts(self) -> HashMap<i64, i64> {
        self.open.into_iter().map(|(p, v)| (p, v.1)).collect()
    }
}

#[cfg(test)]
mod view_tests {
    use super::*;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
    use kseg_format::txn_index::AbortedTxn;

    /// A one-record batch of producer `pid` at `offset`: transactional data, or a marker
    /// (`Some(true)` COMMIT, `Some(false)` ABORT).
    fn batch(offset: i64, pid: i64, transactional: bool, marker: Option<bool>) -> Vec<u8> {
        let key = [0, 0, 0, u8::from(marker == Some(true))];
        let r = NewRecord {
            timestamp: 0,
            key: Some(if marker.is_some() { &key } else { b"k" }),
            value: Some(if marker.is_some() {
                &[0, 0, 0, 0, 0, 0]
            } else {
                b"v"
            }),
            headers: &[],
        };
        let b = NewBatch {
            base_offset: offset,
            transactional,
            control: marker.is_some(),
            producer_id: pid,
            producer_epoch: 0,
            ..NewBatch::default()
        };
        let mut out = Vec::new();
        encode_batch(&mut out, &b, &[r], &mut Vec::new());
        out
    }

    fn states(view: &mut TxnView, batches: &[Vec<u8>]) -> Vec<TxnState> {
        batches
            .iter()
            .map(|b| {
                let e = LogEntry::parse(b).unwrap();
                view.batch_state(&e, &e.info())
            })
            .collect()
    }

    fn aborted(pid: i64, first: i64, last: i64) -> AbortedTxn {
        AbortedTxn {
            version: 0,
            producer_id: pid,
            first_offset: first,
            last_offset: last,
            last_stable_offset: last + 1,
        }
    }

    /// Producer 1 aborts offsets 0-1 (marker 2), producer 2 commits 1 (marker 3), producer 1
    /// writes 4 and 6 in a transaction left open, offset 5 is not transactional.
    fn log() -> Vec<Vec<u8>> {
        vec![
            batch(0, 1, true, None),
            batch(1, 2, true, None),
            batch(2, 1, true, Some(false)),
            batch(3, 2, true, Some(true)),
            batch(4, 1, true, None),
            batch(5, -1, false, None),
            batch(6, 1, true, None),
        ]
    }

    #[test]
    fn the_consumer_walk_over_the_index_gives_each_batch_its_state() {
        use TxnState::*;
        let open = HashMap::from([(1, 4)]);
        let mut view = TxnView::new(vec![aborted(1, 0, 2)], Some(open), i64::MIN);
        assert_eq!(
            states(&mut view, &log()),
            [
                Aborted,
                Committed,
                Aborted,
                Committed,
                Open,
                NonTransactional,
                Open
            ]
        );
        assert_eq!(view.last_stable_offset(), Some(4));
        assert!(view.unindexed_aborts.is_empty() && view.unended_index_entries().is_empty());
        // Open transactions not known: an open one reads as committed, and no LSO.
        let mut view = TxnView::new(vec![aborted(1, 0, 2)], None, i64::MIN);
        assert_eq!(states(&mut view, &log())[4], Committed);
        assert_eq!(view.last_stable_offset(), None);
        // A search starting after the aborted transaction ended does not take it in.
        let mut view = TxnView::new(vec![aborted(1, 0, 2)], None, 3);
        assert_eq!(states(&mut view, &log()[4..])[0], Committed);
        // A seek past the ABORT marker (batches 1-3 not walked) ends the aborted transaction,
        // as a fetch from there would.
        let mut view = TxnView::new(vec![aborted(1, 0, 2)], None, i64::MIN);
        assert_eq!(states(&mut view, &log()[..1]), [Aborted]);
        view.resume();
        assert_eq!(states(&mut view, &log()[4..5]), [Committed]);
        // Resuming where nothing was skipped changes nothing.
        let mut view = TxnView::new(vec![aborted(1, 0, 2)], None, i64::MIN);
        let all = log();
        let mut got = states(&mut view, &all[..2]);
        view.resume();
        got.extend(states(&mut view, &all[2..]));
        assert_eq!(got[..4], [Aborted, Committed, Aborted, Committed]);
        assert!(view.unindexed_aborts.is_empty());
    }

    /// Where the index and the markers disagree, the answer is Kafka's fetch's (the index), and
    /// the disagreement is collected.
    #[test]
    fn a_stale_index_is_followed_as_kafka_follows_it_and_reported() {
        use TxnState::*;
        // No index entry: the aborted records read as committed.
        let mut view = TxnView::new(Vec::new(), None, i64::MIN);
        assert_eq!(
            states(&mut view, &log())[..3],
            [Committed, Committed, Aborted]
        );
        assert_eq!(view.unindexed_aborts, [(2, 1)]);
        // An entry for producer 2, whose transaction was committed: the consumer skips its
        // transactional batches until an ABORT marker of producer 2, which never comes.
        let mut view = TxnView::new(vec![aborted(1, 0, 2), aborted(2, 1, 3)], None, i64::MIN);
        let mut more = log();
        more.push(batch(7, 2, true, None));
        let s = states(&mut view, &more);
        assert_eq!((s[1], s[7]), (Aborted, Aborted));
        assert_eq!(view.unended_index_entries(), [(2, 3)]);
    }

    /// The verdict follows the coordinator's state, not its name: Ongoing and every Prepare
    /// state are in progress, any other (or an id Kafka does not name) is hanging.
    #[test]
    fn an_open_transaction_is_judged_by_the_coordinators_state() {
        let open = OpenTransaction {
            topic: "t".into(),
            partition: 0,
            producer_id: 7,
            producer_epoch: 0,
            first_offset: 0,
            last_offset: 0,
            first_timestamp: 0,
            age_ms: None,
            last_stable_offset: 0,
            records_held: 1,
            log_end: 1,
        };
        let with = |status: i8| {
            let mut state = TransactionState::default();
            state.ids.insert(
                "id".into(),
                TransactionalId {
                    id: "id".into(),
                    coordinator_partition: 0,
                    state: TransactionLog {
                        version: 0,
                        producer_id: 7,
                        previous_producer_id: -1,
                        next_producer_id: -1,
                        producer_epoch: 0,
                        next_producer_epoch: -1,
                        timeout_ms: 60_000,
                        status,
                        partitions: None,
                        last_update_timestamp: 0,
                        start_timestamp: 0,
                        client_transaction_version: 0,
                    },
                    record_offset: 0,
                },
            );
            judge_open(&open, &state, true)
        };
        for (status, expected) in [
            (1, OpenStatus::InProgress),
            (2, OpenStatus::InProgress),
            (3, OpenStatus::InProgress),
            (7, OpenStatus::InProgress),
            (4, OpenStatus::Hanging),
            (0, OpenStatus::Hanging),
            (42, OpenStatus::Hanging),
        ] {
            let v = with(status);
            assert_eq!(v.status, expected, "status {status}");
            assert_eq!(v.hanging, expected == OpenStatus::Hanging);
        }
        let none = TransactionState::default();
        assert_eq!(
            judge_open(&open, &none, false).status,
            OpenStatus::NoCoordinatorState
        );
        assert_eq!(
            judge_open(&open, &none, true).status,
            OpenStatus::NoCoordinatorRecord
        );
    }
}
