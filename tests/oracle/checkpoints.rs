//! Issue 45, items 1 and 2, against Kafka's own start: a log dir's root checkpoint files as
//! `CheckpointFile` reads them (which malformations fail the log dir, which ones Kafka resets
//! with a warning, which one kills the broker), and a log start offset checkpointed beyond the
//! log end (`LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd`). The same damaged copy goes
//! to `kseg verify-index`, `kseg recover` and the real broker.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::crash::{compare_with_kafka, log_end_offset, set_checkpoint};
use crate::harness::*;

/// Rewrites a root checkpoint file's text.
fn rewrite(data: &Path, file: &str, edit: impl Fn(&str) -> String) {
    let path = data.join(file);
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, edit(&text)).unwrap();
}

/// The text with its entry count line replaced by `count`.
fn with_count(text: &str, count: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = count;
    lines.join("\n") + "\n"
}

/// The first entry's offset replaced by `offset` (any text).
fn with_offset(text: &str, offset: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let entry = lines
        .get_mut(2)
        .expect("a checkpoint with an entry (the scenario has partitions)");
    let (head, _) = entry.rsplit_once(' ').unwrap();
    *entry = format!("{head} {offset}");
    lines.join("\n") + "\n"
}

type Damage = fn(&Path);

/// The malformations, each on its own copy. Kafka decides whether it starts.
const CASES: [(&str, Damage); 7] = [
    // CheckpointReadBuffer.read: "Expected [n+1] entries ... but found only [n]", an
    // IOException: LogDirFailureChannel takes the dir offline.
    ("recovery-point-count-mismatch", |d| {
        rewrite(d, "recovery-point-offset-checkpoint", |t| {
            let n: usize = t.lines().nth(1).unwrap().parse().unwrap();
            with_count(t, &(n + 1).to_string())
        })
    }),
    ("high-watermark-count-mismatch", |d| {
        rewrite(d, "replication-offset-checkpoint", |t| {
            let n: usize = t.lines().nth(1).unwrap().parse().unwrap();
            with_count(t, &(n + 1).to_string())
        })
    }),
    // new ArrayList<>(2147483647): OutOfMemoryError.
    ("log-start-count-max", |d| {
        rewrite(d, "log-start-offset-checkpoint", |t| {
            if t.lines().count() < 2 {
                "0\n2147483647\n".to_string()
            } else {
                with_count(t, "2147483647")
            }
        })
    }),
    // A blank line among the entries: "Malformed line".
    ("recovery-point-blank-line", |d| {
        rewrite(d, "recovery-point-offset-checkpoint", |t| format!("{t}\n"))
    }),
    // Long.parseLong throws NumberFormatException, not an IOException: LogManager.loadLogs
    // warns and resets the recovery points to 0.
    ("recovery-point-bad-offset", |d| {
        rewrite(d, "recovery-point-offset-checkpoint", |t| {
            with_offset(t, "x")
        })
    }),
    // new ArrayList<>(-1): IllegalArgumentException, reset the same way.
    ("recovery-point-negative-count", |d| {
        rewrite(d, "recovery-point-offset-checkpoint", |t| {
            with_count(t, "-1")
        })
    }),
    ("high-watermark-bad-offset", |d| {
        rewrite(d, "replication-offset-checkpoint", |t| with_offset(t, "x"))
    }),
];

/// Starts Kafka on `root/data`: whether it started and stayed up (a failed log dir halts it a
/// moment after it says it started), and its server log.
fn kafka_starts(version: &str, root: &Path) -> (bool, String) {
    let mut kafka = Broker::reopen(version, root, &[]);
    let up = match kafka.try_start() {
        Ok(()) => kafka.stays_up(Duration::from_secs(10)),
        Err(_) => false,
    };
    if up {
        kafka.stop();
    }
    (up, kafka.server_log())
}

