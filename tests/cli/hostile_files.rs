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
        // Issue 14 item 13: a `recover` that fails leaves no partial copy behind.
        if cmd == "recover" && code == 2 {
            assert!(
                !out.join("orders-0").exists(),
                "recover on {what} {name} left a partial --out"
            );
        }
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
            // CheckpointReadBuffer's words for a version line that is no int.
            r.stdout.contains("Malformed line") && r.stdout.contains("(16000000 bytes)"),
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

/// A v0 message with a null key and value: 26 bytes, the smallest there is.
fn tiny_v0(offset: i64) -> [u8; 26] {
    let mut m = [0u8; 26];
    m[0..8].copy_from_slice(&offset.to_be_bytes());
    m[8..12].copy_from_slice(&14i32.to_be_bytes());
    // magic 0, attributes 0, key -1, value -1
    m[16..26].copy_from_slice(&[0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    let crc = crc32fast::hash(&m[16..]);
    m[12..16].copy_from_slice(&crc.to_be_bytes());
    m
}

/// A v1 gzip wrapper message at `offset` whose value is `value`.
fn v1_gzip_wrapper(offset: i64, timestamp: i64, value: &[u8]) -> Vec<u8> {
    let mut body = vec![1u8, 1];
    body.extend_from_slice(&timestamp.to_be_bytes());
    body.extend_from_slice(&(-1i32).to_be_bytes());
    body.extend_from_slice(&(value.len() as i32).to_be_bytes());
    body.extend_from_slice(value);
    let mut out = offset.to_be_bytes().to_vec();
    out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// Issue 14 item 8: one v1 gzip wrapper of `count` tiny inner messages (5.1 M: 126.5 MiB
/// inflated, under the 128 MiB cap) as partition `t-0` of a data dir under `root`, the wrapper
/// at offset `INNER_BASE + count - 1` so the inner offsets are `INNER_BASE..`.
const ISSUE_INNER_COUNT: i64 = 5_100_000;
/// What the CI test walks (debug builds; the full 5.1 M is the ignored test's and the
/// benchmark's).
const INNER_COUNT: i64 = 500_000;
const INNER_BASE: i64 = 1_000;

fn write_amplifying_wrapper(root: &Path, count: i64) -> PathBuf {
    use std::io::Write;
    let part = root.join("data/t-0");
    std::fs::create_dir_all(&part).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut chunk = Vec::with_capacity(26 << 16);
    for i in 0..count {
        chunk.extend_from_slice(&tiny_v0(i));
        if chunk.len() >= 26 << 16 {
            gz.write_all(&chunk).unwrap();
            chunk.clear();
        }
    }
    gz.write_all(&chunk).unwrap();
    let value = gz.finish().unwrap();
    let seg = part.join("00000000000000000000.log");
    std::fs::write(
        &seg,
        v1_gzip_wrapper(INNER_BASE + count - 1, 1_700_000_000_000, &value),
    )
    .unwrap();
    seg
}

/// Issue 14 item 8: the inner messages of one wrapper are counted and walked with the right
/// offsets (the memory of 5.1 M, bounded by the decompression cap, is measured in BENCHMARKS.md
/// and by the ignored test below).
#[test]
fn a_wrapper_of_many_inner_messages_is_walked() {
    let t = tempfile::tempdir().unwrap();
    let seg = write_amplifying_wrapper(t.path(), INNER_COUNT);
    let dir = t.path().join("data");
    let r = kseg(&["summary", "--json", s(&dir)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let row: serde_json::Value = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "partition")
        .unwrap();
    assert_eq!(row["records"], INNER_COUNT, "{row}");
    assert_eq!(row["batches"], 1, "{row}");
    assert_eq!(row["logEndOffset"], INNER_BASE + INNER_COUNT, "{row}");
    // The deep walk visits every inner message; the offset range keeps the output short.
    let last = INNER_BASE + INNER_COUNT - 1;
    let r = kseg(&[
        "dump-log",
        "--deep-iteration",
        "--json",
        "--from-offset",
        &(last - 2).to_string(),
        s(&seg),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let offsets: Vec<i64> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "record")
        .map(|v| v["offset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, [last - 2, last - 1, last], "{}", r.stdout);
    let r = kseg(&[
        "dump-log",
        "--deep-iteration",
        "--to-offset",
        &(INNER_BASE + 1).to_string(),
        s(&seg),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains(&format!("offset: {INNER_BASE} "))
            && r.stdout.contains(&format!("offset: {} ", INNER_BASE + 1)),
        "{}",
        r.stdout
    );
}

/// Peak RSS of `kseg summary` over the 5.1 M-message wrapper: the decompressed bytes (at most
/// the 128 MiB cap) plus a small constant, not a record per inner message (710 MB before).
/// Ignored by default (a memory figure, not a CI check): `cargo test --release --test
/// hostile_files -- --ignored`.
#[test]
#[ignore = "a measurement, not a check: run it by name with --ignored --nocapture"]
fn measure_a_wrapper_of_millions_of_inner_messages_costs_its_decompressed_bytes() {
    let t = tempfile::tempdir().unwrap();
    let seg = write_amplifying_wrapper(t.path(), ISSUE_INNER_COUNT);
    let dir = t.path().join("data");
    for args in [
        vec!["summary", s(&dir)],
        vec!["dump-log", "--deep-iteration", s(&seg)],
    ] {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_kseg"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
    // SAFETY: getrusage fills the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    let peak_mib = usage.ru_maxrss / 1024;
    eprintln!("peak RSS of the kseg runs: {peak_mib} MiB");
    assert!(peak_mib < 128 + 64, "{peak_mib} MiB");
}

/// Issue 14 item 13: a v1 gzip wrapper whose value is not gzip was counted by `summary` as one
/// record with exit 0; it is a problem named with its file and position, and counts no record.
#[test]
fn an_undecodable_wrapper_is_a_problem_not_a_record() {
    let t = tempfile::tempdir().unwrap();
    let part = t.path().join("data/t-0");
    std::fs::create_dir_all(&part).unwrap();
    let mut seg = Vec::new();
    seg.extend_from_slice(&tiny_v0(0));
    seg.extend(v1_gzip_wrapper(
        5,
        1_700_000_000_000,
        b"this is not gzip at all",
    ));
    std::fs::write(part.join("00000000000000000000.log"), &seg).unwrap();
    let dir = t.path().join("data");
    let r = kseg(&["summary", "--json", s(&dir)]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let row: serde_json::Value = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "partition")
        .unwrap();
    assert_eq!(row["records"], 1, "{row}");
    let warnings = row["warnings"].to_string();
    assert!(
        warnings.contains("00000000000000000000.log: batch at byte 26:")
            && warnings.contains("wrapper value"),
        "{warnings}"
    );
    let r = kseg(&["summary", s(&dir)]);
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.contains("batch at byte 26"), "{}", r.stdout);
    // dump-log says it too, shallow as deep, and exits 1.
    for deep in [false, true] {
        let mut args = vec!["dump-log"];
        if deep {
            args.push("--deep-iteration");
        }
        let seg = part.join("00000000000000000000.log");
        args.push(s(&seg));
        let r = kseg(&args);
        assert_eq!(r.code, Some(1), "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            format!("{}{}", r.stdout, r.stderr).contains("wrapper value"),
            "{args:?}: {}{}",
            r.stdout,
            r.stderr
        );
    }
}

/// `len` pseudo-random bytes (xorshift; the same on every run).
fn random_bytes(len: usize, mut x: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Issue 14 item 4: a random `.index` or `.timeindex` (out of order everywhere) took 24 bytes
/// per entry in `verify-index` (5.2–5.8 GB for 1 GiB, measured in BENCHMARKS.md); it is walked
/// from the file's bytes, and its findings stay listed by the first 100 per check, then a count.
#[test]
fn verify_index_on_random_indexes_lists_bounded_findings() {
    for name in [
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
    ] {
        let t = tempfile::tempdir().unwrap();
        let dir = example_copy(t.path());
        let file = dir.join("orders-0").join(name);
        // 1 MiB: not a multiple of 12, so the time index's partial entry is a finding too.
        std::fs::write(&file, random_bytes(1 << 20, 0x9e37_79b9_7f4a_7c15)).unwrap();
        let r = kseg(&["verify-index", "--json", s(&dir)]);
        assert_eq!(r.code, Some(1), "{name}: {}", r.stderr);
        let findings: Vec<serde_json::Value> = r
            .stdout
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["file"].as_str().is_some_and(|f| f.ends_with(name)))
            .collect();
        assert!(
            findings.len() > 100 && findings.len() < 1_000,
            "{name}: {} findings",
            findings.len()
        );
        assert!(
            r.stdout
                .contains("findings in this file are not listed (first 100 shown)"),
            "{name}"
        );
    }
}

/// Issue 14 item 4: a checkpoint of a million lines cost ~11× its size (`dump-log` 727 MB,
/// `recover` 1.9 GB for 63 MiB) as every entry was collected; it is checked, then walked.
/// The output is the same: every entry printed, the recovered copy keeping those below the log
/// end, and a malformed last line printing no entry at all.
#[test]
fn a_checkpoint_of_a_million_lines_is_printed_and_recovered() {
    let t = tempfile::tempdir().unwrap();
    let dir = example_copy(t.path());
    let part = dir.join("orders-0");
    let ckpt = part.join("leader-epoch-checkpoint");
    let n = 1_000_000usize;
    let mut text = format!("0\n{n}\n");
    for i in 0..n {
        text.push_str(&format!("{i} {}\n", i / 10_000));
    }
    std::fs::write(&ckpt, &text).unwrap();
    let r = kseg(&["dump-log", s(&ckpt)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stdout
            .lines()
            .filter(|l| l.starts_with("epoch: "))
            .count(),
        n
    );
    assert!(r.stdout.contains("epoch: 999999 startOffset: 99\n"));
    // The log ends at 70. LeaderEpochFileCache's constructor keeps one entry per start offset
    // (the last epoch naming it: an assignment drops trailing entries not below it), and the
    // load's truncateFromEnd(70) drops the entries starting at 70 and later.
    let out = t.path().join("out");
    let r = kseg(&["recover", "--out", s(&out), s(&part)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let copy = std::fs::read_to_string(out.join("orders-0/leader-epoch-checkpoint")).unwrap();
    let kept = 70;
    assert!(
        copy.starts_with(&format!("0\n{kept}\n9999 0\n19999 1\n")),
        "{}",
        &copy[..40]
    );
    assert_eq!(copy.lines().count(), kept + 2);
    assert!(copy.ends_with("699999 69\n"));
    // A bad last line: Kafka rejects the file, so no entry is printed, only the error.
    text.push_str("junk\n");
    std::fs::write(&ckpt, &text).unwrap();
    let r = kseg(&["dump-log", s(&ckpt)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(!r.stdout.contains("epoch: "), "entries printed");
    assert!(
        // CheckpointReadBuffer reads every line after the count as an entry.
        format!("{}{}", r.stdout, r.stderr).contains("Malformed line \"junk\""),
        "{}{}",
        r.stdout,
        r.stderr
    );
}
