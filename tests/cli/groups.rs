//! `kseg groups`: coordinator replay semantics on crafted logs, and agreement with an
//! independent replay (over dump-log's decoded JSON) on the real corpus.

use crate::common;
use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn s16(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
    let mut k = vec![0, 1];
    s16(&mut k, group);
    s16(&mut k, topic);
    k.extend_from_slice(&partition.to_be_bytes());
    k
}

/// OffsetCommitValue v3.
fn commit_value(offset: i64, ts: i64) -> Vec<u8> {
    let mut v = vec![0, 3];
    v.extend_from_slice(&offset.to_be_bytes());
    v.extend_from_slice(&5i32.to_be_bytes());
    s16(&mut v, "meta");
    v.extend_from_slice(&ts.to_be_bytes());
    v
}

fn data_partition(root: &Path, topic: &str, partition: i32, n: i64) {
    let batches: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            batch(
                BatchSpec {
                    base_offset: i,
                    base_timestamp: 1_700_000_000_000 + i * 1000,
                    ..Default::default()
                },
                &[rec("k", "v")],
            )
        })
        .collect();
    let refs: Vec<&[u8]> = batches.iter().map(|b| b.as_slice()).collect();
    write(
        &root.join(format!("{topic}-{partition}/00000000000000000000.log")),
        &refs,
    );
}

