//! `--threads N` for the commands that print (`dump-log`, `grep`): the work split into ordered
//! parts — whole files, and pieces of large `.log` files cut at batch boundaries
//! ([`LazyPieces`], over `format::log::PieceCutter`) — each rendered on one of N worker
//! threads into its own printer, and written to stdout in part order by the calling thread:
//! the same bytes as one thread.
//!
//! Parts come from a plan (an iterator, pulled by the workers as they go, so that a large
//! file is cut only when a worker reaches it). Every part taken gets a bounded channel: a worker
//! renders into chunks of [`CHUNK`] bytes and blocks when its channel holds [`DEPTH`] of them.
//! Workers take parts at most [`AHEAD`] per worker past the one being written, and make a
//! part's channel when they take it (channels made up front cost ~2 KiB each: 650 MB for 100k
//! segments), so memory stays at about `N × AHEAD × DEPTH × CHUNK` however large and however
//! many the files are; the writer drains the channels in order, so the part being written
//! always has a running worker. Error lines for stderr travel in the same channel, after the
//! output that preceded them, so they come out where one thread prints them; so do a part's
//! notes to the writer ([`Chunks::note`]) and its result.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};

use anyhow::Result;

use crate::format::log::{ByteSource, PieceCutter};
use crate::print;
use crate::storage::source::{open_log, open_offset_index_of, open_sparse};

/// Output is handed over in chunks of about this size: a printer's hand-off size, so that the
/// two kinds of buffer are one kind in the spares (why it is large: [`print::LineOut::HAND_OFF_AT`]).
pub const CHUNK: usize = print::LineOut::<Vec<u8>>::HAND_OFF_AT;
/// A new buffer's capacity: doubled as it fills, it settles at 2 MiB, a chunk and room for the
/// line that crosses the chunk's end (so the pool's buffers stop growing).
const FIRST_CAPACITY: usize = 128 * 1024;
/// A buffer larger than this (grown by a huge line) is dropped, not kept.
const KEEP_UP_TO: usize = 4 * 1024 * 1024;
/// Chunks a worker may render ahead of the writer, per part: ~8 MiB, so that the worker on the
/// next part can usually render all of a part of a few MiB while the writer is still on the
/// current one (with 1 MiB it stalled and two threads gave ~1.5x, not ~2x).
const DEPTH: usize = 4;
/// Parts a worker may take past the one being written (so parts in flight ≤ threads × AHEAD).
const AHEAD: usize = 2;

/// A byte range of one input file: the whole file, or one piece of a large `.log`.
#[derive(Debug, Clone)]
pub struct Part {
    /// The file's index in the command's list.
    pub file: usize,
    pub start: u64,
    /// `None`: to the end of the file. Else a cut the piece's walk must land on (the scan's
    /// `stop_at`): one that does not goes on to the end of the file ([`Part::ran_past_cut`]).
    pub end: Option<u64>,
    /// The first piece of its file (the file's header lines, its seek, are this piece's).
    pub first: bool,
    /// The last piece of its file as cut (its tail, and its end of file, are this piece's).
    pub last: bool,
    /// Shared by the pieces of one file.
    fate: Option<Arc<Fate>>,
    /// The file, opened once for all its pieces (`None`: open it by name).
    opened: Option<OpenFile>,
}

/// A file opened once, when its pieces are planned, and read by each piece through a reader of
/// its own over the same open file ([`ByteSource::another`]), never reopened by name: a live
/// broker may delete a segment, or rename it to `.deleted`, while its pieces are searched,
/// and a piece that reopened it would miss it (and its matches) where the others read it.
#[derive(Clone)]
pub struct OpenFile(Arc<Mutex<Box<dyn ByteSource + Send>>>);

impl std::fmt::Debug for OpenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpenFile")
    }
}

impl OpenFile {
    /// A reader of the open file, `None` when its source cannot give one.
    fn reader(&self) -> Option<io::Result<Box<dyn ByteSource + Send>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).another()
    }
}

/// Where the first piece of a file that ran past its cut starts (`u64::MAX`: none yet): the
/// pieces after it are void, their bytes walked by it.
#[derive(Debug)]
struct Fate {
    ran_past_from: AtomicU64,
}

impl Part {
    pub fn whole(file: usize) -> Part {
        Part {
            file,
            start: 0,
            end: None,
            first: true,
            last: true,
            fate: None,
            opened: None,
        }
    }

    /// A reader of the part's file: of the file opened when its pieces were planned, else
    /// (a whole file, or one whose opening failed then) opened now by name.
    pub fn open(&self, path: &Path, mmap: bool) -> io::Result<Box<dyn ByteSource + Send>> {
        match self.opened.as_ref().and_then(OpenFile::reader) {
            Some(reader) => reader,
            None => open_log(path, mmap),
        }
    }

