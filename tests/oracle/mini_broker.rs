//! The mini-broker against Apache Kafka's own client and tool: the real Java producers
//! (idempotent, and transactional with commits and aborts) write into `kseg mini-broker`, and
//! Kafka's DumpLogSegments reads every file it wrote without a complaint.

use crate::harness as oracle;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::harness::mini_broker_support::BrokerProcess;
use crate::harness::*;

fn with_extension(exts: &'static [&'static str]) -> impl Fn(&Path) -> bool {
    move |p| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
    }
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn kafka_dump_log_reads_what_the_java_clients_wrote_through_the_mini_broker() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = Scratch::new(work_root(version).join("mini-broker"));
    std::fs::create_dir_all(&*root).unwrap();
    let data = root.join("data");
    let broker = BrokerProcess::start(&data, &["--segment-bytes", "16384"]);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "3"]);
    flood.stdout(Stdio::null());
    let out = run(flood, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "the Java producers against the mini-broker: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("stopped:"),
        "a Java producer failed against the mini-broker: {stderr}"
    );
    broker.stop();

    let logs = data_files(&data, with_extension(&["log"]));
    let indexes = data_files(&data, with_extension(&["index", "timeindex"]));
    assert!(
        logs.iter()
            .filter(|p| p.parent().unwrap().ends_with("crash-0"))
            .count()
            > 1,
        "crash-0 did not roll: {logs:?}"
    );
    let mut lines = 0;
    for (mode, flags, list) in [
        ("deep", vec!["--deep-iteration"], &logs),
        ("verify", vec!["--verify-index-only"], &indexes),
        ("sanity", vec!["--index-sanity-check"], &indexes),
    ] {
        // Relative to the log dir and in chunks: thousands of paths overflow one argument's
        // size limit (E2BIG).
        let mut text = String::new();
        for chunk in list.chunks(400) {
            let joined = chunk
                .iter()
                .map(|p| p.strip_prefix(&data).unwrap().to_str().unwrap())
                .collect::<Vec<_>>()
                .join(",");
            let mut kafka = dump_log_segments(version);
            kafka
                .current_dir(&data)
                .args(&flags)
                .args(["--files", &joined]);
            text.push_str(&run_ok(kafka, Duration::from_secs(300)));
        }
        lines += text.lines().count();
        for bad in [
            "Mismatches",
            "isvalid: false",
            "invalid bytes",
            "failed sanity",
            "corrupt",
            "Exception",
        ] {
            let hits: Vec<&str> = text.lines().filter(|l| l.contains(bad)).take(5).collect();
            assert!(
                hits.is_empty(),
                "DumpLogSegments {mode} on the mini-broker's files: {hits:#?}"
            );
        }
        // Kafka checks an empty .index no further ("... is empty.").
        let passed = text
            .lines()
            .filter(|l| l.contains("passed sanity check") || l.ends_with(".index is empty."))
            .count();
        if mode == "sanity" {
            assert_eq!(
                passed,
                list.len(),
                "every index passes Kafka's sanity check:\n{text}"
            );
        }
    }
    eprintln!(
        "mini-broker vs DumpLogSegments: {} logs and {} indexes, {lines} lines, no complaint",
        logs.len(),
        indexes.len()
    );
}

/// Kafka's AdminClient and a classic group of two Java consumers against the mini-broker
/// (`KsegOracle mini-admin`): createTopics with configs (and the refusals Kafka gives),
/// describeCluster, listOffsets under both isolation levels and by timestamp, a rebalance with
/// read_committed reads and commitSync, list/describeConsumerGroups, listConsumerGroupOffsets,
/// alterConsumerGroupOffsets, describeConfigs and deleteTopics. The Java side asserts every
/// answer; any exception fails the test.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn the_java_admin_client_and_consumers_work_against_the_mini_broker() {
    if skip() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let broker = BrokerProcess::start(&data, &[]);
    let out = run(
        workload_command(&["mini-admin", &broker.bootstrap()]),
        Duration::from_secs(300),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("{\"ok\":true,\"records\":45}"),
        "KsegOracle mini-admin against the mini-broker ({}): {stdout}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("Exception"), "{stderr}");
    broker.stop();
    let (errors, warnings, list) = oracle::mini_broker_support::verify_errors(&data);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}

