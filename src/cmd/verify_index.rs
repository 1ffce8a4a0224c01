//! `kseg verify-index`: run every check, print findings and the recovery preview.

use std::collections::{HashMap, HashSet};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use rayon::prelude::*;
use serde_json::json;

use crate::print::progress::{self, Progress};

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::summary::{log_dir_facts, LogDirFacts};
use crate::analysis::topic_configs::{log_configs, log_dir_configs, LogConfigs};
use crate::analysis::verify::{
    loose_partition, verify_log_dir, verify_partition, Finding, Message, PartitionReport, Severity,
    VerifyOptions,
};
use crate::cli::VerifyIndexArgs;
use crate::print::table::Layout;
use crate::print::verify as printer;
use crate::storage::discover::{discover, PartitionDir};
use crate::storage::layout::FileKind;

pub fn run(args: VerifyIndexArgs) -> Result<Outcome> {
    let (set, outcome) = discover_inputs(&args.paths, "verify-index", Reads::LogAndIndexes)?;
    let opts = VerifyOptions {
        index_only: args.index_only,
        sanity_only: args.sanity,
        mmap: args.read.mmap,
        index_interval: args.index_interval_bytes,
        split_bytes: args.split_bytes.max(1),
    };
    let mut facts: Vec<LogDirFacts> = set.log_dirs.iter().map(log_dir_facts).collect();
    // Topic configs from any `__cluster_metadata` partition given: compacted topics have gaps,
    // and each topic's log configs decide how its partitions are judged.
    let mut configs = LogConfigs::default();
    for p in set
        .log_dirs
        .iter()
        .flat_map(|d| d.partitions.iter())
        .chain(set.partitions.iter())
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        configs.merge(log_configs(p));
    }
    let compacted: HashSet<String> = configs.compacted_topics();
    for f in &mut facts {
        f.compacted_topics = compacted.clone();
        f.log_configs = configs.clone();
    }
    let mut work: Vec<(PartitionDir, Option<&LogDirFacts>)> = Vec::new();
    for (dir, f) in set.log_dirs.iter().zip(&facts) {
        work.extend(dir.partitions.iter().map(|p| (p.clone(), Some(f))));
    }
    // A partition dir given on its own: its log dir's marker and checkpoints still decide what
    // Kafka recovers. Without them, assume recovery will run (the safe reading of a crash).
    // One discovery per parent log dir, however many of its partitions were given.
    let mut by_parent: HashMap<PathBuf, Option<LogDirFacts>> = HashMap::new();
    let parent_facts: Vec<Option<LogDirFacts>> = set
        .partitions
        .iter()
        .map(|p| {
            let parent = p.path.parent()?.to_path_buf();
            by_parent
                .entry(parent.clone())
                .or_insert_with(|| parent_log_dir_facts(&parent, &configs))
                .clone()
        })
        .collect();
    work.extend(
        set.partitions
            .iter()
            .zip(&parent_facts)
            .map(|(p, f)| (p.clone(), f.as_ref())),
    );
    let mut seen_loose = std::collections::BTreeSet::new();
    for f in &set.files {
        if matches!(
            f.kind,
            FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex
        ) {
            let log = f.path.with_extension("log");
            if seen_loose.insert(log.clone()) {
                work.push((loose_partition(&log), None));
            }
        }
    }
    let progress =
        Progress::over_partitions(progress::wanted(true, false), work.iter().map(|(p, _)| p));
    let reports: Vec<PartitionReport> = super::with_threads(&args.threads, || {
        work.par_iter()
            .map(|(p, f)| {
                let report = verify_partition(p, *f, &opts);
                progress.partition_done(p);
                report
            })
            .collect()
    });
    progress.finish();
    let mut dir_findings: Vec<Finding> = Vec::new();
    if !opts.sanity_only {
        for f in &facts {
            verify_log_dir(f, &mut dir_findings);
        }
    }
    for u in &set.unrecognised {
        if u.foreign_layout.is_some() {
            dir_findings.push(Finding {
                check: "unreadable",
                severity: Severity::Error,
                file: u.path.display().to_string(),
                position: None,
                offset: None,
                message: Message::Unrecognised(u.reason.clone()),
            });
        }
    }
    let all: Vec<&Finding> = dir_findings
        .iter()
        .chain(reports.iter().flat_map(|r| r.findings.iter()))
        .collect();
    let errors = all.iter().filter(|f| f.severity == Severity::Error).count();
    let warnings = all
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let infos = all.len() - errors - warnings;

    // The operator's answer first: per log dir, will Kafka start, and what acknowledged data
    // the recovery loses. Reports are in `work`'s order.
    let verdicts = verdicts(&work, &reports, &facts);
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    if !opts.sanity_only {
        if args.json {
            for v in &verdicts {
                printer::json_verdict(&mut out, v)?;
            }
        } else if layout != Layout::Tsv {
            // (TSV is one table of findings: the verdict's failure is one of them.)
            for v in &verdicts {
                printer::verdict_text(&mut out, v)?;
            }
        }
    }
    if args.json {
        for f in &all {
            printer::json_finding(&mut out, f)?;
        }
        for r in reports.iter().filter_map(|r| r.recovery.as_ref()) {
            printer::json_recovery(&mut out, r)?;
        }
        let v = json!({"type": "summary", "partitions": reports.len(), "errors": errors, "warnings": warnings, "infos": infos});
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else if layout == Layout::Tsv {
        let shown = |f: &&Finding| args.verbose || f.severity != Severity::Info;
        let rows: Vec<(&str, &Finding)> = dir_findings
            .iter()
            .filter(shown)
            .map(|f| ("log dirs", f))
            .chain(reports.iter().flat_map(|r| {
                r.findings
                    .iter()
                    .filter(shown)
                    .map(move |f| (r.partition.as_str(), f))
            }))
            .collect();
        printer::findings_tsv(&mut out, &rows)?;
    } else {
        let shown = |f: &&Finding| args.verbose || f.severity != Severity::Info;
        let dir_level: Vec<&Finding> = dir_findings.iter().filter(shown).collect();
        printer::findings_table(&mut out, "log dirs", &dir_level, layout)?;
        for r in &reports {
            let fs: Vec<&Finding> = r.findings.iter().filter(shown).collect();
            printer::findings_table(&mut out, &r.partition, &fs, layout)?;
        }
        if !opts.sanity_only {
            let previews: Vec<_> = reports.iter().filter_map(|r| r.recovery.as_ref()).collect();
            let live = facts
                .iter()
                .chain(parent_facts.iter().flatten())
                .any(|f| !f.lock_holders.is_empty());
            printer::recovery_table(&mut out, &previews, live, layout)?;
            printer::log_configs(&mut out, &previews)?;
            let zookeeper: Vec<&std::path::Path> = set
                .log_dirs
                .iter()
                .filter(|d| crate::analysis::topic_configs::zookeeper_mode(d))
                .map(|d| d.path.as_path())
                .collect();
            printer::zookeeper_mode_dirs(&mut out, &zookeeper)?;
        }
        writeln!(
            out,
            "{} partitions checked: {errors} errors, {warnings} warnings, {infos} info{}",
            reports.len(),
            if !args.verbose && infos > 0 {
                " (-v lists info findings)"
            } else {
                ""
            }
        )?;
    }
    out.flush()?;
    Ok(outcome.worst(Outcome::of_findings(all.iter().map(|f| f.severity))))
}

