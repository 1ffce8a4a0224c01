//! Transactions from disk: the coordinator's view (`__transaction_state`, last value per
//! transactional id) and the data partitions' view (transactional batches with no COMMIT/ABORT
//! marker after them: open or hanging transactions).

use std::collections::{BTreeMap, HashMap};
use std::io;

use crate::format::control::ControlType;
use crate::format::coordinator::{
    is_known_transaction_record_type, parse_transaction_key, parse_transaction_value,
    transaction_state_name, TransactionLog,
};
use crate::format::log::{for_each_record, BatchInfo, LogEntry, LogRecord, RecordScratch};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::PartitionDir;
use crate::storage::layout::FileKind;
use crate::storage::source::open_log;

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
    undecodable: &'a mut Vec<(i32, i64, String)>,
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
                self.undecodable
                    .push((self.partition, r.offset, e.message.to_string()));
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
                Err(e) => self
                    .undecodable
                    .push((self.partition, r.offset, e.message.to_string())),
            },
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// Records that could not be decoded: (coordinator partition, offset, message).
pub type Undecodable = Vec<(i32, i64, String)>;

/// What the `__transaction_state` partitions hold, replayed as the coordinator loads them.
#[derive(Debug, Default)]
pub struct TransactionState {
    pub ids: BTreeMap<String, TransactionalId>,
    pub undecodable: Undecodable,
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
    /// Newest timestamp in the partition minus the transaction's first timestamp.
    pub age_ms: Option<i64>,
}

/// What the coordinator state says of an open transaction.
#[derive(Debug, Clone)]
pub struct OpenVerdict {
    /// The transactional id and coordinator state of its producer, when known here.
    pub coordinator: Option<(String, String)>,
    pub why: &'static str,
    /// Open in the data while the coordinator has finished it: no marker will come, and
    /// read_committed consumers are blocked.
    pub hanging: bool,
}

/// The verdict on `t`: a transaction still open in a partition while its producer's
/// coordinator state is complete (or gone) will never get its marker, it is hanging.
/// `have_state` says whether any `__transaction_state` partition was read.
pub fn judge_open(t: &OpenTransaction, state: &TransactionState, have_state: bool) -> OpenVerdict {
    let coordinator = state
        .ids
        .values()
        .find(|i| i.state.producer_id == t.producer_id)
        .map(|i| (i.id.clone(), i.state_name()));
    let (why, hanging) = match &coordinator {
        Some((_, s)) if s == "Ongoing" || s.starts_with("Prepare") => ("in progress", false),
        Some(_) => ("hanging: the coordinator has finished this producer's transaction; no marker will come", true),
        None if !have_state => ("unknown: no __transaction_state partitions in these log dirs", false),
        None => ("unknown: no coordinator record for this producer here (its __transaction_state partition may be on another broker, or the id expired)", false),
    };
    OpenVerdict {
        coordinator,
        why,
        hanging,
    }
}

#[derive(Default)]
struct OpenSink {
    open: HashMap<i64, (i16, i64, i64, i64)>,
    newest: Option<i64>,
}

impl LogSink for OpenSink {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        if b.max_timestamp >= 0 {
            self.newest = Some(
                self.newest
                    .map_or(b.max_timestamp, |n| n.max(b.max_timestamp)),
            );
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

/// Transactional batches of `p` with no later marker of their producer (headers only).
pub fn open_transactions(
    p: &PartitionDir,
    scratch: &mut RecordScratch,
) -> io::Result<Vec<OpenTransaction>> {
    let mut sink = OpenSink::default();
    for f in p.files.iter().filter(|f| f.kind == FileKind::Log) {
        let mut src = open_log(&f.path, false)?;
        scan_log(src.as_mut(), &ScanOptions::default(), scratch, &mut sink)?;
    }
    let mut out: Vec<OpenTransaction> = sink
        .open
        .into_iter()
        .map(|(pid, (epoch, first, last, ts))| OpenTransaction {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            producer_id: pid,
            producer_epoch: epoch,
            first_offset: first,
            last_offset: last,
            first_timestamp: ts,
            age_ms: sink.newest.filter(|_| ts >= 0).map(|n| n - ts),
        })
        .collect();
    out.sort_by_key(|t| t.first_offset);
    Ok(out)
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
