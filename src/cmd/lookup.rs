//! `kseg lookup`: the broker's answer to an offset question, for one partition dir or for every
//! partition of a topic in a log dir.

use std::io::{self, BufWriter, Write};

use anyhow::{bail, Result};

use super::Outcome;
use crate::analysis::lookup::{lookup, parse_timestamp, PartitionTarget, Query};
use crate::cli::LookupArgs;
use crate::print::lookup as printer;
use crate::print::progress::{self, Progress};
use crate::print::report_error;
use crate::storage::discover::discover;
use crate::storage::layout::PartitionState;

/// The questions asked: one, or one per `--timestamp` value.
fn queries_of(args: &LookupArgs) -> Result<Vec<Query>> {
    if !args.timestamp.is_empty() {
        return args
            .timestamp
            .iter()
            .map(|t| parse_timestamp(t).map_err(anyhow::Error::msg))
            .collect();
    }
    Ok(vec![if let Some(o) = args.offset {
        Query::Offset(o)
    } else if args.earliest {
        Query::Earliest
    } else if args.latest {
        Query::Latest
    } else if args.max_timestamp {
        Query::MaxTimestamp
    } else if let Some(e) = args.end_offset_for_epoch {
        Query::EndOffsetForEpoch(e)
    } else {
        bail!("nothing to look up: give --offset, --timestamp, --earliest, --latest, --max-timestamp or --end-offset-for-epoch")
    }])
}

/// The partitions TARGET names.
/// With the outcome of what could not be read below TARGET (named on stderr).
fn targets(args: &LookupArgs) -> Result<(Vec<PartitionTarget>, Outcome)> {
    let set = discover(std::slice::from_ref(&args.target))?;
    let unreadable = super::report_unreadable(&set);
    let mut out = Vec::new();
    if !set.log_dirs.is_empty() {
        let Some(topic) = &args.topic else {
            let mut topics: Vec<&str> = set
                .log_dirs
                .iter()
                .flat_map(|d| d.partitions.iter().map(|p| p.name.topic.as_str()))
                .collect();
            topics.dedup();
            bail!(
                "{} is a log dir: name the topic with --topic (topics here: {})",
                args.target.display(),
                if topics.is_empty() {
                    "none".into()
                } else {
                    topics.join(", ")
                }
            );
        };
        for dir in &set.log_dirs {
            for p in &dir.partitions {
                if &p.name.topic == topic && p.name.state == PartitionState::Live {
                    out.push(PartitionTarget::new(p, Some(&dir.path)));
                }
            }
        }
        if out.is_empty() {
            bail!(
                "{}: no partition of topic {topic} here",
                args.target.display()
            );
        }
    }
    for p in &set.partitions {
        if let Some(topic) = &args.topic {
            if &p.name.topic != topic {
                bail!(
                    "{} is a partition of topic {}, not {topic}",
                    p.path.display(),
                    p.name.topic
                );
            }
        }
        out.push(PartitionTarget::new(p, p.path.parent()));
    }
    if out.is_empty() {
        bail!(
            "{}: not a Kafka partition dir or log dir",
            args.target.display()
        );
    }
    Ok((out, unreadable))
}

pub fn run(args: LookupArgs) -> Result<Outcome> {
    let queries = queries_of(&args)?;
    let (targets, mut outcome) = targets(&args)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    // Answers stream to stdout, so the bar is drawn only when stdout is not the terminal too;
    // a scan reads every segment once per query.
    let progress = Progress::over_files(
        progress::wanted(args.scan, true),
        targets.iter().flat_map(|t| {
            queries
                .iter()
                .flat_map(move |_| t.segments.iter().map(|s| s.log.as_path()))
        }),
    );
    for (t, &query) in targets
        .iter()
        .flat_map(|t| queries.iter().map(move |q| (t, q)))
    {
        let result = lookup(t, query, args.scan, args.max_decompressed_bytes);
        for s in &t.segments {
            progress.file_done(&s.log);
        }
        match result {
            Ok(report) => {
                if args.json {
                    printer::json(&mut out, &report, args.explain)?;
                } else {
                    printer::text(&mut out, &report, args.explain)?;
                }
            }
            Err(e) => {
                out.flush()?;
                report_error(&e.file, e.position, &e.message);
                outcome = Outcome::Failed;
            }
        }
    }
    progress.finish();
    out.flush()?;
    Ok(outcome)
}
