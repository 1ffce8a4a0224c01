//! `kseg transactions` output: the transactional ids of `__transaction_state` and the open
//! transactions of the data partitions, as tables or NDJSON.

use std::collections::HashSet;
use std::io::{self, Write};

use serde_json::json;

use super::groups::human_ms;
use super::table::{col, Col, Column, Grid, Layout};
use kseg_analysis::transactions::{OpenStatus, OpenTransaction, OpenVerdict, TransactionState};
use kseg_escape::write_escaped;
use kseg_time::rfc3339_ms;

/// The open transactions: one row each. OPEN-FOR is how long it has been open up to the newest
/// write in the dir; STOPS-AT the partition's last stable offset, where read_committed
/// consumers stop; HELD the records from there on they cannot see.
const OPEN_COLUMNS: [Column; 12] = [
    col("TOPIC", Col::Id, 0).key(),
    col("PARTITION", Col::Num, 0).key(),
    col("PRODUCER-ID", Col::Num, 0).key(),
    col("EPOCH", Col::Num, 4),
    col("FIRST-OFFSET", Col::Num, 0),
    col("LAST-OFFSET", Col::Num, 3),
    col("OPEN-FOR", Col::Whole, 0),
    col("STOPS-AT", Col::Num, 2),
    col("HELD", Col::Num, 2),
    col("TRANSACTIONAL-ID", Col::Id, 1),
    col("COORDINATOR-STATE", Col::Whole, 2),
    col("VERDICT", Col::Prose, 0),
];

// TIMEOUT-MS and STARTED say when an Ongoing transaction is aborted: they stay at 80 columns.
const ID_COLUMNS: [Column; 9] = [
    col("TRANSACTIONAL-ID", Col::Id, 0).key(),
    col("COORDINATOR", Col::Id, 4),
    col("STATE", Col::Whole, 0),
    col("PRODUCER-ID", Col::Num, 0),
    col("EPOCH", Col::Num, 3),
    col("TIMEOUT-MS", Col::Num, 0),
    col("PARTITIONS", Col::Text, 1),
    col("LAST-UPDATE", Col::Time, 2),
    col("STARTED", Col::Time, 0),
];

/// The command that aborts an open transaction (`kafka-transactions.sh abort`, which finds the
/// producer with DescribeProducers and writes the ABORT marker with WriteTxnMarkers), on two
/// lines joined by a backslash so that it fits and pastes whole.
pub fn abort_command(t: &OpenTransaction) -> String {
    format!(
        "kafka-transactions.sh --bootstrap-server BROKER:9092 \\\n  abort --topic {} --partition {} --start-offset {}",
        shell_word(&t.topic),
        t.partition,
        t.first_offset
    )
}

/// A topic name as one shell word (Kafka's names are `[a-zA-Z0-9._-]`; anything else quoted).
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        s.to_string()
    } else {
        format!("'{}'", esc(s).replace('\'', "'\\''"))
    }
}

/// What an open transaction blocks, in words.
pub fn blocks(t: &OpenTransaction, compacted: bool) -> Vec<String> {
    let mut out = vec![format!(
        "read_committed consumers of {}-{} stop at offset {}; {} record{} from there to the log \
         end ({}) {} invisible to them",
        esc(&t.topic),
        t.partition,
        t.last_stable_offset,
        t.records_held,
        if t.records_held == 1 { "" } else { "s" },
        t.log_end,
        if t.records_held == 1 { "is" } else { "are" },
    )];
    if t.last_stable_offset < t.first_offset {
        out.push(format!(
            "(an earlier open transaction holds them at {}; this one would hold them at {})",
            t.last_stable_offset, t.first_offset
        ));
    }
    if compacted {
        out.push(format!(
            "the log cleaner cannot clean past offset {} ({} is compacted)",
            t.last_stable_offset,
            esc(&t.topic)
        ));
    }
    out
}

/// When an open transaction ends, in words.
pub fn ends(v: &OpenVerdict) -> String {
    match (v.status, v.aborted_at) {
        (OpenStatus::Hanging, _) => {
            "never by itself: the coordinator is done with it and no marker will come; abort it:"
                .into()
        }
        (OpenStatus::InProgress, Some((at, timeout))) => format!(
            "the coordinator aborts it at {} (its start + transaction.timeout.ms {timeout}), \
             once a broker runs, unless the producer ends it first",
            rfc3339_ms(at)
        ),
        (OpenStatus::InProgress, None) => {
            "when the coordinator writes its markers (it is ending it), once a broker runs".into()
        }
        (OpenStatus::NoCoordinatorState | OpenStatus::NoCoordinatorRecord, _) => {
            "unknown here (no coordinator record): if it hangs, abort it:".into()
        }
    }
}

