//! `kseg diff` against a real three-broker KRaft cluster: an unclean leader election, the data
//! dirs taken before and after the old leader truncates, and kseg's account of the lost records
//! checked against what the producers were told was acknowledged and what the broker's own log
//! says it truncated.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::{copy_dir, kseg, ndjson, skip, versions, Cluster, Scratch};

const TOPIC: &str = "lost";

/// Acknowledged records (`KsegOracle replicas produce` lines): (value, offset).
fn acknowledged(path: &Path, i: std::ops::Range<i64>) -> BTreeSet<(String, i64)> {
    ndjson(&fs::read_to_string(path).expect("acknowledged records"))
        .into_iter()
        .filter(|v| i.contains(&v["i"].as_i64().unwrap()))
        .map(|v| {
            (
                format!("{}-{}", v["acks"].as_str().unwrap(), v["i"]),
                v["offset"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn diff_json(paths: &[&Path]) -> (i32, Vec<serde_json::Value>, String) {
    let mut args = vec!["diff".to_string(), "--json".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kseg(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    (
        o.status.code().unwrap_or(-1),
        ndjson(&String::from_utf8_lossy(&o.stdout)),
        stderr,
    )
}

/// The `divergence` object with this follower.
fn divergence<'a>(lines: &'a [serde_json::Value], follower: &str) -> &'a serde_json::Value {
    lines
        .iter()
        .find(|v| v["type"] == "divergence" && v["follower"] == follower)
        .unwrap_or_else(|| panic!("no divergence for {follower} in {lines:#?}"))
}

/// The records kseg printed from the given replica copy's files: (value, offset).
fn printed_records(lines: &[serde_json::Value], under: &Path) -> BTreeSet<(String, i64)> {
    let under = under.display().to_string();
    lines
        .iter()
        .filter(|v| v["type"] == "record" && v["file"].as_str().unwrap().starts_with(&under))
        .map(|v| {
            (
                v["value"].as_str().unwrap().to_string(),
                v["offset"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn diff_names_the_records_an_unclean_election_lost() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = Scratch::new(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-diff"));
    let mut c = Cluster::format_and_start(
        version,
        &root.join("cluster"),
        3,
        &[
            "unclean.leader.election.enable=true",
            "min.insync.replicas=1",
        ],
    );
    let acked = root.join("acknowledged.ndjson");
    let acked_arg = acked.to_str().unwrap();
    let limit = Duration::from_secs(180);
    let produce = |c: &Cluster, acks: &str, from: i64, count: i64, per_batch: i64| {
        let (from, count, per_batch) = (from.to_string(), count.to_string(), per_batch.to_string());
        c.workload(
            &[
                "replicas", "produce", TOPIC, acks, &from, &count, &per_batch, acked_arg,
            ],
            limit,
        );
    };
    let wait = |c: &Cluster, leader: &str, isr: &str| {
        c.workload(&["replicas", "wait", TOPIC, leader, isr], limit);
    };
    c.workload(&["replicas", "create", TOPIC], limit);
    wait(&c, "1", "3");
    // A: 100 records on all three replicas.
    produce(&c, "all", 0, 100, 25);
    // B: broker 2 stops; 50 records reach brokers 1 and 3.
    c.broker(2).stop();
    wait(&c, "1", "2");
    produce(&c, "all", 100, 50, 25);
    // C and D: broker 3 stops; broker 1 alone takes 40 records with acks=all and 30 with acks=1.
    c.broker(3).stop();
    wait(&c, "1", "1");
    produce(&c, "all", 150, 40, 20);
    produce(&c, "1", 190, 30, 10);
    // Broker 1 stops; broker 2, which missed B, C and D, comes back and is elected uncleanly.
    c.broker(1).stop();
    c.broker(2).start();
    c.workload(&["replicas", "elect", TOPIC], limit);
    wait(&c, "2", "1");
    // E: the new leader's own 20 records, at the offsets B took on broker 1.
    produce(&c, "all", 1000, 20, 10);
    c.broker(2).stop();
    let before = root.join("before");
    for id in 1..=3 {
        copy_dir(&c.broker(id).data, &before.join(format!("broker-{id}")));
    }
    // Broker 2 leads again; 1 and 3 follow it and truncate.
    c.broker(2).start();
    wait(&c, "2", "1");
    c.broker(1).start();
    c.broker(3).start();
    wait(&c, "2", "3");
    let server_log_1 = c.broker(1).server_log();
    for id in [1, 3, 2] {
        c.broker(id).stop();
    }
    let after = root.join("after");
    for id in 1..=3 {
        copy_dir(&c.broker(id).data, &after.join(format!("broker-{id}")));
    }
    drop(c);

    let lost_on_1 = acknowledged(&acked, 100..220);
    let lost_on_3 = acknowledged(&acked, 100..150);
    let kept = acknowledged(&acked, 0..100);
    assert_eq!(
        lost_on_1.len(),
        120,
        "every record of B, C and D was acknowledged"
    );
    assert_eq!(kept.len(), 100);
    let first_lost = lost_on_1.iter().map(|r| r.1).min().unwrap();
    assert_eq!(first_lost, 100);

    // Before the truncation: broker 2 leads (newest epoch); 1 and 3 lose what it never had.
    let b: Vec<PathBuf> = (1..=3)
        .map(|id| before.join(format!("broker-{id}")))
        .collect();
    let (code, lines, stderr) = diff_json(&[&b[0], &b[1], &b[2]]);
    assert_eq!(
        code, 1,
        "acknowledged records on one replica only: exit 1 ({stderr})"
    );
    let part = lines
        .iter()
        .find(|v| v["type"] == "partition" && v["topic"] == TOPIC)
        .expect("the partition's verdict");
    assert_eq!(part["leader"], "broker-2", "{part}");
    let d1 = divergence(&lines, "broker-1");
    assert_eq!(d1["truncationOffset"], first_lost, "{d1}");
    assert_eq!(d1["lost"]["acknowledged"]["records"], 120, "{d1}");
    assert_eq!(d1["lost"]["unacknowledged"]["records"], 0, "{d1}");
    assert_eq!(d1["lost"]["acknowledged"]["firstOffset"], 100);
    assert_eq!(d1["lost"]["acknowledged"]["lastOffset"], 219);
    assert_eq!(d1["onlyOnLeader"]["records"], 20, "{d1}");
    let epoch = d1["divergingEpoch"]
        .as_i64()
        .expect("the new leader's epoch");
    let finding = format!(
        "unclean leader election: epoch {epoch} on broker-2 truncated 120 acknowledged records of broker-1"
    );
    assert!(
        d1["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == finding.as_str()),
        "{d1}"
    );
    // The records themselves, exactly those the producers were told were acknowledged.
    assert_eq!(printed_records(&lines, &b[0]), lost_on_1);
    let d3 = divergence(&lines, "broker-3");
    assert_eq!(d3["truncationOffset"], first_lost, "{d3}");
    assert_eq!(d3["lost"]["records"], 50, "{d3}");
    assert_eq!(printed_records(&lines, &b[2]), lost_on_3);
    // Kafka's own account: broker 1 truncated to the offset kseg predicted.
    assert!(
        server_log_1
            .lines()
            .any(|l| l.contains(&format!("{TOPIC}-0"))
                && l.contains(&format!("Truncating to offset {first_lost}"))),
        "broker 1's log does not say it truncated {TOPIC}-0 to {first_lost}"
    );

    // The text form names it in plain words.
    let o = kseg(&[
        "diff",
        b[0].to_str().unwrap(),
        b[1].to_str().unwrap(),
        b[2].to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&finding), "{text}");
    assert_eq!(o.status.code(), Some(1));

    // The same broker's copies before and after: the old copy holds exactly the lost records.
    let a1 = after.join("broker-1");
    let (code, lines, stderr) = diff_json(&[&b[0], &a1]);
    assert_eq!(code, 1, "{stderr}");
    let d = divergence(&lines, "broker-1@before/broker-1");
    assert_eq!(d["leader"], "broker-1@after/broker-1", "{d}");
    assert_eq!(d["truncationOffset"], first_lost, "{d}");
    assert_eq!(d["lost"]["acknowledged"]["records"], 120, "{d}");
    assert_eq!(printed_records(&lines, &b[0]), lost_on_1);

    // After the truncation and catch-up the three replicas are identical.
    let a: Vec<PathBuf> = (1..=3)
        .map(|id| after.join(format!("broker-{id}")))
        .collect();
    let (code, lines, stderr) = diff_json(&[&a[0], &a[1], &a[2]]);
    assert_eq!(code, 0, "{stderr}");
    let part = lines
        .iter()
        .find(|v| v["type"] == "partition" && v["topic"] == TOPIC)
        .expect("the partition's verdict");
    assert_eq!(part["verdict"], "identical", "{part}");
    assert_eq!(part["identical"], true);
    let o = kseg(&[
        "diff",
        a[0].to_str().unwrap(),
        a[1].to_str().unwrap(),
        a[2].to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("identical"));
    // Before the election, broker 3 (stopped after B) was behind broker 1, not diverged.
    let (code, lines, stderr) = diff_json(&[&b[0], &b[2]]);
    assert_eq!(code, 0, "{stderr}");
    let d = divergence(&lines, "broker-3");
    assert_eq!(d["leader"], "broker-1", "{d}");
    assert_eq!(d["lost"]["records"], 0, "{d}");
    assert_eq!(d["onlyOnLeader"]["records"], 70, "{d}");
    assert!(
        d["findings"][0]
            .as_str()
            .unwrap()
            .starts_with("follower behind: broker-3 lacks 70 records of broker-1"),
        "{d}"
    );
}
