//! verify-index on crash states built byte by byte: each is reported with the right check id,
//! severity, position and offset; normal crash leftovers are never errors.

use crate::common;
use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Seg {
    batches: Vec<Vec<u8>>,
}

impl Seg {
    /// `n` single-record batches from `base`, timestamps increasing.
    fn new(base: i64, n: i64) -> Seg {
        let batches = (0..n)
            .map(|i| {
                batch(
                    BatchSpec {
                        base_offset: base + i,
                        base_timestamp: 1_700_000_000_000 + (base + i) * 10,
                        ..Default::default()
                    },
                    &[rec("key", "a value long enough to matter for the index")],
                )
            })
            .collect();
        Seg { batches }
    }
    fn positions(&self) -> Vec<u32> {
        let mut p = 0u32;
        self.batches
            .iter()
            .map(|b| {
                let at = p;
                p += b.len() as u32;
                at
            })
            .collect()
    }
    fn bytes(&self) -> Vec<u8> {
        self.batches.concat()
    }
}

fn offset_index(base: i64, entries: &[(i64, u32)], zero_slots: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for (o, p) in entries {
        v.extend_from_slice(&((o - base) as i32).to_be_bytes());
        v.extend_from_slice(&p.to_be_bytes());
    }
    v.extend(vec![0u8; zero_slots * 8]);
    v
}

fn time_index(base: i64, entries: &[(i64, i64)], zero_slots: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for (t, o) in entries {
        v.extend_from_slice(&t.to_be_bytes());
        v.extend_from_slice(&((o - base) as i32).to_be_bytes());
    }
    v.extend(vec![0u8; zero_slots * 12]);
    v
}

/// A log dir with one partition `t-0` of the given segments and a clean-shutdown marker.
fn log_dir(segs: &[(i64, &Seg)], clean: bool) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let part = t.path().join("t-0");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(t.path().join("meta.properties"), "version=1\nnode.id=1\n").unwrap();
    if clean {
        std::fs::write(
            t.path().join(".kafka_cleanshutdown"),
            r#"{"version":0,"brokerEpoch":1}"#,
        )
        .unwrap();
    }
    std::fs::write(
        t.path().join("recovery-point-offset-checkpoint"),
        "0\n1\nt 0 0\n",
    )
    .unwrap();
    // The batches all carry leader epoch 0.
    std::fs::write(part.join("leader-epoch-checkpoint"), "0\n1\n0 0\n").unwrap();
    for (base, seg) in segs {
        let name = format!("{base:020}");
        std::fs::write(part.join(format!("{name}.log")), seg.bytes()).unwrap();
        // Per-batch entries for every batch but the first, and a time entry for each.
        let pos = seg.positions();
        let idx: Vec<(i64, u32)> = (1..seg.batches.len())
            .map(|i| (base + i as i64, pos[i]))
            .collect();
        let tim: Vec<(i64, i64)> = (1..seg.batches.len())
            .map(|i| (1_700_000_000_000 + (base + i as i64) * 10, base + i as i64))
            .collect();
        std::fs::write(
            part.join(format!("{name}.index")),
            offset_index(*base, &idx, 0),
        )
        .unwrap();
        std::fs::write(
            part.join(format!("{name}.timeindex")),
            time_index(*base, &tim, 0),
        )
        .unwrap();
    }
    let root = t.path().to_path_buf();
    (t, root)
}

fn verify(path: &Path) -> (i32, Vec<Value>) {
    let r = kseg(&["verify-index", "--json", path.to_str().unwrap()]);
    (r.code, json_lines(&r.stdout))
}

fn findings<'a>(lines: &'a [Value], check: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|v| v["type"] == "finding" && v["check"] == check)
        .collect()
}

fn errors(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|v| v["type"] == "finding" && v["severity"] == "error")
        .collect()
}

fn part(root: &Path, name: &str) -> PathBuf {
    root.join("t-0").join(name)
}

#[test]
fn clean_partition_has_no_findings() {
    let s = Seg::new(0, 10);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    assert!(lines.iter().all(|v| v["type"] != "finding"), "{lines:?}");
    assert_eq!(lines.last().unwrap()["errors"], 0);
}

#[test]
fn torn_tail_in_active_segment_after_a_crash_is_a_warning_and_recovery_truncates() {
    let mut s = Seg::new(0, 10);
    let pos = s.positions();
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let (_t, root) = log_dir(&[(0, &s)], false);
    let (code, lines) = verify(&root);
    let torn = findings(&lines, "torn-tail");
    assert_eq!(torn.len(), 1);
    assert_eq!(torn[0]["severity"], "warning");
    assert_eq!(torn[0]["position"], pos[9]);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["truncatePosition"], pos[9]);
    assert_eq!(rec["droppedBatches"], 0);
    assert!(rec["droppedBytes"].as_u64().unwrap() > 0);
    assert!(!findings(&lines, "no-clean-shutdown").is_empty());
}

#[test]
fn torn_tail_in_a_sealed_segment_is_an_error() {
    let mut s = Seg::new(0, 5);
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let s2 = Seg::new(5, 3);
    let (_t, root) = log_dir(&[(0, &s), (5, &s2)], true);
    let (code, lines) = verify(&root);
    assert_eq!(findings(&lines, "torn-tail")[0]["severity"], "error");
    assert_eq!(code, 1);
}

#[test]
fn zero_filled_log_tail() {
    let mut s = Seg::new(0, 4);
    let len = s.bytes().len();
    s.batches.push(vec![0u8; 8192]);
    let (_t, root) = log_dir(&[(0, &s)], false);
    let (_code, lines) = verify(&root);
    let z = findings(&lines, "zero-tail");
    assert_eq!(z.len(), 1);
    assert_eq!(z[0]["position"], len);
    assert_eq!(z[0]["severity"], "info");
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
}

#[test]
fn bit_flip_in_a_middle_batch_value() {
    let mut s = Seg::new(100, 6);
    let pos = s.positions();
    let b = &mut s.batches[3];
    let at = b.len() - 10;
    b[at] ^= 0x04;
    let (_t, root) = log_dir(&[(100, &s)], true);
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let crc = findings(&lines, "crc-mismatch");
    assert_eq!(crc.len(), 1);
    assert_eq!(crc[0]["position"], pos[3]);
    assert_eq!(crc[0]["offset"], 103);
    assert_eq!(crc[0]["severity"], "error");
}

#[test]
fn index_only_skips_crc_work() {
    let mut s = Seg::new(100, 6);
    let b = &mut s.batches[3];
    let at = b.len() - 10;
    b[at] ^= 0x04;
    let (_t, root) = log_dir(&[(100, &s)], true);
    let r = kseg(&[
        "verify-index",
        "--json",
        "--index-only",
        root.to_str().unwrap(),
    ]);
    let lines = json_lines(&r.stdout);
    assert!(findings(&lines, "crc-mismatch").is_empty());
    assert_eq!(r.code, 0);
}

