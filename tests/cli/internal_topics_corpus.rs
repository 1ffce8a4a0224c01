//! Every record of the real internal-topic data in the shared corpus (`__consumer_offsets-*`,
//! `__transaction_state-*`, `__share_group_state-*`, `__cluster_metadata-*` and KRaft
//! `*.checkpoint` files written by Kafka 1.0 … 4.0 and Confluent 5.1 … 7.7 brokers) decodes
//! with a known record type and version, through kseg's own log reader.

use crate::common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kseg::format::coordinator::{
    decode_metadata_record, decode_offsets_key, decode_offsets_value, decode_share_state_key,
    decode_share_state_value, decode_transaction_key, decode_transaction_value, group_of_key,
    parse_group_metadata, parse_offset_commit, parse_transaction_key, parse_transaction_value,
};
use kseg::format::log::{
    for_each_record, LogEntry, LogWalker, RecordScratch, SliceSource, WalkEvent,
};

fn corpus() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/real"
    ));
    if !p.is_dir() {
        common::corpus_missing("the internal-topics corpus test");
    }
    p.is_dir().then_some(p)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Offsets,
    Transactions,
    ShareState,
    Metadata,
}

fn kind(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?;
    if name.ends_with(".checkpoint") {
        return Some(Kind::Metadata);
    }
    if !name.ends_with(".log") {
        return None;
    }
    let dir = path.parent()?.file_name()?.to_str()?;
    [
        ("__consumer_offsets-", Kind::Offsets),
        ("__transaction_state-", Kind::Transactions),
        ("__share_group_state-", Kind::ShareState),
        ("__cluster_metadata-", Kind::Metadata),
    ]
    .into_iter()
    .find(|(prefix, _)| dir.starts_with(prefix))
    .map(|(_, k)| k)
}

/// A record's offset, key and value.
type Rec = (i64, Option<Vec<u8>>, Option<Vec<u8>>);

/// The data records (control batches skipped) of a log or snapshot file.
fn data_records(bytes: &[u8]) -> Result<Vec<Rec>, String> {
    let mut src = SliceSource(bytes);
    let mut walker = LogWalker::new(bytes.len() as u64);
    let mut scratch = RecordScratch::default();
    let mut out = Vec::new();
    while let Some(event) = walker.next(&mut src).map_err(|e| e.to_string())? {
        match event {
            WalkEvent::Entry { position, bytes } => {
                let entry = LogEntry::parse(bytes).map_err(|e| format!("byte {position}: {e}"))?;
                if entry.info().is_control {
                    continue;
                }
                for_each_record(&entry, &mut scratch, |r| {
                    out.push((
                        r.offset,
                        r.key.map(<[u8]>::to_vec),
                        r.value.map(<[u8]>::to_vec),
                    ));
                })
                .map_err(|e| format!("batch at byte {position}: {e}"))?;
            }
            WalkEvent::Corrupt {
                position, reason, ..
            } => return Err(format!("corrupt region at byte {position}: {reason}")),
            // Torn or zero-filled tails of active segments are not records.
            WalkEvent::Tail { .. } => {}
        }
    }
    Ok(out)
}

