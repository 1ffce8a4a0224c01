//! `kseg mini-broker produce` / `commit` write a log dir exactly as Kafka lays it out, without
//! any client: the seed scenario (30 keyed records land 6/12/12; the group's commits land in
//! `__consumer_offsets-22`), segment rolls with trimmed indexes that match Kafka's recover rule,
//! LogAppendTime, and crash recovery on the next open. kseg's own readers check the files.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::mini_broker_support::{group_offsets, kseg, kseg_bin, records, verify_errors};
use kseg::analysis::recovery::analyse_segment;
use kseg::format::log::RecordScratch;

fn produce(dir: &Path, extra: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(kseg_bin())
        .args(["mini-broker", "produce", "--log-dir"])
        .arg(dir)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning kseg");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "produce failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn seed_scenario_lands_6_12_12_and_commits_in_consumer_offsets_22() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let lines: String = (1..=30)
        .map(|i| format!("book-{}:loan-{i}\n", i % 5))
        .collect();
    let out = produce(
        &dir,
        &[
            "--topic",
            "b1.offsets.demo",
            "--partitions",
            "3",
            "--key-separator",
            ":",
        ],
        &lines,
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("produced 30 records"));
    let counts: Vec<usize> = (0..3)
        .map(|p| records(&dir.join(format!("b1.offsets.demo-{p}"))).len())
        .collect();
    assert_eq!(counts, vec![6, 12, 12]);
    // Every key lives in exactly one partition, in produce order.
    let p1 = records(&dir.join("b1.offsets.demo-1"));
    assert_eq!(
        p1.iter().map(|r| r.0).collect::<Vec<_>>(),
        (0..12).collect::<Vec<_>>()
    );

    let out = kseg(&[
        "mini-broker",
        "commit",
        "--log-dir",
        dir.to_str().unwrap(),
        "--group",
        "b1.offsets.group",
        "--topic",
        "b1.offsets.demo",
        "0=0",
        "1=12",
        "2=0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("__consumer_offsets-22"));
    let commits = records(&dir.join("__consumer_offsets-22"));
    assert_eq!(commits.len(), 3);
    let group_hex = hex::encode("b1.offsets.group");
    assert!(commits.iter().all(|(_, k, _)| k
        .as_deref()
        .is_some_and(|k| k.starts_with("0001") && k.contains(&group_hex))));
    // Value version 4 with offset 12 for partition 1.
    assert!(commits[1]
        .2
        .as_deref()
        .unwrap()
        .starts_with("0004000000000000000c"));
    // No other offsets partition got anything.
    for p in (0..50).filter(|p| *p != 22) {
        assert!(records(&dir.join(format!("__consumer_offsets-{p}"))).is_empty());
    }
    assert!(fs::read_to_string(dir.join(".kafka_cleanshutdown"))
        .unwrap()
        .starts_with("{\"version\":0,\"brokerEpoch\":"));
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
    // What `kafka-consumer-groups --describe` showed for the seed: offsets 0/12/0, lag 6/0/12.
    let t = "b1.offsets.demo".to_string();
    assert_eq!(
        group_offsets(&dir, "b1.offsets.group"),
        vec![(t.clone(), 0, 0, 6), (t.clone(), 1, 12, 0), (t, 2, 0, 12)]
    );
    let dump = kseg(&["dump-log", dir.to_str().unwrap()]);
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
}

#[test]
fn segments_roll_with_trimmed_indexes_that_match_kafkas_recover_rule() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let lines: String = (0..600)
        .map(|i| format!("k{}:value-{i}-{}\n", i % 7, "x".repeat(i % 40)))
        .collect();
    let args = [
        "--topic",
        "rolled",
        "--key-separator",
        ":",
        "--segment-bytes",
        "6000",
        "--index-interval-bytes",
        "700",
        "--segment-index-bytes",
        "4096",
        "--batch-size",
        "400",
    ];
    produce(&dir, &args, &lines);
    let pdir = dir.join("rolled-0");
    let files = names(&pdir);
    let logs: Vec<&String> = files.iter().filter(|f| f.ends_with(".log")).collect();
    assert!(logs.len() >= 4, "{files:?}");
    for log in &logs {
        assert_eq!(log.len(), 24, "20-digit segment names: {log}");
        let base: i64 = log[..20].parse().unwrap();
        let mut scratch = RecordScratch::default();
        let seg = analyse_segment(&pdir.join(log.as_str()), base, 700, &mut scratch).unwrap();
        assert!(seg.truncate_at.is_none());
        // One session wrote each segment, so its indexes are what LogSegment.recover rebuilds.
        let (index, time_index) = seg.kept_indexes();
        assert_eq!(
            fs::read(pdir.join(format!("{}.index", &log[..20]))).unwrap(),
            index,
            "{log}"
        );
        assert_eq!(
            fs::read(pdir.join(format!("{}.timeindex", &log[..20]))).unwrap(),
            time_index,
            "{log}"
        );
        if base > 0 {
            assert!(
                files.contains(&format!("{}.snapshot", &log[..20])),
                "snapshot at roll: {files:?}"
            );
        }
    }
    assert_eq!(records(&pdir).len(), 600);
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");

    // A second session appends to the active segment after a clean restart.
    produce(&dir, &args, "k1:after-restart\n");
    let recs = records(&pdir);
    assert_eq!(recs.len(), 601);
    let epochs = fs::read_to_string(pdir.join("leader-epoch-checkpoint")).unwrap();
    assert_eq!(
        epochs, "0\n2\n0 0\n2 600\n",
        "a restart moves leadership: epoch + 2"
    );
}

#[test]
fn log_append_time_topics_get_the_broker_time_and_a_valid_crc() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    produce(
        &dir,
        &[
            "--topic",
            "lat",
            "--message-timestamp-type",
            "LogAppendTime",
            "--compression",
            "lz4",
        ],
        "a\nb\nc\n",
    );
    let out = kseg(&["dump-log", "--json", dir.join("lat-0").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let batch = text
        .lines()
        .find(|l| l.contains("\"type\":\"batch\""))
        .expect("a batch");
    assert!(
        batch.contains("\"timestampType\":\"LogAppendTime\""),
        "{batch}"
    );
    assert!(batch.contains("\"crcValid\":true"), "{batch}");
    assert!(batch.contains("\"compression\":\"lz4\""), "{batch}");
}

#[test]
fn an_unclean_shutdown_is_recovered_like_kafka_on_the_next_open() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let lines: String = (0..50).map(|i| format!("v{i}\n")).collect();
    produce(&dir, &["--topic", "crash", "--batch-size", "64"], &lines);
    // Simulate a crash: no marker, and a torn last batch.
    fs::remove_file(dir.join(".kafka_cleanshutdown")).unwrap();
    let log = dir.join("crash-0/00000000000000000000.log");
    let len = fs::metadata(&log).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let before = records(&dir.join("crash-0")).len();
    assert!(before < 50);
    let out = produce(&dir, &["--topic", "crash", "--recover-in-place"], "after\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("recovered 1 segment(s)") && err.contains("truncated"),
        "{err}"
    );
    let recs = records(&dir.join("crash-0"));
    assert_eq!(recs.len(), before + 1);
    assert_eq!(
        recs.last().unwrap().0,
        before as i64,
        "offsets continue after the cut"
    );
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}

/// `mini-broker produce` writes full batches while stdin is still open (issue 26: it read all of
/// stdin first, so a pipe that never closes never produced anything).
#[test]
fn produce_writes_batches_before_stdin_closes() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let mut child = Command::new(kseg_bin())
        .args(["mini-broker", "produce", "--log-dir"])
        .arg(&dir)
        .args([
            "--topic",
            "stream",
            "--partitions",
            "1",
            "--batch-size",
            "100",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning kseg");
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..50 {
        writeln!(stdin, "value-{i:04}-{}", "x".repeat(40)).unwrap();
    }
    stdin.flush().unwrap();
    let log = dir.join("stream-0/00000000000000000000.log");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let written = loop {
        let len = fs::metadata(&log).map_or(0, |m| m.len());
        if len > 0 || std::time::Instant::now() > deadline {
            break len;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(written > 0, "nothing was written while stdin was open");
    assert_eq!(records(&dir.join("stream-0")).len(), 50);
}

/// Issue 45: a scripted session that fails (a commit to a partition the topic does not have, a
/// produce to an invalid topic name) still stops the broker cleanly: `.kafka_cleanshutdown` is
/// there after it, and the next session opens the dir without `--recover-in-place` (it was
/// deleted, and the next start refused the dir as a crashed broker's).
#[test]
fn a_failing_session_leaves_a_clean_shutdown() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    produce(&dir, &["--topic", "orders", "--partitions", "1"], "a\nb\n");
    let marker = dir.join(".kafka_cleanshutdown");
    assert!(marker.exists());
    let d = dir.to_str().unwrap();
    let commit = kseg(&[
        "mini-broker",
        "commit",
        "--log-dir",
        d,
        "--group",
        "g",
        "--topic",
        "orders",
        "9=1",
    ]);
    assert!(!commit.status.success());
    assert!(marker.exists(), "a failed commit removed the marker");
    let mut child = Command::new(kseg_bin())
        .args([
            "mini-broker",
            "produce",
            "--log-dir",
            d,
            "--topic",
            "bad name!",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning kseg");
    child.stdin.take().unwrap().write_all(b"x\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad name!"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(marker.exists(), "a failed produce removed the marker");
    let out = produce(&dir, &["--topic", "orders"], "c\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("produced 1 records"));
    assert_eq!(records(&dir.join("orders-0")).len(), 3);
}
