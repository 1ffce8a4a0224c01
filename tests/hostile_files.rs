//! Hostile files in a data dir (issue 14): FIFOs and device files named like segments,
//! indexes, checkpoints and snapshots. Every command answers within a generous process timeout
//! (no hang in `open`, no read of an endless device), exits with a documented code, and names
//! the file that is not a regular file.

use std::path::{Path, PathBuf};
use std::time::Duration;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs kseg with a 120 s limit: a hang fails the test instead of blocking it.
fn kseg(args: &[&str]) -> Run {
    let out = assert_cmd::Command::cargo_bin("kseg")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        run.code.is_some(),
        "kseg {args:?} did not exit by itself (killed at the timeout or by a signal): {}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A copy of the committed example data dir.
fn example_copy(t: &Path) -> PathBuf {
    let dir = t.join("data");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-datadir"),
        &dir,
    );
    dir
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn symlink_to(path: &Path, target: &str) {
    let _ = std::fs::remove_file(path);
    std::os::unix::fs::symlink(target, path).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every command that reads `file` (in partition dir `part` of log dir `dir`), as (name, args).
fn commands<'a>(dir: &'a str, part: &'a str, out: &'a str) -> Vec<(&'static str, Vec<&'a str>)> {
    vec![
        ("summary", vec!["summary", dir]),
        ("verify-index", vec!["verify-index", dir]),
        ("dump-log", vec!["dump-log", part]),
        ("recover", vec!["recover", "--out", out, part]),
        ("lookup", vec!["lookup", "--latest", part]),
        (
            "lookup --timestamp",
            vec!["lookup", "--timestamp", "0", part],
        ),
    ]
}

fn check(name: &str, make: impl Fn(&Path), what: &str) {
    let t = tempfile::tempdir().unwrap();
    let dir = example_copy(t.path());
    let part = dir.join("orders-0");
    let file = part.join(name);
    make(&file);
    let out = t.path().join("out");
    for (cmd, args) in commands(s(&dir), s(&part), s(&out)) {
        let _ = std::fs::remove_dir_all(&out);
        let r = kseg(&args);
        let code = r.code.unwrap();
        assert!(
            (0..=2).contains(&code),
            "{cmd} on {what} {name}: exit {code}: {}",
            r.stderr
        );
        let said = format!("{}{}", r.stdout, r.stderr);
        // A command that reads the file names it; one that has no use for it may pass it by.
        if said.contains(name) && code != 0 {
            assert!(
                said.contains("not a regular file"),
                "{cmd} on {what} {name}: {}\n{}",
                r.stdout,
                r.stderr
            );
        }
        // Every command but `lookup --latest` (answered from the newest segment) reads the first
        // segment's log.
        if name.ends_with(".log") && cmd != "lookup" {
            assert!(
                said.contains(name) && said.contains(&format!("{what}, not a regular file")),
                "{cmd} must name the {what} {name}: {}\n{}",
                r.stdout,
                r.stderr
            );
        }
    }
}

const NAMES: &[&str] = &[
    "00000000000000000000.log",
    "00000000000000000000.index",
    "00000000000000000000.timeindex",
    "00000000000000000054.snapshot",
    "leader-epoch-checkpoint",
];

/// Issue 14 item 6: a FIFO blocked `open(O_RDONLY)` forever.
#[test]
fn fifos_named_like_kafka_files_do_not_hang() {
    for name in NAMES {
        check(name, mkfifo, "a FIFO");
    }
}

/// Issue 14 item 5: a symlink to an endless device reported length 0 and was read to the
/// limit (gigabytes).
#[test]
fn device_files_named_like_kafka_files_are_not_read() {
    for name in NAMES {
        check(name, |p| symlink_to(p, "/dev/zero"), "a character device");
        check(
            name,
            |p| symlink_to(p, "/dev/urandom"),
            "a character device",
        );
    }
}

/// Issue 14 item 7: a leader-epoch-checkpoint of 16 MB of NULs (one "line") is reported with a
/// short quote of the line, its file and position; the message no longer holds the whole line.
#[test]
fn a_zero_filled_checkpoint_is_quoted_briefly() {
    let t = tempfile::tempdir().unwrap();
    let dir = example_copy(t.path());
    let ck = dir.join("orders-0/leader-epoch-checkpoint");
    std::fs::write(&ck, vec![0u8; 16_000_000]).unwrap();
    for json in [false, true] {
        let mut args = vec!["verify-index", s(&dir)];
        if json {
            args.push("--json");
        }
        let r = kseg(&args);
        assert_eq!(r.code, Some(1), "{}", r.stderr);
        assert!(
            r.stdout.len() < 64 * 1024,
            "{} bytes of output",
            r.stdout.len()
        );
        assert!(
            r.stdout.contains("bad version line") && r.stdout.contains("(16000000 bytes)"),
            "{}",
            r.stdout
        );
        assert!(r.stdout.contains("leader-epoch-checkpoint"));
    }
}

/// Issue 14 item 3: 16.9 MB of 0x01 bytes (every byte starts a plausible 16.8 MB frame) took
/// minutes; every reading command now ends (the timeout is generous, the work linear).
#[test]
fn garbage_declaring_a_frame_at_every_byte_is_walked_once() {
    let t = tempfile::tempdir().unwrap();
    let part = t.path().join("data/t-0");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(part.join("00000000000000000000.log"), vec![1u8; 16_900_000]).unwrap();
    let out = t.path().join("out");
    let dir = t.path().join("data");
    for args in [
        vec!["summary", s(&dir)],
        vec!["verify-index", s(&dir)],
        vec!["dump-log", s(&part)],
        vec!["recover", "--out", s(&out), s(&part)],
        vec!["lookup", "--scan", "--offset", "0", s(&part)],
    ] {
        let r = kseg(&args);
        assert!((0..=2).contains(&r.code.unwrap()), "{args:?}: {}", r.stderr);
    }
}

/// Issue 14 item 4: a random `.timeindex` made `dump-log` hold (and print) one problem per
/// entry: 100 MiB took 1.1 GB and 8.7 M stderr lines. The first PROBLEMS_PER_FILE (10,000)
/// per file are listed, the rest counted in one note.
#[test]
fn a_random_time_index_lists_a_bounded_number_of_problems() {
    let t = tempfile::tempdir().unwrap();
    let dir = example_copy(t.path());
    let ti = dir.join("orders-0/00000000000000000000.timeindex");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..3 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&ti, &bytes).unwrap();
    let r = kseg(&["dump-log", s(&ti)]);
    let lines = r.stderr.lines().count();
    assert!(lines <= 10_000 + 10, "{lines} stderr lines");
    assert!(
        r.stderr
            .contains("more index problems not listed (the first 10000 are)"),
        "{}",
        &r.stderr[r.stderr.len().saturating_sub(2000)..]
    );
}

