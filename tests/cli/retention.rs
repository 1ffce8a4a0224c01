//! `kseg retention`: the JSON names scripts keep, exit codes, configs with their sources, and
//! that the answer comes from indexes and file metadata, not from the `.log` bytes.

use std::fs;
use std::path::Path;

use crate::common::*;

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_750_000_000_000;

/// Writes segment `base` of `partition_dir`: one batch per entry of `batches` (its records'
/// timestamps), an empty `.index`, and a `.timeindex` holding the largest timestamp as Kafka
/// leaves a rolled segment's. Returns the next offset.
fn segment(partition_dir: &Path, base: i64, batches: &[&[i64]]) -> i64 {
    let mut log = Vec::new();
    let mut offset = base;
    let mut max: Option<(i64, i64)> = None;
    let value = "v".repeat(100);
    for b in batches {
        let records: Vec<Rec> = b
            .iter()
            .map(|t| Rec {
                key: Some(b"k"),
                value: Some(value.as_bytes()),
                headers: vec![],
                ts_delta: t - b[0],
            })
            .collect();
        log.extend(batch(
            BatchSpec {
                base_offset: offset,
                base_timestamp: b[0],
                ..Default::default()
            },
            &records,
        ));
        let last = offset + b.len() as i64 - 1;
        let m = *b.iter().max().unwrap();
        if max.is_none_or(|(t, _)| m > t) {
            max = Some((m, last));
        }
        offset = last + 1;
    }
    let name = |ext: &str| partition_dir.join(format!("{base:020}.{ext}"));
    write(&name("log"), &[&log]);
    write(&name("index"), &[]);
    let (t, o) = max.unwrap();
    let mut ti = t.to_be_bytes().to_vec();
    ti.extend_from_slice(&((o - base) as i32).to_be_bytes());
    write(&name("timeindex"), &[&ti]);
    offset
}

/// A log dir shut down cleanly by broker 1, with `replication-offset-checkpoint` entries.
fn log_dir(root: &Path, high_watermarks: &[(&str, i64)]) {
    fs::create_dir_all(root).unwrap();
    fs::write(
        root.join(".kafka_cleanshutdown"),
        "{\"version\":0,\"brokerEpoch\":3}",
    )
    .unwrap();
    fs::write(
        root.join("meta.properties"),
        "version=1\nnode.id=1\ncluster.id=c\n",
    )
    .unwrap();
    let mut text = format!("0\n{}\n", high_watermarks.len());
    for (tp, o) in high_watermarks {
        let (t, p) = tp.rsplit_once('-').unwrap();
        text.push_str(&format!("{t} {p} {o}\n"));
    }
    fs::write(root.join("replication-offset-checkpoint"), text).unwrap();
}

fn retention_json(args: &[&str]) -> (i32, Vec<serde_json::Value>, String) {
    let now = NOW.to_string();
    let mut all = vec!["retention", "--json", "--now", &now];
    all.extend(args);
    let r = kseg(&all);
    (r.code, json_lines(&r.stdout), r.stderr)
}

fn partition<'a>(lines: &'a [serde_json::Value], topic: &str) -> &'a serde_json::Value {
    lines
        .iter()
        .find(|v| v["type"] == "retention" && v["topic"] == topic)
        .unwrap_or_else(|| panic!("no retention object for {topic}: {lines:#?}"))
}

#[test]
fn a_future_timestamp_blocks_retention_names_its_record_and_exits_1() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let p = root.join("t-0");
    let old = NOW - 9 * DAY;
    let future = NOW + 3 * 365 * DAY;
    let mut next = segment(&p, 0, &[&[old, old]]);
    next = segment(&p, next, &[&[old, future, old]]);
    next = segment(&p, next, &[&[old]]);
    next = segment(&p, next, &[&[NOW - DAY]]);
    log_dir(&root, &[("t-0", next)]);
    let (code, lines, stderr) = retention_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    let v = partition(&lines, "t");
    assert_eq!(v["deleteSegments"], serde_json::json!([0]));
    assert_eq!(v["logStartOffsetAfter"], 2);
    let seg0 = ["log", "index", "timeindex"]
        .iter()
        .map(|e| {
            fs::metadata(p.join(format!("{:020}.{e}", 0)))
                .unwrap()
                .len()
        })
        .sum::<u64>();
    assert_eq!(v["bytesFreed"], seg0);
    let b = &v["blockedBy"][0];
    assert_eq!(b["reason"], "futureTimestamp");
    assert_eq!(b["segment"], 2);
    // The record, not its batch's last offset (4).
    assert_eq!(b["offset"], 3);
    assert_eq!(b["timestamp"], future);
    assert_eq!(b["problem"], true);
    let dir = of_type(&lines, "logDir")[0];
    assert_eq!(dir["blocked"]["futureTimestamp"]["partitions"], 1);
    assert_eq!(of_type(&lines, "summary")[0]["problems"], 1);
    // The verdict comes first in text too.
    let text = kseg(&[
        "retention",
        "--now",
        &NOW.to_string(),
        root.to_str().unwrap(),
    ]);
    assert_eq!(text.code, 1);
    let first_lines: Vec<&str> = text.stdout.lines().take(6).collect();
    assert!(
        first_lines
            .iter()
            .any(|l| l.contains("PROBLEM t-0: a record stamped")
                && l.contains("offset 3, segment 2")),
        "{}",
        text.stdout
    );
}

