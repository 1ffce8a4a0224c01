//! kill -9 under load: an idempotent confluent-kafka producer (acks=all) writes as fast as it
//! can while the broker is SIGKILLed. The crash state is a real one — no clean-shutdown marker,
//! preallocated zero-tailed indexes — and `kseg verify-index` reports it without errors. The
//! restarted broker recovers the log like Kafka and serves every acknowledged record, once.
//! Skipped, with a message, when confluent-kafka is not installed.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::mini_broker_support::{
    clients_dir, have_python_module, kseg, run, skip_without, verify_errors, BrokerProcess,
};

#[test]
#[ignore = "needs the Python clients: pip install -r tests/clients/requirements.txt"]
fn kill_9_under_load_loses_no_acknowledged_record() {
    if skip_without(
        "confluent-kafka (Python)",
        have_python_module("confluent_kafka"),
    ) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(
        &dir,
        &["--num-partitions", "2", "--segment-bytes", "300000"],
    );
    let b = broker.bootstrap();
    let script = clients_dir().join("confluent_load.py");
    let mut load = Command::new("python3")
        .arg(&script)
        .args([
            "produce",
            "--bootstrap",
            &b,
            "--topic",
            "load",
            "--seconds",
            "60",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3");
    let acked = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let acked = acked.clone();
        let out = load.stdout.take().unwrap();
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                acked.lock().unwrap().push(line);
            }
        })
    };
    let start = Instant::now();
    while acked.lock().unwrap().len() < 40_000 && start.elapsed() < Duration::from_secs(40) {
        thread::sleep(Duration::from_millis(20));
    }
    broker.kill9();
    let deadline = Instant::now() + Duration::from_secs(30);
    while load.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = load.kill();
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    let _ = load.wait();
    reader.join().unwrap();
    let acked: HashSet<String> = acked.lock().unwrap().iter().cloned().collect();
    assert!(
        acked.len() > 1000,
        "only {} records acknowledged",
        acked.len()
    );

    // The crash state: no marker, preallocated active indexes, no errors.
    assert!(!dir.join(".kafka_cleanshutdown").exists());
    // Each partition's active segment (the newest `.log`) keeps its preallocated indexes.
    // Kafka's LocalLog.roll trims the old segment's indexes, then creates the new segment's
    // log and indexes, then sizes them; a kill inside a roll leaves one of these real states:
    // - the newest log is empty and its index is missing or 0 bytes (killed inside creation);
    // - the newest log is the sealed one, its index trimmed to its entries (killed after the
    //   trim, before the next segment's log existed).
    // At least one of the two partitions must show the ordinary preallocated state.
    let mut preallocated = 0;
    for partition in ["load-0", "load-1"] {
        let pdir = dir.join(partition);
        let active_log = std::fs::read_dir(&pdir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .max()
            .unwrap();
        let log_len = std::fs::metadata(pdir.join(&active_log)).unwrap().len();
        let index_name = active_log.replace(".log", ".index");
        let index_len = std::fs::metadata(pdir.join(&index_name)).map(|m| m.len());
        let time_len = std::fs::metadata(pdir.join(active_log.replace(".log", ".timeindex")))
            .map_or(0, |m| m.len());
        match index_len {
            Ok(10_485_760) => preallocated += 1,
            Err(_) | Ok(0) if log_len == 0 => {}
            Ok(trimmed)
                if trimmed < 10_485_760
                    && trimmed.is_multiple_of(8)
                    && time_len.is_multiple_of(12) => {}
            other => panic!("{partition}/{index_name}: {other:?} beside a {log_len}-byte log"),
        }
    }
    assert!(
        preallocated > 0,
        "no active segment has a preallocated index"
    );
    let out = kseg(&["verify-index", "--json", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let findings: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "finding")
        .collect();
    assert!(
        findings
            .iter()
            .any(|f| f["check"] == "index-preallocated" && f["severity"] == "info"),
        "{text}"
    );
    assert!(findings.iter().all(|f| f["severity"] != "error"), "{text}");

    // Restart: refused without --recover-in-place (the dir is evidence), then recovery, then
    // every acknowledged record is there exactly once.
    let refused = Command::new(crate::mini_broker_support::kseg_bin())
        .args(["mini-broker", "--listen", "127.0.0.1:0", "--log-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--recover-in-place"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let broker = BrokerProcess::start(&dir, &["--recover-in-place"]);
    let mut c = Command::new("python3");
    c.arg(&script).args([
        "read",
        "--bootstrap",
        &broker.bootstrap(),
        "--topic",
        "load",
        "--seconds",
        "120",
    ]);
    let out = run(c, Duration::from_secs(180));
    assert!(
        out.status.success(),
        "read failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let values: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let read: HashSet<String> = values.iter().cloned().collect();
    assert_eq!(read.len(), values.len(), "duplicates after recovery");
    let lost: Vec<&String> = acked.difference(&read).take(5).collect();
    assert!(
        lost.is_empty(),
        "acknowledged records lost: {lost:?} ({} acked, {} read)",
        acked.len(),
        read.len()
    );
    let err = broker.stop();
    assert!(err.contains("after an unclean shutdown"), "{err}");
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}
