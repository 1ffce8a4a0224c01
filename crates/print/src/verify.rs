//! `kseg verify-index` output: findings grouped by partition, the recovery preview, a summary.

use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Column, Grid, Layout};
use kseg_analysis::verify::{Finding, RecoveryPreview, Severity};
use std::path::PathBuf;

/// One log dir's answer: will Kafka start on it, and what acknowledged data is at risk.
pub struct Verdict<'r> {
    pub log_dir: PathBuf,
    pub partitions: Vec<&'r RecoveryPreview>,
}

impl Verdict<'_> {
    /// The first partition whose load throws.
    fn failure(&self) -> Option<&RecoveryPreview> {
        self.partitions
            .iter()
            .copied()
            .find(|p| p.load_failure.is_some())
    }
}

/// `{"type":"verdict"}`: one per log dir, before every other line.
pub fn json_verdict(out: &mut impl Write, v: &Verdict<'_>) -> io::Result<()> {
    let failure = v.failure().and_then(|p| p.load_failure.as_ref());
    let at_risk: Vec<serde_json::Value> = v
        .partitions
        .iter()
        .filter(|p| {
            p.acknowledged_lost.is_some() || p.possibly_acknowledged.is_some() || p.unreadable_end
        })
        .map(|p| {
            json!({"partition": p.partition, "highWatermark": p.high_watermark,
                "acknowledgedLost": p.acknowledged_lost, "possiblyAcknowledged": p.possibly_acknowledged,
                "unreadableEnd": p.unreadable_end})
        })
        .collect();
    let j = json!({"type": "verdict", "logDir": v.log_dir.display().to_string(),
        "kafkaStarts": failure.is_none(),
        "reason": failure.map(|f| f.reason.clone()), "file": failure.map(|f| f.file.clone()),
        "position": failure.map(|f| f.position), "atRisk": at_risk});
    serde_json::to_writer(&mut *out, &j).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// "Will Kafka start on DIR: yes / NO (...)", then the acknowledged records at risk.
pub fn verdict_text(out: &mut impl Write, v: &Verdict<'_>) -> io::Result<()> {
    let dir = escape(&v.log_dir.display().to_string());
    match v.failure().and_then(|p| p.load_failure.as_ref()) {
        None => writeln!(out, "Will Kafka start on {dir}: yes")?,
        Some(f) => writeln!(
            out,
            "Will Kafka start on {dir}: NO ({}; {} at byte {})",
            escape(&f.reason),
            escape(&f.file),
            f.position
        )?,
    }
    for p in &v.partitions {
        let mut parts = Vec::new();
        if let Some(c) = p.acknowledged_lost {
            parts.push(format!(
                "at least {} acknowledged records lost (offsets {}..{})",
                c.records, c.first_offset, c.last_offset
            ));
        }
        if let Some(m) = p.possibly_acknowledged {
            parts.push(format!(
                "up to {} {}possibly acknowledged (offsets {}..{})",
                m.records,
                if parts.is_empty() { "" } else { "more " },
                m.first_offset,
                m.last_offset
            ));
        }
        if p.unreadable_end {
            parts.push(if parts.is_empty() {
                "acknowledged records in the unreadable bytes at the log's end, if any, are lost"
                    .to_string()
            } else {
                "and any in the unreadable bytes at the log's end".to_string()
            });
        }
        if !parts.is_empty() {
            writeln!(
                out,
                "  {}: {}{}",
                escape(&p.partition),
                parts.join(", "),
                p.high_watermark
                    .map_or(" (no high watermark checkpoint)".to_string(), |h| format!(
                        " (high watermark {h})"
                    ))
            )?;
        }
    }
    Ok(())
}

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
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

const FINDING_COLUMNS: [Column; 6] = [
    col("SEVERITY", Col::Whole, 0),
    col("CHECK", Col::Whole, 0),
    col("FILE", Col::Id, 2),
    col("POSITION", Col::Num, 3),
    col("OFFSET", Col::Num, 1),
    col("MESSAGE", Col::Prose, 0),
];

fn finding_cells(f: &Finding) -> Vec<String> {
    let file = f.file.rsplit('/').next().unwrap_or(&f.file);
    vec![
        f.severity.name().to_string(),
        f.check.to_string(),
        escape(file),
        f.position.map_or("-".into(), |p| p.to_string()),
        f.offset.map_or("-".into(), |o| o.to_string()),
        escape(&f.message),
    ]
}

/// The findings of one partition (or of the log dirs), under its name.
pub fn findings_table(
    out: &mut impl Write,
    partition: &str,
    findings: &[&Finding],
    layout: Layout,
) -> io::Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", escape(partition))?;
    let mut t = Grid::new(&FINDING_COLUMNS);
    for f in findings {
        t.row(finding_cells(f));
    }
    t.write(out, layout)
}

/// `--format tsv`: every finding shown, one line each, its partition first.
pub fn findings_tsv(out: &mut impl Write, findings: &[(&str, &Finding)]) -> io::Result<()> {
    let mut columns = vec![col("PARTITION", Col::Id, 0)];
    columns.extend(FINDING_COLUMNS);
    let mut t = Grid::new(&columns);
    for (partition, f) in findings {
        let mut cells = vec![escape(partition)];
        cells.extend(finding_cells(f));
        t.row(cells);
    }
    t.write(out, Layout::Tsv)
}

