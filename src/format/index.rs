//! `.index` (offset index) and `.timeindex` (time index) entries, with the zero-slot stop rule
//! Kafka's tools apply to preallocated files left behind by a crash.

use super::reader::DecodeError;

pub const OFFSET_ENTRY_SIZE: usize = 8;
pub const TIME_ENTRY_SIZE: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetEntry {
    pub relative_offset: i32,
    pub offset: i64,
    pub position: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeEntry {
    pub timestamp: i64,
    pub relative_offset: i32,
    pub offset: i64,
}

/// How much of an index file holds real entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexLayout {
    /// `floor(len / entry size)`: what Kafka believes when it opens the file.
    pub slots: usize,
    /// Entries before the first zero slot after slot 0 (the DumpLogSegments stop rule).
    pub entries: usize,
    /// Entries Kafka could have written: `entries`, or 0 when slot 0 is all zero bytes (the
    /// first batch of a segment is never indexed, so an all-zero slot 0 is preallocation).
    pub real_entries: usize,
    /// Bytes after the last whole slot (file length not a multiple of the entry size).
    pub partial_bytes: usize,
    /// True when every slot from `entries` on is all zeros: a preallocated or crash-left tail.
    pub zero_tail: bool,
}

/// An offset index file over borrowed bytes.
#[derive(Debug, Clone, Copy)]
pub struct OffsetIndex<'a> {
    pub base_offset: i64,
    bytes: &'a [u8],
    pub layout: IndexLayout,
}

impl<'a> OffsetIndex<'a> {
    pub fn new(base_offset: i64, bytes: &'a [u8]) -> Self {
        OffsetIndex {
            base_offset,
            bytes,
            layout: layout_of::<Offsets>(bytes),
        }
    }

    /// Slot `i` as stored, including slots past the stop rule.
    pub fn slot(&self, i: usize) -> Option<OffsetEntry> {
        offset_slot(self.base_offset, self.bytes, i)
    }

    /// The entries by the DumpLogSegments stop rule (slot 0 is always shown).
    pub fn entries(&self) -> impl Iterator<Item = OffsetEntry> + '_ {
        (0..self.layout.entries).filter_map(move |i| self.slot(i))
    }

    /// The entries Kafka can have written (an all-zero slot 0 is preallocation, not an entry).
    pub fn real_entries(&self) -> impl Iterator<Item = OffsetEntry> + '_ {
        (0..self.layout.real_entries).filter_map(move |i| self.slot(i))
    }

    /// Kafka's `OffsetIndex.lookup`: the entry with the largest offset ≤ target, or
    /// `(baseOffset, 0)` when there is none. Assumes the entries are sorted, as Kafka does.
    pub fn lookup(&self, target: i64) -> OffsetEntry {
        let n = self.layout.entries;
        let floor = largest_at_most(n, target, |i| {
            self.slot(i).map(|e| e.offset).unwrap_or(i64::MAX)
        });
        floor.and_then(|i| self.slot(i)).unwrap_or(OffsetEntry {
            relative_offset: 0,
            offset: self.base_offset,
            position: 0,
        })
    }

    /// Kafka's `OffsetIndex.sanityCheck`.
    pub fn sanity_check(&self) -> Result<(), SanityError> {
        if self.layout.partial_bytes != 0 {
            return Err(SanityError::PartialEntry {
                length: self.bytes.len(),
                entry_size: OFFSET_ENTRY_SIZE,
            });
        }
        if let Some(last) = self.layout.slots.checked_sub(1).and_then(|i| self.slot(i)) {
            if last.offset < self.base_offset {
                return Err(SanityError::LastOffsetBelowBase {
                    last: last.offset,
                    base: self.base_offset,
                });
            }
        }
        Ok(())
    }
}

/// Slot `i` of an offset index file's bytes (for callers that own the bytes and walk slots in
/// their own order).
pub fn offset_slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<OffsetEntry> {
    let at = i.checked_mul(OFFSET_ENTRY_SIZE)?;
    let raw = bytes.get(at..at.checked_add(OFFSET_ENTRY_SIZE)?)?;
    let relative = i32::from_be_bytes(raw[0..4].try_into().ok()?);
    Some(OffsetEntry {
        relative_offset: relative,
        offset: base_offset.wrapping_add(relative as i64),
        position: u32::from_be_bytes(raw[4..8].try_into().ok()?),
    })
}