/// Groups the reports by log dir.
/// A log dir whose root checkpoint files stop Kafka gets its verdict even without partitions.
fn verdicts<'r>(
    work: &[(PartitionDir, Option<&'r LogDirFacts>)],
    reports: &'r [PartitionReport],
    log_dirs: &'r [LogDirFacts],
) -> Vec<printer::Verdict<'r>> {
    let mut out: Vec<printer::Verdict<'r>> = log_dirs
        .iter()
        .filter_map(|f| {
            Some(printer::Verdict {
                log_dir: f.path.clone(),
                partitions: Vec::new(),
                dir_failure: Some(f.stopping_failure()?),
            })
        })
        .collect();
    for ((_, f), r) in work.iter().zip(reports) {
        // Loose segment files, and partition dirs outside any log dir, have no log dir to speak for.
        let Some(dir) = f.map(|f| f.path.clone()) else {
            continue;
        };
        let Some(preview) = r.recovery.as_ref() else {
            continue;
        };
        match out.iter_mut().find(|v| v.log_dir == dir) {
            Some(v) => v.partitions.push(preview),
            None => out.push(printer::Verdict {
                log_dir: dir,
                partitions: vec![preview],
                dir_failure: f.and_then(|f| f.stopping_failure()),
            }),
        }
    }
    out
}

/// The facts of the log dir holding a partition dir given alone, with the topic configs its
/// `__cluster_metadata` (and the inputs') records.
fn parent_log_dir_facts(parent: &Path, inputs: &LogConfigs) -> Option<LogDirFacts> {
    let parent_set = discover(&[parent.to_path_buf()]).ok()?;
    let dir = parent_set.log_dirs.first()?;
    let mut f = log_dir_facts(dir);
    f.log_configs = log_dir_configs(dir);
    f.log_configs.merge(inputs.clone());
    f.compacted_topics = f.log_configs.compacted_topics();
    Some(f)
}
