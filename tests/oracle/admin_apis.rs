//! Issue 23's admin APIs held against Kafka 4.4: one Kafka broker and one `kseg mini-broker`
//! are asked the same requests (`tests/mini_broker_support/wire.rs`, the functions the
//! mini-broker tests call) with the same assertions, and Kafka's own tools that failed on the
//! mini-broker (`kafka-transactions list / describe / describe-producers / find-hanging`,
//! `kafka-log-dirs --describe`, `kafka-metadata-quorum describe --status / --replication`) are
//! run against both, their output checked alike. Issue 26's refusals are asked of both too:
//! the same requests, Kafka's error codes and messages.

use std::path::Path;
use std::time::Duration;

use crate::harness::mini_broker_support::{wire, BrokerProcess};
use crate::harness::*;

const TOPIC: &str = "described";
const SIZED: &str = "sized";

/// Runs Kafka tool `main` with `args` against `bootstrap`: its stdout (exit 0 asserted).
fn tool(version: &str, main: &str, bootstrap: &str, args: &[&str]) -> String {
    let mut c = kafka_tool(version, main);
    c.args(["--bootstrap-server", bootstrap]).args(args);
    run_ok(c, Duration::from_secs(120))
}

/// A table's rows as whitespace-separated cells, the header left out.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .filter(|r: &Vec<String>| !r.is_empty())
        .collect()
}

/// Every API on `bootstrap` (a broker whose log dir is `data`), at the wire and with the tools.
fn describe_everything(version: &str, bootstrap: &str, data: &Path) {
    let (idempotent, txn) = wire::transactions_described(bootstrap, TOPIC);
    wire::log_dirs_described(bootstrap, data, SIZED);
    wire::quorum_described(bootstrap);

    const TXNS: &str = "org.apache.kafka.tools.TransactionsCommand";
    let list = tool(version, TXNS, bootstrap, &["list"]);
    let pid = txn.0.to_string();
    assert!(
        rows(&list).contains(&vec![
            wire::DESCRIBED_TXN.into(),
            "1".into(),
            pid.clone(),
            "CompleteCommit".into()
        ]),
        "kafka-transactions list:\n{list}"
    );
    let described = tool(
        version,
        TXNS,
        bootstrap,
        &["describe", "--transactional-id", wire::DESCRIBED_TXN],
    );
    let row = rows(&described);
    assert_eq!(row.len(), 1, "kafka-transactions describe:\n{described}");
    assert_eq!(
        row[0][..6],
        [
            "1",
            wire::DESCRIBED_TXN,
            &pid,
            &txn.1.to_string(),
            "CompleteCommit",
            "60000"
        ],
        "kafka-transactions describe:\n{described}"
    );
    let producers = tool(
        version,
        TXNS,
        bootstrap,
        &["describe-producers", "--topic", TOPIC, "--partition", "0"],
    );
    let mut row = rows(&producers);
    row.sort();
    let idempotent_row = [
        idempotent.0.to_string(),
        idempotent.1.to_string(),
        "-1".into(),
        "2".into(),
        "1700000000002".into(),
        "None".into(),
    ];
    assert!(
        row.len() == 2 && row.iter().any(|r| r[..] == idempotent_row[..]),
        "kafka-transactions describe-producers:\n{producers}"
    );
    let t = row
        .iter()
        .find(|r| r[0] == pid)
        .expect("the transactional producer");
    assert_eq!((t[3].as_str(), t[5].as_str()), ("1", "None"), "{producers}");
    let hanging = tool(
        version,
        TXNS,
        bootstrap,
        &["find-hanging", "--broker-id", "1"],
    );
    assert!(
        rows(&hanging).is_empty(),
        "kafka-transactions find-hanging:\n{hanging}"
    );

    let dirs = tool(
        version,
        "org.apache.kafka.tools.LogDirsCommand",
        bootstrap,
        &["--describe", "--topic-list", SIZED],
    );
    let json = dirs.lines().last().unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("kafka-log-dirs --describe ({e}):\n{dirs}"));
    let dir = &v["brokers"][0]["logDirs"][0];
    assert_eq!(dir["logDir"], data.to_str().unwrap(), "{dirs}");
    assert_eq!(dir["error"], serde_json::Value::Null, "{dirs}");
    let mut sizes: Vec<(String, i64)> = dir["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["partition"].as_str().unwrap().to_string(),
                p["size"].as_i64().unwrap(),
            )
        })
        .collect();
    sizes.sort();
    assert_eq!(sizes.len(), 2, "{dirs}");
    assert!(
        sizes[0].1 > 0 && sizes[1] == (format!("{SIZED}-1"), 0),
        "{dirs}"
    );

    const QUORUM: &str = "org.apache.kafka.tools.MetadataQuorumCommand";
    let status = tool(version, QUORUM, bootstrap, &["describe", "--status"]);
    for line in [
        "LeaderId:               1",
        "MaxFollowerLag:         0",
        "CurrentObservers:       []",
    ] {
        assert!(status.lines().any(|l| l == line), "no {line:?}:\n{status}");
    }
    assert!(
        status.contains(
            "CurrentVoters:          [{\"id\": 1, \"endpoints\": [\"CONTROLLER://127.0.0.1:"
        ),
        "{status}"
    );
    let replication = tool(version, QUORUM, bootstrap, &["describe", "--replication"]);
    let row = rows(&replication);
    assert_eq!(row.len(), 1, "{replication}");
    assert_eq!(
        (
            row[0][0].as_str(),
            row[0][1].as_str(),
            row[0][3].as_str(),
            row[0][6].as_str()
        ),
        ("1", "AAAAAAAAAAAAAAAAAAAAAA", "0", "Leader"),
        "{replication}"
    );
}

/// Issue 26's refusals, asked of `bootstrap`.
fn refused_as_kafka_refuses(bootstrap: &str) {
    wire::create_partitions_refused(bootstrap, "grow-a", "grow-b");
    wire::internal_topics_refused(bootstrap, "refused-group");
    wire::commits_to_missing_partitions_refused(bootstrap, "committed", "missing-group");
    wire::metadata_answers_a_repeated_topic_once(bootstrap, "repeated");
    wire::repeated_groups_and_configs_answered_each_time(bootstrap, "small", "small-group");
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn admin_apis_answer_as_kafka_answers_them() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("admin-apis");
    let mut kafka = Broker::format_and_start(version, &root, &[]);
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let mini = BrokerProcess::start(&data, &[]);
    describe_everything(version, &mini.bootstrap(), &data);
    refused_as_kafka_refuses(&mini.bootstrap());
    mini.stop();
    describe_everything(version, &kafka.bootstrap(), &kafka.data.clone());
    refused_as_kafka_refuses(&kafka.bootstrap());
    kafka.stop();
}
