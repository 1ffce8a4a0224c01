//! `kseg rescue --groups`, `--offset-map` and `--create-topics` with the source's topic configs,
//! into the mini-broker. The source is the example data dir's `payments-0` (a committed
//! transaction 0..4, its COMMIT marker 5, an aborted one 6..8, its ABORT marker 9, then 10..13)
//! and `orders-0`, with groups committed by `kseg mini-broker commit`: offsets shift in the
//! target (source 10 is target 5), and each group's committed offset must land where a consumer
//! resumes — the dry run's translation, committed, read back from the target's
//! `__consumer_offsets` by `kseg groups`. A group with a member in the target is refused.
#![cfg(feature = "rescue")]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

use crate::common::config_log;
use crate::mini_broker_support::{
    group_offsets, kseg, kseg_bin, metadata_topic_configs, BrokerProcess,
};

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The example data dir without its own `__consumer_offsets-12` (its groups are replaced by the
/// ones committed here).
fn example_source(root: &Path) -> PathBuf {
    let src = root.join("dead-broker");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-datadir"),
        &src,
    );
    fs::remove_dir_all(src.join("__consumer_offsets-12")).unwrap();
    src
}

fn commit(src: &Path, group: &str, topic: &str, offset: &str, metadata: Option<&str>) {
    let mut args = vec![
        "mini-broker",
        "commit",
        "--log-dir",
        src.to_str().unwrap(),
        "--group",
        group,
        "--topic",
        topic,
        offset,
    ];
    if let Some(m) = metadata {
        args.extend(["--metadata", m]);
    }
    let o = kseg(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// (group, target topic, target partition) -> (source offset, target offset, translation).
type Translations = BTreeMap<(String, String, i64), (i64, Option<i64>, String)>;

fn translations(lines: &[serde_json::Value]) -> Translations {
    lines
        .iter()
        .filter(|l| l["type"] == "groupOffset")
        .map(|l| {
            (
                (
                    l["group"].as_str().unwrap().to_string(),
                    l["targetTopic"].as_str().unwrap().to_string(),
                    l["targetPartition"].as_i64().unwrap(),
                ),
                (
                    l["sourceOffset"].as_i64().unwrap(),
                    l["targetOffset"].as_i64(),
                    l["translation"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

/// A consumer in `group` on `topic` (`protocol`: `classic`, or `consumer` for KIP-848),
/// polled until it has its partitions: the group is active.
fn active_member(bootstrap: &str, group: &str, topic: &str, protocol: &str) -> BaseConsumer {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("group.protocol", protocol)
        .set("enable.auto.commit", "false");
    if protocol == "classic" {
        config.set("session.timeout.ms", "30000");
    }
    let c: BaseConsumer = config.create().unwrap();
    c.subscribe(&[topic]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while c.assignment().map(|a| a.count()).unwrap_or(0) == 0 {
        assert!(
            Instant::now() < deadline,
            "the consumer never joined {group}"
        );
        let _ = c.poll(Duration::from_millis(100));
    }
    c
}

#[test]
fn group_offsets_are_translated_through_the_offset_map_and_committed() {
    let t = tempfile::tempdir().unwrap();
    let src = example_source(t.path());
    // Into the aborted transaction, on records sent, and at the log end.
    commit(&src, "g-aborted", "payments", "0=7", None);
    commit(&src, "g-exact", "payments", "0=12", Some("m12"));
    commit(&src, "g-exact", "orders", "0=30", None);
    commit(&src, "g-end", "payments", "0=14", None);
    commit(&src, "g-other", "orders", "1=3", None);

    let target = t.path().join("target");
    let broker = BrokerProcess::start(&target, &["--retention-ms", "-1"]);
    let bootstrap = broker.bootstrap();
    let state = t.path().join("rescue.state");
    let map = t.path().join("offsets.map");
    let rescue = |extra: &[&str]| {
        Command::new(kseg_bin())
            .arg("rescue")
            .arg(src.join("payments-0"))
            .arg(src.join("orders-0"))
            .args(["--bootstrap", &bootstrap, "--create-topics", "--groups"])
            .args(["--json", "--state", state.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };

    // The dry run predicts the translation (nothing in the target yet).
    let dry = rescue(&["--dry-run"]);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    let dry_lines = lines(&dry);
    let predicted = translations(&dry_lines);
    let want: Translations = [
        (("g-aborted", "payments"), (7, 5, "next-sent")),
        (("g-end", "payments"), (14, 9, "exact")),
        (("g-exact", "orders"), (30, 30, "exact")),
        (("g-exact", "payments"), (12, 7, "exact")),
    ]
    .into_iter()
    .map(|((g, topic), (s, t, how))| {
        (
            (g.to_string(), topic.to_string(), 0),
            (s, Some(t), how.to_string()),
        )
    })
    .collect();
    assert_eq!(predicted, want, "{dry_lines:?}");
    let aborted = dry_lines
        .iter()
        .find(|l| l["group"] == "g-aborted" && l["type"] == "groupOffset")
        .unwrap();
    let why = aborted["why"].as_str().unwrap();
    assert!(
        why.contains("source offset 7 is a record of an aborted transaction")
            && why.contains("the next record sent, source offset 10"),
        "{why}"
    );
    assert_eq!(aborted["predicted"], true);
    // orders-1 is not rescued: g-other's offset there is left alone.
    assert!(!dry_lines.iter().any(|l| l["group"] == "g-other"));

    // The rescue commits what the dry run predicted.
    let run = rescue(&["--offset-map", map.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let run_lines = lines(&run);
    assert_eq!(translations(&run_lines), want, "{run_lines:?}");
    let commits: Vec<&serde_json::Value> = run_lines
        .iter()
        .filter(|l| l["type"] == "groupCommit")
        .collect();
    assert_eq!(commits.len(), 3, "{commits:?}");
    assert!(
        commits.iter().all(|c| c["committed"] == true),
        "{commits:?}"
    );

    // The offset map: payments-0's records 5..9 were not sent, so 10..13 are 5..8.
    let maps: BTreeMap<String, serde_json::Value> = fs::read_to_string(&map)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["source"].as_str().unwrap().to_string(), v))
        .collect();
    assert_eq!(
        maps["payments-0"]["ranges"],
        serde_json::json!([[0, 4, 0, 0], [10, 13, 0, 5]])
    );
    assert_eq!(maps["payments-0"]["complete"], true);
    assert_eq!(maps["payments-0"]["acknowledgedThrough"], 13);
    assert_eq!(
        maps["orders-0"]["ranges"],
        serde_json::json!([[0, 69, 0, 0]])
    );
    // --state keeps the same map.
    let st: serde_json::Value = serde_json::from_str(&fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(st["offset_map"]["payments-0"], maps["payments-0"]["ranges"]);

    // A member in the target's g-exact: its commit is refused, the others' are not.
    let member = active_member(&bootstrap, "g-exact", "payments", "classic");
    let refused = rescue(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let err = stderr(&refused);
    assert!(
        err.contains("group g-exact is active in the target")
            && err.contains("UNKNOWN_MEMBER_ID")
            && err.contains("stop its consumers"),
        "{err}"
    );
    let commits: BTreeMap<String, bool> = lines(&refused)
        .iter()
        .filter(|l| l["type"] == "groupCommit")
        .map(|l| {
            (
                l["group"].as_str().unwrap().to_string(),
                l["committed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        commits,
        BTreeMap::from([
            ("g-aborted".to_string(), true),
            ("g-end".to_string(), true),
            ("g-exact".to_string(), false)
        ])
    );
    drop(member);
    // A KIP-848 member in g-end: the coordinator refuses the commit (UNKNOWN_MEMBER_ID).
    let member = active_member(&bootstrap, "g-end", "payments", "consumer");
    let refused = rescue(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let err = stderr(&refused);
    assert!(
        err.contains("group g-end is active in the target") && err.contains("UNKNOWN_MEMBER_ID"),
        "{err}"
    );
    drop(member);
    broker.stop();

    // What the target's coordinator wrote is the translation.
    for (group, pairs) in [
        ("g-aborted", vec![("payments", 5)]),
        ("g-end", vec![("payments", 9)]),
        ("g-exact", vec![("orders", 30), ("payments", 7)]),
    ] {
        let got: Vec<(String, i64)> = group_offsets(&target, group)
            .into_iter()
            .map(|(topic, _, offset, _)| (topic, offset))
            .collect();
        let want: Vec<(String, i64)> = pairs.iter().map(|(t, o)| (t.to_string(), *o)).collect();
        assert_eq!(got, want, "{group}");
        for (topic, offset) in &want {
            assert_eq!(
                predicted[&(group.to_string(), topic.clone(), 0)].1,
                Some(*offset)
            );
        }
    }
    // The metadata string is carried.
    let o = kseg(&[
        "groups",
        "--json",
        "--group",
        "g-exact",
        target.to_str().unwrap(),
    ]);
    let meta: Vec<String> = lines(&o)
        .iter()
        .filter(|l| l["type"] == "offset" && l["topic"] == "payments")
        .map(|l| l["metadata"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(meta, ["m12"]);
}

/// `--create-topics` creates the target topic with the source topic's own configs (its
/// ConfigRecords; a deleted one not, the replication throttles never), `--topic-config` over
/// them, and says which; the mini-broker's topic config file holds what it was given. A target
/// topic taking smaller batches than `--batch-bytes` gets batches cut to its size.
#[test]
fn create_topics_takes_the_source_topic_configs() {
    let t = tempfile::tempdir().unwrap();
    let src = example_source(t.path());
    config_log(
        &src,
        &[
            ("payments", "max.message.bytes", Some("2000000")),
            ("payments", "segment.ms", Some("1000")),
            (
                "payments",
                "leader.replication.throttled.replicas",
                Some("0:1"),
            ),
            ("payments", "retention.bytes", Some("1073741824")),
            ("orders", "max.message.bytes", Some("3000000")),
            ("payments", "segment.ms", None),
        ],
    );
    let target = t.path().join("target");
    let broker = BrokerProcess::start(&target, &[]);
    let o = Command::new(kseg_bin())
        .arg("rescue")
        .arg(src.join("payments-0"))
        .args(["--bootstrap", &broker.bootstrap(), "--create-topics"])
        .args(["--topic-config", "retention.ms=-1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "created payments (1 partitions) with source topic payments's configs \
             max.message.bytes=2000000, retention.bytes=1073741824 (its __cluster_metadata); \
             left out: leader.replication.throttled.replicas; --topic-config retention.ms=-1"
        ),
        "{err}"
    );
    // A target topic that takes smaller batches than --batch-bytes: the batches are cut to it
    // (orders-0's 70 records do not fit in one 4 KiB batch, which the broker would refuse).
    let o = Command::new(kseg_bin())
        .arg("rescue")
        .arg(src.join("orders-0"))
        .args(["--bootstrap", &broker.bootstrap(), "--create-topics"])
        .args(["--topic-map", "orders:orders-small"])
        .args(["--topic-config", "max.message.bytes=4096"])
        .args(["--topic-config", "retention.ms=-1", "--verify"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "created orders-small (1 partitions) with source topic orders's configs \
             max.message.bytes=3000000 (its __cluster_metadata); --topic-config \
             max.message.bytes=4096, retention.ms=-1"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(
            "batches of at most 4096 bytes (target topic orders-small's max.message.bytes=4096; \
             --batch-bytes is 1048576)"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("verify orders-small-0: 70 records match"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    broker.stop();
    // The topic's configs as the broker keeps them: ConfigRecords in its KRaft metadata log.
    let configs: Vec<String> = metadata_topic_configs(&target, "payments")
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    assert_eq!(
        configs,
        [
            "max.message.bytes=2000000",
            "retention.bytes=1073741824",
            "retention.ms=-1"
        ]
    );
}
