//! `kseg summary` output: a comfy-table for people, NDJSON for scripts.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use serde_json::json;

use crate::analysis::summary::PartitionSummary;
use crate::storage::layout::PartitionState;

/// Epoch milliseconds as RFC 3339 UTC (`2024-05-29T16:26:40.123Z`).
pub fn rfc3339_ms(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| format!("{t:.3}"))
        .unwrap_or_else(|_| ms.to_string())
}

fn opt(v: Option<i64>) -> String {
    v.map_or("-".into(), |x| x.to_string())
}

fn state_name(s: Option<PartitionState>) -> Option<&'static str> {
    match s? {
        PartitionState::Live => None,
        PartitionState::PendingDelete => Some("pending delete"),
        PartitionState::Future => Some("future replica"),
        PartitionState::Stray => Some("stray"),
    }
}

pub fn table(out: &mut impl Write, rows: &[PartitionSummary]) -> io::Result<()> {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "TOPIC",
            "PART",
            "SEGS",
            "BYTES",
            "START",
            "END",
            "RECORDS",
            "FIRST TIMESTAMP",
            "LAST TIMESTAMP",
            "MAGIC",
            "CODECS",
            "PIDS",
            "TXN",
            "CTRL",
            "CLEAN",
            "RECOVERY/HW",
            "NOTES",
        ]);
    for r in rows {
        let magic: Vec<String> = r.magics.iter().map(|(m, n)| format!("v{m}:{n}")).collect();
        let codecs: Vec<String> = r.codecs.iter().map(|(c, n)| format!("{c}:{n}")).collect();
        let mut notes = r.warnings.clone();
        if let Some(s) = state_name(r.state) {
            notes.insert(0, s.to_string());
        }
        let mut topic = Vec::new();
        crate::print::escape::write_escaped(&mut topic, r.topic.as_bytes())?;
        let topic = String::from_utf8_lossy(&topic).into_owned();
        t.add_row(vec![
            Cell::new(topic),
            Cell::new(if r.partition >= 0 {
                r.partition.to_string()
            } else {
                "-".into()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(r.segments).set_alignment(CellAlignment::Right),
            Cell::new(r.bytes).set_alignment(CellAlignment::Right),
            Cell::new(opt(r.log_start_offset)).set_alignment(CellAlignment::Right),
            Cell::new(opt(r.log_end_offset)).set_alignment(CellAlignment::Right),
            Cell::new(r.records).set_alignment(CellAlignment::Right),
            Cell::new(r.first_timestamp.map_or("-".into(), rfc3339_ms)),
            Cell::new(r.last_timestamp.map_or("-".into(), rfc3339_ms)),
            Cell::new(magic.join(" ")),
            Cell::new(codecs.join(" ")),
            Cell::new(r.producer_ids.len()).set_alignment(CellAlignment::Right),
            Cell::new(r.transactional_batches).set_alignment(CellAlignment::Right),
            Cell::new(r.control_batches).set_alignment(CellAlignment::Right),
            Cell::new(match r.clean_shutdown {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }),
            Cell::new(format!(
                "{}/{}",
                opt(r.checkpoints.recovery_point),
                opt(r.checkpoints.high_watermark)
            )),
            Cell::new(notes.join("; ")),
        ]);
    }
    writeln!(out, "{t}")
}

pub fn json_row(out: &mut impl Write, r: &PartitionSummary) -> io::Result<()> {
    let magic: serde_json::Map<String, serde_json::Value> = r
        .magics
        .iter()
        .map(|(m, n)| (m.to_string(), json!(n)))
        .collect();
    let v = json!({
        "type": "partition",
        "logDir": r.log_dir.as_ref().map(|p| p.display().to_string()),
        "path": r.path.display().to_string(),
        "topic": r.topic,
        "partition": (r.partition >= 0).then_some(r.partition),
        "state": state_name(r.state).unwrap_or("live"),
        "segments": r.segments,
        "bytes": r.bytes,
        "logStartOffset": r.log_start_offset,
        "logEndOffset": r.log_end_offset,
        "batches": r.batches,
        "records": r.records,
        "firstTimestamp": r.first_timestamp,
        "lastTimestamp": r.last_timestamp,
        "magic": magic,
        "codecs": r.codecs,
        "producerIds": r.producer_ids.len(),
        "transactionalBatches": r.transactional_batches,
        "controlBatches": r.control_batches,
        "crcErrors": r.crc_errors,
        "invalidBytes": r.invalid_bytes,
        "cleanShutdown": r.clean_shutdown,
        "checkpoints": r.checkpoints,
        "warnings": r.warnings,
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
