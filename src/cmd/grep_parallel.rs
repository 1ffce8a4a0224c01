//! `kseg grep --threads N`: the search split into parts — whole segments, and pieces of large
//! segments cut at batch boundaries — searched on N worker threads, each into its own printer,
//! and written to stdout in offset order by the calling thread: the same bytes as one thread.
//!
//! A large segment is cut where a walk of its frames (each batch's length, read from its first
//! 12 bytes) puts a batch start near every `split` bytes; a cut is kept only when the whole
//! batch there has a valid checksum, so that the walk of the piece before it ends exactly
//! there, as one walk over the whole segment would. Each part's worker walks its part's
//! transactions afresh ([`TxnView::resume`]): the aborted transactions from the `.txnindex`
//! whose ABORT marker lies in or after the part, as a fetch from there sees them.
//!
//! Every part gets a bounded channel of output chunks (a worker blocks when its channel is
//! full), so memory stays at about `N × DEPTH × CHUNK`; error lines travel in the same channel
//! after the output that preceded them.

use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

use crate::analysis::grep::SearchStats;
use crate::analysis::transactions::TxnView;
use crate::format::log::frame_crc_valid;
use crate::storage::source::open_read_only;

/// Output is handed over in chunks of about this size.
const CHUNK: usize = 256 * 1024;
/// Chunks a worker may render ahead of the writer, per part.
const DEPTH: usize = 16;

/// One part of the search: a byte range of one segment of one group.
#[derive(Debug, Clone)]
pub struct Part {
    pub group: usize,
    pub file: usize,
    pub start: u64,
    /// `None`: to the end of the file.
    pub end: Option<u64>,
    /// Index bytes read to find `start` (counted once, with the first piece).
    pub index_bytes: u64,
    /// The first piece of its file (the bytes before `start` were skipped by a seek).
    pub first_piece: bool,
    pub last_piece: bool,
    /// Batches may have been skipped before it: the transaction walk starts afresh.
    pub resume: bool,
}

/// Batch starts cutting `file` from `start` into pieces of about `split` bytes (none when it is
/// smaller, or its frames stop making sense before a cut), and the bytes read to find them.
pub fn cuts(file: &Path, start: u64, split: u64) -> (Vec<u64>, u64) {
    let Ok(f) = open_read_only(file) else {
        return (Vec::new(), 0);
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return (Vec::new(), 0);
    };
    let mut read = 0u64;
    let mut out = Vec::new();
    let mut pos = start;
    let mut next_cut = start.saturating_add(split);
    let mut head = [0u8; 12];
    while next_cut < len && pos + 12 <= len {
        if f.read_exact_at(&mut head, pos).is_err() {
            break;
        }
        read += 12;
        let size = i32::from_be_bytes([head[8], head[9], head[10], head[11]]);
        // A v2 batch header is 61 bytes; a legacy message at least 26.
        if size < 14 || pos + 12 + size as u64 > len {
            break;
        }
        if pos >= next_cut {
            read += 12 + size as u64;
            if !whole_batch_valid(&f, pos, 12 + size as u64) {
                break;
            }
            out.push(pos);
            next_cut = pos.saturating_add(split);
        }
        pos += 12 + size as u64;
    }
    (out, read)
}

/// Whether the `total`-byte entry at `pos` has a valid checksum.
fn whole_batch_valid(f: &std::fs::File, pos: u64, total: u64) -> bool {
    if total > 64 << 20 {
        return false;
    }
    let mut buf = vec![0u8; total as usize];
    f.read_exact_at(&mut buf, pos).is_ok() && frame_crc_valid(&buf)
}

/// A writer sending its bytes down a part's channel in chunks.
pub struct Chunks {
    tx: SyncSender<Message>,
    buf: Vec<u8>,
}

impl Chunks {
    fn send(&mut self) -> io::Result<()> {
        let full = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK + CHUNK / 2));
        self.tx
            .send(Message::Out(full))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output closed"))
    }
}

impl Write for Chunks {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            self.send()
        }
    }
}

/// What a worker hands back after a part.
pub struct PartDone {
    pub stats: SearchStats,
    /// ABORT markers no index lists, and index entries no marker ended ([`TxnView`]).
    pub unindexed_aborts: Vec<(i64, i64)>,
    pub unended: Vec<(i64, i64)>,
    /// The segment could not be read.
    pub error: Option<io::Error>,
}

pub enum Message {
    Out(Vec<u8>),
    Err(String),
    Done(Box<PartDone>),
}

/// Runs `search(part, txns, out)` for every part on `threads` workers, each with the transaction
/// view `view(part)` and a writer over its channel; `take(i, message)` receives the messages of
/// part `i`, parts in order.
pub fn run(
    parts: &[Part],
    threads: usize,
    view: impl Fn(&Part) -> TxnView + Sync,
    search: impl Fn(&Part, &mut TxnView, Chunks) -> (SearchStats, Option<io::Error>) + Sync,
    mut take: impl FnMut(usize, Message) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let (txs, rxs): (Vec<_>, Vec<Receiver<Message>>) =
        (0..parts.len()).map(|_| sync_channel(DEPTH)).unzip();
    let txs: Vec<Mutex<Option<SyncSender<Message>>>> =
        txs.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| -> anyhow::Result<()> {
        for _ in 0..threads.min(parts.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= parts.len() || stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some(tx) = txs[i].lock().expect("no panics holding it").take() else {
                    break;
                };
                let errors = tx.clone();
                let _capture = crate::print::capture_errors(Box::new(move |line| {
                    let _ = errors.send(Message::Err(line));
                }));
                let mut txns = view(&parts[i]);
                let out = Chunks {
                    tx: tx.clone(),
                    buf: Vec::with_capacity(CHUNK + CHUNK / 2),
                };
                let (stats, error) = search(&parts[i], &mut txns, out);
                let _ = tx.send(Message::Done(Box::new(PartDone {
                    stats,
                    unindexed_aborts: std::mem::take(&mut txns.unindexed_aborts),
                    unended: txns.unended_index_entries(),
                    error,
                })));
            });
        }
        let outcome = (|| -> anyhow::Result<()> {
            for (i, rx) in rxs.into_iter().enumerate() {
                loop {
                    match rx.recv() {
                        Ok(m @ Message::Done(_)) => {
                            take(i, m)?;
                            break;
                        }
                        Ok(m) => take(i, m)?,
                        Err(_) => anyhow::bail!("a grep worker stopped unexpectedly"),
                    }
                }
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        outcome
    })
}
