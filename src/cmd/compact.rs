//! `kseg compact`: the log cleaner's next pass over compacted partitions, and why it does no
//! more.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::{discover_inputs, log_config_flags, Outcome, Reads};
use crate::analysis::cleaner::plan;
use crate::cli::CompactArgs;
use crate::print::compact as printer;

pub fn run(args: CompactArgs) -> Result<Outcome> {
    let flags = log_config_flags(&args.configs)?;
    let times = super::TimeFlags::new(&args.tz)?;
    let now = match times.read("--now", args.now.as_deref())? {
        Some(ms) => ms,
        None => jiff::Timestamp::now().as_millisecond(),
    };
    let (set, outcome) = discover_inputs(&args.paths, "compact", Reads::DirsOnly)?;
    let report = super::with_threads(&args.threads, || plan(&set, &flags, now));
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        for p in &report.partitions {
            printer::json_partition(&mut out, p)?;
        }
    } else {
        printer::verdict_text(&mut out, &report, args.now.is_some())?;
        printer::partitions_text(&mut out, &report)?;
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
