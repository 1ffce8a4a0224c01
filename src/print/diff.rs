//! `kseg diff` output: a verdict per partition, each replica's offsets and epochs, each
//! follower set against its leader; and their NDJSON forms.

use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Grid, Layout};
use crate::analysis::diff::{thousands, Leadership, OneSided, PartitionDiff, Span};
use crate::time::rfc3339_ms;

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = super::escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

fn opt(v: Option<i64>) -> String {
    v.map_or("-".into(), |x| x.to_string())
}

fn leader_text(p: &PartitionDiff) -> String {
    match p.lead {
        Leadership::Given(l) => format!("{} (given)", p.replicas[l].label),
        Leadership::NewestEpoch(l) => format!(
            "{} (newest leader epoch {})",
            p.replicas[l].label,
            p.replicas[l].latest_epoch().unwrap_or(-1)
        ),
        Leadership::Unknown => "unknown (two candidates)".into(),
    }
}

/// `12 (500..511)`, or `-`.
fn span_cell(s: &Span) -> String {
    match (s.first_offset, s.last_offset) {
        (Some(a), Some(b)) => format!("{} ({a}..{b})", thousands(s.records)),
        _ => "-".into(),
    }
}

/// `0-11,13,15-49`: partitions as ranges.
fn ranges(parts: &[i32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let mut j = i;
        while j + 1 < parts.len() && parts[j + 1] == parts[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            parts[i].to_string()
        } else {
            format!("{}-{}", parts[i], parts[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// The one-line verdict of every partition. In text, the partitions identical on every replica
/// are one line per topic with their count (in TSV one line each, for scripts).
pub fn verdict_table(
    out: &mut impl Write,
    parts: &[PartitionDiff],
    layout: Layout,
) -> io::Result<()> {
    let mut t = Grid::new(&[
        col("TOPIC", Col::Id, 0).key(),
        col("PARTITION", Col::Num, 0).key(),
        col("REPLICAS", Col::Num, 2),
        col("LEADER", Col::Id, 1),
        col("VERDICT", Col::Prose, 0),
    ]);
    let row = |t: &mut Grid, p: &PartitionDiff| {
        t.row(vec![
            esc(&p.topic),
            p.partition.to_string(),
            p.replicas.len().to_string(),
            // In text the label (the legend under the table says how it was chosen).
            esc(&match (p.lead, layout.prose()) {
                (_, false) => leader_text(p),
                (Leadership::Given(l) | Leadership::NewestEpoch(l), true) => {
                    p.replicas[l].label.clone()
                }
                (Leadership::Unknown, true) => "unknown".into(),
            }),
            esc(&p.verdict()),
        ])
    };
    if !layout.prose() {
        for p in parts {
            row(&mut t, p);
        }
        return t.write(out, layout);
    }
    for p in parts.iter().filter(|p| !p.identical()) {
        row(&mut t, p);
    }
    // (topic, replicas) -> partitions identical everywhere.
    let mut same: Vec<((&str, usize), Vec<i32>)> = Vec::new();
    for p in parts.iter().filter(|p| p.identical()) {
        let k = (p.topic.as_str(), p.replicas.len());
        match same.iter_mut().find(|(key, _)| *key == k) {
            Some((_, v)) => v.push(p.partition),
            None => same.push((k, vec![p.partition])),
        }
    }
    for ((topic, replicas), list) in &same {
        t.row(vec![
            esc(topic),
            ranges(list),
            replicas.to_string(),
            "-".into(),
            if list.len() == 1 {
                "identical".into()
            } else {
                format!("{} identical", list.len())
            },
        ]);
    }
    t.write(out, layout)
}

/// Under the verdicts: which path each label is, and how the leader was chosen.
pub fn legend(
    out: &mut impl Write,
    paths: &[(String, String)],
    parts: &[PartitionDiff],
    leader_given: bool,
) -> io::Result<()> {
    writeln!(out, "Replicas:")?;
    for (label, path) in paths {
        writeln!(out, "  {}: {}", esc(label), esc(path))?;
    }
    if parts.iter().all(PartitionDiff::identical) {
        return Ok(());
    }
    if leader_given {
        writeln!(out, "Leader: the replica named by --leader.")
    } else {
        writeln!(
            out,
            "Leader: in each partition, the replica whose history holds the newest leader epoch \
             (only a leader starts an epoch), the longest log among those sharing it; when \
             those disagree it is unknown and each is compared with the other. --leader PATH \
             names it."
        )
    }
}

/// Replicas and comparisons of one partition that is not identical everywhere.
pub fn details(out: &mut impl Write, p: &PartitionDiff, layout: Layout) -> io::Result<()> {
    writeln!(
        out,
        "\n{}-{}: leader {}",
        esc(&p.topic),
        p.partition,
        esc(&leader_text(p))
    )?;
    let mut t = Grid::new(&[
        col("REPLICA", Col::Id, 0).key(),
        col("LOG-START", Col::Num, 2),
        col("LOG-END", Col::Num, 0),
        col("HIGH-WATERMARK", Col::Num, 0),
        col("RECOVERY-POINT", Col::Num, 3),
        col("BATCHES", Col::Num, 4),
        col("LEADER-EPOCHS (epoch@start)", Col::Text, 1),
        col("PATH", Col::Id, 5),
    ]);
    for r in &p.replicas {
        let epochs: Vec<String> = r
            .epochs
            .iter()
            .map(|e| format!("{}@{}", e.epoch, e.start_offset))
            .collect();
        t.row(vec![
            esc(&r.label),
            r.log_start.to_string(),
            r.log_end.to_string(),
            opt(r.high_watermark),
            opt(r.recovery_point),
            r.batches.len().to_string(),
            if epochs.is_empty() {
                "-".into()
            } else {
                epochs.join(" ")
            },
            esc(&r.path.display().to_string()),
        ]);
    }
    t.write(out, layout)?;
    let mut t = Grid::new(&[
        col("FOLLOWER", Col::Id, 0).key(),
        col("LEADER", Col::Id, 0).key(),
        col("COMMON-PREFIX-END", Col::Num, 2),
        col("TRUNCATE-TO", Col::Num, 0),
        col("LOST-ACKED", Col::Whole, 0),
        col("LOST-UNACKED", Col::Whole, 1),
        col("ONLY-ON-LEADER", Col::Whole, 3),
        col("FINDINGS", Col::Prose, 0),
    ]);
    for (d, f) in p.pairs.iter().zip(&p.findings) {
        t.row(vec![
            esc(&p.replicas[d.follower].label),
            esc(&p.replicas[d.leader].label),
            d.common_prefix_end.to_string(),
            d.truncation.offset.to_string(),
            span_cell(&d.lost.acknowledged),
            span_cell(&d.lost.unacknowledged),
            span_cell(
                &d.missing
                    .acknowledged
                    .clone()
                    .merged(&d.missing.unacknowledged),
            ),
            esc(&f.join("; ")),
        ]);
    }
    t.write(out, layout)?;
    for d in &p.pairs {
        for (what, s) in [
            ("acknowledged", &d.lost.acknowledged),
            ("unacknowledged", &d.lost.unacknowledged),
            ("disagreeing, acknowledged", &d.conflicting.acknowledged),
            ("disagreeing, unacknowledged", &d.conflicting.unacknowledged),
        ] {
            if s.records == 0 {
                continue;
            }
            let pids: Vec<String> = s.producer_ids.iter().map(|p| p.to_string()).collect();
            writeln!(
                out,
                "  only on {}, {what}: {} records, offsets {}..{}, timestamps {} .. {}, producer ids {}",
                esc(&p.replicas[d.follower].label),
                thousands(s.records),
                opt(s.first_offset),
                opt(s.last_offset),
                s.first_timestamp.map_or("-".into(), rfc3339_ms),
                s.last_timestamp.map_or("-".into(), rfc3339_ms),
                if pids.is_empty() {
                    "none".into()
                } else {
                    pids.join(", ")
                }
            )?;
        }
    }
    Ok(())
}

fn span_json(s: &Span) -> serde_json::Value {
    json!({"records": s.records, "firstOffset": s.first_offset, "lastOffset": s.last_offset,
        "firstTimestamp": s.first_timestamp, "lastTimestamp": s.last_timestamp,
        "producerIds": s.producer_ids})
}

fn one_sided_json(o: &OneSided) -> serde_json::Value {
    json!({"fromOffset": o.from_offset, "records": o.records(),
        "acknowledged": span_json(&o.acknowledged), "unacknowledged": span_json(&o.unacknowledged)})
}

pub fn json_partition(out: &mut impl Write, p: &PartitionDiff) -> io::Result<()> {
    let line = |out: &mut dyn Write, v: serde_json::Value| -> io::Result<()> {
        serde_json::to_writer(&mut *out, &v)?;
        out.write_all(b"\n")
    };
    let leader = p.leader().map(|r| r.label.clone());
    for (i, r) in p.replicas.iter().enumerate() {
        let role = match p.lead {
            Leadership::Given(l) | Leadership::NewestEpoch(l) if l == i => "leader",
            Leadership::Unknown => "candidate",
            _ => "follower",
        };
        line(
            out,
            json!({"type": "replica", "topic": p.topic, "partition": p.partition,
                "replica": r.label, "brokerId": r.broker_id, "path": r.path.display().to_string(),
                "role": role, "logStartOffset": r.log_start, "logEndOffset": r.log_end,
                "highWatermark": r.high_watermark, "recoveryPoint": r.recovery_point,
                "batches": r.batches.len(), "cleanerCheckpoint": r.cleaned_to,
                "leaderEpochs": r.epochs.iter().map(|e| json!({"epoch": e.epoch, "startOffset": e.start_offset})).collect::<Vec<_>>(),
                "problems": r.problems}),
        )?;
    }
    for (d, f) in p.pairs.iter().zip(&p.findings) {
        line(
            out,
            json!({"type": "divergence", "topic": p.topic, "partition": p.partition,
                "leader": p.replicas[d.leader].label, "follower": p.replicas[d.follower].label,
                "candidate": p.lead == Leadership::Unknown,
                "commonPrefixEnd": d.common_prefix_end, "commonBatches": d.common_batches,
                "truncationOffset": d.truncation.offset, "truncationSteps": d.truncation.steps,
                "fallback": d.truncation.fallback, "divergingEpoch": d.diverging_epoch,
                "lost": one_sided_json(&d.lost), "onlyOnLeader": one_sided_json(&d.missing),
                "conflicting": one_sided_json(&d.conflicting),
                "identical": d.identical(&p.replicas), "findings": f}),
        )?;
    }
    line(
        out,
        json!({"type": "partition", "topic": p.topic, "partition": p.partition,
            "replicas": p.replicas.len(), "leader": leader, "identical": p.identical(),
            "acknowledgedLost": p.pairs.iter().map(|d| d.lost.acknowledged.records).sum::<u64>(),
            "verdict": p.verdict()}),
    )
}
