//! The leader-epoch cache (`LeaderEpochFileCache`): loading it as `LogLoader` does, the epoch of
//! an offset, the end offset of an epoch (OffsetForLeaderEpoch), and that lookup checked
//! against the batches' partitionLeaderEpoch.

use kseg_format::log::BatchInfo;
use kseg_format::text_files::EpochEntry;
use kseg_scan::Flow;

use super::explain::Step;
use super::reader::{BatchAt, Headers, PartitionReader};
use super::target::read_checkpoint;
use super::{Answer, EpochDisagreement, LookupError, Note};

/// What loading a leader-epoch cache changed (in file order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpochCacheChange {
    /// A negative epoch or start offset: Kafka refuses it and fails to load the log.
    Invalid(EpochEntry),
    /// `entry` removed the earlier entries whose epoch or start offset is not below its own.
    Conflicts {
        entry: EpochEntry,
        removed: Vec<EpochEntry>,
    },
    /// Entries starting at or after the log end offset, dropped (`truncateFromEnd`).
    DroppedAtLogEnd {
        log_end: i64,
        dropped: Vec<EpochEntry>,
    },
    /// Entries at or before the log start offset folded into one starting there
    /// (`truncateFromStart`).
    FoldedIntoLogStart { log_start: i64, epoch: i32 },
}

/// The answer of OffsetForLeaderEpoch: the epoch answered for and where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEnd {
    pub epoch: i32,
    pub end_offset: i64,
}

/// OffsetForLeaderEpoch over a leader-epoch cache (`LeaderEpochFileCache.endOffsetFor`), or
/// `None` for UNDEFINED. `epochs` is sorted by epoch.
pub fn end_offset_for(epochs: &[EpochEntry], requested: i32, log_end: i64) -> Option<EpochEnd> {
    if requested == -1 {
        return None;
    }
    if epochs.last().is_some_and(|l| l.epoch == requested) {
        return Some(EpochEnd {
            epoch: requested,
            end_offset: log_end,
        });
    }
    let higher = epochs.iter().find(|e| e.epoch > requested)?;
    let epoch = match epochs.iter().rev().find(|e| e.epoch <= requested) {
        None => requested,
        Some(floor) => floor.epoch,
    };
    Some(EpochEnd {
        epoch,
        end_offset: higher.start_offset,
    })
    .filter(|e| e.end_offset != -1)
}

/// The cache as `LogLoader` leaves it: entries starting at or after the log end dropped
/// (`truncateFromEnd`; not when `log_end` is negative), entries at or before the log start
/// folded into one starting there (`truncateFromStart`). Returns the entries and what changed.
pub fn load_cache(
    entries: Vec<EpochEntry>,
    log_start: i64,
    log_end: i64,
) -> (Vec<EpochEntry>, Vec<EpochCacheChange>) {
    let mut changes = Vec::new();
    // LeaderEpochFileCache's constructor assigns the entries in file order: one repeating the
    // latest epoch at a start not below it is ignored; otherwise it first removes, from the
    // end, every entry whose epoch or start offset is not below its own. An invalid (negative)
    // entry makes Kafka fail to load the log; it is left out here.
    let mut cache: Vec<EpochEntry> = Vec::new();
    for entry in entries {
        if entry.epoch < 0 || entry.start_offset < 0 {
            changes.push(EpochCacheChange::Invalid(entry));
            continue;
        }
        if cache
            .last()
            .is_some_and(|l| l.epoch == entry.epoch && entry.start_offset >= l.start_offset)
        {
            continue;
        }
        let mut removed = Vec::new();
        while let Some(&last) = cache.last() {
            if last.epoch < entry.epoch && last.start_offset < entry.start_offset {
                break;
            }
            removed.push(last);
            cache.pop();
        }
        if !removed.is_empty() {
            changes.push(EpochCacheChange::Conflicts { entry, removed });
        }
        cache.push(entry);
    }
    let mut epochs = cache;
    if log_end >= 0 && epochs.last().is_some_and(|l| l.start_offset >= log_end) {
        let dropped: Vec<EpochEntry> = epochs
            .iter()
            .copied()
            .filter(|e| e.start_offset >= log_end)
            .collect();
        epochs.retain(|e| e.start_offset < log_end);
        changes.push(EpochCacheChange::DroppedAtLogEnd { log_end, dropped });
    }
    let folded = epochs
        .iter()
        .take_while(|e| e.start_offset <= log_start)
        .count();
    if let Some(&last) = folded.checked_sub(1).map(|k| &epochs[k]) {
        epochs.drain(..folded);
        epochs.insert(
            0,
            EpochEntry {
                epoch: last.epoch,
                start_offset: log_start,
            },
        );
        if folded > 1 || last.start_offset != log_start {
            changes.push(EpochCacheChange::FoldedIntoLogStart {
                log_start,
                epoch: last.epoch,
            });
        }
    }
    (epochs, changes)
}

