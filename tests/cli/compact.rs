//! `kseg compact`: the JSON names scripts keep ("type": "compaction"), exit codes, the verdict
//! and the words of a pass, an idle partition and one the cleaner gives up on.

use std::fs;
use std::path::Path;

use crate::common::*;

const NOW: i64 = 1_750_000_000_000;

/// Writes one segment of `dir` at `base` holding one batch of `records` (key, value); returns
/// the next offset.
fn segment(dir: &Path, base: i64, records: &[(&str, Option<&str>)]) -> i64 {
    let recs: Vec<Rec> = records
        .iter()
        .map(|(k, v)| Rec {
            key: Some(k.as_bytes()),
            value: v.map(str::as_bytes),
            headers: vec![],
            ts_delta: 0,
        })
        .collect();
    let log = batch(
        BatchSpec {
            base_offset: base,
            base_timestamp: NOW - 3_600_000,
            ..Default::default()
        },
        &recs,
    );
    write(&dir.join(format!("{base:020}.log")), &[&log]);
    base + records.len() as i64
}

fn compact_json(args: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let now = NOW.to_string();
    let mut all = vec!["compact", "--json", "--now", &now];
    all.extend(args);
    let r = kseg(&all);
    let objects = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (r.code, objects)
}

#[test]
fn a_pass_previewed_in_json_with_the_names_scripts_keep() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("orders-0");
    let next = segment(
        &p,
        0,
        &[("a", Some("1")), ("b", Some("1")), ("a", Some("2"))],
    );
    let next = segment(&p, next, &[("b", None), ("c", Some("1"))]);
    segment(&p, next, &[("z", Some("1"))]);
    let dir = d.path().to_str().unwrap();
    let (code, objs) = compact_json(&["--topic-config", "orders:cleanup.policy=compact", dir]);
    assert_eq!(code, 0);
    assert_eq!(objs.len(), 1);
    let o = &objs[0];
    assert_eq!(o["type"], "compaction");
    assert_eq!(
        (o["topic"].as_str(), o["partition"].as_i64()),
        (Some("orders"), Some(0))
    );
    assert_eq!(o["firstDirtyOffset"], 0);
    assert_eq!(o["firstUncleanableOffset"], 5);
    assert_eq!(o["boundBy"]["reason"], "activeSegment");
    assert_eq!(o["willClean"], true);
    assert_eq!(o["uncleanable"], serde_json::Value::Null);
    assert_eq!(o["endOffset"], 5);
    // a=1 and b=1 are superseded; the tombstone b stays, stamped with the horizon.
    assert_eq!(o["recordsRemoved"], 2);
    assert_eq!(o["pass"]["batchesStamped"], 1);
    assert_eq!(o["pass"]["deleteHorizon"], NOW + 86_400_000);
    assert!(o["dirtyRatio"].as_f64().unwrap() > 0.99);
    assert!(o["bytesAfter"].as_u64().unwrap() < o["bytes"].as_u64().unwrap());
    // The text says the same, verdict first.
    let now = NOW.to_string();
    let r = kseg(&[
        "compact",
        "--now",
        &now,
        "--topic-config",
        "orders:cleanup.policy=compact",
        dir,
    ]);
    assert_eq!(r.code, 0);
    let first = r.stdout.lines().nth(1).unwrap();
    assert!(
        first.starts_with("Next passes, filthiest first: orders-0 (dirty ratio 1.000)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("records 5 read, 3 kept (2 removed): 2 superseded"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("dirty section [0, 5]: the checkpoint becomes 5"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_corrupt_batch_in_the_cleaned_range_is_a_partition_the_cleaner_gives_up_on() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("orders-0");
    let next = segment(&p, 0, &[("a", Some("1")), ("a", Some("2"))]);
    segment(&p, next, &[("z", Some("1"))]);
    // Garbage after the first segment's batch: a frame with an impossible size.
    let log = p.join("00000000000000000000.log");
    let mut bytes = fs::read(&log).unwrap();
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 3, 0, 0, 0, 0, 2, 1, 2, 3]);
    fs::write(&log, bytes).unwrap();
    let dir = d.path().to_str().unwrap();
    let (code, objs) = compact_json(&["--topic-config", "orders:cleanup.policy=compact", dir]);
    assert_eq!(code, 1);
    assert_eq!(objs[0]["uncleanable"]["segment"], 0);
    assert_eq!(objs[0]["uncleanable"]["position"], 79);
    assert_eq!(objs[0]["willClean"], false);
    let now = NOW.to_string();
    let r = kseg(&[
        "compact",
        "--now",
        &now,
        "--topic-config",
        "orders:cleanup.policy=compact",
        dir,
    ]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("PROBLEM orders-0: the cleaner will fail on segment 0 at byte 79"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_partition_below_the_ratio_says_why_and_a_missing_path_exits_2() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("orders-0");
    let next = segment(
        &p,
        0,
        &[("a", Some("1")), ("b", Some("1")), ("c", Some("1"))],
    );
    let next = segment(&p, next, &[("a", Some("2"))]);
    segment(&p, next, &[("z", Some("1"))]);
    fs::write(
        d.path().join("cleaner-offset-checkpoint"),
        "0\n1\norders 0 3\n",
    )
    .unwrap();
    let dir = d.path().to_str().unwrap();
    let (code, objs) = compact_json(&[
        "--topic-config",
        "orders:cleanup.policy=compact",
        "--topic-config",
        "orders:min.cleanable.dirty.ratio=0.9",
        dir,
    ]);
    assert_eq!(code, 0);
    assert_eq!(objs[0]["firstDirtyOffset"], 3);
    assert_eq!(objs[0]["firstDirtyFrom"], "checkpoint");
    assert_eq!(objs[0]["willClean"], false);
    assert_eq!(objs[0]["notCleanedBecause"], "ratioBelowMinimum");
    assert_eq!(objs[0]["endOffset"], serde_json::Value::Null);
    let r = kseg(&["compact", "/nonexistent/kseg-compact"]);
    assert_eq!(r.code, 2);
}

#[test]
fn out_writes_the_pass_leaves_the_input_alone_and_runs_again_on_its_output() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    let p = input.join("orders-0");
    let next = segment(
        &p,
        0,
        &[("a", Some("1")), ("b", Some("1")), ("a", Some("2"))],
    );
    let next = segment(&p, next, &[("b", None), ("c", Some("1"))]);
    segment(&p, next, &[("z", Some("1"))]);
    let snapshot = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = fs::read_dir(dir.join("orders-0"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = snapshot(&input);
    let out = d.path().join("out");
    let now = NOW.to_string();
    let args = |dir: &Path| {
        vec![
            "compact".to_string(),
            "--now".into(),
            now.clone(),
            "--topic-config".into(),
            "orders:cleanup.policy=compact".into(),
            dir.to_str().unwrap().to_string(),
        ]
    };
    let mut a = args(&input);
    a.extend(["--out".to_string(), out.to_str().unwrap().to_string()]);
    let r = kseg(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("1 partition cleaned"), "{}", r.stderr);
    assert_eq!(snapshot(&input), before, "the input is only read");
    // The checkpoint takes the pass's end offset.
    assert_eq!(
        fs::read_to_string(out.join("cleaner-offset-checkpoint")).unwrap(),
        "0\n1\norders 0 5\n"
    );
    let after = snapshot(&out);
    // Both sealed segments are one group: one cleaned segment at 0, segment 3 merged away.
    let names: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"00000000000000000000.log"), "{names:?}");
    assert!(!names.contains(&"00000000000000000003.log"), "{names:?}");
    let logs = |v: &[(String, Vec<u8>)]| -> usize {
        v.iter()
            .filter(|(n, _)| n.ends_with(".log"))
            .map(|(_, b)| b.len())
            .sum()
    };
    assert!(logs(&after) < logs(&before));
    // Run again on its output: the next pass starts at the checkpoint, nothing dirty is left.
    let mut again = args(&out);
    again.insert(1, "--json".into());
    let r = kseg(&again.iter().map(String::as_str).collect::<Vec<_>>());
    let o: serde_json::Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(o["firstDirtyOffset"], 5);
    assert_eq!(o["firstDirtyFrom"], "checkpoint");
    assert_eq!(o["willClean"], false);
    // A second --out into a dir that is not empty is refused.
    let r = kseg(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
}
