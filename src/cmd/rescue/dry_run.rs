//! `kseg rescue --dry-run`: what would be sent, per source partition and target partition, and
//! with `--groups` where each group's committed offset would land (predicted for the records not
//! sent yet). Nothing is sent and nothing is committed.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::groups::{self, GroupsRun, MapPlace};
use super::target::Survey;
use super::Outcome;
use crate::analysis::groups::Replay;
use crate::analysis::rescue::{Plan, ResumeState, Source, TargetPartitions};
use crate::analysis::rescue_map::{RescueMap, Written};
use crate::cli::RescueArgs;
use crate::client::{Connection, Reader};
use crate::format::log::RecordScratch;
use crate::print::rescue::{self as words, PlanRow};
use crate::print::table::Layout;
use crate::scan::Flow;
use crate::storage::discover::DataSet;

/// Everything a dry run reads.
pub struct DryRun<'a> {
    pub args: &'a RescueArgs,
    pub set: &'a DataSet,
    pub plan: &'a Plan<'a>,
    pub sources: &'a [Source<'a>],
    pub targets: &'a TargetPartitions,
    pub survey: &'a Survey,
    pub previous: Option<&'a ResumeState>,
    pub groups: Option<&'a Replay>,
    pub conn: &'a Connection,
    pub reader: &'a Reader,
}

pub fn run(d: &DryRun<'_>, scratch: &mut RecordScratch, mut outcome: Outcome) -> Result<Outcome> {
    let acknowledged = |name: &str| d.previous.and_then(|s| s.acknowledged.get(name).copied());
    // Where each target partition's next record would land (the --groups prediction): after
    // what a previous run covered, else the partition's end now (0 unreachable).
    let mut next: HashMap<(String, i32), i64> = HashMap::new();
    if d.groups.is_some() {
        for (i, (t, p)) in d.targets.names.iter().enumerate() {
            let name = d.targets.name(i);
            let exists = d.survey.reachable && !d.survey.missing.iter().any(|(m, _)| m == t);
            let at = match d.previous.and_then(|s| s.targets.get(&name)) {
                Some(progress) => progress.resume_from,
                None if exists => d.reader.watermarks(t, *p)?.1,
                None => 0,
            };
            next.insert((t.clone(), *p), at);
        }
    }
    let starts = next.clone();
    // With --groups (partition numbers kept), where each record would land.
    let mut predicted: Vec<RescueMap> = Vec::new();
    let mut tallies = Vec::new();
    let mut tos: Vec<BTreeMap<i32, u64>> = Vec::new();
    for (i, s) in d.sources.iter().enumerate() {
        let topic = d.plan.target_of(i);
        let partitions = d.survey.count_of(topic);
        let mut to: BTreeMap<i32, u64> = BTreeMap::new();
        let mut map = RescueMap::default();
        let source_partition = s.dir.name.partition;
        let mut at = next.get(&(topic.to_string(), source_partition)).copied();
        let tally = s.select(
            d.plan.selection,
            acknowledged(&d.plan.source_name(i)),
            scratch,
            |r| {
                let tp = d
                    .plan
                    .partitioning
                    .target(source_partition, r.key, partitions);
                *to.entry(tp).or_default() += 1;
                if let Some(a) = at.as_mut() {
                    map.push(r.offset, tp, *a);
                    *a += 1;
                }
                Ok(Flow::Continue)
            },
        )?;
        predicted.push(map);
        for msg in &tally.problems {
            crate::print::report_error(&s.dir.path, None, msg);
            outcome = outcome.worst(Outcome::DataProblems);
        }
        tallies.push(tally);
        tos.push(to);
    }
    let names = d.plan.source_names();
    let rows: Vec<PlanRow<'_>> = (0..d.sources.len())
        .map(|i| PlanRow {
            source: &names[i],
            target: d.plan.target_of(i),
            tally: &tallies[i],
            to: &tos[i],
        })
        .collect();
    let layout = Layout::detect(d.args.format, d.args.json);
    {
        let stdout = io::stdout();
        let mut out = layout.writer(BufWriter::new(stdout.lock()));
        words::plan(&mut out, layout, d.args.json, &rows)?;
        out.flush()?;
    }
    let Some(replay) = d.groups else {
        return Ok(outcome);
    };
    let previous_map = |name: &str| {
        d.previous
            .and_then(|s| s.offset_map.get(name).cloned())
            .unwrap_or_default()
    };
    let mut maps: Vec<RescueMap> = Vec::new();
    for (i, p) in predicted.iter().enumerate() {
        let mut m = previous_map(&d.plan.source_name(i));
        m.append(p);
        maps.push(m);
    }
    let views = groups::source_views(
        d.set,
        d.plan,
        d.sources,
        &maps,
        replay,
        &groups::target_log(d.survey.reachable.then_some(d.reader), |t| {
            !d.survey.missing.iter().any(|(m, _)| m == t)
        }),
        scratch,
        |i| {
            let s = &d.sources[i];
            let name = format!("{}-{}", d.plan.target_of(i), s.dir.name.partition);
            let progress = d.previous.and_then(|st| st.targets.get(&name));
            let start = progress.map(|p| p.start).or_else(|| {
                starts
                    .get(&(d.plan.target_of(i).to_string(), s.dir.name.partition))
                    .copied()
            });
            let source = d.plan.source_name(i);
            let acked = acknowledged(&source);
            // The --state file's part of the map must describe the target as it is.
            let checked = progress.map(|p| {
                (
                    previous_map(&source),
                    Written {
                        partition: s.dir.name.partition,
                        start: Some(p.start),
                        end: p.end,
                        acknowledged: acked,
                        log_end: None,
                    },
                )
            });
            MapPlace {
                target_start: start,
                predicted_from: Some(acked.map_or(i64::MIN, |a| a + 1)),
                checked,
            }
        },
    )?;
    let g = groups::run(&GroupsRun {
        replay,
        views: &views,
        commit: false,
        conn: d.survey.reachable.then_some(d.conn),
        json: d.args.json,
        layout,
    })?;
    Ok(outcome.worst(g))
}
