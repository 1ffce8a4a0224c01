//! `kseg transactions`: transactional ids from `__transaction_state`, and open or hanging
//! transactions found in the data partitions themselves.

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use rayon::prelude::*;
use serde_json::json;

use crate::print::progress::{self, Progress};

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::transactions::{open_transactions, transactional_ids, OpenTransaction};
use crate::cli::TransactionsArgs;
use crate::format::log::RecordScratch;
use crate::print::summary::rfc3339_ms;
use crate::print::table::{col, Col, Column, Grid, Layout};
use crate::storage::discover::PartitionDir;
use crate::storage::layout::PartitionState;

/// The open transactions: one row each. AGE-AT-NEWEST is the partition's newest timestamp minus
/// the transaction's first: how long the partition went on being written while it stayed open
/// (not how long ago it started).
const OPEN_COLUMNS: [Column; 10] = [
    col("TOPIC", Col::Id, 0),
    col("PARTITION", Col::Num, 0),
    col("PRODUCER-ID", Col::Num, 0),
    col("EPOCH", Col::Num, 3),
    col("FIRST-OFFSET", Col::Num, 0),
    col("LAST-OFFSET", Col::Num, 2),
    col("AGE-AT-NEWEST", Col::Whole, 4),
    col("TRANSACTIONAL-ID", Col::Id, 1),
    col("COORDINATOR-STATE", Col::Whole, 2),
    col("VERDICT", Col::Text, 0),
];

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = crate::print::escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

