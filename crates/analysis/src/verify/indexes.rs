//! `.index` and `.timeindex` checks. The file-level ones (size, Kafka's sanity check, the
//! preallocated tail, entry order) run when a pass is opened; the checks against the log run as
//! its batches stream past, in file order, and end in `finish`.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use super::{Findings, IndexWhat, Message, Nature, VerifyOptions};
use kseg_format::index::{Index, IndexKind, OffsetEntry, Offsets, TimeEntry, Times};

/// The order a pass walks an index's slots in: the file's own when it is already sorted (a
/// sound index, and no copy of its entries), else a permutation of slot numbers, 4 bytes an
/// entry (a garbage index of 1 GiB held 24 bytes per entry, 5 GB and more).
enum SlotOrder {
    File,
    Sorted(Vec<u32>),
}

impl SlotOrder {
    /// Slots `0..n` sorted by `key` (ties in file order), decoded from the bytes on demand.
    fn new<K: Ord>(n: usize, sorted: bool, key: impl Fn(usize) -> K) -> SlotOrder {
        if sorted {
            return SlotOrder::File;
        }
        // Index files are read up to 1 GiB, so slot numbers fit in 32 bits.
        let mut slots: Vec<u32> = (0..n as u32).collect();
        slots.sort_unstable_by_key(|&i| (key(i as usize), i));
        SlotOrder::Sorted(slots)
    }

    fn slot(&self, k: usize) -> usize {
        match self {
            SlotOrder::File => k,
            SlotOrder::Sorted(v) => v[k] as usize,
        }
    }
}

/// Where an index file sits in the segment's life.
#[derive(Debug, Clone, Copy)]
pub(super) struct IndexSetting {
    pub base: i64,
    pub active: bool,
    /// Kafka rebuilds this index at the next start.
    pub rebuilt: bool,
}

fn index_severity(rebuilt: bool) -> Nature {
    // Kafka rebuilds the indexes of segments it recovers, so damage there does not last; with a
    // clean shutdown it trusts every index as it is, the active segment's included.
    Nature::damage(rebuilt)
}

/// What verify says of an index kind beyond the format: how findings name it, and Kafka's
/// order of its entries in the file.
trait CheckedKind: IndexKind {
    /// How a finding names the file.
    const WHAT: IndexWhat;
    /// Whether a full pass (not only `--sanity`) reports Kafka's sanity check. The time index's
    /// fails on every zero tail, which the preallocation finding already reports.
    const SANITY_IN_FULL_PASS: bool;
    /// The check an entry out of Kafka's order fails.
    const ORDER_CHECK: &'static str;
    /// Whether that finding gives the entry's position in the file.
    const ORDER_AT_SLOT: bool;
    /// What a pass walks the entries by against the log.
    type Order: Ord;
    fn order_key(e: Self::Entry) -> Self::Order;
    /// Why `e` may not follow `prev` in the file (Kafka's append rule), if it may not.
    fn out_of_order(prev: &Self::Entry, e: &Self::Entry) -> Option<Message>;
}

impl CheckedKind for Offsets {
    const WHAT: IndexWhat = IndexWhat::Offsets;
    const SANITY_IN_FULL_PASS: bool = true;
    const ORDER_CHECK: &'static str = "offset-index-order";
    const ORDER_AT_SLOT: bool = false;
    /// By position, then offset.
    type Order = (u32, i64);
    fn order_key(e: OffsetEntry) -> (u32, i64) {
        (e.position, e.offset)
    }
    fn out_of_order(p: &OffsetEntry, e: &OffsetEntry) -> Option<Message> {
        (e.offset <= p.offset || e.position <= p.position).then_some(Message::OffsetEntryOrder {
            offset: e.offset,
            position: e.position,
            prev_offset: p.offset,
            prev_position: p.position,
        })
    }
}

impl CheckedKind for Times {
    const WHAT: IndexWhat = IndexWhat::Times;
    const SANITY_IN_FULL_PASS: bool = false;
    const ORDER_CHECK: &'static str = "time-index-order";
    const ORDER_AT_SLOT: bool = true;
    /// By offset.
    type Order = i64;
    fn order_key(e: TimeEntry) -> i64 {
        e.offset
    }
    fn out_of_order(p: &TimeEntry, e: &TimeEntry) -> Option<Message> {
        (e.timestamp <= p.timestamp || e.offset < p.offset).then_some(Message::TimeEntryOrder {
            timestamp: e.timestamp,
            offset: e.offset,
            prev_timestamp: p.timestamp,
            prev_offset: p.offset,
        })
    }
}