    /// This piece's walk did not land on its cut and went on to the end of the file: it was
    /// the file's last, and the pieces after it are void. Called by its worker before its
    /// result is sent, so that the writer, which reaches later pieces only after this one's
    /// result, sees it.
    pub fn ran_past_cut(&self) {
        if let Some(fate) = &self.fate {
            fate.ran_past_from.fetch_min(self.start, Ordering::SeqCst);
        }
    }

    /// A piece an earlier piece of its file walked past its cut, and so walked itself: its
    /// worker skips it, the writer drops what it made. (Stable once the writer reaches it:
    /// only earlier pieces void it, and they are done.)
    pub fn is_void(&self) -> bool {
        self.fate
            .as_ref()
            .is_some_and(|f| f.ran_past_from.load(Ordering::SeqCst) < self.start)
    }
}

/// A file's parts from `start`, cut as the plan is pulled ([`PieceCutter`]: at its offset
/// index's positions, checked by the pieces' walks, else where its frames step): the first
/// pieces are read while the rest of the file is still being cut.
pub struct LazyPieces<'a> {
    file: usize,
    path: &'a Path,
    split: u64,
    cutter: PieceCutter,
    /// The file, opened at the first cut and kept to the last (opened and mapped anew for every
    /// piece, it cost as much as the cutting), and its offset index.
    sources: Option<io::Result<CutSources>>,
    /// The next piece's start, and whether it is the file's first; `None` after the last.
    next: Option<(u64, bool)>,
    /// Bytes read by sources already closed.
    read_before: u64,
    fate: Arc<Fate>,
    /// The file its pieces read ([`OpenFile`]), opened with the first piece; `mmap`: mapped.
    opened: Option<OpenFile>,
    mmap: bool,
}

struct CutSources {
    log: Box<dyn ByteSource + Send>,
    index: Option<Box<dyn ByteSource + Send>>,
}

impl CutSources {
    fn bytes_read(&self) -> u64 {
        let index = self.index.as_ref().and_then(|i| i.bytes_read());
        self.log.bytes_read().unwrap_or(0) + index.unwrap_or(0)
    }
}

impl<'a> LazyPieces<'a> {
    pub fn new(file: usize, path: &'a Path, split: u64) -> Self {
        LazyPieces::from(file, path, 0, split)
    }

    /// From `start` (a frame start: the file's, or where an index seek put it).
    pub fn from(file: usize, path: &'a Path, start: u64, split: u64) -> Self {
        LazyPieces {
            file,
            path,
            split,
            // Without an index (none opens), it walks the frames.
            cutter: PieceCutter::new(start, true),
            sources: None,
            next: Some((start, true)),
            read_before: 0,
            fate: Arc::new(Fate {
                ran_past_from: AtomicU64::new(u64::MAX),
            }),
            opened: None,
            mmap: false,
        }
    }

    /// Its pieces read the file mapped (`--mmap`).
    pub fn mapped(mut self, mmap: bool) -> Self {
        self.mmap = mmap;
        self
    }

    /// The bytes read to cut the pieces given so far.
    pub fn bytes_read(&self) -> u64 {
        let open = match &self.sources {
            Some(Ok(sources)) => sources.bytes_read(),
            _ => 0,
        };
        self.read_before + open
    }
}

impl Iterator for LazyPieces<'_> {
    type Item = Part;

    fn next(&mut self) -> Option<Part> {
        let (start, first) = self.next?;
        if first {
            // Opened before any piece is read (one that cannot be opened now is opened by name
            // by its reader, which reports why).
            self.opened = open_log(self.path, self.mmap)
                .ok()
                .map(|src| OpenFile(Arc::new(Mutex::new(src))));
        }
        // A piece walked past: nothing more to cut (the pieces given are void).
        let end = if self.fate.ran_past_from.load(Ordering::SeqCst) < start {
            None
        } else {
            // A file that cannot be read is one part (its reader reports why).
            let path = self.path;
            let sources = self.sources.get_or_insert_with(|| {
                Ok(CutSources {
                    log: open_sparse(path)?,
                    index: open_offset_index_of(path),
                })
            });
            match sources {
                Ok(CutSources { log, index }) => self
                    .cutter
                    .next_cut(log.as_mut(), index.as_deref_mut(), self.split)
                    .unwrap_or(None),
                Err(_) => None,
            }
        };
        if end.is_none() {
            // Closed as soon as the cutting is over.
            self.read_before = self.bytes_read();
            self.sources = None;
        }
        self.next = end.map(|e| (e, false));
        Some(Part {
            file: self.file,
            start,
            end,
            first,
            last: end.is_none(),
            fate: Some(self.fate.clone()),
            opened: self.opened.clone(),
        })
    }
}

