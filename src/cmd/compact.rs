//! `kseg compact`: the log cleaner's next pass over compacted partitions, and why it does no
//! more.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::{discover_inputs, log_config_flags, Outcome, Reads};
use crate::analysis::cleaner::plan;
use crate::analysis::cleaner::write::write_log_dir;
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
    if let Some(out) = &args.out {
        if set.log_dirs.len() != 1 || !set.partitions.is_empty() {
            anyhow::bail!(
                "--out takes exactly one log dir (given: {} log dirs, {} partition dirs alone)",
                set.log_dirs.len(),
                set.partitions.len()
            );
        }
        if std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
            anyhow::bail!(
                "--out {}: not empty (kseg writes only into a new or empty dir)",
                out.display()
            );
        }
        let input = std::fs::canonicalize(&set.log_dirs[0].path)?;
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&input)) {
            anyhow::bail!(
                "--out {}: inside the input log dir {}",
                out.display(),
                input.display()
            );
        }
    }
    let mut report = super::with_threads(&args.threads, || plan(&set, &flags, now));
    if let Some(out) = &args.out {
        let broker = report.broker.clone();
        let written = write_log_dir(&mut report, &set.log_dirs[0], &broker, out)
            .map_err(|e| anyhow::anyhow!("--out {}: {e}", out.display()))?;
        eprintln!(
            "kseg: wrote {}: {} partition{} cleaned, {} copied, cleaner-offset-checkpoint with {} entr{}",
            out.display(),
            written.partitions_cleaned,
            if written.partitions_cleaned == 1 { "" } else { "s" },
            written.partitions_copied,
            written.checkpoint_entries,
            if written.checkpoint_entries == 1 { "y" } else { "ies" }
        );
    }
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
