//! Per-partition producer state, as Kafka's `ProducerStateManager` keeps it: the last five
//! batches of every idempotent producer (duplicate detection and sequence checks), its epoch,
//! and the first offset of its open transaction (the last stable offset). Snapshots are the
//! `<offset>.snapshot` files (version 1, CRC-32C, 46-byte entries).

use std::collections::{BTreeMap, VecDeque};

use kafka_protocol::ResponseError;

use super::{BrokerError, BrokerResult};
use kseg_format::producer_snapshot::{
    encode_producer_snapshot, parse_producer_snapshot, JavaLongHashOrder,
    ProducerEntry as SnapshotEntry,
};
use kseg_format::reader::DecodeError;

/// Kafka keeps this many batches per producer for duplicate detection.
pub const BATCHES_TO_RETAIN: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    pub first_seq: i32,
    pub last_seq: i32,
    pub last_offset: i64,
    pub offset_delta: i32,
    pub timestamp: i64,
}

impl BatchMetadata {
    pub fn first_offset(&self) -> i64 {
        self.last_offset - self.offset_delta as i64
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerEntry {
    pub producer_id: i64,
    pub epoch: i16,
    pub batches: VecDeque<BatchMetadata>,
    pub coordinator_epoch: i32,
    pub last_timestamp: i64,
    pub current_txn_first_offset: Option<i64>,
}

impl ProducerEntry {
    fn new(producer_id: i64) -> Self {
        ProducerEntry {
            producer_id,
            epoch: -1,
            batches: VecDeque::new(),
            coordinator_epoch: -1,
            last_timestamp: -1,
            current_txn_first_offset: None,
        }
    }

    pub fn last_seq(&self) -> i32 {
        self.batches.back().map_or(-1, |b| b.last_seq)
    }
}

/// The producer fields of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerBatch {
    pub producer_id: i64,
    pub epoch: i16,
    pub first_seq: i32,
    pub last_seq: i32,
    pub transactional: bool,
}

/// A transaction whose marker was just written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedTxn {
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub aborted: bool,
}

#[derive(Debug, Default, Clone)]
pub struct ProducerStateManager {
    producers: BTreeMap<i64, ProducerEntry>,
    /// The order Kafka's `HashMap` of producers iterates them in: a snapshot's entry order.
    order: JavaLongHashOrder,
    /// Open transactions by first offset: their minimum is the first unstable offset.
    ongoing: BTreeMap<i64, i64>,
}

/// `inSequence`: the next sequence follows the last one, wrapping at `i32::MAX`.
fn in_sequence(last: i32, next: i32) -> bool {
    next as i64 == last as i64 + 1 || (next == 0 && last == i32::MAX)
}

/// Why a producer snapshot cannot be loaded (Kafka then deletes it and rebuilds the state).
#[derive(Debug)]
pub enum SnapshotError {
    Undecodable(DecodeError),
    CrcMismatch,
}

impl ProducerStateManager {
    pub fn entry(&self, producer_id: i64) -> Option<&ProducerEntry> {
        self.producers.get(&producer_id)
    }

    pub fn producers(&self) -> impl Iterator<Item = &ProducerEntry> {
        self.producers.values()
    }

    /// The first offset of the oldest open transaction.
    pub fn first_unstable_offset(&self) -> Option<i64> {
        self.ongoing.keys().next().copied()
    }

    /// Kafka's client-side checks (`ProducerAppendInfo`): epoch, then duplicates of the last
    /// five batches, then the sequence. `Ok(Some(batch))` means "a duplicate of this batch".
    pub fn check(&self, b: &ProducerBatch) -> BrokerResult<Option<BatchMetadata>> {
        let Some(entry) = self.producers.get(&b.producer_id) else {
            // An unknown producer (no state, e.g. after retention) may start at any sequence.
            return Ok(None);
        };
        if b.epoch < entry.epoch {
            return Err(BrokerError::new(
                ResponseError::InvalidProducerEpoch,
                format!(
                    "epoch {} of producer {} is older than its current epoch {}",
                    b.epoch, b.producer_id, entry.epoch
                ),
            ));
        }
        if b.epoch == entry.epoch {
            if let Some(dup) = entry
                .batches
                .iter()
                .find(|m| m.first_seq == b.first_seq && m.last_seq == b.last_seq)
            {
                return Ok(Some(*dup));
            }
        }
        if b.epoch != entry.epoch {
            if b.first_seq != 0 && entry.epoch != -1 {
                return Err(BrokerError::new(
                    ResponseError::OutOfOrderSequenceNumber,
                    format!(
                        "invalid sequence {} for new epoch {} of producer {}: must be 0",
                        b.first_seq, b.epoch, b.producer_id
                    ),
                ));
            }
        } else if entry.epoch != -1 && !in_sequence(entry.last_seq(), b.first_seq) {
            return Err(BrokerError::new(
                ResponseError::OutOfOrderSequenceNumber,
                format!(
                    "out of order sequence {} (last {}) from producer {} at epoch {}",
                    b.first_seq,
                    entry.last_seq(),
                    b.producer_id,
                    b.epoch
                ),
            ));
        }
        if !b.transactional && entry.current_txn_first_offset.is_some() {
            return Err(BrokerError::new(
                ResponseError::InvalidTxnState,
                format!(
                    "producer {} has an open transaction: expected a transactional write",
                    b.producer_id
                ),
            ));
        }
        Ok(None)
    }