/// What a part's channel carries to the writer.
pub enum Piece<N> {
    Out(Vec<u8>),
    /// A line for stderr (already formatted, newline included).
    Err(String),
    /// Something for the writer at this place in the output ([`Chunks::note`]), or, last, the
    /// part's result.
    Note(N),
    Done(N),
}

/// What the writer is handed, in order: [`Piece`] with the output borrowed (its buffer goes
/// back to the workers).
pub enum Received<'b, N> {
    Out(&'b [u8]),
    Err(String),
    Note(N),
    Done(N),
}

/// The parts taken by workers and not yet reached by the writer, and which part the writer is
/// on: a worker waits for the writer before taking a part too far ahead.
struct InFlight<P, N> {
    state: Mutex<InFlightState<P, N>>,
    changed: Condvar,
}

struct InFlightState<P, N> {
    writing: usize,
    channels: HashMap<usize, (P, Receiver<Piece<N>>)>,
    /// How many parts the plan held, once it ran out.
    total: Option<usize>,
    stopped: bool,
    /// Workers still running: a part no worker is left to take is an error, not a wait.
    workers: usize,
}

/// The plan, and the index of the part it gives next.
struct Plan<I> {
    parts: I,
    next: usize,
}

impl<P, N> InFlight<P, N> {
    fn lock(&self) -> std::sync::MutexGuard<'_, InFlightState<P, N>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called by a worker about to take part `i`: waits until `i` is within the window.
    /// False when the run stopped.
    fn wait_for_window(&self, i: usize, window: usize) -> bool {
        let mut st = self.lock();
        while !st.stopped && i >= st.writing + window {
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        !st.stopped
    }

    /// Part `i` taken: its channel, for the writer.
    fn taken(&self, i: usize, part: P, rx: Receiver<Piece<N>>) {
        self.lock().channels.insert(i, (part, rx));
        self.changed.notify_all();
    }

    fn plan_ended(&self, total: usize) {
        self.lock().total = Some(total);
        self.changed.notify_all();
    }

    /// Called by the writer: part `i` and its channel once a worker has taken it, `Ok(None)`
    /// past the last part, an error when no worker is left to take it.
    fn take(&self, i: usize) -> Result<Option<(P, Receiver<Piece<N>>)>> {
        let mut st = self.lock();
        st.writing = i;
        self.changed.notify_all();
        loop {
            if let Some(taken) = st.channels.remove(&i) {
                return Ok(Some(taken));
            }
            if st.total.is_some_and(|t| i >= t) {
                return Ok(None);
            }
            if st.workers == 0 {
                anyhow::bail!("a worker thread stopped unexpectedly");
            }
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn worker_gone(&self) {
        self.lock().workers -= 1;
        self.changed.notify_all();
    }

    fn stop(&self) {
        let mut st = self.lock();
        st.stopped = true;
        // Dropped receivers fail the sends of workers blocked on a full channel.
        st.channels.clear();
        drop(st);
        self.changed.notify_all();
    }
}

/// Chunk buffers written out by the main thread, and printers' last buffers, for the workers
/// to fill again (fresh ones would be fresh pages to fault in, chunk after chunk: a buffer
/// dropped at each part's end was a tenth of the kernel's time in `--threads 2`).
struct Spares {
    kept: Mutex<Vec<Vec<u8>>>,
    /// At most this many kept.
    limit: usize,
    /// Buffers made because none was kept.
    made: AtomicUsize,
}

impl Spares {
    fn new(limit: usize) -> Spares {
        Spares {
            kept: Mutex::new(Vec::new()),
            limit,
            made: AtomicUsize::new(0),
        }
    }

    fn take(&self) -> Vec<u8> {
        let spare = self.kept.lock().unwrap_or_else(|e| e.into_inner()).pop();
        spare.unwrap_or_else(|| {
            self.made.fetch_add(1, Ordering::Relaxed);
            // Small at first: many small parts keep small buffers, and a large part's grow to
            // 2 MiB and stay so in the spares.
            Vec::with_capacity(FIRST_CAPACITY)
        })
    }

    fn give(&self, mut b: Vec<u8>) {
        if b.capacity() == 0 || b.capacity() > KEEP_UP_TO {
            return;
        }
        b.clear();
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < self.limit {
            kept.push(b);
        }
    }
}

/// A writer sending its bytes down a part's channel in [`CHUNK`]s; `flush` sends what it has.
pub struct Chunks<N> {
    tx: SyncSender<Piece<N>>,
    buf: Vec<u8>,
    spares: Arc<Spares>,
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "output closed")
}

impl<N> Chunks<N> {
    fn send(&mut self) -> io::Result<()> {
        let full = std::mem::take(&mut self.buf);
        self.tx.send(Piece::Out(full)).map_err(|_| closed())
    }

    /// A sender for [`Piece::Note`]s placed after this writer's output so far (flushed first).
    pub fn notes(&self) -> SyncSender<Piece<N>> {
        self.tx.clone()
    }
}

impl<N> Write for Chunks<N> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if self.buf.capacity() == 0 {
            self.buf = self.spares.take();
        }
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

/// A printer's full line buffer goes down the channel as it is: the spare it gets back is a
/// buffer the main thread has written out.
impl<N> print::TakesBuffers for Chunks<N> {
    fn take_buffer(&mut self, full: Vec<u8>) -> io::Result<Vec<u8>> {
        // What was written through `Write` comes first.
        if !self.buf.is_empty() {
            self.send()?;
        }
        self.tx.send(Piece::Out(full)).map_err(|_| closed())?;
        Ok(self.spares.take())
    }

    fn spare(&mut self) -> Vec<u8> {
        self.spares.take()
    }

    fn give_back(&mut self, empty: Vec<u8>) {
        self.spares.give(empty);
    }
}

/// What is still buffered is sent, as `BufWriter` writes it when dropped (before the part's
/// result, which its worker sends after), and the buffer goes back to the spares.
impl<N> Drop for Chunks<N> {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            let _ = self.send();
        }
        self.spares.give(std::mem::take(&mut self.buf));
    }
}