/// Issue 14 item 14: `--mmap` on a log dir whose `.lock` a process holds (a live broker) is
/// refused with the reason, instead of risking SIGBUS on a truncation.
#[test]
fn mmap_is_refused_on_a_locked_log_dir() {
    use std::os::unix::io::AsRawFd;
    let t = tempfile::tempdir().unwrap();
    let dir = example_copy(t.path());
    let lock = std::fs::File::create(dir.join(".lock")).unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let seg = dir.join("orders-0/00000000000000000000.log");
    let r = kseg(&["dump-log", "--mmap", s(&seg)]);
    assert!(matches!(r.code, Some(1 | 2)), "{}", r.stderr);
    assert!(r.stderr.contains("--mmap refused"), "{}", r.stderr);
    assert!(
        r.stderr.contains("00000000000000000000.log"),
        "{}",
        r.stderr
    );
    // Without --mmap the same file is read.
    assert_eq!(kseg(&["dump-log", s(&seg)]).code, Some(0));
    drop(lock);
    assert_eq!(kseg(&["dump-log", "--mmap", s(&seg)]).code, Some(0));
}

/// Issue 14 item 12: a partition dir named with ESC, an OSC sequence, BEL and a newline
/// reached the terminal raw in `dump-log` text; it is escaped in every text output.
#[test]
fn hostile_partition_dir_names_are_escaped() {
    let t = tempfile::tempdir().unwrap();
    let part = t.path().join("t\x1b]0;pwned\x07\nx-0");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/example-datadir/orders-0/00000000000000000000.log"),
        part.join("00000000000000000000.log"),
    )
    .unwrap();
    for args in [
        vec!["dump-log", s(&part)],
        vec!["verify-index", "-v", s(t.path())],
        vec!["summary", s(t.path())],
    ] {
        let r = kseg(&args);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            !all.contains('\x1b') && !all.contains('\x07'),
            "{args:?}: raw control characters in {all:?}"
        );
    }
    let r = kseg(&["dump-log", s(&part)]);
    assert!(
        r.stdout.contains("t\\x1b]0;pwned\\x07\\x0ax-0"),
        "{}",
        r.stdout
    );
}
