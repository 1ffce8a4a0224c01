//! [`scan_entries_in_pieces`]: a header-level scan of one large `.log` on every thread of the
//! pool — its pieces read, walked and checksummed in parallel, each one's entries and problems
//! handed back owned and replayed into the sink in file order, so that a pass whose state runs
//! from batch to batch (verify-index's) sees one walk over the file.
//!
//! Pieces are cut by [`PieceCutter`] (at the offset index's positions, else where the frames
//! step) and scanned with their end as the scan's [`ScanOptions::stop_at`]: a piece that does not
//! land on it went on to the end of the file, and the pieces after it are dropped unreplayed.
//! The calling thread scans pieces too, and replays each as soon as it and those before it are
//! in; at most [`WINDOW_PER_THREAD`] pieces per thread are taken ahead of the one replayed next,
//! so memory stays bounded however large the file.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::{Condvar, Mutex};

use kseg_format::log::{BatchInfo, ByteSource, LogEntry, PieceCutter, RecordScratch};
use kseg_storage::source::{open_offset_index_of, open_sparse};

use kseg_scan::{scan_log, Flow, LogFault, LogProblem, LogSink, PastCut, ScanOptions, ScanStats};

/// What a header-level pass takes of each entry: its facts, and a control batch itself (whose
/// markers it reads); and the problems, in file order.
pub trait EntrySink {
    fn entry(&mut self, position: u64, info: &BatchInfo, control: Option<&LogEntry<'_>>);
    fn problem(&mut self, problem: &LogProblem<'_>);
}

/// A [`LogSink`] over an [`EntrySink`].
struct Entries<'s, S: ?Sized>(&'s mut S);

impl<S: EntrySink + ?Sized> LogSink for Entries<'_, S> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        self.0
            .entry(position, info, info.is_control.then_some(entry));
        Ok(Flow::Continue)
    }
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        self.0.problem(problem);
        Ok(Flow::Continue)
    }
}

/// An entry or problem of a piece, owned, to be replayed in order.
enum Recorded {
    Entry {
        position: u64,
        info: BatchInfo,
        /// A control batch's bytes.
        control: Option<Box<[u8]>>,
    },
    Problem(LogFault),
}

#[derive(Default)]
struct Recorder(Vec<Recorded>);

impl EntrySink for Recorder {
    fn entry(&mut self, position: u64, info: &BatchInfo, control: Option<&LogEntry<'_>>) {
        let control = control.and_then(|e| match e {
            LogEntry::V2(b) => Some(Box::from(b.bytes)),
            LogEntry::Legacy(_) => None,
        });
        self.0.push(Recorded::Entry {
            position,
            info: *info,
            control,
        });
    }
    fn problem(&mut self, problem: &LogProblem<'_>) {
        self.0.push(Recorded::Problem(problem.to_fault()));
    }
}

fn replay(recorded: &[Recorded], sink: &mut (impl EntrySink + ?Sized)) {
    for r in recorded {
        match r {
            Recorded::Entry {
                position,
                info,
                control,
            } => {
                // Parsed once already, by the piece's walk.
                let entry = control.as_deref().and_then(|b| LogEntry::parse(b).ok());
                sink.entry(*position, info, entry.as_ref());
            }
            Recorded::Problem(fault) => sink.problem(&fault.as_problem()),
        }
    }
}

/// Pieces each thread may have taken ahead of the one replayed next.
pub const WINDOW_PER_THREAD: usize = 2;

/// A file is read in pieces only when it makes more than this many: a few pieces' fixed costs
/// (the cutting's sources, a scope, a helper task) were a tenth of verify-index over 40
/// partitions of two 8 MiB pieces each, whose partitions kept both threads busy already.
const MIN_PIECES: u64 = 4;

