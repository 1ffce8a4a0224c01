//! [`batch_cuts`]: where a large `.log` can be cut into pieces that are walked on their own —
//! each piece's walk, ending where the next begins, sees exactly the entries, corrupt stretches
//! and tail that one walk over the whole file sees there (`--threads` reads the pieces in
//! parallel).
//!
//! The cutter follows the chain of frames from `start` by their size fields, reading only each
//! frame's first 17 bytes. While every frame of the chain passes the walker's own framing test
//! ([`frame_problem`]) and is no larger frame than [`LARGE_FRAME`] (those the walker judges by
//! what follows and by their checksum), the walker takes each of them as an entry — what
//! follows it is a sane frame, or the end — so its walk follows the same chain and steps on
//! every cut. At the first frame that fails, or runs past the end, the cutting stops: the rest
//! of the file, where the walker may resynchronise, is one piece.

use std::io;

use super::frame::{frame_problem, LARGE_FRAME};
use super::{ByteSource, HEADER_SIZE_UP_TO_MAGIC};

/// What [`batch_cuts`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cuts {
    /// Frame starts after `start`, increasing, about `split` bytes apart; the pieces are
    /// `start..cuts[0]`, `cuts[0]..cuts[1]`, …, `cuts[last]..` the end.
    pub at: Vec<u64>,
    /// Header bytes read to find them.
    pub bytes_read: u64,
}

/// Cuts the source from `start` into pieces of about `split` bytes at frame starts (no cut
/// when it is smaller, or its frames stop making sense before a cut).
pub fn batch_cuts<S: ByteSource + ?Sized>(src: &mut S, start: u64, split: u64) -> io::Result<Cuts> {
    let mut cutter = BatchCutter::new(start);
    let mut at = Vec::new();
    while let Some(cut) = cutter.next_cut(src, split)? {
        at.push(cut);
    }
    Ok(Cuts {
        at,
        bytes_read: cutter.bytes_read,
    })
}

/// [`batch_cuts`] one cut at a time, so that the first pieces can be read while the rest of
/// the file is still being cut.
#[derive(Debug, Clone)]
pub struct BatchCutter {
    /// The next frame to judge.
    pos: u64,
    /// The last cut (or the start).
    last: u64,
    /// A frame failed the framing test: no cut past it.
    stopped: bool,
    /// Header bytes read so far.
    pub bytes_read: u64,
}

impl BatchCutter {
    pub fn new(start: u64) -> Self {
        BatchCutter {
            pos: start,
            last: start,
            stopped: false,
            bytes_read: 0,
        }
    }

    /// The next cut, at least `split` bytes past the last one; `None` when there is none left.
    pub fn next_cut<S: ByteSource + ?Sized>(
        &mut self,
        src: &mut S,
        split: u64,
    ) -> io::Result<Option<u64>> {
        let len = src.len();
        let target = self.last.saturating_add(split.max(1));
        // The last cut must leave more than a header's bytes after it, or it would cut nothing.
        while !self.stopped && target < len && self.pos + HEADER_SIZE_UP_TO_MAGIC < len {
            let header = src.read_at(self.pos, HEADER_SIZE_UP_TO_MAGIC as usize)?;
            if (header.len() as u64) < HEADER_SIZE_UP_TO_MAGIC {
                self.stopped = true;
                break;
            }
            self.bytes_read += HEADER_SIZE_UP_TO_MAGIC;
            let total = match frame_problem(header) {
                Ok(total) if total <= LARGE_FRAME && self.pos + total <= len => total,
                _ => {
                    self.stopped = true;
                    break;
                }
            };
            let at = self.pos;
            self.pos += total;
            if at >= target {
                self.last = at;
                return Ok(Some(at));
            }
        }
        Ok(None)
    }
}

/// Cuts for pieces of a large `.log` whose walks confirm them: at the offset index's positions
/// when the segment has an index (one 17-byte read per cut instead of a read of every frame
/// header: a tenth of a headers-only pass), else, and once the index has no more, where the
/// frame chain from the last cut steps ([`BatchCutter`]).
///
/// An index position is a guess: a stale or damaged index may point off the frame chain. A
/// piece is therefore walked with its end as a cut it must land on (the scan's `stop_at`); a
/// piece whose walk does not land there goes on to the end of the file, as one walk over the
/// whole file does from there, and the file's later pieces are void.
#[derive(Debug, Clone)]
pub struct PieceCutter {
    /// The last cut (or the start).
    last: u64,
    /// The next offset-index entry to read, and the position the one before it gave; `None`
    /// without an index, or once it gives no more (its end, or positions that stop increasing:
    /// a preallocated tail of zeros, or damage).
    index: Option<IndexCursor>,
    /// The frame walk, from the last cut, once the index is done.
    walk: Option<BatchCutter>,
    /// Index and log bytes read to find the cuts.
    pub bytes_read: u64,
}