/// An open transaction's verdict in words.
pub fn open_status(s: OpenStatus) -> &'static str {
    match s {
        OpenStatus::InProgress => "in progress",
        OpenStatus::Hanging => {
            "hanging: the coordinator has finished this producer's transaction; no marker will come"
        }
        OpenStatus::NoCoordinatorState => {
            "unknown: no __transaction_state partitions in these log dirs"
        }
        OpenStatus::NoCoordinatorRecord => {
            "unknown: no coordinator record for this producer here (its __transaction_state \
             partition may be on another broker, or the id expired)"
        }
    }
}

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

/// One NDJSON line per transactional id, open transaction and skipped record, then a summary.
pub fn write_json(
    out: &mut impl Write,
    state: &TransactionState,
    open: &[(OpenTransaction, OpenVerdict)],
    compacted: &HashSet<String>,
) -> io::Result<()> {
    for i in state.ids.values() {
        serde_json::to_writer(
            &mut *out,
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
    for (t, v) in open {
        let status = &v.coordinator;
        serde_json::to_writer(
            &mut *out,
            &json!({"type": "openTransaction", "topic": t.topic, "partition": t.partition,
            "producerId": t.producer_id, "producerEpoch": t.producer_epoch, "firstOffset": t.first_offset,
            "lastOffset": t.last_offset, "firstTimestamp": t.first_timestamp, "ageMs": t.age_ms,
            "transactionalId": status.as_ref().map(|s| &s.0), "coordinatorState": status.as_ref().map(|s| &s.1),
            "hanging": v.hanging, "verdict": open_status(v.status),
            "lastStableOffset": t.last_stable_offset, "recordsHeld": t.records_held, "logEndOffset": t.log_end,
            "compacted": compacted.contains(&t.topic),
            "abortedAt": v.aborted_at.map(|a| a.0), "timeoutMs": v.aborted_at.map(|a| a.1),
            "abortCommand": abort_command(t).replace(" \\\n  ", " ")}),
        )?;
        writeln!(out)?;
    }
    for (partition, offset, record_type) in &state.unknown_types {
        let v = json!({"type": "skippedRecord", "partition": partition, "offset": offset,
            "recordType": record_type, "reason": "unknown record type"});
        serde_json::to_writer(&mut *out, &v)?;
        writeln!(out)?;
    }
    let hanging = open.iter().filter(|(_, v)| v.hanging).count();
    serde_json::to_writer(
        &mut *out,
        &json!({"type": "summary", "transactionalIds": state.ids.len(),
        "openTransactions": open.len(), "hanging": hanging,
        "skippedUnknownTypes": state.unknown_types.len()}),
    )?;
    writeln!(out)
}

/// The tables: the transactional ids, then the open transactions and, for each, what it blocks,
/// when it ends and (for one that will not end by itself) the command that ends it. TSV: both
/// tables, each with its header line, a blank line between.
pub fn write_tables(
    out: &mut impl Write,
    layout: Layout,
    state: &TransactionState,
    open: &[(OpenTransaction, OpenVerdict)],
    compacted: &HashSet<String>,
) -> io::Result<()> {
    let mut open_table = Grid::new(&OPEN_COLUMNS);
    for (o, v) in open {
        let status = &v.coordinator;
        open_table.row(vec![
            esc(&o.topic),
            o.partition.to_string(),
            o.producer_id.to_string(),
            o.producer_epoch.to_string(),
            o.first_offset.to_string(),
            o.last_offset.to_string(),
            o.age_ms.map_or("-".into(), human_ms),
            o.last_stable_offset.to_string(),
            o.records_held.to_string(),
            status.as_ref().map_or("-".into(), |s| esc(&s.0)),
            status.as_ref().map_or("-".into(), |s| s.1.clone()),
            open_status(v.status).to_string(),
        ]);
    }
    let mut t = Grid::new(&ID_COLUMNS);
    for i in state.ids.values() {
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
    if layout == Layout::Tsv {
        t.write(out, layout)?;
        writeln!(out)?;
        return open_table.write(out, layout);
    }
    writeln!(out, "Transactional ids ({}):", state.ids.len())?;
    t.write(out, layout)?;
    if open.is_empty() {
        return writeln!(out, "No open transactions in the data partitions.");
    }
    writeln!(
        out,
        "Open transactions (transactional batches with no COMMIT/ABORT marker after them):"
    )?;
    open_table.write(out, layout)?;
    for (o, v) in open {
        writeln!(out)?;
        writeln!(
            out,
            "{}-{} producer {} (from offset {}):",
            esc(&o.topic),
            o.partition,
            o.producer_id,
            o.first_offset
        )?;
        for line in blocks(o, compacted.contains(&o.topic)) {
            writeln!(out, "  blocks: {line}")?;
        }
        writeln!(out, "  ends: {}", ends(v))?;
        if v.status != OpenStatus::InProgress {
            writeln!(out, "  {}", abort_command(o).replace('\n', "\n  "))?;
        }
    }
    if open.iter().any(|(_, v)| v.status != OpenStatus::InProgress) {
        writeln!(out)?;
        writeln!(out, "(BROKER:9092: any broker of the cluster.)")?;
    }
    Ok(())
}