/// A header-level scan of `src` (the log at `path`) into `sink`, in pieces of about `split`
/// bytes on the pool's threads when it has more than one and the file makes more than
/// [`MIN_PIECES`] of them: the same entries and problems, in the same order, as one scan. The
/// pieces are read through readers of `src`'s open file ([`ByteSource::another`]), not the
/// path, which a live broker may rename or delete meanwhile; only the cutting opens the path
/// (and without it, the scan is one walk).
pub fn scan_entries_in_pieces(
    src: &mut dyn ByteSource,
    path: &Path,
    opts: &ScanOptions,
    split: u64,
    scratch: &mut RecordScratch,
    sink: &mut dyn EntrySink,
) -> io::Result<ScanStats> {
    let threads = rayon::current_num_threads();
    let large = src.len() > split.saturating_mul(MIN_PIECES);
    if threads <= 1 || !large || opts.deep || opts.start_position != 0 {
        return scan_log(src, opts, scratch, &mut Entries(sink));
    }
    // A reader per thread, and one for the cutting.
    let mut readers = Vec::with_capacity(threads);
    for _ in 0..threads {
        match src.another() {
            Some(Ok(reader)) => readers.push(reader),
            _ => return scan_log(src, opts, scratch, &mut Entries(sink)),
        }
    }
    let Ok(cutting) = open_sparse(path) else {
        return scan_log(src, opts, scratch, &mut Entries(sink));
    };
    let cap = scratch.decompressor.max_output;
    let shared = Shared {
        state: Mutex::new(State {
            cutter: PieceCutter::new(0, true),
            log: cutting,
            index: open_offset_index_of(path),
            next_start: Some(0),
            taken: 0,
            scanned: BTreeMap::new(),
            replayed: 0,
            stop: false,
        }),
        changed: Condvar::new(),
        window: threads * WINDOW_PER_THREAD,
        split,
    };
    let scan_piece = |src: &mut dyn ByteSource,
                      (start, end): (u64, Option<u64>)|
     -> io::Result<(Vec<Recorded>, ScanStats)> {
        let mut scratch = RecordScratch::with_cap(cap);
        let mut recorder = Recorder::default();
        // A piece that does not land on its cut stops there: the caller goes on from there
        // itself, rather than this piece holding the entries of the rest of the file.
        let piece_opts = ScanOptions {
            start_position: start,
            stop_at: end,
            past_cut: PastCut::Stop,
            ..opts.clone()
        };
        let stats = scan_log(src, &piece_opts, &mut scratch, &mut Entries(&mut recorder))?;
        Ok((recorder.0, stats))
    };
    let mut total = ScanStats::default();
    let (shared, scan_piece) = (&shared, &scan_piece);
    rayon::in_place_scope(|pool| -> io::Result<()> {
        let mut own = readers.pop().expect("a reader per thread");
        for mut reader in readers {
            pool.spawn(move |_| {
                let mut scanning = Scanning {
                    shared,
                    piece: None,
                };
                while let Some((k, range)) = shared.take(true) {
                    scanning.piece = Some(k);
                    let scanned = scan_piece(reader.as_mut(), range);
                    scanning.piece = None;
                    shared.scanned(k, scanned);
                }
            });
        }
        // However the caller leaves (a panic included), the helpers stop taking pieces, so the
        // scope can end.
        let _stop = StopOnDrop(shared);
        loop {
            match shared.next_for_caller() {
                Next::Replay(scanned) => {
                    let (recorded, stats) = scanned?;
                    replay(&recorded, sink);
                    total.add(&stats);
                    if shared.replayed(stats.ran_past_cut) {
                        // The pieces after it are void: one walk goes on from where it stopped.
                        if let Some(resume) = stats.resume_at {
                            let rest = ScanOptions {
                                start_position: resume,
                                ..opts.clone()
                            };
                            let stats = scan_log(src, &rest, scratch, &mut Entries(&mut *sink))?;
                            total.add(&stats);
                        }
                        return Ok(());
                    }
                }
                Next::Scan(k, range) => shared.scanned(k, scan_piece(own.as_mut(), range)),
                Next::Done => return Ok(()),
            }
        }
    })?;
    Ok(total)
}

/// A helper's piece in progress: if the helper panics, the caller is told (an error where the
/// piece's entries would be) rather than waiting for it for ever.
struct Scanning<'s> {
    shared: &'s Shared,
    piece: Option<usize>,
}

impl Drop for Scanning<'_> {
    fn drop(&mut self) {
        if let Some(k) = self.piece {
            let stopped = io::Error::other("a thread reading a piece of the segment stopped");
            self.shared.scanned(k, Err(stopped));
        }
    }
}

struct StopOnDrop<'s>(&'s Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    window: usize,
    split: u64,
}

struct State {
    cutter: PieceCutter,
    log: Box<dyn ByteSource + Send>,
    index: Option<Box<dyn ByteSource + Send>>,
    /// Where the next piece to take starts; `None` once the last is taken.
    next_start: Option<u64>,
    /// Pieces taken so far (the next one's number).
    taken: usize,
    /// Pieces scanned and not yet replayed.
    scanned: BTreeMap<usize, io::Result<(Vec<Recorded>, ScanStats)>>,
    /// Pieces replayed (the next one's number).
    replayed: usize,
    /// A piece ran past its end (the rest are void), or the scan failed.
    stop: bool,
}