/// Slot `i` of a time index file's bytes.
pub fn time_slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<TimeEntry> {
    let at = i.checked_mul(TIME_ENTRY_SIZE)?;
    let raw = bytes.get(at..at.checked_add(TIME_ENTRY_SIZE)?)?;
    let relative = i32::from_be_bytes(raw[8..12].try_into().ok()?);
    Some(TimeEntry {
        timestamp: i64::from_be_bytes(raw[0..8].try_into().ok()?),
        relative_offset: relative,
        offset: base_offset.wrapping_add(relative as i64),
    })
}

/// What tells the two index files apart, so that code over either (the paged reader of
/// `storage::paged_index`, lookup, verify) is written once: the entry size, where the relative
/// offset stands in an entry, the search key and Kafka's floor lookup. [`Offsets`] is the
/// `.index`, [`Times`] the `.timeindex`.
pub trait IndexKind {
    /// The typed entry.
    type Entry: Copy + PartialEq + std::fmt::Debug;
    const ENTRY_SIZE: usize;
    /// Where the relative offset (the zero-slot stop rule's field) stands in an entry.
    const RELATIVE_OFFSET_AT: usize;
    /// The file name extension, with its dot.
    const EXTENSION: &'static str;
    /// The key a lookup compares with its target (offset or timestamp) of the whole entry `e`.
    fn key(base_offset: i64, e: &[u8]) -> i64;
    /// Kafka's `lookup` over the whole entries `bytes`: the floor entry of `target` (or the
    /// index's default), and the slot it stands in (`None` for the default).
    fn lookup(base_offset: i64, bytes: &[u8], target: i64) -> (Self::Entry, Option<usize>);
    /// Slot `i` of `bytes` as stored.
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<Self::Entry>;
    /// How much of `bytes` holds real entries.
    fn layout(bytes: &[u8]) -> IndexLayout {
        layout_of::<Self>(bytes)
    }
}

/// The offset index (`.index`): 8-byte entries of relative offset and position.
#[derive(Debug, Clone, Copy)]
pub enum Offsets {}

/// The time index (`.timeindex`): 12-byte entries of timestamp and relative offset.
#[derive(Debug, Clone, Copy)]
pub enum Times {}

impl IndexKind for Offsets {
    type Entry = OffsetEntry;
    const ENTRY_SIZE: usize = OFFSET_ENTRY_SIZE;
    const RELATIVE_OFFSET_AT: usize = 0;
    const EXTENSION: &'static str = ".index";
    fn key(base_offset: i64, e: &[u8]) -> i64 {
        base_offset.wrapping_add(relative_at(e, 0) as i64)
    }
    fn lookup(base_offset: i64, bytes: &[u8], target: i64) -> (OffsetEntry, Option<usize>) {
        let idx = OffsetIndex::new(base_offset, bytes);
        let e = idx.lookup(target);
        let slot = (0..idx.layout.entries)
            .rev()
            .find(|&j| idx.slot(j) == Some(e));
        (e, slot)
    }
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<OffsetEntry> {
        offset_slot(base_offset, bytes, i)
    }
}

impl IndexKind for Times {
    type Entry = TimeEntry;
    const ENTRY_SIZE: usize = TIME_ENTRY_SIZE;
    const RELATIVE_OFFSET_AT: usize = 8;
    const EXTENSION: &'static str = ".timeindex";
    fn key(_base_offset: i64, e: &[u8]) -> i64 {
        i64::from_be_bytes(e[0..8].try_into().expect("12-byte entry"))
    }
    fn lookup(base_offset: i64, bytes: &[u8], target: i64) -> (TimeEntry, Option<usize>) {
        let idx = TimeIndex::new(base_offset, bytes);
        let e = idx.lookup(target);
        let slot = (0..idx.layout.entries)
            .rev()
            .find(|&j| idx.slot(j) == Some(e));
        (e, slot)
    }
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<TimeEntry> {
        time_slot(base_offset, bytes, i)
    }
}