pub fn run(args: TransactionsArgs) -> Result<Outcome> {
    let (set, inputs) = discover_inputs(&args.paths, "transactions", Reads::DirsOnly)?;
    let live: Vec<&PartitionDir> = set
        .all_partitions()
        .filter(|p| p.name.state == PartitionState::Live)
        .collect();
    let state_parts: Vec<&PartitionDir> = live
        .iter()
        .copied()
        .filter(|p| p.name.topic == "__transaction_state")
        .collect();
    let data: Vec<&PartitionDir> = live
        .iter()
        .copied()
        .filter(|p| p.name.topic != "__transaction_state" && p.name.topic != "__cluster_metadata")
        .collect();
    let progress = Progress::over_partitions(
        progress::wanted(true, false),
        state_parts.iter().chain(&data).copied(),
    );
    let state = transactional_ids(&state_parts)?;
    for p in &state_parts {
        progress.partition_done(p);
    }
    let (ids, undecodable) = (&state.ids, &state.undecodable);
    let scans: Vec<(&PartitionDir, std::io::Result<Vec<OpenTransaction>>)> = data
        .par_iter()
        .map_init(RecordScratch::default, |scratch, p| {
            let scan = open_transactions(p, scratch);
            progress.partition_done(p);
            (*p, scan)
        })
        .collect();
    progress.finish();
    let mut unreadable = 0usize;
    let mut open: Vec<OpenTransaction> = Vec::new();
    for (p, result) in scans {
        match result {
            Ok(list) => open.extend(list),
            Err(e) => {
                // A partition that cannot be read may hide an open transaction: say so.
                unreadable += 1;
                crate::print::report_error(&p.path, None, &format!("cannot read: {e}"));
            }
        }
    }
    // A transaction still open in a partition while its producer's coordinator state is complete
    // (or gone) will never get its marker: it is hanging and blocks read_committed consumers.
    let status_of = |t: &OpenTransaction| {
        ids.values()
            .find(|i| i.state.producer_id == t.producer_id)
            .map(|i| (i.id.clone(), i.state_name()))
    };
    let verdict = |status: &Option<(String, String)>| -> (&'static str, bool) {
        match status {
            Some((_, s)) if s == "Ongoing" || s.starts_with("Prepare") => ("in progress", false),
            Some(_) => ("hanging: the coordinator has finished this producer's transaction; no marker will come", true),
            None if state_parts.is_empty() => ("unknown: no __transaction_state partitions in these log dirs", false),
            None => ("unknown: no coordinator record for this producer here (its __transaction_state partition may be on another broker, or the id expired)", false),
        }
    };
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    let mut hanging = 0;
    if args.json {
        for i in ids.values() {
            serde_json::to_writer(
                &mut out,
                &json!({"type": "transactionalId", "transactionalId": i.id,
                "coordinatorPartition": i.coordinator_partition, "state": i.state_name(),
                "producerId": i.state.producer_id, "producerEpoch": i.state.producer_epoch,
                "timeoutMs": i.state.timeout_ms,
                "partitions": i.state.partitions.as_ref().map(|ps| ps.iter().map(|tp| json!({"topic": tp.topic, "partitions": tp.partitions})).collect::<Vec<_>>()),
                "lastUpdateTimestamp": i.state.last_update_timestamp, "startTimestamp": i.state.start_timestamp,
                "recordOffset": i.record_offset}),
            )?;
            writeln!(out)?;
        }
        for t in &open {
            let status = status_of(t);
            let (why, is_hanging) = verdict(&status);
            hanging += is_hanging as usize;
            serde_json::to_writer(
                &mut out,
                &json!({"type": "openTransaction", "topic": t.topic, "partition": t.partition,
                "producerId": t.producer_id, "producerEpoch": t.producer_epoch, "firstOffset": t.first_offset,
                "lastOffset": t.last_offset, "firstTimestamp": t.first_timestamp, "ageMs": t.age_ms,
                "transactionalId": status.as_ref().map(|s| &s.0), "coordinatorState": status.as_ref().map(|s| &s.1),
                "hanging": is_hanging, "verdict": why}),
            )?;
            writeln!(out)?;
        }
        for (partition, offset, record_type) in &state.unknown_types {
            let v = json!({"type": "skippedRecord", "partition": partition, "offset": offset,
                "recordType": record_type, "reason": "unknown record type"});
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        }
        serde_json::to_writer(
            &mut out,
            &json!({"type": "summary", "transactionalIds": ids.len(),
            "openTransactions": open.len(), "hanging": hanging,
            "skippedUnknownTypes": state.unknown_types.len()}),
        )?;
        writeln!(out)?;
    } else {
        let mut open_table = Grid::new(&OPEN_COLUMNS);
        for o in &open {
            let status = status_of(o);
            let (why, is_hanging) = verdict(&status);
            hanging += is_hanging as usize;
            open_table.row(vec![
                esc(&o.topic),
                o.partition.to_string(),
                o.producer_id.to_string(),
                o.producer_epoch.to_string(),
                o.first_offset.to_string(),
                o.last_offset.to_string(),
                o.age_ms.map_or("-".into(), |a| format!("{} ms", a)),
                status.as_ref().map_or("-".into(), |s| esc(&s.0)),
                status.as_ref().map_or("-".into(), |s| s.1.clone()),
                why.to_string(),
            ]);
        }
        if layout == Layout::Tsv {
            // One table: the open transactions (the ids are in --json).
            open_table.write(&mut out, layout)?;
        } else {
            let mut t = Grid::new(&[
                col("TRANSACTIONAL-ID", Col::Id, 0),
                col("COORDINATOR", Col::Id, 3),
                col("STATE", Col::Whole, 0),
                col("PRODUCER-ID", Col::Num, 0),
                col("EPOCH", Col::Num, 2),
                col("TIMEOUT-MS", Col::Num, 4),
                col("PARTITIONS", Col::Text, 1),
                col("LAST-UPDATE", Col::Whole, 2),
                col("STARTED", Col::Whole, 3),
            ]);
            for i in ids.values() {
                let parts = i.state.partitions.as_ref().map_or("-".into(), |ps| {
                    ps.iter()
                        .map(|tp| format!("{}:{:?}", tp.topic, tp.partitions))
                        .collect::<Vec<_>>()
                        .join(" ")
                });
                t.row(vec![
                    esc(&i.id),
                    format!("__transaction_state-{}", i.coordinator_partition),
                    i.state_name(),
                    i.state.producer_id.to_string(),
                    i.state.producer_epoch.to_string(),
                    i.state.timeout_ms.to_string(),
                    esc(&parts),
                    rfc3339_ms(i.state.last_update_timestamp),
                    if i.state.start_timestamp >= 0 {
                        rfc3339_ms(i.state.start_timestamp)
                    } else {
                        "-".into()
                    },
                ]);
            }
            writeln!(out, "Transactional ids ({}):", ids.len())?;
            t.write(&mut out, layout)?;
            if open.is_empty() {
                writeln!(out, "No open transactions in the data partitions.")?;
            } else {
                writeln!(out, "Open transactions (transactional batches with no COMMIT/ABORT marker after them):")?;
                open_table.write(&mut out, layout)?;
            }
        }
    }
    out.flush()?;
    for (p, o, t) in &state.unknown_types {
        eprintln!(
            "kseg: note: __transaction_state-{p}: offset {o}: unknown record type {t} skipped, \
             as Kafka's transaction coordinator skips it (a newer Kafka's record, or a leftover \
             of an aborted upgrade)"
        );
    }
    for (p, o, m) in undecodable {
        eprintln!("kseg: __transaction_state-{p}: offset {o}: undecodable record: {m}");
    }
    Ok(
        if undecodable.is_empty() && hanging == 0 && unreadable == 0 {
            inputs
        } else {
            inputs.worst(Outcome::DataProblems)
        },
    )
}