    /// Records an appended data batch.
    /// The producer's entry, added (empty) when it has none.
    fn entry_mut(&mut self, producer_id: i64) -> &mut ProducerEntry {
        let order = &mut self.order;
        self.producers.entry(producer_id).or_insert_with(|| {
            order.insert(producer_id);
            ProducerEntry::new(producer_id)
        })
    }

    pub fn update(&mut self, b: &ProducerBatch, first_offset: i64, last_offset: i64, ts: i64) {
        let entry = self.entry_mut(b.producer_id);
        if entry.epoch != b.epoch {
            entry.epoch = b.epoch;
            entry.batches.clear();
        }
        entry.batches.push_back(BatchMetadata {
            first_seq: b.first_seq,
            last_seq: b.last_seq,
            last_offset,
            offset_delta: (last_offset - first_offset) as i32,
            timestamp: ts,
        });
        while entry.batches.len() > BATCHES_TO_RETAIN {
            entry.batches.pop_front();
        }
        entry.last_timestamp = ts;
        if b.transactional && entry.current_txn_first_offset.is_none() {
            entry.current_txn_first_offset = Some(first_offset);
            self.ongoing.insert(first_offset, b.producer_id);
        }
    }

    /// Records a COMMIT/ABORT marker at `marker_offset`; returns the completed transaction when
    /// the producer had data in it.
    pub fn complete_txn(
        &mut self,
        producer_id: i64,
        epoch: i16,
        coordinator_epoch: i32,
        marker_offset: i64,
        aborted: bool,
        ts: i64,
    ) -> Option<CompletedTxn> {
        let entry = self.entry_mut(producer_id);
        if entry.epoch != epoch {
            entry.epoch = epoch;
            entry.batches.clear();
        }
        entry.coordinator_epoch = coordinator_epoch;
        entry.last_timestamp = ts;
        let first = entry.current_txn_first_offset.take()?;
        self.ongoing.remove(&first);
        Some(CompletedTxn {
            producer_id,
            first_offset: first,
            last_offset: marker_offset,
            aborted,
        })
    }

    /// Kafka's `lastStableOffset(completedTxn)`: the next open transaction's first offset, or
    /// the offset after the marker.
    pub fn last_stable_offset_after(&self, completed: &CompletedTxn) -> i64 {
        self.ongoing
            .iter()
            .find(|(_, pid)| **pid != completed.producer_id)
            .map(|(o, _)| *o)
            .unwrap_or(completed.last_offset + 1)
    }

    /// The snapshot file bytes (`format::producer_snapshot`'s encoder), entries in the order
    /// Kafka's `HashMap<Long, …>` iterates them.
    pub fn snapshot_bytes(
        &self,
    ) -> Result<Vec<u8>, kseg_format::producer_snapshot::TooManyEntries> {
        let entries: Vec<SnapshotEntry> = self
            .order
            .order()
            .into_iter()
            .filter_map(|pid| self.producers.get(&pid))
            .map(|e| {
                let last = e.batches.back();
                SnapshotEntry {
                    producer_id: e.producer_id,
                    epoch: e.epoch,
                    last_sequence: last.map_or(-1, |b| b.last_seq),
                    last_offset: last.map_or(-1, |b| b.last_offset),
                    offset_delta: last.map_or(0, |b| b.offset_delta),
                    timestamp: e.last_timestamp,
                    coordinator_epoch: e.coordinator_epoch,
                    current_txn_first_offset: e.current_txn_first_offset.unwrap_or(-1),
                }
            })
            .collect();
        encode_producer_snapshot(&entries)
    }