#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn every_internal_topic_record_in_the_corpus_decodes() {
    let Some(root) = corpus() else {
        eprintln!("corpus not found; skipping");
        return;
    };
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut failures = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut files_per_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut txn_states: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut consumer_members = (0usize, 0usize); // (decoded, left as Base64)

    for path in &all {
        let Some(kind) = kind(path) else {
            continue;
        };
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let records = match data_records(&bytes) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        *files_per_kind.entry(kind).or_default() += 1;
        for (offset, key, value) in records {
            let at = format!("{rel} offset {offset}");
            let hex_of = |b: &Option<Vec<u8>>| b.as_deref().map(hex::encode).unwrap_or_default();
            match kind {
                Kind::Metadata => {
                    let Some(v) = &value else {
                        failures.push(format!("{at}: metadata record without a value"));
                        continue;
                    };
                    match decode_metadata_record(v) {
                        Ok(j) => {
                            *counts
                                .entry(format!("metadata {} v{}", j.name, j.version))
                                .or_default() += 1;
                        }
                        Err(e) => failures.push(format!("{at}: {e} value {}", hex_of(&value))),
                    }
                }
                Kind::Offsets | Kind::Transactions | Kind::ShareState => {
                    let Some(k) = &key else {
                        failures.push(format!("{at}: coordinator record without a key"));
                        continue;
                    };
                    let (decoded_key, label) = match kind {
                        Kind::Offsets => (decode_offsets_key(k), "offsets"),
                        Kind::Transactions => (decode_transaction_key(k), "txn"),
                        _ => (decode_share_state_key(k), "share"),
                    };
                    let key_json = match decoded_key {
                        Ok(d) => d,
                        Err(e) => {
                            failures.push(format!("{at}: key {e}: {}", hex_of(&key)));
                            continue;
                        }
                    };
                    let t = key_json.record_type;
                    let Some(v) = &value else {
                        *counts
                            .entry(format!("{label} type {t} tombstone"))
                            .or_default() += 1;
                        continue;
                    };
                    let decoded = match kind {
                        Kind::Offsets => decode_offsets_value(t, v),
                        Kind::Transactions => decode_transaction_value(t, v),
                        _ => decode_share_state_value(t, v),
                    };
                    let value_json = match decoded {
                        Ok(d) => d,
                        Err(e) => {
                            failures.push(format!("{at}: type {t} value {e}: {}", hex_of(&value)));
                            continue;
                        }
                    };
                    *counts
                        .entry(format!("{label} type {t} v{}", value_json.version))
                        .or_default() += 1;
                    // The typed helpers read the same records.
                    let typed = match (kind, t) {
                        (Kind::Offsets, 0 | 1) => parse_offset_commit(k, v).map(|_| ()),
                        (Kind::Offsets, 2) => parse_group_metadata(v).map(|g| {
                            if g.protocol_type == "consumer" {
                                for m in &g.members {
                                    if m.subscription.is_some() && m.assignment.is_some() {
                                        consumer_members.0 += 1;
                                    } else {
                                        consumer_members.1 += 1;
                                    }
                                }
                            }
                        }),
                        (Kind::Transactions, _) => parse_transaction_value(v).map(|txn| {
                            let id = parse_transaction_key(k).unwrap();
                            let state = txn.status_name().unwrap_or("?").to_string();
                            txn_states.entry(id).or_default().push(state);
                        }),
                        _ => Ok(()),
                    };
                    if let Err(e) = typed {
                        failures.push(format!("{at}: typed parse of type {t}: {e}"));
                    }
                    if kind == Kind::Offsets && group_of_key(k).is_none() {
                        failures.push(format!("{at}: group_of_key found no group"));
                    }
                }
            }
        }
    }

    for (what, n) in &counts {
        eprintln!("{n:>7}  {what}");
    }
    eprintln!("files: {files_per_kind:?}");
    eprintln!("consumer-protocol members decoded / left Base64: {consumer_members:?}");
    eprintln!("transaction states: {txn_states:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // What the corpus is known to hold (see its CATALOG.md).
    assert!(files_per_kind.get(&Kind::Offsets).copied().unwrap_or(0) >= 20);
    assert!(
        files_per_kind
            .get(&Kind::Transactions)
            .copied()
            .unwrap_or(0)
            >= 2
    );
    assert!(files_per_kind.get(&Kind::Metadata).copied().unwrap_or(0) >= 20);
    for expected in [
        "metadata BEGIN_TRANSACTION_RECORD v0",
        "metadata END_TRANSACTION_RECORD v0",
        "metadata REGISTER_CONTROLLER_RECORD v0",
        "metadata ZK_MIGRATION_STATE_RECORD v0",
        "offsets type 1 v1",
        "offsets type 1 v2",
        "offsets type 1 v3",
        "offsets type 2 v2",
        "offsets type 2 v3",
        "txn type 0 v0",
    ] {
        assert!(counts.contains_key(expected), "no {expected} in the corpus");
    }
    assert!(consumer_members.0 > 0);
    assert_eq!(
        txn_states.get("default_").map(|s| s[..4].join(",")),
        Some("Empty,Ongoing,PrepareCommit,CompleteCommit".to_string())
    );
}

/// Topic configurations replayed from a KRaft snapshot: Kafka Connect's compacted topics are
/// found, a topic set to `delete` is not.
#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn compacted_topics_come_from_the_cluster_metadata() {
    let Some(root) = corpus() else { return };
    let dir =
        root.join("ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data");
    let set = kseg::storage::discover::discover(&[dir]).unwrap();
    let metadata = set
        .log_dirs
        .iter()
        .flat_map(|d| d.partitions.iter())
        .find(|p| p.name.topic == "__cluster_metadata")
        .expect("a __cluster_metadata partition");
    let compacted = kseg::analysis::topic_configs::compacted_topics(metadata);
    for topic in [
        "docker-connect-configs",
        "docker-connect-status",
        "__consumer_offsets",
    ] {
        assert!(compacted.contains(topic), "{topic}: {compacted:?}");
    }
    assert!(!compacted.contains("_confluent-ksql-default__command_topic"));
}
