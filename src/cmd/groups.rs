//! `kseg groups`: every group's committed offsets, lag and state, from disk alone.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufWriter, Write};

use anyhow::Result;
use serde_json::{json, Value};

use crate::print::progress::{self, Progress};

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::expiry::{offset_expiry, parse_instant, Expiry};
use crate::analysis::groups::{
    consumer_group_view, partition_facts, replay, timestamp_at, ConsumerGroupView, PartitionFacts,
};
use crate::analysis::rebalances;
use crate::analysis::summary::{log_dir_facts, LogDirFacts};
use crate::cli::GroupsArgs;
use crate::format::text_files::parse_partition_metadata;
use crate::print::groups as printer;
use crate::print::table::Layout;
use crate::storage::discover::PartitionDir;
use crate::storage::layout::FileKind;
use crate::storage::layout::PartitionState;
use crate::storage::source::read_small;

/// One output row: a group's committed offset on one partition, with the partition's facts.
pub struct OffsetRow {
    pub group: String,
    pub topic: String,
    pub partition: i32,
    pub committed: crate::analysis::groups::Committed,
    pub facts: Option<PartitionFacts>,
    pub lag: Option<i64>,
    pub oldest_unconsumed_age_ms: Option<i64>,
    /// When the coordinator deletes the offset (`analysis::expiry`).
    pub expiry: Expiry,
    pub flags: Vec<&'static str>,
}

