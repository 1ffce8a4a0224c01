//! The transaction coordinator's state machine (`TransactionCoordinator`, transaction version
//! 0 semantics: the epoch is bumped by InitProducerId, not per transaction). Every transition
//! returns the `__transaction_state` record to write; ending a transaction is split in two
//! steps around the markers the broker writes to each partition: PrepareCommit/PrepareAbort,
//! then CompleteCommit/CompleteAbort.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kafka_protocol::ResponseError;

use super::records::{transaction_log_key, transaction_log_value};
use kseg_format::coordinator::{TopicPartitions, TransactionLog, TransactionState};

/// `transaction.max.timeout.ms`.
pub const MAX_TIMEOUT_MS: i32 = 900_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnMetadata {
    pub transactional_id: String,
    pub producer_id: i64,
    pub epoch: i16,
    pub timeout_ms: i32,
    pub state: TransactionState,
    pub partitions: BTreeSet<(String, i32)>,
    pub last_update: i64,
    pub start: i64,
    /// The epoch before the last InitProducerId bump, so that a retry of that InitProducerId
    /// is answered again (Kafka's `lastProducerEpoch`, kept in memory only); -1 after a fence.
    pub last_epoch: i16,
}

impl TxnMetadata {
    fn record(&self) -> (Vec<u8>, Option<Vec<u8>>) {
        let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (t, p) in &self.partitions {
            by_topic.entry(t).or_default().push(*p);
        }
        // Written null when the state is Empty.
        let partitions = (self.state != TransactionState::Empty).then(|| {
            by_topic
                .into_iter()
                .map(|(topic, partitions)| TopicPartitions {
                    topic: topic.to_string(),
                    partitions,
                })
                .collect()
        });
        let value = TransactionLog {
            version: 1,
            producer_id: self.producer_id,
            previous_producer_id: -1,
            next_producer_id: -1,
            producer_epoch: self.epoch,
            next_producer_epoch: -1,
            timeout_ms: self.timeout_ms,
            status: self.state as i8,
            partitions,
            last_update_timestamp: self.last_update,
            start_timestamp: self.start,
            client_transaction_version: 0,
        };
        (
            transaction_log_key(&self.transactional_id),
            Some(transaction_log_value(&value)),
        )
    }
}

/// Markers to write for a transaction that is being completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndPlan {
    pub transactional_id: String,
    pub producer_id: i64,
    pub epoch: i16,
    pub commit: bool,
    pub partitions: Vec<(String, i32)>,
}

pub type TxnRecord = (Vec<u8>, Option<Vec<u8>>);

#[derive(Debug, Default)]
pub struct TxnCoordinator {
    txns: HashMap<String, TxnMetadata>,
}

impl TxnCoordinator {
    pub fn get(&self, id: &str) -> Option<&TxnMetadata> {
        self.txns.get(id)
    }

    /// Every transactional id's state (ListTransactions), in no particular order.
    pub fn all(&self) -> impl Iterator<Item = &TxnMetadata> {
        self.txns.values()
    }

    /// InitProducerId for a transactional id: `Ok(Ok((pid, epoch)))`, or `Ok(Err(plan))` when
    /// an open transaction must first be aborted (fencing the old producer with a bumped epoch):
    /// the caller carries out the plan, calls [`Self::complete_end`] and asks again. `expected`
    /// is the producer a v3+ request names (KIP-360): another producer id, or an epoch that is
    /// neither the current one nor a retry of the last bump, is PRODUCER_FENCED
    /// (`TransactionCoordinator.prepareInitProducerIdTransit`).
    pub fn init_producer_id(
        &mut self,
        id: &str,
        timeout_ms: i32,
        expected: Option<(i64, i16)>,
        now: i64,
        allocate: &mut dyn FnMut() -> i64,
        records: &mut Vec<TxnRecord>,
    ) -> Result<Result<(i64, i16), EndPlan>, ResponseError> {
        if id.is_empty() {
            return Err(ResponseError::InvalidRequest);
        }
        if timeout_ms <= 0 || timeout_ms > MAX_TIMEOUT_MS {
            return Err(ResponseError::InvalidTransactionTimeout);
        }
        let Some(meta) = self.txns.get_mut(id) else {
            let m = TxnMetadata {
                transactional_id: id.to_string(),
                producer_id: allocate(),
                epoch: 0,
                timeout_ms,
                state: TransactionState::Empty,
                partitions: BTreeSet::new(),
                last_update: now,
                start: -1,
                last_epoch: -1,
            };
            records.push(m.record());
            let answer = (m.producer_id, m.epoch);
            self.txns.insert(id.to_string(), m);
            return Ok(Ok(answer));
        };
        if expected.is_some_and(|(pid, _)| pid != meta.producer_id) {
            return Err(ResponseError::ProducerFenced);
        }
        match meta.state {
            TransactionState::Ongoing => {
                bump_epoch(meta, allocate);
                meta.state = TransactionState::PrepareAbort;
                meta.last_update = now;
                records.push(meta.record());
                Ok(Err(plan_of(meta)))
            }
            TransactionState::PrepareCommit | TransactionState::PrepareAbort => {
                Ok(Err(plan_of(meta)))
            }
            _ => {
                match expected {
                    Some((_, epoch)) if epoch == meta.epoch => {}
                    Some((_, epoch)) if epoch >= 0 && epoch == meta.last_epoch => {
                        // A retry of the bump that gave the current epoch.
                        return Ok(Ok((meta.producer_id, meta.epoch)));
                    }
                    Some(_) => return Err(ResponseError::ProducerFenced),
                    None => {}
                }
                let before = meta.epoch;
                bump_epoch(meta, allocate);
                // Only a producer that named itself may retry (prepareIncrementProducerEpoch);
                // a new producer's InitProducerId leaves no last epoch.
                if expected.is_some() && meta.epoch != 0 {
                    meta.last_epoch = before;
                }
                meta.timeout_ms = timeout_ms;
                meta.state = TransactionState::Empty;
                meta.partitions.clear();
                meta.start = -1;
                meta.last_update = now;
                records.push(meta.record());
                Ok(Ok((meta.producer_id, meta.epoch)))
            }
        }
    }