#[test]
fn index_entry_moved_mid_batch() {
    let s = Seg::new(0, 6);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let pos = s.positions();
    let idx = offset_index(0, &[(2, pos[2]), (4, pos[4] + 5)], 0);
    std::fs::write(part(&root, "00000000000000000000.index"), idx).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let m = findings(&lines, "offset-index-mismatch");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0]["offset"], 4);
    assert_eq!(m[0]["severity"], "error");
}

#[test]
fn decreasing_time_index_entry() {
    let s = Seg::new(0, 6);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let tim = time_index(0, &[(1_700_000_000_020, 2), (1_700_000_000_010, 4)], 0);
    std::fs::write(part(&root, "00000000000000000000.timeindex"), tim).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let o = findings(&lines, "time-index-order");
    assert_eq!(o.len(), 1);
    assert_eq!(o[0]["offset"], 4);
    assert_eq!(o[0]["position"], 12);
}

#[test]
fn wrong_base_offset_in_the_file_name() {
    let s = Seg::new(0, 3);
    let (_t, root) = log_dir(&[(0, &s)], true);
    for ext in ["log", "index", "timeindex"] {
        std::fs::rename(
            part(&root, &format!("00000000000000000000.{ext}")),
            part(&root, &format!("00000000000000000002.{ext}")),
        )
        .unwrap();
    }
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let m = findings(&lines, "base-offset-mismatch");
    assert_eq!(m[0]["severity"], "error");
    assert_eq!(m[0]["offset"], 0);
}

#[test]
fn missing_index_of_a_sealed_segment_is_a_warning() {
    let s = Seg::new(0, 3);
    let s2 = Seg::new(3, 3);
    let (_t, root) = log_dir(&[(0, &s), (3, &s2)], true);
    std::fs::remove_file(part(&root, "00000000000000000000.index")).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    let m = findings(&lines, "missing-index");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["severity"], "warning");
    // Even after a clean shutdown Kafka recovers that segment: both its indexes are rebuilt.
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    let rebuilt: Vec<&str> = rec["rebuiltIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(rebuilt.len(), 2, "{rebuilt:?}");
    assert!(rebuilt[0].ends_with("00000000000000000000.log (offset index, missing)"));
    assert!(rebuilt[1].ends_with("00000000000000000000.timeindex"));
}

#[test]
fn a_missing_time_index_beside_an_index_is_created_empty_not_rebuilt() {
    let s = Seg::new(0, 3);
    let s2 = Seg::new(3, 3);
    let (_t, root) = log_dir(&[(0, &s), (3, &s2)], true);
    std::fs::remove_file(part(&root, "00000000000000000000.timeindex")).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    let m = findings(&lines, "missing-index");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["severity"], "warning");
    assert!(m[0]["message"].as_str().unwrap().contains("mtime"), "{m:?}");
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["rebuiltIndexes"].as_array().unwrap().len(), 0);
}

#[test]
fn preallocated_zero_filled_indexes_of_the_active_segment_are_info() {
    let s = Seg::new(0, 6);
    let (_t, root) = log_dir(&[(0, &s)], false);
    let pos = s.positions();
    // 10 MiB-style preallocation, scaled down: real entries then a long zero tail.
    let idx = offset_index(0, &[(3, pos[3])], 4000);
    let tim = time_index(0, &[(1_700_000_000_030, 3)], 3000);
    std::fs::write(part(&root, "00000000000000000000.index"), idx).unwrap();
    std::fs::write(part(&root, "00000000000000000000.timeindex"), tim).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let p = findings(&lines, "index-preallocated");
    assert_eq!(p.len(), 2);
    assert!(p.iter().all(|f| f["severity"] == "info"));
    assert!(p[0]["message"].as_str().unwrap().contains("1 real entries"));
}

#[test]
fn old_broker_multi_batch_append_index_is_valid() {
    // Appends of 3 batches each: the entry holds the append's last offset at the position of
    // its first batch, as brokers before 3.9.1/4.0.1/4.1 (and followers) wrote it.
    let s = Seg::new(0, 9);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let pos = s.positions();
    let idx = offset_index(0, &[(5, pos[3]), (8, pos[6])], 0);
    let tim = time_index(0, &[(1_700_000_000_050, 5), (1_700_000_000_080, 8)], 0);
    std::fs::write(part(&root, "00000000000000000000.index"), idx).unwrap();
    std::fs::write(part(&root, "00000000000000000000.timeindex"), tim).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let m = findings(&lines, "offset-index-mismatch");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["severity"], "info");
}

#[test]
fn index_entry_beyond_the_log() {
    let s = Seg::new(0, 4);
    let s2 = Seg::new(4, 2);
    let (_t, root) = log_dir(&[(0, &s), (4, &s2)], true);
    let idx = offset_index(0, &[(9, 100_000)], 0);
    std::fs::write(part(&root, "00000000000000000000.index"), idx).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(findings(&lines, "offset-index-beyond-log")[0]["offset"], 9);
}

#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn clean_real_data_sets_have_no_errors() {
    let corpus = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/real"
    ));
    if !corpus.exists() {
        common::corpus_missing("the clean real data sets check");
        return;
    }
    for entry in std::fs::read_dir(corpus).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !path.is_dir() || name.contains("tareaModulo5") || name.contains("video_ingestion") {
            continue;
        }
        let (code, lines) = verify(&path);
        assert!(errors(&lines).is_empty(), "{name}: {:?}", errors(&lines));
        assert_eq!(code, 0, "{name}");
    }
}

#[test]
fn all_zero_preallocated_indexes_are_not_entries() {
    // A crashed broker's active segment with one batch: nothing was ever indexed.
    let s = Seg::new(0, 1);
    let (_t, root) = log_dir(&[(0, &s)], false);
    std::fs::write(
        part(&root, "00000000000000000000.index"),
        vec![0u8; 8 * 5000],
    )
    .unwrap();
    std::fs::write(
        part(&root, "00000000000000000000.timeindex"),
        vec![0u8; 12 * 5000],
    )
    .unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    let bad: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"] == "finding" && v["severity"] != "info")
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    assert!(findings(&lines, "index-preallocated")[0]["message"]
        .as_str()
        .unwrap()
        .contains("0 real entries"));
}

#[test]
fn a_partition_dir_alone_is_read_with_its_log_dir_state() {
    let s = Seg::new(0, 6);
    let (_t, root) = log_dir(&[(0, &s)], false);
    let pos = s.positions();
    std::fs::write(
        part(&root, "00000000000000000000.index"),
        offset_index(0, &[(3, pos[3] + 1)], 0),
    )
    .unwrap();
    // No clean-shutdown marker in the parent: the segment is recovered, its index rebuilt.
    let r = kseg(&["verify-index", "--json", root.join("t-0").to_str().unwrap()]);
    let lines = json_lines(&r.stdout);
    assert_eq!(
        findings(&lines, "offset-index-mismatch")[0]["severity"],
        "warning"
    );
    assert_eq!(r.code, 0);
}

