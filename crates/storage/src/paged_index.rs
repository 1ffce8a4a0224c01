//! An index file (`.index` or `.timeindex`, any [`IndexKind`]) read a page at a time with
//! `pread`. A floor lookup bisects over pages (one page per probe, like Kafka's binary search
//! over its memory map), then runs Kafka's lookup (format::index) on the page holding the floor.
//! A file with a zero tail (a preallocated index left by a crash or a live broker) is read up
//! to the stop rule's slot only; one with a partial entry is read whole, so that the stop rule
//! applies exactly.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::source::{open_read_only, read_small};
use kseg_format::index::IndexKind;

/// Size of one read of an index file: a page, as a memory map would fault it in.
pub const INDEX_PAGE: usize = 4096;

/// A file read whole (partial entry) is bounded like the other small files: a preallocated
/// index is 10 MiB, so 1 GiB is generous while still refusing absurd files.
const WHOLE_FILE_LIMIT: u64 = 1 << 30;

pub struct PagedIndex<K: IndexKind> {
    base: i64,
    /// Real entries.
    slots: usize,
    whole: Option<Vec<u8>>,
    file: Option<File>,
    pages: HashMap<usize, Vec<u8>>,
    bytes_read: u64,
    kind: PhantomData<K>,
}

impl<K: IndexKind> PagedIndex<K> {
    pub fn open(path: &Path, base: i64) -> io::Result<Self> {
        let entry = K::ENTRY_SIZE as u64;
        let file = open_read_only(path)?;
        let len = file.metadata()?.len();
        let mut f = PagedIndex {
            base,
            slots: (len / entry) as usize,
            whole: None,
            file: Some(file),
            pages: HashMap::new(),
            bytes_read: 0,
            kind: PhantomData,
        };
        let zero_tail = f.slots > 1 && f.relative_at(f.slots - 1)? == 0;
        if zero_tail && len % entry == 0 {
            // A preallocated (active, or crash-left) index: the entries end at the first slot
            // after slot 0 whose relative offset is 0 (format::index's stop rule). Read pages up
            // to there only: a live broker's active index is 10 MiB of mostly zeros.
            let end = (1..f.slots)
                .find_map(|i| match f.relative_at(i) {
                    Ok(0) => Some(Ok(i)),
                    Ok(_) => None,
                    Err(e) => Some(Err(e)),
                })
                .transpose()?
                .unwrap_or(f.slots);
            f.slots = end;
        } else if len % entry != 0 {
            let bytes = read_small(path, WHOLE_FILE_LIMIT)?;
            f.bytes_read += bytes.len() as u64;
            f.slots = K::layout(&bytes).entries;
            f.whole = Some(bytes);
            f.file = None;
            f.pages.clear();
        }
        Ok(f)
    }

