//! `.index` (offset index) and `.timeindex` (time index) entries, with the zero-slot stop rule
//! Kafka's tools apply to preallocated files left behind by a crash.

use std::marker::PhantomData;

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

/// An index file of kind `K` over borrowed bytes: [`OffsetIndex`] or [`TimeIndex`].
#[derive(Debug, Clone, Copy)]
pub struct Index<'a, K: IndexKind> {
    pub base_offset: i64,
    bytes: &'a [u8],
    pub layout: IndexLayout,
    kind: PhantomData<K>,
}

/// An offset index file (`.index`) over borrowed bytes.
pub type OffsetIndex<'a> = Index<'a, Offsets>;

/// A time index file (`.timeindex`) over borrowed bytes.
pub type TimeIndex<'a> = Index<'a, Times>;

impl<'a, K: IndexKind> Index<'a, K> {
    pub fn new(base_offset: i64, bytes: &'a [u8]) -> Self {
        Index {
            base_offset,
            bytes,
            layout: layout_of::<K>(bytes),
            kind: PhantomData,
        }
    }

    /// Slot `i` as stored, including slots past the stop rule.
    pub fn slot(&self, i: usize) -> Option<K::Entry> {
        K::slot(self.base_offset, self.bytes, i)
    }

    /// The entries by the DumpLogSegments stop rule (slot 0 is always shown).
    pub fn entries(&self) -> impl Iterator<Item = K::Entry> + '_ {
        (0..self.layout.entries).filter_map(move |i| self.slot(i))
    }

    /// The entries Kafka can have written (an all-zero slot 0 is preallocation, not an entry).
    pub fn real_entries(&self) -> impl Iterator<Item = K::Entry> + '_ {
        (0..self.layout.real_entries).filter_map(move |i| self.slot(i))
    }

    /// Kafka's `OffsetIndex.lookup` / `TimeIndex.lookup`: the entry with the largest key
    /// (offset or timestamp) ≤ target, or the kind's default (`(baseOffset, 0)`,
    /// `(-1, baseOffset)`) when there is none. Assumes the entries are sorted, as Kafka does.
    pub fn lookup(&self, target: i64) -> K::Entry {
        let n = self.layout.entries;
        let floor = largest_at_most(n, target, |i| {
            self.slot(i).map(|e| K::entry_key(&e)).unwrap_or(i64::MAX)
        });
        floor
            .and_then(|i| self.slot(i))
            .unwrap_or_else(|| K::default_entry(self.base_offset))
    }

    /// Kafka's `OffsetIndex.sanityCheck` / `TimeIndex.sanityCheck` (both read the last *slot*,
    /// so a zero tail fails the time index's).
    pub fn sanity_check(&self) -> Result<(), SanityError> {
        if self.layout.partial_bytes != 0 {
            return Err(SanityError::PartialEntry {
                length: self.bytes.len(),
                entry_size: K::ENTRY_SIZE,
            });
        }
        let Some(last) = self.layout.slots.checked_sub(1).and_then(|i| self.slot(i)) else {
            return Ok(());
        };
        let first = self.slot(0).expect("slot 0 exists when a last slot does");
        K::check_first_last(&first, &last)?;
        let last_offset = K::entry_offset(&last);
        if last_offset < self.base_offset {
            return Err(SanityError::LastOffsetBelowBase {
                last: last_offset,
                base: self.base_offset,
            });
        }
        Ok(())
    }
}

