//! `kseg transactions`: transactional ids from `__transaction_state`, and open or hanging
//! transactions found in the data partitions themselves.

use std::collections::HashSet;
use std::io::{self, BufWriter, Write};

use anyhow::Result;
use rayon::prelude::*;

use crate::print::progress::{self, Progress};

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::topic_configs::log_dir_configs;
use crate::analysis::transactions::{
    judge_open, open_transactions, set_ages, transactional_ids, OpenScan, OpenTransaction,
    OpenVerdict,
};
use crate::cli::TransactionsArgs;
use crate::format::log::RecordScratch;
use crate::print::table::Layout;
use crate::print::transactions;
use crate::storage::discover::PartitionDir;
use crate::storage::layout::PartitionState;

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
    let undecodable = &state.undecodable;
    let scans: Vec<(&PartitionDir, std::io::Result<OpenScan>)> = data
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
    // The newest write in the dir: of the data, and of the coordinator's records.
    let mut newest = state
        .ids
        .values()
        .map(|i| i.state.last_update_timestamp)
        .filter(|&t| t >= 0)
        .max();
    for (p, result) in scans {
        match result {
            Ok(scan) => {
                newest = newest.max(scan.newest);
                open.extend(scan.open);
            }
            Err(e) => {
                // A partition that cannot be read may hide an open transaction: say so.
                unreadable += 1;
                crate::print::report_error(&p.path, None, &format!("cannot read: {e}"));
            }
        }
    }
    set_ages(&mut open, newest);
    // The compacted topics (their cleaner stops at an open transaction), from each log dir's
    // metadata.
    let compacted: HashSet<String> = set
        .log_dirs
        .iter()
        .flat_map(|d| log_dir_configs(d).compacted_topics())
        .collect();
    let open: Vec<(OpenTransaction, OpenVerdict)> = open
        .into_iter()
        .map(|t| {
            let v = judge_open(&t, &state, !state_parts.is_empty());
            (t, v)
        })
        .collect();
    let hanging = open.iter().filter(|(_, v)| v.hanging).count();
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    if args.json {
        transactions::write_json(&mut out, &state, &open, &compacted)?;
    } else {
        transactions::write_tables(&mut out, layout, &state, &open, &compacted)?;
    }
    out.flush()?;
    for (p, o, t) in &state.unknown_types {
        eprintln!(
            "kseg: note: __transaction_state-{p}: offset {o}: unknown record type {t} skipped, \
             as Kafka's transaction coordinator skips it (a newer Kafka's record, or a leftover \
             of an aborted upgrade)"
        );
    }
    for u in undecodable {
        eprintln!(
            "kseg: __transaction_state-{}: offset {}: undecodable record: {}",
            u.partition,
            u.offset,
            crate::print::groups::undecodable(&u.why)
        );
    }
    Ok(
        if undecodable.is_empty() && hanging == 0 && unreadable == 0 {
            inputs
        } else {
            inputs.worst(Outcome::DataProblems)
        },
    )
}
