//! `kseg rescue --groups`: every consumer group's committed offsets on the rescued partitions,
//! replayed from the source's `__consumer_offsets`, translated through the rescue's offset map
//! ([`crate::analysis::rescue_map`]), each translation checked against the map's own
//! consistency and the target partition's log now, and committed in the target (or, with
//! `--dry-run`, only printed).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, BufWriter, Write};

use anyhow::{bail, Context, Result};

use super::Outcome;
use crate::analysis::groups::{partition_facts, replay, PartitionFacts, Replay, ReplayOptions};
use crate::analysis::rescue::topics::internal_partitions;
use crate::analysis::rescue::{Plan, Source};
use crate::analysis::rescue_map::{translate_groups, GroupOffset, RescueMap, SourceView, Written};
use crate::analysis::summary::log_dir_facts;
use crate::client::{CommitRefusal, Connection, GroupCommitter, Reader};
use crate::format::log::RecordScratch;
use crate::print::escape::escaped as esc;
use crate::print::rescue as words;
use crate::print::table::Layout;
use crate::storage::discover::{DataSet, PartitionDir};

/// The source's consumer groups, replayed from its `__consumer_offsets` partitions.
pub fn load(set: &DataSet, mmap: bool) -> Result<Replay> {
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
    Ok(replay)
}

/// A source partition's log start and end offsets (its log dir's checkpoints when it is in a
/// log dir given).
fn source_facts(set: &DataSet, dir: &PartitionDir) -> PartitionFacts {
    let of_dir = set
        .log_dirs
        .iter()
        .find(|l| dir.path.parent() == Some(l.path.as_path()))
        .map(log_dir_facts);
    partition_facts(dir, of_dir.as_ref())
}

/// Where one source's map stands, for its view: where its target partition began, from which
/// source offset the map is predicted (a dry run), and what the map is checked against.
pub struct MapPlace {
    pub target_start: Option<i64>,
    pub predicted_from: Option<i64>,
    /// The part of the map that must describe the target (a dry run: the `--state` file's; a
    /// run: all of it), with what it is checked against.
    pub checked: Option<(RescueMap, Written)>,
}

/// The log start and end offsets of a target partition now (none: not known).
pub type TargetLog<'a> = &'a dyn Fn(&str, i32) -> Result<Option<(i64, i64)>>;

/// A target partition's log from the cluster, when it was reached and the topic exists.
pub fn target_log<'r>(
    reader: Option<&'r Reader>,
    exists: impl Fn(&str) -> bool + 'r,
) -> impl Fn(&str, i32) -> Result<Option<(i64, i64)>> + 'r {
    move |topic, partition| match reader {
        Some(r) if exists(topic) => Ok(Some(r.watermarks(topic, partition)?)),
        _ => Ok(None),
    }
}

/// What the translation needs of each source partition a group committed offsets on: its map,
/// where it stands (`place`), the target partition's log now (`log_of`), its log start and end
/// in the source, and why the committed offsets not sent were not.
#[allow(clippy::too_many_arguments)]
pub fn source_views<'a>(
    set: &DataSet,
    plan: &Plan<'_>,
    sources: &[Source<'_>],
    maps: &'a [RescueMap],
    replay: &Replay,
    log_of: TargetLog<'_>,
    scratch: &mut RecordScratch,
    place: impl Fn(usize) -> MapPlace,
) -> Result<HashMap<(String, i32), SourceView<'a>>> {
    let mut committed: HashMap<(&str, i32), BTreeSet<i64>> = HashMap::new();
    for state in replay.groups.values() {
        for (key, c) in state.offsets.iter() {
            committed
                .entry((key.0.as_ref(), key.1))
                .or_default()
                .insert(c.offset);
        }
    }
    let mut views = HashMap::new();
    for (i, (s, map)) in sources.iter().zip(maps).enumerate() {
        let key = (s.dir.name.topic.as_str(), s.dir.name.partition);
        let Some(offsets) = committed.get(&key) else {
            continue;
        };
        let facts = source_facts(set, s.dir);
        let here = place(i);
        let target_topic = plan.target_of(i).to_string();
        let target_log = log_of(&target_topic, s.dir.name.partition)?;
        let fault = here.checked.and_then(|(m, mut w)| {
            w.log_end = target_log.map(|(_, end)| end);
            m.fault(&w)
        });
        let mut view = SourceView {
            name: s.name(),
            map,
            target_topic,
            target_partition: s.dir.name.partition,
            target_start: here.target_start,
            log_start: facts.log_start_offset,
            log_end: facts.log_end_offset,
            offsets: plan.selection.offsets,
            predicted_from: here.predicted_from,
            reasons: BTreeMap::new(),
            fault,
            target_log,
        };
        let needed = view.offsets_needing_reasons(offsets.iter().copied());
        view.reasons = s
            .not_sent(&needed, plan.selection, scratch)
            .with_context(|| format!("reading {}", s.dir.path.display()))?;
        views.insert((key.0.to_string(), key.1), view);
    }
    Ok(views)
}