    fn check_producer(
        &mut self,
        id: &str,
        pid: i64,
        epoch: i16,
    ) -> Result<&mut TxnMetadata, ResponseError> {
        let m = self
            .txns
            .get_mut(id)
            .ok_or(ResponseError::InvalidProducerIdMapping)?;
        if m.producer_id != pid {
            return Err(ResponseError::InvalidProducerIdMapping);
        }
        if m.epoch != epoch {
            // Clients of older versions are answered INVALID_PRODUCER_EPOCH (by the handlers).
            return Err(ResponseError::ProducerFenced);
        }
        Ok(m)
    }

    /// AddPartitionsToTxn / AddOffsetsToTxn.
    pub fn add_partitions(
        &mut self,
        id: &str,
        pid: i64,
        epoch: i16,
        partitions: &[(String, i32)],
        now: i64,
        records: &mut Vec<TxnRecord>,
    ) -> Result<(), ResponseError> {
        let m = self.check_producer(id, pid, epoch)?;
        match m.state {
            TransactionState::PrepareCommit | TransactionState::PrepareAbort => {
                return Err(ResponseError::ConcurrentTransactions)
            }
            TransactionState::Ongoing if partitions.iter().all(|p| m.partitions.contains(p)) => {
                return Ok(());
            }
            TransactionState::Ongoing => {}
            _ => {
                m.partitions.clear();
                m.start = now;
            }
        }
        m.state = TransactionState::Ongoing;
        m.partitions.extend(partitions.iter().cloned());
        m.last_update = now;
        records.push(m.record());
        Ok(())
    }

    /// Whether a transactional write to this partition belongs to the producer's open
    /// transaction.
    pub fn includes(&self, pid: i64, epoch: i16, topic: &str, partition: i32) -> bool {
        self.txns.values().any(|m| {
            m.producer_id == pid
                && m.epoch == epoch
                && m.state == TransactionState::Ongoing
                && m.partitions.contains(&(topic.to_string(), partition))
        })
    }

    /// EndTxn, first half: Ongoing → PrepareCommit/PrepareAbort. `Ok(None)` when the
    /// transaction already ended this way (a retry) or had no partitions.
    pub fn begin_end(
        &mut self,
        id: &str,
        pid: i64,
        epoch: i16,
        commit: bool,
        now: i64,
        records: &mut Vec<TxnRecord>,
    ) -> Result<Option<EndPlan>, ResponseError> {
        let m = self.check_producer(id, pid, epoch)?;
        match (m.state, commit) {
            (TransactionState::Ongoing, _) => {
                m.state = if commit {
                    TransactionState::PrepareCommit
                } else {
                    TransactionState::PrepareAbort
                };
                m.last_update = now;
                records.push(m.record());
                Ok(Some(plan_of(m)))
            }
            (TransactionState::CompleteCommit, true) | (TransactionState::CompleteAbort, false) => {
                Ok(None)
            }
            (TransactionState::Empty, false) => Ok(None),
            (TransactionState::PrepareCommit | TransactionState::PrepareAbort, _) => {
                Err(ResponseError::ConcurrentTransactions)
            }
            _ => Err(ResponseError::InvalidTxnState),
        }
    }

    /// EndTxn, second half, after every marker is written.
    pub fn complete_end(&mut self, id: &str, now: i64, records: &mut Vec<TxnRecord>) {
        if let Some(m) = self.txns.get_mut(id) {
            m.state = match m.state {
                TransactionState::PrepareCommit => TransactionState::CompleteCommit,
                TransactionState::PrepareAbort => TransactionState::CompleteAbort,
                other => other,
            };
            m.partitions.clear();
            m.last_update = now;
            records.push(m.record());
        }
    }