#[test]
fn configs_come_with_their_sources() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let hour_old = NOW - 2 * 3_600_000;
    let a = segment(&root.join("bytopic-0"), 0, &[&[hour_old]]);
    segment(&root.join("bytopic-0"), a, &[&[NOW]]);
    let b = segment(&root.join("byflag-0"), 0, &[&[hour_old]]);
    segment(&root.join("byflag-0"), b, &[&[NOW]]);
    log_dir(&root, &[("bytopic-0", a + 1), ("byflag-0", b + 1)]);
    resource_config_log(
        &root,
        &[
            (2, "bytopic", "retention.ms", Some("3600000")),
            (4, "", "log.retention.bytes", Some("1000000000")),
            (4, "1", "log.cleaner.backoff.ms", Some("2000")),
            (4, "2", "log.cleaner.backoff.ms", Some("9000")),
        ],
    );
    let (code, lines, stderr) = retention_json(&[
        "--config",
        "log.retention.hours=1",
        "--config",
        "log.retention.bytes=5",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let by_topic = partition(&lines, "bytopic");
    assert_eq!(by_topic["configs"]["retention.ms"]["source"], "topic");
    assert_eq!(by_topic["deleteSegments"], serde_json::json!([0]));
    // The cluster's dynamic default wins over the static --config.
    assert_eq!(
        by_topic["configs"]["retention.bytes"]["value"],
        1_000_000_000
    );
    assert_eq!(
        by_topic["configs"]["retention.bytes"]["source"],
        "clusterDefault"
    );
    let by_flag = partition(&lines, "byflag");
    let ms = &by_flag["configs"]["retention.ms"];
    assert_eq!(
        (&ms["value"], &ms["source"], &ms["via"]),
        (
            &serde_json::json!(3_600_000),
            &serde_json::json!("configFlag"),
            &serde_json::json!("log.retention.hours")
        )
    );
    assert_eq!(by_flag["deleteSegments"], serde_json::json!([0]));
    // Broker 1's own dynamic config, not broker 2's.
    let dir = of_type(&lines, "logDir")[0];
    assert_eq!(dir["configs"]["log.cleaner.backoff.ms"]["value"], 2000);
    assert_eq!(
        dir["configs"]["log.cleaner.backoff.ms"]["source"],
        "brokerDefault"
    );
}

#[test]
fn compact_delete_with_the_cleaner_disabled_is_held_by_it() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let p = root.join("cd-0");
    let next = segment(&p, 0, &[&[NOW - 30 * DAY]]);
    let end = segment(&p, next, &[&[NOW]]);
    log_dir(&root, &[("cd-0", end)]);
    let (code, lines, _) = retention_json(&[
        "--config",
        "log.cleaner.enable=false",
        "--topic-config",
        "cd:cleanup.policy=compact,delete",
        "--topic-config",
        "absent:retention.ms=1",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let v = partition(&lines, "cd");
    assert_eq!(v["checkedBy"]["nobody"], "cleanerDisabled");
    assert_eq!(v["deleteSegments"], serde_json::json!([]));
    assert_eq!(v["logStartOffsetAfter"], 0);
    assert_eq!(v["blockedBy"][0]["reason"], "cleanerDisabled");
    assert_eq!(v["blockedBy"][0]["segment"], 0);
    assert_eq!(v["configs"]["cleanup.policy"]["source"], "topicConfigFlag");
    assert_eq!(
        of_type(&lines, "summary")[0]["unmatchedTopicConfigs"],
        serde_json::json!(["absent"])
    );
}

#[test]
fn bad_configs_and_instants_are_refused_with_exit_2() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    segment(&root.join("t-0"), 0, &[&[NOW]]);
    log_dir(&root, &[("t-0", 1)]);
    let d = root.to_str().unwrap();
    for (args, said) in [
        (
            vec!["--config", "log.retention.hours=soon"],
            "Not a number of type INT",
        ),
        (
            vec!["--topic-config", "t:min.cleanable.dirty.ratio=1.5"],
            "no more than 1",
        ),
        (vec!["--config", "log.retention.hour=1"], "did you mean"),
        (vec!["--now", "2024-06-01T00:00:00"], "has no time zone"),
    ] {
        let mut all = vec!["retention"];
        all.extend(args.iter());
        all.push(d);
        let r = kseg(&all);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stderr.contains(said), "{args:?}: {}", r.stderr);
    }
}

