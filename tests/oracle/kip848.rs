//! KIP-848 consumer groups (`group.protocol=consumer`) on the mini-broker, held against Kafka:
//! the Java consumer's two-member workload (`KsegOracle kip848-consume`) runs against a real
//! Kafka broker and against `kseg mini-broker`; both `__consumer_offsets` partitions of the group
//! decode with Kafka's DumpLogSegments `--offsets-decoder`, and their records have the same
//! record types, versions and fields.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crate::harness::mini_broker_support::BrokerProcess;
use crate::harness::*;

const GROUP: &str = "kip848-java";

/// Every record of the group's `__consumer_offsets` partition as DumpLogSegments decodes it:
/// (key JSON, value JSON or null).
fn decoded(version: &str, data: &Path) -> Vec<(serde_json::Value, serde_json::Value)> {
    let partition = kseg_partition_for(GROUP);
    let dir = data.join(format!("__consumer_offsets-{partition}"));
    let mut logs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    let mut out = Vec::new();
    for log in logs {
        let mut tool = dump_log_segments(version);
        tool.args(["--offsets-decoder", "--files"]).arg(&log);
        let text = run_ok(tool, Duration::from_secs(120));
        for bad in ["Exception", "Error", "Unknown", "Could not"] {
            assert!(
                !text.contains(bad),
                "DumpLogSegments --offsets-decoder on {}: {text}",
                log.display()
            );
        }
        for line in text.lines() {
            let Some(i) = line.find(" key: ") else {
                continue;
            };
            let rest = &line[i + 6..];
            let (key, value) = rest.split_once(" payload: ").unwrap_or((rest, "null"));
            let key: serde_json::Value = serde_json::from_str(key.trim())
                .unwrap_or_else(|e| panic!("key {key}: {e} in {line}"));
            let value: serde_json::Value = match value.trim() {
                "<DELETE>" => serde_json::Value::Null,
                v => serde_json::from_str(v).unwrap_or_else(|e| panic!("value {v}: {e} in {line}")),
            };
            out.push((key, value));
        }
    }
    out
}

fn kseg_partition_for(group: &str) -> u32 {
    let out = kseg(&["find-group-partition", "--json", group]);
    let v = ndjson(&String::from_utf8_lossy(&out.stdout));
    v[0]["partition"].as_u64().expect("find-group-partition") as u32
}

/// A record's shape: key type and fields, value version and fields (nested fields named by
/// path), "tombstone" for a null value.
fn shape(key: &serde_json::Value, value: &serde_json::Value) -> String {
    fn fields(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let p = format!("{path}.{k}");
                    out.push(p.clone());
                    fields(v, &p, out);
                }
            }
            serde_json::Value::Array(a) => {
                for v in a {
                    fields(v, path, out);
                }
            }
            _ => {}
        }
    }
    let mut k = Vec::new();
    fields(&key["data"], "", &mut k);
    let v = if value.is_null() {
        "tombstone".to_string()
    } else {
        let mut f = Vec::new();
        fields(&value["data"], "", &mut f);
        f.sort();
        f.dedup();
        format!(
            "v{} {}",
            value["version"].as_str().unwrap_or("?"),
            f.join(" ")
        )
    };
    format!(
        "type {} [{}] {v}",
        key["type"].as_str().unwrap_or("?"),
        k.join(" ")
    )
}

/// The Java consumer (`group.protocol=consumer`, two members, a rebalance, a leave, commitSync)
/// against a real Kafka and against the mini-broker: both consume every record once, Kafka's
/// DumpLogSegments decodes every record of the group's `__consumer_offsets` partition, and the
/// two partitions hold records of the same types, versions and fields (type 4 only as the
/// tombstone DeleteGroups writes).
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn java_kip848_group_on_kafka_and_the_mini_broker_write_the_same_records() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = work_root(version).join("kip848");
    let mut real = Broker::format_and_start(version, &root.join("real"), &[]);
    let real_out = real.workload(&["kip848-consume", GROUP], Duration::from_secs(300));
    real.stop();
    assert!(
        real_out.contains("\"ok\":true,\"consumed\":200,\"duplicates\":0"),
        "{real_out}"
    );

    let mini_data = root.join("mini").join("data");
    let _ = std::fs::remove_dir_all(&mini_data);
    let mini = BrokerProcess::start(&mini_data, &[]);
    let out = run(
        workload_command(&["kip848-consume", &mini.bootstrap(), GROUP]),
        Duration::from_secs(300),
    );
    mini.stop();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("\"ok\":true,\"consumed\":200,\"duplicates\":0"),
        "KsegOracle kip848-consume against the mini-broker ({}): {stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );

    // ConsumerGroupDescribe and ListGroups as the admin client reads them, mid-run.
    let described = |text: &str| -> serde_json::Value {
        text.lines()
            .find(|l| l.starts_with("{\"listed\""))
            .map(|l| serde_json::from_str(l).unwrap())
            .unwrap_or_else(|| panic!("no description in {text}"))
    };
    let (real_d, mini_d) = (described(&real_out), described(&stdout));
    assert_eq!(real_d, mini_d, "the admin client's view of the group");
    assert_eq!(mini_d["described"]["state"], "Stable", "{mini_d}");
    assert_eq!(mini_d["described"]["members"].as_array().unwrap().len(), 2);

    let real_records = decoded(version, &root.join("real").join("data"));
    let mini_records = decoded(version, &mini_data);
    let shapes = |records: &[(serde_json::Value, serde_json::Value)]| -> BTreeSet<String> {
        records.iter().map(|(k, v)| shape(k, v)).collect()
    };
    let (real_shapes, mini_shapes) = (shapes(&real_records), shapes(&mini_records));
    for s in &real_shapes {
        eprintln!("real: {s}");
    }
    assert_eq!(
        real_shapes.iter().collect::<Vec<_>>(),
        mini_shapes.iter().collect::<Vec<_>>(),
        "record shapes differ"
    );
    let types: BTreeSet<String> = mini_records
        .iter()
        .map(|(k, _)| k["type"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["1", "3", "4", "5", "6", "7", "8"],
        "record types"
    );
    // The group's history is the same: epochs 2..=5, each member's records in Kafka's order
    // (member metadata, current assignment; tombstones current, target, member).
    let epochs = |records: &[(serde_json::Value, serde_json::Value)]| -> Vec<i64> {
        records
            .iter()
            .filter(|(k, _)| k["type"] == "3")
            .filter_map(|(_, v)| v["data"]["epoch"].as_i64())
            .collect()
    };
    assert_eq!(epochs(&real_records), [2, 3, 4, 5]);
    assert_eq!(epochs(&mini_records), [2, 3, 4, 5]);
    let tombstones = |records: &[(serde_json::Value, serde_json::Value)]| -> Vec<String> {
        records
            .iter()
            .filter(|(_, v)| v.is_null())
            .map(|(k, _)| k["type"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(tombstones(&real_records), tombstones(&mini_records));
}
