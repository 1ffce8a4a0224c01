//! `kseg transactions` output: the transactional ids of `__transaction_state` and the open
//! transactions of the data partitions, as tables or NDJSON.

use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Column, Grid, Layout};
use kseg_analysis::transactions::{OpenStatus, OpenTransaction, OpenVerdict, TransactionState};
use kseg_escape::write_escaped;
use kseg_time::rfc3339_ms;

/// The open transactions: one row each. AGE-AT-NEWEST is the partition's newest timestamp minus
/// the transaction's first: how long the partition went on being written while it stayed open
/// (not how long ago it started).
const OPEN_COLUMNS: [Column; 10] = [
    col("TOPIC", Col::Id, 0).key(),
    col("PARTITION", Col::Num, 0).key(),
    col("PRODUCER-ID", Col::Num, 0).key(),
    col("EPOCH", Col::Num, 3),
    col("FIRST-OFFSET", Col::Num, 0),
    col("LAST-OFFSET", Col::Num, 2),
    col("AGE-AT-NEWEST", Col::Whole, 4),
    col("TRANSACTIONAL-ID", Col::Id, 1),
    col("COORDINATOR-STATE", Col::Whole, 2),
    col("VERDICT", Col::Prose, 0),
];

const ID_COLUMNS: [Column; 9] = [
    col("TRANSACTIONAL-ID", Col::Id, 0).key(),
    col("COORDINATOR", Col::Id, 3),
    col("STATE", Col::Whole, 0),
    col("PRODUCER-ID", Col::Num, 0),
    col("EPOCH", Col::Num, 2),
    col("TIMEOUT-MS", Col::Num, 4),
    col("PARTITIONS", Col::Text, 1),
    col("LAST-UPDATE", Col::Time, 2),
    col("STARTED", Col::Time, 3),
];

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
            "hanging": v.hanging, "verdict": open_status(v.status)}),
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

/// The tables: the transactional ids, then the open transactions (TSV: the open ones only;
/// the ids are in `--json`).
pub fn write_tables(
    out: &mut impl Write,
    layout: Layout,
    state: &TransactionState,
    open: &[(OpenTransaction, OpenVerdict)],
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
            o.age_ms.map_or("-".into(), |a| format!("{} ms", a)),
            status.as_ref().map_or("-".into(), |s| esc(&s.0)),
            status.as_ref().map_or("-".into(), |s| s.1.clone()),
            open_status(v.status).to_string(),
        ]);
    }
    if layout == Layout::Tsv {
        return open_table.write(out, layout);
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
    writeln!(out, "Transactional ids ({}):", state.ids.len())?;
    t.write(out, layout)?;
    if open.is_empty() {
        writeln!(out, "No open transactions in the data partitions.")
    } else {
        writeln!(
            out,
            "Open transactions (transactional batches with no COMMIT/ABORT marker after them):"
        )?;
        open_table.write(out, layout)
    }
}
