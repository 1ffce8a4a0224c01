//! Crash forensics against Kafka's own recovery: the real broker is killed with SIGKILL while
//! the real Java producers write; copies of its data dir go to `kseg verify-index`, to
//! `kseg recover`, and back to the real broker, whose recovery is the expected answer.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use crate::harness::*;

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
            // Segments Kafka's recovery deletes stay as `.deleted` files until
            // file.delete.delay.ms (60 s) passes or the next load: not part of the log.
            if file.ends_with(".deleted") {
                continue;
            }
            let mut e = v.clone();
            e.as_object_mut().unwrap().remove("file");
            map.entry(file).or_default().push(e.to_string());
        }
    }
    map
}

/// Files of two partition dirs that differ byte for byte (or exist in one only), by name.
/// Kafka's `.deleted` files (segments and snapshots its load deletes, removed only after
/// file.delete.delay.ms) are not part of the log.
pub fn file_differences(kafka: &Path, kseg: &Path) -> Vec<String> {
    let files = |dir: &Path| -> BTreeMap<String, Vec<u8>> {
        fs::read_dir(dir)
            .map(|rd| {
                rd.map(|e| e.unwrap().path())
                    .filter(|p| p.is_file())
                    .map(|p| {
                        (
                            p.file_name().unwrap().to_string_lossy().into_owned(),
                            fs::read(&p).unwrap(),
                        )
                    })
                    .filter(|(n, _)| !n.ends_with(".deleted"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (k, s) = (files(kafka), files(kseg));
    let mut out = Vec::new();
    for name in k.keys().chain(s.keys().filter(|n| !k.contains_key(*n))) {
        match (k.get(name), s.get(name)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b))
                if name == "leader-epoch-checkpoint" && epoch_of_the_new_leader(a, b) => {}
            (Some(a), Some(b)) => out.push(format!(
                "{name} differs (Kafka {} bytes, kseg {} bytes)",
                a.len(),
                b.len()
            )),
            (Some(_), None) => out.push(format!("{name} only in Kafka's dir")),
            (None, Some(_)) => out.push(format!("{name} only in kseg's copy")),
            (None, None) => {}
        }
    }
    out
}

/// The entries of a log-dir offset checkpoint file, in file order: `None` when unreadable.
fn checkpoint_entries(text: &str) -> Option<Vec<(String, i32, i64)>> {
    let mut lines = text.lines();
    if lines.next()? != "0" {
        return None;
    }
    let n: usize = lines.next()?.parse().ok()?;
    let v: Vec<(String, i32, i64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() == 3)
                .then(|| Some((f[0].to_string(), f[1].parse().ok()?, f[2].parse().ok()?)))?
        })
        .collect::<Option<_>>()?;
    (v.len() == n).then_some(v)
}

/// The files at the root of Kafka's restarted-and-stopped log dir against `kseg recover`'s copy
/// of the log dir. Byte for byte, except what a running broker decides:
/// - `.kafka_cleanshutdown`'s broker epoch is the restarted broker's registration
///   (`BrokerLifecycleManager`); kseg's is the input's marker's, or -1 without one;
/// - the offsets of partitions the restarted broker wrote to after its load (not in `stable`);
/// - `recovery-point-offset-checkpoint` and `log-start-offset-checkpoint` list their entries by
///   bucket of `LogManager`'s `HashMap`s; entries sharing a bucket come in the order the load's
///   threads finished, which no reading of the dir decides: they may come in either order.
fn log_dir_file_differences(
    kafka: &Path,
    kseg: &Path,
    source: &Path,
    stable: &BTreeSet<String>,
) -> Vec<String> {
    use kseg::format::java_order::topic_partition_hash;
    let files = |dir: &Path| -> BTreeMap<String, Vec<u8>> {
        fs::read_dir(dir)
            .map(|rd| {
                rd.map(|e| e.unwrap().path())
                    .filter(|p| p.is_file())
                    .map(|p| {
                        (
                            p.file_name().unwrap().to_string_lossy().into_owned(),
                            fs::read(&p).unwrap(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (k, s) = (files(kafka), files(kseg));
    let mut out = Vec::new();
    for name in k.keys().chain(s.keys().filter(|n| !k.contains_key(*n))) {
        let (a, b) = match (k.get(name), s.get(name)) {
            (Some(a), Some(b)) => (a, b),
            (Some(_), None) => {
                out.push(format!("{name} only in Kafka's dir"));
                continue;
            }
            (None, _) => {
                out.push(format!("{name} only in kseg's copy"));
                continue;
            }
        };
        if a == b {
            continue;
        }
        let (ta, tb) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        if name == ".kafka_cleanshutdown" {
            let epoch = |t: &str| -> Option<(i64, i64)> {
                let v: serde_json::Value = serde_json::from_str(t).ok()?;
                Some((v["version"].as_i64()?, v["brokerEpoch"].as_i64()?))
            };
            let input = fs::read_to_string(source.join(name)).ok();
            let want = input.as_deref().map_or(Some(-1), |t| epoch(t).map(|e| e.1));
            match (epoch(&ta), epoch(&tb)) {
                (Some((0, _)), Some((0, e))) if Some(e) == want => {}
                _ => out.push(format!("{name}: Kafka {ta:?}, kseg {tb:?}")),
            }
            continue;
        }
        let (Some(ea), Some(eb)) = (checkpoint_entries(&ta), checkpoint_entries(&tb)) else {
            out.push(format!(
                "{name} differs (Kafka {} bytes, kseg {} bytes)",
                a.len(),
                b.len()
            ));
            continue;
        };
        let key = |e: &(String, i32, i64)| (e.0.clone(), e.1);
        let values = |v: &[(String, i32, i64)]| -> BTreeMap<(String, i32), i64> {
            v.iter()
                .filter(|e| stable.contains(&format!("{}-{}", e.0, e.1)))
                .map(|e| (key(e), e.2))
                .collect()
        };
        let keys =
            |v: &[(String, i32, i64)]| -> BTreeSet<(String, i32)> { v.iter().map(key).collect() };
        if keys(&ea) != keys(&eb) {
            out.push(format!(
                "{name}: partitions differ: Kafka {:?}, kseg {:?}",
                keys(&ea),
                keys(&eb)
            ));
            continue;
        }
        let (va, vb) = (values(&ea), values(&eb));
        for (p, v) in &va {
            if vb.get(p) != Some(v) {
                out.push(format!(
                    "{name}: {}-{}: Kafka {v}, kseg {:?}",
                    p.0,
                    p.1,
                    vb.get(p)
                ));
            }
        }
        let in_order =
            |v: &[(String, i32, i64)]| -> Vec<(String, i32)> { v.iter().map(key).collect() };
        let same_order = if name.starts_with("recovery-point") || name.starts_with("log-start") {
            // By bucket of the HashMap LogManager collects the entries into.
            let mut capacity = 16usize;
            while ea.len() > capacity / 4 * 3 {
                capacity *= 2;
            }
            let bucket = |e: &(String, i32, i64)| {
                let h = topic_partition_hash(&e.0, e.1) as u32;
                (h ^ (h >> 16)) as usize & (capacity - 1)
            };
            ea.iter().map(bucket).eq(eb.iter().map(bucket))
        } else {
            in_order(&ea) == in_order(&eb)
        };
        if !same_order {
            out.push(format!(
                "{name}: entry order: Kafka {:?}, kseg {:?}",
                in_order(&ea),
                in_order(&eb)
            ));
        }
    }
    out
}

/// Kafka's `leader-epoch-checkpoint` after its restart is the load's (kseg's copy) plus the
/// epoch the restarted broker leads the partition in, from the log end on
/// (`Partition.makeLeader` → `UnifiedLog.maybeAssignEpochStartOffset`): a runtime entry, not
/// the load's, whose epoch only the controller knows. (That write also replaces a stale
/// `leader-epoch-checkpoint.tmp` the load leaves, which kseg's copy does not have.)
fn epoch_of_the_new_leader(kafka: &[u8], kseg: &[u8]) -> bool {
    let entries = |b: &[u8]| -> Option<Vec<(i64, i64)>> {
        let text = String::from_utf8(b.to_vec()).ok()?;
        // An empty file (a write torn by SIGKILL) reads as no entry (CheckpointFile), and the
        // load leaves it as it is.
        if text.is_empty() {
            return Some(Vec::new());
        }
        let mut lines = text.lines();
        let _version = lines.next()?;
        let n: usize = lines.next()?.parse().ok()?;
        let v: Vec<(i64, i64)> = lines
            .map(|l| {
                let (e, o) = l.split_once(' ')?;
                Some((e.parse().ok()?, o.parse().ok()?))
            })
            .collect::<Option<_>>()?;
        (v.len() == n).then_some(v)
    };
    let (Some(k), Some(s)) = (entries(kafka), entries(kseg)) else {
        return false;
    };
    k.len() == s.len() + 1
        && k[..s.len()] == s[..]
        && s.last()
            .is_none_or(|(e, o)| k[s.len()].0 > *e && k[s.len()].1 >= *o)
}

pub(crate) fn log_end_offset(dir: &Path) -> i64 {
    let out = kseg(&["lookup", "--json", "--latest", dir.to_str().unwrap()]);
    ndjson(&String::from_utf8_lossy(&out.stdout))
        .first()
        .and_then(|v| v["offset"].as_i64())
        .unwrap_or_else(|| panic!("no log end offset for {}", dir.display()))
}

/// The segments of partition `p` of the log dir `source` that Kafka 4.4's
/// `LogLoader.loadSegmentFiles` recovers without a line in its log: a `.log` without its `.index`
/// (a segment rolled just before the SIGKILL, whose lazily created index was never opened) at
/// or above the recovery point, without clean-shutdown credit — it logs "Could not find offset
/// index file" only below the recovery point or after a clean shutdown. The metadata log gets
/// no credit and recovery point 0, as `KafkaMetadataLog` opens it.
fn silently_recovered(source: &Path, p: &str) -> BTreeSet<i64> {
    let metadata = p == "__cluster_metadata-0";
    if source.join(".kafka_cleanshutdown").exists() && !metadata {
        return BTreeSet::new();
    }
    let recovery_point = if metadata {
        0
    } else {
        checkpoint_of(source, "recovery-point-offset-checkpoint", p).unwrap_or(0)
    };
    let dir = source.join(p);
    let Ok(entries) = fs::read_dir(&dir) else {
        return BTreeSet::new();
    };
    entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let base: i64 = name.strip_suffix(".log")?.parse().ok()?;
            let index = dir.join(format!("{base:020}.index"));
            (base >= recovery_point && !index.exists()).then_some(base)
        })
        .collect()
}

/// The segments Kafka's LogLoader said it recovered, per partition: "Recovering unflushed
/// segment N" (after the recovery point), and "Could not find offset index file corresponding
/// to log file F, recovering segment" / "Found a corrupted index file corresponding to log
/// file F" (loadSegmentFiles, even after a clean shutdown).
fn kafka_recovered(server_log: &str) -> BTreeMap<String, BTreeSet<i64>> {
    let mut out: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for line in server_log.lines() {
        for cue in [
            "Could not find offset index file corresponding to log file ",
            "Found a corrupted index file corresponding to log file ",
        ] {
            if let (Some(at), Some(p)) = (line.find(cue), line.find("partition=")) {
                let partition: String = line[p + 10..].chars().take_while(|c| *c != ',').collect();
                let file: String = line[at + cue.len()..]
                    .chars()
                    .take_while(|c| *c != ',' && *c != ' ')
                    .collect();
                if let Some(base) = Path::new(&file)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .and_then(|s| s.parse().ok())
                {
                    out.entry(partition).or_default().insert(base);
                }
            }
        }
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
/// recovery of a copy. Beside the flood, an acks=all producer records every offset the broker
/// acknowledged (topic `acked`); its partitions are damaged where recovery truncates, above
/// the high watermark (`acked-0`) and below it (`acked-1`), and the acknowledged records
/// Kafka's restart loses are held to kseg's bounds.
fn crash_round(version: &str, name: &str, overrides: &[&str], run_for: Duration) -> Vec<String> {
    let root = Scratch::new(work_root(version).join(format!("crash-{name}")));
    let mut broker = Broker::format_and_start(version, &root.join("broker"), overrides);
    let acks = root.join("acked.txt");
    let mut child = start_flood(&broker.bootstrap(), &acks, 1);
    thread::sleep(run_for);
    broker.kill9();
    let _ = child.kill();
    let _ = child.wait();
    let bad = after_sigkill(version, name, &root, &broker.data, &acks, overrides);
    root.keep_if_any(&bad);
    bad
}

/// Starts the flood workload (topics replicated `replicas` times, every acks=all offset
/// recorded in `acks`) for ten minutes, returning once it says it is writing; the caller
/// SIGKILLs the brokers under it.
fn start_flood(bootstrap: &str, acks: &Path, replicas: u32) -> std::process::Child {
    let mut flood = workload_command(&[
        "flood",
        bootstrap,
        "600",
        acks.to_str().unwrap(),
        &replicas.to_string(),
    ]);
    flood.stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = flood.spawn().expect("starting the flood workload");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines.next();
    assert!(
        matches!(&ready, Some(Ok(l)) if l == "flooding"),
        "the workload did not start writing: {ready:?}"
    );
    child
}

/// The SIGKILLed log dir `data`, damaged where recovery truncates ([`damage_acked`]), against
/// Kafka's restart on a copy: the comparison of [`compare_with_kafka`] and the acknowledged
/// loss held to kseg's bounds.
fn after_sigkill(
    version: &str,
    name: &str,
    root: &Path,
    data: &Path,
    acks: &Path,
    overrides: &[&str],
) -> Vec<String> {
    let damaged = root.join("damaged");
    copy_dir(data, &damaged);
    let damage = damage_acked(&damaged);
    let mut bad = compare_with_kafka(version, name, root, &damaged, overrides);
    let recovered = kafka_recovered(&fs::read_to_string(root.join("c/server.log")).unwrap());
    assert!(
        recovered.contains_key("crash-0"),
        "{name}: Kafka recovered nothing of crash-0 after SIGKILL: {recovered:?}\n{bad:?}"
    );
    bad.extend(acknowledged_loss_bounds(version, name, root, acks, &damage));
    bad
}

/// The acknowledged-loss bounds in a 3-broker cluster (a controller beside), every topic
/// replicated 3 times: the acks=all producer's records are acknowledged once every in-sync
/// replica has them. Broker 1 leads both `acked` partitions (their preferred leader), so its
/// log holds every acknowledged record and its checkpointed high watermark is the leader's.
/// All three brokers are SIGKILLed; broker 1's log dir is damaged and restarted as in the
/// single-broker round.
fn cluster_crash_round(version: &str, run_for: Duration) -> Vec<String> {
    let name = "cluster-rf3";
    let root = Scratch::new(work_root(version).join(format!("crash-{name}")));
    let overrides = ["replica.high.watermark.checkpoint.interval.ms=1000"];
    let mut cluster = Cluster::format_and_start(version, &root.join("cluster"), 3, &overrides);
    let acks = root.join("acked.txt");
    let mut child = start_flood(&cluster.bootstrap(), &acks, 3);
    thread::sleep(run_for);
    for id in 1..=3 {
        cluster.broker(id).kill9();
    }
    let _ = child.kill();
    let _ = child.wait();
    cluster.controller.kill9();
    let data = cluster.broker(1).data.clone();
    let bad = after_sigkill(version, name, &root, &data, &acks, &overrides);
    // Restarted alone, broker 1 soon leads every partition with an in-sync set of itself (the
    // others are gone), and its high watermark moves to its log end: a runtime step of the
    // restart, not of the load, whose high watermark kseg's copy keeps as the load leaves it.
    let kafka_data = root.join("c/data");
    let bad: Vec<String> = bad
        .into_iter()
        .filter(|d| {
            let Some(rest) =
                d.strip_prefix(&format!("{name} log dir: replication-offset-checkpoint: "))
            else {
                return true;
            };
            let Some((p, values)) = rest.split_once(": Kafka ") else {
                return true;
            };
            let kafka_hw: Option<i64> = values.split(',').next().and_then(|v| v.parse().ok());
            kafka_hw != Some(log_end_offset(&kafka_data.join(p)))
        })
        .collect();
    root.keep_if_any(&bad);
    bad
}

/// Where [`damage_acked`] damaged an `acked` partition: its checkpointed high watermark and
/// the first offset of the batch the zeros begin in.
#[derive(Debug)]
struct AckedDamage {
    high_watermark: Option<i64>,
    batch_base: i64,
}

/// Zeroes the tail of an `acked` partition from inside one batch to the end of its segment:
/// in `acked-0` the batch holding the checkpointed high watermark (the tail beyond what the
/// checkpoint says was acknowledged), in `acked-1` the batch holding half of it (below).
fn damage_acked(data: &Path) -> BTreeMap<String, AckedDamage> {
    let mut out = BTreeMap::new();
    for (p, below) in [("acked-0", false), ("acked-1", true)] {
        let hw = checkpoint_of(data, "replication-offset-checkpoint", p);
        let target = match hw {
            Some(h) if below => h / 2,
            Some(h) => h,
            None => i64::MAX,
        };
        let mut batches: Vec<(std::path::PathBuf, serde_json::Value)> = Vec::new();
        for log in segment_logs(&data.join(p)) {
            batches.extend(batches_of(&log).into_iter().map(|(b, _)| (log.clone(), b)));
        }
        assert!(!batches.is_empty(), "no batch in {p}");
        let (log, batch) = batches
            .iter()
            .find(|(_, b)| b["lastOffset"].as_i64().unwrap() >= target)
            .unwrap_or_else(|| batches.last().unwrap());
        let at = batch["position"].as_u64().unwrap() + 30;
        let len = fs::metadata(log).unwrap().len();
        write_at(log, at, &vec![0u8; (len - at.min(len)) as usize]);
        out.insert(
            p.to_string(),
            AckedDamage {
                high_watermark: hw,
                batch_base: batch["baseOffset"].as_i64().unwrap(),
            },
        );
    }
    out
}

/// The acknowledged records Kafka's restart lost (the offsets the acks=all producer recorded,
/// at or past the log end after the restart) against kseg's preview of the damaged dir: "at
/// least" is never above it, and "at least" + "up to" never below it.
fn acknowledged_loss_bounds(
    version: &str,
    name: &str,
    root: &Path,
    acks: &Path,
    damage: &BTreeMap<String, AckedDamage>,
) -> Vec<String> {
    let recorded: Vec<(i32, i64)> = fs::read_to_string(acks)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (p, o) = l.split_once(' ')?;
            Some((p.parse().ok()?, o.parse().ok()?))
        })
        .collect();
    let mut bad = Vec::new();
    if recorded.is_empty() {
        return vec![format!(
            "{name}: the acks=all producer recorded no acknowledged offset"
        )];
    }
    let verify = kseg(&["verify-index", "--json", root.join("a").to_str().unwrap()]);
    let lines = ndjson(&String::from_utf8_lossy(&verify.stdout));
    for (p, d) in damage {
        let partition: i32 = p.rsplit_once('-').unwrap().1.parse().unwrap();
        let rec = lines
            .iter()
            .find(|v| v["type"] == "recovery" && v["partition"] == p.as_str())
            .cloned()
            .unwrap_or_default();
        let certain = rec["acknowledgedLost"]["records"].as_i64().unwrap_or(0);
        let possible = rec["possiblyAcknowledged"]["records"].as_i64().unwrap_or(0);
        // Zeros through the end of the active segment leave records whose offsets no byte
        // tells: kseg says so, and then bounds only from below.
        let open = rec["unreadableEnd"] == true;
        let kafka_end = log_end_offset(&root.join("c/data").join(p));
        let acked = recorded.iter().filter(|(q, _)| *q == partition).count();
        let lost = recorded
            .iter()
            .filter(|(q, o)| *q == partition && *o >= kafka_end)
            .count() as i64;
        eprintln!(
            "acknowledged loss, Kafka {version} round {name} {p}: high watermark {:?}, zeros from batch {}, Kafka's end {kafka_end}: {lost} of {acked} acknowledged offsets lost; kseg at least {certain}, up to {possible} more{}",
            d.high_watermark, d.batch_base, if open { ", and any in the unreadable end" } else { "" }
        );
        if certain > lost || (!open && lost > certain + possible) {
            bad.push(format!(
                "{name} {p}: {lost} acknowledged records lost after Kafka's restart, kseg says at least {certain}, up to {possible} more"
            ));
        }
        // Below the high watermark the loss is certain: kseg must say so, as an error.
        let below = d.high_watermark.is_some_and(|h| d.batch_base < h);
        if below && (certain == 0 || verify.status.code() != Some(1)) {
            bad.push(format!(
                "{name} {p}: zeros below the high watermark {:?} (batch {}), kseg says at least {certain} lost (exit {:?})",
                d.high_watermark,
                d.batch_base,
                verify.status.code()
            ));
        }
    }
    bad
}

/// What Kafka's start does to a copy of `source`, against kseg's preview (`verify-index` on
/// copy A) and repair (`recover --out` of copy B); Kafka runs on copy C. Differences, or
/// `Err` with Kafka's words when it refused to start on the copy.
pub(crate) fn compare_with_kafka(
    version: &str,
    name: &str,
    root: &Path,
    source: &Path,
    overrides: &[&str],
) -> Vec<String> {
    match try_compare_with_kafka(version, name, root, source, overrides) {
        Ok(bad) => bad,
        Err(why) => vec![format!("{name}: Kafka refused the data dir: {why}")],
    }
}

fn try_compare_with_kafka(
    version: &str,
    name: &str,
    root: &Path,
    source: &Path,
    overrides: &[&str],
) -> Result<Vec<String>, String> {
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    copy_dir(source, &a);
    copy_dir(source, &b);
    fs::create_dir_all(&c).unwrap();
    copy_dir(source, &c.join("data"));

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
    for p in &all {
        let out = kseg(&[
            "recover",
            b.join(p).to_str().unwrap(),
            "--out",
            repaired.to_str().unwrap(),
        ]);
        // Exit 1 only for a copy that keeps damage Kafka keeps too ("still damaged").
        let kept_damage = out.status.code() == Some(1)
            && String::from_utf8_lossy(&out.stdout).contains("still damaged: ");
        assert!(
            out.status.success() || kept_damage,
            "kseg recover {p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // kseg's repair of the whole log dir, of copy B: refused (nothing written) where Kafka will
    // not start.
    let whole = root.join("b-logdir");
    let whole_run = kseg(&[
        "recover",
        "--json",
        b.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
    ]);
    let whole_summary = ndjson(&String::from_utf8_lossy(&whole_run.stdout))
        .pop()
        .unwrap_or_default();
    // Kafka's own recovery, of copy C.
    let mut kafka = Broker::reopen(version, &c, overrides);
    if let Err(why) = kafka.try_start() {
        let refused = whole_run.status.code() == Some(1)
            && whole_summary["written"] == false
            && !whole.exists();
        return Err(if refused {
            why
        } else {
            format!(
                "{why}\n(and kseg recover of the log dir did not refuse: exit {:?}, {whole_summary})",
                whole_run.status.code()
            )
        });
    }
    let recovery_log = kafka.server_log();
    kafka.stop();

    let mut bad = Vec::new();
    let whole_ok = whole_run.status.success()
        || (whole_run.status.code() == Some(1)
            && whole_summary["stillDamaged"]
                .as_array()
                .is_some_and(|d| !d.is_empty()));
    if !whole_ok || whole_summary["type"] != "summary" {
        bad.push(format!(
            "{name}: kseg recover of the log dir: exit {:?}, {whole_summary}\n{}",
            whole_run.status.code(),
            String::from_utf8_lossy(&whole_run.stderr)
        ));
    }
    // Partitions whose log end after the restart is the load's (see below).
    let mut stable: BTreeSet<String> = BTreeSet::new();
    let recovered = kafka_recovered(&recovery_log);
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
        // The log dir's recover writes each partition as the partition's recover does.
        for d in file_differences(&kseg_dir, &whole.join(p)) {
            bad.push(format!(
                "{name} {p}: recover of the partition dir / of the log dir: {d}"
            ));
        }
        if log_end_offset(&kafka_dir) != se {
            continue;
        }
        stable.insert(p.to_string());
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
        // Byte for byte: every file of the partition dir.
        for d in file_differences(&kafka_dir, &kseg_dir) {
            bad.push(format!("{name} {p}: {d}"));
        }
        let mut want: BTreeSet<i64> = recovered.get(p).cloned().unwrap_or_default();
        want.extend(silently_recovered(source, p));
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
    // The log dir's own files, against Kafka's after its clean stop.
    for d in log_dir_file_differences(&c.join("data"), &whole, source, &stable) {
        bad.push(format!("{name} log dir: {d}"));
    }
    eprintln!(
        "crash parity, Kafka {version} round {name}: {} partitions, {segments} segments Kafka recovered, {} differences",
        all.len(),
        bad.len()
    );
    Ok(bad)
}

/// The `.log` files of a partition dir, in offset order.
pub(crate) fn segment_logs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    v
}

fn write_at(path: &Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

/// Damage done to a copy of a cleanly stopped data dir, by name.
fn damage(data: &Path, kind: &str) {
    let p0 = data.join("crash-0");
    let logs = segment_logs(&p0);
    let (first, last) = (&logs[0], logs.last().unwrap());
    let marker = data.join(".kafka_cleanshutdown");
    match kind {
        "flip-sealed" => write_at(first, 200, &[0xA5]),
        "flip-active" => {
            // A byte the CRC covers (in the records, past the 61-byte v2 header, whose first 21
            // bytes it does not cover: base offset, length, leader epoch, magic, the CRC) of the
            // batch holding the middle of the active segment: a CRC-bad batch. A flip in the base offset field instead passes the CRC
            // and makes Kafka split the segment (README, "Where kseg's recovery still differs").
            let mid = fs::metadata(last).unwrap().len() / 2;
            let batches = batches_of(last);
            let (b, _) = batches
                .iter()
                .rev()
                .find(|(b, _)| b["position"].as_u64().unwrap() <= mid)
                .expect("a batch in the active segment");
            let (at, size) = (b["position"].as_u64().unwrap(), b["size"].as_u64().unwrap());
            write_at(last, at + 61 + (size - 61) / 2, &[0x5A]);
            fs::remove_file(&marker).unwrap();
        }
        "truncate-mid-batch" => {
            let len = fs::metadata(last).unwrap().len();
            fs::OpenOptions::new()
                .write(true)
                .open(last)
                .unwrap()
                .set_len(len - 37)
                .unwrap();
            fs::remove_file(&marker).unwrap();
        }
        "zero-tail" => {
            let len = fs::metadata(last).unwrap().len();
            write_at(last, len, &[0u8; 4096]);
            fs::remove_file(&marker).unwrap();
        }
        "delete-index" => fs::remove_file(first.with_extension("index")).unwrap(),
        "delete-timeindex" => fs::remove_file(first.with_extension("timeindex")).unwrap(),
        "corrupt-snapshot" => {
            let dir = data.join("crash-txn-0");
            let mut snaps: Vec<_> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "snapshot"))
                .collect();
            snaps.sort();
            let snap = snaps.last().expect("a producer snapshot in crash-txn-0");
            write_at(snap, 10, &[0xFF; 8]);
        }
        "corrupt-leader-epoch-checkpoint" => {
            fs::write(p0.join("leader-epoch-checkpoint"), "0\n2\nnot an entry\n").unwrap()
        }
        "no-clean-shutdown" => fs::remove_file(&marker).unwrap(),
        "renamed-base-offset" => {
            let second = &logs[1];
            let base: i64 = second
                .file_stem()
                .unwrap()
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            for ext in ["log", "index", "timeindex"] {
                let from = second.with_extension(ext);
                if from.exists() {
                    fs::rename(&from, p0.join(format!("{:020}.{ext}", base + 1))).unwrap();
                }
            }
        }
        "killed-mid-roll" => {
            // A SIGKILL in the middle of a segment roll (`LocalLog.roll`): the new segment's
            // `.log` is made (empty, no index yet), while the old active segment still has its
            // preallocated indexes (`segment.index.bytes`, 10 MiB of zeros past the entries),
            // trimmed only when the roll completes.
            let next = batches_of(last)
                .last()
                .map(|(b, _)| b["lastOffset"].as_i64().unwrap() + 1)
                .expect("a batch in the active segment");
            fs::write(p0.join(format!("{next:020}.log")), b"").unwrap();
            for ext in ["index", "timeindex"] {
                let f = fs::OpenOptions::new()
                    .write(true)
                    .open(last.with_extension(ext))
                    .unwrap();
                f.set_len(10 * 1024 * 1024).unwrap();
            }
            fs::remove_file(&marker).unwrap();
        }
        other => panic!("unknown damage {other}"),
    }
}

const DAMAGES: [&str; 11] = [
    "flip-sealed",
    "flip-active",
    "truncate-mid-batch",
    "zero-tail",
    "delete-index",
    "delete-timeindex",
    "corrupt-snapshot",
    "corrupt-leader-epoch-checkpoint",
    "no-clean-shutdown",
    "renamed-base-offset",
    "killed-mid-roll",
];

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn injected_damage_recovery_matches_kafka() {
    if skip() {
        return;
    }
    // The newest version only: the load rules are the same, and each case is a broker start.
    let version = &versions()[0];
    let root = Scratch::new(work_root(version).join("damage"));
    let mut broker = Broker::format_and_start(version, &root.join("broker"), &[]);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "4"]);
    flood.stdout(Stdio::null()).stderr(Stdio::null());
    let status = flood.status().expect("running the flood workload");
    assert!(status.success(), "flood workload: {status}");
    broker.stop();
    let mut report = Vec::new();
    let mut bad = Vec::new();
    // KSEG_ORACLE_DAMAGES=a,b narrows the cases while working on one (never in CI).
    let only = std::env::var("KSEG_ORACLE_DAMAGES")
        .ok()
        .filter(|_| !in_ci());
    for kind in DAMAGES
        .into_iter()
        .filter(|k| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == *k)))
    {
        let case_root = root.join(kind);
        let differences_before = bad.len();
        let damaged = case_root.join("source");
        copy_dir(&broker.data, &damaged);
        damage(&damaged, kind);
        let found = compare_with_kafka(version, kind, &case_root, &damaged, &[]);
        let verify = kseg(&[
            "verify-index",
            "--json",
            case_root.join("a").to_str().unwrap(),
        ]);
        let errors: Vec<String> = ndjson(&String::from_utf8_lossy(&verify.stdout))
            .iter()
            .filter(|v| v["type"] == "finding" && v["severity"] == "error")
            .map(|v| format!("{}: {}", v["check"], v["message"]))
            .collect();
        let refused = found
            .iter()
            .any(|f| f.contains("Kafka refused the data dir"));
        report.push(format!(
            "{kind}: Kafka {}; kseg verify-index exit {} with {} error findings",
            if refused {
                "refused to start"
            } else {
                "started"
            },
            verify.status.code().unwrap_or(-1),
            errors.len()
        ));
        // The verdict, the first line, says whether Kafka starts.
        let starts = ndjson(&String::from_utf8_lossy(&verify.stdout))
            .first()
            .map(|v| v["kafkaStarts"].clone())
            .unwrap_or_default();
        if starts != serde_json::Value::Bool(!refused) {
            bad.push(format!(
                "{kind}: Kafka {}, verify-index's verdict kafkaStarts={starts}",
                if refused {
                    "refused to start"
                } else {
                    "started"
                }
            ));
        }
        if refused {
            // Kafka will not load it: kseg must say so as an error, not preview a recovery.
            if errors.is_empty() || verify.status.code() != Some(1) {
                bad.push(format!(
                    "{kind}: Kafka refused to start ({found:?}) but verify-index found no error"
                ));
            }
        } else {
            bad.extend(found);
        }
        discard_case(&case_root, differences_before, &bad);
    }
    eprintln!("injected damage, Kafka {version}:\n{}", report.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn sigkill_recovery_matches_kafka() {
    if skip() {
        return;
    }
    let started = Instant::now();
    let mut bad = Vec::new();
    // The KRaft crash rounds of 4.4.0 and 3.9.1 (issue 41: the older versions' and ZooKeeper
    // mode's load rules are not yet compared after a SIGKILL; a round is minutes of CI).
    let all: Vec<String> = versions()
        .into_iter()
        .filter(|v| v == "4.4.0" || v == "3.9.1")
        .collect();
    assert!(!all.is_empty(), "4.4.0 or 3.9.1 in oracle/versions");
    for v in &all {
        // The high watermark checkpointed every second (default 5 s), so that the acks=all
        // partitions have one before the SIGKILL.
        bad.extend(crash_round(
            v,
            "default",
            &["replica.high.watermark.checkpoint.interval.ms=1000"],
            Duration::from_secs(6),
        ));
    }
    // Flushing every message moves the recovery point with the log end: the newest version
    // only (the load rules it exercises are the same in each, and a round is minutes of CI).
    bad.extend(crash_round(
        &all[0],
        "flush-every-message",
        &[
            "log.flush.interval.messages=1",
            "replica.high.watermark.checkpoint.interval.ms=1000",
        ],
        Duration::from_secs(4),
    ));
    eprintln!("crash parity took {:.0?}", started.elapsed());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The acknowledged-loss bounds where acks=all means every in-sync replica of three
/// ([`cluster_crash_round`]): the newest version only.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn sigkill_in_a_replicated_cluster_matches_kafka() {
    if skip() {
        return;
    }
    let bad = cluster_crash_round(&versions()[0], Duration::from_secs(6));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Sets one partition's entry of a log dir checkpoint file (`recovery-point-offset-checkpoint`,
/// `replication-offset-checkpoint`).
pub(crate) fn set_checkpoint(data: &Path, file: &str, partition: &str, offset: i64) {
    let path = data.join(file);
    let text = fs::read_to_string(&path).unwrap();
    let (topic, part) = partition.rsplit_once('-').unwrap();
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(' ').collect();
            if i >= 2 && f.len() == 3 && f[0] == topic && f[1] == part {
                found = true;
                format!("{topic} {part} {offset}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(found, "{partition} not in {}", path.display());
    fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// The checkpointed high watermark of a partition.
fn checkpoint_of(data: &Path, file: &str, partition: &str) -> Option<i64> {
    let (topic, part) = partition.rsplit_once('-')?;
    fs::read_to_string(data.join(file))
        .ok()?
        .lines()
        .skip(2)
        .find_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() == 3 && f[0] == topic && f[1] == part).then(|| f[2].parse().ok())?
        })
}

/// The batches of a log (kseg's JSON): (position, base offset, last offset, batch JSON) and the
/// control type of each control batch.
fn batches_of(log: &Path) -> Vec<(serde_json::Value, Option<String>)> {
    let out = kseg(&[
        "dump-log",
        "--json",
        "--deep-iteration",
        log.to_str().unwrap(),
    ]);
    let mut v: Vec<(serde_json::Value, Option<String>)> = Vec::new();
    for line in ndjson(&String::from_utf8_lossy(&out.stdout)) {
        if line["type"] == "batch" {
            v.push((line, None));
        } else if line["type"] == "record" && line["control"].is_object() {
            if let Some(last) = v.last_mut() {
                last.1 = line["control"]["type"].as_str().map(str::to_string);
            }
        }
    }
    v
}

/// stale-txn-0's aborted transaction: its first offset and its ABORT marker's offset.
fn stale_txn_offsets(dir: &Path) -> (i64, i64) {
    let log = segment_logs(dir)[0].clone();
    let batches = batches_of(&log);
    let abort = batches
        .iter()
        .position(|(_, c)| c.as_deref() == Some("ABORT"))
        .expect("an ABORT marker in stale-txn-0");
    let marker = batches[abort].0["baseOffset"].as_i64().unwrap();
    let first = batches[..abort]
        .iter()
        .rev()
        .take_while(|(b, _)| b["isControl"] == false)
        .last()
        .map(|(b, _)| b["baseOffset"].as_i64().unwrap())
        .expect("data before the ABORT marker");
    (first, marker)
}

/// Splits stale-txn-0's one segment at its ABORT marker (the second part without indexes, the
/// first part's indexes cut to it) and writes a snapshot at the split whose producer has the
/// aborted transaction open from 10 offsets after its real first offset.
fn stale_snapshot(dir: &Path) {
    use kseg::format::producer_snapshot::{encode_producer_snapshot, ProducerEntry};
    let log = segment_logs(dir)[0].clone();
    let batches = batches_of(&log);
    let (first, marker) = stale_txn_offsets(dir);
    let (at, last_data) = {
        let i = batches
            .iter()
            .position(|(b, _)| b["baseOffset"] == marker)
            .unwrap();
        (
            batches[i].0["position"].as_u64().unwrap() as usize,
            batches[i - 1].0.clone(),
        )
    };
    let bytes = fs::read(&log).unwrap();
    fs::write(&log, &bytes[..at]).unwrap();
    fs::write(dir.join(format!("{marker:020}.log")), &bytes[at..]).unwrap();
    let keep = |ext: &str, size: usize, keep: &dyn Fn(&[u8]) -> bool| {
        let path = log.with_extension(ext);
        if let Ok(b) = fs::read(&path) {
            let kept: Vec<u8> = b
                .chunks(size)
                .filter(|c| c.len() == size && keep(c))
                .flatten()
                .copied()
                .collect();
            fs::write(&path, kept).unwrap();
        }
    };
    let rel = |c: &[u8], at: usize| i32::from_be_bytes(c[at..at + 4].try_into().unwrap()) as i64;
    keep("index", 8, &|c| {
        i32::from_be_bytes(c[4..8].try_into().unwrap()) < at as i32
    });
    keep("timeindex", 12, &|c| rel(c, 8) < marker);
    keep("txnindex", 34, &|c| {
        i64::from_be_bytes(c[18..26].try_into().unwrap()) < marker
    });
    let entry = ProducerEntry {
        producer_id: last_data["producerId"].as_i64().unwrap(),
        epoch: last_data["producerEpoch"].as_i64().unwrap() as i16,
        last_sequence: last_data["lastSequence"].as_i64().unwrap() as i32,
        last_offset: last_data["lastOffset"].as_i64().unwrap(),
        offset_delta: (last_data["lastOffset"].as_i64().unwrap()
            - last_data["baseOffset"].as_i64().unwrap()) as i32,
        timestamp: last_data["maxTimestamp"].as_i64().unwrap(),
        coordinator_epoch: 0,
        current_txn_first_offset: first + 10,
    };
    fs::write(
        dir.join(format!("{marker:020}.snapshot")),
        encode_producer_snapshot(&[entry]).unwrap(),
    )
    .unwrap();
}

/// Issue 21, items 1–4 against Kafka's own load: the KRaft metadata log recovered beside a
/// clean-shutdown marker; segments deleted after a truncation not counted as recovered; the
/// log end offset of a copied segment holding a CRC-bad batch; a marker beside a zero-filled tail
/// stopping the broker, said first by the verdict; and the acknowledged-loss bounds against the
/// high watermark and what Kafka's restart keeps.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn issue_21_load_rules_match_kafka() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = Scratch::new(work_root(version).join("issue-21"));
    let mut broker = Broker::format_and_start(version, &root.join("broker"), &[]);
    let mut flood = workload_command(&["flood", &broker.bootstrap(), "4"]);
    flood.stdout(Stdio::null()).stderr(Stdio::null());
    let status = flood.status().expect("running the flood workload");
    assert!(status.success(), "flood workload: {status}");
    broker.workload(&["aborted-txn"], Duration::from_secs(120));
    broker.stop();
    let mut bad = Vec::new();
    let mut report = Vec::new();
    type Damage = fn(&Path);
    let cases: [(&str, Damage); 5] = [
        // 1: a torn tail in the metadata log, the marker present.
        ("metadata-torn-tail", |data| {
            let logs = segment_logs(&data.join("__cluster_metadata-0"));
            let last = logs.last().unwrap();
            let len = fs::metadata(last).unwrap().len();
            let head = fs::read(last).unwrap()[..61].to_vec();
            write_at(last, len, &head);
        }),
        // 3 (and the acknowledged loss): no marker, every segment of crash-0 unflushed, a
        // flipped byte in its first segment: Kafka recovers that one and deletes the others.
        ("truncate-deletes-later", |data| {
            fs::remove_file(data.join(".kafka_cleanshutdown")).unwrap();
            set_checkpoint(data, "recovery-point-offset-checkpoint", "crash-0", 0);
            let logs = segment_logs(&data.join("crash-0"));
            assert!(logs.len() > 2, "crash-0 has {} segments", logs.len());
            // Inside the records of the third batch (covered by its CRC; a flip in a base
            // offset, which the CRC does not cover, stops Kafka instead: see verify_index.rs).
            write_at(&logs[0], 300, &[0xA5]);
        }),
        // 4: the marker present, a CRC-bad batch in the active segment, kept by Kafka.
        ("flip-active-clean", |data| {
            let logs = segment_logs(&data.join("crash-0"));
            let last = logs.last().unwrap();
            let len = fs::metadata(last).unwrap().len();
            write_at(last, len / 2, &[0x5A]);
        }),
        // 8: a stale producer snapshot. stale-txn-0 is split at its ABORT marker into two
        // segments (the second without indexes, so that Kafka's load recovers it), and the
        // snapshot at the split says the aborted transaction began 10 offsets later than it did.
        ("stale-snapshot", |data| {
            stale_snapshot(&data.join("stale-txn-0"));
        }),
        // 2: the marker present, a zero-filled tail: Kafka does not start.
        ("zero-tail-clean", |data| {
            let logs = segment_logs(&data.join("crash-0"));
            let last = logs.last().unwrap();
            let len = fs::metadata(last).unwrap().len();
            write_at(last, len, &[0u8; 4096]);
        }),
    ];
    for (kind, damage) in cases {
        let case_root = root.join(kind);
        let differences_before = bad.len();
        let damaged = case_root.join("source");
        copy_dir(&broker.data, &damaged);
        damage(&damaged);
        let hw = checkpoint_of(&damaged, "replication-offset-checkpoint", "crash-0");
        let found = compare_with_kafka(version, kind, &case_root, &damaged, &[]);
        let verify = kseg(&[
            "verify-index",
            "--json",
            case_root.join("a").to_str().unwrap(),
        ]);
        let lines = ndjson(&String::from_utf8_lossy(&verify.stdout));
        let verdict = lines.first().cloned().unwrap_or_default();
        let refused = found
            .iter()
            .any(|f| f.contains("Kafka refused the data dir"));
        report.push(format!(
            "{kind}: Kafka {}; kseg verdict kafkaStarts={} exit {}",
            if refused {
                "refused to start"
            } else {
                "started"
            },
            verdict["kafkaStarts"],
            verify.status.code().unwrap_or(-1)
        ));
        if verdict["type"] != "verdict" {
            bad.push(format!(
                "{kind}: verify-index does not open with a verdict: {verdict}"
            ));
        }
        if refused {
            if verdict["kafkaStarts"] != false || verify.status.code() != Some(1) {
                bad.push(format!(
                    "{kind}: Kafka refused to start ({found:?}), verdict {verdict}"
                ));
            }
            continue;
        }
        if verdict["kafkaStarts"] != true {
            bad.push(format!("{kind}: Kafka started, verdict {verdict}"));
        }
        bad.extend(found);
        let rec = lines
            .iter()
            .find(|v| v["type"] == "recovery" && v["partition"] == "crash-0")
            .cloned()
            .unwrap_or_default();
        if kind == "stale-snapshot" {
            // Kafka's own .txnindex of the split segment: its entry starts 10 offsets late,
            // and verify-index says which aborted records read_committed consumers then see.
            let (first, marker) = stale_txn_offsets(&broker.data.join("stale-txn-0"));
            let txn = fs::read(
                case_root
                    .join("c/data/stale-txn-0")
                    .join(format!("{marker:020}.txnindex")),
            )
            .unwrap_or_default();
            let kafka_first =
                (txn.len() == 34).then(|| i64::from_be_bytes(txn[10..18].try_into().unwrap()));
            report.push(format!(
                "  the aborted transaction began at {first}, Kafka's recovered entry says {kafka_first:?}"
            ));
            if kafka_first != Some(first + 10) {
                bad.push(format!(
                    "{kind}: Kafka's .txnindex entry starts at {kafka_first:?}, expected {}",
                    first + 10
                ));
            }
            let want = format!(
                "read_committed consumers will see aborted records at offsets {first}..{}",
                first + 9
            );
            // The split segment is recovered with the topic's index.interval.bytes (256, from
            // __cluster_metadata): the byte comparison above holds kseg's .index to Kafka's.
            let used = lines
                .iter()
                .find(|v| v["type"] == "recovery" && v["partition"] == "stale-txn-0")
                .map(|v| v["logConfig"]["indexIntervalBytes"].clone())
                .unwrap_or_default();
            if used != serde_json::json!({"value": 256, "source": "topic"}) {
                bad.push(format!(
                    "{kind}: stale-txn-0 judged with index.interval.bytes {used}"
                ));
            }
            let said = lines.iter().any(|v| {
                v["check"] == "stale-producer-snapshot"
                    && v["severity"] == "error"
                    && v["message"].as_str().unwrap_or("").contains(&want)
            });
            if !said || verify.status.code() != Some(1) {
                bad.push(format!(
                    "{kind}: verify-index does not say \"{want}\" as an error (exit {:?})",
                    verify.status.code()
                ));
            }
        }
        if kind == "truncate-deletes-later" {
            // The truth: the acknowledged offsets (below the checkpointed high watermark) gone
            // after Kafka's load. kseg's certain part is never above it.
            let kafka_end = log_end_offset(&case_root.join("c/data/crash-0"));
            let truly_lost = hw.map_or(0, |h| (h - kafka_end).max(0));
            let certain = rec["acknowledgedLost"]["records"].as_i64().unwrap_or(0);
            let possible = rec["possiblyAcknowledged"]["records"].as_i64().unwrap_or(0);
            report.push(format!(
                "  high watermark {hw:?}, Kafka's end {kafka_end}: {truly_lost} acknowledged lost; kseg at least {certain}, up to {possible} more"
            ));
            if certain > truly_lost || (truly_lost > 0 && verify.status.code() != Some(1)) {
                bad.push(format!(
                    "{kind}: {truly_lost} acknowledged records lost, kseg says at least {certain} (exit {:?})",
                    verify.status.code()
                ));
            }
        }
        discard_case(&case_root, differences_before, &bad);
    }
    eprintln!("issue 21, Kafka {version}:\n{}", report.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The moments of the log cleaner's swap (`LocalLog.replaceSegments`) a SIGKILL can stop at:
/// the cleaned segment still `.cleaned`; renamed `.swap`, the old segments untouched; the first
/// old segment renamed `.deleted` (`deleteSegmentFiles`, one segment at a time); everything
/// renamed, the `.deleted` files waiting for `file.delete.delay.ms`.
const SWAP_MOMENTS: [&str; 4] = ["before-swap", "mid-swap", "mid-delete", "delete-pending"];

/// Rewinds a partition dir the cleaner has just swapped (its replaced segments and their
/// producer snapshots still there as `.deleted` files) to `moment`.
fn rewind_swap(dir: &Path, moment: &str) {
    let names: BTreeSet<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // The cleaned segments: a `.log` beside a replaced `.log.deleted` of the same base offset.
    let cleaned: Vec<&str> = names
        .iter()
        .filter_map(|n| n.strip_suffix(".log.deleted"))
        .filter(|b| names.contains(&format!("{b}.log")))
        .collect();
    assert!(
        !cleaned.is_empty(),
        "no segment replaced by the cleaner in {}: {names:?}",
        dir.display()
    );
    let suffix = match moment {
        "before-swap" => ".cleaned",
        "mid-swap" | "mid-delete" => ".swap",
        "delete-pending" => return,
        other => panic!("unknown swap moment {other}"),
    };
    let first = cleaned[0].to_string();
    for base in &cleaned {
        for ext in ["log", "index", "timeindex", "txnindex"] {
            let f = dir.join(format!("{base}.{ext}"));
            if f.exists() {
                fs::rename(&f, dir.join(format!("{base}.{ext}{suffix}"))).unwrap();
            }
        }
    }
    for n in names.iter().filter(|n| n.ends_with(".deleted")) {
        let segment_file = !n.contains(".snapshot");
        if moment == "mid-delete" && segment_file && n.starts_with(&format!("{first}.")) {
            continue;
        }
        fs::rename(dir.join(n), dir.join(n.trim_end_matches(".deleted"))).unwrap();
    }
}

/// A SIGKILL during the log cleaner's swap, at each moment of [`SWAP_MOMENTS`]: the states are
/// rebuilt from a real cleaning (topic `swap`, 40 segments cleaned into one) and Kafka's start
/// on each is compared with kseg's preview and repair as for any other damage.
#[test]
#[ignore = "needs Kafka: run oracle/setup (a JDK 17+ and Maven)"]
fn cleaner_swap_recovery_matches_kafka() {
    if skip() {
        return;
    }
    let version = &versions()[0];
    let root = Scratch::new(work_root(version).join("cleaner-swap"));
    let mut broker = Broker::format_and_start(version, &root.join("broker"), &[]);
    broker.workload(&["compact-swap"], Duration::from_secs(120));
    let partition = broker.data.join("swap-0");
    let listing = || -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&partition)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while !listing().iter().any(|n| n.ends_with(".log.deleted")) {
        assert!(
            Instant::now() < deadline,
            "the log cleaner did not clean swap-0 within 90 s: {:?}",
            listing()
        );
        thread::sleep(Duration::from_millis(200));
    }
    // The swap renames every file in one call: a second is ample for it to end.
    thread::sleep(Duration::from_secs(1));
    broker.stop();
    let mut bad = Vec::new();
    let mut report = Vec::new();
    for moment in SWAP_MOMENTS {
        let case_root = root.join(moment);
        let differences_before = bad.len();
        let damaged = case_root.join("source");
        copy_dir(&broker.data, &damaged);
        rewind_swap(&damaged.join("swap-0"), moment);
        fs::remove_file(damaged.join(".kafka_cleanshutdown")).unwrap();
        let pending: Vec<String> = fs::read_dir(damaged.join("swap-0"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".swap") || n.ends_with(".cleaned") || n.ends_with(".deleted"))
            .collect();
        let name = format!("cleaner-{moment}");
        let found = compare_with_kafka(version, &name, &case_root, &damaged, &[]);
        let server_log = fs::read_to_string(case_root.join("c/server.log")).unwrap_or_default();
        let renamed = server_log.matches("by renaming from .swap files").count();
        report.push(format!(
            "{moment}: {} files pending ({} .swap, {} .cleaned, {} .deleted); Kafka renamed {renamed} .swap files; {} differences",
            pending.len(),
            pending.iter().filter(|n| n.ends_with(".swap")).count(),
            pending.iter().filter(|n| n.ends_with(".cleaned")).count(),
            pending.iter().filter(|n| n.ends_with(".deleted")).count(),
            found.len()
        ));
        // The case is the moment it claims: Kafka completed a swap exactly where one was left.
        let swaps_left = pending.iter().any(|n| n.ends_with(".swap"));
        if swaps_left != (renamed > 0) {
            bad.push(format!(
                "{name}: .swap files left {swaps_left}, Kafka's log says {renamed} renamed"
            ));
        }
        bad.extend(found);
        discard_case(&case_root, differences_before, &bad);
    }
    eprintln!("cleaner swap, Kafka {version}:\n{}", report.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