/// `LeaderEpochFileCache.epochForOffset`.
pub(super) fn epoch_for_offset(epochs: &[EpochEntry], offset: i64) -> Option<i32> {
    let mut previous = None;
    for e in epochs {
        if e.start_offset == offset {
            return Some(e.epoch);
        }
        if e.start_offset > offset {
            return previous;
        }
        previous = Some(e.epoch);
    }
    previous
}

/// The leader-epoch cache the batches build (`LogSegment.recover`: a v2 batch with an epoch
/// above the latest one starts that epoch at its base offset).
pub(super) fn assign_from_batch(cache: &mut Vec<EpochEntry>, b: &BatchInfo) {
    if b.magic >= 2
        && b.partition_leader_epoch >= 0
        && cache
            .last()
            .is_none_or(|l| b.partition_leader_epoch > l.epoch)
    {
        cache.push(EpochEntry {
            epoch: b.partition_leader_epoch,
            start_offset: b.base_offset,
        });
    }
}

/// The answer of OffsetForLeaderEpoch `e` over `cache`.
pub(super) fn epoch_answer(cache: &[EpochEntry], e: i32, leo: i64) -> Answer {
    match end_offset_for(cache, e, leo) {
        Some(end) => {
            let mut a = Answer {
                offset: Some(end.end_offset),
                leader_epoch: Some(end.epoch),
                ..Default::default()
            };
            if end.epoch != e {
                a.notes.push(Note::EpochNotInCache {
                    asked: e,
                    answered: end.epoch,
                });
            }
            a
        }
        None => Answer::none(match cache.last() {
            // LeaderEpochFileCache.endOffsetFor answers UNDEFINED_EPOCH with UNDEFINED first,
            // whatever the cache holds.
            _ if e == -1 => Note::EpochUndefinedAsked,
            None => Note::EpochCacheEmpty,
            Some(l) => Note::EpochAboveCache {
                asked: e,
                latest: l.epoch,
            },
        }),
    }
}

