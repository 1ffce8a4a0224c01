//! `kseg find-group-partition`: Kafka's id → coordinator partition rule, optionally confirmed
//! against the records actually on disk.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};

use anyhow::Result;
use serde_json::json;

use super::Outcome;
use crate::analysis::partition_for::{
    coordinator_key_id, java_string_hash, kafka_abs, partition_for,
};
use crate::analysis::topic_configs::partition_counts;
use crate::cli::FindGroupPartitionArgs;
use crate::format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::{discover, PartitionDir};
use crate::storage::layout::{FileKind, PartitionState};
use crate::storage::source::open_log;

struct CountIds<'a> {
    ids: &'a [String],
    hits: Vec<u64>,
}

impl LogSink for CountIds<'_> {
    fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        let _ = info;
        Ok(Flow::Continue)
    }
    fn record(&mut self, _p: u64, info: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if info.is_control {
            return Ok(Flow::Continue);
        }
        if let Some((_, id)) = r.key.and_then(coordinator_key_id) {
            if let Some(i) = self.ids.iter().position(|x| x == id) {
                self.hits[i] += 1;
            }
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

pub fn run(args: FindGroupPartitionArgs) -> Result<Outcome> {
    let topic = if args.transactional_id {
        "__transaction_state"
    } else {
        "__consumer_offsets"
    };
    let mut on_disk: Vec<BTreeMap<i32, u64>> = vec![BTreeMap::new(); args.ids.len()];
    let mut partitions = args.partitions.unwrap_or(50);
    let mut partitions_from = if args.partitions.is_some() {
        "--partitions"
    } else {
        "default"
    };
    if !args.log_dir.is_empty() {
        let set = discover(&args.log_dir)?;
        // A broker holds only some partitions of a topic: its dirs cannot give the count. The
        // cluster metadata can.
        let recorded = set
            .all_partitions()
            .filter(|p| p.name.topic == "__cluster_metadata")
            .filter_map(|m| partition_counts(m).get(topic).copied())
            .max();
        match (args.partitions, recorded) {
            (Some(n), Some(m)) if n != m => eprintln!(
                "kseg: warning: --partitions {n}, but __cluster_metadata records {m} partitions of {topic}; using {n}"
            ),
            (Some(_), _) => {}
            (None, Some(m)) => {
                partitions = m;
                partitions_from = "__cluster_metadata";
            }
            (None, None) => anyhow::bail!(
                "the partition count of {topic} is not recorded under {} (no __cluster_metadata \
                 PartitionRecords for it: a ZooKeeper-mode cluster, or a metadata log kept \
                 elsewhere), and a broker's partition dirs cannot tell it; pass --partitions N \
                 ({}, 50 by default)",
                args.log_dir[0].display(),
                if args.transactional_id {
                    "transaction.state.log.num.partitions"
                } else {
                    "offsets.topic.num.partitions"
                }
            ),
        }
        let dirs: Vec<&PartitionDir> = set
            .all_partitions()
            .filter(|p| p.name.topic == topic && p.name.state == PartitionState::Live)
            .collect();
        if dirs.is_empty() {
            eprintln!(
                "kseg: note: no {topic}-N partition dirs under {}: no records to look for",
                args.log_dir[0].display()
            );
        }
        let mut scratch = RecordScratch::default();
        let opts = ScanOptions {
            deep: true,
            ..Default::default()
        };
        for dir in dirs {
            let mut sink = CountIds {
                ids: &args.ids,
                hits: vec![0; args.ids.len()],
            };
            for f in dir.files.iter().filter(|f| f.kind == FileKind::Log) {
                let mut src = open_log(&f.path, false)?;
                scan_log(src.as_mut(), &opts, &mut scratch, &mut sink)?;
            }
            for (i, n) in sink.hits.iter().enumerate() {
                if *n > 0 {
                    *on_disk[i].entry(dir.name.partition).or_default() += n;
                }
            }
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (i, id) in args.ids.iter().enumerate() {
        let hash = java_string_hash(id);
        let partition = partition_for(id, partitions);
        let elsewhere: Vec<i32> = on_disk[i]
            .keys()
            .copied()
            .filter(|p| *p as u32 != partition)
            .collect();
        let warning = (!elsewhere.is_empty()).then(|| {
            format!(
                "records of {id:?} found in {topic} partition(s) {elsewhere:?}, not only the computed {partition}: the partition count may have changed"
            )
        });
        if args.json {
            let mut v = json!({"id": id, "hashCode": hash, "abs": kafka_abs(hash), "partition": partition,
                "partitions": partitions, "partitionsFrom": partitions_from, "topic": topic});
            if !args.log_dir.is_empty() {
                v["onDisk"] = on_disk[i]
                    .iter()
                    .map(|(p, n)| json!({"partition": p, "records": n}))
                    .collect();
                v["warning"] = json!(warning);
            }
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        } else {
            if args.ids.len() == 1 {
                writeln!(out, "{partition}")?;
            } else {
                writeln!(out, "{id}\t{partition}")?;
            }
            if !args.log_dir.is_empty() {
                // The answer reaches stdout before its note reaches stderr (and a closed
                // stdout ends the run before the note).
                out.flush()?;
                let hits: Vec<String> = on_disk[i]
                    .iter()
                    .map(|(p, n)| format!("{topic}-{p}: {n} records"))
                    .collect();
                eprintln!(
                    "{id}: {}",
                    if hits.is_empty() {
                        "no records on disk".to_string()
                    } else {
                        hits.join(", ")
                    }
                );
            }
        }
        if let Some(w) = warning {
            out.flush()?;
            eprintln!("kseg: warning: {w}");
        }
    }
    out.flush()?;
    Ok(Outcome::Clean)
}
