//! dump-log and verify-index report only what the data holds: no gap invented by an offset
//! filter, `--max-messages` counted per file, a preallocated index's zero slot explained, and an
//! index entry at the end of the log not called past it.

use crate::common::*;
use std::path::{Path, PathBuf};

/// Single-record batches at the given offsets, as one segment based at `base`.
fn segment(dir: &Path, base: i64, offsets: &[i64]) -> PathBuf {
    let batches: Vec<Vec<u8>> = offsets
        .iter()
        .map(|&o| {
            batch(
                BatchSpec {
                    base_offset: o,
                    base_timestamp: 1_700_000_000_000 + o,
                    ..Default::default()
                },
                &[rec("k", "value")],
            )
        })
        .collect();
    let refs: Vec<&[u8]> = batches.iter().map(|b| b.as_slice()).collect();
    let path = dir.join(format!("t-0/{base:020}.log"));
    write(&path, &refs);
    path
}

#[test]
fn from_offset_does_not_invent_a_gap() {
    let t = tempfile::tempdir().unwrap();
    let p = segment(t.path(), 0, &(0..20).collect::<Vec<_>>());
    let p = p.to_str().unwrap();
    let r = kseg(&["dump-log", p, "--from-offset", "10", "--deep-iteration"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("| offset: 10 "), "{}", r.stdout);
    assert!(!r.stdout.contains("| offset: 9 "));
    assert!(!r.stderr.contains("Non-consecutive"), "{}", r.stderr);
    let r = kseg(&[
        "dump-log",
        p,
        "--from-offset",
        "10",
        "--to-offset",
        "12",
        "--deep-iteration",
        "--json",
    ]);
    let lines = json_lines(&r.stdout);
    assert_eq!(of_type(&lines, "record").len(), 3);
    assert!(of_type(&lines, "nonConsecutive").is_empty(), "{}", r.stdout);
}

#[test]
fn a_real_gap_after_the_filter_is_still_reported() {
    let t = tempfile::tempdir().unwrap();
    let p = segment(t.path(), 0, &[0, 1, 2, 3, 7, 8]);
    let p = p.to_str().unwrap();
    let r = kseg(&["dump-log", p, "--from-offset", "2", "--deep-iteration"]);
    assert!(
        r.stderr.contains("Non-consecutive offsets in"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("  3 is followed by 7"), "{}", r.stderr);
    assert_eq!(
        r.stderr.matches("is followed by").count(),
        1,
        "{}",
        r.stderr
    );
    // The gap starts before the filter: the data holds 3 next to 7, so that is what is said.
    let r = kseg(&[
        "dump-log",
        p,
        "--from-offset",
        "5",
        "--deep-iteration",
        "--json",
    ]);
    let lines = json_lines(&r.stdout);
    let gaps = of_type(&lines, "nonConsecutive");
    assert_eq!(gaps.len(), 1, "{}", r.stdout);
    assert_eq!(
        (gaps[0]["previous"].as_i64(), gaps[0]["offset"].as_i64()),
        (Some(3), Some(7))
    );
}

#[test]
fn max_messages_counts_per_file() {
    let t = tempfile::tempdir().unwrap();
    segment(t.path(), 0, &[0, 1, 2]);
    segment(t.path(), 3, &[3, 4, 5]);
    let dir = t.path().join("t-0");
    let r = kseg(&[
        "dump-log",
        dir.to_str().unwrap(),
        "--deep-iteration",
        "--max-messages",
        "2",
        "--json",
    ]);
    let lines = json_lines(&r.stdout);
    let offsets: Vec<i64> = of_type(&lines, "record")
        .iter()
        .map(|r| r["offset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, vec![0, 1, 3, 4]);
    let r = kseg(&["dump-log", dir.to_str().unwrap(), "--max-messages", "1"]);
    assert_eq!(r.stdout.matches("baseOffset:").count(), 2, "{}", r.stdout);
}

#[test]
fn a_preallocated_index_keeps_kafkas_mismatch_and_gets_a_note() {
    let t = tempfile::tempdir().unwrap();
    let two = batch(BatchSpec::default(), &[rec("a", "1"), rec("b", "2")]);
    let log = t.path().join("t-0/00000000000000000000.log");
    write(&log, &[&two]);
    let index = log.with_extension("index");
    std::fs::write(&index, vec![0u8; 8 * 1000]).unwrap();
    let r = kseg(&["dump-log", index.to_str().unwrap()]);
    // Kafka's lines, unchanged.
    assert!(r.stderr.contains("Mismatches in :"), "{}", r.stderr);
    assert!(
        r.stderr.contains("  Index offset: 0, log offset: 1"),
        "{}",
        r.stderr
    );
    // kseg's own line after them.
    let note = r
        .stderr
        .lines()
        .find(|l| l.starts_with("kseg: note: "))
        .unwrap_or_else(|| panic!("no note: {}", r.stderr));
    assert!(
        note.contains("a preallocated active index (8000 bytes, zero-filled, 0 real entries)"),
        "{note}"
    );
    let at_mismatch = r.stderr.find("Index offset: 0").unwrap();
    assert!(r.stderr.find("kseg: note:").unwrap() > at_mismatch);
    let r = kseg(&["dump-log", index.to_str().unwrap(), "--json"]);
    let lines = json_lines(&r.stdout);
    assert_eq!(of_type(&lines, "indexMismatch").len(), 1);
    let notes = of_type(&lines, "note");
    assert_eq!(notes.len(), 1);
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("preallocated active index"));
    // An index with real entries gets no note.
    let mut real = Vec::new();
    real.extend_from_slice(&1i32.to_be_bytes());
    real.extend_from_slice(&0u32.to_be_bytes());
    real.extend(vec![0u8; 80]);
    std::fs::write(&index, real).unwrap();
    let r = kseg(&["dump-log", index.to_str().unwrap()]);
    assert!(!r.stderr.contains("kseg: note"), "{}", r.stderr);
}

#[test]
fn an_index_entry_at_the_log_end_is_not_past_it() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    std::fs::write(t.path().join(".kafka_cleanshutdown"), "").unwrap();
    let log = segment(t.path(), 0, &[0, 1, 2]);
    let len = std::fs::metadata(&log).unwrap().len() as u32;
    let mut idx = Vec::new();
    idx.extend_from_slice(&2i32.to_be_bytes());
    idx.extend_from_slice(&len.to_be_bytes());
    std::fs::write(log.with_extension("index"), idx).unwrap();
    let r = kseg(&["verify-index", t.path().to_str().unwrap(), "--json"]);
    let lines = json_lines(&r.stdout);
    let beyond: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|v| v["check"] == "offset-index-beyond-log")
        .collect();
    assert_eq!(beyond.len(), 1, "{}", r.stdout);
    let msg = beyond[0]["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("position {len}, the valid end of the log")),
        "{msg}"
    );
    assert!(!msg.contains("past"), "{msg}");
}