/// Trimmed indexes with no entries (valid for small segments).
fn empty_indexes(root: &Path) {
    std::fs::write(part(root, "00000000000000000000.index"), b"").unwrap();
    std::fs::write(part(root, "00000000000000000000.timeindex"), b"").unwrap();
}

#[test]
fn an_empty_aborted_transaction_needs_no_txnindex_entry() {
    let mut s = Seg::new(0, 2);
    s.batches.push(marker(2, 7, false, 0));
    let (_t, root) = log_dir(&[(0, &s)], true);
    empty_indexes(&root);
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    assert_eq!(
        findings(&lines, "txn-index-mismatch")[0]["severity"],
        "info"
    );
    // With transactional data before the marker, the missing entry is an error.
    let mut s = Seg::new(0, 0);
    s.batches.push(batch(
        BatchSpec {
            base_offset: 0,
            attributes: 0x10,
            producer_id: 7,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        },
        &[rec("k", "v")],
    ));
    s.batches.push(marker(1, 7, false, 0));
    let (_t2, root) = log_dir(&[(0, &s)], true);
    empty_indexes(&root);
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&lines, "txn-index-mismatch")[0]["severity"],
        "error"
    );
}

#[test]
fn a_bad_crc_batch_before_a_zero_tail_is_still_a_batch() {
    let mut s = Seg::new(0, 3);
    let b = &mut s.batches[2];
    let at = b.len() - 8;
    b[at] ^= 0x01;
    s.batches.push(vec![0u8; 100]);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let (_code, lines) = verify(&root);
    assert_eq!(findings(&lines, "crc-mismatch").len(), 1);
    assert_eq!(
        findings(&lines, "zero-tail")[0]["position"],
        s.batches[..3].iter().map(|b| b.len()).sum::<usize>()
    );
    assert!(findings(&lines, "invalid-bytes").is_empty());
}

#[test]
fn a_garbage_index_gets_a_bounded_number_of_findings() {
    let s = Seg::new(0, 4);
    let (_t, root) = log_dir(&[(0, &s)], true);
    std::fs::write(
        part(&root, "00000000000000000000.index"),
        vec![0xffu8; 8 * 20_000],
    )
    .unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let mismatches = findings(&lines, "offset-index-mismatch");
    let beyond = findings(&lines, "offset-index-beyond-log");
    assert!(
        mismatches.len() + beyond.len() <= 202,
        "{} findings",
        mismatches.len() + beyond.len()
    );
    let summary: Vec<&&Value> = beyond
        .iter()
        .chain(mismatches.iter())
        .filter(|f| f["message"].as_str().unwrap().contains("more"))
        .collect();
    assert!(!summary.is_empty(), "the cut-off is said");
}

#[test]
fn a_future_magic_is_a_warning_not_corruption() {
    let mut s = Seg::new(0, 3);
    let b = &mut s.batches[1];
    b[16] = 3;
    let crc = crc32c::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    let (_t, root) = log_dir(&[(0, &s)], false);
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let m = findings(&lines, "unknown-magic");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["offset"], 1);
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert!(
        rec["truncatePosition"].is_null(),
        "Kafka's recovery keeps it: {rec}"
    );
}

/// Offsets 0..99, then a rewritten stretch 50..149, then a second segment from 150.
fn rewound_segments() -> (Seg, Seg) {
    let mut first = Seg::new(0, 100);
    first.batches.extend(Seg::new(50, 100).batches);
    (first, Seg::new(150, 5))
}

#[test]
fn offsets_that_stop_increasing_at_an_index_point_empty_the_segment_in_recovery() {
    let (first, second) = rewound_segments();
    let (_t, root) = log_dir(&[(0, &first), (150, &second)], false);
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    let empties = findings(&lines, "recovery-empties-segment");
    assert_eq!(empties.len(), 1, "{lines:?}");
    assert_eq!(empties[0]["severity"], "error");
    // The first index point inside the rewound stretch: the batch ends at an offset not above
    // the previous entry's.
    let offset = empties[0]["offset"].as_i64().unwrap();
    assert!((50..100).contains(&offset), "{offset}");
    assert!(!findings(&lines, "offset-order").is_empty());
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["truncatePosition"], 0);
    assert_eq!(rec["droppedBatches"], 205);
    assert_eq!(rec["deletedSegments"].as_array().unwrap().len(), 1);

    // A larger index interval puts no index point inside the rewound stretch: Kafka's recovery
    // passes it (the offset-order error stays).
    let r = kseg(&[
        "verify-index",
        "--json",
        "--index-interval-bytes",
        "100000000",
        root.to_str().unwrap(),
    ]);
    let lines = json_lines(&r.stdout);
    assert!(findings(&lines, "recovery-empties-segment").is_empty());
    assert!(!findings(&lines, "offset-order").is_empty());
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["truncatePosition"], Value::Null);
}

