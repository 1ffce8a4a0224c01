//! A segment's `.index` and `.timeindex` as the broker writes them: one writer over
//! [`IndexKind`], the entries encoded by the kind and kept typed in memory for lookups.
//! Kafka's `OffsetIndex.append` and `TimeIndex.maybeAppend` are the two ways in.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{open_rw, read_at};
use kseg_format::index::{Index, IndexKind, OffsetEntry, Offsets, TimeEntry, Times};

/// What the writer keeps free in an index of this kind (Kafka's `isFull`).
pub(super) trait WrittenKind: IndexKind {
    /// Slots kept free: the time index keeps its last one for the entry written at roll.
    const RESERVED_SLOTS: usize;
}

impl WrittenKind for Offsets {
    const RESERVED_SLOTS: usize = 0;
}

impl WrittenKind for Times {
    const RESERVED_SLOTS: usize = 1;
}

/// The largest entry of any kind (the time index's 12 bytes), for an entry's bytes on the stack.
const MAX_ENTRY_SIZE: usize = 16;

/// One index file of a segment, written slot after slot from 0.
pub(super) struct IndexWriter<K: IndexKind> {
    file: File,
    base: i64,
    entries: Vec<K::Entry>,
    max_entries: usize,
}

pub(super) type OffsetIndexWriter = IndexWriter<Offsets>;
pub(super) type TimeIndexWriter = IndexWriter<Times>;

impl<K: WrittenKind> IndexWriter<K> {
    /// Opens (creating) the file; unless `fresh`, its entries by the stop rule are kept.
    /// `max_bytes` is `segment.index.bytes`.
    pub(super) fn open(path: &Path, base: i64, max_bytes: u64, fresh: bool) -> io::Result<Self> {
        let file = open_rw(path, fresh)?;
        let mut entries = Vec::new();
        if !fresh {
            let bytes = read_at(&file, 0, file.metadata()?.len() as usize)?;
            entries = Index::<K>::new(base, &bytes).entries().collect();
        }
        Ok(IndexWriter {
            file,
            base,
            entries,
            max_entries: (max_bytes as usize / K::ENTRY_SIZE).max(K::RESERVED_SLOTS + 1),
        })
    }

    /// Writes `e` in the next slot.
    fn push(&mut self, e: K::Entry) -> io::Result<()> {
        let mut buf = [0u8; MAX_ENTRY_SIZE];
        let bytes = &mut buf[..K::ENTRY_SIZE];
        K::encode(self.base, &e, bytes);
        self.file
            .write_all_at(bytes, (self.entries.len() * K::ENTRY_SIZE) as u64)?;
        self.entries.push(e);
        Ok(())
    }

    /// The last entry written (or kept at open).
    pub(super) fn last(&self) -> Option<K::Entry> {
        self.entries.last().copied()
    }

    pub(super) fn is_full(&self) -> bool {
        self.entries.len() + K::RESERVED_SLOTS >= self.max_entries
    }

    /// Cuts the file to its entries (at roll and clean shutdown).
    pub(super) fn trim(&self) -> io::Result<()> {
        self.file
            .set_len((self.entries.len() * K::ENTRY_SIZE) as u64)
    }

    /// Sizes the file to `segment.index.bytes` (an active segment's index).
    pub(super) fn preallocate(&self) -> io::Result<()> {
        self.file.set_len((self.max_entries * K::ENTRY_SIZE) as u64)
    }

    pub(super) fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    pub(super) fn file(&self) -> &File {
        &self.file
    }

    /// The entry with the largest key (offset or timestamp) ≤ target, or the kind's default
    /// (`(base, 0)`, `(-1, base)`) as Kafka's lookup answers.
    pub(super) fn lookup(&self, target: i64) -> K::Entry {
        let i = self.entries.partition_point(|e| K::entry_key(e) <= target);
        match i.checked_sub(1) {
            Some(i) => self.entries[i],
            None => K::default_entry(self.base),
        }
    }
}

impl IndexWriter<Offsets> {
    /// `OffsetIndex.append`: `offset` is the batch's last offset, `position` where it starts.
    pub(super) fn append(&mut self, offset: i64, position: u32) -> io::Result<()> {
        self.push(OffsetEntry {
            relative_offset: (offset - self.base) as i32,
            offset,
            position,
        })
    }
}

impl IndexWriter<Times> {
    /// `TimeIndex.maybeAppend`: only a strictly larger timestamp, never a smaller offset.
    pub(super) fn maybe_append(&mut self, timestamp: i64, offset: i64) -> io::Result<()> {
        let last = self
            .last()
            .unwrap_or_else(|| Times::default_entry(self.base));
        if timestamp <= last.timestamp || offset < last.offset {
            return Ok(());
        }
        self.push(TimeEntry {
            timestamp,
            relative_offset: (offset - self.base) as i32,
            offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file holds what the writer kept in memory, read back by `format::index`, and the
    /// writer's lookups are Kafka's lookups over that file; the time index keeps its last slot.
    #[test]
    fn written_files_read_back_as_the_entries() {
        let dir = tempfile::tempdir().unwrap();
        let (ip, tp) = (dir.path().join("0.index"), dir.path().join("0.timeindex"));
        let base = 500;
        let mut offsets = OffsetIndexWriter::open(&ip, base, 80, true).unwrap();
        let mut times = TimeIndexWriter::open(&tp, base, 60, true).unwrap();
        offsets.preallocate().unwrap();
        times.preallocate().unwrap();
        for k in 1..=4i64 {
            offsets.append(base + 3 * k, 100 * k as u32).unwrap();
            times.maybe_append(1000 + 10 * k, base + 3 * k).unwrap();
            // Not a new maximum, or an offset going back: no entry.
            times.maybe_append(1000 + 10 * k, base + 3 * k + 1).unwrap();
            times.maybe_append(2000, base).unwrap();
        }
        assert_eq!(std::fs::metadata(&ip).unwrap().len(), 80, "preallocated");
        assert!(times.is_full(), "5 slots, the last one kept for the roll");
        assert!(!offsets.is_full());
        offsets.trim().unwrap();
        times.trim().unwrap();
        let (ib, tb) = (std::fs::read(&ip).unwrap(), std::fs::read(&tp).unwrap());
        let (oi, ti) = (
            Index::<Offsets>::new(base, &ib),
            Index::<Times>::new(base, &tb),
        );
        assert_eq!(oi.entries().collect::<Vec<_>>(), offsets.entries);
        assert_eq!(ti.entries().collect::<Vec<_>>(), times.entries);
        assert_eq!(times.entries.len(), 4);
        for target in base - 2..base + 16 {
            assert_eq!(offsets.lookup(target), oi.lookup(target), "offset {target}");
        }
        for target in 990..1060 {
            assert_eq!(
                times.lookup(target),
                ti.lookup(target),
                "timestamp {target}"
            );
        }
        let reopened = TimeIndexWriter::open(&tp, base, 60, false).unwrap();
        assert_eq!(reopened.last(), times.last());
    }
}
