//! One cleaning pass as Kafka 4.4's `Cleaner.doClean` performs it: the offset map over the
//! dirty range (`buildOffsetMap`, stopping where the map is full), the segments below its end
//! grouped (`groupSegmentsBySize`) and each batch filtered (`cleanInto` with
//! `MemoryRecords.filterTo`): kept whole, rebuilt with records dropped, kept empty, or removed.
//! What each batch becomes goes to a [`PassSink`]; the counts to [`PassStats`].

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::io;

use kseg_format::batch::TimestampType;
use kseg_format::compression::Codec;
use kseg_format::control::ControlType;
use kseg_format::encode::{
    encode_empty_batch, encode_rebuilt_batch, EmptyBatch, KeptRecord, RebuiltBatch,
};
use kseg_format::log::{v2_record_bytes, BatchInfo, LogEntry, LogWalker, RecordScratch, WalkEvent};
use kseg_format::txn_index::AbortedTxn;
use kseg_storage::source::open_log;

use super::facts::{collect_aborted, segments_in, txn_entries, Facts, Producer, Segment};
use super::offset_map::OffsetMap;

/// Why Kafka's cleaner throws on a partition (it then marks it uncleanable until restart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub segment: i64,
    pub position: u64,
    pub message: String,
}

/// Where the offset map ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEnd {
    /// Distinct keys put.
    pub keys: usize,
    /// The map filled: the keyed record it could not take.
    pub full_at: Option<i64>,
    /// `latestOffset + 1`: the cleaner's checkpoint after the pass.
    pub end_offset: i64,
    pub records_read: u64,
    pub bytes_read: u64,
}

/// What happens to one batch of the cleaned range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchFate {
    /// Every record kept and nothing to stamp: the original bytes.
    Copied,
    /// Records dropped, or a delete horizon stamped: re-encoded.
    Rebuilt { stamped: bool },
    /// Every record dropped but the batch stays, empty (61 bytes).
    KeptEmpty(EmptyReason),
    /// Gone.
    Removed,
}

/// Why an empty batch stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyReason {
    /// It holds its producer's last sequence (or last epoch, for a marker): the producer is
    /// still active.
    ActiveProducer(i64),
    /// The last batch before the high watermark.
    HighWatermark,
}

/// The counts of a pass, as `CleanerStats` keeps them and more.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PassStats {
    /// `messagesRead`: records of the batches not removed whole.
    pub messages_read: u64,
    /// `messagesWritten`.
    pub messages_written: u64,
    /// `bytesRead`: every batch of the cleaned segments.
    pub bytes_read: u64,
    /// `bytesWritten`.
    pub bytes_written: u64,
    /// `invalidMessagesRead`: keyless records dropped.
    pub keyless_removed: u64,
    /// Tombstones removed (their horizon passed).
    pub tombstones_removed: u64,
    /// Batches given a delete horizon.
    pub batches_stamped: u64,
    pub markers_removed: u64,
    /// Records of aborted transactions removed.
    pub aborted_records_removed: u64,
    /// Records below the cleaned range end whose key has a later offset.
    pub superseded_removed: u64,
    pub batches_read: u64,
    pub batches_copied: u64,
    pub batches_rebuilt: u64,
    pub batches_removed: u64,
    pub empty_kept: Vec<(i64, EmptyReason)>,
}