#[test]
fn recover_empties_a_segment_whose_offsets_stop_increasing_at_an_index_point() {
    let (first, second) = rewound_segments();
    let (t, root) = log_dir(&[(0, &first), (150, &second)], false);
    let out = t.path().join("copy").join("t-0");
    let r = kseg(&[
        "recover",
        root.join("t-0").to_str().unwrap(),
        "--out",
        t.path().join("copy").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    assert_eq!(lines[0]["action"], "truncated", "{lines:?}");
    assert_eq!(lines[0]["truncatePosition"], 0);
    assert_eq!(lines[1]["action"], "deleted");
    assert_eq!(
        std::fs::metadata(out.join("00000000000000000000.log"))
            .unwrap()
            .len(),
        0
    );
    // --salvage keeps the batches whose offsets still advance: 0..99, then 100..149, then the
    // second segment.
    let out = t.path().join("salvaged").join("t-0");
    let r = kseg(&[
        "recover",
        root.join("t-0").to_str().unwrap(),
        "--out",
        t.path().join("salvaged").to_str().unwrap(),
        "--salvage",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dump = kseg(&["dump-log", "--json", out.to_str().unwrap()]);
    let offsets: Vec<i64> = json_lines(&dump.stdout)
        .iter()
        .filter(|v| v["type"] == "batch")
        .map(|v| v["baseOffset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, (0..155).collect::<Vec<i64>>());
}

/// A crash in the middle of a compaction: the cleaned segment waits as `.swap` beside the
/// segments it replaces, with a stray `.deleted` file and an orphan index. Kafka's load deletes
/// the replaced segments and the strays, renames the swap into place — and the checks run on
/// that result.
#[test]
fn an_interrupted_compaction_is_completed_by_the_load_and_checked_as_such() {
    let first = Seg::new(0, 10);
    let second = Seg::new(10, 10);
    let (_t, root) = log_dir(&[(0, &first), (10, &second)], true);
    let p = root.join("t-0");
    // The cleaner's output: every other offset of both segments, no indexes yet.
    let cleaned = Seg {
        batches: (0..20)
            .filter(|o| o % 2 == 1)
            .map(|o| {
                batch(
                    BatchSpec {
                        base_offset: o,
                        base_timestamp: 1_700_000_000_000 + o * 10,
                        ..Default::default()
                    },
                    &[rec("key", "a value long enough to matter for the index")],
                )
            })
            .collect(),
    };
    std::fs::write(p.join("00000000000000000000.log.swap"), cleaned.bytes()).unwrap();
    std::fs::write(p.join("00000000000000000030.index"), [0u8; 8]).unwrap();
    std::fs::write(p.join("00000000000000000040.log.deleted"), b"gone").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let cleanup = findings(&lines, "load-cleanup");
    let about = |suffix: &str| {
        cleanup
            .iter()
            .filter(|f| f["file"].as_str().unwrap().ends_with(suffix))
            .count()
    };
    // Both old segments with their indexes (6 files) replaced, the swap renamed, the stray and
    // the orphan deleted.
    assert_eq!(cleanup.len(), 9, "{cleanup:?}");
    assert_eq!(about("00000000000000000010.log"), 1);
    assert_eq!(about("00000000000000000000.log.swap"), 1);
    assert_eq!(about("00000000000000000030.index"), 1);
    assert_eq!(about("00000000000000000040.log.deleted"), 1);
    assert!(cleanup
        .iter()
        .filter(|f| f["file"].as_str().unwrap().contains(".log"))
        .all(|f| f["severity"] == "warning" || f["file"].as_str().unwrap().ends_with(".deleted")));
    // The swapped-in segment is what gets checked. Its .index is created empty by the load's
    // first pass (LogSegment.readNextOffset on the swap segment creates `.index.swap`, renamed
    // with the log), so it is not recovered for a missing index; its .timeindex is created empty.
    let missing = findings(&lines, "missing-index");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("00000000000000000000.log.swap"));
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["loadActions"].as_array().unwrap().len(), 9);
}

/// `recover` starts from the same load result: the swapped-in segment under its final name, the
/// replaced segments and the strays left out.
#[test]
fn recover_copies_the_files_as_the_load_leaves_them() {
    let first = Seg::new(0, 10);
    let second = Seg::new(10, 10);
    let (t, root) = log_dir(&[(0, &first), (10, &second)], false);
    let p = root.join("t-0");
    let cleaned = Seg {
        batches: second.batches[5..].to_vec(),
    };
    std::fs::write(p.join("00000000000000000010.log.swap"), cleaned.bytes()).unwrap();
    std::fs::write(p.join("00000000000000000099.timeindex"), [0u8; 12]).unwrap();
    let out = t.path().join("copy").join(p.file_name().unwrap());
    let r = kseg(&[
        "recover",
        p.to_str().unwrap(),
        "--out",
        t.path().join("copy").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = json_lines(&r.stdout);
    let cleanups = lines
        .iter()
        .filter(|v| v["action"] == "load-cleanup")
        .count();
    // 10.log, 10.index, 10.timeindex replaced; the swap renamed; the orphan time index.
    assert_eq!(cleanups, 5, "{lines:?}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("000"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "00000000000000000000.index",
            "00000000000000000000.log",
            "00000000000000000000.timeindex",
            "00000000000000000010.index",
            "00000000000000000010.log",
            "00000000000000000010.snapshot",
            "00000000000000000010.timeindex",
            "00000000000000000020.snapshot"
        ]
    );
    assert_eq!(
        std::fs::read(out.join("00000000000000000010.log")).unwrap(),
        cleaned.bytes()
    );
    // The producer snapshots Kafka's recovery writes: at the end of each recovered segment
    // (LogLoader.recoverSegment); 20, a stray above the last base, stays (removeStraySnapshots).
    // No producer id in the data: both hold no entry.
    for o in [10, 20] {
        assert_eq!(
            std::fs::read(out.join(format!("{o:020}.snapshot"))).unwrap(),
            [0, 1, 0x48, 0x67, 0x4b, 0xc7, 0, 0, 0, 0]
        );
    }
}

/// Segments whose batches start epochs 0, 3 and 5 (at offsets 0, 4, 8).
fn epoch_segments() -> (Seg, Seg) {
    let epoch_of = |o: i64| match o {
        0..=3 => 0,
        4..=7 => 3,
        _ => 5,
    };
    let make = |base: i64, n: i64| Seg {
        batches: (base..base + n)
            .map(|o| {
                batch(
                    BatchSpec {
                        base_offset: o,
                        leader_epoch: epoch_of(o),
                        base_timestamp: 1_700_000_000_000 + o * 10,
                        ..Default::default()
                    },
                    &[rec("key", "a value long enough to matter for the index")],
                )
            })
            .collect(),
    };
    (make(0, 6), make(6, 6))
}

#[test]
fn the_leader_epoch_checkpoint_is_checked_against_the_batches() {
    let (a, b) = epoch_segments();
    let (_t, root) = log_dir(&[(0, &a), (6, &b)], true);
    let checkpoint = part(&root, "leader-epoch-checkpoint");
    // What Kafka writes: no findings.
    std::fs::write(&checkpoint, "0\n3\n0 0\n3 4\n5 8\n").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    assert!(findings(&lines, "leader-epoch").is_empty(), "{lines:?}");

    // Epoch 3 starts too late in the checkpoint, epoch 5 is missing, an entry past the log end.
    std::fs::write(&checkpoint, "0\n3\n0 0\n3 6\n9 40\n").unwrap();
    let (_, lines) = verify(&root);
    let f = findings(&lines, "leader-epoch");
    let warning_at = |offset: i64| {
        f.iter()
            .any(|v| v["severity"] == "warning" && v["offset"] == offset)
    };
    assert!(warning_at(4), "{f:?}");
    assert!(warning_at(8), "{f:?}");
    assert!(
        f.iter().any(|v| v["severity"] == "info"
            && v["message"].as_str().unwrap().contains("log end offset")),
        "{f:?}"
    );

    // Out of order, then unreadable.
    std::fs::write(&checkpoint, "0\n3\n0 0\n5 8\n3 4\n").unwrap();
    let (_, lines) = verify(&root);
    assert!(findings(&lines, "leader-epoch")
        .iter()
        .any(|v| v["message"].as_str().unwrap().contains("does not follow")));
    std::fs::write(&checkpoint, "0\n3\n0 0\n").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(findings(&lines, "leader-epoch")[0]["severity"], "error");

    // Missing after a clean shutdown: the epochs of the batches are unknown to the broker.
    std::fs::remove_file(&checkpoint).unwrap();
    let (_, lines) = verify(&root);
    assert_eq!(findings(&lines, "leader-epoch")[0]["severity"], "warning");
}

#[test]
fn epochs_that_go_back_in_the_log_are_reported() {
    let (a, mut b) = epoch_segments();
    b.batches[3] = batch(
        BatchSpec {
            base_offset: 9,
            leader_epoch: 1,
            base_timestamp: 1_700_000_000_090,
            ..Default::default()
        },
        &[rec("key", "a value long enough to matter for the index")],
    );
    let (_t, root) = log_dir(&[(0, &a), (6, &b)], true);
    std::fs::write(
        part(&root, "leader-epoch-checkpoint"),
        "0\n3\n0 0\n3 4\n5 8\n",
    )
    .unwrap();
    let (_, lines) = verify(&root);
    let f = findings(&lines, "leader-epoch");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0]["message"]
        .as_str()
        .unwrap()
        .contains("partitionLeaderEpoch 1 after batches of epoch 5"));
}

/// Kafka up to 1.1 indexed the first offset of each append; such entries are valid lower
/// bounds and must not be errors, even after a clean shutdown.
#[test]
fn indexes_written_by_kafka_up_to_1_1_are_valid() {
    let batches: Vec<Vec<u8>> = (0..6)
        .map(|i| {
            batch(
                BatchSpec {
                    base_offset: i * 3,
                    base_timestamp: 1_700_000_000_000 + i * 10,
                    ..Default::default()
                },
                &[rec("a", "x"), rec("b", "y"), rec("c", "z")],
            )
        })
        .collect();
    let s = Seg { batches };
    let (_t, root) = log_dir(&[(0, &s)], true);
    let pos = s.positions();
    std::fs::write(
        part(&root, "00000000000000000000.index"),
        offset_index(0, &[(3, pos[1]), (9, pos[3])], 0),
    )
    .unwrap();
    // (The helper's time index assumes one record per batch; the active segment's may be empty.)
    std::fs::write(part(&root, "00000000000000000000.timeindex"), b"").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let f = findings(&lines, "offset-index-mismatch");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["severity"], "info");
    assert!(f[0]["message"].as_str().unwrap().contains("1.1"));
}

/// An interrupted cleaning that produced nothing: empty swap files of the segment's own name.
/// The renames overwrite the originals, so the old indexes are not checked against the empty log.
#[test]
fn a_swap_renamed_over_its_original_replaces_it() {
    let s = Seg::new(0, 10);
    let s2 = Seg::new(10, 3);
    let (_t, root) = log_dir(&[(0, &s), (10, &s2)], true);
    for ext in ["log", "index", "timeindex"] {
        std::fs::write(
            part(&root, &format!("00000000000000000000.{ext}.swap")),
            b"",
        )
        .unwrap();
    }
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let overwritten = findings(&lines, "load-cleanup")
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("overwritten"))
        .count();
    assert_eq!(overwritten, 3);
}

/// A segment without its `.index` is recovered by LogLoader.loadSegmentFiles itself: it is cut
/// at its first bad batch even after a clean shutdown, and — cut at load — it makes recoverLog
/// delete nothing after it.
#[test]
fn a_segment_recovered_at_load_is_cut_without_deleting_later_segments() {
    for clean in [false, true] {
        let mut s = Seg::new(0, 10);
        let n = s.batches[4].len();
        s.batches[4][n - 3] ^= 0x01;
        let pos = s.positions();
        let s2 = Seg::new(10, 5);
        let (_t, root) = log_dir(&[(0, &s), (10, &s2)], clean);
        std::fs::remove_file(part(&root, "00000000000000000000.index")).unwrap();
        let (_, lines) = verify(&root);
        let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
        assert_eq!(rec["truncatePosition"], pos[4], "clean {clean}: {rec}");
        assert_eq!(rec["droppedBatches"], 6, "clean {clean}: {rec}");
        assert!(
            rec["deletedSegments"].as_array().unwrap().is_empty(),
            "clean {clean}: {rec}"
        );
    }
}

/// A producer-state snapshot torn by a crash: Kafka deletes it at load and rebuilds producer
/// state from an older snapshot or the log — a warning, not corruption of the data.
#[test]
fn a_corrupt_producer_snapshot_is_a_warning() {
    let s = Seg::new(0, 3);
    let (_t, root) = log_dir(&[(0, &s)], false);
    // Version 1, CRC-32C of what follows, no producers.
    let body = [0u8, 0, 0, 0];
    let mut snapshot = vec![0u8, 1];
    snapshot.extend_from_slice(&crc32c::crc32c(&body).to_be_bytes());
    snapshot.extend_from_slice(&body);
    let path = part(&root, "00000000000000000003.snapshot");
    std::fs::write(&path, &snapshot).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0);
    assert!(
        findings(&lines, "producer-snapshot").is_empty(),
        "{lines:?}"
    );
    snapshot[3] ^= 0xff;
    std::fs::write(&path, &snapshot).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let f = findings(&lines, "producer-snapshot");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["severity"], "warning");
    std::fs::write(&path, &snapshot[..3]).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    assert_eq!(
        findings(&lines, "producer-snapshot")[0]["severity"],
        "warning"
    );
}

