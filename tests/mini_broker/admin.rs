//! The admin gaps real clients hit in `kseg mini-broker`, closed and driven by those clients
//! (`tests/clients/admin_gaps.py`): kafka-python 3.0.12 and confluent-kafka 2.16.1 create
//! topics with configs (honoured, or refused with INVALID_CONFIG and Kafka's message), see
//! retention by time and size delete segments, DeleteRecords move the log start offset,
//! CreatePartitions, DescribeConfigs, DeleteGroups, DeleteTopics and DescribeCluster answer,
//! authorized operations come back as Kafka's without an authorizer, and a second consumer with
//! the same group.instance.id fences the first. The files are then checked: the
//! log-start-offset checkpoint, the deleted topic and segments, the group tombstones, and
//! `kseg verify-index` finds nothing wrong. Also: a non-loopback `--listen` is warned about.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::mini_broker_support::{
    clients_dir, have_python_module, kseg, kseg_bin, metadata_topic_configs, run, skip_without,
    verify_errors, BrokerProcess,
};

fn gaps(client: &str, bootstrap: &str, prefix: &str) -> serde_json::Value {
    let mut c = Command::new("python3");
    c.arg(clients_dir().join("admin_gaps.py"))
        .arg(client)
        .args(["--bootstrap", bootstrap, "--prefix", prefix]);
    let out = run(c, Duration::from_secs(240));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(last).unwrap_or_default();
    assert!(
        out.status.success() && v["ok"] == true,
        "admin_gaps.py {client} failed ({}): {stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Small segments, a retention check every 200 ms and deleted files gone after 500 ms, so that
/// retention happens within the test.
const FLAGS: &[&str] = &[
    "--segment-bytes",
    "1024",
    "--retention-check-interval-ms",
    "200",
    "--file-delete-delay-ms",
    "500",
];

#[test]
#[ignore = "needs the Python clients: pip install -r tests/clients/requirements.txt"]
fn kafka_python_admin_retention_and_records() {
    if skip_without("kafka-python", have_python_module("kafka")) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, FLAGS);
    let v = gaps("kafka-python", &broker.bootstrap(), "kp");
    let err = broker.stop();
    assert!(
        err.contains("kp-time-0: deleted segment 0 (retention time breach)"),
        "{err}"
    );
    assert!(err.contains("(retention size breach)"), "{err}");
    assert_eq!(v["compact_keyless"], "InvalidRecordError");
    // DeleteRecords to 3 lands in the checkpoint, as Kafka's checkpointLogStartOffsets writes
    // it: only partitions whose start is past their first segment.
    let checkpoint = fs::read_to_string(dir.join("log-start-offset-checkpoint")).unwrap();
    assert!(
        checkpoint.lines().any(|l| l == "kp-recs 0 3"),
        "{checkpoint}"
    );
    // Every segment of kp-time had expired: Kafka rolls and deletes them all.
    let time = names(&dir.join("kp-time-0"));
    let logs: Vec<&String> = time.iter().filter(|n| n.ends_with(".log")).collect();
    assert_eq!(logs, ["00000000000000000040.log"], "{time:?}");
    // retention.bytes=3000: what is left stays at or above it by less than one segment.
    let size_dir = dir.join("kp-size-0");
    let kept: u64 = names(&size_dir)
        .iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| fs::metadata(size_dir.join(n)).unwrap().len())
        .sum();
    assert!((3000..3000 + 1024).contains(&kept), "{kept} bytes kept");
    assert!(
        !dir.join("kp-compact-0").exists(),
        "the deleted topic's dir is renamed"
    );
    // Topic configs are ConfigRecords of the metadata log, as in Kafka's dir.
    let configs = metadata_topic_configs(&dir, "kp-time");
    assert_eq!(
        configs.get("retention.ms").map(String::as_str),
        Some("60000"),
        "{configs:?}"
    );
    assert!(
        !dir.join("kseg-topic-configs").exists(),
        "no file of the mini-broker's own"
    );
    assert_eq!(
        names(&dir.join("kp-recs-3")).len(),
        6,
        "CreatePartitions made partition 3"
    );
    // DeleteGroups: the group's commit records are followed by tombstones, so kseg finds
    // records of it but no group and no offset.
    let out = kseg(&[
        "groups",
        "--json",
        "--group",
        "kp-group",
        dir.to_str().unwrap(),
    ]);
    let summary: serde_json::Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .expect("a summary line");
    assert_eq!(
        (summary["groups"].as_u64(), summary["offsets"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(
        summary["commitRecords"].as_u64().unwrap_or(0) >= 4,
        "{summary}"
    );
    // Asked for by name, a deleted group is an answer (exit 0), not "no such group".
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("group \"kp-group\" is deleted: its records in __consumer_offsets-"),
        "{err}"
    );
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}

#[test]
#[ignore = "needs the Python clients: pip install -r tests/clients/requirements.txt"]
fn confluent_kafka_admin_and_static_membership() {
    if skip_without(
        "confluent-kafka (Python)",
        have_python_module("confluent_kafka"),
    ) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(&dir, FLAGS);
    let v = gaps("confluent", &broker.bootstrap(), "ck");
    // The deleted topic's `-delete` dirs go 500 ms after the deletion (file.delete.delay.ms);
    // a clean stop before that leaves them for the next start, as Kafka does, and kseg
    // verify-index would read them as partitions.
    std::thread::sleep(Duration::from_millis(1500));
    broker.stop();
    assert_eq!(v["low_watermark"], 5);
    assert!(
        v["fenced"]
            .as_str()
            .unwrap_or_default()
            .contains("Static consumer fenced"),
        "{v}"
    );
    assert!(
        !names(&dir).iter().any(|n| n.starts_with("ck-t-")),
        "the deleted topic's dirs are gone"
    );
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}

#[test]
fn a_non_loopback_listen_address_is_warned_about() {
    let t = tempfile::tempdir().unwrap();
    let mut child = Command::new(kseg_bin())
        .arg("mini-broker")
        .arg("--log-dir")
        .arg(t.path().join("data"))
        .args(["--listen", "0.0.0.0:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on 0.0.0.0:"), "{line}");
    // SAFETY: signals our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    assert!(
        err.contains("WARNING: listening on 0.0.0.0:0, which is not a loopback address"),
        "{err}"
    );
}
