//! The mini-broker's log dir is a KRaft dir as a Kafka 4.4 broker+controller leaves one:
//! `meta.properties` v1 with a `directory.id`, and `__cluster_metadata-0` with the bootstrap
//! snapshot, `quorum-state` and a metadata log holding the features, the broker's registration,
//! the topics, their partitions (leader epochs moving at each restart as Kafka's) and their
//! configs. kseg's own commands read it like a real dir (nothing unrecognised), a restart
//! reloads it, and a dir of an older mini-broker (`kseg-topic-configs`, no metadata log) is
//! migrated.

use std::fs;
use std::path::Path;

use crate::mini_broker_support::{
    kseg, kseg_bin, metadata_records, metadata_topic_configs, run, verify_errors, BrokerProcess,
};
use std::process::Command;
use std::time::Duration;

fn mini(dir: &Path, action: &[&str], stdin: &str) {
    use std::io::Write;
    let mut child = Command::new(kseg_bin())
        .args(["mini-broker"])
        .args(action)
        .arg("--log-dir")
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "mini-broker {action:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn types(records: &[serde_json::Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| r["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// Every line of `kseg summary --json` and `verify-index --json` on the dir: none is about an
/// unrecognised file.
fn assert_nothing_unrecognised(dir: &Path) {
    for cmd in ["summary", "verify-index"] {
        let out = kseg(&[cmd, "--json", dir.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        let odd: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("unrecognised") || l.contains("\"type\":\"unknown\""))
            .collect();
        assert!(odd.is_empty(), "kseg {cmd}: {odd:#?}");
    }
}

#[test]
fn the_log_dir_is_a_kraft_dir_that_kseg_reads_like_a_real_one() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    // A broker run: a topic with a config, then a clean stop.
    let broker = BrokerProcess::start(&dir, &["--num-partitions", "2"]);
    let bootstrap = broker.bootstrap();
    crate::mini_broker_support::wire::create_topic(&bootstrap, "t");
    broker.stop();
    // A scripted session (no broker registers) and a second broker run.
    mini(
        &dir,
        &["produce", "--topic", "seeded", "--partitions", "3"],
        "a\nb\nc\n",
    );
    mini(
        &dir,
        &["commit", "--group", "g", "--topic", "seeded", "0=1"],
        "",
    );
    let broker = BrokerProcess::start(&dir, &[]);
    broker.stop();

    let meta = fs::read_to_string(dir.join("meta.properties")).unwrap();
    assert!(
        meta.contains("\nversion=1\n") && meta.contains("\ndirectory.id="),
        "{meta}"
    );
    let md = dir.join("__cluster_metadata-0");
    for f in [
        "00000000000000000000-0000000000.checkpoint",
        "00000000000000000000.log",
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
        "leader-epoch-checkpoint",
        "partition.metadata",
        "quorum-state",
    ] {
        assert!(md.join(f).is_file(), "{f} missing in {}", md.display());
    }
    assert_eq!(
        fs::read_to_string(md.join("partition.metadata")).unwrap(),
        "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
    );
    // Two broker runs and two scripted sessions: four raft epochs.
    assert_eq!(
        fs::read_to_string(md.join("quorum-state")).unwrap(),
        "{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":4,\"votedId\":-1,\"appliedOffset\":0,\
         \"currentVoters\":[{\"voterId\":1}],\"data_version\":0}"
    );
    // The metadata partition is not in the log-dir checkpoints (Kafka's LogManager does not
    // manage it).
    let recovery = fs::read_to_string(dir.join("recovery-point-offset-checkpoint")).unwrap();
    assert!(!recovery.contains("__cluster_metadata"), "{recovery}");

    let records = metadata_records(&dir);
    let kinds = types(&records);
    assert_eq!(
        kinds[..8],
        [
            "BEGIN_TRANSACTION_RECORD",
            "FEATURE_LEVEL_RECORD",
            "FEATURE_LEVEL_RECORD",
            "FEATURE_LEVEL_RECORD",
            "FEATURE_LEVEL_RECORD",
            "CONFIG_RECORD",
            "END_TRANSACTION_RECORD",
            "REGISTER_BROKER_RECORD",
        ],
        "{kinds:?}"
    );
    let features: Vec<(String, i64)> = records
        .iter()
        .filter(|r| r["type"] == "FEATURE_LEVEL_RECORD")
        .map(|r| {
            (
                r["data"]["name"].as_str().unwrap().to_string(),
                r["data"]["featureLevel"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        features,
        [
            ("metadata.version".to_string(), 33),
            ("eligible.leader.replicas.version".to_string(), 1),
            ("group.version".to_string(), 1),
            ("transaction.version".to_string(), 1),
        ]
    );
    let registrations = kinds
        .iter()
        .filter(|k| *k == "REGISTER_BROKER_RECORD")
        .count();
    assert_eq!(
        registrations, 4,
        "one per broker run and scripted session: {kinds:?}"
    );
    // Topic t: its records, partitions at leader epoch 0, then leadership given up at each stop
    // and taken again at each start: epoch 6 at the fourth session (the cache of an empty
    // partition keeps the latest epoch only, as LeaderEpochFileCache.assign does).
    let t_id = records
        .iter()
        .find(|r| r["type"] == "TOPIC_RECORD" && r["data"]["name"] == "t")
        .map(|r| r["data"]["topicId"].clone())
        .expect("a TopicRecord for t");
    let t_partitions = records
        .iter()
        .filter(|r| r["type"] == "PARTITION_RECORD" && r["data"]["topicId"] == t_id)
        .count();
    assert_eq!(t_partitions, 1);
    let epoch = fs::read_to_string(dir.join("t-0/leader-epoch-checkpoint")).unwrap();
    assert_eq!(epoch, "0\n1\n6 0\n");
    let seeded = records
        .iter()
        .filter(|r| r["type"] == "PARTITION_RECORD")
        .filter(|r| {
            records.iter().any(|t| {
                t["type"] == "TOPIC_RECORD"
                    && t["data"]["name"] == "seeded"
                    && t["data"]["topicId"] == r["data"]["topicId"]
            })
        })
        .count();
    assert_eq!(seeded, 3);
    // The internal topic got Kafka's configs as ConfigRecords.
    let offsets = metadata_topic_configs(&dir, "__consumer_offsets");
    assert_eq!(
        offsets.get("cleanup.policy").map(String::as_str),
        Some("compact")
    );
    assert_eq!(
        offsets.get("segment.bytes").map(String::as_str),
        Some("104857600")
    );

    assert_nothing_unrecognised(&dir);
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
    // The partition count of __consumer_offsets comes from the metadata log, as for a real dir.
    let mut c = Command::new(kseg_bin());
    c.args(["find-group-partition", "--log-dir"])
        .arg(&dir)
        .arg("g");
    let out = run(c, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_older_mini_broker_dir_is_migrated_into_the_metadata_log() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    mini(
        &dir,
        &["produce", "--topic", "old", "--partitions", "2"],
        "x\ny\n",
    );
    // What a mini-broker before the metadata log left: no __cluster_metadata-0, its own file.
    fs::remove_dir_all(dir.join("__cluster_metadata-0")).unwrap();
    fs::write(
        dir.join("kseg-topic-configs"),
        "old\tretention.ms=123456\nold\tcleanup.policy=compact,delete\n",
    )
    .unwrap();
    let id = fs::read_to_string(dir.join("old-1/partition.metadata")).unwrap();
    let broker = BrokerProcess::start(&dir, &[]);
    let err = broker.stop();
    assert!(
        err.contains("kseg-topic-configs: topic configs moved into the metadata log"),
        "{err}"
    );
    assert!(!dir.join("kseg-topic-configs").exists());
    let configs = metadata_topic_configs(&dir, "old");
    assert_eq!(
        configs.get("retention.ms").map(String::as_str),
        Some("123456")
    );
    assert_eq!(
        configs.get("cleanup.policy").map(String::as_str),
        Some("compact,delete")
    );
    // The topic keeps its id.
    let records = metadata_records(&dir);
    let topic = records
        .iter()
        .find(|r| r["type"] == "TOPIC_RECORD" && r["data"]["name"] == "old")
        .expect("a TopicRecord for old");
    assert!(
        id.ends_with(topic["data"]["topicId"].as_str().unwrap()),
        "{id} vs {topic}"
    );
    assert_nothing_unrecognised(&dir);
    // A restart reads the configs back from the log.
    let broker = BrokerProcess::start(&dir, &[]);
    let err = broker.stop();
    assert!(!err.contains("recorded in the metadata log"), "{err}");
    assert_eq!(metadata_topic_configs(&dir, "old"), configs);
}
