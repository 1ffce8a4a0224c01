//! IncrementalAlterConfigs, AlterConfigs, broker DescribeConfigs, finalized features and
//! UpdateFeatures through the Python clients that failed on them before
//! (`tests/clients/configs_features.py`; the same script passes against Kafka 4.4): the changes
//! take effect (an altered `segment.bytes` rolls at 1 MiB, an altered `retention.ms` deletes
//! segments at the next check) and land as ConfigRecords in the metadata log.

use std::fs;
use std::process::Command;
use std::time::Duration;

use crate::mini_broker_support::{
    clients_dir, have_python_module, metadata_records, metadata_topic_configs, run, skip_without,
    verify_errors, BrokerProcess,
};

fn script(client: &str, bootstrap: &str, prefix: &str) -> serde_json::Value {
    let mut c = Command::new("python3");
    c.arg(clients_dir().join("configs_features.py"))
        .arg(client)
        .args(["--bootstrap", bootstrap, "--prefix", prefix]);
    let out = run(c, Duration::from_secs(240));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_default();
    assert!(
        out.status.success() && v["ok"] == true,
        "configs_features.py {client} ({}): {stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

#[test]
#[ignore = "needs the Python clients: pip install -r tests/clients/requirements.txt"]
fn python_clients_alter_configs_and_read_features() {
    let missing = !have_python_module("kafka") || !have_python_module("confluent_kafka");
    if skip_without("kafka-python and confluent-kafka", !missing) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let broker = BrokerProcess::start(
        &dir,
        &[
            "--segment-bytes",
            "1024",
            "--retention-check-interval-ms",
            "200",
            "--file-delete-delay-ms",
            "500",
        ],
    );
    let kp = script("kafka-python", &broker.bootstrap(), "kp");
    assert!(
        kp["log_start_after_retention"].as_i64().unwrap_or(0) > 0,
        "{kp}"
    );
    let cf = script("confluent", &broker.bootstrap(), "cf");
    assert_eq!(cf["broker_configs"], 350, "{cf}");
    let err = broker.stop();
    assert!(
        err.contains("kp-ret-0: deleted segment 0 (retention time breach)"),
        "{err}"
    );
    // segment.bytes=1048576 on kp-roll: 1.5 MiB of records in two segments, not 1 KiB ones.
    let logs = fs::read_dir(dir.join("kp-roll-0"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "log")
        })
        .count();
    assert_eq!(logs, 2);
    // The metadata log holds the changes: kp-cfg's legacy AlterConfigs left retention.ms (and
    // the segment.bytes kafka-python sent along); cf-cfg's retention.ms was deleted.
    let kp_cfg = metadata_topic_configs(&dir, "kp-cfg");
    assert_eq!(
        kp_cfg.get("retention.ms").map(String::as_str),
        Some("120000")
    );
    let cf_cfg = metadata_topic_configs(&dir, "cf-cfg");
    assert_eq!(
        cf_cfg,
        [("retention.bytes".to_string(), "5000".to_string())].into()
    );
    let broker_configs: Vec<(String, String)> = metadata_records(&dir)
        .iter()
        .filter(|r| r["type"] == "CONFIG_RECORD" && r["data"]["resourceType"] == 4)
        .map(|r| {
            (
                r["data"]["resourceName"].as_str().unwrap().to_string(),
                r["data"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("", "min.insync.replicas"),
        ("1", "log.retention.bytes"),
        ("1", "log.retention.ms"),
    ] {
        assert!(
            broker_configs
                .iter()
                .any(|(r, n)| (r.as_str(), n.as_str()) == want),
            "{want:?} not in {broker_configs:?}"
        );
    }
    let (errors, warnings, list) = verify_errors(&dir);
    assert_eq!((errors, warnings), (0, 0), "{list:?}");
}
