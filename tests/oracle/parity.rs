//! Parity with Apache Kafka itself: the real broker writes the data (oracle/src/KsegOracle.java
//! workloads), the real tools and the broker's answers are the expected output.

use crate::harness::*;

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn scenario_runs() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        assert!(s.data.join("codec-zstd-0").exists());
    }
}

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

fn partition_dir(p: &Path) -> String {
    p.parent()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string()
}

/// Splits a dump of several files into per-file line lists, at Kafka's "Dumping FILE" lines.
fn by_file(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("Dumping ") {
            out.push((f.to_string(), Vec::new()));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line.to_string());
        } else {
            out.push((String::new(), vec![line.to_string()]));
        }
    }
    out
}

/// kseg's text with its terminal escapes (`\xNN`, `\u{...}`) turned back into the bytes they
/// stand for, then read as UTF-8 with replacement characters, as Java's `new String(bytes,
/// UTF_8)` in DumpLogSegments reads keys and values. kseg escapes control characters and invalid
/// UTF-8 (untrusted bytes never reach a terminal raw): a deliberate deviation in the
/// `--print-data-log` lines, which this undoes so the rest can be compared exactly.
fn unescape(text: &[u8]) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' && text.get(i + 1) == Some(&b'x') && i + 3 < text.len() {
            if let Ok(b) =
                u8::from_str_radix(std::str::from_utf8(&text[i + 2..i + 4]).unwrap_or("zz"), 16)
            {
                out.push(b);
                i += 4;
                continue;
            }
        }
        if text[i] == b'\\' && text.get(i + 1) == Some(&b'u') && text.get(i + 2) == Some(&b'{') {
            if let Some(end) = text[i + 3..].iter().position(|&c| c == b'}') {
                let hex = std::str::from_utf8(&text[i + 3..i + 3 + end]).unwrap_or("");
                if let Some(c) = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    i += 4 + end;
                    continue;
                }
            }
        }
        out.push(text[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// kseg prints DumpLogSegments' lines as Kafka 4.x does. Kafka 3.x printed two things
/// differently, and only those differences are allowed against a 3.x tool (README, "Verified
/// against Apache Kafka"): control records as `controlType: NAME(id)` where 4.x decodes them
/// (`LeaderChange: {...}`), and `--transaction-log-decoder` keys and values as
/// `transaction_metadata::transactionalId=...` text where 4.x prints JSON. Everything up to the
/// record's decoded part must still be the same.
fn older_line_format(version: &str, kafka: &str, kseg: &str) -> bool {
    if !version_at_least(version, 3, 0) {
        // 2.8's lines differ in form throughout: compared field by field (older_dump.rs).
        return crate::older_dump::agrees(kafka, kseg);
    }
    // 4.0 still printed 3.x's control records and transaction keys, and a space after each
    // producer snapshot entry.
    if version.starts_with("4.0.") && kafka.trim_end() == kseg {
        return true;
    }
    if !version.starts_with("3.") && !version.starts_with("4.0.") {
        return false;
    }
    // Before 3.5 (seen on 3.4.1) a producer snapshot's entries printed Scala's `None`/`Some(n)`
    // for currentTxnFirstOffset: compared field by field.
    if kafka.starts_with("producerId: ") && !version_at_least(version, 3, 5) {
        return crate::older_dump::agrees(kafka, kseg);
    }
    let Some(cut) = kafka.find("headerKeys: [] ") else {
        return false;
    };
    let (prefix, rest) = kafka.split_at(cut + "headerKeys: [] ".len());
    // Before 3.7 (seen on 3.6.2) the offsets decoder printed text keys and values too: compared
    // by what they say (group, partition, offset, metadata; protocol, generation, members).
    if rest.starts_with("key: offset_commit::") || rest.starts_with("key: group_metadata::") {
        return kseg.starts_with(prefix) && crate::older_dump::agrees(kafka, kseg);
    }
    kseg.starts_with(prefix)
        && (rest.starts_with("controlType: ") || rest.starts_with("key: transaction_metadata::"))
}

/// Java's and Rust's UTF-8 decoders do not always agree on how many U+FFFD a malformed
/// sequence becomes (Kafka printed a binary payload through `new String(bytes, UTF_8)`): a run
/// of replacement characters counts as one. The bytes themselves are compared in `--json`.
fn collapse_replacements(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut previous = None;
    for c in line.chars() {
        if !(c == '\u{FFFD}' && previous == Some('\u{FFFD}')) {
            out.push(c);
        }
        previous = Some(c);
    }
    out
}

struct DumpComparison {
    files: usize,
    lines: usize,
    differing_files: Vec<String>,
}

/// Runs DumpLogSegments and `kseg dump-log` with the same flags over the same files and compares
/// them line for line. The full comparison goes to target/tmp/oracle-V/dump-MODE.diff.
fn compare_dump(
    s: &Scenario,
    mode: &str,
    kafka_flags: &[&str],
    kseg_flags: &[&str],
    files: &[PathBuf],
) -> DumpComparison {
    assert!(
        !files.is_empty(),
        "no files for mode {mode} in {}",
        s.data.display()
    );
    // Kafka stops the whole run at the first index failing sanityCheck (CorruptIndexException);
    // kseg reports the same message for that file and goes on. Kafka is run again from the
    // file after it.
    let mut expected = Vec::new();
    let mut kafka_errors: Vec<(String, String)> = Vec::new();
    let mut rest: Vec<&PathBuf> = files.iter().collect();
    while !rest.is_empty() {
        let list = rest
            .iter()
            .map(|p| p.to_str().unwrap())
            .collect::<Vec<_>>()
            .join(",");
        let mut kafka = dump_log_segments(&s.version);
        kafka.args(kafka_flags).args(["--files", &list]);
        let out = run(kafka, Duration::from_secs(600));
        let dumped = by_file(&String::from_utf8_lossy(&out.stdout));
        if out.status.success() {
            expected.extend(dumped);
            break;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let exception = stderr
            .lines()
            .find_map(|l| l.strip_prefix("Exception in thread \"main\" "))
            .unwrap_or_else(|| panic!("DumpLogSegments failed: {stderr}"));
        let (class, message) = exception.split_once(": ").unwrap_or((exception, ""));
        assert!(
            class.ends_with("CorruptIndexException"),
            "DumpLogSegments failed: {stderr}"
        );
        let stopped_at = dumped
            .last()
            .map(|(f, _)| f.clone())
            .expect("a file before the exception");
        kafka_errors.push((stopped_at.clone(), message.to_string()));
        let at = rest
            .iter()
            .position(|p| p.to_str() == Some(&stopped_at))
            .expect("the file Kafka stopped at");
        expected.extend(dumped);
        rest.drain(..=at);
    }
    let list = files
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    let mut kseg = Command::new(kseg_bin());
    kseg.arg("dump-log")
        .args(kseg_flags)
        .args(["--files", &list]);
    let kseg_out = run(kseg, Duration::from_secs(600));
    let kseg_stderr = String::from_utf8_lossy(&kseg_out.stderr);
    for (file, message) in &kafka_errors {
        assert!(
            kseg_stderr.contains(message.as_str()),
            "Kafka {}: DumpLogSegments stopped at {file} with CorruptIndexException: {message}\nkseg said: {kseg_stderr}",
            s.version
        );
    }
    let actual = by_file(&unescape(&kseg_out.stdout));
    let mut report = String::new();
    let mut differing_files = Vec::new();
    let mut lines = 0;
    let actual_map: std::collections::BTreeMap<&str, &Vec<String>> =
        actual.iter().map(|(f, l)| (f.as_str(), l)).collect();
    for (file, want) in &expected {
        lines += want.len() + 1;
        let got = actual_map.get(file.as_str());
        let Some(got) = got else {
            differing_files.push(file.clone());
            report.push_str(&format!(
                "=== {file}: kseg printed no \"Dumping\" line for it\n"
            ));
            continue;
        };
        let allowed = |w: &String, g: &String| {
            older_line_format(&s.version, w, g)
                || collapse_replacements(w) == collapse_replacements(g)
        };
        if got.len() != want.len()
            || got
                .iter()
                .zip(want.iter())
                .any(|(g, w)| g != w && !allowed(w, g))
        {
            differing_files.push(file.clone());
            report.push_str(&format!("=== {file}\n"));
            let n = want.len().max(got.len());
            let mut shown = 0;
            for i in 0..n {
                let (w, g) = (want.get(i), got.get(i));
                if w != g && !matches!((w, g), (Some(w), Some(g)) if allowed(w, g)) {
                    report.push_str(&format!(
                        "line {}\n  kafka: {}\n  kseg:  {}\n",
                        i + 1,
                        w.map_or("<none>", |s| s),
                        g.map_or("<none>", |s| s)
                    ));
                    shown += 1;
                    if shown == 5 {
                        break;
                    }
                }
            }
        }
    }
    if expected.len() != actual.len() {
        report.push_str(&format!(
            "kafka dumped {} files, kseg {}\n",
            expected.len(),
            actual.len()
        ));
        differing_files.push("<file count>".into());
    }
    let path = work_root(&s.target.key()).join(format!("dump-{mode}.diff"));
    fs::write(&path, &report).unwrap();
    eprintln!(
        "dump-log parity, Kafka {} {mode}: {} files, {lines} lines, {} differing (report: {})",
        s.version,
        expected.len(),
        differing_files.len(),
        path.display()
    );
    DumpComparison {
        files: expected.len(),
        lines,
        differing_files,
    }
}

fn assert_dump_parity(
    mode: &str,
    kafka_flags: &[&str],
    kseg_flags: &[&str],
    keep: impl Fn(&Path) -> bool,
) {
    if skip() {
        return;
    }
    let mut failures = Vec::new();
    for v in targets() {
        if mode == "metadata" && v.zk() {
            eprintln!("dump-log parity, Kafka {v}: no __cluster_metadata in ZooKeeper mode");
            continue;
        }
        let s = scenario(&v);
        let list = data_files(&s.data, &keep);
        let c = compare_dump(s, mode, kafka_flags, kseg_flags, &list);
        assert!(c.files > 0 && c.lines > 0);
        if !c.differing_files.is_empty() {
            failures.push(format!(
                "Kafka {v}: {} of {} files differ, first {}; see {}",
                c.differing_files.len(),
                c.files,
                c.differing_files[0],
                work_root(&v.key())
                    .join(format!("dump-{mode}.diff"))
                    .display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "dump-log {mode} differs from DumpLogSegments:\n{}",
        failures.join("\n")
    );
}

fn data_log(p: &Path) -> bool {
    ext(p) == "log"
}

fn is_index(p: &Path) -> bool {
    matches!(ext(p), "index" | "timeindex")
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_default_matches_kafka() {
    assert_dump_parity("default", &[], &["--raw"], |p| {
        matches!(
            ext(p),
            "log" | "index" | "timeindex" | "snapshot" | "txnindex"
        )
    });
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_deep_iteration_matches_kafka() {
    assert_dump_parity(
        "deep",
        &["--deep-iteration"],
        &["--raw", "--deep-iteration"],
        data_log,
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_print_data_log_matches_kafka() {
    assert_dump_parity(
        "data",
        &["--print-data-log"],
        &["--raw", "--print-data-log"],
        data_log,
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_offsets_decoder_matches_kafka() {
    assert_dump_parity(
        "offsets",
        &["--offsets-decoder"],
        &["--offsets-decoder"],
        |p| data_log(p) && partition_dir(p).starts_with("__consumer_offsets-"),
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_transaction_log_decoder_matches_kafka() {
    assert_dump_parity(
        "txnlog",
        &["--transaction-log-decoder"],
        &["--transaction-log-decoder"],
        |p| data_log(p) && partition_dir(p).starts_with("__transaction_state-"),
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_cluster_metadata_decoder_matches_kafka() {
    // ZooKeeper-mode dirs have no __cluster_metadata: assert_dump_parity leaves them out.
    assert_dump_parity(
        "metadata",
        &["--cluster-metadata-decoder"],
        &["--cluster-metadata-decoder"],
        |p| matches!(ext(p), "log" | "checkpoint") && partition_dir(p) == "__cluster_metadata-0",
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_index_sanity_check_matches_kafka() {
    assert_dump_parity(
        "sanity",
        &["--index-sanity-check"],
        &["--index-sanity-check"],
        is_index,
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn dump_log_verify_index_only_matches_kafka() {
    assert_dump_parity(
        "verify",
        &["--verify-index-only"],
        &["--verify-index-only"],
        is_index,
    );
}

fn num(v: &serde_json::Value) -> i64 {
    v.as_i64().unwrap_or(-1)
}

/// The broker's ListOffsets answers, READ_UNCOMMITTED: key -> (offset, timestamp).
fn broker_lookups(s: &Scenario) -> std::collections::BTreeMap<String, (i64, i64)> {
    list_offsets(&s.answers)
        .into_iter()
        .filter_map(|a| {
            lookup_args(a).map(|(key, _)| (key, (num(&a["offset"]), num(&a["timestamp"]))))
        })
        .collect()
}

fn compare_lookups(
    what: &str,
    kafka: &std::collections::BTreeMap<String, (i64, i64)>,
    kseg: &std::collections::BTreeMap<String, (i64, i64)>,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (key, want) in kafka {
        // kseg says null where the broker says -1 (no offset, no timestamp).
        let got = kseg.get(key).map(|&(o, t)| (o, t));
        if got != Some(*want) {
            bad.push(format!("{what} {key}: broker {want:?}, kseg {got:?}"));
        }
    }
    bad
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn lookup_matches_list_offsets() {
    if skip() {
        return;
    }
    let mut bad = Vec::new();
    for v in targets() {
        let s = scenario(&v);
        let kafka = broker_lookups(s);
        assert!(
            kafka.len() > 1000,
            "Kafka {v}: only {} ListOffsets answers",
            kafka.len()
        );
        let partitions: std::collections::BTreeSet<&str> =
            kafka.keys().map(|k| k.split(' ').next().unwrap()).collect();
        let stopped = kseg_lookups(&s.data, &s.answers);
        let live = compare_lookups("live", &kafka, &s.live_lookups);
        let after = compare_lookups("stopped", &kafka, &stopped);
        eprintln!(
            "lookup parity, Kafka {v}: {} answers over {} partitions; {} differ live, {} after the stop",
            kafka.len(),
            partitions.len(),
            live.len(),
            after.len()
        );
        bad.extend(live.into_iter().map(|l| format!("Kafka {v} {l}")));
        bad.extend(after.into_iter().map(|l| format!("Kafka {v} {l}")));
    }
    let shown: Vec<_> = bad.iter().take(40).cloned().collect();
    assert!(
        bad.is_empty(),
        "{} lookups differ from ListOffsets:\n{}",
        bad.len(),
        shown.join("\n")
    );
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn groups_match_the_brokers_committed_offsets() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        let want: std::collections::BTreeSet<String> = s
            .answers
            .iter()
            .filter(|a| a["type"] == "groupOffset")
            .map(|a| {
                format!(
                    "{} {}-{} offset={} metadata={} leaderEpoch={}",
                    a["group"],
                    a["topic"].as_str().unwrap(),
                    a["partition"],
                    a["offset"],
                    a["metadata"],
                    a["leaderEpoch"]
                )
            })
            .collect();
        let out = kseg(&["groups", "--json", s.data.to_str().unwrap()]);
        let got: std::collections::BTreeSet<String> = ndjson(&String::from_utf8_lossy(&out.stdout))
            .iter()
            .filter(|a| a["type"] == "offset")
            .map(|a| {
                format!(
                    "{} {}-{} offset={} metadata={} leaderEpoch={}",
                    a["group"],
                    a["topic"].as_str().unwrap(),
                    a["partition"],
                    a["offset"],
                    a["metadata"],
                    a["leaderEpoch"]
                )
            })
            .collect();
        assert!(
            want.len() > 300,
            "Kafka {v}: only {} committed offsets",
            want.len()
        );
        let missing: Vec<_> = want.difference(&got).take(20).collect();
        let extra: Vec<_> = got.difference(&want).take(20).collect();
        eprintln!(
            "groups parity, Kafka {v}: {} committed offsets of {} groups",
            want.len(),
            s.answers.iter().filter(|a| a["type"] == "group").count()
        );
        assert!(missing.is_empty() && extra.is_empty(), "Kafka {v}: kseg groups differs from listConsumerGroupOffsets:\nmissing {missing:#?}\nextra {extra:#?}");
    }
}

fn partitions_of(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for t in v.as_array().into_iter().flatten() {
        if let Some(s) = t.as_str() {
            out.push(s.to_string());
            continue;
        }
        for p in t["partitions"].as_array().into_iter().flatten() {
            out.push(format!("{}-{}", t["topic"].as_str().unwrap(), p));
        }
    }
    out.sort();
    out
}

/// Whether the broker could not answer `what` (the workload's `unsupported` lines).
fn unsupported(s: &Scenario, what: &str) -> bool {
    s.answers
        .iter()
        .any(|a| a["type"] == "unsupported" && a["what"] == what)
}

/// Each transactional id's last state in the transaction log, as the version's DumpLogSegments
/// `--transaction-log-decoder` prints it (2.8's text form), in describeTransactions' terms.
fn last_transaction_states(s: &Scenario) -> Vec<serde_json::Value> {
    let logs = data_files(&s.data, |p| {
        data_log(p) && partition_dir(p).starts_with("__transaction_state-")
    });
    let list = logs
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    let mut kafka = dump_log_segments(&s.version);
    kafka.args(["--transaction-log-decoder", "--files", &list]);
    let text = run_ok(kafka, Duration::from_secs(600));
    let mut last: std::collections::BTreeMap<String, serde_json::Value> = Default::default();
    for line in text.lines() {
        let Some(at) = line.find(" key: transaction_metadata::transactionalId=") else {
            continue;
        };
        let rest = &line[at + " key: transaction_metadata::transactionalId=".len()..];
        let Some((id, payload)) = rest.split_once(" payload: ") else {
            continue;
        };
        if payload == "<DELETE>" {
            last.remove(id);
            continue;
        }
        let field = |name: &str| -> String {
            let at = payload.find(name).map(|i| i + name.len() + 1).unwrap_or(0);
            let rest = &payload[at..];
            let end = if rest.starts_with('[') {
                rest.find(']').map_or(rest.len(), |e| e + 1)
            } else {
                rest.find(',').unwrap_or(rest.len())
            };
            rest[..end].to_string()
        };
        let partitions: Vec<serde_json::Value> = field("partitions")
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| serde_json::Value::String(p.to_string()))
            .collect();
        let number =
            |name: &str| serde_json::Value::from(field(name).parse::<i64>().unwrap_or(i64::MIN));
        last.insert(
            id.to_string(),
            serde_json::json!({
                "transactionalId": id,
                "state": field("state"),
                "producerId": number("producerId"),
                "producerEpoch": number("producerEpoch"),
                "timeoutMs": number("txnTimeoutMs"),
                "partitions": partitions,
            }),
        );
    }
    last.into_values().collect()
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn transactions_match_describe_transactions() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        let key = |a: &serde_json::Value| {
            format!(
                "{} state={} producerId={} epoch={} timeoutMs={} partitions={:?}",
                a["transactionalId"],
                a["state"],
                a["producerId"],
                a["producerEpoch"],
                a["timeoutMs"],
                partitions_of(&a["partitions"])
            )
        };
        let want: std::collections::BTreeSet<String> = if unsupported(s, "transactions") {
            // 2.8 has no DescribeTransactions (KIP-664, 3.0): the expected states are the last
            // each transactional id's coordinator wrote, as 2.8's own DumpLogSegments decodes
            // the transaction log.
            last_transaction_states(s).iter().map(key).collect()
        } else {
            s.answers
                .iter()
                .filter(|a| a["type"] == "transaction")
                .map(key)
                .collect()
        };
        let out = kseg(&["transactions", "--json", s.data.to_str().unwrap()]);
        let rows = ndjson(&String::from_utf8_lossy(&out.stdout));
        let got: std::collections::BTreeSet<String> = rows
            .iter()
            .filter(|a| a["type"] == "transactionalId")
            .map(key)
            .collect();
        assert!(
            want.len() >= 4,
            "Kafka {v}: {} transactional ids",
            want.len()
        );
        assert_eq!(
            want, got,
            "Kafka {v}: kseg transactions differs from describeTransactions"
        );
        // The transaction left open at the stop is open in the data too, and not hanging.
        let open: Vec<_> = rows
            .iter()
            .filter(|a| a["type"] == "openTransaction")
            .collect();
        assert_eq!(open.len(), 1, "Kafka {v}: open transactions {open:?}");
        assert_eq!(open[0]["transactionalId"], "txn-open");
        assert_eq!(open[0]["hanging"], false);
        eprintln!(
            "transactions parity, Kafka {v}: {} transactional ids",
            want.len()
        );
    }
}

/// The group ids in Kafka's own `--offsets-decoder` dump, by the partition holding them.
fn groups_on_disk(
    s: &Scenario,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<u32>> {
    let logs = data_files(&s.data, |p| {
        data_log(p) && partition_dir(p).starts_with("__consumer_offsets-")
    });
    let list = logs
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    let mut kafka = dump_log_segments(&s.version);
    kafka.args(["--offsets-decoder", "--files", &list]);
    let text = run_ok(kafka, Duration::from_secs(600));
    let mut out: std::collections::BTreeMap<String, std::collections::BTreeSet<u32>> =
        Default::default();
    let mut partition = 0u32;
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("Dumping ") {
            let dir = partition_dir(Path::new(f));
            partition = dir.rsplit('-').next().unwrap().parse().unwrap();
            continue;
        }
        let Some(i) = line.find(" key: ") else {
            continue;
        };
        let rest = &line[i + 6..];
        let Some(end) = rest.find(" payload: ") else {
            continue;
        };
        // 2.8 decodes keys as text: offset_commit::group=G,partition=T-P, group_metadata::group=G.
        let text_key = &rest[..end];
        if let Some(g) = text_key
            .strip_prefix("offset_commit::group=")
            .and_then(|r| r.rsplit_once(",partition=").map(|(g, _)| g))
            .or_else(|| text_key.strip_prefix("group_metadata::group="))
        {
            out.entry(g.to_string()).or_default().insert(partition);
            continue;
        }
        let key: serde_json::Value = match serde_json::from_str(text_key) {
            Ok(k) => k,
            Err(_) => continue,
        };
        if let Some(g) = key["data"]["group"].as_str() {
            out.entry(g.to_string()).or_default().insert(partition);
        }
    }
    out
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn find_group_partition_names_the_partition_kafka_wrote() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        let on_disk = groups_on_disk(s);
        assert!(s.group_ids.len() >= 300, "{} group ids", s.group_ids.len());
        let mut args = vec!["find-group-partition", "--json"];
        args.extend(s.group_ids.iter().map(String::as_str));
        let out = kseg(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let answers = ndjson(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(answers.len(), s.group_ids.len());
        let mut bad = Vec::new();
        for a in &answers {
            let id = a["id"].as_str().unwrap();
            let want = on_disk
                .get(id)
                .unwrap_or_else(|| panic!("Kafka {v}: group {id:?} not in Kafka's offsets dump"));
            let got = a["partition"].as_u64().unwrap() as u32;
            if want.len() != 1 || !want.contains(&got) {
                bad.push(format!("{id:?}: Kafka wrote {want:?}, kseg says {got}"));
            }
        }
        eprintln!(
            "find-group-partition parity, Kafka {v}: {} group ids",
            answers.len()
        );
        assert!(bad.is_empty(), "Kafka {v}:\n{}", bad.join("\n"));
    }
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn kseg_reads_the_live_data_dir_without_false_errors() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        for (cmd, code, stderr) in &s.live_runs {
            assert!(
                !stderr.contains("panicked"),
                "Kafka {v}: kseg {cmd} panicked on the live dir: {stderr}"
            );
            assert!(
                *code == 0,
                "Kafka {v}: kseg {cmd} on the live dir exited {code}: {stderr}"
            );
        }
    }
}

/// Rows of kafka-consumer-groups.sh `--describe --offsets`: (group, topic-partition) ->
/// (current offset, log end offset, lag). Read from the right: a group id may hold spaces.
fn consumer_group_rows(
    text: &str,
) -> std::collections::BTreeMap<(String, String), (String, String, String)> {
    let mut rows = std::collections::BTreeMap::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() < 9 || cols[0] == "GROUP" {
            continue;
        }
        let n = cols.len();
        let (topic, partition) = (cols[n - 8], cols[n - 7]);
        if partition.parse::<u32>().is_err() {
            continue;
        }
        let group = cols[..n - 8].join(" ");
        rows.insert(
            (group, format!("{topic}-{partition}")),
            (
                cols[n - 6].to_string(),
                cols[n - 5].to_string(),
                cols[n - 4].to_string(),
            ),
        );
    }
    rows
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn groups_match_kafka_consumer_groups_describe() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        let kafka = consumer_group_rows(&s.tools["consumer-groups"]);
        let out = kseg(&["groups", "--json", s.data.to_str().unwrap()]);
        let show = |v: &serde_json::Value| {
            if v.is_null() {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        let got: std::collections::BTreeMap<(String, String), (String, String, String)> =
            ndjson(&String::from_utf8_lossy(&out.stdout))
                .iter()
                .filter(|a| a["type"] == "offset")
                .map(|a| {
                    (
                        (
                            a["group"].as_str().unwrap().to_string(),
                            format!("{}-{}", a["topic"].as_str().unwrap(), a["partition"]),
                        ),
                        (
                            show(&a["offset"]),
                            show(&a["logEndOffset"]),
                            show(&a["lag"]),
                        ),
                    )
                })
                .collect();
        assert!(
            kafka.len() > 300,
            "Kafka {v}: {} rows from kafka-consumer-groups",
            kafka.len()
        );
        let mut bad = Vec::new();
        for (key, want) in &kafka {
            if got.get(key) != Some(want) {
                bad.push(format!(
                    "{key:?}: kafka-consumer-groups {want:?}, kseg {:?}",
                    got.get(key)
                ));
            }
        }
        eprintln!(
            "kafka-consumer-groups parity, Kafka {v}: {} rows",
            kafka.len()
        );
        assert!(bad.is_empty(), "Kafka {v}:\n{}", bad.join("\n"));
    }
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn open_transactions_match_kafka_transactions_describe_producers() {
    if skip() {
        return;
    }
    for v in targets() {
        let s = scenario(&v);
        if !s.tools.contains_key("describe-producers txn-0") {
            // kafka-transactions.sh (DescribeProducers, KIP-664) came with 3.0; the open
            // transaction of a 2.8 dir is checked by transactions_match_describe_transactions.
            eprintln!("kafka-transactions parity, Kafka {v}: no kafka-transactions.sh before 3.0");
            continue;
        }
        // (partition, producer id) -> first offset of its open transaction, per Kafka.
        let mut kafka = std::collections::BTreeSet::new();
        for partition in [0, 1] {
            let text = &s.tools[&format!("describe-producers txn-{partition}")];
            let mut header: Vec<&str> = Vec::new();
            for line in text.lines() {
                let cols: Vec<&str> = line.split_whitespace().collect();
                if cols.first() == Some(&"ProducerId") {
                    header = cols;
                    continue;
                }
                let at = |name: &str| {
                    header
                        .iter()
                        .position(|h| *h == name)
                        .and_then(|i| cols.get(i))
                };
                if let (Some(pid), Some(start)) =
                    (at("ProducerId"), at("CurrentTransactionStartOffset"))
                {
                    if *start != "-1" && *start != "None" {
                        kafka.insert(format!("txn-{partition} producer {pid} open from {start}"));
                    }
                }
            }
        }
        let out = kseg(&["transactions", "--json", s.data.to_str().unwrap()]);
        let got: std::collections::BTreeSet<String> = ndjson(&String::from_utf8_lossy(&out.stdout))
            .iter()
            .filter(|a| a["type"] == "openTransaction")
            .map(|a| {
                format!(
                    "{}-{} producer {} open from {}",
                    a["topic"].as_str().unwrap(),
                    a["partition"],
                    a["producerId"],
                    a["firstOffset"]
                )
            })
            .collect();
        assert!(
            !kafka.is_empty(),
            "Kafka {v}: describe-producers shows no open transaction:\n{:?}",
            s.tools
        );
        assert_eq!(kafka, got, "Kafka {v}: open transactions");
        // find-hanging lists none (the open one is younger than the longest timeout), nor does kseg.
        let hanging = &s.tools["find-hanging"];
        assert!(
            hanging.lines().filter(|l| l.contains("txn")).count() == 0,
            "Kafka {v} find-hanging: {hanging}"
        );
        eprintln!(
            "kafka-transactions parity, Kafka {v}: {} open transactions",
            kafka.len()
        );
    }
}
