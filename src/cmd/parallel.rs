//! `dump-log --threads N`: files dumped on N worker threads, each into its own printer, and
//! written to stdout in input order by the calling thread — the same bytes as one thread.
//!
//! Every file being dumped gets a bounded channel of output pieces: a worker renders a file into
//! chunks of [`CHUNK`] bytes and blocks when its channel holds [`DEPTH`] of them, so memory
//! stays at about `N × AHEAD × DEPTH × CHUNK` however large and however many the files are.
//! Workers take files in input order, at most [`AHEAD`] per worker past the one being written,
//! and make a file's channel when they take it (channels made up front cost ~2 KiB per file:
//! 650 MB for 100k segments); the writer drains the channels in input order, so the file being
//! written always has a running worker. Error lines for stderr travel in the same channel, after
//! the output that preceded them, so they come out where the single-threaded dump prints them.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};

use anyhow::Result;

use crate::print::{self, DumpPrinter, DumpSummary, TextDeferred};

/// Output is handed over in pieces of about this size.
pub const CHUNK: usize = 256 * 1024;
/// Pieces a worker may render ahead of the writer, per file: 8 MiB, so that the worker on the
/// next file can usually render all of a file of a few MiB while the writer is still on the
/// current one (with 4 pieces it stalled after 1 MiB and two threads gave ~1.5x, not ~2x).
const DEPTH: usize = 32;
/// Files a worker may take past the one being written (so files in flight ≤ threads × AHEAD).
const AHEAD: usize = 2;

/// The channels of the files taken by workers and not yet reached by the writer, and which file
/// the writer is on: a worker waits for the writer before taking a file too far ahead.
struct InFlight {
    state: Mutex<InFlightState>,
    changed: Condvar,
}

struct InFlightState {
    writing: usize,
    channels: HashMap<usize, Receiver<Piece>>,
    stopped: bool,
    /// Workers still running: a file no worker is left to take is an error, not a wait.
    workers: usize,
}

impl InFlight {
    /// Called by a worker that took file `i`: waits until `i` is within the window, then makes
    /// its channel. `None` when the run stopped.
    fn open(&self, i: usize, window: usize) -> Option<SyncSender<Piece>> {
        let mut st = self.state.lock().expect("no panics holding it");
        while !st.stopped && i >= st.writing + window {
            st = self.changed.wait(st).expect("no panics holding it");
        }
        if st.stopped {
            return None;
        }
        let (tx, rx) = sync_channel(DEPTH);
        st.channels.insert(i, rx);
        self.changed.notify_all();
        Some(tx)
    }

    /// Called by the writer: file `i`'s channel, once a worker has taken it (`None` when no
    /// worker is left to take it).
    fn take(&self, i: usize) -> Option<Receiver<Piece>> {
        let mut st = self.state.lock().expect("no panics holding it");
        st.writing = i;
        self.changed.notify_all();
        loop {
            if let Some(rx) = st.channels.remove(&i) {
                return Some(rx);
            }
            if st.workers == 0 {
                return None;
            }
            st = self.changed.wait(st).expect("no panics holding it");
        }
    }

    fn worker_gone(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.workers -= 1;
        self.changed.notify_all();
    }

    fn stop(&self) {
        self.state.lock().expect("no panics holding it").stopped = true;
        self.changed.notify_all();
    }
}

pub enum Piece {
    Out(Vec<u8>),
    /// A line for stderr (already formatted, newline included).
    Err(String),
    Done(Box<FileDone>),
}

/// What a worker hands back after a file.
pub struct FileDone {
    pub summary: DumpSummary,
    pub deferred: TextDeferred,
    pub result: Result<()>,
}

/// Chunk buffers written out by the main thread, for the workers to fill again (fresh ones
/// would be fresh pages to fault in, chunk after chunk).
#[derive(Default)]
pub struct Spares(Mutex<Vec<Vec<u8>>>);

impl Spares {
    fn take(&self) -> Vec<u8> {
        let spare = self.0.lock().expect("no panics holding it").pop();
        spare.unwrap_or_else(|| Vec::with_capacity(CHUNK + CHUNK / 2))
    }

