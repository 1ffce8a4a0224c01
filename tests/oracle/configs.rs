//! Kafka's own CLI tools change and read configs and features the same way against Kafka 4.4
//! and against `kseg mini-broker` ([`check_configs_and_features`], the same assertions for
//! both): `kafka-configs --alter` on a topic (IncrementalAlterConfigs: a bad value refused with
//! Kafka's message, then two configs set) and on the broker (a read-only config refused),
//! `kafka-configs --describe` of the topic and of the broker with `--all` (Kafka 4.4's 350
//! broker configs, rows compared), `kafka-features describe` and a refused `upgrade`. Kafka's
//! side runs on the broker `offset_delete_answers_as_kafka_answers` starts; the mini-broker's
//! here, after which Kafka's DumpLogSegments `--cluster-metadata-decoder` reads the mini-broker's
//! `__cluster_metadata-0` cleanly, kseg finds nothing unrecognised in its dir, and Kafka 4.4
//! starts on a copy of it and describes the altered topic as the mini-broker did.

use std::time::Duration;

use crate::harness::mini_broker_support::{wire, BrokerProcess};
use crate::harness::*;

/// A Kafka tool's stdout and stderr (a refused change exits 1: its message is the answer).
fn tool(version: &str, main: &str, bootstrap: &str, args: &[&str]) -> String {
    let mut c = kafka_tool(version, main);
    c.args(["--bootstrap-server", bootstrap]).args(args);
    let out = run(c, Duration::from_secs(180));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn configs(version: &str, bootstrap: &str, args: &[&str]) -> String {
    tool(
        version,
        "org.apache.kafka.tools.ConfigCommand",
        bootstrap,
        args,
    )
}

/// The exception a refused `kafka-configs --alter` reports, or its success line.
fn outcome(text: &str) -> String {
    text.lines()
        .find_map(|l| {
            l.split_once("ExecutionException: ")
                .map(|(_, e)| e.to_string())
                .or_else(|| l.starts_with("Completed").then(|| l.to_string()))
        })
        .unwrap_or_else(|| format!("no outcome in: {text}"))
}

/// `kafka-configs --describe` of the topic the checks alter (with the harness's
/// `log.retention.ms=-1`).
const CFG_T_DESCRIBED: &str = "Dynamic configs for topic cfg-t are:\n  \
    cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n  \
    retention.ms=60000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=60000, STATIC_BROKER_CONFIG:log.retention.ms=-1, DEFAULT_CONFIG:log.retention.hours=168}\n";

/// The broker rows compared: configs neither broker's command line sets, and two the test
/// harness and the mini-broker both set (`log.retention.ms=-1`, no auto-creation).
const BROKER_ROWS: &[&str] = &[
    "  auto.create.topics.enable=false sensitive=false synonyms={STATIC_BROKER_CONFIG:auto.create.topics.enable=false, DEFAULT_CONFIG:auto.create.topics.enable=true}",
    "  compression.type=producer sensitive=false synonyms={DEFAULT_CONFIG:compression.type=producer}",
    "  log.cleaner.threads=1 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.threads=1}",
    "  log.retention.hours=168 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.hours=168}",
    "  log.retention.ms=-1 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.retention.ms=-1, DEFAULT_CONFIG:log.retention.hours=168}",
    "  log.segment.bytes=1073741824 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.bytes=1073741824}",
    "  message.max.bytes=1048588 sensitive=false synonyms={DEFAULT_CONFIG:message.max.bytes=1048588}",
    "  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}",
    "  num.io.threads=8 sensitive=false synonyms={DEFAULT_CONFIG:num.io.threads=8}",
    "  ssl.keystore.password=null sensitive=true synonyms={}",
];

/// The finalized levels of the features Kafka 4.4's default format and the mini-broker set
/// differently (README: Features): transaction.version, share.version, streams.version.
pub const KAFKA_LEVELS: [&str; 3] = ["2", "2", "1"];
pub const MINI_LEVELS: [&str; 3] = ["1", "0", "0"];

/// The same Kafka tool runs against the broker at `bootstrap`, with the same assertions;
/// `levels` are the finalized transaction.version, share.version and streams.version.
pub fn check_configs_and_features(version: &str, bootstrap: &str, levels: [&str; 3]) {
    wire::create_topic(bootstrap, "cfg-t");
    let topic = [
        "--alter",
        "--entity-type",
        "topics",
        "--entity-name",
        "cfg-t",
    ];
    let bad = configs(
        version,
        bootstrap,
        &[&topic[..], &["--add-config", "retention.ms=abc"]].concat(),
    );
    assert_eq!(
        outcome(&bad),
        "org.apache.kafka.common.errors.InvalidConfigurationException: Invalid value abc for \
         configuration retention.ms: Not a number of type LONG"
    );
    let set = configs(
        version,
        bootstrap,
        &[
            &topic[..],
            &[
                "--add-config",
                "retention.ms=60000,cleanup.policy=[compact,delete]",
            ],
        ]
        .concat(),
    );
    assert_eq!(outcome(&set), "Completed updating config for topic cfg-t.");
    let read_only = configs(
        version,
        bootstrap,
        &[
            "--alter",
            "--entity-type",
            "brokers",
            "--entity-name",
            "1",
            "--add-config",
            "num.partitions=3",
        ],
    );
    assert_eq!(
        outcome(&read_only),
        "org.apache.kafka.common.errors.InvalidRequestException: Cannot update these configs \
         dynamically: [num.partitions]"
    );
    let described = configs(
        version,
        bootstrap,
        &[
            "--describe",
            "--entity-type",
            "topics",
            "--entity-name",
            "cfg-t",
        ],
    );
    assert_eq!(described, CFG_T_DESCRIBED);
    let all = configs(
        version,
        bootstrap,
        &[
            "--describe",
            "--entity-type",
            "brokers",
            "--entity-name",
            "1",
            "--all",
        ],
    );
    // The harness sets the internal log.initial.task.delay.ms, which Kafka then lists too.
    let rows: Vec<&str> = all
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("  log.initial.task.delay.ms="))
        .collect();
    assert_eq!(rows.len(), 350, "{all}");
    for want in BROKER_ROWS {
        assert!(rows.contains(want), "no row {want:?} in:\n{all}");
    }
    let features = tool(
        version,
        "org.apache.kafka.tools.FeatureCommand",
        bootstrap,
        &["describe"],
    );
    let rows: Vec<String> = features
        .lines()
        .map(|l| {
            let l = l.split("Epoch:").next().unwrap_or("");
            l.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect();
    for want in [
        "Feature: eligible.leader.replicas.version SupportedMinVersion: 0 SupportedMaxVersion: 1 FinalizedVersionLevel: 1",
        "Feature: group.version SupportedMinVersion: 0 SupportedMaxVersion: 1 FinalizedVersionLevel: 1",
        "Feature: kraft.version SupportedMinVersion: 0 SupportedMaxVersion: 1 FinalizedVersionLevel: 0",
        "Feature: metadata.version SupportedMinVersion: 3.3-IV3 SupportedMaxVersion: 4.4-IV2 FinalizedVersionLevel: 4.4-IV2",
    ] {
        assert!(rows.iter().any(|r| r == want), "no {want:?} in:\n{features}");
    }
    for (feature, max, level) in [
        ("transaction.version", 2, levels[0]),
        ("share.version", 2, levels[1]),
        ("streams.version", 1, levels[2]),
    ] {
        let want = format!(
            "Feature: {feature} SupportedMinVersion: 0 SupportedMaxVersion: {max} FinalizedVersionLevel: {level}"
        );
        assert!(rows.contains(&want), "no {want:?} in:\n{features}");
    }
    assert_eq!(rows.len(), 7, "{features}");
    let upgrade = tool(
        version,
        "org.apache.kafka.tools.FeatureCommand",
        bootstrap,
        &["upgrade", "--feature", "foo.bar=1"],
    );
    assert!(
        upgrade.starts_with(
            "Could not upgrade foo.bar to 1. The update failed for all features since the \
             following feature had an error: Invalid update version 1 for feature foo.bar. \
             Local controller 1 does not support this feature."
        ),
        "{upgrade}"
    );
}

/// `tests/clients/configs_features.py --quick` with kafka-python and confluent-kafka: the
/// script `tests/mini_broker/configs.rs` runs against the mini-broker, here against Kafka.
pub fn python_clients_alter_configs_and_read_features(bootstrap: &str) {
    use crate::harness::mini_broker_support::{clients_dir, have_python_module, skip_without};
    let have = have_python_module("kafka") && have_python_module("confluent_kafka");
    if skip_without("kafka-python and confluent-kafka", have) {
        return;
    }
    for client in ["kafka-python", "confluent"] {
        let mut c = std::process::Command::new("python3");
        c.arg(clients_dir().join("configs_features.py"))
            .arg(client)
            .args(["--bootstrap", bootstrap, "--prefix", client, "--quick"]);
        let out = run(c, Duration::from_secs(240));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("\"ok\": true"),
            "configs_features.py {client} against Kafka ({}): {stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn kafka_tools_configure_the_mini_broker_as_kafka_and_read_its_metadata_log() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    // The harness's real broker: log.retention.ms=-1, no auto-creation.
    let broker = BrokerProcess::start(&data, &["--retention-ms", "-1", "--no-auto-create-topics"]);
    check_configs_and_features(version, &broker.bootstrap(), MINI_LEVELS);
    broker.stop();
    let log = data.join("__cluster_metadata-0/00000000000000000000.log");
    let mut dump = dump_log_segments(version);
    dump.args(["--cluster-metadata-decoder", "--files"])
        .arg(&log);
    let text = run_ok(dump, Duration::from_secs(180));
    for bad in ["Exception", "Error", "isvalid: false"] {
        assert!(!text.contains(bad), "DumpLogSegments: {bad}:\n{text}");
    }
    for want in [
        r#""name":"retention.ms","value":"60000""#,
        r#""name":"cleanup.policy","value":"compact,delete""#,
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"cfg-t""#,
        r#""type":"REGISTER_BROKER_RECORD","version":4"#,
    ] {
        assert!(text.contains(want), "no {want} in:\n{text}");
    }
    let summary = kseg(&["summary", "--json", data.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&summary.stdout);
    assert!(!out.contains("unrecognised"), "{out}");
    // Kafka 4.4 itself starts on (a copy of) the mini-broker's dir and, from its metadata log,
    // describes the topic's configs as the mini-broker did.
    let root = t.path().join("kafka");
    copy_dir(&data, &root.join("data"));
    let mut kafka = Broker::reopen(version, &root, &[]);
    kafka.start();
    let described = configs(
        version,
        &kafka.bootstrap(),
        &[
            "--describe",
            "--entity-type",
            "topics",
            "--entity-name",
            "cfg-t",
        ],
    );
    assert_eq!(described, CFG_T_DESCRIBED);
    kafka.stop();
}