/// The layout of an index file of kind `K`: the zero-slot stop rule, the zero tail, a zero
/// slot 0 and a partial entry.
fn layout_of<K: IndexKind + ?Sized>(bytes: &[u8]) -> IndexLayout {
    let size = K::ENTRY_SIZE;
    let slots = bytes.len() / size;
    let entries = (1..slots)
        .find(|i| relative_at(bytes, i * size + K::RELATIVE_OFFSET_AT) == 0)
        .unwrap_or(slots);
    let zero_tail = entries < slots && bytes[entries * size..slots * size].iter().all(|&b| b == 0);
    let slot0_zero = bytes.len() >= size && bytes[..size].iter().all(|&b| b == 0);
    IndexLayout {
        slots,
        entries,
        real_entries: if slot0_zero { 0 } else { entries },
        partial_bytes: bytes.len() % size,
        zero_tail,
    }
}

fn relative_at(bytes: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Binary search for the last index whose key is ≤ target (keys assumed sorted).
fn largest_at_most(n: usize, target: i64, key: impl Fn(usize) -> i64) -> Option<usize> {
    if n == 0 || key(0) > target {
        return None;
    }
    let (mut lo, mut hi) = (0usize, n - 1);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if key(mid) <= target {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// A time index file over borrowed bytes.
#[derive(Debug, Clone, Copy)]
pub struct TimeIndex<'a> {
    pub base_offset: i64,
    bytes: &'a [u8],
    pub layout: IndexLayout,
}

impl<'a> TimeIndex<'a> {
    pub fn new(base_offset: i64, bytes: &'a [u8]) -> Self {
        TimeIndex {
            base_offset,
            bytes,
            layout: layout_of::<Times>(bytes),
        }
    }

    pub fn slot(&self, i: usize) -> Option<TimeEntry> {
        time_slot(self.base_offset, self.bytes, i)
    }

    pub fn entries(&self) -> impl Iterator<Item = TimeEntry> + '_ {
        (0..self.layout.entries).filter_map(move |i| self.slot(i))
    }

    /// The entries Kafka can have written (an all-zero slot 0 is preallocation, not an entry).
    pub fn real_entries(&self) -> impl Iterator<Item = TimeEntry> + '_ {
        (0..self.layout.real_entries).filter_map(move |i| self.slot(i))
    }

    /// Kafka's `TimeIndex.lookup`: the entry with the largest timestamp ≤ target, or
    /// `(-1, baseOffset)` when there is none.
    pub fn lookup(&self, target: i64) -> TimeEntry {
        let n = self.layout.entries;
        let floor = largest_at_most(n, target, |i| {
            self.slot(i).map(|e| e.timestamp).unwrap_or(i64::MAX)
        });
        floor.and_then(|i| self.slot(i)).unwrap_or(TimeEntry {
            timestamp: -1,
            relative_offset: 0,
            offset: self.base_offset,
        })
    }

    /// Kafka's `TimeIndex.sanityCheck` (it reads the last *slot*, so a zero tail usually fails).
    pub fn sanity_check(&self) -> Result<(), SanityError> {
        if self.layout.partial_bytes != 0 {
            return Err(SanityError::PartialEntry {
                length: self.bytes.len(),
                entry_size: TIME_ENTRY_SIZE,
            });
        }
        let slots = self.layout.slots;
        if slots == 0 {
            return Ok(());
        }
        let first = self.slot(0).expect("slot 0 exists");
        let last = self.slot(slots - 1).expect("last slot exists");
        if last.timestamp < first.timestamp {
            return Err(SanityError::LastTimestampBelowFirst {
                last: last.timestamp,
                first: first.timestamp,
            });
        }
        if last.offset < self.base_offset {
            return Err(SanityError::LastOffsetBelowBase {
                last: last.offset,
                base: self.base_offset,
            });
        }
        Ok(())
    }
}

/// Why an index fails Kafka's `sanityCheck` (which throws `CorruptIndexException`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanityError {
    /// The file length is not a multiple of the entry size.
    PartialEntry { length: usize, entry_size: usize },
    /// The last slot's offset is below the segment's base offset.
    LastOffsetBelowBase { last: i64, base: i64 },
    /// The last slot's timestamp is below the first's (time index only).
    LastTimestampBelowFirst { last: i64, first: i64 },
}

impl std::fmt::Display for SanityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SanityError::PartialEntry { length, entry_size } => {
                write!(f, "file size {length} is not a multiple of {entry_size}")
            }
            SanityError::LastOffsetBelowBase { last, base } => {
                write!(f, "last offset {last} is below the base offset {base}")
            }
            SanityError::LastTimestampBelowFirst { last, first } => {
                write!(
                    f,
                    "last timestamp {last} is below the first timestamp {first}"
                )
            }
        }
    }
}

