//! `kseg export`: the dataset read back by real engines (pyarrow, DuckDB: `tests/clients/
//! export_compare.py`) equals `kseg dump-log --json` of the same data record for record, in each
//! format; the transaction column equals `kseg grep --txn-state`; the layout, the manifest, the
//! filters, damage and exit codes, and the input left unwritten (these without Python).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{batch, json_lines, kseg, marker, write, BatchSpec, Rec};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn testdata(p: &str) -> String {
    Path::new(ROOT)
        .join("testdata")
        .join(p)
        .display()
        .to_string()
}

/// A log dir of broker 7 made byte by byte: `crafted-0` (headers none, repeated and with null
/// values; binary, empty and null keys and values; a LogAppendTime batch; a transaction left
/// open) and `damaged-0` (a batch whose checksum fails, then torn bytes at the end).
fn crafted(root: &Path) -> PathBuf {
    let dir = root.join("data");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("meta.properties"),
        "version=1\nnode.id=7\ncluster.id=abc\n",
    )
    .unwrap();
    let binary = [0u8, 255, 1, 0x1b];
    let plain = batch(
        BatchSpec::default(),
        &[
            Rec {
                key: Some(b"k0"),
                value: Some(b"no headers"),
                headers: vec![],
                ts_delta: 0,
            },
            Rec {
                key: Some(&binary),
                value: None,
                headers: vec![("h", Some(b"a")), ("h", Some(b"b")), ("n", None)],
                ts_delta: 5,
            },
            Rec {
                key: None,
                value: Some(&binary),
                headers: vec![("", Some(b""))],
                ts_delta: -3,
            },
            Rec {
                key: Some(b""),
                value: Some(b""),
                headers: vec![],
                ts_delta: 1,
            },
        ],
    );
    let log_append = batch(
        BatchSpec {
            base_offset: 4,
            attributes: 0x08,
            ..Default::default()
        },
        &[crate::common::rec("la", "log append time")],
    );
    let open = batch(
        BatchSpec {
            base_offset: 5,
            attributes: 0x10,
            producer_id: 11,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        },
        &[
            crate::common::rec("o1", "open"),
            crate::common::rec("o2", "open"),
        ],
    );
    write(
        &dir.join("crafted-0/00000000000000000000.log"),
        &[&plain, &log_append, &open],
    );
    // A committed transaction before the open one's start would not change the answer: keep
    // a COMMIT too, for the control record's row.
    let committed = batch(
        BatchSpec {
            base_offset: 0,
            attributes: 0x10,
            producer_id: 12,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        },
        &[crate::common::rec("c", "committed")],
    );
    let mut bad = batch(
        BatchSpec {
            base_offset: 2,
            ..Default::default()
        },
        &[crate::common::rec("x", "checksum fails")],
    );
    // The value's last byte: the checksum fails, the record still reads.
    let last = bad.len() - 1;
    bad[last - 1] ^= 0x20;
    // The header count: the record cannot be read at all.
    let mut unreadable = batch(
        BatchSpec {
            base_offset: 3,
            ..Default::default()
        },
        &[crate::common::rec("y", "unreadable")],
    );
    let last = unreadable.len() - 1;
    unreadable[last] ^= 0x20;
    write(
        &dir.join("damaged-0/00000000000000000000.log"),
        &[
            &committed,
            &marker(1, 12, true, 3),
            &bad,
            &unreadable,
            &[0, 0, 0, 0, 0, 0, 0, 9, 0, 0],
        ],
    );
    dir
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// segment:offset -> state, as `kseg grep --txn-state` finds them.
fn grep_states(paths: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for state in ["committed", "aborted", "open", "non-transactional"] {
        let mut args = vec!["grep", "--json", "--txn-state", state];
        args.extend_from_slice(paths);
        for v in json_lines(&kseg(&args).stdout) {
            if v["type"] == "record" {
                out.insert(
                    format!("{}:{}", v["file"].as_str().unwrap(), v["offset"]),
                    state.to_string(),
                );
            }
        }
    }
    out
}

/// Exports `paths` in each format and has the engines compare each with dump-log.
fn compare_with_engines(paths: &[&str], work: &Path, expect_code: i32) {
    let mut dump_args = vec![
        "dump-log",
        "--json",
        "--deep-iteration",
        "--encoding",
        "base64",
    ];
    dump_args.extend_from_slice(paths);
    let dump = kseg(&dump_args);
    let dump_file = work.join("dump.ndjson");
    std::fs::write(&dump_file, &dump.stdout).unwrap();
    let states = work.join("states.json");
    std::fs::write(&states, serde_json::to_string(&grep_states(paths)).unwrap()).unwrap();
    for format in ["parquet", "arrow", "ndjson"] {
        let out = work.join(format!("out-{format}"));
        let mut args = vec!["export", "--format", format, "--out", out.to_str().unwrap()];
        args.extend_from_slice(paths);
        let run = kseg(&args);
        assert_eq!(run.code, expect_code, "{format}: {}", run.stderr);
        let check = Command::new("python3")
            .arg(Path::new(ROOT).join("tests/clients/export_compare.py"))
            .arg(&dump_file)
            .arg(&out)
            .arg(format)
            .arg(&states)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&check.stdout);
        assert!(
            check.status.success(),
            "{format} over {paths:?}: {}{said}",
            String::from_utf8_lossy(&check.stderr)
        );
        let counts: serde_json::Value = serde_json::from_str(said.trim()).unwrap();
        assert!(
            counts["dumpLog"].as_u64().unwrap() > 0,
            "{paths:?}: no record"
        );
    }
}