/// Reports the real entries of `index` that break Kafka's order; returns whether they are
/// already sorted by [`CheckedKind::order_key`].
fn check_order<K: CheckedKind>(
    ctx: &mut Findings<'_>,
    path: &Path,
    severity: Nature,
    index: &Index<'_, K>,
) -> bool {
    let mut sorted = true;
    let mut prev: Option<K::Entry> = None;
    for (slot, e) in index.real_entries().enumerate() {
        let Some(p) = prev.replace(e) else {
            continue;
        };
        if let Some(message) = K::out_of_order(&p, &e) {
            ctx.add(
                K::ORDER_CHECK,
                severity,
                path,
                K::ORDER_AT_SLOT.then(|| slot_position::<K>(slot)),
                Some(K::entry_offset(&e)),
                message,
            );
        }
        sorted &= K::order_key(e) >= K::order_key(p);
    }
    sorted
}

/// An index file read for a pass against the log: its bytes, the real entries decoded from
/// them on demand in the pass's order ([`CheckedKind::order_key`]), and how its findings read.
struct IndexFile<K: IndexKind> {
    path: PathBuf,
    severity: Nature,
    bytes: Vec<u8>,
    base: i64,
    entries: usize,
    order: SlotOrder,
    kind: PhantomData<K>,
}

impl<K: CheckedKind> IndexFile<K> {
    /// Reads the file and runs the file-level checks (size, Kafka's sanity check, the
    /// preallocated tail, entry order); `None` when there is nothing to check against the log
    /// (unreadable, or `--sanity`).
    fn open(
        ctx: &mut Findings<'_>,
        path: &Path,
        at: IndexSetting,
        opts: &VerifyOptions,
    ) -> Option<IndexFile<K>> {
        let severity = index_severity(at.rebuilt);
        let bytes = ctx.read(path)?;
        let index = Index::<K>::new(at.base, &bytes);
        let (layout, len, entry_size) = (index.layout, bytes.len(), K::ENTRY_SIZE);
        // A file length that is not a whole number of entries.
        if layout.partial_bytes != 0 {
            ctx.add(
                "index-size",
                severity,
                path,
                Some(slot_position::<K>(layout.slots)),
                None,
                Message::IndexSize { len, entry_size },
            );
        }
        // Kafka's own sanity check of an index file (`AbstractIndex.sanityCheck`).
        if K::SANITY_IN_FULL_PASS || opts.sanity_only {
            if let Err(e) = index.sanity_check() {
                ctx.add(
                    "index-sanity",
                    severity,
                    path,
                    None,
                    None,
                    Message::IndexSanity(e),
                );
            }
        }
        if opts.sanity_only {
            return None;
        }
        // A zero-filled preallocated tail: the normal state of a crashed broker's active segment.
        if layout.zero_tail {
            let active = at.active;
            ctx.add(
                "index-preallocated",
                if active {
                    Nature::Normal
                } else {
                    Nature::Tolerated
                },
                path,
                Some(slot_position::<K>(layout.real_entries)),
                None,
                Message::IndexPreallocated {
                    what: K::WHAT,
                    len,
                    real_entries: layout.real_entries,
                    active,
                },
            );
        }
        let sorted = check_order(ctx, path, severity, &index);
        let entries = index.layout.real_entries;
        let order = SlotOrder::new(entries, sorted, |i| index.slot(i).map(K::order_key));
        Some(IndexFile {
            path: path.to_path_buf(),
            severity,
            bytes,
            base: at.base,
            entries,
            order,
            kind: PhantomData,
        })
    }

    /// The `k`th entry in the pass's order, with its slot.
    fn get(&self, k: usize) -> Option<(usize, K::Entry)> {
        if k >= self.entries {
            return None;
        }
        let slot = self.order.slot(k);
        K::slot(self.base, &self.bytes, slot).map(|e| (slot, e))
    }

    /// The last real entry in the file.
    fn last(&self) -> Option<K::Entry> {
        let last = self.entries.checked_sub(1)?;
        K::slot(self.base, &self.bytes, last)
    }

    /// The entries from the `k`th on, in the pass's order.
    fn from(&self, k: usize) -> impl Iterator<Item = (usize, K::Entry)> + '_ {
        (k..self.entries).filter_map(|k| self.get(k))
    }

    /// A finding about this file at the file's severity.
    fn add(
        &self,
        ctx: &mut Findings<'_>,
        check: &'static str,
        at: Option<u64>,
        offset: Option<i64>,
        msg: Message,
    ) {
        ctx.add(check, self.severity, &self.path, at, offset, msg);
    }
}

/// Where slot `slot` of an index of kind `K` starts in its file.
fn slot_position<K: IndexKind>(slot: usize) -> u64 {
    (slot * K::ENTRY_SIZE) as u64
}

#[derive(Debug, Clone, Copy)]
struct PositionEntry {
    position: u64,
    offset: i64,
    slot: usize,
}