pub fn run(args: GroupsArgs) -> Result<Outcome> {
    let now = match &args.at {
        Some(t) => parse_instant(t).map_err(|e| anyhow::anyhow!("--at: {e}"))?,
        None => jiff::Timestamp::now().as_millisecond(),
    };
    let retention_ms = args.offsets_retention_minutes.saturating_mul(60_000);
    let (set, inputs) = discover_inputs(&args.paths, "groups", Reads::DirsOnly)?;
    let facts: Vec<(std::path::PathBuf, LogDirFacts)> = set
        .log_dirs
        .iter()
        .map(|d| (d.path.clone(), log_dir_facts(d)))
        .collect();
    let facts_of = |p: &PartitionDir| {
        facts
            .iter()
            .find(|(dir, _)| p.path.parent() == Some(dir.as_path()))
            .map(|(_, f)| f)
    };
    let offsets_partitions: Vec<&PartitionDir> = set
        .all_partitions()
        .filter(|p| p.name.topic == "__consumer_offsets" && p.name.state == PartitionState::Live)
        .collect();
    if offsets_partitions.is_empty() {
        anyhow::bail!("no __consumer_offsets-N partition dirs in the given paths");
    }
    let progress = Progress::over_partitions(
        progress::wanted(true, false),
        offsets_partitions.iter().copied(),
    );
    let replay = replay(
        &offsets_partitions,
        &args.group,
        args.history,
        args.read.mmap,
        &|segment| progress.file_done(segment),
    )?;
    progress.finish();
    let data: HashMap<(String, i32), &PartitionDir> = set
        .all_partitions()
        .filter(|p| p.name.state == PartitionState::Live)
        .map(|p| ((p.name.topic.clone(), p.name.partition), p))
        .collect();
    let mut cache: HashMap<(String, i32), PartitionFacts> = HashMap::new();
    let mut rows = Vec::new();
    for (group, state) in &replay.groups {
        for ((topic, partition), committed) in &state.offsets {
            let key = (topic.clone(), *partition);
            let dir = data.get(&key).copied();
            let facts = dir.map(|d| {
                *cache
                    .entry(key.clone())
                    .or_insert_with(|| partition_facts(d, facts_of(d)))
            });
            let mut flags = Vec::new();
            let mut lag = None;
            let mut age = None;
            match facts {
                None => flags.push("partition-not-on-disk"),
                Some(f) => {
                    if let Some(end) = f.log_end_offset {
                        // Saturating: a hostile committed offset (i64::MIN) must not wrap.
                        lag = Some(end.saturating_sub(committed.offset));
                        if committed.offset > end {
                            flags.push("beyond-log-end");
                        }
                    }
                    if f.log_start_offset.is_some_and(|s| committed.offset < s) {
                        flags.push("below-log-start");
                    }
                    if lag == Some(0) {
                        age = Some(0);
                    } else if lag.is_some_and(|l| l > 0) && !flags.contains(&"below-log-start") {
                        if let (Some(newest), Some(ts)) = (
                            f.newest_timestamp,
                            dir.and_then(|d| timestamp_at(d, committed.offset)),
                        ) {
                            age = Some(newest - ts);
                        }
                    }
                }
            }
            if committed.transactional {
                flags.push("transactional");
            }
            let pending =
                replay
                    .pending_transactional
                    .contains(&(group.clone(), topic.clone(), *partition));
            let expiry = offset_expiry(state, topic, committed, retention_ms, pending);
            flags.extend(expiry.flag(now));
            rows.push(OffsetRow {
                group: group.clone(),
                topic: topic.clone(),
                partition: *partition,
                committed: committed.clone(),
                facts,
                lag,
                oldest_unconsumed_age_ms: age,
                expiry,
                flags,
            });
        }
    }
    // KIP-848 records name topics by id; partition.metadata files give the names.
    let topic_names: HashMap<String, String> = set
        .all_partitions()
        .filter_map(|p| {
            let f = p
                .files
                .iter()
                .find(|f| f.kind == FileKind::PartitionMetadata)?;
            let text = String::from_utf8(read_small(&f.path, 1 << 16).ok()?).ok()?;
            let m = parse_partition_metadata(&text).ok()?;
            Some((m.topic_id, p.name.topic.clone()))
        })
        .collect();
    let generations = if args.rebalances {
        rebalances::generations(
            &offsets_partitions,
            &args.group,
            &topic_names,
            args.read.mmap,
            &|_| {},
        )?
    } else {
        Vec::new()
    };
    let mut groups_seen: Vec<&str> = generations.iter().map(|g| g.group.as_str()).collect();
    groups_seen.sort_unstable();
    groups_seen.dedup();
    let rebalance_summaries: Vec<rebalances::RebalanceSummary> = groups_seen
        .iter()
        .filter_map(|group| {
            let gens: Vec<&rebalances::Generation> =
                generations.iter().filter(|g| g.group == *group).collect();
            rebalances::summarize(group, &gens)
        })
        .collect();
    let views: BTreeMap<&String, ConsumerGroupView> = replay
        .groups
        .iter()
        .filter_map(|(g, s)| Some((g, consumer_group_view(s, &topic_names)?)))
        .collect();
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    if args.json {
        for r in &rows {
            printer::json_offset(&mut out, r)?;
        }
        for (group, state) in &replay.groups {
            printer::json_group(&mut out, group, state, views.get(group))?;
        }
        if args.history {
            for e in &replay.history {
                printer::json_commit(&mut out, e)?;
            }
        }
        for g in &generations {
            printer::json_generation(&mut out, g)?;
        }
        for s in &rebalance_summaries {
            printer::json_rebalance_summary(&mut out, s)?;
        }
        for (partition, offset, record_type) in &replay.unknown_types {
            let v = json!({"type": "skippedRecord", "partition": partition, "offset": offset,
                "recordType": record_type, "reason": "unknown record type"});
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        }
        let v: Value = json!({"type": "summary", "coordinatorPartitions": offsets_partitions.len(),
            "groups": replay.groups.len(), "offsets": rows.len(), "commitRecords": replay.commits,
            "undecodable": replay.undecodable.len(), "skippedUnknownTypes": replay.unknown_types.len()});
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else if layout == Layout::Tsv {
        // One table: the offsets, or with --history the commits, or with --rebalances the
        // generations.
        if args.rebalances {
            printer::rebalances(&mut out, &generations, &rebalance_summaries, layout)?;
        } else if args.history {
            printer::history_table(&mut out, &replay.history, layout)?;
        } else {
            printer::offsets_table(&mut out, &rows, layout)?;
        }
    } else {
        if rows.is_empty() {
            writeln!(
                out,
                "No committed offsets in the {} __consumer_offsets partitions read.",
                offsets_partitions.len()
            )?;
        } else {
            printer::offsets_table(&mut out, &rows, layout)?;
        }
        for (group, state) in &replay.groups {
            printer::group_state(&mut out, group, state, views.get(group), layout)?;
        }
        if args.history {
            printer::history_table(&mut out, &replay.history, layout)?;
        }
        if args.rebalances {
            printer::rebalances(&mut out, &generations, &rebalance_summaries, layout)?;
        }
    }
    out.flush()?;
    let mut outcome = inputs;
    for g in args
        .group
        .iter()
        .filter(|g| !replay.groups.contains_key(*g) && !generations.iter().any(|x| &x.group == *g))
    {
        if let Some(partition) = replay.deleted.get(g.as_str()) {
            // Its records are there and end in tombstones: that is the answer, not a failure.
            let at = partition.map_or(String::new(), |p| format!(" in __consumer_offsets-{p}"));
            eprintln!(
                "kseg: group {g:?} is deleted: its records{at} end in tombstones, so the broker \
                 no longer knows it (--history lists its commits)"
            );
            continue;
        }
        // Asked for and not there: kseg could not do what was asked (exit 2).
        eprintln!(
            "kseg: no such group: {:?} has no records in the {} __consumer_offsets partitions read",
            g,
            offsets_partitions.len()
        );
        outcome = outcome.worst(Outcome::Failed);
    }
    for (partition, offset, record_type) in &replay.unknown_types {
        eprintln!(
            "kseg: note: __consumer_offsets-{partition}: offset {offset}: unknown record type \
             {record_type} skipped, as Kafka's coordinator loader skips it (a newer Kafka's \
             record, or a leftover of an aborted upgrade)"
        );
    }
    for (partition, offset, msg) in &replay.undecodable {
        eprintln!(
            "kseg: __consumer_offsets-{partition}: offset {offset}: undecodable record: {msg}"
        );
    }
    Ok(if replay.undecodable.is_empty() {
        outcome
    } else {
        outcome.worst(Outcome::DataProblems)
    })
}
