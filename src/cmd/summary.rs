//! `kseg summary`: one row per topic-partition, scanned in parallel (one task per partition,
//! and pieces of a large segment: `analysis::summary::SPLIT_BYTES`).

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use rayon::prelude::*;
use serde_json::json;

use super::{discover_inputs, Outcome, Reads};
use crate::analysis::summary::{
    log_dir_facts, summarize_file, summarize_partition, LogDirFacts, PartitionSummary,
};
use crate::cli::{SummaryArgs, SummarySort};
use crate::format::log::RecordScratch;
use crate::print::progress::{self, Progress};
use crate::print::table::Layout;
use crate::print::{report_error, summary};
use crate::storage::discover::PartitionDir;

pub fn run(args: SummaryArgs) -> Result<Outcome> {
    let (set, mut outcome) = discover_inputs(&args.paths, "summary", Reads::LogData)?;
    let stdout = io::stdout();
    let layout = Layout::detect(args.format, args.json);
    let mut out = layout.writer(BufWriter::new(stdout.lock()));
    for item in &set.unrecognised {
        if args.json {
            let v = json!({"type": if item.foreign_layout.is_some() { "error" } else { "unrecognised" },
                "file": item.path.display().to_string(), "layout": item.foreign_layout, "message": item.reason});
            serde_json::to_writer(&mut out, &v)?;
            out.write_all(b"\n")?;
        }
        if item.foreign_layout.is_some() {
            report_error(&item.path, None, &item.reason);
            outcome = outcome.worst(Outcome::DataProblems);
        }
    }
    let facts: Vec<LogDirFacts> = set.log_dirs.iter().map(log_dir_facts).collect();
    for f in &facts {
        for (path, msg) in &f.problems {
            report_error(path, None, &msg.to_string());
            outcome = outcome.worst(Outcome::DataProblems);
        }
    }
    let globs = args
        .topics
        .iter()
        .map(|g| {
            crate::analysis::grep::Glob::new(g)
                .map_err(|e| anyhow::anyhow!("--topic {g:?}: not a glob: {e}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let wanted = |topic: &str| globs.is_empty() || globs.iter().any(|g| g.is_match(topic));
    let mut work: Vec<(&PartitionDir, Option<&LogDirFacts>)> = Vec::new();
    for (dir, f) in set.log_dirs.iter().zip(&facts) {
        work.extend(dir.partitions.iter().map(|p| (p, Some(f))));
    }
    // A partition dir given alone is judged with its log dir's checkpoints and marker.
    let parents: Vec<Option<LogDirFacts>> = set
        .partitions
        .iter()
        .map(|p| crate::storage::discover::parent_log_dir(p).map(|d| log_dir_facts(&d)))
        .collect();
    work.extend(
        set.partitions
            .iter()
            .zip(&parents)
            .map(|(p, f)| (p, f.as_ref())),
    );

    let progress = Progress::over_files(
        progress::wanted(true, false),
        work.iter()
            .flat_map(|(p, _)| p.files.iter())
            .chain(set.files.iter())
            .filter(|f| f.kind.is_log_data())
            .map(|f| f.path.as_path()),
    );
    let cap = args.read.max_decompressed_bytes;
    let mmap = args.read.mmap;
    // One task per partition; a large segment is scanned in pieces on the same threads.
    let rows: Vec<PartitionSummary> = super::with_threads(&args.threads, || {
        let mut rows: Vec<PartitionSummary> = work
            .par_iter()
            .map_init(
                || RecordScratch::with_cap(cap),
                |scratch, (p, f)| {
                    let row = summarize_partition(p, *f, mmap, scratch);
                    for f in p.files.iter().filter(|f| f.kind.is_log_data()) {
                        progress.file_done(&f.path);
                    }
                    row
                },
            )
            .collect();
        let mut scratch = RecordScratch::with_cap(cap);
        for file in set.files.iter().filter(|f| f.kind.is_log_data()) {
            rows.push(summarize_file(&file.path, mmap, &mut scratch));
            progress.file_done(&file.path);
        }
        rows
    });
    progress.finish();
    // What blocks Kafka's next retention check, from the indexes (kseg retention in full).
    let retention = super::with_threads(&args.threads, || {
        crate::analysis::retention::plan(
            &set,
            &crate::analysis::topic_configs::ConfigFlags::default(),
            jiff::Timestamp::now().as_millisecond(),
        )
    });
    let mut rows = rows;
    crate::analysis::summary::note_retention(&mut rows, &retention);
    rows.retain(|r| wanted(&r.topic));
    if args.sort == SummarySort::Bytes {
        // Largest first; ties in name order (the rows' order so far).
        rows.sort_by_key(|r| std::cmp::Reverse(r.disk.total()));
    }
    if let Some(n) = args.top {
        rows.truncate(n);
    }
    crate::analysis::summary::note_future_timestamps(
        &mut rows,
        jiff::Timestamp::now().as_millisecond(),
    );
    let problems = rows
        .iter()
        .filter(|r| r.crc_errors > 0 || r.problems > 0)
        .count();
    // The one severity policy: a crash's torn or zero-filled active tail, which Kafka's next
    // load truncates, is not an error; damage Kafka keeps is.
    outcome = outcome.worst(Outcome::of_findings(rows.iter().filter_map(|r| r.severity)));
    if args.json {
        for r in &rows {
            summary::json_row(&mut out, r)?;
        }
        let v = json!({"type": "summary", "logDirs": set.log_dirs.len(), "partitions": rows.len(),
            "records": rows.iter().map(|r| r.records).sum::<u64>(),
            "bytes": rows.iter().map(|r| r.disk.total()).sum::<u64>(),
            "partitionsWithProblems": problems});
        serde_json::to_writer(&mut out, &v)?;
        out.write_all(b"\n")?;
    } else if layout.prose() {
        // stdout holds the table; what kseg notes about the log dirs goes to stderr.
        for f in &facts {
            eprintln!(
                "kseg: note: log dir {}: {}",
                f.path.display(),
                if f.clean_shutdown {
                    "clean shutdown marker present"
                } else {
                    "no clean shutdown marker (Kafka will run recovery)"
                }
            );
        }
        if rows.is_empty() {
            writeln!(
                out,
                "No partitions: no <topic>-<partition> dir in the log dirs given."
            )?;
        } else {
            summary::table(&mut out, &rows, layout)?;
        }
    } else {
        summary::table(&mut out, &rows, layout)?;
    }
    out.flush()?;
    Ok(outcome)
}
