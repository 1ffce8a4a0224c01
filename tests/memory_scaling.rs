//! Memory that grows with the data's shape (issue 26), measured as the peak of live heap bytes
//! by a counting global allocator, never as time; one test function (the counters are
//! process-wide):
//! - `kseg diff` is linear in partitions: the log dir's checkpoints are held once per log dir,
//!   not copied into every partition;
//! - `kseg dump-log --threads 2` holds only a few files' output channels at a time, not one per
//!   file of the input (100k segments took 668 MB).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use kseg::cli::{Cli, Command};

#[path = "scaling_data/mod.rs"]
mod scaling_data;

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// The peak of live heap bytes above what was live before, during one `kseg diff`.
fn diff_peak(a: &Path, b: &Path) -> usize {
    let cli = <Cli as clap::Parser>::try_parse_from([
        "kseg".as_ref(),
        "diff".as_ref(),
        "--json".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
    ])
    .unwrap();
    let Command::Diff(args) = cli.command else {
        unreachable!()
    };
    let (peak, result) = peak_quiet(|| kseg::cmd::diff::run(args));
    result.unwrap();
    peak
}

/// The peak of live heap bytes above what was live before while `run` runs with stdout sent to
/// /dev/null.
fn peak_quiet<T>(run: impl FnOnce() -> T) -> (usize, T) {
    use std::io::Write;
    let null = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    std::io::stdout().flush().unwrap();
    let saved = unsafe { libc::dup(1) };
    unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 1) };
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = run();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    std::io::stdout().flush().unwrap();
    unsafe {
        libc::dup2(saved, 1);
        libc::close(saved);
    }
    (peak, result)
}

fn args_of(argv: &[&std::ffi::OsStr]) -> Command {
    <Cli as clap::Parser>::try_parse_from(argv).unwrap().command
}

/// The peak heap of one `kseg dump-log --threads 2` over a dir.
fn dump_peak(dir: &Path) -> usize {
    let Command::DumpLog(args) = args_of(&[
        "kseg".as_ref(),
        "dump-log".as_ref(),
        "--threads".as_ref(),
        "2".as_ref(),
        dir.as_os_str(),
    ]) else {
        unreachable!()
    };
    let (peak, result) = peak_quiet(|| kseg::cmd::dump_log::run(args));
    result.unwrap();
    peak
}

/// The peak heap of one `kseg groups --history` table over a log dir.
fn history_peak(dir: &Path) -> usize {
    let Command::Groups(args) = args_of(&[
        "kseg".as_ref(),
        "groups".as_ref(),
        "--history".as_ref(),
        "--threads".as_ref(),
        "1".as_ref(),
        dir.as_os_str(),
    ]) else {
        unreachable!()
    };
    let (peak, result) = peak_quiet(|| kseg::cmd::groups::run(args));
    result.unwrap();
    peak
}

#[test]
fn memory_is_linear_in_partitions_files_and_commits() {
    let t = tempfile::tempdir().unwrap();
    let (n, m) = (150, 600);
    for (name, count) in [("a1", n), ("b1", n), ("a4", m), ("b4", m)] {
        scaling_data::empty_partitions(&t.path().join(name).join("kafka-logs"), count);
    }
    let small = diff_peak(&t.path().join("a1"), &t.path().join("b1"));
    let large = diff_peak(&t.path().join("a4"), &t.path().join("b4"));
    assert!(
        large <= 6 * small,
        "diff, 4x the partitions: peak heap {large} bytes against {small}"
    );

    // dump-log: what each further segment costs is its files' names and list entries (a few
    // hundred bytes), not a channel per file (~2 KiB each, ~6 KiB a segment before the fix).
    let (n, m) = (1_000, 4_000);
    scaling_data::one_batch_segments(&t.path().join("s1/orders-0"), n);
    scaling_data::one_batch_segments(&t.path().join("s4/orders-0"), m);
    let small = dump_peak(&t.path().join("s1/orders-0"));
    let large = dump_peak(&t.path().join("s4/orders-0"));
    let per_segment = large.saturating_sub(small) / (m - n);
    eprintln!("dump-log: {small} bytes at {n} segments, {large} at {m}");
    // And the output waiting for its turn is a few files' worth, however far the workers could
    // run ahead (before the fix: 193 MB at 1,000 one-batch segments, a 384 KiB buffer per file).
    assert!(
        large <= 16 << 20,
        "dump-log: peak heap {large} bytes over {m} segments"
    );
    assert!(
        per_segment <= 1_500,
        "dump-log: {per_segment} heap bytes per further segment ({small} bytes at {n} \
         segments, {large} at {m})"
    );

    // groups --history as a table: each further commit costs its replayed event (~200 bytes),
    // not a rendered row held until the table is written (~4 KiB each before the fix).
    let (n, m) = (2_000, 8_000);
    scaling_data::offset_commits(&t.path().join("c1"), n);
    scaling_data::offset_commits(&t.path().join("c4"), m);
    let small = history_peak(&t.path().join("c1"));
    let large = history_peak(&t.path().join("c4"));
    let per_commit = large.saturating_sub(small) / (m - n);
    eprintln!("groups --history: {small} bytes at {n} commits, {large} at {m}");
    assert!(
        per_commit <= 1_500,
        "groups --history: {per_commit} heap bytes per further commit ({small} bytes at {n} \
         commits, {large} at {m})"
    );
}