#[test]
fn replay_semantics() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    data_partition(root, "orders", 0, 100);
    data_partition(root, "orders", 1, 10);
    let k0 = commit_key("g1", "orders", 0);
    let k1 = commit_key("g1", "orders", 1);
    let k2 = commit_key("g1", "gone", 0);
    let v = |o| commit_value(o, 1_700_000_500_000);
    let plain = |off: i64, key: &[u8], val: Option<Vec<u8>>| {
        let val = val.map(|v| v.to_vec());
        batch(
            BatchSpec {
                base_offset: off,
                ..Default::default()
            },
            &[Rec {
                key: Some(key),
                value: val.as_deref(),
                headers: vec![],
                ts_delta: 0,
            }],
        )
    };
    let txn = |off: i64, key: &[u8], val: Vec<u8>, pid: i64| {
        batch(
            BatchSpec {
                base_offset: off,
                attributes: 0x10,
                producer_id: pid,
                producer_epoch: 0,
                base_sequence: 0,
                ..Default::default()
            },
            &[Rec {
                key: Some(key),
                value: Some(&val),
                headers: vec![],
                ts_delta: 0,
            }],
        )
    };
    let log = [
        plain(0, &k0, Some(v(10))),
        plain(1, &k0, Some(v(40))), // last value wins
        plain(2, &k2, Some(v(7))),
        plain(3, &k2, None),   // tombstone deletes the offset
        txn(4, &k1, v(8), 77), // committed below
        marker(5, 77, true, 1),
        txn(6, &k0, v(99), 88), // aborted below: never counts
        marker(7, 88, false, 1),
        txn(8, &k1, v(9), 99), // open at the end: not visible
    ];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    write(
        &root.join("__consumer_offsets-3/00000000000000000000.log"),
        &refs,
    );
    let r = kseg(&["groups", "--json", "--history", root.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let offsets: Vec<&Value> = of_type(&lines, "offset");
    let got: BTreeMap<(String, i64), i64> = offsets
        .iter()
        .map(|o| {
            (
                (
                    o["topic"].as_str().unwrap().to_string(),
                    o["partition"].as_i64().unwrap(),
                ),
                o["offset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        BTreeMap::from([(("orders".into(), 0), 40), (("orders".into(), 1), 8)])
    );
    let o0 = offsets.iter().find(|o| o["partition"] == 0).unwrap();
    assert_eq!(o0["logEndOffset"], 100);
    assert_eq!(o0["lag"], 60);
    assert_eq!(o0["leaderEpoch"], 5);
    // Newest record at 1_700_000_099_000, record at offset 40 at 1_700_000_040_000.
    assert_eq!(o0["oldestUnconsumedAgeMs"], 59_000);
    let o1 = offsets.iter().find(|o| o["partition"] == 1).unwrap();
    assert!(o1["flags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "transactional"));
    let commits = of_type(&lines, "commit");
    assert_eq!(commits.len(), 7);
    let outcomes: Vec<&str> = commits
        .iter()
        .filter_map(|c| c["transactional"]["outcome"].as_str())
        .collect();
    assert_eq!(outcomes, vec!["committed", "aborted", "open"]);
}

#[test]
fn offsets_outside_the_log_are_flagged() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    data_partition(root, "t", 0, 10);
    std::fs::write(root.join("log-start-offset-checkpoint"), "0\n1\nt 0 5\n").unwrap();
    data_partition(root, "t", 1, 10);
    let a = commit_key("g", "t", 0);
    let b = commit_key("g", "t", 1);
    let va = commit_value(2, 1);
    let vb = commit_value(50, 1);
    let log = [
        batch(
            BatchSpec {
                base_offset: 0,
                ..Default::default()
            },
            &[Rec {
                key: Some(&a),
                value: Some(&va),
                headers: vec![],
                ts_delta: 0,
            }],
        ),
        batch(
            BatchSpec {
                base_offset: 1,
                ..Default::default()
            },
            &[Rec {
                key: Some(&b),
                value: Some(&vb),
                headers: vec![],
                ts_delta: 0,
            }],
        ),
    ];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    write(
        &root.join("__consumer_offsets-0/00000000000000000000.log"),
        &refs,
    );
    let r = kseg(&["groups", "--json", root.to_str().unwrap()]);
    let lines = json_lines(&r.stdout);
    let offsets = of_type(&lines, "offset");
    let flags = |p: i64| offsets.iter().find(|o| o["partition"] == p).unwrap()["flags"].clone();
    assert!(flags(0)
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "below-log-start"));
    assert!(flags(1)
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "beyond-log-end"));
    let table = kseg(&["groups", root.to_str().unwrap()]);
    assert!(
        table.stdout.contains("GROUP")
            && table.stdout.contains("LOG-END-OFFSET")
            && table.stdout.contains("below-log-start")
    );
}

/// A transactional commit waiting for its marker: (group, topic, partition) and the offset.
type Pending = ((String, String, i64), Option<i64>);

/// An independent replay over `dump-log --json` output (decodedKey/decodedValue), compared with
/// `kseg groups --json` on every real log dir that has __consumer_offsets data.
#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn agrees_with_an_independent_replay_on_the_corpus() {
    let corpus = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/real"
    ));
    if !corpus.exists() {
        common::corpus_missing("the independent replay on the corpus");
        return;
    }
    let log_dirs = [
        "William0423__kafka/kafka-logs",
        "anchor123__kafka/tmp/kafka-logs",
        "mscaldas2012__kafka-connect-spooldir/kafka-data",
        "rjmfernandes__flink-on-prem/data",
        "dschne27__kafka-streams/broker/data",
        "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data",
        "Mamali99__greenhouse/c05181d/kafka_data/data",
        "Miiraaaii__cdc-lakehouse-pipeline/kafka-data",
    ];
    let mut total = 0;
    for dir in log_dirs {
        let path = corpus.join(dir);
        let mut model: BTreeMap<(String, String, i64), i64> = BTreeMap::new();
        let mut parts: Vec<_> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("__consumer_offsets-")
            })
            .collect();
        parts.sort();
        for p in parts {
            let d = kseg(&[
                "dump-log",
                "--json",
                "--deep-iteration",
                p.to_str().unwrap(),
            ]);
            let mut pending: BTreeMap<i64, Vec<Pending>> = BTreeMap::new();
            let mut batch_txn = (false, -1i64);
            for v in json_lines(&d.stdout) {
                match v["type"].as_str() {
                    Some("batch") => {
                        batch_txn = (
                            v["isTransactional"] == true,
                            v["producerId"].as_i64().unwrap(),
                        )
                    }
                    Some("record") => {
                        if let Some(c) = v.get("control") {
                            let list = pending.remove(&batch_txn.1).unwrap_or_default();
                            if c["type"] == "COMMIT" {
                                for (k, o) in list {
                                    match o {
                                        Some(o) => model.insert(k, o),
                                        None => model.remove(&k),
                                    };
                                }
                            }
                            continue;
                        }
                        let key = &v["decodedKey"];
                        let t = key["type"].as_str().unwrap_or("");
                        if t != "0" && t != "1" {
                            continue;
                        }
                        let k = (
                            key["data"]["group"].as_str().unwrap().to_string(),
                            key["data"]["topic"].as_str().unwrap().to_string(),
                            key["data"]["partition"].as_i64().unwrap(),
                        );
                        let offset = v["decodedValue"]["data"]["offset"].as_i64();
                        if batch_txn.0 {
                            pending.entry(batch_txn.1).or_default().push((k, offset));
                        } else {
                            match offset {
                                Some(o) => model.insert(k, o),
                                None => model.remove(&k),
                            };
                        }
                    }
                    _ => {}
                }
            }
        }
        let g = kseg(&["groups", "--json", path.to_str().unwrap()]);
        assert_eq!(g.code, 0, "{dir}: {}", g.stderr);
        let got: BTreeMap<(String, String, i64), i64> = of_type(&json_lines(&g.stdout), "offset")
            .iter()
            .map(|o| {
                (
                    (
                        o["group"].as_str().unwrap().to_string(),
                        o["topic"].as_str().unwrap().to_string(),
                        o["partition"].as_i64().unwrap(),
                    ),
                    o["offset"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, model, "{dir}");
        total += got.len();
    }
    assert!(
        total > 10,
        "the corpus holds committed offsets; got {total}"
    );
}

#[test]
fn a_committed_transaction_does_not_override_a_later_plain_commit_and_tombstones_drop_pending() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    let ka = commit_key("g", "a", 0);
    let kb = commit_key("g", "b", 0);
    let rec_of = |key: &[u8], val: Option<&[u8]>, off: i64, txn: Option<i64>| {
        let spec = match txn {
            Some(pid) => BatchSpec {
                base_offset: off,
                attributes: 0x10,
                producer_id: pid,
                producer_epoch: 0,
                base_sequence: 0,
                ..Default::default()
            },
            None => BatchSpec {
                base_offset: off,
                ..Default::default()
            },
        };
        batch(
            spec,
            &[Rec {
                key: Some(key),
                value: val,
                headers: vec![],
                ts_delta: 0,
            }],
        )
    };
    let (v100, v200) = (commit_value(100, 1), commit_value(200, 1));
    let log = [
        rec_of(&ka, Some(&v100), 0, Some(5)),
        rec_of(&ka, Some(&v200), 1, None),
        rec_of(&kb, Some(&v100), 2, Some(5)),
        rec_of(&kb, None, 3, None),
        marker(4, 5, true, 0),
    ];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    write(
        &root.join("__consumer_offsets-1/00000000000000000000.log"),
        &refs,
    );
    let r = kseg(&["groups", "--json", root.to_str().unwrap()]);
    let lines = json_lines(&r.stdout);
    let offsets = of_type(&lines, "offset");
    assert_eq!(offsets.len(), 1, "{offsets:?}");
    assert_eq!(offsets[0]["topic"], "a");
    assert_eq!(offsets[0]["offset"], 200);
}