/// Sends `note` to the writer through a part's channel (its output must be flushed first).
pub fn note<N>(to: &SyncSender<Piece<N>>, note: N) -> io::Result<()> {
    to.send(Piece::Note(note)).map_err(|_| closed())
}

/// Runs `work(kept, part, out)` for every part of `plan` on `threads` workers, `kept` the
/// worker's own state from `init` (buffers and sources reused from part to part: fresh ones are
/// fresh pages to fault in, piece after piece) and `out` a writer over the part's channel;
/// `take(part, received)` receives each part's output, error lines, notes and result, parts in
/// plan order. Workers stop at their next part or send after an error.
pub fn run<P, N, I, K>(
    plan: I,
    threads: usize,
    init: impl Fn() -> K + Sync,
    work: impl Fn(&mut K, &P, Chunks<N>) -> N + Sync,
    mut take: impl FnMut(&P, Received<'_, N>) -> Result<()>,
) -> Result<()>
where
    P: Clone + Send,
    N: Send + 'static,
    I: Iterator<Item = P> + Send,
{
    let threads = threads.max(1);
    let in_flight = InFlight {
        state: Mutex::new(InFlightState {
            writing: 0,
            channels: HashMap::new(),
            total: None,
            stopped: false,
            workers: threads,
        }),
        changed: Condvar::new(),
    };
    let plan = Mutex::new(Plan {
        parts: plan,
        next: 0,
    });
    let window = threads.saturating_mul(AHEAD);
    let stop = AtomicBool::new(false);
    // Room for every buffer that can be in flight: each part from the one being written to the
    // window's end has DEPTH in its channel, and two being filled (its printer's and its
    // `Chunks`').
    let spares = Arc::new(Spares::new((window + 1) * (DEPTH + 2)));
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..threads {
            s.spawn(|| {
                // Counted out however the worker ends (a panic included).
                struct Gone<'a, P, N>(&'a InFlight<P, N>);
                impl<P, N> Drop for Gone<'_, P, N> {
                    fn drop(&mut self) {
                        self.0.worker_gone();
                    }
                }
                let _gone = Gone(&in_flight);
                let mut kept = init();
                while !stop.load(Ordering::Relaxed) {
                    // The plan is held while waiting for the window: the next part is this
                    // one's successor, which would wait too.
                    let (part, tx) = {
                        let mut plan = plan.lock().unwrap_or_else(|e| e.into_inner());
                        let i = plan.next;
                        if !in_flight.wait_for_window(i, window) {
                            break;
                        }
                        let Some(part) = plan.parts.next() else {
                            in_flight.plan_ended(i);
                            break;
                        };
                        plan.next += 1;
                        let (tx, rx) = sync_channel(DEPTH);
                        in_flight.taken(i, part.clone(), rx);
                        (part, tx)
                    };
                    let errors = tx.clone();
                    let _capture = print::capture_errors(Box::new(move |line| {
                        let _ = errors.send(Piece::Err(line));
                    }));
                    // Its buffer is taken at the first write: a printer handing off its own
                    // buffers never writes through it.
                    let out = Chunks {
                        tx: tx.clone(),
                        buf: Vec::new(),
                        spares: spares.clone(),
                    };
                    let result = work(&mut kept, &part, out);
                    let _ = tx.send(Piece::Done(result));
                }
            });
        }
        let outcome = (|| -> Result<()> {
            let mut i = 0;
            while let Some((part, rx)) = in_flight.take(i)? {
                loop {
                    match rx.recv() {
                        Ok(Piece::Out(b)) => {
                            take(&part, Received::Out(&b))?;
                            spares.give(b);
                        }
                        Ok(Piece::Err(line)) => take(&part, Received::Err(line))?,
                        Ok(Piece::Note(n)) => take(&part, Received::Note(n))?,
                        Ok(Piece::Done(n)) => {
                            take(&part, Received::Done(n))?;
                            break;
                        }
                        Err(_) => anyhow::bail!("a worker thread stopped unexpectedly"),
                    }
                }
                i += 1;
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        in_flight.stop();
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Part after part, a printer's buffers come back to the spares (its first one, its full
    /// ones once written, its last one when it is dropped): no fresh buffer after the first
    /// part, whose pages would be faulted in again.
    #[test]
    fn buffers_go_round_part_after_part() {
        let spares = Arc::new(Spares::new(64));
        let mut made_by_first = 0;
        for part in 0..50 {
            let (tx, rx) = sync_channel::<Piece<()>>(64);
            let chunks = Chunks {
                tx,
                buf: Vec::new(),
                spares: spares.clone(),
            };
            let mut out = print::LineOut::handing_off(chunks);
            // Three and a half hand-offs' worth of lines.
            let line = [b'x'; 1000];
            for _ in 0..(7 * print::LineOut::<Chunks<()>>::HAND_OFF_AT / 2) / line.len() {
                out.buf.extend_from_slice(&line);
                out.line_done().unwrap();
            }
            drop(out);
            let mut got = 0;
            while let Ok(piece) = rx.try_recv() {
                if let Piece::Out(b) = piece {
                    got += b.len();
                    spares.give(b);
                }
            }
            assert!(got >= 3 * print::LineOut::<Chunks<()>>::HAND_OFF_AT);
            if part == 0 {
                made_by_first = spares.made.load(Ordering::Relaxed);
            }
        }
        assert_eq!(spares.made.load(Ordering::Relaxed), made_by_first);
    }

    /// Parts come back in plan order, each part's output, notes and result in the order it
    /// made them, with a bounded number of parts taken ahead of the writer.
    #[test]
    fn parts_come_back_in_order_with_few_in_flight() {
        let parts = 300usize;
        let taken = AtomicUsize::new(0);
        let written = AtomicUsize::new(0);
        let most_ahead = AtomicUsize::new(0);
        let mut out = Vec::new();
        let mut results = Vec::new();
        run(
            (0..parts).inspect(|_| {
                let ahead =
                    taken.fetch_add(1, Ordering::SeqCst) + 1 - written.load(Ordering::SeqCst);
                most_ahead.fetch_max(ahead, Ordering::SeqCst);
            }),
            3,
            || 0usize,
            |done_here, &i, mut chunks| {
                *done_here += 1;
                // Some parts larger than a chunk, some empty.
                for line in 0..(i % 7) * 3000 {
                    writeln!(chunks, "{i} {line}").unwrap();
                }
                chunks.flush().unwrap();
                note(&chunks.notes(), (i, "note")).unwrap();
                (i, "done")
            },
            |&i, received| {
                match received {
                    Received::Out(b) => out.extend_from_slice(b),
                    Received::Err(_) => unreachable!(),
                    Received::Note(n) => results.push(n),
                    Received::Done(n) => {
                        results.push(n);
                        written.store(i + 1, Ordering::SeqCst);
                    }
                }
                Ok(())
            },
        )
        .unwrap();
        let mut want = Vec::new();
        let mut want_results = Vec::new();
        for i in 0..parts {
            for line in 0..(i % 7) * 3000 {
                writeln!(want, "{i} {line}").unwrap();
            }
            want_results.extend([(i, "note"), (i, "done")]);
        }
        assert!(out == want, "output out of order");
        assert_eq!(results, want_results);
        // The window is 3 × AHEAD past the part being written.
        let most = most_ahead.load(Ordering::SeqCst);
        assert!(most <= 3 * AHEAD + 1, "{most} parts taken ahead");
    }
}