/// A `.txnindex` entry ending below its segment's base fails TransactionIndex.sanityCheck at
/// load: Kafka recovers that segment (rebuilding the index) even after a clean shutdown.
#[test]
fn a_txn_index_failing_its_sanity_check_makes_kafka_recover_the_segment() {
    let s = Seg::new(0, 10);
    let s2 = Seg::new(10, 5);
    let (_t, root) = log_dir(&[(0, &s), (10, &s2)], true);
    let mut entry = Vec::new();
    entry.extend_from_slice(&0i16.to_be_bytes());
    entry.extend_from_slice(&7i64.to_be_bytes());
    entry.extend_from_slice(&3i64.to_be_bytes());
    entry.extend_from_slice(&5i64.to_be_bytes());
    entry.extend_from_slice(&6i64.to_be_bytes());
    std::fs::write(part(&root, "00000000000000000010.txnindex"), &entry).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let f = findings(&lines, "index-sanity");
    assert_eq!(f[0]["severity"], "warning", "{f:?}");
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    let recovered = rec["recoveredSegments"].as_array().unwrap();
    assert_eq!(recovered.len(), 1, "{rec}");
    assert!(recovered[0]
        .as_str()
        .unwrap()
        .ends_with("00000000000000000010.log"));
}

/// Offsets missing between segments are a warning for a topic with `cleanup.policy=delete`, and
/// info once the cluster metadata in the same log dir says the topic is compacted.
#[test]
fn gaps_in_topics_the_cluster_metadata_says_are_compacted_are_info() {
    let s = Seg::new(0, 5);
    let s2 = Seg::new(8, 5);
    let (_t, root) = log_dir(&[(0, &s), (8, &s2)], true);
    let gap = |root: &Path| {
        let (_, lines) = verify(root);
        findings(&lines, "segment-overlap")[0]["severity"].clone()
    };
    assert_eq!(gap(&root), "warning");
    // ConfigRecord (frame 1, type 4, version 0): topic "t", cleanup.policy = compact.
    let mut value = vec![1u8, 4, 0, 2, 2, b't', 15];
    value.extend_from_slice(b"cleanup.policy");
    value.push(8);
    value.extend_from_slice(b"compact");
    value.push(0);
    let meta = root.join("__cluster_metadata-0");
    std::fs::create_dir_all(&meta).unwrap();
    let b = batch(
        BatchSpec::default(),
        &[Rec {
            key: None,
            value: Some(&value),
            headers: vec![],
            ts_delta: 0,
        }],
    );
    write(&meta.join("00000000000000000000.log"), &[&b]);
    assert_eq!(gap(&root), "info");
}