    fn give(&self, mut b: Vec<u8>, limit: usize) {
        b.clear();
        let mut spares = self.0.lock().expect("no panics holding it");
        if spares.len() < limit {
            spares.push(b);
        }
    }
}

/// A writer sending its bytes down a file's channel in [`CHUNK`]s; `flush` sends what it has.
pub struct Chunks {
    tx: SyncSender<Piece>,
    buf: Vec<u8>,
    spares: Arc<Spares>,
}

impl Chunks {
    pub fn new(tx: SyncSender<Piece>, spares: Arc<Spares>) -> Self {
        Chunks {
            tx,
            buf: spares.take(),
            spares,
        }
    }

    fn send(&mut self) -> io::Result<()> {
        let full = std::mem::replace(&mut self.buf, self.spares.take());
        self.tx
            .send(Piece::Out(full))
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
    fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        self.write(b).map(|_| ())
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            self.send()
        }
    }
}

/// Runs `dump(i, printer)` for every file index on `threads` workers; `make` builds a printer
/// over a [`Chunks`]. The pieces go to `sink` (stdout through the main printer) in file order;
/// `done(i, file)` receives each file's counts and deferred reports in that order too.
pub fn run<'p, M, D>(
    files: usize,
    threads: usize,
    make: M,
    dump: D,
    sink: &mut dyn DumpPrinter,
    mut done: impl FnMut(usize, FileDone, &mut dyn DumpPrinter) -> Result<()>,
) -> Result<()>
where
    M: Fn(Chunks) -> Box<dyn DumpPrinter + 'p> + Sync,
    D: Fn(usize, &mut dyn DumpPrinter) -> (DumpSummary, Result<()>) + Sync,
{
    let in_flight = InFlight {
        state: Mutex::new(InFlightState {
            writing: 0,
            channels: HashMap::new(),
            stopped: false,
            workers: threads.min(files),
        }),
        changed: Condvar::new(),
    };
    let window = threads.saturating_mul(AHEAD).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let spares = Arc::new(Spares::default());
    // Enough for every chunk in flight: DEPTH per worker, plus the ones being filled.
    let keep = threads * (DEPTH + 2);
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..threads.min(files) {
            s.spawn(|| {
                // Counted out however the worker ends (a panic included).
                struct Gone<'a>(&'a InFlight);
                impl Drop for Gone<'_> {
                    fn drop(&mut self) {
                        self.0.worker_gone();
                    }
                }
                let _gone = Gone(&in_flight);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= files || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(tx) = in_flight.open(i, window) else {
                        break;
                    };
                    let errors = tx.clone();
                    let _capture = print::capture_errors(Box::new(move |line| {
                        let _ = errors.send(Piece::Err(line));
                    }));
                    let mut printer = make(Chunks::new(tx.clone(), spares.clone()));
                    let (summary, mut result) = dump(i, printer.as_mut());
                    if result.is_ok() {
                        result = printer.flush_out().map_err(Into::into);
                    }
                    let deferred = printer.take_deferred();
                    drop(printer);
                    let _ = tx.send(Piece::Done(Box::new(FileDone {
                        summary,
                        deferred,
                        result,
                    })));
                }
            });
        }
        let outcome = (|| -> Result<()> {
            for i in 0..files {
                let Some(rx) = in_flight.take(i) else {
                    anyhow::bail!("a dump worker stopped unexpectedly");
                };
                loop {
                    match rx.recv() {
                        Ok(Piece::Out(b)) => {
                            sink.write_raw(&b)?;
                            spares.give(b, keep);
                        }
                        Ok(Piece::Err(line)) => {
                            sink.flush_out()?;
                            print::write_stderr(&line);
                        }
                        Ok(Piece::Done(d)) => {
                            done(i, *d, sink)?;
                            break;
                        }
                        Err(_) => anyhow::bail!("a dump worker stopped unexpectedly"),
                    }
                }
            }
            Ok(())
        })();
        // On an error (a closed stdout) the workers stop at their next file or send.
        stop.store(true, Ordering::Relaxed);
        in_flight.stop();
        outcome
    })
}
