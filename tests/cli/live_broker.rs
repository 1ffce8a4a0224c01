//! A running broker holds its log dir's `.lock`: verify-index says the data dir is live (from
//! `/proc/locks`) instead of reading it as a crash, and never takes the lock away. Both lock
//! kinds are covered: `flock` (kseg's mini-broker) and POSIX `fcntl` (Kafka's
//! `FileChannel.tryLock` on Linux).

use crate::common::*;
use std::os::fd::AsRawFd;
use std::path::Path;

fn crashed_looking_dir(root: &Path) {
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    std::fs::write(root.join(".lock"), "").unwrap();
    let b = three_batches();
    write(
        &root.join("t-0/00000000000000000000.log"),
        &[&b[0], &b[1], &b[2]],
    );
    // The active segment's preallocated indexes, as a running broker has them.
    std::fs::write(
        root.join("t-0/00000000000000000000.index"),
        vec![0u8; 8 * 100],
    )
    .unwrap();
    std::fs::write(
        root.join("t-0/00000000000000000000.timeindex"),
        vec![0u8; 12 * 100],
    )
    .unwrap();
}

fn verify(root: &Path) -> (Run, Vec<serde_json::Value>) {
    let text = kseg(&["verify-index", root.to_str().unwrap()]);
    let json = kseg(&["verify-index", root.to_str().unwrap(), "--json"]);
    let lines = json_lines(&json.stdout);
    (text, lines)
}

fn live_findings(lines: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    lines
        .iter()
        .filter(|v| v["check"] == "live-broker")
        .collect()
}

/// Whether another open file description can take an exclusive flock now (it cannot while the
/// test's own lock is held).
fn flock_free(path: &Path) -> bool {
    let f = std::fs::File::open(path).unwrap();
    // SAFETY: flock on an open descriptor; a lock taken here is released when `f` closes.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[test]
fn a_held_flock_makes_the_dir_live() {
    let t = tempfile::tempdir().unwrap();
    crashed_looking_dir(t.path());
    let (text, lines) = verify(t.path());
    assert!(live_findings(&lines).is_empty(), "no broker yet");
    assert!(
        text.stdout.contains("what Kafka does at the next start"),
        "{}",
        text.stdout
    );

    let lock = std::fs::File::open(t.path().join(".lock")).unwrap();
    // SAFETY: flock on an open descriptor owned by this test.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let (text, lines) = verify(t.path());
    assert_eq!(text.code, 0, "{}", text.stderr);
    let live = live_findings(&lines);
    assert_eq!(live.len(), 1, "{lines:?}");
    assert_eq!(live[0]["severity"], "info");
    let msg = live[0]["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("process {}", std::process::id())),
        "{msg}"
    );
    assert!(
        text.stdout.contains("a broker is running on this data"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("what Kafka does at the next start"));
    // kseg did not take the lock: it is still this test's.
    assert!(!flock_free(&t.path().join(".lock")));
    drop(lock);
    assert!(flock_free(&t.path().join(".lock")));
}

#[test]
fn a_held_posix_lock_makes_the_dir_live() {
    let t = tempfile::tempdir().unwrap();
    crashed_looking_dir(t.path());
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(t.path().join(".lock"))
        .unwrap();
    // SAFETY: a zeroed flock struct filled in for a whole-file write lock on our descriptor.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    assert_eq!(
        unsafe { libc::fcntl(lock.as_raw_fd(), libc::F_SETLK, &fl) },
        0
    );
    let (_text, lines) = verify(t.path());
    let live = live_findings(&lines);
    assert_eq!(live.len(), 1, "{lines:?}");
    assert!(live[0]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("process {}", std::process::id())));
    drop(lock);
}