/// The answer over 1,000 segments reads no `.log` byte: it says so, and zeroing every `.log`
/// (same lengths) leaves it unchanged.
#[test]
fn retention_reads_indexes_and_metadata_not_the_logs() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let mut hws = Vec::new();
    let names: Vec<String> = (0..20).map(|i| format!("topic{i}-0")).collect();
    for name in &names {
        let p = root.join(name);
        let mut next = 0;
        for s in 0..50 {
            // Expired, then inside retention from segment 30 on: the time rule stops there.
            let ts = if s < 30 { NOW - 9 * DAY } else { NOW - DAY } + s;
            next = segment(&p, next, &[&[ts, ts]]);
        }
        hws.push((name.as_str(), next));
    }
    log_dir(&root, &hws);
    let (code, before, _) = retention_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 0);
    let summary = of_type(&before, "summary")[0];
    assert_eq!(summary["segmentsDeleted"], 600);
    assert_eq!(summary["logBytesRead"], 0);
    for name in &names {
        for e in fs::read_dir(root.join(name)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "log") {
                let len = fs::metadata(&path).unwrap().len();
                let mtime = fs::metadata(&path).unwrap().modified().unwrap();
                fs::write(&path, vec![0u8; len as usize]).unwrap();
                fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(mtime)
                    .unwrap();
            }
        }
    }
    let (_, after, _) = retention_json(&[root.to_str().unwrap()]);
    assert_eq!(before, after);
}

/// `summary` says when retention is blocked, at the wall clock's now.
#[test]
fn summary_notes_a_blocked_retention() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let p = root.join("t-0");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let old = now - 9 * DAY;
    let mut next = segment(&p, 0, &[&[old]]);
    next = segment(&p, next, &[&[now + 3 * 365 * DAY]]);
    next = segment(&p, next, &[&[old]]);
    next = segment(&p, next, &[&[now]]);
    log_dir(&root, &[("t-0", next)]);
    let r = kseg(&["summary", "--json", root.to_str().unwrap()]);
    let lines = json_lines(&r.stdout);
    let row = of_type(&lines, "partition")[0];
    let notes = row["warnings"].to_string();
    assert!(
        notes.contains("PROBLEM: retention blocked by a future timestamp (segment 1, offset 1"),
        "{notes}"
    );
}

/// A ZooKeeper-mode broker's dir (meta.properties version 0, no __cluster_metadata): the text
/// says plainly that topic configs are not in it, JSON says `zookeeperMode`, and a saved
/// `kafka-configs.sh --describe --all` output gives them (a 4.4-refused value left out, saying so).
#[test]
fn zookeeper_mode_dirs_say_configs_are_not_in_them_and_take_a_describe_file() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("data");
    let hour_old = NOW - 2 * 3_600_000;
    let a = segment(&root.join("orders-0"), 0, &[&[hour_old]]);
    segment(&root.join("orders-0"), a, &[&[NOW]]);
    log_dir(&root, &[("orders-0", a + 1)]);
    fs::write(
        root.join("meta.properties"),
        "#\nversion=0\nbroker.id=1\ncluster.id=zdu3BKoAR2miOLNU5Ahm7w\n",
    )
    .unwrap();
    let now = NOW.to_string();
    let text = kseg(&["retention", "--now", &now, root.to_str().unwrap()]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "ZooKeeper mode (meta.properties version 0): topic configs are not in this dir"
        ),
        "{}",
        text.stdout
    );
    let (_, lines, _) = retention_json(&[root.to_str().unwrap()]);
    assert_eq!(of_type(&lines, "logDir")[0]["zookeeperMode"], true);
    // Kafka's default (7 days): nothing to delete.
    assert_eq!(
        partition(&lines, "orders")["deleteSegments"],
        serde_json::json!([])
    );

    let describe = t.path().join("configs.txt");
    fs::write(
        &describe,
        "All configs for topic orders are:\n  \
         cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}\n  \
         retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, DEFAULT_CONFIG:log.retention.ms=604800000}\n  \
         segment.bytes=16384 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=16384}\n  \
         message.format.version=2.8-IV1 sensitive=false synonyms={DEFAULT_CONFIG:log.message.format.version=2.8-IV1}\n",
    )
    .unwrap();
    let (code, lines, stderr) = retention_json(&[
        "--topic-configs-file",
        describe.to_str().unwrap(),
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let orders = partition(&lines, "orders");
    assert_eq!(orders["configs"]["retention.ms"]["value"], 3_600_000);
    assert_eq!(
        orders["configs"]["retention.ms"]["source"],
        "topicConfigFlag"
    );
    assert_eq!(orders["deleteSegments"], serde_json::json!([0]));
    assert!(
        stderr.contains("orders:segment.bytes=16384 left out"),
        "{stderr}"
    );
    // --topic-config wins over the file.
    let (_, lines, _) = retention_json(&[
        "--topic-configs-file",
        describe.to_str().unwrap(),
        "--topic-config",
        "orders:retention.ms=86400000",
        root.to_str().unwrap(),
    ]);
    assert_eq!(
        partition(&lines, "orders")["deleteSegments"],
        serde_json::json!([])
    );
    // A file that is not that output is refused, saying what was expected.
    fs::write(&describe, "retention.ms=1\n").unwrap();
    let bad = kseg(&[
        "retention",
        "--topic-configs-file",
        describe.to_str().unwrap(),
        root.to_str().unwrap(),
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("no topic config found"),
        "{}",
        bad.stderr
    );
}