/// The lines of Kafka's log that say what it did with a checkpoint file.
fn checkpoint_lines(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| {
            l.contains("checkpoint")
                || l.contains("OutOfMemoryError")
                || l.contains("Halting")
                || l.contains("Shutdown broker")
                || l.contains("Fatal error")
        })
        .map(|l| l.chars().take(300).collect())
        .collect()
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn issue_45_checkpoint_reads_match_kafka() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("issue-45-checkpoints");
    let _ = fs::remove_dir_all(&root);
    let mut broker = Broker::format_and_start(version, &root.join("broker"), &[]);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "2"]);
    flood
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    assert!(flood
        .status()
        .expect("running the flood workload")
        .success());
    broker.stop();
    let mut bad = Vec::new();
    let mut report = Vec::new();
    for (name, damage) in CASES {
        let case = root.join(name);
        let source = case.join("source");
        copy_dir(&broker.data, &source);
        damage(&source);
        let (a, b, c) = (case.join("a"), case.join("b"), case.join("c"));
        copy_dir(&source, &a);
        copy_dir(&source, &b);
        copy_dir(&source, &c.join("data"));
        let verify = kseg(&["verify-index", "--json", a.to_str().unwrap()]);
        let lines = ndjson(&String::from_utf8_lossy(&verify.stdout));
        let verdict = lines.first().cloned().unwrap_or_default();
        let out = case.join("b-logdir");
        let recover = kseg(&[
            "recover",
            "--json",
            b.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let summary = ndjson(&String::from_utf8_lossy(&recover.stdout))
            .pop()
            .unwrap_or_default();
        let (up, log) = kafka_starts(version, &c);
        // A broker that runs while none of the dir's partitions became leader or follower
        // does not serve the dir.
        let started = up && !log.contains("Unable to start fetching");
        let said = checkpoint_lines(&log);
        report.push(format!(
            "{name}: Kafka {}; kseg kafkaStarts={} ({}), recover exit {:?} written={}\n    {}",
            match (up, started) {
                (true, true) => "started",
                (true, false) => "started, serving none of the dir's partitions",
                _ => "did not start",
            },
            verdict["kafkaStarts"],
            verdict["reason"],
            recover.status.code(),
            out.exists(),
            said.join("\n    ")
        ));
        if verdict["kafkaStarts"] != serde_json::Value::Bool(started) {
            bad.push(format!(
                "{name}: Kafka {}, verify-index's verdict {verdict}",
                if started { "started" } else { "did not start" }
            ));
        }
        if !started {
            if verify.status.code() != Some(1) {
                bad.push(format!(
                    "{name}: verify-index exit {:?}",
                    verify.status.code()
                ));
            }
            if recover.status.code() != Some(1) || out.exists() || summary["written"] != false {
                bad.push(format!(
                    "{name}: Kafka does not start, kseg recover exit {:?}, copy written: {}, {summary}",
                    recover.status.code(),
                    out.exists()
                ));
            }
            // Kafka's own words are in the verdict.
            let kafka_words = said
                .iter()
                .find_map(|l| {
                    [
                        "Expected [",
                        "Malformed line",
                        "OutOfMemoryError",
                        "For input string",
                    ]
                    .iter()
                    .find(|w| l.contains(*w))
                })
                .copied();
            let reason = verdict["reason"].as_str().unwrap_or("");
            if let Some(w) = kafka_words {
                if !reason.contains(w) {
                    bad.push(format!(
                        "{name}: Kafka says {w:?}; kseg's reason {reason:?}"
                    ));
                }
            }
        } else if !recover.status.success() {
            bad.push(format!(
                "{name}: Kafka started; kseg recover exit {:?}: {}",
                recover.status.code(),
                String::from_utf8_lossy(&recover.stderr)
            ));
        }
        if bad.is_empty() {
            let _ = fs::remove_dir_all(&case);
        }
    }
    eprintln!(
        "issue 45 checkpoints, Kafka {version}:\n{}",
        report.join("\n")
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let _ = fs::remove_dir_all(&root);
}

/// Item 2: a log start offset checkpointed beyond the log end. Kafka's load deletes every
/// segment of the partition and starts it empty at the checkpoint's offset; kseg's preview, its
/// copy (byte for byte) and lookup's answers on the input must be what that load leaves.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn issue_45_log_start_beyond_end_matches_kafka() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("issue-45-log-start");
    let _ = fs::remove_dir_all(&root);
    let mut broker = Broker::format_and_start(version, &root.join("broker"), &[]);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "2"]);
    flood
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    assert!(flood
        .status()
        .expect("running the flood workload")
        .success());
    broker.stop();
    let mut bad = Vec::new();
    for (kind, clean) in [("clean", true), ("unclean", false)] {
        let case = root.join(kind);
        let source = case.join("source");
        copy_dir(&broker.data, &source);
        // The partition's log start entry: added when the checkpoint has none.
        let path = source.join("log-start-offset-checkpoint");
        let text = fs::read_to_string(&path).unwrap_or_default();
        if text.contains("crash 0 ") {
            set_checkpoint(&source, "log-start-offset-checkpoint", "crash-0", 999_999);
        } else {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if lines.len() < 2 {
                lines = vec!["0".into(), "0".into()];
            }
            let n: usize = lines[1].parse().unwrap();
            lines[1] = (n + 1).to_string();
            lines.push("crash 0 999999".into());
            fs::write(&path, lines.join("\n") + "\n").unwrap();
        }
        if !clean {
            fs::remove_file(source.join(".kafka_cleanshutdown")).unwrap();
        }
        let name = format!("log-start-beyond-end-{kind}");
        bad.extend(compare_with_kafka(version, &name, &case, &source, &[]));
        // lookup on the input answers what Kafka's load leaves.
        let kafka_dir = case.join("c/data/crash-0");
        let input = source.join("crash-0");
        let answer = |dir: &Path, flag: &str| -> Option<i64> {
            let out = kseg(&["lookup", "--json", flag, dir.to_str().unwrap()]);
            ndjson(&String::from_utf8_lossy(&out.stdout))
                .first()
                .and_then(|v| v["offset"].as_i64())
        };
        let kafka_end = log_end_offset(&kafka_dir);
        for flag in ["--earliest", "--latest"] {
            let (k, s) = (answer(&kafka_dir, flag), answer(&input, flag));
            if k != s || k != Some(999_999) {
                bad.push(format!(
                    "{name}: lookup {flag}: on Kafka's dir after its load {k:?}, on the input {s:?} (Kafka's end {kafka_end})"
                ));
            }
        }
        if bad.is_empty() {
            let _ = fs::remove_dir_all(&case);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let _ = fs::remove_dir_all(&root);
}
