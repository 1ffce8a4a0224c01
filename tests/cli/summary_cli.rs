//! `kseg summary` on the example data dir and on crafted damage.

use crate::common::*;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/example-datadir");

#[test]
fn example_datadir_rows() {
    let r = kseg(&["summary", "--json", EXAMPLE]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let rows = of_type(&lines, "partition");
    assert_eq!(rows.len(), 6);
    let orders0 = rows
        .iter()
        .find(|v| v["topic"] == "orders" && v["partition"] == 0)
        .unwrap();
    assert_eq!(orders0["segments"], 2);
    assert_eq!(orders0["logStartOffset"], 0);
    assert_eq!(orders0["logEndOffset"], 70);
    assert_eq!(orders0["records"], 70);
    assert_eq!(orders0["cleanShutdown"], true);
    assert_eq!(orders0["checkpoints"]["highWatermark"], 70);
    let orders2 = rows
        .iter()
        .find(|v| v["topic"] == "orders" && v["partition"] == 2)
        .unwrap();
    assert_eq!(
        orders2["logStartOffset"], 5,
        "log-start-offset-checkpoint moves the start"
    );
    let payments = rows.iter().find(|v| v["topic"] == "payments").unwrap();
    assert_eq!(payments["controlBatches"], 2);
    assert_eq!(payments["transactionalBatches"], 5);
    let legacy = rows.iter().find(|v| v["topic"] == "legacy").unwrap();
    assert_eq!(legacy["magic"]["1"], 11);
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["partitions"], 6);
    let table = kseg(&["summary", EXAMPLE]);
    // The table alone on stdout; the note about the log dir on stderr.
    assert!(!table.stdout.contains("clean shutdown"), "{}", table.stdout);
    assert!(table.stderr.contains(&format!(
        "kseg: note: log dir {EXAMPLE}: clean shutdown marker present"
    )));
    assert!(
        table.stdout.lines().take(2).any(|l| l.contains("TOPIC")),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("payments"));
}

#[test]
fn checkpoints_beyond_the_log_end_are_flagged() {
    let t = tempfile::tempdir().unwrap();
    let b = three_batches();
    write(
        &t.path().join("t-0/00000000000000000000.log"),
        &[&b[0], &b[1], &b[2][..30]],
    );
    std::fs::write(t.path().join("meta.properties"), "version=1\n").unwrap();
    std::fs::write(
        t.path().join("replication-offset-checkpoint"),
        "0\n1\nt 0 9\n",
    )
    .unwrap();
    // Leftovers of an interrupted compaction.
    write(
        &t.path().join("t-0/00000000000000000000.log.swap"),
        &[&b[0]],
    );
    write(
        &t.path().join("t-0/00000000000000000005.log.deleted"),
        &[&b[0]],
    );
    let r = kseg(&["summary", "--json", t.path().to_str().unwrap()]);
    assert_eq!(r.code, 1);
    let lines = json_lines(&r.stdout);
    let row = of_type(&lines, "partition")[0];
    assert_eq!(row["logEndOffset"], 2);
    assert_eq!(row["cleanShutdown"], false);
    let warnings: Vec<&str> = row["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("high watermark 9 is beyond the log end offset 2")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("invalid bytes")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.starts_with("1 .swap files")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.starts_with("1 stray")),
        "{warnings:?}"
    );
}

#[test]
fn redpanda_dirs_are_named() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("kafka/orders/0_12")).unwrap();
    std::fs::create_dir_all(t.path().join("redpanda")).unwrap();
    std::fs::write(t.path().join("kafka/orders/0_12/0-1-v1.log"), [0u8; 64]).unwrap();
    let r = kseg(&["summary", t.path().to_str().unwrap()]);
    assert!(r.stderr.contains("Redpanda data directory"), "{}", r.stderr);
    assert_eq!(r.code, 2);
}
