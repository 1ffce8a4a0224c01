//! `kseg diff`'s memory grows linearly with the partitions (issue 26): the log dir's
//! checkpoints are held once per log dir, not copied into every partition. Measured as the peak
//! of live heap bytes by a counting global allocator, never as time; one test function (the
//! counters are process-wide).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use kseg::cli::{Cli, Command};

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

/// A broker's log dir with `n` empty partitions, every one listed in its checkpoints.
fn log_dir(root: &Path, n: usize) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    let mut checkpoint = format!("0\n{n}\n");
    for i in 0..n {
        let p = root.join(format!("orders-{i}"));
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("00000000000000000000.log"), b"").unwrap();
        std::fs::write(p.join("00000000000000000000.index"), b"").unwrap();
        checkpoint.push_str(&format!("orders {i} 0\n"));
    }
    for f in [
        "recovery-point-offset-checkpoint",
        "log-start-offset-checkpoint",
        "replication-offset-checkpoint",
        "cleaner-offset-checkpoint",
    ] {
        std::fs::write(root.join(f), &checkpoint).unwrap();
    }
}

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
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    kseg::cmd::diff::run(args).unwrap();
    PEAK.load(Ordering::Relaxed) - before
}

#[test]
fn diff_memory_is_linear_in_partitions() {
    let t = tempfile::tempdir().unwrap();
    let (n, m) = (150, 600);
    for (name, count) in [("a1", n), ("b1", n), ("a4", m), ("b4", m)] {
        log_dir(&t.path().join(name).join("kafka-logs"), count);
    }
    let small = diff_peak(&t.path().join("a1"), &t.path().join("b1"));
    let large = diff_peak(&t.path().join("a4"), &t.path().join("b4"));
    assert!(
        large <= 6 * small,
        "4x the partitions: peak heap {large} bytes against {small}"
    );
}