    /// Transactions open longer than their timeout are aborted with a bumped epoch, which
    /// fences the producer (`abortTimedOutTransactions`).
    pub fn expire(
        &mut self,
        now: i64,
        allocate: &mut dyn FnMut() -> i64,
        records: &mut Vec<TxnRecord>,
    ) -> Vec<EndPlan> {
        let mut plans = Vec::new();
        for m in self.txns.values_mut() {
            if m.state == TransactionState::Ongoing
                && m.start >= 0
                && now > m.start + m.timeout_ms as i64
            {
                bump_epoch(m, allocate);
                m.state = TransactionState::PrepareAbort;
                m.last_update = now;
                records.push(m.record());
                plans.push(plan_of(m));
            }
        }
        plans
    }

    /// Transactions a crash left half ended: their markers must be (re)written.
    pub fn pending_ends(&self) -> Vec<EndPlan> {
        self.txns
            .values()
            .filter(|m| {
                matches!(
                    m.state,
                    TransactionState::PrepareCommit | TransactionState::PrepareAbort
                )
            })
            .map(plan_of)
            .collect()
    }

    /// Rebuilds state from one `__transaction_state` record while loading.
    pub fn load(&mut self, id: &str, value: Option<TransactionLog>) {
        let Some(v) = value else {
            self.txns.remove(id);
            return;
        };
        let Some(state) = v.state() else {
            return; // a status Kafka does not name: `decode_transaction_value` refuses it
        };
        let partitions = v
            .partitions
            .iter()
            .flatten()
            .flat_map(|tp| tp.partitions.iter().map(|p| (tp.topic.clone(), *p)))
            .collect();
        self.txns.insert(
            id.to_string(),
            TxnMetadata {
                transactional_id: id.to_string(),
                producer_id: v.producer_id,
                epoch: v.producer_epoch,
                timeout_ms: v.timeout_ms,
                state,
                partitions,
                last_update: v.last_update_timestamp,
                start: v.start_timestamp,
                last_epoch: -1,
            },
        );
    }
}

fn plan_of(m: &TxnMetadata) -> EndPlan {
    EndPlan {
        transactional_id: m.transactional_id.clone(),
        producer_id: m.producer_id,
        epoch: m.epoch,
        commit: m.state == TransactionState::PrepareCommit,
        partitions: m.partitions.iter().cloned().collect(),
    }
}

/// Bumps the epoch; at the top of the range the producer gets a new id (as Kafka does).
fn bump_epoch(m: &mut TxnMetadata, allocate: &mut dyn FnMut() -> i64) {
    m.last_epoch = -1;
    if m.epoch >= i16::MAX - 1 {
        m.producer_id = allocate();
        m.epoch = 0;
    } else {
        m.epoch += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_and_abort_cycles() {
        let mut c = TxnCoordinator::default();
        let mut recs = Vec::new();
        let mut next = 1000;
        let mut alloc = || {
            next += 1;
            next
        };
        let (pid, epoch) = c
            .init_producer_id("tx", 60000, None, 0, &mut alloc, &mut recs)
            .unwrap()
            .unwrap();
        assert_eq!((pid, epoch), (1001, 0));
        let t = vec![("t".to_string(), 0)];
        c.add_partitions("tx", pid, epoch, &t, 1, &mut recs)
            .unwrap();
        assert_eq!(c.get("tx").unwrap().state, TransactionState::Ongoing);
        let plan = c
            .begin_end("tx", pid, epoch, true, 2, &mut recs)
            .unwrap()
            .unwrap();
        assert_eq!(plan.partitions, t);
        c.complete_end("tx", 3, &mut recs);
        assert_eq!(c.get("tx").unwrap().state, TransactionState::CompleteCommit);
        assert_eq!(recs.len(), 4);
        assert!(c
            .begin_end("tx", pid, epoch, true, 4, &mut recs)
            .unwrap()
            .is_none());
        assert_eq!(
            c.begin_end("tx", pid, epoch + 1, true, 4, &mut recs)
                .unwrap_err(),
            ResponseError::ProducerFenced
        );
        // A second InitProducerId during an open transaction fences it with an abort.
        c.add_partitions("tx", pid, epoch, &t, 5, &mut recs)
            .unwrap();
        let plan = c
            .init_producer_id("tx", 60000, None, 6, &mut alloc, &mut recs)
            .unwrap()
            .unwrap_err();
        assert!(!plan.commit);
        assert_eq!(plan.epoch, 1);
        c.complete_end("tx", 7, &mut recs);
        assert_eq!(c.get("tx").unwrap().state, TransactionState::CompleteAbort);
        let again = c
            .init_producer_id("tx", 60000, None, 8, &mut alloc, &mut recs)
            .unwrap()
            .unwrap();
        assert_eq!(again, (pid, 2));
    }

    #[test]
    fn timeouts_abort() {
        let mut c = TxnCoordinator::default();
        let mut recs = Vec::new();
        let mut alloc = || 5;
        let (pid, epoch) = c
            .init_producer_id("tx", 1000, None, 0, &mut alloc, &mut recs)
            .unwrap()
            .unwrap();
        c.add_partitions("tx", pid, epoch, &[("t".into(), 1)], 10, &mut recs)
            .unwrap();
        assert!(c.expire(500, &mut alloc, &mut recs).is_empty());
        let plans = c.expire(2000, &mut alloc, &mut recs);
        assert_eq!(plans.len(), 1);
        assert_eq!(c.pending_ends().len(), 1);
    }
}
