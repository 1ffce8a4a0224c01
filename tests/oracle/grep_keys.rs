//! Issue 44: `kseg grep --key` finds a key wherever its producer's partitioner put it. On a real
//! Kafka broker (the newest pinned version), librdkafka (confluent-kafka: its default
//! `consistent_random`, `murmur2_random` and `fnv1a_random`) and the Java producer (Kafka's
//! console producer, its default partitioner) place keyed records in one 6-partition topic;
//! after a clean stop every key is found by default, each client's choice is the one kseg's
//! partitioner of that name computes (`analysis::partitioner`), `--partitioner` naming it finds
//! the key, and naming another finds nothing and says so. sarama's FNV-1a is checked against
//! librdkafka's `fnv1a_random` (built to agree with it) here and against sarama's own test
//! vectors in `partitioner.rs`.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use crate::harness::mini_broker_support::{clients_dir, have_python_module, skip_without};
use crate::harness::{kafka_tool, kseg, ndjson, run, run_ok, skip, versions, work_root, Broker};
use kseg::analysis::partitioner::Partitioner;

const TOPIC: &str = "keyed";
const PARTITIONS: u32 = 6;
const KEYS: usize = 16;

/// What `kseg grep --json` answered: exit code, records (partition, key), notes (kind,
/// message).
type Answer = (i32, Vec<(i64, String)>, Vec<(String, String)>);

/// `kseg grep --json ARGS... DATA`.
fn grep(data: &str, args: &[&str]) -> Answer {
    let mut all = vec!["grep", "--json"];
    all.extend_from_slice(args);
    all.push(data);
    let out = kseg(&all);
    let lines = ndjson(&String::from_utf8_lossy(&out.stdout));
    let records = lines
        .iter()
        .filter(|l| l["type"] == "record")
        .map(|l| {
            (
                l["partition"].as_i64().unwrap(),
                l["key"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let notes = lines
        .iter()
        .filter(|l| l["type"] == "note")
        .map(|l| {
            (
                l["kind"].as_str().unwrap().to_string(),
                l["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (out.status.code().unwrap_or(-1), records, notes)
}

#[test]
#[ignore = "needs Kafka (run oracle/setup: a JDK 17+ and Maven) and confluent-kafka"]
fn grep_finds_keys_wherever_the_java_producer_and_librdkafka_put_them() {
    if skip()
        || skip_without(
            "confluent-kafka (Python)",
            have_python_module("confluent_kafka"),
        )
    {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("grep-keys");
    let mut broker = Broker::format_and_start(version, &root, &[]);
    let bootstrap = broker.bootstrap();
    // librdkafka first (it creates the topic), then the Java producer.
    let mut py = Command::new("python3");
    py.arg(clients_dir().join("partitioners.py")).args([
        "--bootstrap",
        &bootstrap,
        "--topic",
        TOPIC,
        "--partitions",
        &PARTITIONS.to_string(),
        "--keys",
        &KEYS.to_string(),
    ]);
    let out = run_ok(py, Duration::from_secs(180));
    let report: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a report")).expect("JSON");
    let java_keys: Vec<String> = (0..KEYS).map(|i| format!("java-{i}")).collect();
    let input = root.join("java-records.txt");
    let lines: String = java_keys.iter().map(|k| format!("{k}:{k}/v\n")).collect();
    std::fs::write(&input, lines).unwrap();
    let mut producer = kafka_tool(version, "org.apache.kafka.tools.ConsoleProducer");
    producer
        .args([
            "--bootstrap-server",
            &bootstrap,
            "--topic",
            TOPIC,
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
        ])
        .stdin(std::fs::File::open(&input).unwrap());
    let out = run(producer, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "the console producer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    broker.stop();
    let data = broker.data.to_str().unwrap().to_string();

    // Each client's choice, and the partitioner kseg names for it.
    let mut placed: Vec<(Partitioner, String, u32)> = Vec::new();
    let mut empty_keys = 0;
    for p in report["placed"].as_array().unwrap() {
        let key = p["key"].as_str().unwrap().to_string();
        let partition = p["partition"].as_u64().unwrap() as u32;
        if key.is_empty() {
            empty_keys += 1;
            continue;
        }
        let by = match p["partitioner"].as_str().unwrap() {
            "consistent_random" => Partitioner::Crc32,
            "murmur2_random" => Partitioner::Murmur2,
            "fnv1a_random" => Partitioner::Fnv1a,
            other => panic!("{other}"),
        };
        placed.push((by, key, partition));
    }
    assert_eq!(placed.len(), 3 * KEYS);
    for (by, key, partition) in &placed {
        assert_eq!(
            by.partition(key.as_bytes(), PARTITIONS),
            Some(*partition),
            "librdkafka's {} put {key} in partition {partition}",
            by.name()
        );
    }
    // The Java producer's choice, as the broker's files hold it: found by default, in the one
    // partition murmur2 gives.
    for key in &java_keys {
        let (code, records, _) = grep(&data, &["--key", key]);
        assert_eq!(code, 0, "{key}");
        assert_eq!(records.len(), 1, "{key}: {records:?}");
        let partition = records[0].0 as u32;
        assert_eq!(
            Partitioner::Murmur2.partition(key.as_bytes(), PARTITIONS),
            Some(partition),
            "the Java producer put {key} in partition {partition}"
        );
        placed.push((Partitioner::Murmur2, key.clone(), partition));
    }

    // Every key is found by default where its client put it; the note names what places it
    // there; naming its partitioner finds it, naming another that maps elsewhere finds nothing
    // and says what it assumed.
    let mut wrong_partitioner_tried = BTreeMap::new();
    for (by, key, partition) in &placed {
        let (code, records, notes) = grep(&data, &["--key", key]);
        assert_eq!((code, records.len()), (0, 1), "{key}");
        assert_eq!(records[0], (*partition as i64, key.clone()));
        let found = notes
            .iter()
            .find(|(kind, _)| kind == "keyFound")
            .unwrap_or_else(|| panic!("{key}: {notes:?}"));
        assert!(found.1.contains(by.name()), "{key}: {}", found.1);

        let (code, records, _) = grep(&data, &["--key", key, "--partitioner", by.name()]);
        assert_eq!(
            (code, records.len()),
            (0, 1),
            "{key} --partitioner {}",
            by.name()
        );
        for other in Partitioner::ALL {
            if other.partition(key.as_bytes(), PARTITIONS) == Some(*partition) {
                continue;
            }
            let (code, records, notes) =
                grep(&data, &["--key", key, "--partitioner", other.name()]);
            assert_eq!(
                (code, records.len()),
                (1, 0),
                "{key} --partitioner {other:?}"
            );
            assert!(
                notes.iter().any(|(kind, m)| kind == "prunedNothingFound"
                    && m.contains(&format!("where {} maps the key", other.name()))
                    && m.contains("leave out --partitioner")),
                "{key}: {notes:?}"
            );
            *wrong_partitioner_tried.entry(by.name()).or_insert(0) += 1;
        }
    }
    // With 6 partitions the partitioners disagree on most keys: each client's keys were also
    // searched under a wrong partitioner.
    assert_eq!(
        wrong_partitioner_tried.len(),
        3,
        "{wrong_partitioner_tried:?}"
    );

    // librdkafka places an empty key at random: --partitioner crc32 searches every partition.
    let (code, records, notes) = grep(&data, &["--key-hex", "", "--partitioner", "crc32"]);
    assert_eq!((code, records.len()), (0, empty_keys), "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|(_, m)| m.contains("crc32 places an empty key at random")),
        "{notes:?}"
    );
}
