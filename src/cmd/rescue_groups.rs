//! `kseg rescue --groups`: every consumer group's committed offsets on the rescued partitions,
//! replayed from the source's `__consumer_offsets`, translated through the rescue's offset map
//! ([`crate::analysis::rescue_map`]) and committed in the target (or, with `--dry-run`, only
//! printed). Also where the source's internal partitions are found: those of the log dirs
//! given, else those beside the partition dirs given.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::json;

use super::Outcome;
use crate::analysis::groups::{replay, Replay, ReplayOptions};
use crate::analysis::rescue_map::{translate_groups, GroupOffset, SourceView, Translated};
use crate::client::{CommitRefusal, Connection, GroupCommitter};
use crate::print::table::{col, Col, Column, Grid, Layout};
use crate::storage::discover::{discover, DataSet, PartitionDir};
use crate::storage::layout::PartitionState;

fn esc(s: &str) -> String {
    let mut v = Vec::new();
    let _ = crate::print::escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

/// The live partition dirs of internal topic `topic` that go with the sources: those in the log
/// dirs and partition dirs given, and those beside each partition dir given (in its log dir);
/// one per partition number (the first found).
pub fn internal_partitions(set: &DataSet, topic: &str) -> Vec<PartitionDir> {
    let mut found: BTreeMap<i32, PartitionDir> = BTreeMap::new();
    let wanted = |p: &PartitionDir| p.name.topic == topic && p.name.state == PartitionState::Live;
    for p in set.all_partitions().filter(|p| wanted(p)) {
        found.entry(p.name.partition).or_insert_with(|| p.clone());
    }
    let parents: BTreeSet<PathBuf> = set
        .partitions
        .iter()
        .filter_map(|p| p.path.parent().map(Path::to_path_buf))
        .filter(|d| !set.log_dirs.iter().any(|l| &l.path == d))
        .collect();
    let prefix = format!("{topic}-");
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        if dirs.is_empty() {
            continue;
        }
        if let Ok(beside) = discover(&dirs) {
            for p in beside.all_partitions().filter(|p| wanted(p)) {
                found.entry(p.name.partition).or_insert_with(|| p.clone());
            }
        }
    }
    found.into_values().collect()
}

/// The source's consumer groups, replayed from its `__consumer_offsets` partitions.
pub fn load(set: &DataSet, mmap: bool) -> Result<(Replay, usize)> {
    let partitions = internal_partitions(set, "__consumer_offsets");
    if partitions.is_empty() {
        bail!(
            "--groups: no __consumer_offsets partition in the given paths or beside them: give \
             the source's log dir (or its __consumer_offsets-N dirs) to read its groups"
        );
    }
    let refs: Vec<&PartitionDir> = partitions.iter().collect();
    let (replay, _) = replay(
        &refs,
        &ReplayOptions {
            filter: &[],
            history: false,
            rebalances: None,
            mmap,
            parallel: false,
        },
        &|_| {},
    )?;
    Ok((replay, partitions.len()))
}

const COLUMNS: [Column; 7] = [
    col("GROUP", Col::Id, 0).key(),
    col("SOURCE", Col::Id, 0).key(),
    col("OFFSET", Col::Num, 0),
    col("TARGET", Col::Id, 1),
    col("TARGET-OFFSET", Col::Num, 0),
    col("TRANSLATION", Col::Whole, 0),
    col("WHY", Col::Prose, 0),
];

/// A dry run's: whether the target offset is predicted (records not sent yet).
const DRY_RUN_COLUMNS: [Column; 8] = [
    col("GROUP", Col::Id, 0).key(),
    col("SOURCE", Col::Id, 0).key(),
    col("OFFSET", Col::Num, 0),
    col("TARGET", Col::Id, 1),
    col("TARGET-OFFSET", Col::Num, 0),
    col("TRANSLATION", Col::Whole, 0),
    col("PREDICTED", Col::Whole, 2),
    col("WHY", Col::Prose, 0),
];