    /// The real entries (before the stop rule).
    pub fn entries(&self) -> usize {
        self.slots
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    fn per_page(&self) -> usize {
        INDEX_PAGE / K::ENTRY_SIZE
    }

    fn page_count(&self) -> usize {
        self.slots.div_ceil(self.per_page())
    }

    /// The bytes of the entries of page `p`.
    fn page(&mut self, p: usize) -> io::Result<&[u8]> {
        let k = self.per_page();
        let (from, to) = (
            p * k * K::ENTRY_SIZE,
            ((p + 1) * k).min(self.slots) * K::ENTRY_SIZE,
        );
        if let Some(w) = &self.whole {
            return Ok(&w[from.min(w.len())..to.min(w.len())]);
        }
        if !self.pages.contains_key(&p) {
            let mut buf = vec![0u8; to.saturating_sub(from)];
            let file = self
                .file
                .as_ref()
                .ok_or_else(|| io::Error::other("index closed"))?;
            file.read_exact_at(&mut buf, from as u64)?;
            self.bytes_read += buf.len() as u64;
            self.pages.insert(p, buf);
        }
        Ok(&self.pages[&p])
    }

    fn entry_bytes(&mut self, slot: usize) -> io::Result<&[u8]> {
        let k = self.per_page();
        let size = K::ENTRY_SIZE;
        let page = self.page(slot / k)?;
        let at = (slot % k) * size;
        page.get(at..at + size)
            .ok_or_else(|| io::Error::other(format!("index entry {slot} is past the end")))
    }

    fn relative_at(&mut self, slot: usize) -> io::Result<i32> {
        let e = self.entry_bytes(slot)?;
        let at = K::RELATIVE_OFFSET_AT;
        Ok(i32::from_be_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]))
    }

    /// The search key of the first entry of page `p`: offset or timestamp.
    fn first_key(&mut self, p: usize) -> io::Result<i64> {
        let base = self.base;
        let slot = p * self.per_page();
        Ok(K::key(base, self.entry_bytes(slot)?))
    }

    /// The page holding the floor entry of `target`, if any entry is <= it.
    fn floor_page(&mut self, target: i64) -> io::Result<Option<usize>> {
        let n = self.page_count();
        if n == 0 || self.first_key(0)? > target {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0usize, n - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.first_key(mid)? <= target {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Ok(Some(lo))
    }

    /// Kafka's lookup: the floor entry of `target` (or the index's default) and its slot
    /// (`None` for the default).
    pub fn lookup(&mut self, target: i64) -> io::Result<(K::Entry, Option<usize>)> {
        let base = self.base;
        let Some(p) = self.floor_page(target)? else {
            return Ok(K::lookup(base, &[], target));
        };
        let first_slot = p * self.per_page();
        let (e, slot) = K::lookup(base, self.page(p)?, target);
        Ok((e, slot.map(|j| first_slot + j)))
    }

    /// The last real entry.
    pub fn last_entry(&mut self) -> io::Result<Option<K::Entry>> {
        let Some(last) = self.slots.checked_sub(1) else {
            return Ok(None);
        };
        let base = self.base;
        Ok(K::slot(base, self.entry_bytes(last)?, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::index::{
        OffsetIndex, Offsets, TimeIndex, Times, OFFSET_ENTRY_SIZE, TIME_ENTRY_SIZE,
    };

    #[test]
    fn paged_index_lookups_equal_whole_file_lookups() {
        let dir = tempfile::tempdir().unwrap();
        let base = 1000i64;
        let mut idx = Vec::new();
        let mut tidx = Vec::new();
        for k in 0..5000i32 {
            idx.extend_from_slice(&(3 * k + 2).to_be_bytes());
            idx.extend_from_slice(&(100 * k as u32).to_be_bytes());
            tidx.extend_from_slice(&(1_700_000_000_000i64 + 7 * k as i64).to_be_bytes());
            tidx.extend_from_slice(&(3 * k + 2).to_be_bytes());
        }
        for zero_tail in [0usize, 3000] {
            let mut idx = idx.clone();
            let mut tidx = tidx.clone();
            idx.extend(vec![0u8; zero_tail * OFFSET_ENTRY_SIZE]);
            tidx.extend(vec![0u8; zero_tail * TIME_ENTRY_SIZE]);
            let (ip, tp) = (dir.path().join("x.index"), dir.path().join("x.timeindex"));
            std::fs::write(&ip, &idx).unwrap();
            std::fs::write(&tp, &tidx).unwrap();
            let mut paged = PagedIndex::<Offsets>::open(&ip, base).unwrap();
            let mut tpaged = PagedIndex::<Times>::open(&tp, base).unwrap();
            assert_eq!(paged.entries(), 5000);
            assert_eq!(tpaged.entries(), 5000);
            let whole = OffsetIndex::new(base, &idx);
            let twhole = TimeIndex::new(base, &tidx);
            for target in (base - 5..base + 15_010).step_by(7) {
                assert_eq!(paged.lookup(target).unwrap().0, whole.lookup(target));
            }
            for target in (1_699_999_999_990..1_700_000_035_010).step_by(5) {
                assert_eq!(tpaged.lookup(target).unwrap().0, twhole.lookup(target));
            }
            assert_eq!(paged.last_entry().unwrap(), whole.slot(4999));
            assert_eq!(tpaged.last_entry().unwrap(), twhole.slot(4999));
            if zero_tail == 0 {
                let mut fresh = PagedIndex::<Offsets>::open(&ip, base).unwrap();
                let (e, slot) = fresh.lookup(base + 7_502).unwrap();
                assert_eq!((e.offset, slot), (base + 7_502, Some(2500)));
                assert!(
                    fresh.bytes_read() <= 16 * INDEX_PAGE as u64,
                    "{}",
                    fresh.bytes_read()
                );
            }
        }
    }
}