/// Receives the pass's output, group by group.
pub trait PassSink {
    fn group(&mut self, _segments: &[&Segment]) -> io::Result<()> {
        Ok(())
    }
    /// One batch written to the cleaned segment.
    fn batch(&mut self, _info: &BatchInfo, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// An entry for the cleaned segment's `.txnindex`.
    fn aborted_txn(&mut self, _txn: &AbortedTxn) -> io::Result<()> {
        Ok(())
    }
    fn group_done(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A sink that keeps nothing (the preview).
pub struct Discard;
impl PassSink for Discard {}

/// The settings of one pass.
#[derive(Debug, Clone, Copy)]
pub struct PassParams {
    pub now: i64,
    pub log_start: i64,
    pub first_dirty: i64,
    /// `LogToClean.firstUncleanableOffset`: a segment base.
    pub first_uncleanable: i64,
    pub high_watermark: i64,
    pub delete_retention_ms: i64,
    pub segment_bytes: i64,
    pub max_index_bytes: i64,
    pub producer_id_expiration_ms: i64,
    pub map_memory: usize,
    pub load_factor: f64,
}

/// `Cleaner.buildOffsetMap` over `[start, end)`.
pub fn build_offset_map(
    facts: &Facts,
    p: &PassParams,
    map: &mut OffsetMap,
    txns: &mut dyn FnMut(usize) -> Vec<AbortedTxn>,
) -> Result<MapEnd, Refusal> {
    let (start, end) = (p.first_dirty, p.first_uncleanable);
    let dirty = segments_in(&facts.segments, start, end);
    let limit = super::offset_map::max_desired_entries(p.map_memory, p.load_factor);
    let mut meta = TxnMeta::new(collect_aborted(
        &facts.segments,
        txns,
        p.log_start,
        start,
        end,
    ));
    let mut out = MapEnd {
        keys: 0,
        full_at: None,
        end_offset: 0,
        records_read: 0,
        bytes_read: 0,
    };
    let mut scratch = RecordScratch::default();
    'segments: for i in dirty.clone() {
        let seg = &facts.segments[i];
        let next_start = facts
            .segments
            .get(i + 1)
            .filter(|_| i + 1 < dirty.end)
            .map_or(end, |n| n.base);
        let mut full = None;
        walk(seg, &mut |position, entry, info| {
            out.bytes_read += info.size as u64;
            if info.is_control {
                meta.on_control(entry, info, &mut scratch);
                out.records_read += 1;
            } else if meta.on_data(info) {
                out.records_read += info.count.unwrap_or(0).max(0) as u64;
            } else {
                let mut stop = None;
                let result = kseg_format::log::for_each_record(entry, &mut scratch, |r| {
                    if stop.is_some() {
                        return;
                    }
                    if let Some(key) = r.key {
                        if r.offset >= start {
                            if map.len() < limit {
                                map.put(key, r.offset);
                            } else {
                                stop = Some(r.offset);
                                return;
                            }
                        }
                    }
                    out.records_read += 1;
                });
                if let Err(e) = result {
                    return Err(refusal(seg, position, &e.message));
                }
                if stop.is_some() {
                    full = stop;
                    return Ok(false);
                }
            }
            if info.last_offset >= start {
                map.set_latest_offset(info.last_offset);
            }
            Ok(true)
        })?;
        if full.is_some() {
            out.full_at = full;
            break 'segments;
        }
        // Offsets missing at the end of a segment: the map reaches the next segment.
        map.set_latest_offset(next_start - 1);
    }
    out.keys = map.len();
    out.end_offset = map.latest_offset() + 1;
    Ok(out)
}

fn refusal(seg: &Segment, position: u64, message: &str) -> Refusal {
    Refusal {
        segment: seg.base,
        position,
        message: message.to_string(),
    }
}

/// Walks one segment's batches in order; `visit` answers whether to go on. Bytes Kafka's
/// reader would refuse end the walk with a [`Refusal`].
fn walk(
    seg: &Segment,
    visit: &mut dyn FnMut(u64, &LogEntry<'_>, &BatchInfo) -> Result<bool, Refusal>,
) -> Result<(), Refusal> {
    let mut src = open_log(&seg.log, false).map_err(|e| refusal(seg, 0, &e.to_string()))?;
    let mut walker = LogWalker::new(u64::MAX).with_crc_check(false);
    loop {
        let event = walker
            .next(src.as_mut())
            .map_err(|e| refusal(seg, walker.position(), &e.to_string()))?;
        match event {
            None => return Ok(()),
            Some(WalkEvent::Entry { position, bytes }) => {
                let entry =
                    LogEntry::parse(bytes).map_err(|e| refusal(seg, position, &e.message))?;
                let info = entry.info_with_crc(Some(true));
                if !visit(position, &entry, &info)? {
                    return Ok(());
                }
            }
            Some(WalkEvent::Corrupt {
                position, reason, ..
            }) => return Err(refusal(seg, position, &reason.to_string())),
            Some(WalkEvent::Tail {
                position,
                length,
                kind,
            }) => return Err(refusal(seg, position, &kind.describe(length))),
        }
    }
}

/// `CleanedTransactionMetadata`: which batches belong to aborted transactions, and which
/// markers may go.
struct TxnMeta {
    /// Aborted transactions not yet reached, by first offset (a min-heap of (first offset,
    /// arrival), each with its entry).
    pending: BinaryHeap<std::cmp::Reverse<(i64, usize)>>,
    entries: Vec<AbortedTxn>,
    /// Producer -> (the aborted transaction, the last batch of it seen).
    ongoing_aborted: HashMap<i64, (AbortedTxn, Option<i64>)>,
    ongoing_committed: HashSet<i64>,
    /// Entries the cleaned segment's `.txnindex` gets (an ABORT marker kept).
    pub cleaned_index: Vec<AbortedTxn>,
}

impl TxnMeta {
    fn new(aborted: Vec<AbortedTxn>) -> TxnMeta {
        let mut m = TxnMeta {
            pending: BinaryHeap::new(),
            entries: Vec::new(),
            ongoing_aborted: HashMap::new(),
            ongoing_committed: HashSet::new(),
            cleaned_index: Vec::new(),
        };
        m.add(aborted);
        m
    }

    fn add(&mut self, aborted: Vec<AbortedTxn>) {
        for t in aborted {
            self.pending
                .push(std::cmp::Reverse((t.first_offset, self.entries.len())));
            self.entries.push(t);
        }
    }

    fn consume_up_to(&mut self, offset: i64) {
        while let Some(std::cmp::Reverse((first, i))) = self.pending.peek().copied() {
            if first > offset {
                break;
            }
            self.pending.pop();
            let t = self.entries[i];
            self.ongoing_aborted
                .entry(t.producer_id)
                .or_insert((t, None));
        }
    }

    /// `onBatchRead`: whether the data batch belongs to an aborted transaction.
    fn on_data(&mut self, b: &BatchInfo) -> bool {
        self.consume_up_to(b.last_offset);
        if !b.is_transactional {
            return false;
        }
        if let Some((_, last)) = self.ongoing_aborted.get_mut(&b.producer_id) {
            *last = Some(b.last_offset);
            true
        } else {
            self.ongoing_committed.insert(b.producer_id);
            false
        }
    }

    /// `onControlBatchRead`: whether the marker may be discarded.
    fn on_control(
        &mut self,
        entry: &LogEntry<'_>,
        b: &BatchInfo,
        scratch: &mut RecordScratch,
    ) -> bool {
        self.consume_up_to(b.last_offset);
        match first_control(entry, scratch) {
            None => true,
            Some(ControlType::Abort) => {
                match self.ongoing_aborted.remove(&b.producer_id) {
                    // Kept until every batch of the transaction is gone; the cleaned segment's
                    // index keeps its entry.
                    Some((t, Some(_))) => {
                        self.cleaned_index.push(t);
                        false
                    }
                    _ => true,
                }
            }
            Some(ControlType::Commit) => !self.ongoing_committed.remove(&b.producer_id),
            Some(_) => false,
        }
    }
}

/// The type of the first control record of a control batch (`ControlRecordType.parse` of its
/// key); `None`: an empty batch, already cleaned.
fn first_control(entry: &LogEntry<'_>, scratch: &mut RecordScratch) -> Option<ControlType> {
    let mut first = None;
    let _ = kseg_format::log::for_each_record(entry, scratch, |r| {
        if first.is_none() {
            let kind = r
                .key
                .and_then(|k| k.get(2..4))
                .map_or(ControlType::Unknown(-1), |k| {
                    ControlType::from_id(i16::from_be_bytes([k[0], k[1]]))
                });
            first = Some(kind);
        }
    });
    first
}

/// `groupSegmentsBySize`: consecutive segments whose `.log`, `.index` and `.timeindex` sizes
/// stay within `segment.bytes` and `segment.index.bytes`, and whose offsets stay within 2^31-1
/// of the group's base.
pub fn group_segments(
    segments: &[Segment],
    max_size: i64,
    max_index_size: i64,
    first_uncleanable: i64,
) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < segments.len() {
        let start = i;
        let mut log = segments[i].size as i64;
        let mut index = segments[i].offset_index_bytes as i64;
        let mut time = segments[i].time_index_bytes as i64;
        i += 1;
        while i < segments.len() {
            let s = &segments[i];
            let last_offset = match segments.get(i + 1) {
                Some(next) => next.base - 1,
                None => first_uncleanable - 1,
            };
            let fits = log + s.size as i64 <= max_size
                && index + s.offset_index_bytes as i64 <= max_index_size
                && time + s.time_index_bytes as i64 <= max_index_size
                && (s.size == 0 || last_offset - segments[i - 1].base <= i32::MAX as i64);
            if !fits {
                break;
            }
            log += s.size as i64;
            index += s.offset_index_bytes as i64;
            time += s.time_index_bytes as i64;
            i += 1;
        }
        groups.push(start..i);
    }
    groups
}

/// The producers the cleaner treats as active (`lastRecordsOfActiveProducers`): not expired
/// (`producer.id.expiration.ms` since their last write, unless a transaction is open).
pub fn active_producers(
    producers: &HashMap<i64, Producer>,
    now: i64,
    expiration_ms: i64,
) -> HashMap<i64, Producer> {
    producers
        .iter()
        .filter(|(_, p)| {
            p.open_first.is_some() || now.saturating_sub(p.last_timestamp) < expiration_ms
        })
        .map(|(k, v)| (*k, *v))
        .collect()
}

/// `Cleaner.cleanSegments` for every group below `end_offset`.
pub fn clean(
    facts: &Facts,
    p: &PassParams,
    map: &mut OffsetMap,
    end_offset: i64,
    txns: &mut dyn FnMut(usize) -> Vec<AbortedTxn>,
    sink: &mut dyn PassSink,
) -> Result<(PassStats, Vec<std::ops::Range<usize>>), Refusal> {
    let below = segments_in(&facts.segments, 0, end_offset);
    let segs = &facts.segments[below.clone()];
    let groups = group_segments(
        segs,
        p.segment_bytes,
        p.max_index_bytes,
        p.first_uncleanable,
    );
    // The legacy (v0/v1) tombstone horizon: the last clean segment's mtime less
    // delete.retention.ms.
    let clean_part = segments_in(&facts.segments, 0, p.first_dirty);
    let legacy_horizon = if clean_part.is_empty() {
        0
    } else {
        facts.segments[clean_part.end - 1].mtime_ms - p.delete_retention_ms
    };
    let active = active_producers(&facts.producers, p.now, p.producer_id_expiration_ms);
    let mut stats = PassStats::default();
    let mut meta = TxnMeta::new(Vec::new());
    let mut scratch = RecordScratch::default();
    let mut out = Vec::new();
    let mut enc = Vec::new();
    for g in &groups {
        let members: Vec<&Segment> = segs[g.clone()].iter().collect();
        sink.group(&members)
            .map_err(|e| refusal(members[0], 0, &e.to_string()))?;
        for (k, seg) in members.iter().enumerate() {
            let upper = match members.get(k + 1) {
                Some(n) => n.base,
                None => seg.next_offset.unwrap_or(seg.base),
            };
            meta.add(collect_aborted(
                &facts.segments,
                txns,
                p.log_start,
                seg.base,
                upper,
            ));
            let retain_legacy = seg.mtime_ms > legacy_horizon;
            walk(seg, &mut |position, entry, info| {
                out.clear();
                filter_batch(
                    entry,
                    info,
                    p,
                    map,
                    &mut meta,
                    &active,
                    retain_legacy,
                    &mut stats,
                    &mut scratch,
                    &mut out,
                    &mut enc,
                )
                .map_err(|m| refusal(seg, position, &m))?;
                for t in meta.cleaned_index.drain(..) {
                    sink.aborted_txn(&t)
                        .map_err(|e| refusal(seg, position, &e.to_string()))?;
                }
                if !out.is_empty() {
                    sink.batch(info, &out)
                        .map_err(|e| refusal(seg, position, &e.to_string()))?;
                }
                Ok(true)
            })?;
        }
        sink.group_done()
            .map_err(|e| refusal(members[0], 0, &e.to_string()))?;
    }
    Ok((stats, groups))
}

/// `filterTo` for one batch, with the cleaner's `RecordFilter`: what it writes goes to `out`.
#[allow(clippy::too_many_arguments)]
fn filter_batch(
    entry: &LogEntry<'_>,
    b: &BatchInfo,
    p: &PassParams,
    map: &mut OffsetMap,
    meta: &mut TxnMeta,
    active: &HashMap<i64, Producer>,
    retain_legacy: bool,
    stats: &mut PassStats,
    scratch: &mut RecordScratch,
    out: &mut Vec<u8>,
    enc: &mut Vec<u8>,
) -> Result<(), String> {
    stats.batches_read += 1;
    stats.bytes_read += b.size as u64;
    // checkBatchRetention.
    let can_discard = if b.is_control {
        meta.on_control(entry, b, scratch)
    } else {
        meta.on_data(b)
    };
    let discard_records = if b.is_control {
        can_discard && b.delete_horizon_ms.is_some_and(|h| h <= p.now)
    } else {
        can_discard
    };
    let last_of_producer = active
        .get(&b.producer_id)
        .is_some_and(|lr| match lr.last_data_offset {
            Some(last) => b.last_offset == last,
            None => b.is_control && b.producer_epoch == lr.epoch,
        });
    enum Retention {
        Delete,
        RetainEmpty(EmptyReason),
        DeleteEmpty,
    }
    let retention = if b.producer_id >= 0 && last_of_producer {
        Retention::RetainEmpty(EmptyReason::ActiveProducer(b.producer_id))
    } else if b.last_offset.saturating_add(1) == p.high_watermark {
        Retention::RetainEmpty(EmptyReason::HighWatermark)
    } else if discard_records {
        Retention::Delete
    } else {
        Retention::DeleteEmpty
    };
    let marker_for_empty_txn = can_discard && b.is_control;
    if matches!(retention, Retention::Delete) {
        stats.batches_removed += 1;
        if b.is_control {
            stats.markers_removed += 1;
        } else {
            stats.aborted_records_removed += b.count.unwrap_or(0).max(0) as u64;
        }
        return Ok(());
    }
    // filterBatch: the records kept.
    let payload = v2_record_bytes(entry, scratch).map_err(|e| e.message.to_string())?;
    let mut kept: Vec<KeptRecord<'_>> = Vec::new();
    let mut all = true;
    let mut tombstones = false;
    let mut read = 0u64;
    let legacy = b.magic < 2;
    if let (Some(payload), LogEntry::V2(batch)) = (payload, entry) {
        let origin = if b.codec == Codec::None { 61 } else { 0 };
        let records = batch
            .records(payload, origin)
            .map_err(|e| e.message.to_string())?;
        for r in records {
            let r = r.map_err(|e| e.message.to_string())?;
            read += 1;
            let keep = if discard_records {
                if b.is_control {
                    stats.markers_removed += 1;
                } else {
                    stats.aborted_records_removed += 1;
                }
                false
            } else if b.is_control {
                true
            } else {
                retain_record(
                    map,
                    p,
                    b,
                    r.offset,
                    r.key,
                    r.value.is_some(),
                    retain_legacy,
                    stats,
                )
            };
            if keep {
                tombstones |= r.value.is_none();
                kept.push(KeptRecord {
                    offset: r.offset,
                    timestamp: r.timestamp,
                    key: r.key,
                    value: r.value,
                    headers: r.headers,
                });
            } else {
                all = false;
            }
        }
    } else if legacy {
        return Err(
            "a v0/v1 message in the cleaned range: its conversion to v2 is not modelled".into(),
        );
    }
    stats.messages_read += read;
    if !kept.is_empty() {
        let stamp = (tombstones || marker_for_empty_txn) && b.delete_horizon_ms.is_none();
        if all && !stamp {
            if let LogEntry::V2(batch) = entry {
                out.extend_from_slice(batch.bytes);
            }
            stats.batches_copied += 1;
        } else {
            let horizon = if stamp {
                Some(p.now.saturating_add(p.delete_retention_ms))
            } else {
                b.delete_horizon_ms
            };
            let rb = RebuiltBatch {
                base_offset: b.base_offset,
                last_offset: b.last_offset,
                partition_leader_epoch: b.partition_leader_epoch,
                codec: b.codec,
                log_append_time: (b.timestamp_type == TimestampType::LogAppendTime)
                    .then_some(b.max_timestamp),
                transactional: b.is_transactional,
                control: b.is_control,
                producer_id: b.producer_id,
                producer_epoch: b.producer_epoch,
                base_sequence: b.base_sequence,
                delete_horizon: horizon,
            };
            encode_rebuilt_batch(out, &rb, &kept, enc);
            stats.batches_rebuilt += 1;
            if stamp {
                stats.batches_stamped += 1;
            }
        }
        stats.messages_written += kept.len() as u64;
        stats.bytes_written += out.len() as u64;
    } else if let Retention::RetainEmpty(reason) = retention {
        encode_empty_batch(
            out,
            &EmptyBatch {
                base_offset: b.base_offset,
                last_offset: b.last_offset,
                partition_leader_epoch: b.partition_leader_epoch,
                log_append_time: b.timestamp_type == TimestampType::LogAppendTime,
                max_timestamp: b.max_timestamp,
                transactional: b.is_transactional,
                control: b.is_control,
                producer_id: b.producer_id,
                producer_epoch: b.producer_epoch,
                base_sequence: b.base_sequence,
            },
        );
        stats.empty_kept.push((b.base_offset, reason));
        stats.bytes_written += out.len() as u64;
    } else {
        stats.batches_removed += 1;
    }
    Ok(())
}

/// `Cleaner.shouldRetainRecord` for a data record.
#[allow(clippy::too_many_arguments)]
fn retain_record(
    map: &mut OffsetMap,
    p: &PassParams,
    b: &BatchInfo,
    offset: i64,
    key: Option<&[u8]>,
    has_value: bool,
    retain_legacy: bool,
    stats: &mut PassStats,
) -> bool {
    if offset > map.latest_offset() {
        return true;
    }
    let Some(key) = key else {
        stats.keyless_removed += 1;
        return false;
    };
    let found = map.get(key);
    let latest = offset >= found;
    let retain_deletes = if b.magic >= 2 {
        b.delete_horizon_ms.is_none_or(|h| p.now < h)
    } else {
        retain_legacy
    };
    if !latest {
        stats.superseded_removed += 1;
        return false;
    }
    if !has_value && !retain_deletes {
        stats.tombstones_removed += 1;
        return false;
    }
    true
}

/// A segment's `.txnindex` entries, read once each.
pub fn txn_cache(facts: &Facts) -> impl FnMut(usize) -> Vec<AbortedTxn> + '_ {
    let mut cache: HashMap<usize, Vec<AbortedTxn>> = HashMap::new();
    move |i| {
        cache
            .entry(i)
            .or_insert_with(|| txn_entries(&facts.segments[i]))
            .clone()
    }
}