/// Issue 23's lost commit, asked of Kafka: the same bytes as the mini-broker test
/// `a_group_id_over_32767_bytes_is_refused_and_the_longest_one_is_kept`. Kafka closes the
/// connection on a 40,000-byte group id (its readers refuse strings over 0x7fff bytes), and
/// keeps a commit by a 0x7fff-byte id across a restart, which `kseg groups` reads from its dir.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn group_ids_over_32767_bytes_are_refused_as_kafka_refuses_them() {
    use crate::harness::mini_broker_support::{group_offsets, wire};
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("group-id-limits");
    let mut broker = Broker::format_and_start(version, &root, &[]);
    wire::oversized_group_ids(&broker.bootstrap(), "t");
    broker.stop();
    let longest = wire::longest_group_id();
    broker.start();
    assert_eq!(wire::committed(&broker.bootstrap(), &longest, "t"), 7);
    broker.stop();
    let offsets = group_offsets(&broker.data, &longest);
    assert_eq!(offsets.len(), 1, "{offsets:?}");
    assert_eq!(
        (offsets[0].0.as_str(), offsets[0].1, offsets[0].2),
        ("t", 0, 7)
    );
}

#[test]
#[ignore = "needs Kafka (run oracle/setup: a JDK 17+ and Maven) and the Python clients"]
fn offset_delete_answers_as_kafka_answers() {
    use crate::harness::mini_broker_support::{group_offsets, wire};
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("offset-delete");
    let mut broker = Broker::format_and_start(version, &root, &[]);
    wire::offset_delete(&broker.bootstrap(), "t");
    // The same broker answers the config and feature tools and the Python clients' calls
    // (tests/oracle/configs.rs; the clients' dynamic broker configs last).
    crate::configs::check_configs_and_features(
        version,
        &broker.bootstrap(),
        crate::configs::KAFKA_LEVELS,
    );
    crate::configs::python_clients_alter_configs_and_read_features(&broker.bootstrap());
    broker.stop();
    broker.start();
    assert_eq!(
        wire::committed(&broker.bootstrap(), wire::OFFSET_DELETE_GROUP, "t"),
        -1
    );
    broker.stop();
    let offsets = group_offsets(&broker.data, wire::OFFSET_DELETE_GROUP);
    assert!(offsets.is_empty(), "{offsets:?}");
}

/// Kafka's own `kafka-consumer-groups --delete-offsets` against the mini-broker: the tool's
/// answer per partition, and the offset gone from the mini-broker's data dir.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn kafka_consumer_groups_delete_offsets_works_against_the_mini_broker() {
    use crate::harness::mini_broker_support::{group_offsets, wire};
    if skip() {
        return;
    }
    let version = &versions()[0];
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    let broker = BrokerProcess::start(&data, &[]);
    let bootstrap = broker.bootstrap();
    wire::create_topic(&bootstrap, "t");
    assert_eq!(
        wire::commit_when_loaded(&bootstrap, "tool-group", "t", 3),
        0
    );
    let mut tool = kafka_tool(
        version,
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    );
    tool.args([
        "--bootstrap-server",
        &bootstrap,
        "--delete-offsets",
        "--group",
        "tool-group",
        "--topic",
        "t",
    ]);
    let out = run_ok(tool, Duration::from_secs(180));
    let row = out
        .lines()
        .find(|l| l.split_whitespace().collect::<Vec<_>>() == ["t", "0", "Successful"])
        .map(str::to_string);
    assert!(row.is_some(), "no `t 0 Successful` row:\n{out}");
    assert_eq!(wire::committed(&bootstrap, "tool-group", "t"), -1);
    broker.stop();
    let offsets = group_offsets(&data, "tool-group");
    assert!(offsets.is_empty(), "{offsets:?}");
}
