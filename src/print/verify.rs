//! `kseg verify-index` output: findings grouped by partition, the recovery preview, a summary.

use std::io::{self, Write};

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, ContentArrangement, Table};
use serde_json::json;

use crate::analysis::verify::{Finding, RecoveryPreview, Severity};

pub fn json_finding(out: &mut impl Write, f: &Finding) -> io::Result<()> {
    let v = json!({"type": "finding", "check": f.check, "severity": f.severity, "file": f.file,
        "position": f.position, "offset": f.offset, "message": f.message});
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

pub fn json_recovery(out: &mut impl Write, r: &RecoveryPreview) -> io::Result<()> {
    let mut v = serde_json::to_value(r).map_err(io::Error::from)?;
    v.as_object_mut()
        .expect("struct")
        .insert("type".into(), "recovery".into());
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

fn escape(s: &str) -> String {
    let mut v = Vec::new();
    let _ = super::escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

pub fn findings_table(
    out: &mut impl Write,
    partition: &str,
    findings: &[&Finding],
) -> io::Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    writeln!(out, "{partition}")?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "SEVERITY", "CHECK", "FILE", "POSITION", "OFFSET", "MESSAGE",
        ]);
    for f in findings {
        let file = f.file.rsplit('/').next().unwrap_or(&f.file);
        t.add_row(vec![
            Cell::new(f.severity.name()),
            Cell::new(f.check),
            Cell::new(escape(file)),
            Cell::new(f.position.map_or("-".into(), |p| p.to_string())),
            Cell::new(f.offset.map_or("-".into(), |o| o.to_string())),
            Cell::new(escape(&f.message)),
        ]);
    }
    writeln!(out, "{t}")
}

pub fn recovery_table(out: &mut impl Write, previews: &[&RecoveryPreview]) -> io::Result<()> {
    // Segments without their .index are recovered at load even after a clean shutdown.
    let interesting: Vec<&&RecoveryPreview> = previews
        .iter()
        .filter(|r| !r.recovered_segments.is_empty() || r.truncate_position.is_some())
        .collect();
    if previews.is_empty() {
        return writeln!(
            out,
            "Recovery preview: no partitions, nothing for Kafka to recover."
        );
    }
    let all_clean = previews.iter().all(|r| r.clean_shutdown);
    if interesting.is_empty() {
        return if all_clean {
            writeln!(out, "Recovery preview: every log dir has a clean-shutdown marker; Kafka will not run log recovery.")
        } else {
            writeln!(out, "Recovery preview: no clean-shutdown marker, but no partition has data past its recovery point; nothing to recover.")
        };
    }
    let idle = previews
        .iter()
        .filter(|r| !r.clean_shutdown && r.recovered_segments.is_empty())
        .count();
    writeln!(
        out,
        "{}",
        if all_clean {
            "Recovery preview (clean shutdown, but Kafka recovers the segments whose .index is missing when it loads them):"
        } else {
            "Recovery preview (what Kafka does at the next start, without a clean-shutdown marker):"
        }
    )?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
            "PARTITION",
            "RECOVERY POINT",
            "SEGMENTS RECOVERED",
            "TRUNCATE AT",
            "DROPPED BATCHES/RECORDS/BYTES",
            "SEGMENTS DELETED",
            "INDEXES REBUILT",
        ]);
    for r in interesting {
        let truncate = match (&r.truncate_file, r.truncate_position) {
            (Some(f), Some(p)) => format!("{} @ {p}", f.rsplit('/').next().unwrap_or(f)),
            _ => "-".into(),
        };
        t.add_row(vec![
            Cell::new(escape(&r.partition)),
            Cell::new(r.recovery_point.map_or("- (all)".into(), |p| p.to_string())),
            Cell::new(r.recovered_segments.len()),
            Cell::new(truncate),
            Cell::new(format!(
                "{}/{}/{}",
                r.dropped_batches, r.dropped_records, r.dropped_bytes
            )),
            Cell::new(r.deleted_segments.len()),
            Cell::new(r.rebuilt_indexes.len()),
        ]);
    }
    writeln!(out, "{t}")?;
    if idle > 0 {
        writeln!(
            out,
            "({idle} more partitions have nothing past their recovery point.)"
        )?;
    }
    Ok(())
}

pub fn count(findings: &[Finding], s: Severity) -> usize {
    findings.iter().filter(|f| f.severity == s).count()
}
