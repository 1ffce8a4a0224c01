//! `kseg diff` output: a verdict per partition, each replica's offsets and epochs, each
//! follower set against its leader; and their NDJSON forms.

use std::fmt;
use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Grid, Layout};
use super::words::thousands;
use kseg_analysis::diff::{
    Fallback, Finding, Leadership, OneSided, PairFinding, PartitionDiff, ReplicaFault,
    ReplicaProblem, Span,
};
use kseg_time::rfc3339_ms;

/// A [`Finding`] in words.
pub struct Worded<'a>(pub &'a Finding);

impl fmt::Display for Worded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.0.if_leads {
            write!(f, "if {l} leads: ")?;
        }
        match &self.0.kind {
            PairFinding::UncleanElection {
                epoch,
                leader,
                acknowledged,
                follower,
            } => write!(
                f,
                "unclean leader election: epoch {epoch} on {leader} truncated {} acknowledged \
                 records of {follower}",
                thousands(*acknowledged)
            ),
            PairFinding::AcknowledgedTruncated {
                acknowledged,
                follower,
                first_offset,
                last_offset,
                leader,
            } => write!(
                f,
                "{} acknowledged records of {follower} (offsets {first_offset}..{last_offset}) \
                 are truncated: {leader}'s log ends before them",
                thousands(*acknowledged)
            ),
            PairFinding::NoHighWatermark { follower } => write!(
                f,
                "{follower} has no high watermark on disk (no replication-offset-checkpoint \
                 entry): its records are counted as acknowledged"
            ),
            PairFinding::UnacknowledgedTruncated { records, follower } => write!(
                f,
                "{} records of {follower} above its high watermark truncated (not acknowledged \
                 as far as it knew)",
                thousands(*records)
            ),
            PairFinding::Disagree {
                records,
                follower,
                first_offset,
                last_offset,
                acknowledged,
                leader,
            } => write!(
                f,
                "replicas disagree: {} records of {follower} at offsets \
                 {first_offset}..{last_offset} ({} acknowledged) differ from {leader}'s and no \
                 truncation removes them",
                thousands(*records),
                thousands(*acknowledged)
            ),
            PairFinding::Identical => f.write_str("identical"),
            PairFinding::EndsDifferNothingMissing {
                follower,
                follower_end,
                leader,
                leader_end,
            } => write!(
                f,
                "log ends differ: {follower} ends at {follower_end}, {leader} at {leader_end}, \
                 and {leader}'s offsets {follower_end}..{} hold no records (an empty segment or \
                 compaction): no record is missing",
                leader_end - 1
            ),
            PairFinding::FollowerBehind {
                follower,
                missing,
                leader,
                first_offset,
                last_offset,
            } => write!(
                f,
                "follower behind: {follower} lacks {} records of {leader} (offsets \
                 {first_offset}..{last_offset})",
                thousands(*missing)
            ),
            PairFinding::DifferWithoutTruncation { from_offset } => write!(
                f,
                "the logs differ from offset {from_offset} although no truncation follows"
            ),
        }
    }
}

/// Findings joined by `; `.
fn joined<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> String {
    findings
        .into_iter()
        .map(|f| Worded(f).to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The partition's one-line verdict: "identical", or its findings joined.
pub fn verdict(p: &PartitionDiff) -> String {
    if p.identical() {
        return "identical".into();
    }
    joined(p.verdict())
}

/// Why the follower's truncation did not come from the epochs.
pub fn fallback_text(f: Fallback) -> &'static str {
    match f {
        Fallback::NoFollowerEpoch => {
            "the follower has no leader epoch: it truncates to its high watermark"
        }
        Fallback::LeaderEpochUndefined => {
            "the leader knows no epoch this high (UNDEFINED_EPOCH_OFFSET): the follower keeps \
             its fetch offset"
        }
        Fallback::NoConvergence => "the epoch histories did not converge",
    }
}

/// A replica's unreadable file: `FILE: byte N: what` for a problem found in a segment's scan,
/// `FILE: error` for a file that could not be read.
pub struct Problem<'a>(pub &'a ReplicaProblem);

impl fmt::Display for Problem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.0.file.display();
        match &self.0.kind {
            ReplicaFault::Log(p) => write!(f, "{file}: byte {}: {}", p.position(), p.message()),
            ReplicaFault::File(e) => write!(f, "{file}: {e}"),
        }
    }
}

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
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
            esc(&verdict(p)),
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
            esc(&joined(f)),
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
                "problems": r.problems.iter().map(|x| Problem(x).to_string()).collect::<Vec<_>>()}),
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
                "fallback": d.truncation.fallback.map(fallback_text), "divergingEpoch": d.diverging_epoch,
                "lost": one_sided_json(&d.lost), "onlyOnLeader": one_sided_json(&d.missing),
                "conflicting": one_sided_json(&d.conflicting),
                "identical": d.identical(&p.replicas),
                "findings": f.iter().map(|x| Worded(x).to_string()).collect::<Vec<_>>()}),
        )?;
    }
    line(
        out,
        json!({"type": "partition", "topic": p.topic, "partition": p.partition,
            "replicas": p.replicas.len(), "leader": leader, "identical": p.identical(),
            "acknowledgedLost": p.pairs.iter().map(|d| d.lost.acknowledged.records).sum::<u64>(),
            "verdict": verdict(p)}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worded(if_leads: Option<&str>, kind: PairFinding) -> String {
        Worded(&Finding {
            if_leads: if_leads.map(str::to_string),
            kind,
        })
        .to_string()
    }

    #[test]
    fn findings_in_words() {
        assert_eq!(
            worded(
                None,
                PairFinding::UncleanElection {
                    epoch: 2,
                    leader: "broker-2".into(),
                    acknowledged: 1204,
                    follower: "broker-1".into()
                }
            ),
            "unclean leader election: epoch 2 on broker-2 truncated 1,204 acknowledged records \
             of broker-1"
        );
        assert_eq!(
            worded(
                Some("a"),
                PairFinding::FollowerBehind {
                    follower: "c".into(),
                    missing: 10,
                    leader: "a".into(),
                    first_offset: 10,
                    last_offset: 19
                }
            ),
            "if a leads: follower behind: c lacks 10 records of a (offsets 10..19)"
        );
        assert_eq!(
            worded(
                None,
                PairFinding::EndsDifferNothingMissing {
                    follower: "b".into(),
                    follower_end: 10,
                    leader: "a".into(),
                    leader_end: 20
                }
            ),
            "log ends differ: b ends at 10, a at 20, and a's offsets 10..19 hold no records (an \
             empty segment or compaction): no record is missing"
        );
        assert_eq!(worded(None, PairFinding::Identical), "identical");
    }
}
