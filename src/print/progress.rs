//! The one progress bar every command draws: files and bytes read, on stderr, and only when
//! stderr is a terminal. While a bar is drawn, every other stderr line goes through [`suspend`]
//! so that it is printed on a cleared line and the bar is redrawn below it; commands that stream
//! their answer to stdout draw no bar when stdout shares the terminal.

use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressStyle};

use crate::storage::discover::PartitionDir;
use crate::storage::layout::FileKind;

/// The bar drawn now, if any (for [`suspend`]).
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);
/// `--no-progress`.
static NEVER: AtomicBool = AtomicBool::new(false);

/// No bar for the rest of the run (`--no-progress`).
pub fn never() {
    NEVER.store(true, Ordering::Relaxed);
}

/// Progress over a set of files; does nothing when no bar is drawn.
pub struct Progress {
    bar: Option<ProgressBar>,
    files_done: Arc<AtomicU64>,
    files: u64,
}

/// When a bar may be drawn: asked for, not refused (`--no-progress`), stderr is a terminal, and
/// (for a command streaming its answer) stdout is not the terminal too.
pub fn wanted(show: bool, streams_stdout: bool) -> bool {
    show && !NEVER.load(Ordering::Relaxed)
        && io::stderr().is_terminal()
        && !(streams_stdout && io::stdout().is_terminal())
}

impl Progress {
    /// No bar.
    pub fn none() -> Progress {
        Progress {
            bar: None,
            files_done: Arc::default(),
            files: 0,
        }
    }

    /// A bar over `files` (their sizes are the bytes), drawn when `show` (see [`wanted`]).
    pub fn over_files<'a>(show: bool, files: impl IntoIterator<Item = &'a Path>) -> Progress {
        if !show {
            return Progress::none();
        }
        let (mut n, mut bytes) = (0u64, 0u64);
        for f in files {
            n += 1;
            bytes += size_of(f);
        }
        let bar = ProgressBar::new(bytes);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg} {bytes}/{total_bytes} {wide_bar} {elapsed}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(format!("0/{n} files"));
        *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        Progress {
            bar: Some(bar),
            files_done: Arc::default(),
            files: n,
        }
    }

    /// A bar over the segments (`.log` files) of these partitions.
    pub fn over_partitions<'a>(
        show: bool,
        partitions: impl IntoIterator<Item = &'a PartitionDir>,
    ) -> Progress {
        Progress::over_files(show, partitions.into_iter().flat_map(segments_of))
    }

    /// One file read.
    pub fn file_done(&self, file: &Path) {
        if let Some(bar) = &self.bar {
            let done = self.files_done.fetch_add(1, Ordering::Relaxed) + 1;
            bar.inc(size_of(file));
            bar.set_message(format!("{done}/{} files", self.files));
        }
    }

    /// `bytes` more of the current file read (a long file moves the bar before it is done);
    /// [`Progress::file_done_after`] then counts the rest.
    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    /// One file read, `advanced` of its bytes counted already by [`Progress::advance`].
    pub fn file_done_after(&self, file: &Path, advanced: u64) {
        if let Some(bar) = &self.bar {
            let done = self.files_done.fetch_add(1, Ordering::Relaxed) + 1;
            bar.inc(size_of(file).saturating_sub(advanced));
            bar.set_message(format!("{done}/{} files", self.files));
        }
    }

    /// Whether a bar is drawn.
    pub fn is_drawn(&self) -> bool {
        self.bar.is_some()
    }

    /// Every segment of one partition read.
    pub fn partition_done(&self, p: &PartitionDir) {
        for f in segments_of(p) {
            self.file_done(f);
        }
    }

    /// Clears the bar (before the answer is printed).
    pub fn finish(self) {
        drop(self);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
            *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}

/// Runs `f` (which prints to stderr) with the bar, if one is drawn, cleared.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

fn segments_of(p: &PartitionDir) -> impl Iterator<Item = &Path> {
    p.files
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .map(|f| f.path.as_path())
}

fn size_of(file: &Path) -> u64 {
    std::fs::metadata(file).map_or(0, |m| m.len())
}

/// Progress of records sent (`kseg rescue`): records, bytes, rate and ETA, on stderr when it is
/// a terminal; does nothing otherwise.
pub struct RecordProgress {
    bar: Option<ProgressBar>,
    bytes: u64,
}

impl RecordProgress {
    /// `total_records`: how many will be sent, when known (then the bar has a length and an ETA).
    pub fn new(show: bool, total_records: Option<u64>) -> RecordProgress {
        if !show {
            return RecordProgress {
                bar: None,
                bytes: 0,
            };
        }
        let (bar, template) = match total_records {
            Some(n) => (
                ProgressBar::new(n),
                "{spinner} {human_pos}/{human_len} records {msg} {per_sec} {wide_bar} ETA {eta}",
            ),
            None => (
                ProgressBar::no_length(),
                "{spinner} {human_pos} records {msg} {per_sec}",
            ),
        };
        bar.set_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        RecordProgress {
            bar: Some(bar),
            bytes: 0,
        }
    }

    /// `records` more acknowledged, carrying `bytes` of keys, values and headers.
    pub fn add(&mut self, records: u64, bytes: u64) {
        if let Some(bar) = &self.bar {
            self.bytes += bytes;
            bar.inc(records);
            bar.set_message(format!("({})", indicatif::HumanBytes(self.bytes)));
        }
    }
}

impl Drop for RecordProgress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
            *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}