/// What the groups step was asked to do.
pub struct GroupsRun<'a> {
    pub replay: &'a Replay,
    pub views: &'a HashMap<(String, i32), SourceView<'a>>,
    /// `None`: print only (a dry run); with a connection, a dry run asks the target which
    /// groups are active.
    pub commit: bool,
    pub conn: Option<&'a Connection>,
    pub json: bool,
    pub layout: Layout,
}

/// Prints the translation and (unless a dry run) commits each group's offsets.
pub fn run(g: &GroupsRun<'_>) -> Result<Outcome> {
    let t = translate_groups(&g.replay.groups, g.views);
    let mut outcome = Outcome::Clean;
    let stdout = io::stdout();
    let mut out = g.layout.writer(BufWriter::new(stdout.lock()));
    let mut grid = Grid::new(if g.commit { &COLUMNS } else { &DRY_RUN_COLUMNS });
    let mut by_group: BTreeMap<&str, Vec<&GroupOffset<'_>>> = BTreeMap::new();
    for o in &t.offsets {
        by_group.entry(o.group).or_default().push(o);
        let why = crate::print::words::translation_why(&o.translated, o.committed);
        if matches!(o.translated, Translated::NotTranslated(_)) {
            outcome = outcome.worst(Outcome::DataProblems);
        }
        if g.json {
            serde_json::to_writer(
                &mut out,
                &json!({"type": "groupOffset", "group": o.group, "topic": o.topic,
                    "partition": o.partition, "sourceOffset": o.committed,
                    "targetTopic": o.target_topic, "targetPartition": o.target_partition,
                    "targetOffset": o.translated.target(), "translation": o.translated.kind(),
                    "predicted": o.translated.predicted(), "why": why,
                    "metadata": o.metadata}),
            )?;
            writeln!(out)?;
        } else {
            let mut row = vec![
                esc(o.group),
                esc(&format!("{}-{}", o.topic, o.partition)),
                o.committed.to_string(),
                esc(&format!("{}-{}", o.target_topic, o.target_partition)),
                o.translated
                    .target()
                    .map_or("-".to_string(), |t| t.to_string()),
                o.translated.kind().to_string(),
            ];
            if !g.commit {
                row.push(
                    if o.translated.predicted() {
                        "yes"
                    } else {
                        "no"
                    }
                    .to_string(),
                );
            }
            row.push(why.map(|w| esc(&w)).unwrap_or_default());
            grid.row(row);
        }
    }
    if !g.json {
        if grid.is_empty() {
            if g.layout.prose() {
                writeln!(
                    out,
                    "groups: no group of the source has committed offsets on the rescued \
                     partitions"
                )?;
            }
        } else {
            grid.write(&mut out, g.layout)?;
        }
        if g.layout.prose() {
            for (group, n) in &t.not_rescued {
                writeln!(
                    out,
                    "group {}: {n} offsets on partitions this rescue does not cover were left \
                     alone",
                    esc(group)
                )?;
            }
            if t.offsets.iter().any(|o| o.translated.predicted()) {
                writeln!(
                    out,
                    "predicted: target offsets of records not sent yet, taken as written after \
                     what each target partition holds now{} and nothing else writing there",
                    if g.conn.is_some() {
                        ""
                    } else {
                        " (the cluster could not be reached: taken as empty)"
                    }
                )?;
            }
        }
    }
    out.flush()?;

    // Per group: whether the target would refuse it (active), and the commit.
    let mut committed_groups = 0usize;
    let mut committed_offsets = 0usize;
    for (group, offsets) in &by_group {
        let to_commit: Vec<(&str, i32, i64, &str)> = offsets
            .iter()
            .filter_map(|o| {
                Some((
                    o.target_topic,
                    o.target_partition,
                    o.translated.target()?,
                    o.metadata,
                ))
            })
            .collect();
        if to_commit.is_empty() {
            continue;
        }
        let Some(conn) = g.conn else {
            continue;
        };
        let committer = GroupCommitter::new(conn, group)?;
        let described = match committer.describe() {
            Ok(d) => d,
            Err(e) if !g.commit => {
                eprintln!("kseg: group {}: {e:#}", esc(group));
                continue;
            }
            Err(e) => return Err(e),
        };
        let active = described.as_ref().filter(|d| d.members > 0);
        if let Some(d) = active {
            let msg = format!(
                "group {} is active in the target ({}, {} members): Kafka refuses offsets \
                 committed from outside a group that has members (UNKNOWN_MEMBER_ID){}; stop \
                 its consumers (or wait until they have left), then run again with --groups",
                esc(group),
                d.state,
                d.members,
                if g.commit {
                    ", so none was committed"
                } else {
                    ": the commit would be refused"
                }
            );
            report(g, &mut outcome, group, false, Some(&msg))?;
            continue;
        }
        if !g.commit {
            continue;
        }
        match committer.commit(&to_commit) {
            Ok(()) => {}
            Err(CommitRefusal::Active(code)) => {
                let msg = format!(
                    "group {} is active in the target: Kafka refused the commit ({code}): it \
                     accepts offsets from outside a group only while the group has no members; \
                     stop its consumers, then run again with --groups",
                    esc(group)
                );
                report(g, &mut outcome, group, false, Some(&msg))?;
                continue;
            }
            Err(CommitRefusal::Other(e)) => {
                let msg = format!("group {}: {e:#}", esc(group));
                report(g, &mut outcome, group, false, Some(&msg))?;
                continue;
            }
        }
        // Read back: what the coordinator now holds is what was translated.
        let keys: Vec<(&str, i32)> = to_commit.iter().map(|(t, p, _, _)| (*t, *p)).collect();
        let back = committer.committed(&keys)?;
        let wrong: Vec<String> = to_commit
            .iter()
            .zip(&back)
            .filter(|((_, _, want, _), got)| **got != Some(*want))
            .map(|((t, p, want, _), got)| {
                format!(
                    "{}-{p}: {} instead of {want}",
                    esc(t),
                    got.map_or("none".to_string(), |o| o.to_string())
                )
            })
            .collect();
        if !wrong.is_empty() {
            let msg = format!(
                "group {}: the target holds other offsets than were committed: {}",
                esc(group),
                wrong.join(", ")
            );
            report(g, &mut outcome, group, false, Some(&msg))?;
            continue;
        }
        committed_groups += 1;
        committed_offsets += to_commit.len();
        report(g, &mut outcome, group, true, None)?;
    }
    let translatable = t
        .offsets
        .iter()
        .filter(|o| o.translated.target().is_some())
        .count();
    if !g.json && g.layout.prose() {
        let mut out = BufWriter::new(io::stdout().lock());
        if g.commit {
            writeln!(
                out,
                "groups: {committed_offsets} offsets of {committed_groups} groups committed in \
                 the target (read back the same)"
            )?;
        } else {
            writeln!(
                out,
                "dry run: {translatable} offsets of {} groups would be committed; nothing was \
                 committed",
                by_group.len()
            )?;
        }
        out.flush()?;
    }
    Ok(outcome)
}

/// One group's outcome: a JSON line, and on stderr why it was not committed.
fn report(
    g: &GroupsRun<'_>,
    outcome: &mut Outcome,
    group: &str,
    committed: bool,
    error: Option<&str>,
) -> io::Result<()> {
    if let Some(e) = error {
        eprintln!("kseg: {e}");
        // A dry run's refusal to come is a finding; a run's, a commit not done.
        *outcome = outcome.worst(if g.commit {
            Outcome::Failed
        } else {
            Outcome::DataProblems
        });
    }
    if g.json {
        let mut out = BufWriter::new(io::stdout().lock());
        serde_json::to_writer(
            &mut out,
            &json!({"type": "groupCommit", "group": group, "committed": committed,
                "dryRun": !g.commit, "error": error}),
        )?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}