/// What the groups step was asked to do.
pub struct GroupsRun<'a> {
    pub replay: &'a Replay,
    pub views: &'a HashMap<(String, i32), SourceView<'a>>,
    /// Commit (a run), or print only (a dry run; with a connection, it asks the target which
    /// groups are active).
    pub commit: bool,
    pub conn: Option<&'a Connection>,
    pub json: bool,
    pub layout: Layout,
}

/// Prints the translation and (unless a dry run) commits each group's offsets.
pub fn run(g: &GroupsRun<'_>) -> Result<Outcome> {
    let t = translate_groups(&g.replay.groups, g.views);
    let mut outcome = Outcome::Clean;
    if words::any_untranslated(&t) {
        outcome = Outcome::DataProblems;
    }
    {
        let stdout = io::stdout();
        let mut out = g.layout.writer(BufWriter::new(stdout.lock()));
        words::group_translation(&mut out, g.layout, g.json, g.commit, g.conn.is_some(), &t)?;
        out.flush()?;
    }
    let mut by_group: BTreeMap<&str, Vec<&GroupOffset<'_>>> = BTreeMap::new();
    for o in &t.offsets {
        by_group.entry(o.group).or_default().push(o);
    }
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
        if commit_group(g, &mut outcome, conn, group, &to_commit)? {
            committed_groups += 1;
            committed_offsets += to_commit.len();
        }
    }
    let translatable = t
        .offsets
        .iter()
        .filter(|o| o.translated.target().is_some())
        .count();
    if !g.json && g.layout.prose() {
        let mut out = BufWriter::new(io::stdout().lock());
        let line = if g.commit {
            words::groups_done(true, committed_offsets, committed_groups)
        } else {
            words::groups_done(false, translatable, by_group.len())
        };
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    Ok(outcome)
}

/// One group: whether the target would refuse it (active), and the commit read back. Returns
/// whether it was committed.
fn commit_group(
    g: &GroupsRun<'_>,
    outcome: &mut Outcome,
    conn: &Connection,
    group: &str,
    to_commit: &[(&str, i32, i64, &str)],
) -> Result<bool> {
    let committer = GroupCommitter::new(conn, group)?;
    let described = match committer.describe() {
        Ok(d) => d,
        Err(e) if !g.commit => {
            eprintln!("kseg: group {}: {e:#}", esc(group));
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    if let Some(d) = described.as_ref().filter(|d| d.members > 0) {
        let msg = words::group_active(group, &d.state, d.members, g.commit);
        report(g, outcome, group, false, Some(&msg))?;
        return Ok(false);
    }
    if !g.commit {
        return Ok(false);
    }
    match committer.commit(to_commit) {
        Ok(()) => {}
        Err(CommitRefusal::Active(code)) => {
            let msg = words::group_refused_active(group, &code);
            report(g, outcome, group, false, Some(&msg))?;
            return Ok(false);
        }
        Err(CommitRefusal::Other(e)) => {
            let msg = format!("group {}: {e:#}", esc(group));
            report(g, outcome, group, false, Some(&msg))?;
            return Ok(false);
        }
    }
    // Read back: what the coordinator now holds is what was translated.
    let keys: Vec<(&str, i32)> = to_commit.iter().map(|(t, p, _, _)| (*t, *p)).collect();
    let back = committer.committed(&keys)?;
    let wrong: Vec<(String, i32, i64, Option<i64>)> = to_commit
        .iter()
        .zip(&back)
        .filter(|((_, _, want, _), got)| **got != Some(*want))
        .map(|((t, p, want, _), got)| (t.to_string(), *p, *want, *got))
        .collect();
    if !wrong.is_empty() {
        let msg = words::group_read_back(group, &wrong);
        report(g, outcome, group, false, Some(&msg))?;
        return Ok(false);
    }
    report(g, outcome, group, true, None)?;
    Ok(true)
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
        words::group_commit(&mut out, group, committed, !g.commit, error)?;
        out.flush()?;
    }
    Ok(())
}