const RECOVERY_COLUMNS: [Column; 7] = [
    col("PARTITION", Col::Id, 0).key(),
    col("RECOVERY POINT", Col::Num, 2),
    col("SEGMENTS RECOVERED", Col::Num, 0),
    col("TRUNCATE AT", Col::Id, 0),
    col("DROPPED BATCHES/RECORDS/BYTES", Col::Whole, 1),
    col("SEGMENTS DELETED", Col::Num, 3),
    col("INDEXES REBUILT", Col::Num, 3),
];

/// The recovery preview; `live` when a broker holds a log dir's `.lock` (it is running).
pub fn recovery_table(
    out: &mut impl Write,
    previews: &[&RecoveryPreview],
    live: bool,
    layout: Layout,
) -> io::Result<()> {
    if previews.is_empty() {
        return writeln!(
            out,
            "Recovery preview: no partitions, nothing for Kafka to recover."
        );
    }
    // Segments without their .index are recovered at load even after a clean shutdown.
    let interesting: Vec<&&RecoveryPreview> = previews
        .iter()
        .filter(|r| !r.recovered_segments.is_empty() || r.truncate_position.is_some())
        .collect();
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
        } else if live {
            "Recovery preview (a broker is running on this data: what Kafka would do if it stopped now without a clean shutdown):"
        } else {
            "Recovery preview (what Kafka does at the next start, without a clean-shutdown marker):"
        }
    )?;
    // Recovering empty segments changes nothing but their (empty) indexes: one line for them all
    // (--json keeps every partition's object).
    let (trivial, rows): (Vec<&&RecoveryPreview>, Vec<&&RecoveryPreview>) =
        interesting.into_iter().partition(|r| is_trivial(r));
    let mut t = Grid::new(&RECOVERY_COLUMNS);
    for r in rows.iter().copied() {
        let truncate = match (&r.truncate_file, r.truncate_position) {
            (Some(f), Some(p)) => format!("{} @ {p}", f.rsplit('/').next().unwrap_or(f)),
            _ => "-".into(),
        };
        t.row(vec![
            escape(&r.partition),
            r.recovery_point.map_or("- (all)".into(), |p| p.to_string()),
            r.recovered_segments.len().to_string(),
            escape(&truncate),
            format!(
                "{}/{}/{}",
                r.dropped_batches, r.dropped_records, r.dropped_bytes
            ),
            r.deleted_segments.len().to_string(),
            r.rebuilt_indexes.len().to_string(),
        ]);
    }
    if !rows.is_empty() {
        t.write(out, layout)?;
    }
    if !trivial.is_empty() {
        writeln!(
            out,
            "{} empty partition{}: nothing to recover (Kafka re-checks {} empty segments and \
             rebuilds their indexes){}",
            trivial.len(),
            if trivial.len() == 1 { "" } else { "s" },
            if trivial.len() == 1 { "its" } else { "their" },
            if rows.is_empty() {
                "."
            } else {
                "; the others are above."
            }
        )?;
    }
    if idle > 0 {
        writeln!(
            out,
            "({idle} more partitions have nothing past their recovery point.)"
        )?;
    }
    Ok(())
}

/// Which log configs the partitions were judged with: Kafka's defaults, or per topic the values
/// `__cluster_metadata` (or the command line) gave.
pub fn log_configs(out: &mut impl Write, previews: &[&RecoveryPreview]) -> io::Result<()> {
    let mut by_topic: std::collections::BTreeMap<String, String> = Default::default();
    for r in previews {
        let overrides = r.log_config.describe_overrides();
        if !overrides.is_empty() {
            let topic = r
                .partition
                .rsplit_once('-')
                .map_or(r.partition.as_str(), |(t, _)| t);
            by_topic.insert(topic.to_string(), overrides);
        }
    }
    let d = kseg_analysis::topic_configs::TopicLogConfig::defaults();
    let defaults = format!(
        "index.interval.bytes {}, segment.bytes {}, message.timestamp.type {}, preallocate {}",
        d.index_interval_bytes.value,
        d.segment_bytes.value,
        d.message_timestamp_type.value,
        d.preallocate.value
    );
    if by_topic.is_empty() {
        return writeln!(out, "Log configs: Kafka's defaults ({defaults}).");
    }
    writeln!(out, "Log configs: Kafka's defaults ({defaults}), except:")?;
    for (topic, overrides) in by_topic {
        writeln!(out, "  {}: {}", escape(&topic), escape(&overrides))?;
    }
    Ok(())
}

/// A recovery that reads no byte and drops, deletes or moves nothing.
fn is_trivial(r: &RecoveryPreview) -> bool {
    r.recovered_bytes == 0
        && r.truncate_position.is_none()
        && r.deleted_segments.is_empty()
        && r.load_actions.is_empty()
        && r.dropped_batches == 0
}

pub fn count(findings: &[Finding], s: Severity) -> usize {
    findings.iter().filter(|f| f.severity == s).count()
}
