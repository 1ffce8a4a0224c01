//! The walker over clean, torn, zero-filled, garbled and hostile files, and records of a batch.

use std::io;

use super::*;
use crate::batch::tests::{V1_BATCH, V2_BATCH};
use crate::batch::V2_CRC_START;

fn walk(data: &[u8]) -> Vec<String> {
    walk_range(data, 0, data.len() as u64)
}

/// The events of a walk over `data[start..end]` (positions in the whole file), as text.
pub(crate) fn walk_range(data: &[u8], start: u64, end: u64) -> Vec<String> {
    let mut src = SliceSource(data);
    let mut w = LogWalker::starting_at(start, end);
    let mut out = Vec::new();
    while let Some(ev) = w.next(&mut src).unwrap() {
        out.push(match ev {
            WalkEvent::Entry { position, bytes } => format!("entry@{position}+{}", bytes.len()),
            WalkEvent::Corrupt {
                position, length, ..
            } => format!("corrupt@{position}+{length}"),
            WalkEvent::Tail {
                position,
                length,
                kind,
            } => format!("tail@{position}+{length}:{kind:?}"),
        });
    }
    out
}

fn two_batches() -> Vec<u8> {
    let mut data = hex::decode(V1_BATCH).unwrap();
    let mut second = hex::decode(V2_BATCH).unwrap();
    second[7] = 1;
    data.extend(second);
    data
}

/// A source over a slice that remembers the largest read asked of it.
struct Tracking<'a> {
    data: &'a [u8],
    largest_read: usize,
    /// Bytes handed out by every read together.
    total: u64,
}

impl ByteSource for Tracking<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
        self.largest_read = self.largest_read.max(len);
        let from = (pos as usize).min(self.data.len());
        let to = (from + len).min(self.data.len());
        self.total += (to - from) as u64;
        Ok(&self.data[from..to])
    }
}

#[test]
fn a_huge_declared_size_is_judged_without_reading_the_frame() {
    // A bit flip in the size field's high byte makes a 85-byte batch declare 32 MiB more,
    // and the file is long enough to hold that (zeros): the walker must not read it at once.
    let batch = hex::decode(V2_BATCH).unwrap();
    let mut data = batch.clone();
    data.extend(&batch);
    data[85 + 8] ^= 0x02;
    data.resize(40 << 20, 0);
    let tail = data.len();
    data.extend(&batch);
    let mut src = Tracking {
        data: &data,
        largest_read: 0,
        total: 0,
    };
    let mut w = LogWalker::new(data.len() as u64);
    let mut events = Vec::new();
    while let Some(ev) = w.next(&mut src).unwrap() {
        events.push(match ev {
            WalkEvent::Entry { position, .. } => format!("entry@{position}"),
            WalkEvent::Corrupt { position, .. } => format!("corrupt@{position}"),
            WalkEvent::Tail { position, .. } => format!("tail@{position}"),
        });
    }
    assert_eq!(
        events,
        ["entry@0", "corrupt@85", format!("entry@{tail}").as_str()]
    );
    assert!(src.largest_read <= 2 << 20, "{}", src.largest_read);
}

/// Issue 14 item 13: a file that shrinks under the walk (a source shorter than the limit
/// the walk was given) was reported as a "zero-filled tail of 0 bytes".
#[test]
fn a_file_shrunk_under_the_walk_is_not_a_zero_filled_tail() {
    let batch = hex::decode(V2_BATCH).unwrap();
    let mut data = batch.clone();
    data.extend(&batch[..40]);
    for limit in [data.len() as u64 + 1000, batch.len() as u64 + 1000] {
        let src_data = if limit > data.len() as u64 + 500 {
            &data[..]
        } else {
            &batch[..]
        };
        let mut src = Tracking {
            data: src_data,
            largest_read: 0,
            total: 0,
        };
        let mut w = LogWalker::new(limit);
        while let Some(ev) = w.next(&mut src).unwrap() {
            if let WalkEvent::Tail { length, kind, .. } = ev {
                assert!(
                    !(length == 0 && kind == TailKind::ZeroFilled),
                    "a zero-filled tail of 0 bytes"
                );
            }
        }
    }
}

/// Walks `data` to its end and returns the bytes the walk read.
fn bytes_read_by_walk(data: &[u8]) -> u64 {
    let mut src = Tracking {
        data,
        largest_read: 0,
        total: 0,
    };
    let mut w = LogWalker::new(data.len() as u64);
    while w.next(&mut src).unwrap().is_some() {}
    src.total
}

/// Issue 14 item 3: garbage where every byte declares a frame of 16.8 MB (0x01 bytes: magic
/// 1, size 0x01010101) is walked reading each byte a few times, not once per candidate.
#[test]
fn resync_over_0x01_bytes_is_linear() {
    let data = vec![1u8; 16_900_000];
    let read = bytes_read_by_walk(&data);
    assert!(read <= 8 * data.len() as u64, "{read} bytes read");
}