impl PartitionReader<'_> {
    /// The entries of `leader-epoch-checkpoint`; `None` when there is none or it cannot be
    /// read (noted in the trace).
    pub(super) fn epoch_checkpoint(&mut self) -> Option<Vec<EpochEntry>> {
        let path = self.target.leader_epoch_checkpoint.as_ref()?;
        match read_checkpoint(path, true) {
            Ok(c) => Some(c.epoch_entries()),
            Err(problem) => {
                self.step(Step::CheckpointIgnored {
                    file: path.clone(),
                    problem,
                });
                None
            }
        }
    }

    /// The epoch cache from every batch header of every segment.
    pub(super) fn epochs_from_batches(&mut self) -> Result<Vec<EpochEntry>, LookupError> {
        let mut cache = Vec::new();
        for i in 0..self.segments.len() {
            self.walk(
                i,
                0,
                &mut Headers(|b: &BatchAt| {
                    assign_from_batch(&mut cache, &b.info);
                    Flow::Continue
                }),
            )?;
        }
        Ok(cache)
    }

    pub(super) fn end_offset_for_epoch(
        &mut self,
        e: i32,
        log_start: i64,
        leo: i64,
    ) -> Result<Answer, LookupError> {
        let Some(raw) = self.epoch_checkpoint() else {
            self.step(Step::NoEpochCheckpoint);
            let cache = self.epochs_from_batches()?;
            let (cache, changes) = load_cache(cache, log_start, leo);
            self.trace
                .steps
                .extend(changes.into_iter().map(Step::EpochCache));
            self.step(Step::EpochsFromBatches(cache.clone()));
            return Ok(epoch_answer(&cache, e, leo));
        };
        self.step(Step::EpochCheckpoint(raw.clone()));
        let (cache, changes) = load_cache(raw, log_start, leo);
        self.trace
            .steps
            .extend(changes.into_iter().map(Step::EpochCache));
        let mut answer = epoch_answer(&cache, e, leo);
        // Spot checks against the batches, index-guided: the batch at each epoch's start
        // offset carries that epoch, the batch before it the previous one, and the last batch
        // no epoch the checkpoint lacks.
        let mut disagreements = Vec::new();
        for (k, entry) in cache.iter().enumerate() {
            let (epoch, start) = (entry.epoch, entry.start_offset);
            if start >= leo {
                continue;
            }
            let next_start = cache.get(k + 1).map_or(leo, |n| n.start_offset);
            match self.batch_at(start)? {
                Some(b)
                    if b.magic >= 2
                        && b.base_offset < next_start
                        && b.partition_leader_epoch != epoch =>
                {
                    disagreements.push(EpochDisagreement::AtStart {
                        epoch,
                        start_offset: start,
                        batch: b,
                    });
                }
                Some(b) if b.magic < 2 => self.step(Step::EpochStartInLegacyBatch {
                    epoch,
                    start_offset: start,
                    magic: b.magic,
                }),
                _ => {}
            }
            if k > 0 && start > log_start {
                let prev = cache[k - 1].epoch;
                if let Some(b) = self.batch_at(start - 1)? {
                    if b.magic >= 2 && b.last_offset < start && b.partition_leader_epoch != prev {
                        disagreements.push(EpochDisagreement::BeforeStart {
                            start_offset: start,
                            previous_epoch: prev,
                            batch: b,
                        });
                    }
                }
            }
        }
        if let Some(b) = self.last_batch()? {
            let latest = cache.last().map(|l| l.epoch);
            if b.magic >= 2
                && b.partition_leader_epoch >= 0
                && latest.is_none_or(|l| b.partition_leader_epoch > l)
            {
                disagreements.push(EpochDisagreement::LastBatchNewer { batch: b });
            }
        }
        if disagreements.is_empty() {
            self.step(Step::EpochStartsAgree {
                epochs: cache.len(),
            });
        }
        answer
            .notes
            .extend(disagreements.into_iter().map(Note::CheckpointAndLog));
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(i32, i64)]) -> Vec<EpochEntry> {
        pairs.iter().copied().map(EpochEntry::from).collect()
    }

    fn end(epoch: i32, end_offset: i64) -> Option<EpochEnd> {
        Some(EpochEnd { epoch, end_offset })
    }

    #[test]
    fn end_offset_for_follows_the_epoch_cache() {
        let c = entries(&[(0, 0), (2, 10), (5, 30)]);
        assert_eq!(end_offset_for(&c, 5, 42), end(5, 42));
        assert_eq!(end_offset_for(&c, 0, 42), end(0, 10));
        assert_eq!(end_offset_for(&c, 1, 42), end(0, 10));
        assert_eq!(end_offset_for(&c, 3, 42), end(2, 30));
        assert_eq!(end_offset_for(&c, 6, 42), None);
        assert_eq!(end_offset_for(&c, -1, 42), None);
        assert_eq!(
            end_offset_for(&entries(&[(3, 5), (4, 9)]), 1, 42),
            end(1, 5)
        );
        assert_eq!(end_offset_for(&[], 0, 42), None);
    }

    #[test]
    fn epoch_cache_is_loaded_like_log_loader() {
        let (c, changes) = load_cache(entries(&[(0, 0), (1, 4), (2, 9), (3, 20)]), 5, 20);
        assert_eq!(c, entries(&[(1, 5), (2, 9)]));
        assert_eq!(
            changes,
            vec![
                EpochCacheChange::DroppedAtLogEnd {
                    log_end: 20,
                    dropped: entries(&[(3, 20)])
                },
                EpochCacheChange::FoldedIntoLogStart {
                    log_start: 5,
                    epoch: 1
                }
            ]
        );
        let (c, changes) = load_cache(entries(&[(0, 0), (1, 4)]), 0, 10);
        assert_eq!(c, entries(&[(0, 0), (1, 4)]));
        assert!(changes.is_empty());
        assert_eq!(epoch_for_offset(&c, 3), Some(0));
        assert_eq!(epoch_for_offset(&c, 4), Some(1));
        assert_eq!(epoch_for_offset(&entries(&[(2, 5)]), 3), None);
        // Entries are assigned in file order: a later, smaller epoch removes the larger one
        // before it; a repeated epoch at a later start is ignored; a negative entry is refused.
        let (c, changes) = load_cache(entries(&[(0, 0), (2, 50), (1, 60)]), 0, 100);
        assert_eq!(c, entries(&[(0, 0), (1, 60)]));
        assert_eq!(changes.len(), 1);
        let (c, _) = load_cache(entries(&[(0, 0), (1, 10), (1, 20), (-1, 30)]), 0, 100);
        assert_eq!(c, entries(&[(0, 0), (1, 10)]));
    }

    /// The changes in file order, typed (`print::words::epoch_cache_change` words them).
    #[test]
    fn changes_are_typed_in_file_order() {
        let (_, changes) = load_cache(entries(&[(0, 0), (2, 50), (1, 60), (-1, 3)]), 0, 55);
        assert_eq!(
            changes,
            vec![
                EpochCacheChange::Conflicts {
                    entry: EpochEntry {
                        epoch: 1,
                        start_offset: 60
                    },
                    removed: entries(&[(2, 50)]),
                },
                EpochCacheChange::Invalid(EpochEntry {
                    epoch: -1,
                    start_offset: 3
                }),
                EpochCacheChange::DroppedAtLogEnd {
                    log_end: 55,
                    dropped: entries(&[(1, 60)]),
                },
            ]
        );
    }
}
