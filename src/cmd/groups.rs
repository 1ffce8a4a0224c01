//! `kseg groups`: every group's committed offsets, lag and state, from disk alone.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use crate::print::progress::{self, Progress};

use super::{discover_inputs, with_threads, Outcome, Reads};
use crate::analysis::group_report::{coordinator_partitions, report, GroupsQuery};
use crate::cli::GroupsArgs;
use crate::print::groups as printer;
use crate::print::table::Layout;

pub fn run(args: GroupsArgs) -> Result<Outcome> {
    let now = match super::TimeFlags::new(&args.tz)?.read("--at", args.at.as_deref())? {
        Some(t) => t,
        None => jiff::Timestamp::now().as_millisecond(),
    };
    let (set, inputs) = discover_inputs(&args.paths, "groups", Reads::DirsOnly)?;
    let offsets_partitions = coordinator_partitions(&set);
    if offsets_partitions.is_empty() {
        anyhow::bail!("no __consumer_offsets-N partition dirs in the given paths");
    }
    let progress = Progress::over_partitions(
        progress::wanted(true, false),
        offsets_partitions.iter().copied(),
    );
    let query = GroupsQuery {
        filter: &args.group,
        history: args.history,
        rebalances: args.rebalances,
        mmap: args.read.mmap,
        parallel: args.threads.count() > 1,
        now,
        retention_ms: args.offsets_retention_minutes.saturating_mul(60_000),
    };
    let report = with_threads(&args.threads, || {
        report(&set, &offsets_partitions, &query, &|segment| {
            progress.file_done(segment)
        })
    })?;
    progress.finish();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(io::stdout().lock()));
    if args.json {
        printer::json_report(&mut out, &report, args.history)?;
    } else {
        printer::text_report(
            &mut out,
            &report,
            args.history,
            args.rebalances,
            args.at.is_some(),
            layout,
        )?;
    }
    out.flush()?;
    let replay = &report.replay;
    let mut outcome = inputs;
    for g in report.missing(&args.group) {
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
    for path in &replay.vanished {
        eprintln!(
            "kseg: note: {}: {}",
            crate::print::escape::escaped_path(path),
            crate::storage::source::VANISHED
        );
    }
    for (partition, offset, record_type) in &replay.unknown_types {
        eprintln!(
            "kseg: note: __consumer_offsets-{partition}: offset {offset}: unknown record type \
             {record_type} skipped, as Kafka's coordinator loader skips it (a newer Kafka's \
             record, or a leftover of an aborted upgrade)"
        );
    }
    for u in &replay.undecodable {
        eprintln!(
            "kseg: __consumer_offsets-{}: offset {}: undecodable record: {}",
            u.partition,
            u.offset,
            crate::print::groups::undecodable(&u.why)
        );
    }
    Ok(if replay.undecodable.is_empty() {
        outcome
    } else {
        outcome.worst(Outcome::DataProblems)
    })
}
