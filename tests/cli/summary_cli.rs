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

/// Issue 44: BYTES is what the partition occupies on disk, every file (segments, indexes,
/// snapshots, `.deleted`, `.cleaned`, `.swap`) and the dir, as `du` counts it (it was the
/// `.log` lengths alone: 2.7 MB where du said 5.3 MB), with the split in JSON; a largest
/// timestamp after now is flagged.
#[test]
fn bytes_count_what_occupies_the_disk_as_du_does() {
    let t = tempfile::tempdir().unwrap();
    let part = t.path().join("orders-0");
    let b = crate::common::three_batches();
    crate::common::write(&part.join("00000000000000000000.log"), &[&b[0], &b[1]]);
    crate::common::write(&part.join("00000000000000000000.index"), &[&[7u8; 8192]]);
    crate::common::write(&part.join("00000000000000000000.timeindex"), &[&[7u8; 12]]);
    crate::common::write(&part.join("00000000000000000002.snapshot"), &[&[1u8; 5000]]);
    crate::common::write(
        &part.join("00000000000000000100.log.deleted"),
        &[&[3u8; 20_000]],
    );
    crate::common::write(
        &part.join("00000000000000000100.index.deleted"),
        &[&[3u8; 100]],
    );
    crate::common::write(
        &part.join("00000000000000000000.log.cleaned"),
        &[&[4u8; 9000]],
    );
    crate::common::write(
        &part.join("00000000000000000000.log.swap"),
        &[&[5u8; 12_000]],
    );
    // A preallocated index: 10 MiB long, nothing written (sparse): du counts no block of it.
    let sparse = std::fs::File::create(part.join("00000000000000000002.index")).unwrap();
    sparse.set_len(10 << 20).unwrap();
    // A future record, stamped a year ahead.
    let ahead = jiff::Timestamp::now().as_millisecond() + 365 * 86_400_000;
    let future = crate::common::batch(
        crate::common::BatchSpec {
            base_offset: 2,
            base_timestamp: ahead,
            ..Default::default()
        },
        &[crate::common::rec("k", "v")],
    );
    crate::common::write(&part.join("00000000000000000002.log"), &[&future]);
    let du = std::process::Command::new("du")
        .args(["-s", "-B1"])
        .arg(&part)
        .output()
        .unwrap();
    let du: u64 = String::from_utf8_lossy(&du.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let r = crate::common::kseg(&["summary", "--json", part.to_str().unwrap()]);
    let lines = crate::common::json_lines(&r.stdout);
    let row = crate::common::of_type(&lines, "partition")[0];
    assert_eq!(row["bytes"].as_u64(), Some(du), "{row}");
    let disk = &row["disk"];
    let sum: u64 = [
        "log",
        "indexes",
        "snapshots",
        "deleted",
        "cleaned",
        "swap",
        "other",
    ]
    .iter()
    .map(|k| disk[k].as_u64().unwrap())
    .sum();
    assert_eq!(sum, du, "{disk}");
    for k in ["log", "indexes", "snapshots", "deleted", "cleaned", "swap"] {
        assert!(disk[k].as_u64().unwrap() > 0, "{k}: {disk}");
    }
    // 10 MiB long, but not on disk.
    assert!(disk["indexes"].as_u64().unwrap() < 1 << 20, "{disk}");
    assert_eq!(
        row["logBytes"].as_u64(),
        Some((b[0].len() + b[1].len() + future.len()) as u64)
    );
    assert_eq!(row["maxTimestamp"].as_i64(), Some(ahead));
    let warnings = row["warnings"].to_string();
    assert!(warnings.contains("is in the future"), "{warnings}");
}

/// Issue 44: a partition dir given alone is judged with its log dir's checkpoints (RECOVERY/HW
/// said `-/-`) and clean-shutdown marker.
#[test]
fn a_partition_dir_alone_is_judged_with_its_log_dirs_checkpoints() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    std::fs::write(
        root.join("recovery-point-offset-checkpoint"),
        "0\n1\norders 0 2\n",
    )
    .unwrap();
    std::fs::write(
        root.join("replication-offset-checkpoint"),
        "0\n1\norders 0 3\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".kafka_cleanshutdown"),
        "{\"version\":0,\"brokerEpoch\":5}",
    )
    .unwrap();
    let b = crate::common::three_batches();
    crate::common::write(
        &root.join("orders-0/00000000000000000000.log"),
        &[&b[0], &b[1], &b[2]],
    );
    let part = root.join("orders-0");
    let r = crate::common::kseg(&["summary", "--json", part.to_str().unwrap()]);
    let lines = crate::common::json_lines(&r.stdout);
    let row = crate::common::of_type(&lines, "partition")[0];
    assert_eq!(row["checkpoints"]["recoveryPoint"], 2, "{row}");
    assert_eq!(row["checkpoints"]["highWatermark"], 3, "{row}");
    assert_eq!(row["cleanShutdown"], true, "{row}");
    let r = crate::common::kseg(&["summary", part.to_str().unwrap()]);
    assert!(r.stdout.contains("2/3"), "{}", r.stdout);
}

/// Issue 44: triage of a full disk: `--sort bytes` puts the largest partitions first, `--top N`
/// keeps N rows, `--topic GLOB` only the topics matching.
#[test]
fn sort_by_bytes_top_and_topic_glob() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    for (name, batches) in [
        ("small-0", 1),
        ("big-0", 60),
        ("middle-0", 20),
        ("big-1", 40),
    ] {
        let records: Vec<_> = (0..50)
            .map(|_| crate::common::rec("k", "a value of some length"))
            .collect();
        let all: Vec<Vec<u8>> = (0..batches)
            .map(|i| {
                crate::common::batch(
                    crate::common::BatchSpec {
                        base_offset: i * 50,
                        ..Default::default()
                    },
                    &records,
                )
            })
            .collect();
        let refs: Vec<&[u8]> = all.iter().map(|b| b.as_slice()).collect();
        crate::common::write(&root.join(name).join("00000000000000000000.log"), &refs);
    }
    let rows = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["summary", "--json"];
        all.extend_from_slice(args);
        all.push(root.to_str().unwrap());
        let r = crate::common::kseg(&all);
        let lines = crate::common::json_lines(&r.stdout);
        crate::common::of_type(&lines, "partition")
            .iter()
            .map(|p| format!("{}-{}", p["topic"].as_str().unwrap(), p["partition"]))
            .collect()
    };
    assert_eq!(
        rows(&["--sort", "bytes"]),
        ["big-0", "big-1", "middle-0", "small-0"]
    );
    assert_eq!(rows(&["--sort", "bytes", "--top", "2"]), ["big-0", "big-1"]);
    assert_eq!(
        rows(&["--topic", "b*", "--topic", "small"]),
        ["big-0", "big-1", "small-0"]
    );
}