/// What tells the two index files apart, so that code over either (the paged reader of
/// `storage::paged_index`, lookup, verify, the broker's index writer) is written once: the
/// entry size and layout, where the relative offset stands in an entry, the search key, the
/// default of Kafka's floor lookup and its sanity check. [`Offsets`] is the `.index`,
/// [`Times`] the `.timeindex`.
pub trait IndexKind: Sized {
    /// The typed entry.
    type Entry: Copy + PartialEq + std::fmt::Debug;
    const ENTRY_SIZE: usize;
    /// Where the relative offset (the zero-slot stop rule's field) stands in an entry.
    const RELATIVE_OFFSET_AT: usize;
    /// The file name extension, with its dot.
    const EXTENSION: &'static str;
    /// The key a lookup compares with its target (offset or timestamp) of the whole entry `e`.
    fn key(base_offset: i64, e: &[u8]) -> i64;
    /// The same key of a decoded entry.
    fn entry_key(e: &Self::Entry) -> i64;
    /// The absolute offset an entry names.
    fn entry_offset(e: &Self::Entry) -> i64;
    /// What Kafka's lookup answers when no entry is ≤ the target.
    fn default_entry(base_offset: i64) -> Self::Entry;
    /// Slot `i` of `bytes` as stored.
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<Self::Entry>;
    /// `e` as stored in a file whose base offset is `base_offset`, into `out` (`ENTRY_SIZE`
    /// bytes). The relative offset is `e`'s offset minus the base, cut to 32 bits as Kafka's
    /// `relativeOffset` does; callers keep it in range.
    fn encode(base_offset: i64, e: &Self::Entry, out: &mut [u8]);
    /// The sanity check's comparison of the first and last slots, beyond the last offset.
    fn check_first_last(_first: &Self::Entry, _last: &Self::Entry) -> Result<(), SanityError> {
        Ok(())
    }
    /// Kafka's `lookup` over the whole entries `bytes`: the floor entry of `target` (or the
    /// index's default), and the slot it stands in (`None` for the default).
    fn lookup(base_offset: i64, bytes: &[u8], target: i64) -> (Self::Entry, Option<usize>) {
        let idx = Index::<Self>::new(base_offset, bytes);
        let e = idx.lookup(target);
        let slot = (0..idx.layout.entries)
            .rev()
            .find(|&j| idx.slot(j) == Some(e));
        (e, slot)
    }
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
    fn entry_key(e: &OffsetEntry) -> i64 {
        e.offset
    }
    fn entry_offset(e: &OffsetEntry) -> i64 {
        e.offset
    }
    fn default_entry(base_offset: i64) -> OffsetEntry {
        OffsetEntry {
            relative_offset: 0,
            offset: base_offset,
            position: 0,
        }
    }
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<OffsetEntry> {
        let raw = slot_bytes::<Self>(bytes, i)?;
        let relative = relative_at(raw, 0);
        Some(OffsetEntry {
            relative_offset: relative,
            offset: base_offset.wrapping_add(relative as i64),
            position: u32::from_be_bytes(raw[4..8].try_into().ok()?),
        })
    }
    fn encode(base_offset: i64, e: &OffsetEntry, out: &mut [u8]) {
        out[..4].copy_from_slice(&(e.offset.wrapping_sub(base_offset) as i32).to_be_bytes());
        out[4..8].copy_from_slice(&e.position.to_be_bytes());
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
    fn entry_key(e: &TimeEntry) -> i64 {
        e.timestamp
    }
    fn entry_offset(e: &TimeEntry) -> i64 {
        e.offset
    }
    fn default_entry(base_offset: i64) -> TimeEntry {
        TimeEntry {
            timestamp: -1,
            relative_offset: 0,
            offset: base_offset,
        }
    }
    fn slot(base_offset: i64, bytes: &[u8], i: usize) -> Option<TimeEntry> {
        let raw = slot_bytes::<Self>(bytes, i)?;
        let relative = relative_at(raw, 8);
        Some(TimeEntry {
            timestamp: Self::key(base_offset, raw),
            relative_offset: relative,
            offset: base_offset.wrapping_add(relative as i64),
        })
    }
    fn encode(base_offset: i64, e: &TimeEntry, out: &mut [u8]) {
        out[..8].copy_from_slice(&e.timestamp.to_be_bytes());
        out[8..12].copy_from_slice(&(e.offset.wrapping_sub(base_offset) as i32).to_be_bytes());
    }
    fn check_first_last(first: &TimeEntry, last: &TimeEntry) -> Result<(), SanityError> {
        if last.timestamp < first.timestamp {
            return Err(SanityError::LastTimestampBelowFirst {
                last: last.timestamp,
                first: first.timestamp,
            });
        }
        Ok(())
    }
}

/// The bytes of slot `i`, if the file holds all of it.
fn slot_bytes<K: IndexKind>(bytes: &[u8], i: usize) -> Option<&[u8]> {
    let at = i.checked_mul(K::ENTRY_SIZE)?;
    bytes.get(at..at.checked_add(K::ENTRY_SIZE)?)
}

/// The layout of an index file of kind `K`: the zero-slot stop rule, the zero tail, a zero
/// slot 0 and a partial entry.
fn layout_of<K: IndexKind>(bytes: &[u8]) -> IndexLayout {
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
        DecodeError::trailing(
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

        /// What `encode` writes, `slot` reads back: one layout per kind, both ways.
        #[test]
        fn encode_then_slot_is_the_entry(base in -1_000_000i64..1_000_000, rel: i32, position: u32, ts: i64) {
            let offset = base + rel as i64;
            let e = OffsetEntry { relative_offset: rel, offset, position };
            let mut bytes = [0u8; OFFSET_ENTRY_SIZE];
            Offsets::encode(base, &e, &mut bytes);
            proptest::prop_assert_eq!(Offsets::slot(base, &bytes, 0), Some(e));
            proptest::prop_assert_eq!(Offsets::key(base, &bytes), offset);
            let t = TimeEntry { timestamp: ts, relative_offset: rel, offset };
            let mut bytes = [0u8; TIME_ENTRY_SIZE];
            Times::encode(base, &t, &mut bytes);
            proptest::prop_assert_eq!(Times::slot(base, &bytes, 0), Some(t));
            proptest::prop_assert_eq!(Times::key(base, &bytes), ts);
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
