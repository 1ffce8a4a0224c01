//! Crash forensics against Kafka's own recovery: the real broker is killed with SIGKILL while
//! the real Java producers write; copies of its data dir go to `kseg verify-index`, to
//! `kseg recover`, and back to the real broker, whose recovery is the expected answer.

mod oracle;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use oracle::*;

/// Every partition dir of a log dir.
fn partitions(data: &Path) -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir() && p.join("partition.metadata").exists()
                || p.ends_with("__cluster_metadata-0")
        })
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The `.log` files of a partition dir with their sizes.
fn logs(dir: &Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "log") {
            out.insert(
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::metadata(&p).unwrap().len(),
            );
        }
    }
    out
}

/// Index entries of a partition dir (kseg's JSON of `.index` and `.timeindex`), by file.
fn index_entries(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let out = kseg(&["dump-log", "--json", dir.to_str().unwrap()]);
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in ndjson(&String::from_utf8_lossy(&out.stdout)) {
        let t = v["type"].as_str().unwrap_or("");
        if t == "indexEntry" || t == "timeIndexEntry" {
            let file = Path::new(v["file"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mut e = v.clone();
            e.as_object_mut().unwrap().remove("file");
            map.entry(file).or_default().push(e.to_string());
        }
    }
    map
}

fn log_end_offset(dir: &Path) -> i64 {
    let out = kseg(&["lookup", "--json", "--latest", dir.to_str().unwrap()]);
    ndjson(&String::from_utf8_lossy(&out.stdout))
        .first()
        .and_then(|v| v["offset"].as_i64())
        .unwrap_or_else(|| panic!("no log end offset for {}", dir.display()))
}

/// The segments Kafka's LogLoader said it recovered, per partition ("Recovering unflushed
/// segment N").
fn kafka_recovered(server_log: &str) -> BTreeMap<String, BTreeSet<i64>> {
    let mut out: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for line in server_log.lines() {
        let Some(at) = line.find("Recovering unflushed segment ") else {
            continue;
        };
        let Some(p) = line.find("partition=") else {
            continue;
        };
        let partition: String = line[p + 10..].chars().take_while(|c| *c != ',').collect();
        let base: String = line[at + 29..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        out.entry(partition)
            .or_default()
            .insert(base.parse().unwrap());
    }
    out
}

/// The log end offset each partition had when Kafka's load finished: "Completed load of
/// Log(dir=.../P, ... logEndOffset=N)" (LogManager), or for the KRaft metadata log, which
/// KafkaRaftLog loads itself, the producer snapshot LogLoader writes at the end of recovery.
fn kafka_loaded_end(server_log: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in server_log.lines() {
        if let Some(at) = line.find("Completed load of Log(dir=") {
            let rest = &line[at + 26..];
            let dir: String = rest.chars().take_while(|c| *c != ',').collect();
            let partition = Path::new(&dir).file_name().unwrap().to_string_lossy().into_owned();
            if let Some(e) = rest.find("logEndOffset=") {
                let n: String = rest[e + 13..].chars().take_while(|c| c.is_ascii_digit()).collect();
                out.insert(partition, n.parse().unwrap());
            }
        } else if line.contains("[ProducerStateManager partition=__cluster_metadata-0] Wrote producer snapshot at offset ") {
            let at = line.find("at offset ").unwrap() + 10;
            let n: String = line[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
            out.entry("__cluster_metadata-0".to_string()).or_insert(n.parse().unwrap());
        }
    }
    out
}

/// One crash round: write, SIGKILL, then compare kseg's preview and repair with Kafka's own
/// recovery of a copy.
fn crash_round(version: &str, name: &str, overrides: &[&str], run_for: Duration) -> Vec<String> {
    let root = work_root(version).join(format!("crash-{name}"));
    let _ = fs::remove_dir_all(&root);
    let mut broker = Broker::format_and_start(version, &root.join("broker"), overrides);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "600"]);
    flood.stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = flood.spawn().expect("starting the flood workload");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines.next();
    assert!(
        matches!(&ready, Some(Ok(l)) if l == "flooding"),
        "the workload did not start writing: {ready:?}"
    );
    thread::sleep(run_for);
    broker.kill9();
    let _ = child.kill();
    let _ = child.wait();

    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    copy_dir(&broker.data, &a);
    copy_dir(&broker.data, &b);
    fs::create_dir_all(&c).unwrap();
    copy_dir(&broker.data, &c.join("data"));

    // kseg's preview of the recovery, on copy A.
    let preview = kseg(&["verify-index", "--json", a.to_str().unwrap()]);
    let previews: BTreeMap<String, serde_json::Value> =
        ndjson(&String::from_utf8_lossy(&preview.stdout))
            .into_iter()
            .filter(|v| v["type"] == "recovery")
            .map(|v| (v["partition"].as_str().unwrap().to_string(), v))
            .collect();
    // kseg's repair, of copy B.
    let repaired = root.join("b-repaired");
    let all = partitions(&a);
    assert!(all.iter().any(|p| p == "crash-0"), "no crash-0 in {all:?}");
    for p in &all {
        let out = kseg(&[
            "recover",
            b.join(p).to_str().unwrap(),
            "--out",
            repaired.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "kseg recover {p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Kafka's own recovery, of copy C.
    let mut kafka = Broker::reopen(version, &c, overrides);
    kafka.start();
    let recovery_log = kafka.server_log();
    kafka.stop();

    let mut bad = Vec::new();
    let recovered = kafka_recovered(&recovery_log);
    assert!(
        recovered.contains_key("crash-0"),
        "Kafka recovered nothing of crash-0 after SIGKILL: {recovered:?}"
    );
    let segments: usize = recovered.values().map(BTreeSet::len).sum();
    let loaded = kafka_loaded_end(&recovery_log);
    for p in all.iter().map(String::as_str) {
        let kafka_dir = c.join("data").join(p);
        let kseg_dir = repaired.join(p);
        let se = log_end_offset(&kseg_dir);
        match loaded.get(p) {
            Some(&ke) if ke != se => bad.push(format!(
                "{name} {p}: log end offset after Kafka's load {ke}, kseg recover {se}"
            )),
            Some(_) => {}
            None => bad.push(format!(
                "{name} {p}: Kafka's log does not say where its load ended"
            )),
        }
        // After its load the restarted broker may write on (the controller's metadata log
        // always; markers of a transaction caught between PrepareCommit and CompleteCommit):
        // the files are compared where the log end is still the one of the load.
        if log_end_offset(&kafka_dir) != se {
            continue;
        }
        let (kl, sl) = (logs(&kafka_dir), logs(&kseg_dir));
        if kl != sl {
            bad.push(format!(
                "{name} {p}: segments after Kafka's recovery {kl:?}, kseg recover {sl:?}"
            ));
        }
        let (ki, si) = (index_entries(&kafka_dir), index_entries(&kseg_dir));
        if ki != si {
            let differing: Vec<_> = ki
                .keys()
                .chain(si.keys())
                .filter(|f| ki.get(*f) != si.get(*f))
                .collect();
            bad.push(format!("{name} {p}: index entries differ in {differing:?}"));
        }
        let want: BTreeSet<i64> = recovered.get(p).cloned().unwrap_or_default();
        let got: BTreeSet<i64> = previews
            .get(p)
            .and_then(|v| v["recoveredSegments"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|s| {
                s.as_i64().or_else(|| {
                    s.as_str()
                        .and_then(|f| Path::new(f).file_stem()?.to_str()?.parse().ok())
                })
            })
            .collect();
        if want != got {
            bad.push(format!(
                "{name} {p}: Kafka recovered segments {want:?}, verify-index previewed {got:?}"
            ));
        }
    }
    eprintln!(
        "crash parity, Kafka {version} round {name}: {} partitions, {segments} segments Kafka recovered, {} differences",
        all.len(),
        bad.len()
    );
    bad
}

#[test]
fn sigkill_recovery_matches_kafka() {
    if skip() {
        return;
    }
    let started = Instant::now();
    let mut bad = Vec::new();
    for v in versions() {
        bad.extend(crash_round(&v, "default", &[], Duration::from_secs(6)));
        bad.extend(crash_round(
            &v,
            "flush-every-message",
            &["log.flush.interval.messages=1"],
            Duration::from_secs(4),
        ));
    }
    eprintln!("crash parity took {:.0?}", started.elapsed());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