impl PositionEntry {
    fn new((slot, e): (usize, OffsetEntry)) -> PositionEntry {
        PositionEntry {
            position: e.position as u64,
            offset: e.offset,
            slot,
        }
    }
}

/// An entry above the last offset of the batch at its position, waiting for a later batch
/// (before the next entry's position) to end exactly there: a multi-batch append.
#[derive(Debug, Clone, Copy)]
struct PendingAppend {
    entry: PositionEntry,
    next_position: u64,
    batch_base: i64,
    batch_last: i64,
}

/// The offset index against the log, by position.
pub(super) struct OffsetIndexPass {
    /// The entries, walked by position, then offset.
    file: IndexFile<Offsets>,
    next: usize,
    pending: Option<PendingAppend>,
    multi_batch: usize,
    /// Entries naming an offset inside the batch at their position (its first offset, as Kafka
    /// up to 1.1 indexed appends): still valid lower bounds for lookups.
    inside_batch: usize,
}

impl OffsetIndexPass {
    /// Reads the `.index` and runs the file-level checks; `None` when there is nothing to
    /// check against the log (unreadable, or `--sanity`).
    pub fn open(
        ctx: &mut Findings<'_>,
        path: &Path,
        at: IndexSetting,
        opts: &VerifyOptions,
    ) -> Option<OffsetIndexPass> {
        Some(OffsetIndexPass {
            file: IndexFile::open(ctx, path, at, opts)?,
            next: 0,
            pending: None,
            multi_batch: 0,
            inside_batch: 0,
        })
    }

    /// The `k`th entry by position.
    fn get(&self, k: usize) -> Option<PositionEntry> {
        self.file.get(k).map(PositionEntry::new)
    }

    fn not_a_batch_start(&self, ctx: &mut Findings<'_>, e: PositionEntry) {
        self.file.add(
            ctx,
            "offset-index-mismatch",
            None,
            Some(e.offset),
            Message::NotBatchStart {
                position: e.position,
            },
        );
    }

    fn wrong_offset(
        &self,
        ctx: &mut Findings<'_>,
        e: PositionEntry,
        batch_base: i64,
        batch_last: i64,
    ) {
        self.file.add(
            ctx,
            "offset-index-mismatch",
            Some(e.position),
            Some(e.offset),
            Message::WrongOffset {
                offset: e.offset,
                position: e.position,
                batch_base,
                batch_last,
            },
        );
    }

    pub fn batch(
        &mut self,
        ctx: &mut Findings<'_>,
        position: u64,
        base_offset: i64,
        last_offset: i64,
    ) {
        if let Some(p) = self.pending {
            if position >= p.next_position {
                self.pending = None;
                self.wrong_offset(ctx, p.entry, p.batch_base, p.batch_last);
            } else if last_offset == p.entry.offset {
                self.pending = None;
                self.multi_batch += 1;
            }
        }
        while let Some(e) = self.get(self.next) {
            if e.position > position {
                break;
            }
            self.next += 1;
            if e.position < position {
                self.not_a_batch_start(ctx, e);
                continue;
            }
            if e.offset == last_offset {
                continue;
            }
            if e.offset >= base_offset && e.offset < last_offset {
                self.inside_batch += 1;
                continue;
            }
            if e.offset > last_offset {
                // Older brokers and followers indexed a whole multi-batch append: the append's
                // last offset at the position of its first batch. Valid if a later batch, before
                // the next entry's position, ends exactly there.
                let next_position = self.get(self.next).map_or(u64::MAX, |n| n.position);
                if next_position > position {
                    self.pending = Some(PendingAppend {
                        entry: e,
                        next_position,
                        batch_base: base_offset,
                        batch_last: last_offset,
                    });
                    continue;
                }
            }
            self.wrong_offset(ctx, e, base_offset, last_offset);
        }
    }

    /// After the last batch, ending at `valid_end`.
    pub fn finish(mut self, ctx: &mut Findings<'_>, valid_end: u64) {
        if let Some(p) = self.pending.take() {
            self.wrong_offset(ctx, p.entry, p.batch_base, p.batch_last);
        }
        for e in self.file.from(self.next).map(PositionEntry::new) {
            if e.position >= valid_end {
                self.file.add(
                    ctx,
                    "offset-index-beyond-log",
                    Some(slot_position::<Offsets>(e.slot)),
                    Some(e.offset),
                    Message::EntryBeyondLog {
                        position: e.position,
                        valid_end,
                    },
                );
            } else {
                self.not_a_batch_start(ctx, e);
            }
        }
        // Entries Kafka wrote that are valid though they do not name a batch's last offset.
        let valid = [
            (
                self.inside_batch,
                Message::InsideBatchEntries(self.inside_batch),
            ),
            (
                self.multi_batch,
                Message::MultiBatchEntries(self.multi_batch),
            ),
        ];
        for (_, msg) in valid.into_iter().filter(|(n, _)| *n > 0) {
            let path = &self.file.path;
            ctx.add(
                "offset-index-mismatch",
                Nature::Normal,
                path,
                None,
                None,
                msg,
            );
        }
    }
}

