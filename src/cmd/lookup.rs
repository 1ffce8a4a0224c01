//! `kseg lookup`: the broker's answer to an offset question, for one partition dir or for every
//! partition of a topic in a log dir.

use std::io::{self, BufWriter, Write};

use anyhow::{bail, Result};

use super::Outcome;
use crate::analysis::grep::{Filter, Search};
use crate::analysis::lookup::{lookup, LookupReport, PartitionTarget, Query};
use crate::cli::LookupArgs;
use crate::format::log::RecordScratch;
use crate::print::grep::{GrepPrinter, GrepStyle};
use crate::print::lookup as printer;
use crate::print::progress::{self, Progress};
use crate::print::report_error;
use crate::scan::{scan_log, ScanOptions};
use crate::storage::discover::discover;
use crate::storage::layout::PartitionState;
use crate::storage::source::open_log;
use crate::time::{parse_time, Zone};

/// Parses `--timestamp`: epoch milliseconds, ListOffsets' special values (-1 latest, -2
/// earliest, -3 max timestamp, as `kafka-get-offsets.sh --time` takes them), or a time as
/// `time::parse_time` reads it (a civil time only with `--tz`).
pub fn parse_timestamp(s: &str, zone: Option<&Zone>) -> Result<Query> {
    match parse_time("--timestamp", s, zone)? {
        -1 => Ok(Query::Latest),
        -2 => Ok(Query::Earliest),
        -3 => Ok(Query::MaxTimestamp),
        ms if ms < 0 => bail!(
            "--timestamp {ms}: a negative timestamp is not a time; ListOffsets takes -1 \
             (latest), -2 (earliest) and -3 (max timestamp)"
        ),
        ms => Ok(Query::Timestamp(ms)),
    }
}

/// The questions asked: one, or one per `--timestamp` value.
fn queries_of(args: &LookupArgs) -> Result<Vec<Query>> {
    if !args.timestamp.is_empty() {
        let zone = super::TimeFlags::new(&args.tz)?.zone;
        return args
            .timestamp
            .iter()
            .map(|t| parse_timestamp(t, zone.as_ref()))
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
                // A scan that answers differently is a finding: the indexes and the log disagree,
                // or the broker's rule hides a record (exit 1, the headline unchanged).
                if report.scan.as_ref().is_some_and(|s| s.differs) {
                    outcome = outcome.worst(Outcome::DataProblems);
                }
                if args.json {
                    printer::json(&mut out, &report, args.explain)?;
                } else {
                    printer::text(&mut out, &report, args.explain)?;
                }
                if args.print_data_log {
                    if let Err(e) = print_record_found(&mut out, &report, &args) {
                        if e.kind() == io::ErrorKind::BrokenPipe {
                            return Err(e.into());
                        }
                        out.flush()?;
                        let file = report.answer.segment.as_deref().unwrap_or(&report.path);
                        report_error(file, report.answer.position(), &format!("cannot read: {e}"));
                        outcome = Outcome::Failed;
                    }
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

/// `--print-data-log`: the record the answer names, read from its batch's position in its
/// segment and printed as dump-log prints it (through grep's printer: one home for that line).
fn print_record_found(
    out: &mut impl Write,
    report: &LookupReport,
    args: &LookupArgs,
) -> io::Result<()> {
    let a = &report.answer;
    let (Some(offset), Some(segment), Some(position)) = (a.offset, &a.segment, a.position()) else {
        return Ok(());
    };
    let filter = Filter {
        from_offset: Some(offset),
        to_offset: Some(offset),
        ..Filter::default()
    };
    let mut printer = GrepPrinter::new(&mut *out, &GrepStyle::dump_log(args.json));
    let name = report.path.display().to_string();
    printer.set_partition(Some(&report.topic), Some(report.partition), &name);
    printer.set_file(segment)?;
    let mut search = Search::new(&filter, &mut printer);
    search.budget = Some(1);
    search.print_batch = true;
    let opts = ScanOptions {
        deep: true,
        start_position: position,
        ..ScanOptions::default()
    };
    let mut scratch = RecordScratch::with_cap(args.max_decompressed_bytes);
    let mut src = open_log(segment, false)?;
    scan_log(src.as_mut(), &opts, &mut scratch, &mut search)?;
    let found = search.stats.matches;
    printer.flush()?;
    if found == 0 {
        printer.partition_note(&format!(
            "no record at offset {offset} in the batch at byte {position} of {}: the offset \
             answered is past the batch's records (the log end, or a gap compaction left)",
            segment.display()
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_need_a_zone() {
        let p = |t: &str| parse_timestamp(t, None);
        assert_eq!(
            p("1717000000000").unwrap(),
            Query::Timestamp(1_717_000_000_000)
        );
        assert_eq!(
            p("2024-03-09T14:00:00+08:00").unwrap(),
            Query::Timestamp(1_709_964_000_000)
        );
        assert_eq!(p("-1").unwrap(), Query::Latest);
        assert_eq!(p("-2").unwrap(), Query::Earliest);
        assert_eq!(p("-3").unwrap(), Query::MaxTimestamp);
        let e = p("2024-03-09T14:00:00").unwrap_err().to_string();
        assert!(e.contains("no time zone"), "{e}");
        assert!(e.contains("2024-03-09T14:00:00Z"), "{e}");
        assert!(p("yesterday")
            .unwrap_err()
            .to_string()
            .contains("is not a time"));
        assert!(p("-7")
            .unwrap_err()
            .to_string()
            .contains("a negative timestamp is not a time"));
        // With --tz the civil time is read in that zone.
        let shanghai = Zone::parse("Asia/Shanghai").unwrap();
        assert_eq!(
            parse_timestamp("2024-03-09T14:00:00", Some(&shanghai)).unwrap(),
            Query::Timestamp(1_709_964_000_000)
        );
    }
}