enum Next {
    Replay(io::Result<(Vec<Recorded>, ScanStats)>),
    Scan(usize, (u64, Option<u64>)),
    Done,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next piece to scan, within the window; a helper (`wait`) waits for room, `None` when
    /// there is nothing left to take.
    fn take(&self, wait: bool) -> Option<(usize, (u64, Option<u64>))> {
        let mut st = self.lock();
        loop {
            if st.stop {
                return None;
            }
            let start = st.next_start?;
            if st.taken < st.replayed + self.window {
                return Some(self.cut(&mut st, start));
            }
            if !wait {
                return None;
            }
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn cut(&self, st: &mut State, start: u64) -> (usize, (u64, Option<u64>)) {
        let State {
            cutter, log, index, ..
        } = st;
        // A failed read of a frame header ends the cutting: the rest is one piece.
        let end = cutter
            .next_cut(log.as_mut(), index.as_deref_mut(), self.split)
            .unwrap_or(None);
        st.next_start = end;
        let k = st.taken;
        st.taken += 1;
        (k, (start, end))
    }

    /// For the calling thread: the next piece to replay when it is in, else a piece to scan,
    /// else a wait.
    fn next_for_caller(&self) -> Next {
        let mut st = self.lock();
        loop {
            let next = st.replayed;
            if let Some(scanned) = st.scanned.remove(&next) {
                return Next::Replay(scanned);
            }
            if st.next_start.is_none() && st.taken == next {
                return Next::Done;
            }
            if !st.stop && st.taken < st.replayed + self.window {
                if let Some(start) = st.next_start {
                    let (k, range) = self.cut(&mut st, start);
                    return Next::Scan(k, range);
                }
            }
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn scanned(&self, k: usize, result: io::Result<(Vec<Recorded>, ScanStats)>) {
        let mut st = self.lock();
        if result.is_err() {
            // The caller stops at it when it comes to replay it; nothing after it is needed.
            st.next_start = None;
        }
        st.scanned.insert(k, result);
        drop(st);
        self.changed.notify_all();
    }

    /// A piece replayed; true when it ran past its end (the pieces after it are void).
    fn replayed(&self, ran_past_cut: bool) -> bool {
        let mut st = self.lock();
        st.replayed += 1;
        if ran_past_cut {
            st.stop = true;
        }
        drop(st);
        self.changed.notify_all();
        ran_past_cut
    }

    fn stop(&self) {
        let mut st = self.lock();
        st.stop = true;
        st.scanned.clear();
        drop(st);
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kseg_format::compression::Codec;
    use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
    use proptest::prelude::*;

    /// Every entry and problem, by position, as a pass sees them.
    #[derive(Default)]
    struct Seen(Vec<String>);

    impl EntrySink for Seen {
        fn entry(&mut self, position: u64, info: &BatchInfo, control: Option<&LogEntry<'_>>) {
            self.0.push(format!(
                "{position} {info:?} control {}",
                control.map_or(0, |c| c.info().size)
            ));
        }
        fn problem(&mut self, p: &LogProblem<'_>) {
            self.0
                .push(format!("problem {} {}", p.position(), p.message()));
        }
    }

    fn log(lengths: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        let value = vec![b'v'; 400];
        for (i, &len) in lengths.iter().enumerate() {
            let r = NewRecord {
                timestamp: 1_000 + i as i64,
                key: None,
                value: Some(&value[..len.min(400)]),
                headers: &[],
            };
            let batch = NewBatch {
                base_offset: 2 * i as i64,
                codec: if i % 4 == 3 { Codec::Lz4 } else { Codec::None },
                control: i % 5 == 4,
                transactional: i % 5 == 4,
                producer_id: if i % 5 == 4 { 7 } else { -1 },
                ..NewBatch::default()
            };
            encode_batch(&mut out, &batch, &[r, r], &mut scratch);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// On two threads, pieces cut at any index positions (right, inside batches, out of
        /// order) and any damage replay as one scan over the file.
        #[test]
        fn pieces_on_two_threads_replay_as_one_scan(
            lengths in proptest::collection::vec(0usize..400, 1..40),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
            cut_tail in 0usize..50,
            index in proptest::collection::vec(any::<prop::sample::Index>(), 0..30),
            split in 1u64..3000,
            sorted in any::<bool>(),
        ) {
            let mut data = log(&lengths);
            for (at, byte) in flips {
                let i = at.index(data.len());
                data[i] = byte;
            }
            data.truncate(data.len().saturating_sub(cut_tail).max(1));
            let mut positions: Vec<u32> = index.iter().map(|i| i.index(data.len()) as u32).collect();
            if sorted {
                positions.sort_unstable();
            }
            let t = tempfile::tempdir().unwrap();
            let path = t.path().join("00000000000000000000.log");
            std::fs::write(&path, &data).unwrap();
            let entries: Vec<u8> = positions
                .iter()
                .flat_map(|p| [0u32.to_be_bytes(), p.to_be_bytes()].concat())
                .collect();
            std::fs::write(path.with_extension("index"), entries).unwrap();
            let opts = ScanOptions::default();
            let scan = |threads: usize, split: u64| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    let mut src = kseg_storage::source::open_log(&path, false).unwrap();
                    let mut seen = Seen::default();
                    let stats = scan_entries_in_pieces(
                        src.as_mut(),
                        &path,
                        &opts,
                        split,
                        &mut RecordScratch::default(),
                        &mut seen,
                    )
                    .unwrap();
                    (seen.0, stats.batches, stats.problems, stats.invalid_bytes)
                })
            };
            prop_assert_eq!(scan(2, split), scan(1, split));
        }
    }
}