/// Checks that nothing claims an impossible layout (used by printers to explain a bad file).
pub fn describe_layout(layout: &IndexLayout, entry_size: usize) -> Option<DecodeError> {
    (layout.partial_bytes != 0).then(|| {
        DecodeError::new(
            layout.slots * entry_size,
            format!(
                "{} trailing bytes: file length is not a multiple of the {entry_size}-byte entry",
                layout.partial_bytes
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_vectors_v7_v8() {
        let idx = hex::decode("0000003200001068").unwrap();
        let i = OffsetIndex::new(100, &idx);
        assert_eq!(
            i.slot(0),
            Some(OffsetEntry {
                relative_offset: 50,
                offset: 150,
                position: 4200
            })
        );
        let t = hex::decode("0000018bcfe5680000000032").unwrap();
        let t = TimeIndex::new(100, &t);
        assert_eq!(t.slot(0).unwrap().timestamp, 1_700_000_000_000);
        assert_eq!(t.slot(0).unwrap().offset, 150);
    }

    fn time_index(entries: &[(i64, i32)], zero_slots: usize) -> Vec<u8> {
        let mut v = Vec::new();
        for (ts, rel) in entries {
            v.extend_from_slice(&ts.to_be_bytes());
            v.extend_from_slice(&rel.to_be_bytes());
        }
        v.extend(vec![0u8; zero_slots * TIME_ENTRY_SIZE]);
        v
    }

    #[test]
    fn time_index_lookup_like_kafka_test() {
        // TimeIndexTest: (10,55),(20,65),(30,75),(40,85) with base offset 45.
        let bytes = time_index(&[(10, 10), (20, 20), (30, 30), (40, 40)], 0);
        let t = TimeIndex::new(45, &bytes);
        assert_eq!(t.lookup(25).offset, 65);
        assert_eq!(t.lookup(30).offset, 75);
        assert_eq!(
            t.lookup(9),
            TimeEntry {
                timestamp: -1,
                relative_offset: 0,
                offset: 45
            }
        );
    }

    #[test]
    fn preallocated_tail_stops_entries() {
        let bytes = time_index(&[(10, 0), (20, 5)], 100);
        let t = TimeIndex::new(0, &bytes);
        assert_eq!(t.layout.entries, 2);
        assert_eq!(t.layout.slots, 102);
        assert!(t.layout.zero_tail);
        assert!(
            t.sanity_check().is_err(),
            "Kafka's time index sanity check catches a zero tail"
        );

        let mut idx = Vec::new();
        for (rel, pos) in [(3i32, 100u32), (9, 5000)] {
            idx.extend_from_slice(&rel.to_be_bytes());
            idx.extend_from_slice(&pos.to_be_bytes());
        }
        idx.extend(vec![0u8; 800]);
        let o = OffsetIndex::new(1000, &idx);
        assert_eq!(o.layout.entries, 2);
        assert!(o.layout.zero_tail);
        assert!(
            o.sanity_check().is_ok(),
            "Kafka's offset index sanity check does not"
        );
        assert_eq!(o.lookup(1005).offset, 1003);
        assert_eq!(o.lookup(1002).position, 0);
        assert_eq!(o.lookup(99999).position, 5000);
    }

    proptest::proptest! {
        #[test]
        fn lookup_is_floor(mut keys: Vec<u16>, target: i32) {
            keys.sort();
            keys.dedup();
            let mut bytes = Vec::new();
            for k in &keys {
                bytes.extend_from_slice(&(*k as i32 + 1).to_be_bytes());
                bytes.extend_from_slice(&0u32.to_be_bytes());
            }
            let idx = OffsetIndex::new(0, &bytes);
            let got = idx.lookup(target as i64).offset;
            let want = keys.iter().map(|k| *k as i64 + 1).filter(|k| *k <= target as i64).max().unwrap_or(0);
            proptest::prop_assert_eq!(got, want);
        }

        #[test]
        fn garbage_index_never_panics(bytes: Vec<u8>, base: i64) {
            let o = OffsetIndex::new(base, &bytes);
            let _ = o.sanity_check();
            let _ = o.entries().count();
            let _ = o.lookup(base);
            let t = TimeIndex::new(base, &bytes);
            let _ = t.sanity_check();
            let _ = t.entries().count();
        }
    }
}