#[test]
#[ignore = "needs pyarrow and duckdb: pip install -r tests/clients/requirements.txt"]
fn engines_read_what_dump_log_reads() {
    for m in ["pyarrow", "duckdb"] {
        if !python_has(m) {
            crate::common::tool_missing(m, "the export comparison");
        }
    }
    let t = tempfile::tempdir().unwrap();
    // Every codec, v2 batches with transactions (committed and aborted), control records,
    // legacy v0/v1 messages and wrappers, an internal topic.
    compare_with_engines(&[&testdata("example-datadir")], t.path(), 0);
    let mut python: Vec<String> = std::fs::read_dir(testdata("kafka-python"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".log"))
        .collect();
    python.sort();
    assert!(python.len() >= 14, "the kafka-python fixtures: {python:?}");
    let w = t.path().join("kafka-python");
    std::fs::create_dir_all(&w).unwrap();
    compare_with_engines(
        &python.iter().map(String::as_str).collect::<Vec<_>>(),
        &w,
        0,
    );
    let dir = crafted(t.path());
    let w = t.path().join("crafted");
    std::fs::create_dir_all(&w).unwrap();
    compare_with_engines(&[dir.to_str().unwrap()], &w, 1);
}

/// The rows of an NDJSON export's table.
fn rows(out: &Path, table: &str) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    let mut stack = vec![out.join(table)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ndjson") {
                all.extend(json_lines(&std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    all.sort_by_key(|v| {
        (
            v["topic"].to_string(),
            v["partition"].as_i64(),
            v["offset"].as_i64(),
        )
    });
    all
}

fn export(args: &[&str]) -> crate::common::Run {
    let mut a = vec!["export"];
    a.extend_from_slice(args);
    kseg(&a)
}

#[test]
fn the_dataset_says_what_only_the_disk_knows() {
    let t = tempfile::tempdir().unwrap();
    let dir = crafted(t.path());
    let before = hash_tree(&dir);
    let out = t.path().join("out");
    let run = export(&[
        "--format",
        "ndjson",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    // The damaged partition: exit 1, each damage on stderr as dump-log words it.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("damaged-0/00000000000000000000.log: byte"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("does not match its bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(before, hash_tree(&dir), "the input was written");
    assert!(out
        .join("records/topic=crafted/partition=0/part-00000.ndjson")
        .is_file());
    let records = rows(&out, "records");
    let crafted: Vec<_> = records.iter().filter(|r| r["topic"] == "crafted").collect();
    assert_eq!(crafted.len(), 7);
    let r1 = crafted[1];
    assert_eq!(r1["key"], "AP8BGw==");
    assert!(r1["value"].is_null());
    assert_eq!(
        r1["headers"],
        serde_json::json!([{"key": "h", "value": "YQ=="}, {"key": "h", "value": "Yg=="},
            {"key": "n", "value": null}])
    );
    assert!(
        crafted[0]["headers"].is_null(),
        "no headers is null, as in Spark"
    );
    assert!(crafted[2]["key"].is_null());
    assert_eq!(crafted[3]["key"], "");
    assert_eq!(crafted[1]["broker"], 7);
    assert_eq!(crafted[4]["timestampType"], 1);
    assert_eq!(crafted[5]["kafka"]["transaction"], "open");
    assert_eq!(crafted[5]["kafka"]["producerId"], 11);
    assert_eq!(crafted[0]["kafka"]["transaction"], "non-transactional");
    let damaged: Vec<_> = records.iter().filter(|r| r["topic"] == "damaged").collect();
    assert_eq!(damaged.len(), 3, "{damaged:?}");
    assert_eq!(damaged[0]["kafka"]["transaction"], "committed");
    assert_eq!(damaged[1]["kafka"]["controlType"], "COMMIT");
    assert_eq!(damaged[2]["kafka"]["crcValid"], false);
    let batches = rows(&out, "batches");
    assert_eq!(batches.len(), 7);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("_kseg_export.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["tables"]["records"]["rows"], 10);
    assert_eq!(manifest["complete"], false);
    let kinds: Vec<&str> = manifest["damage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "badChecksum",
            "badChecksum",
            "undecodableBatch",
            "trailingBytes"
        ]
    );
    assert!(manifest["sources"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["broker"] == 7));
}

#[test]
fn grep_filters_choose_the_rows() {
    let t = tempfile::tempdir().unwrap();
    let dir = crafted(t.path());
    let out = t.path().join("committed");
    let run = export(&[
        "--format",
        "ndjson",
        "--committed",
        "--topic",
        "crafted",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A read_committed consumer stops at the open transaction (offset 5).
    let offsets: Vec<i64> = rows(&out, "records")
        .iter()
        .map(|r| r["offset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, [0, 1, 2, 3, 4]);
    let manifest = std::fs::read_to_string(out.join("_kseg_export.json")).unwrap();
    assert!(manifest.contains("--committed"), "{manifest}");
    let out = t.path().join("keyed");
    let run = export(&[
        "--format",
        "ndjson",
        "--header",
        "h=b",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        run.code, 1,
        "the damaged partition is read too: {}",
        run.stderr
    );
    let r = rows(&out, "records");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["offset"], 1);
}

#[test]
fn the_output_is_refused_where_it_would_mix_or_write_into_the_input() {
    let t = tempfile::tempdir().unwrap();
    let dir = crafted(t.path());
    let inside = dir.join("export");
    let run = export(&[dir.to_str().unwrap(), "--out", inside.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("never writes where it reads"),
        "{}",
        run.stderr
    );
    assert!(!inside.exists());
    let full = t.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("x"), "").unwrap();
    let run = export(&[dir.to_str().unwrap(), "--out", full.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("is not empty"), "{}", run.stderr);
}

/// Every file below `dir` with its bytes.
fn hash_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Spark's Kafka connector and the Kafka client its schema class links against, fetched from
/// Maven Central (the local repository caches them).
fn spark_kafka_jars(dir: &Path) -> String {
    let mut jars = Vec::new();
    for (artifact, file) in [
        (
            "org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0",
            "spark-sql-kafka-0-10_2.13-4.2.0.jar",
        ),
        (
            "org.apache.kafka:kafka-clients:3.9.1",
            "kafka-clients-3.9.1.jar",
        ),
    ] {
        let run = Command::new("mvn")
            .args(["-q", "dependency:copy", &format!("-Dartifact={artifact}")])
            .arg(format!("-DoutputDirectory={}", dir.display()))
            .output()
            .unwrap_or_else(|e| panic!("mvn is not installed ({e}): .ci/run needs Maven"));
        assert!(
            run.status.success(),
            "mvn dependency:copy {artifact}: {}",
            String::from_utf8_lossy(&run.stdout)
        );
        jars.push(dir.join(file).display().to_string());
    }
    jars.join(":")
}

#[test]
#[ignore = "needs pyspark (pip install -r tests/clients/requirements.txt), a JDK and Maven"]
fn spark_reads_the_records_table_with_its_kafka_source_schema() {
    if !python_has("pyspark") {
        crate::common::tool_missing("pyspark", "the Spark schema check");
    }
    let t = tempfile::tempdir().unwrap();
    let jars = spark_kafka_jars(&t.path().join("jars"));
    let out = t.path().join("out");
    let run = export(&[&testdata("example-datadir"), "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let check = Command::new("python3")
        .arg(Path::new(ROOT).join("tests/clients/export_spark.py"))
        .arg(&out)
        .arg(&jars)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{}{said}",
        String::from_utf8_lossy(&check.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(said.lines().last().unwrap()).unwrap();
    assert_eq!(v["rows"], v["manifestRows"], "{v}");
    assert_eq!(v["rows"], 295);
    assert_eq!(v["extra"], serde_json::json!(["kafka", "broker"]));
}

#[test]
fn the_offsets_table_is_what_groups_history_lists() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let data = testdata("example-datadir");
    let run = export(&["--format", "ndjson", &data, "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let history = json_lines(&kseg(&["groups", "--history", "--json", &data]).stdout);
    let want: Vec<(String, String, i64, i64, i64, i64)> = history
        .iter()
        .filter(|v| v["type"] == "commit")
        .map(|v| {
            (
                v["group"].as_str().unwrap().to_string(),
                v["topic"].as_str().unwrap().to_string(),
                v["partition"].as_i64().unwrap(),
                v["offset"].as_i64().unwrap_or(-1),
                v["commitTimestamp"].as_i64().unwrap_or(-1) * 1000,
                v["recordOffset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(want.len() >= 10, "{want:?}");
    let micros = |v: &serde_json::Value| {
        v.as_str().map_or(-1000, |s| {
            s.parse::<jiff::Timestamp>().unwrap().as_microsecond()
        })
    };
    let mut got: Vec<_> = rows(&out, "offsets")
        .iter()
        .map(|v| {
            (
                v["group"].as_str().unwrap().to_string(),
                v["topic"].as_str().unwrap().to_string(),
                v["partition"].as_i64().unwrap(),
                v["offset"].as_i64().unwrap_or(-1),
                micros(&v["commitTimestamp"]),
                v["recordOffset"].as_i64().unwrap(),
            )
        })
        .collect();
    got.sort_by_key(|r| r.5);
    assert_eq!(got, want);
}