#[derive(Debug, Clone, Copy)]
struct IndexCursor {
    at: u64,
    previous: Option<u64>,
}

/// An offset index entry: a 4-byte relative offset, then a 4-byte position.
const INDEX_ENTRY: u64 = 8;

impl PieceCutter {
    /// Cuts after `start` (a frame start), guessed from an offset index when `indexed`.
    pub fn new(start: u64, indexed: bool) -> Self {
        PieceCutter {
            last: start,
            index: indexed.then_some(IndexCursor {
                at: 0,
                previous: None,
            }),
            walk: None,
            bytes_read: 0,
        }
    }

    /// The next cut, at least `split` bytes past the last one; `None` when there is none left.
    /// `index` is the segment's offset index (when [`PieceCutter::new`] was told it has one).
    pub fn next_cut<L, I>(
        &mut self,
        log: &mut L,
        index: Option<&mut I>,
        split: u64,
    ) -> io::Result<Option<u64>>
    where
        L: ByteSource + ?Sized,
        I: ByteSource + ?Sized,
    {
        let len = log.len();
        let target = self.last.saturating_add(split.max(1));
        if let (Some(cursor), Some(index)) = (self.index.as_mut(), index) {
            loop {
                let entry = index.read_at(cursor.at, INDEX_ENTRY as usize)?;
                let Ok(entry) = <[u8; INDEX_ENTRY as usize]>::try_from(entry) else {
                    break;
                };
                cursor.at += INDEX_ENTRY;
                self.bytes_read += INDEX_ENTRY;
                let position =
                    u64::from(u32::from_be_bytes([entry[4], entry[5], entry[6], entry[7]]));
                if cursor.previous.is_some_and(|p| position <= p) {
                    break;
                }
                cursor.previous = Some(position);
                if position < target {
                    continue;
                }
                // The last cut must leave more than a header's bytes after it.
                if position + HEADER_SIZE_UP_TO_MAGIC >= len {
                    break;
                }
                let header = log.read_at(position, HEADER_SIZE_UP_TO_MAGIC as usize)?;
                self.bytes_read += HEADER_SIZE_UP_TO_MAGIC;
                // A file cut shorter since it was opened: no cut there, nor after.
                if (header.len() as u64) < HEADER_SIZE_UP_TO_MAGIC {
                    break;
                }
                // A position that frames nothing is no cut; a later entry may be.
                if matches!(frame_problem(header), Ok(total) if position + total <= len) {
                    self.last = position;
                    return Ok(Some(position));
                }
            }
            self.index = None;
        }
        let last = self.last;
        let walk = self.walk.get_or_insert_with(|| BatchCutter::new(last));
        let before = walk.bytes_read;
        let cut = walk.next_cut(log, split)?;
        self.bytes_read += walk.bytes_read - before;
        if let Some(cut) = cut {
            self.last = cut;
        }
        Ok(cut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::{V1_BATCH, V2_BATCH};
    use crate::log::tests::walk_range;
    use crate::log::SliceSource;
    use proptest::prelude::*;

    /// The walks of the pieces, one after the other, are the walk of the whole.
    fn pieces_walk_as_the_whole(data: &[u8], split: u64) -> Vec<u64> {
        let cuts = batch_cuts(&mut SliceSource(data), 0, split).unwrap().at;
        let len = data.len() as u64;
        let mut bounds = vec![0];
        bounds.extend(&cuts);
        bounds.push(len);
        let mut joined = Vec::new();
        for w in bounds.windows(2) {
            assert!(w[0] < w[1], "{cuts:?}");
            joined.extend(walk_range(data, w[0], w[1]));
        }
        assert_eq!(joined, walk_range(data, 0, len), "cuts {cuts:?}");
        cuts
    }

    fn batches(n: usize) -> Vec<u8> {
        let v2 = hex::decode(V2_BATCH).unwrap();
        let v1 = hex::decode(V1_BATCH).unwrap();
        let mut data = Vec::new();
        for i in 0..n {
            data.extend(if i % 3 == 1 { &v1 } else { &v2 });
        }
        data
    }

    #[test]
    fn clean_file_cut_near_every_split() {
        let data = batches(12);
        let cuts = pieces_walk_as_the_whole(&data, 200);
        assert!(cuts.len() >= 3, "{cuts:?}");
        // Nothing to cut in a file smaller than a piece, or from past its end.
        assert!(batch_cuts(&mut SliceSource(&data), 0, 1 << 30)
            .unwrap()
            .at
            .is_empty());
        let len = data.len() as u64;
        assert!(batch_cuts(&mut SliceSource(&data), len, 1)
            .unwrap()
            .at
            .is_empty());
    }

    #[test]
    fn no_cut_past_a_frame_that_fails_the_framing_test() {
        let mut data = batches(12);
        let v2 = hex::decode(V2_BATCH).unwrap().len();
        let v1 = hex::decode(V1_BATCH).unwrap().len();
        // The magic byte of the third batch: cut before the second, not at or after the third.
        data[v2 + v1 + 16] = 9;
        let cuts = pieces_walk_as_the_whole(&data, 1);
        assert_eq!(cuts, [v2 as u64]);
    }

    /// An offset index of these positions.
    fn index_of(positions: &[u32]) -> Vec<u8> {
        positions
            .iter()
            .flat_map(|p| [0u32.to_be_bytes(), p.to_be_bytes()].concat())
            .collect()
    }

    fn piece_cuts(data: &[u8], index: Option<&[u8]>, split: u64) -> Vec<u64> {
        let mut cutter = PieceCutter::new(0, index.is_some());
        let mut index = index.map(SliceSource);
        let mut cuts = Vec::new();
        while let Some(c) = cutter
            .next_cut(&mut SliceSource(data), index.as_mut(), split)
            .unwrap()
        {
            cuts.push(c);
        }
        cuts
    }

    #[test]
    fn index_positions_are_cuts_when_they_frame_a_batch() {
        let data = batches(12);
        let v2 = hex::decode(V2_BATCH).unwrap().len() as u32;
        let v1 = hex::decode(V1_BATCH).unwrap().len() as u32;
        let (second, third) = (v2, v2 + v1);
        // Right positions are cuts, then the frame walk goes on from the last (every frame
        // start, with pieces of a byte).
        let walked = piece_cuts(&data, None, 1);
        let from_second: Vec<u64> = walked
            .iter()
            .copied()
            .filter(|&c| c >= second as u64)
            .collect();
        assert_eq!(
            piece_cuts(&data, Some(&index_of(&[second, third])), 1),
            from_second
        );
        // One inside a batch is skipped, the next entry taken.
        assert_eq!(
            piece_cuts(&data, Some(&index_of(&[second + 3, third])), 1)[0],
            third as u64
        );
        // Positions that stop increasing (a preallocated tail of zeros) end the index: the
        // frame walk goes on from the last cut.
        assert_eq!(
            piece_cuts(&data, Some(&index_of(&[second, 0, 0])), 1),
            walked
        );
        // Past the end, or too near it to leave a header: no cut from the index.
        let len = data.len() as u32;
        assert_eq!(piece_cuts(&data, Some(&index_of(&[len + 100])), 1), walked);
        // A file shorter than its index says (cut since): no panic, no cut past its end.
        let short = &data[..(third as usize + 10)];
        let cuts = piece_cuts(short, Some(&index_of(&[second, third])), 1);
        assert!(
            cuts.iter().all(|&c| c + 17 < short.len() as u64),
            "{cuts:?}"
        );
    }

    /// A source whose length is what it was when opened, with fewer bytes now (a file cut
    /// shorter since): reads come back short.
    struct Shrunk<'a> {
        data: &'a [u8],
        len: u64,
    }

    impl ByteSource for Shrunk<'_> {
        fn len(&self) -> u64 {
            self.len
        }
        fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
            let start = (pos as usize).min(self.data.len());
            let end = (pos as usize).saturating_add(len).min(self.data.len());
            Ok(&self.data[start..end])
        }
    }

    #[test]
    fn a_log_cut_shorter_since_it_was_opened_is_no_panic() {
        let data = batches(12);
        let v2 = hex::decode(V2_BATCH).unwrap().len() as u32;
        let mut log = Shrunk {
            data: &data[..v2 as usize + 5],
            len: data.len() as u64,
        };
        let mut cutter = PieceCutter::new(0, true);
        let mut index = SliceSource(&index_of(&[v2, 3 * v2]));
        let mut cuts = Vec::new();
        while let Some(c) = cutter.next_cut(&mut log, Some(&mut index), 1).unwrap() {
            cuts.push(c);
        }
        assert!(cuts.iter().all(|&c| c <= v2 as u64), "{cuts:?}");
    }

    proptest! {
        #[test]
        fn any_damage_any_split_walks_as_the_whole(
            n in 1usize..10,
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut_tail in 0usize..80,
            split in 1u64..600,
        ) {
            let mut data = batches(n);
            for (at, byte) in flips {
                let i = at.index(data.len());
                data[i] = byte;
            }
            let keep = data.len().saturating_sub(cut_tail);
            data.truncate(keep);
            pieces_walk_as_the_whole(&data, split);
        }
    }
}