/// A record type this kseg does not know (a newer Kafka's) is skipped as Kafka's coordinator
/// loader skips it: a note with its type and offset, the rest replayed, exit 0. A known type
/// whose value does not decode is still undecodable (exit 1).
#[test]
fn unknown_record_types_are_noted_and_skipped() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    data_partition(root, "orders", 0, 10);
    let one = |off: i64, key: &[u8], val: &[u8]| {
        batch(
            BatchSpec {
                base_offset: off,
                ..Default::default()
            },
            &[Rec {
                key: Some(key),
                value: Some(val),
                headers: vec![],
                ts_delta: 0,
            }],
        )
    };
    // Type 99: a key whose layout after the type is not a group id at all.
    let mut unknown_key = vec![0, 99];
    unknown_key.extend_from_slice(&[0xff, 0xff, 0x01, 0x02]);
    let log = [
        one(
            0,
            &commit_key("g1", "orders", 0),
            &commit_value(4, 1_700_000_500_000),
        ),
        one(1, &unknown_key, b"\x00\x00whatever a newer Kafka writes"),
        one(
            2,
            &commit_key("g1", "orders", 0),
            &commit_value(6, 1_700_000_600_000),
        ),
    ];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    let coordinator = root.join("__consumer_offsets-7/00000000000000000000.log");
    write(&coordinator, &refs);
    let r = kseg(&["groups", root.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("kseg: note: __consumer_offsets-7: offset 1: unknown record type 99 skipped"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("undecodable"), "{}", r.stderr);
    let r = kseg(&["groups", "--json", root.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let offsets = of_type(&lines, "offset");
    assert_eq!(offsets.len(), 1);
    assert_eq!(offsets[0]["offset"], 6);
    // No group is made up from the unknown record's key.
    assert_eq!(of_type(&lines, "group").len(), 1);
    let skipped = of_type(&lines, "skippedRecord");
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        (
            skipped[0]["partition"].as_i64(),
            skipped[0]["offset"].as_i64(),
            skipped[0]["recordType"].as_i64()
        ),
        (Some(7), Some(1), Some(99))
    );
    assert_eq!(of_type(&lines, "summary")[0]["skippedUnknownTypes"], 1);

    // A known type (offset commit) with a value version no Kafka defines fails Kafka's load.
    let mut bad = commit_value(8, 1_700_000_700_000);
    bad[1] = 42;
    let log = [one(0, &commit_key("g1", "orders", 0), &bad)];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    write(&coordinator, &refs);
    let r = kseg(&["groups", root.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("undecodable record"), "{}", r.stderr);
}

/// GroupMetadataValue v3 of a group with no members (Empty).
fn empty_group_value(protocol_type: &str, generation: i32, state_ts: i64) -> Vec<u8> {
    let mut v = vec![0, 3];
    s16(&mut v, protocol_type);
    v.extend_from_slice(&generation.to_be_bytes());
    v.extend_from_slice(&(-1i16).to_be_bytes()); // protocol: null
    v.extend_from_slice(&(-1i16).to_be_bytes()); // leader: null
    v.extend_from_slice(&state_ts.to_be_bytes());
    v.extend_from_slice(&0i32.to_be_bytes()); // members
    v
}

#[test]
fn offset_expiry_on_crafted_logs() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    data_partition(root, "orders", 0, 10);
    let one = |off: i64, key: &[u8], val: Vec<u8>, attributes: i16, pid: i64| {
        batch(
            BatchSpec {
                base_offset: off,
                attributes,
                producer_id: pid,
                producer_epoch: if pid >= 0 { 0 } else { -1 },
                base_sequence: if pid >= 0 { 0 } else { -1 },
                ..Default::default()
            },
            &[Rec {
                key: Some(key),
                value: Some(&val),
                headers: vec![],
                ts_delta: 0,
            }],
        )
    };
    let mut group_key = vec![0, 2];
    s16(&mut group_key, "g-empty");
    let log = [
        // A classic group that became Empty at ..600_000 after committing at ..500_000.
        one(
            0,
            &commit_key("g-empty", "orders", 0),
            commit_value(3, 1_700_000_500_000),
            0,
            -1,
        ),
        one(
            1,
            &group_key,
            empty_group_value("consumer", 4, 1_700_000_600_000),
            0,
            -1,
        ),
        // Standalone commits (no group metadata): from the commit.
        one(
            2,
            &commit_key("g-alone", "orders", 0),
            commit_value(4, 1_700_000_500_000),
            0,
            -1,
        ),
        // A transactional commit still open at the end of the log holds the offset.
        one(
            3,
            &commit_key("g-txn", "orders", 0),
            commit_value(5, 1_700_000_500_000),
            0,
            -1,
        ),
        one(
            4,
            &commit_key("g-txn", "orders", 0),
            commit_value(6, 1_700_000_500_000),
            0x10,
            42,
        ),
    ];
    let refs: Vec<&[u8]> = log.iter().map(|b| b.as_slice()).collect();
    write(
        &root.join("__consumer_offsets-0/00000000000000000000.log"),
        &refs,
    );
    let run = |at: &str| {
        let r = kseg(&[
            "groups",
            "--json",
            "--offsets-retention-minutes",
            "1",
            "--at",
            at,
            root.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let lines = json_lines(&r.stdout);
        of_type(&lines, "offset")
            .into_iter()
            .map(|o| (o["group"].as_str().unwrap().to_string(), o.clone()))
            .collect::<BTreeMap<String, Value>>()
    };
    let o = run("1700000559999");
    assert_eq!(o["g-empty"]["expiresAt"], 1_700_000_660_000i64);
    assert_eq!(o["g-empty"]["expiryBasis"], "groupEmptySince");
    assert_eq!(o["g-alone"]["expiresAt"], 1_700_000_560_000i64);
    assert_eq!(o["g-alone"]["expiryBasis"], "commitTimestamp");
    assert_eq!(o["g-txn"]["expiresAt"], Value::Null);
    assert_eq!(
        o["g-txn"]["neverExpiresBecause"],
        "a transactional commit of the partition is pending"
    );
    let has = |o: &BTreeMap<String, Value>, g: &str, f: &str| {
        o[g]["flags"].as_array().unwrap().iter().any(|x| x == f)
    };
    assert!(has(&o, "g-alone", "expires-in-1d") && !has(&o, "g-alone", "expired"));
    // RFC 3339 with a zone, the instant the standalone offset expires.
    let o = run("2023-11-14T22:22:40Z");
    assert!(has(&o, "g-alone", "expired"));
    assert!(has(&o, "g-empty", "expires-in-1d"));
    // The table has the column; a bad --at is a usage error.
    let r = kseg(&["groups", "--at", "yesterday", root.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    // A time without a zone is refused, as lookup's --timestamp refuses it.
    let r = kseg(&[
        "groups",
        "--at",
        "2023-11-14T22:22:40",
        root.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("has no time zone"), "{}", r.stderr);
    let r = kseg(&[
        "groups",
        "--offsets-retention-minutes",
        "1",
        "--at",
        "1700000660000",
        root.to_str().unwrap(),
    ]);
    assert!(r.stdout.contains("EXPIRES-AT") && r.stdout.contains("expired"));
    // The text says why an offset never expires, as the JSON's neverExpiresBecause does.
    assert!(
        r.stdout.contains(
            "EXPIRES-AT never (1 offset): a transactional commit of the partition is pending: \
             g-txn orders-0."
        ),
        "{}",
        r.stdout
    );
}

/// Issue 14 item 13: a committed offset of i64::MIN gave a LAG of -9223372036854775798 (the
/// subtraction wrapped); the lag saturates at i64::MAX and the offset is flagged.
#[test]
fn a_hostile_committed_offset_does_not_wrap_the_lag() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(root.join("meta.properties"), "version=1\n").unwrap();
    data_partition(root, "t", 0, 10);
    let k = commit_key("g", "t", 0);
    let v = commit_value(i64::MIN, 1);
    let log = batch(
        BatchSpec::default(),
        &[Rec {
            key: Some(&k),
            value: Some(&v),
            headers: vec![],
            ts_delta: 0,
        }],
    );
    write(
        &root.join("__consumer_offsets-0/00000000000000000000.log"),
        &[&log],
    );
    let r = kseg(&["groups", "--json", root.to_str().unwrap()]);
    let lines = json_lines(&r.stdout);
    let o = of_type(&lines, "offset")[0].clone();
    assert_eq!(o["lag"], i64::MAX, "{o}");
    assert!(
        o["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "below-log-start"),
        "{o}"
    );
}

#[test]
fn the_text_says_which_instant_expiry_is_judged_at() {
    let dir = "testdata/example-datadir";
    let run = kseg(&["groups", dir, "--at", "2024-06-01T00:00:00Z"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "Expiry as of 2024-06-01T00:00:00.000Z (--at)\nand offsets.retention.minutes=10080"
        ),
        "{}",
        run.stdout
    );
    let run = kseg(&["groups", dir, "--offsets-retention-minutes", "60"]);
    assert!(
        run.stdout
            .contains("(now; --at TIME sets another instant)\nand offsets.retention.minutes=60 "),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .lines()
        .all(|l| !l.starts_with("Expiry") || l.chars().count() <= 80));
}