#[test]
fn empty_partitions_of_the_recovery_preview_are_one_line_and_every_object_in_json() {
    // t-0 has a torn tail to recover; 48 empty __consumer_offsets partitions have nothing.
    let mut s = Seg::new(0, 10);
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let (_t, root) = log_dir(&[(0, &s)], false);
    for i in 0..48 {
        let p = root.join(format!("__consumer_offsets-{i}"));
        std::fs::create_dir_all(&p).unwrap();
        for ext in ["log", "index", "timeindex"] {
            std::fs::write(p.join(format!("00000000000000000000.{ext}")), b"").unwrap();
        }
    }
    let r = kseg(&["verify-index", root.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "48 empty partitions: nothing to recover (Kafka re-checks their empty segments and \
             rebuilds their indexes); the others are above."
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("__consumer_offsets-"), "{}", r.stdout);
    // t-0 keeps its row in the preview (it is truncated).
    let row = r
        .stdout
        .lines()
        .find(|l| l.contains("t-0") && l.contains(".log @ "))
        .expect("t-0's row");
    assert!(row.contains(" 1 ┆"), "{row}");
    let (_, lines) = verify(&root);
    let previews: Vec<&Value> = lines.iter().filter(|v| v["type"] == "recovery").collect();
    assert_eq!(previews.len(), 49);
    let empty = previews
        .iter()
        .filter(|v| v["recoveredBytes"] == 0 && v["truncatePosition"].is_null())
        .count();
    assert_eq!(empty, 48);
}

/// LogLoader.recoverLog stops at the first segment it truncates and deletes the later unflushed
/// ones without recovering them: only the truncated segment counts as recovered, and only its
/// two indexes as rebuilt (issue 21, item 3).
#[test]
fn segments_deleted_after_a_truncation_are_not_counted_as_recovered() {
    let mut s = Seg::new(0, 10);
    let n = s.batches[4].len();
    s.batches[4][n - 3] ^= 0x01;
    let (s2, s3) = (Seg::new(10, 5), Seg::new(15, 5));
    let (_t, root) = log_dir(&[(0, &s), (10, &s2), (15, &s3)], false);
    let (_, lines) = verify(&root);
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    let recovered = rec["recoveredSegments"].as_array().unwrap();
    assert_eq!(recovered.len(), 1, "{rec}");
    assert!(recovered[0]
        .as_str()
        .unwrap()
        .ends_with("00000000000000000000.log"));
    assert_eq!(rec["deletedSegments"].as_array().unwrap().len(), 2, "{rec}");
    assert_eq!(rec["rebuiltIndexes"].as_array().unwrap().len(), 2, "{rec}");
    let size = std::fs::metadata(part(&root, "00000000000000000000.log"))
        .unwrap()
        .len();
    assert_eq!(rec["recoveredBytes"], size, "{rec}");
    // The text table says the same.
    let text = kseg(&["verify-index", root.to_str().unwrap()]);
    let row = text
        .stdout
        .lines()
        .find(|l| l.contains("t-0") && l.contains('┆'))
        .unwrap_or_else(|| panic!("{}", text.stdout));
    let cells: Vec<&str> = row.split('┆').map(str::trim).collect();
    // PARTITION, RECOVERY POINT, SEGMENTS RECOVERED, ...
    assert_eq!(cells[2], "1", "{row}");
    // recover reports the same count.
    let out = root.join("copy");
    let r = kseg(&[
        "recover",
        root.join("t-0").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rl = json_lines(&r.stdout);
    let summary = rl.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["recoveredSegments"], 1, "{summary}");
    assert_eq!(summary["rebuiltIndexes"], 2, "{summary}");
    let deleted = rl.iter().filter(|v| v["action"] == "deleted").count();
    assert_eq!(deleted, 2, "{rl:?}");
}

/// The KRaft metadata log is opened by KafkaRaftLog with no clean-shutdown credit and recovery
/// point 0: a torn tail there is truncated even beside `.kafka_cleanshutdown` (item 1).
#[test]
fn the_metadata_log_is_recovered_even_after_a_clean_shutdown() {
    let mut s = Seg::new(0, 10);
    let pos = s.positions();
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let meta = root.join("__cluster_metadata-0");
    std::fs::rename(root.join("t-0"), &meta).unwrap();
    std::fs::write(meta.join("quorum-state"), r#"{"leaderId":1,"leaderEpoch":3,"votedId":-1,"appliedOffset":0,"currentVoters":null,"data_version":0}"#).unwrap();
    let (_, lines) = verify(&root);
    let rec = lines
        .iter()
        .find(|v| v["type"] == "recovery" && v["partition"] == "__cluster_metadata-0")
        .unwrap();
    assert_eq!(rec["cleanShutdown"], false, "{rec}");
    assert_eq!(
        rec["recoveredSegments"].as_array().unwrap().len(),
        1,
        "{rec}"
    );
    assert_eq!(rec["truncatePosition"], pos[9], "{rec}");
    let out = root.join("copy");
    let r = kseg(&[
        "recover",
        meta.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rl = json_lines(&r.stdout);
    let summary = rl.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["cleanShutdown"], false, "{summary}");
    assert_eq!(summary["logEndOffset"], 9, "{summary}");
    let copy = out.join("__cluster_metadata-0");
    assert_eq!(
        std::fs::metadata(copy.join("00000000000000000000.log"))
            .unwrap()
            .len(),
        pos[9] as u64
    );
    // KafkaRaftLog's own files stay beside the log.
    assert!(copy.join("quorum-state").exists());
}

/// A clean-shutdown marker beside a zero-filled tail in the active segment lies: Kafka does not
/// recover the segment, reads its end at load (LogSegment.readNextOffset) and throws
/// CorruptRecordException. verify-index says the broker will not start, first, naming the file
/// and position, and exits 1 (issue 21, item 2).
#[test]
fn a_marker_beside_a_zero_filled_tail_means_the_broker_will_not_start() {
    let mut s = Seg::new(0, 4);
    let len = s.bytes().len();
    s.batches.push(vec![0u8; 8192]);
    let (_t, root) = log_dir(&[(0, &s)], true);
    let (code, lines) = verify(&root);
    assert_eq!(code, 1, "{lines:?}");
    assert_eq!(lines[0]["type"], "verdict", "{lines:?}");
    assert_eq!(lines[0]["kafkaStarts"], false);
    assert_eq!(lines[0]["position"], len);
    assert!(lines[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("t-0/00000000000000000000.log"));
    let f = findings(&lines, "broker-will-not-start");
    assert_eq!(f.len(), 1, "{lines:?}");
    assert_eq!(f[0]["severity"], "error");
    // Visible without -v, on the first line.
    let text = kseg(&["verify-index", root.to_str().unwrap()]);
    let first = text.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("Will Kafka start on {}: NO (", root.display()))
            && first.contains(&format!("00000000000000000000.log at byte {len}")),
        "{}",
        text.stdout
    );
    // Without the marker Kafka recovers the segment and truncates the zeros: it starts.
    std::fs::remove_file(root.join(".kafka_cleanshutdown")).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(lines[0]["kafkaStarts"], true);
    // A torn tail beside the marker ends Kafka's walk quietly: it starts, keeping the bytes.
    let mut s = Seg::new(0, 4);
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let (_t2, root) = log_dir(&[(0, &s)], true);
    let (_, lines) = verify(&root);
    assert_eq!(lines[0]["kafkaStarts"], true, "{lines:?}");
}

/// Records below the high watermark that recovery drops were acknowledged: lost for certain, an
/// error; those above it possibly acknowledged. A torn tail above it loses nothing acknowledged.
#[test]
fn acknowledged_records_at_risk_come_from_the_high_watermark() {
    let mut s = Seg::new(0, 10);
    let n = s.batches[4].len();
    s.batches[4][n - 3] ^= 0x01;
    let (s2, s3) = (Seg::new(10, 5), Seg::new(15, 5));
    let (_t, root) = log_dir(&[(0, &s), (10, &s2), (15, &s3)], false);
    std::fs::write(root.join("replication-offset-checkpoint"), "0\n1\nt 0 12\n").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1, "{lines:?}");
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert_eq!(rec["highWatermark"], 12);
    assert_eq!(
        rec["acknowledgedLost"],
        serde_json::json!({"records": 8, "firstOffset": 4, "lastOffset": 11}),
        "{rec}"
    );
    assert_eq!(
        rec["possiblyAcknowledged"],
        serde_json::json!({"records": 8, "firstOffset": 12, "lastOffset": 19}),
        "{rec}"
    );
    let f = findings(&lines, "acknowledged-loss");
    assert_eq!(f[0]["severity"], "error", "{f:?}");
    let v = &lines[0];
    assert_eq!(v["type"], "verdict");
    assert_eq!(v["atRisk"][0]["acknowledgedLost"]["records"], 8, "{v}");
    let text = kseg(&["verify-index", root.to_str().unwrap()]);
    assert!(
        text.stdout.contains("  t-0: at least 8 acknowledged records lost (offsets 4..11), up to 8 more possibly acknowledged (offsets 12..19) (high watermark 12)"),
        "{}",
        text.stdout
    );
    // With the high watermark at the cut, nothing acknowledged is lost: no error.
    std::fs::write(root.join("replication-offset-checkpoint"), "0\n1\nt 0 4\n").unwrap();
    let (code, lines) = verify(&root);
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert!(rec["acknowledgedLost"].is_null(), "{rec}");
    assert_eq!(rec["possiblyAcknowledged"]["records"], 16, "{rec}");
    assert!(findings(&lines, "acknowledged-loss").is_empty());
    // (The CRC-bad batch itself is still an error finding.)
    assert_eq!(code, 1);
    let mut s = Seg::new(0, 10);
    let last = s.batches.last_mut().unwrap();
    last.truncate(last.len() - 7);
    let (_t2, root) = log_dir(&[(0, &s)], false);
    std::fs::write(root.join("replication-offset-checkpoint"), "0\n1\nt 0 9\n").unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    assert!(findings(&lines, "acknowledged-loss").is_empty());
}

/// After a clean shutdown Kafka creates a deleted sealed `.timeindex` empty, and a lone
/// `.log.swap` gets an empty `.index` from the load's first pass (LogSegment.readNextOffset on
/// the swap segment) — neither segment is recovered; recover's copy has the same files
/// (issue 21, item 9).
#[test]
fn recover_writes_the_empty_indexes_kafkas_load_creates() {
    let s = Seg::new(0, 10);
    let s2 = Seg::new(10, 3);
    let (_t, root) = log_dir(&[(0, &s), (10, &s2)], true);
    std::fs::remove_file(part(&root, "00000000000000000000.timeindex")).unwrap();
    // Segment 10 only as a swap log (its indexes gone with the original).
    for ext in ["log", "index", "timeindex"] {
        std::fs::remove_file(part(&root, &format!("00000000000000000010.{ext}"))).unwrap();
    }
    std::fs::write(part(&root, "00000000000000000010.log.swap"), s2.bytes()).unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 0, "{:?}", errors(&lines));
    let rec = lines.iter().find(|v| v["type"] == "recovery").unwrap();
    assert!(
        rec["recoveredSegments"].as_array().unwrap().is_empty(),
        "{rec}"
    );
    let out = root.join("copy");
    let r = kseg(&[
        "recover",
        root.join("t-0").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let copy = out.join("t-0");
    for (name, len) in [
        ("00000000000000000000.timeindex", 0),
        ("00000000000000000010.index", 0),
        ("00000000000000000010.timeindex", 0),
        ("00000000000000000010.log", s2.bytes().len() as u64),
    ] {
        let m = std::fs::metadata(copy.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.len(), len, "{name}");
    }
}

/// A base offset corrupted in a recovered segment (the CRC does not cover it) makes
/// LogSegment.recover throw LogSegmentOffsetOverflowException; as the segment's last offset fits,
/// LocalLog.splitOverflowedSegment refuses to split it and Kafka 4.4 does not start (seen against
/// the real broker in oracle_crash.rs).
#[test]
fn an_overflowing_offset_in_a_recovered_segment_stops_the_broker() {
    let mut s = Seg::new(0, 6);
    let pos = s.positions();
    s.batches[2][0..8].copy_from_slice(&3_000_000_000i64.to_be_bytes());
    let (_t, root) = log_dir(&[(0, &s)], false);
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(lines[0]["kafkaStarts"], false, "{lines:?}");
    assert_eq!(lines[0]["position"], pos[2]);
    assert_eq!(findings(&lines, "broker-will-not-start").len(), 1);
    // With the marker Kafka does not recover the segment: it starts.
    std::fs::write(
        root.join(".kafka_cleanshutdown"),
        r#"{"version":0,"brokerEpoch":1}"#,
    )
    .unwrap();
    let (_, lines) = verify(&root);
    assert_eq!(lines[0]["kafkaStarts"], true, "{lines:?}");
}

/// An unreadable leader-epoch-checkpoint stops Kafka's load (LeaderEpochFileCache reads it in
/// UnifiedLog.create; seen against Kafka 4.4 in oracle_crash.rs); an empty one is read as no
/// entries (CheckpointFile creates a missing one empty).
#[test]
fn an_unreadable_leader_epoch_checkpoint_means_the_broker_will_not_start() {
    let s = Seg::new(0, 3);
    let (_t, root) = log_dir(&[(0, &s)], true);
    std::fs::write(
        part(&root, "leader-epoch-checkpoint"),
        "0\n2\nnot an entry\n",
    )
    .unwrap();
    let (code, lines) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(lines[0]["kafkaStarts"], false, "{lines:?}");
    assert!(lines[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("leader-epoch-checkpoint"));
    std::fs::write(part(&root, "leader-epoch-checkpoint"), "").unwrap();
    let (_, lines) = verify(&root);
    assert_eq!(lines[0]["kafkaStarts"], true, "{lines:?}");
}

/// Writes a `__cluster_metadata-0` holding one ConfigRecord (frame 1, type 4, version 0) per
/// (name, value) for topic "t".
fn topic_configs(root: &Path, configs: &[(&str, &str)]) {
    let values: Vec<Vec<u8>> = configs
        .iter()
        .map(|(name, v)| {
            let mut value = vec![1u8, 4, 0, 2, 2, b't', name.len() as u8 + 1];
            value.extend_from_slice(name.as_bytes());
            value.push(v.len() as u8 + 1);
            value.extend_from_slice(v.as_bytes());
            value.push(0);
            value
        })
        .collect();
    let meta = root.join("__cluster_metadata-0");
    std::fs::create_dir_all(&meta).unwrap();
    let recs: Vec<Rec> = values
        .iter()
        .map(|v| Rec {
            key: None,
            value: Some(v),
            headers: vec![],
            ts_delta: 0,
        })
        .collect();
    let b = batch(BatchSpec::default(), &recs);
    write(&meta.join("00000000000000000000.log"), &[&b]);
}

/// The topic's `index.interval.bytes` (and `preallocate`) from `__cluster_metadata` decide how
/// its partitions are judged and where recovery rebuilds index entries; the flag wins; both
/// verify-index and recover say which value they used (issue 21, item 10).
#[test]
fn per_topic_log_configs_from_the_cluster_metadata_are_used_and_named() {
    let s = Seg::new(0, 40);
    let (t, root) = log_dir(&[(0, &s)], false);
    topic_configs(
        &root,
        &[("index.interval.bytes", "200"), ("preallocate", "true")],
    );
    let (_, lines) = verify(&root);
    let rec = lines
        .iter()
        .find(|v| v["type"] == "recovery" && v["partition"] == "t-0")
        .unwrap();
    assert_eq!(
        rec["logConfig"]["indexIntervalBytes"],
        serde_json::json!({"value": 200, "source": "topic"})
    );
    assert_eq!(rec["logConfig"]["preallocate"]["value"], true);
    assert_eq!(rec["logConfig"]["segmentBytes"]["source"], "default");
    let text = kseg(&["verify-index", root.to_str().unwrap()]);
    assert!(
        text.stdout.contains(
            "  t: index.interval.bytes=200 (topic config in __cluster_metadata), preallocate=true (topic config in __cluster_metadata)"
        ),
        "{}",
        text.stdout
    );
    let p = root.join("t-0");
    let copy = |name: &str, flag: Option<&str>| {
        let out = t.path().join(name);
        let mut args = vec![
            "recover",
            p.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        if let Some(f) = flag {
            args.extend(["--index-interval-bytes", f]);
        }
        let r = kseg(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let summary = json_lines(&r.stdout)
            .into_iter()
            .find(|v| v["type"] == "summary")
            .unwrap();
        (
            std::fs::read(out.join("t-0/00000000000000000000.index")).unwrap(),
            summary["logConfig"]["indexIntervalBytes"].clone(),
        )
    };
    let (topic, said) = copy("a", None);
    assert_eq!(said, serde_json::json!({"value": 200, "source": "topic"}));
    let (flag_200, _) = copy("b", Some("200"));
    let (flag_4096, said) = copy("c", Some("4096"));
    assert_eq!(said, serde_json::json!({"value": 4096, "source": "flag"}));
    assert_eq!(topic, flag_200);
    assert!(
        topic.len() > flag_4096.len(),
        "{} {}",
        topic.len(),
        flag_4096.len()
    );
}

/// Issue 44, item 9: "and any in the unreadable bytes at the log's end" (`unreadableEnd`) is
/// for an unreadable end only. A zeroed page in the middle of the active segment followed by
/// valid batches leaves the end readable; a torn last write does not.
#[test]
fn the_unreadable_end_clause_is_for_an_unreadable_end_only() {
    for (tail, want) in [(false, false), (true, true)] {
        let t = tempfile::tempdir().unwrap();
        let part = t.path().join("orders-0");
        std::fs::create_dir_all(&part).unwrap();
        std::fs::write(t.path().join("meta.properties"), "version=1\n").unwrap();
        std::fs::write(
            t.path().join("replication-offset-checkpoint"),
            "0\n1\norders 0 20\n",
        )
        .unwrap();
        let batches: Vec<Vec<u8>> = (0..10)
            .map(|i| {
                batch(
                    BatchSpec {
                        base_offset: i * 2,
                        ..Default::default()
                    },
                    &[rec("k", "v"), rec("k", "w")],
                )
            })
            .collect();
        let mut log: Vec<u8> = batches[..4].concat();
        log.extend(vec![0u8; 4096]);
        log.extend(batches[4..].concat());
        if tail {
            log.extend(&batches[0][..30]);
        }
        std::fs::write(part.join("00000000000000000000.log"), &log).unwrap();
        let r = kseg(&["verify-index", "--json", t.path().to_str().unwrap()]);
        let verdict = &json_lines(&r.stdout)[0];
        assert_eq!(verdict["type"], "verdict", "{}", r.stdout);
        let risk = &verdict["atRisk"][0];
        assert_eq!(risk["unreadableEnd"], want, "tail {tail}: {verdict}");
        assert!(risk["acknowledgedLost"].is_object(), "{verdict}");
    }
}

/// A ZooKeeper-mode broker's dir (meta.properties version 0): verify-index reads it as any other
/// and says that the topic configs it judged by were assumed; a KRaft dir gets no such line.
#[test]
fn a_zookeeper_mode_dir_says_its_topic_configs_were_assumed() {
    let (_t, root) = log_dir(&[(0, &Seg::new(0, 3))], true);
    let said = "ZooKeeper mode (meta.properties version 0): topic configs are not in this dir";
    let kraft = kseg(&["verify-index", root.to_str().unwrap()]);
    assert_eq!(kraft.code, 0, "{}", kraft.stderr);
    assert!(!kraft.stdout.contains(said), "{}", kraft.stdout);
    std::fs::write(
        root.join("meta.properties"),
        "#\nversion=0\nbroker.id=1\ncluster.id=zdu3BKoAR2miOLNU5Ahm7w\n",
    )
    .unwrap();
    let zk = kseg(&["verify-index", root.to_str().unwrap()]);
    assert_eq!(zk.code, 0, "{}", zk.stderr);
    assert!(zk.stdout.contains(said), "{}", zk.stdout);
    assert!(errors(&verify(&root).1).is_empty());
}