    /// Loads a snapshot file's entries (a corrupt snapshot is an error; the caller replays the
    /// log instead).
    pub fn from_snapshot(bytes: &[u8]) -> Result<ProducerStateManager, SnapshotError> {
        let snap = parse_producer_snapshot(bytes).map_err(SnapshotError::Undecodable)?;
        if !snap.crc_valid {
            return Err(SnapshotError::CrcMismatch);
        }
        let mut state = ProducerStateManager::default();
        for e in snap.entries {
            let mut entry = ProducerEntry::new(e.producer_id);
            entry.epoch = e.epoch;
            entry.coordinator_epoch = e.coordinator_epoch;
            entry.last_timestamp = e.timestamp;
            if e.has_batch_metadata() {
                entry.batches.push_back(BatchMetadata {
                    first_seq: e.first_sequence(),
                    last_seq: e.last_sequence,
                    last_offset: e.last_offset,
                    offset_delta: e.offset_delta,
                    timestamp: e.timestamp,
                });
            }
            if e.current_txn_first_offset >= 0 {
                entry.current_txn_first_offset = Some(e.current_txn_first_offset);
                state
                    .ongoing
                    .insert(e.current_txn_first_offset, e.producer_id);
            }
            if state.producers.insert(e.producer_id, entry).is_none() {
                state.order.insert(e.producer_id);
            }
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pb(pid: i64, epoch: i16, first: i32, last: i32) -> ProducerBatch {
        ProducerBatch {
            producer_id: pid,
            epoch,
            first_seq: first,
            last_seq: last,
            transactional: false,
        }
    }

    #[test]
    fn sequences_epochs_and_duplicates() {
        let mut s = ProducerStateManager::default();
        assert_eq!(
            s.check(&pb(7, 0, 5, 9)).unwrap(),
            None,
            "unknown producer: any sequence"
        );
        s.update(&pb(7, 0, 0, 4), 0, 4, 100);
        assert!(s.check(&pb(7, 0, 5, 9)).unwrap().is_none());
        assert_eq!(
            s.check(&pb(7, 0, 7, 9)).unwrap_err().code(),
            ResponseError::OutOfOrderSequenceNumber.code()
        );
        let dup = s.check(&pb(7, 0, 0, 4)).unwrap().unwrap();
        assert_eq!((dup.first_offset(), dup.last_offset), (0, 4));
        assert_eq!(
            s.check(&pb(7, 1, 3, 4)).unwrap_err().code(),
            ResponseError::OutOfOrderSequenceNumber.code()
        );
        assert!(s.check(&pb(7, 1, 0, 0)).unwrap().is_none());
        s.update(&pb(7, 1, 0, 0), 5, 5, 101);
        assert_eq!(
            s.check(&pb(7, 0, 1, 1)).unwrap_err().code(),
            ResponseError::InvalidProducerEpoch.code()
        );
        for i in 1..10 {
            s.update(&pb(7, 1, i, i), 5 + i as i64, 5 + i as i64, 102);
        }
        assert_eq!(s.entry(7).unwrap().batches.len(), BATCHES_TO_RETAIN);
        assert!(in_sequence(i32::MAX, 0));
    }

    #[test]
    fn transactions_and_last_stable_offset() {
        let mut s = ProducerStateManager::default();
        let mut t = pb(1, 0, 0, 1);
        t.transactional = true;
        s.update(&t, 10, 11, 5);
        let mut u = pb(2, 0, 0, 0);
        u.transactional = true;
        s.update(&u, 12, 12, 5);
        assert_eq!(s.first_unstable_offset(), Some(10));
        assert_eq!(
            s.check(&pb(1, 0, 2, 2)).unwrap_err().code(),
            ResponseError::InvalidTxnState.code()
        );
        let done = s.complete_txn(1, 0, 3, 13, true, 6).unwrap();
        assert_eq!(
            done,
            CompletedTxn {
                producer_id: 1,
                first_offset: 10,
                last_offset: 13,
                aborted: true
            }
        );
        assert_eq!(s.last_stable_offset_after(&done), 12);
        assert_eq!(s.first_unstable_offset(), Some(12));
        assert!(
            s.complete_txn(1, 0, 3, 14, false, 6).is_none(),
            "nothing open"
        );
    }

    #[test]
    fn snapshot_matches_the_digest_vector_and_round_trips() {
        let mut s = ProducerStateManager::default();
        s.update(&pb(1000, 0, 0, 4), 16, 20, 1_700_000_000_000);
        let bytes = s.snapshot_bytes().unwrap();
        let want = hex::decode(
            "00018c502c240000000100000000000003e800000000000400000000000000140000000400000\
             18bcfe56800ffffffffffffffffffffffff",
        )
        .unwrap();
        assert_eq!(bytes, want);
        let back = ProducerStateManager::from_snapshot(&bytes).unwrap();
        assert_eq!(back.entry(1000), s.entry(1000));
        assert_eq!(
            ProducerStateManager::default()
                .snapshot_bytes()
                .unwrap()
                .len(),
            10,
            "an empty snapshot is 10 bytes, as in real data dirs"
        );
    }
}