/// The time index against the log: each entry must carry the maximum timestamp so far at the
/// batch ending at its offset.
pub(super) struct TimeIndexPass {
    /// The entries, walked by offset.
    file: IndexFile<Times>,
    next: usize,
    last_timestamp: Option<i64>,
    max_so_far: i64,
    record_offsets: usize,
    /// Kafka rebuilds this index (with its closing entry) at the next start.
    rebuilt: bool,
}

impl TimeIndexPass {
    /// Reads the `.timeindex` and runs the file-level checks; `None` when there is nothing to
    /// check against the log (unreadable, or `--sanity`).
    pub fn open(
        ctx: &mut Findings<'_>,
        path: &Path,
        at: IndexSetting,
        opts: &VerifyOptions,
    ) -> Option<TimeIndexPass> {
        let file = IndexFile::<Times>::open(ctx, path, at, opts)?;
        Some(TimeIndexPass {
            last_timestamp: file.last().map(|e| e.timestamp),
            file,
            next: 0,
            max_so_far: i64::MIN,
            record_offsets: 0,
            rebuilt: at.rebuilt,
        })
    }

    pub fn batch(
        &mut self,
        ctx: &mut Findings<'_>,
        base_offset: i64,
        last_offset: i64,
        max_ts: i64,
    ) {
        self.max_so_far = self.max_so_far.max(max_ts);
        while let Some((slot, e)) = self.file.get(self.next) {
            if e.offset > last_offset {
                break;
            }
            self.next += 1;
            let at = Some(slot_position::<Times>(slot));
            if e.offset < base_offset {
                self.file.add(
                    ctx,
                    "time-index-mismatch",
                    at,
                    Some(e.offset),
                    Message::TimeEntryNotInBatch { offset: e.offset },
                );
            } else if e.offset != last_offset {
                // Up to 3.6 (uncompressed CreateTime appends) the offset of the max-timestamp record.
                if max_ts == e.timestamp {
                    self.record_offsets += 1;
                } else {
                    self.file.add(
                        ctx,
                        "time-index-mismatch",
                        at,
                        Some(e.offset),
                        Message::TimeEntryInsideBatch {
                            timestamp: e.timestamp,
                            offset: e.offset,
                            batch_base: base_offset,
                            batch_last: last_offset,
                            max_timestamp: max_ts,
                        },
                    );
                }
            } else if max_ts != e.timestamp || self.max_so_far != e.timestamp {
                self.file.add(
                    ctx,
                    "time-index-mismatch",
                    at,
                    Some(e.offset),
                    Message::TimeEntryWrong {
                        timestamp: e.timestamp,
                        offset: e.offset,
                        max_timestamp: max_ts,
                        max_so_far: self.max_so_far,
                    },
                );
            }
        }
    }

    /// After the last batch.
    pub fn finish(self, ctx: &mut Findings<'_>, active: bool, had_batches: bool) {
        for (slot, e) in self.file.from(self.next) {
            self.file.add(
                ctx,
                "time-index-beyond-log",
                Some(slot_position::<Times>(slot)),
                Some(e.offset),
                Message::TimeEntryPastLog { offset: e.offset },
            );
        }
        if self.record_offsets > 0 {
            ctx.add(
                "time-index-mismatch",
                Nature::Normal,
                &self.file.path,
                None,
                None,
                Message::RecordOffsetEntries(self.record_offsets),
            );
        }
        if !active && !self.rebuilt && had_batches && self.max_so_far >= 0 {
            let last = self.last_timestamp;
            if last.is_none_or(|t| t < self.max_so_far) {
                ctx.add(
                    "time-index-mismatch",
                    Nature::Tolerated,
                    &self.file.path,
                    None,
                    None,
                    Message::NoClosingTimeEntry {
                        max_so_far: self.max_so_far,
                        last,
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SlotOrder;

    /// The permutation walks slots as the stable sort of the entries it replaced did: by key,
    /// ties in file order.
    #[test]
    fn slot_order_is_the_stable_sort() {
        let keys: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8 % 37)
            .collect();
        let order = SlotOrder::new(keys.len(), false, |i| keys[i]);
        let mut want: Vec<usize> = (0..keys.len()).collect();
        want.sort_by_key(|&i| keys[i]);
        let got: Vec<usize> = (0..keys.len()).map(|k| order.slot(k)).collect();
        assert_eq!(got, want);
        let file = SlotOrder::new(3, true, |i| i);
        assert_eq!((0..3).map(|k| file.slot(k)).collect::<Vec<_>>(), [0, 1, 2]);
    }
}
