//! `kseg retention`: what Kafka's next retention check deletes, and what blocks it.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::{discover_inputs, log_config_flags, Outcome, Reads};
use crate::analysis::retention::plan;
use crate::cli::RetentionArgs;
use crate::print::retention as printer;
use crate::print::table::Layout;

pub fn run(args: RetentionArgs) -> Result<Outcome> {
    let flags = log_config_flags(&args.configs)?;
    let times = super::TimeFlags::new(&args.tz)?;
    let now = match times.read("--now", args.now.as_deref())? {
        Some(ms) => ms,
        None => jiff::Timestamp::now().as_millisecond(),
    };
    let (set, outcome) = discover_inputs(&args.paths, "retention", Reads::DirsOnly)?;
    let report = super::with_threads(&args.threads, || plan(&set, &flags, now));
    let layout = Layout::detect(args.format, args.json);
    let stdout = io::stdout();
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    if args.json {
        for d in &report.log_dirs {
            printer::json_log_dir(&mut out, d)?;
        }
        for p in &report.partitions {
            printer::json_partition(&mut out, p)?;
        }
        printer::json_summary(&mut out, &report)?;
    } else if layout == Layout::Tsv {
        printer::segments_table(&mut out, &report, layout)?;
    } else {
        printer::verdict_text(&mut out, &report, args.now.is_some())?;
        writeln!(out)?;
        printer::partitions_table(&mut out, &report, layout)?;
        printer::segments_table(&mut out, &report, layout)?;
        printer::configs_text(&mut out, &report)?;
    }
    out.flush()?;
    let answer = if report.problem() {
        Outcome::DataProblems
    } else {
        Outcome::Clean
    };
    Ok(outcome.worst(answer))
}