/// Issue 14 item 3: crafted garbage whose every 64th byte starts a plausible 8 MiB v0 frame
/// (followed by another such header) costs at most the walk's checksum budget.
#[test]
fn resync_checksum_work_is_bounded_by_the_budget() {
    let len = 32usize << 20;
    let mut data = vec![0xffu8; len];
    let total = 8usize << 20;
    for at in (64..len).step_by(64) {
        let h = &mut data[at..at + 26];
        h[0..8].copy_from_slice(&(at as i64).to_be_bytes());
        h[8..12].copy_from_slice(&((total - 12) as i32).to_be_bytes());
        h[12..16].copy_from_slice(&[1, 2, 3, 4]);
        h[16] = 0;
        h[17] = 0;
        h[18..22].copy_from_slice(&(-1i32).to_be_bytes());
        h[22..26].copy_from_slice(&0i32.to_be_bytes());
    }
    let read = bytes_read_by_walk(&data);
    let bound = RESYNC_CRC_BASE + RESYNC_CRC_PER_BYTE * len as u64 + 8 * len as u64;
    assert!(read <= bound, "{read} bytes read, bound {bound}");
}

#[test]
fn a_large_valid_frame_is_still_a_batch() {
    // A v2 batch padded past LARGE_FRAME with a correct CRC: judged by the streamed
    // checksum, then read whole.
    let mut batch = hex::decode(V2_BATCH).unwrap();
    let extra = (LARGE_FRAME as usize) + 100;
    batch.extend(vec![0u8; extra]);
    let size = (batch.len() - 12) as i32;
    batch[8..12].copy_from_slice(&size.to_be_bytes());
    let crc = crc32c::crc32c(&batch[V2_CRC_START..]);
    batch[17..21].copy_from_slice(&crc.to_be_bytes());
    let mut src = SliceSource(&batch);
    let mut w = LogWalker::new(batch.len() as u64);
    match w.next(&mut src).unwrap() {
        Some(WalkEvent::Entry { position, bytes }) => {
            assert_eq!((position, bytes.len()), (0, batch.len()));
        }
        _ => panic!("not an entry"),
    }
    assert_eq!(w.last_crc(), Some(true));
}

#[test]
fn clean_file() {
    assert_eq!(walk(&two_batches()), vec!["entry@0+76", "entry@76+85"]);
}

#[test]
fn torn_tail_and_zero_tail() {
    let mut data = two_batches();
    data.truncate(120);
    assert_eq!(
        walk(&data),
        vec!["entry@0+76", "tail@76+44:Partial { declared: 85 }"]
    );
    let mut data = two_batches();
    data.extend(vec![0u8; 1000]);
    assert_eq!(
        walk(&data),
        vec!["entry@0+76", "entry@76+85", "tail@161+1000:ZeroFilled"]
    );
    let mut data = two_batches();
    data.extend(vec![0u8; 10]);
    assert_eq!(
        walk(&data),
        vec!["entry@0+76", "entry@76+85", "tail@161+10:ZeroFilled"]
    );
}

#[test]
fn garbage_in_the_middle_is_skipped() {
    let mut data = hex::decode(V1_BATCH).unwrap();
    data.extend_from_slice(b"this is definitely not a kafka batch!!");
    let mut second = hex::decode(V2_BATCH).unwrap();
    second[7] = 1;
    data.extend(second);
    assert_eq!(
        walk(&data),
        vec!["entry@0+76", "corrupt@76+38", "entry@114+85"]
    );
}

#[test]
fn a_future_magic_with_a_valid_crc_is_a_batch() {
    let mut data = hex::decode(V1_BATCH).unwrap();
    data[16] = 3;
    let crc = crc32c::crc32c(&data[21..]);
    data[17..21].copy_from_slice(&crc.to_be_bytes());
    let mut second = hex::decode(V2_BATCH).unwrap();
    second[7] = 1;
    data.extend(second);
    assert_eq!(walk(&data), vec!["entry@0+76", "entry@76+85"]);
    assert_eq!(LogEntry::parse(&data[..76]).unwrap().info().magic, 3);
}

#[test]
fn bit_flip_keeps_framing() {
    let mut data = two_batches();
    data[70] ^= 0x10;
    let events = walk(&data);
    assert_eq!(events, vec!["entry@0+76", "entry@76+85"]);
    assert!(!frame_crc_valid(&data[..76]));
}

#[test]
fn records_of_all_kinds() {
    let data = hex::decode(V2_BATCH).unwrap();
    let entry = LogEntry::parse(&data).unwrap();
    let mut scratch = RecordScratch::default();
    let mut offsets = Vec::new();
    let n = for_each_record(&entry, &mut scratch, |r| offsets.push(r.offset)).unwrap();
    assert_eq!(n, 2);
    assert_eq!(offsets, vec![0, 1]);
}

proptest::proptest! {
    #[test]
    fn walker_covers_every_byte_and_never_panics(data: Vec<u8>, cut in 0usize..200) {
        let mut file = two_batches();
        file.extend_from_slice(&data);
        file.truncate(file.len().saturating_sub(cut % 50));
        let mut src = SliceSource(&file);
        let mut w = LogWalker::new(file.len() as u64);
        let mut covered = 0u64;
        let mut scratch = RecordScratch::with_cap(1 << 20);
        while let Some(ev) = w.next(&mut src).unwrap() {
            match ev {
                WalkEvent::Entry { position, bytes } => {
                    proptest::prop_assert_eq!(position, covered);
                    covered += bytes.len() as u64;
                    if let Ok(e) = LogEntry::parse(bytes) {
                        let _ = e.info();
                        let _ = for_each_record(&e, &mut scratch, |_| {});
                    }
                }
                WalkEvent::Corrupt { position, length, .. } | WalkEvent::Tail { position, length, .. } => {
                    proptest::prop_assert_eq!(position, covered);
                    covered += length;
                }
            }
        }
        proptest::prop_assert_eq!(covered, file.len() as u64);
    }
}
