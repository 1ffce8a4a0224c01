//! `kseg recover LOGDIR --out NEWDIR`: every partition of a log dir recovered as Kafka's load
//! recovers it, and the log dir's own files as Kafka 4.4 leaves them after starting on the input
//! and stopping cleanly. When Kafka would refuse to start on the input, nothing is written
//! (unless `--force`): the report says why and what it would take.

use std::collections::HashMap;

use rayon::prelude::*;

use super::*;
use crate::analysis::log_dir_load::{checkpoints_after_restart, LoadedLog};
use crate::analysis::topic_configs::partition_replicas;
use crate::analysis::verify::{
    verify_partition, CheckpointKind, PartitionReport, RecoveryPreview, VerifyOptions,
};
use crate::format::text_files::encode_clean_shutdown;
use crate::print::verify as printer;
use crate::storage::layout::PartitionState;

/// Kafka's checkpoint files at a log dir's root, which `CheckpointFile` writes through `.tmp`.
const CHECKPOINTS: [&str; 4] = [
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",
];

/// What it takes for Kafka to start, for one partition whose load throws.
struct Fix {
    partition: String,
    failure: crate::analysis::verify::LoadFailure,
    /// Kafka loads the partition once the clean-shutdown marker is gone (it then recovers the
    /// segment it reads the end of instead).
    without_marker: bool,
}

pub(super) fn run(args: &RecoverArgs, dir: &LogDir, unreadable: Outcome) -> Result<Outcome> {
    let input = fs::canonicalize(&dir.path)?;
    let ctx = DirContext::of(Some(dir), args.ignore_clean_shutdown);
    let facts = ctx.facts.as_ref().expect("a log dir has its facts");
    // LogManager.loadLogs loads every partition dir; a deleted topic's (`-delete`) and a stray
    // one (`-stray`) only to delete them (after file.delete.delay.ms): the copy leaves them out.
    let (loaded, dropped): (Vec<&PartitionDir>, Vec<&PartitionDir>) = dir
        .partitions
        .iter()
        .partition(|p| matches!(p.name.state, PartitionState::Live | PartitionState::Future));

    // Kafka's load of every partition, previewed as verify-index previews it: does it start?
    let opts = VerifyOptions {
        index_interval: args.index_interval_bytes,
        ..Default::default()
    };
    let reports: Vec<PartitionReport> = super::super::with_threads(&args.threads, || {
        loaded
            .par_iter()
            .map(|p| verify_partition(p, Some(facts), &opts))
            .collect()
    });
    let previews: Vec<&RecoveryPreview> =
        reports.iter().filter_map(|r| r.recovery.as_ref()).collect();
    let fixes: Vec<Fix> = loaded
        .iter()
        .zip(&reports)
        .filter_map(|(p, r)| {
            let failure = r.recovery.as_ref()?.load_failure.clone()?;
            let without_marker = facts.clean_shutdown && {
                let mut unclean = facts.clone();
                unclean.clean_shutdown = false;
                verify_partition(p, Some(&unclean), &opts)
                    .recovery
                    .is_some_and(|r| r.load_failure.is_none())
            };
            Some(Fix {
                partition: r.partition.clone(),
                failure,
                without_marker,
            })
        })
        .collect();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let dir_failure = facts.stopping_failure();
    let verdict = printer::Verdict {
        log_dir: dir.path.clone(),
        partitions: previews,
        dir_failure,
    };
    let kafka_starts = fixes.is_empty() && dir_failure.is_none();
    if !kafka_starts && !args.force {
        refuse(&mut out, args, &verdict, &fixes)?;
        out.flush()?;
        return Ok(unreadable.worst(Outcome::of_findings(
            [Nature::BrokerWillNotStart.severity()],
        )));
    }

    prepare_target(&args.out, &input, "log dir", None)?;
    let mut written = match write_log_dir(args, dir, &ctx, &loaded) {
        Ok(w) => w,
        Err(e) => {
            // No partial copy is left behind: the dir was new or empty.
            let _ = fs::remove_dir_all(&args.out);
            return Err(e);
        }
    };
    finish_copy(&args.out)?;
    // The report says what verify-index finds in the copy, by partition.
    let mut still_damaged: Vec<String> = Vec::new();
    for e in verify_written(&args.out, &ctx.configs, args.index_interval_bytes, None)? {
        let owner = written.copies.iter_mut().find(|(name, _)| {
            let dir = args.out.join(name);
            e.starts_with(&format!("{}/", dir.display()))
                || e.starts_with(&format!("{}: ", dir.display()))
        });
        match owner {
            Some((_, copy)) => copy.note_verified(e),
            None => still_damaged.push(format!("verify-index finds in the copy: {e}")),
        }
    }
    for (p, copy) in &written.copies {
        still_damaged.extend(copy.still_damaged.iter().map(|d| format!("{p}: {d}")));
    }
    let not_copied: Vec<String> = dropped.iter().map(|p| name_of(&p.path)).collect();
    if args.json {
        printer::json_verdict(&mut out, &verdict)?;
        for (p, copy) in &written.copies {
            for r in &copy.report {
                let mut r = r.clone();
                r["type"] = "segment".into();
                r["partition"] = p.as_str().into();
                serde_json::to_writer(&mut out, &r)?;
                writeln!(out)?;
            }
            let mut summary = copy.summary_json(args.salvage);
            summary["type"] = "partition".into();
            summary["partition"] = p.as_str().into();
            serde_json::to_writer(&mut out, &summary)?;
            writeln!(out)?;
        }
        let summary = json!({"type": "summary", "logDir": dir.path.display().to_string(),
            "out": args.out.display().to_string(), "partitions": written.copies.len(),
            "changedPartitions": written.copies.iter().filter(|(_, c)| c.changed()).count(),
            "damaged": written.copies.iter().any(|(_, c)| c.damaged),
            "stillDamaged": still_damaged, "notCopied": not_copied,
            "kafkaStarts": kafka_starts,
            "logDirFiles": written.files.iter().cloned().collect::<serde_json::Map<String, serde_json::Value>>(),
            "highWatermarksFromCheckpoint": written.runtime_high_watermarks});
        serde_json::to_writer(&mut out, &summary)?;
        writeln!(out)?;
    } else {
        printer::verdict_text(&mut out, &verdict)?;
        writeln!(
            out,
            "{} of {} written to {}: {} partitions",
            if still_damaged.is_empty() {
                "Repaired copy"
            } else {
                "Copy (still damaged, see the end)"
            },
            dir.path.display(),
            args.out.display(),
            written.copies.len()
        )?;
        let (mut whole, mut unchanged) = (0, 0);
        for (p, copy) in &written.copies {
            if !copy.changed() && copy.still_damaged.is_empty() {
                if copy.recovered() > 0 {
                    whole += 1;
                } else {
                    unchanged += 1;
                }
                continue;
            }
            writeln!(out, "  {}:", crate::print::escape::escaped(p))?;
            copy.write_text(&mut out, "    ")?;
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if whole > 0 {
            writeln!(
                out,
                "  {whole} partition{} recovered whole: every batch valid, indexes rebuilt",
                plural(whole)
            )?;
        }
        if unchanged > 0 {
            writeln!(
                out,
                "  {unchanged} partition{} copied as they are: Kafka's load recovers nothing there",
                plural(unchanged)
            )?;
        }
        for n in &not_copied {
            writeln!(
                out,
                "  not copied: {} (Kafka's load schedules it for deletion)",
                crate::print::escape::escaped(n)
            )?;
        }
        writeln!(
            out,
            "log dir files as Kafka leaves them after a clean stop: {}",
            written
                .files
                .iter()
                .map(|(f, how)| format!("{f} ({})", how.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        if !written.runtime_high_watermarks.is_empty() {
            writeln!(
                out,
                "high watermarks of {} partitions with other replicas: the checkpoint's, within the log (a running broker moves them as its followers fetch)",
                written.runtime_high_watermarks.len()
            )?;
        }
        if !kafka_starts {
            writeln!(
                out,
                "--force: written although Kafka would not start on the input"
            )?;
        }
        for d in &still_damaged {
            writeln!(out, "still damaged: {d}")?;
        }
    }
    out.flush()?;
    Ok(unreadable.worst(Outcome::of_findings(
        still_damaged
            .iter()
            .map(|_| Nature::DamagedData)
            .chain(fixes.iter().map(|_| Nature::BrokerWillNotStart))
            .chain(dir_failure.map(|_| Nature::BrokerWillNotStart))
            .map(Nature::severity),
    )))
}

/// Kafka would not start on the input: say why, what it would take, and that nothing was
/// written.
fn refuse(
    out: &mut impl Write,
    args: &RecoverArgs,
    verdict: &printer::Verdict<'_>,
    fixes: &[Fix],
) -> io::Result<()> {
    let advice = |f: &Fix| -> String {
        if f.without_marker {
            "Kafka loads it when the log dir has no .kafka_cleanshutdown (it then recovers the segment instead of reading its end): `kseg recover --ignore-clean-shutdown` writes that copy".to_string()
        } else {
            "Kafka's load of this partition throws whatever the shutdown: the broker starts once its dir is moved out of the log dir (its records then stay only in the moved dir)".to_string()
        }
    };
    // CheckpointFile creates a missing file empty: no entries, as a reset leaves it.
    let dir_advice = verdict.dir_failure.map(|d| {
        (
            d.path.display().to_string(),
            format!(
                "Kafka reads it once it is valid or gone (it creates a missing checkpoint file empty: {})",
                match d.kind {
                    CheckpointKind::RecoveryPoint => "every recovery point 0",
                    CheckpointKind::LogStart => "every log start at its first segment",
                    CheckpointKind::HighWatermark => "every high watermark from the log start",
                }
            ),
        )
    });
    if args.json {
        printer::json_verdict(out, verdict)?;
        let fixes: Vec<serde_json::Value> = dir_advice
            .iter()
            .map(|(file, fix)| json!({"file": file, "fix": fix}))
            .chain(fixes.iter().map(|f| {
                json!({"partition": f.partition, "file": f.failure.file, "position": f.failure.position,
                    "reason": printer::Worded(&f.failure.reason).to_string(), "ignoreCleanShutdownFixes": f.without_marker, "fix": advice(f)})
            }))
            .collect();
        let j = json!({"type": "summary", "logDir": verdict.log_dir.display().to_string(),
            "out": args.out.display().to_string(), "written": false, "kafkaStarts": false,
            "fixes": fixes});
        serde_json::to_writer(&mut *out, &j).map_err(io::Error::from)?;
        writeln!(out)
    } else {
        printer::verdict_text(out, verdict)?;
        writeln!(out, "What it would take:")?;
        if let Some((file, fix)) = &dir_advice {
            writeln!(out, "  {}: {fix}", crate::print::escape::escaped(file))?;
        }
        for f in fixes {
            writeln!(
                out,
                "  {} ({} at byte {}): {}",
                crate::print::escape::escaped(&f.partition),
                crate::print::escape::escaped(&f.failure.file),
                f.failure.position,
                advice(f)
            )?;
        }
        writeln!(
            out,
            "Nothing written to {} (--force writes the copy as Kafka's load would leave the other partitions, keeping this damage)",
            args.out.display()
        )
    }
}

/// What [`write_log_dir`] wrote.
struct Written {
    /// Each partition's copy, by partition dir name.
    copies: Vec<(String, Copy)>,
    /// The log dir's files and how each was made.
    files: Vec<(String, serde_json::Value)>,
    /// Partitions whose high watermark is the checkpoint's (other replicas decide it at runtime).
    runtime_high_watermarks: Vec<String>,
}

fn write_log_dir(
    args: &RecoverArgs,
    dir: &LogDir,
    ctx: &DirContext,
    loaded: &[&PartitionDir],
) -> Result<Written> {
    let target = &args.out;
    let mut copies: Vec<(String, Copy)> = Vec::new();
    for p in loaded {
        let name = name_of(&p.path);
        fs::create_dir(target.join(&name))
            .with_context(|| format!("creating {}", target.join(&name).display()))?;
        let copy = write_copy(args, p, &target.join(&name), ctx)
            .with_context(|| format!("recovering {}", p.path.display()))?;
        copies.push((name, copy));
    }
    // The replicas of each partition, from the log dir's __cluster_metadata.
    let mut replicas: HashMap<(String, i32), Vec<i64>> = HashMap::new();
    for m in dir
        .partitions
        .iter()
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        replicas.extend(partition_replicas(m));
    }
    // LogManager's logs: every loaded partition but the metadata log (KafkaRaftLog's own).
    let logs: Vec<LoadedLog> = loaded
        .iter()
        .zip(&copies)
        .filter(|(p, _)| !always_recovered(&p.name.topic, p.name.partition))
        .map(|(p, (_, c))| LoadedLog {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            log_start: c.log_start,
            first_segment_base: c.first_segment_base,
            log_end: c.leo,
            high_watermark_checkpoint: c.high_watermark,
            replicas: replicas
                .get(&(p.name.topic.clone(), p.name.partition))
                .map(Vec::len),
        })
        .collect();
    let runtime_high_watermarks: Vec<String> = logs
        .iter()
        .filter(|l| l.high_watermark_is_runtime())
        .map(|l| format!("{}-{}", l.topic, l.partition))
        .collect();
    let checkpoints = checkpoints_after_restart(&logs);
    let mut files: Vec<(String, serde_json::Value)> = Vec::new();
    for (name, text, how) in [
        (
            "recovery-point-offset-checkpoint",
            &checkpoints.recovery_points,
            "every log's end",
        ),
        (
            "log-start-offset-checkpoint",
            &checkpoints.log_starts,
            "log starts above the first segment",
        ),
        (
            "replication-offset-checkpoint",
            &checkpoints.high_watermarks,
            "high watermarks",
        ),
    ] {
        write_new(&target.join(name), text.as_bytes())
            .with_context(|| format!("writing {}", target.join(name).display()))?;
        files.push((name.to_string(), how.into()));
    }
    let input_file = |kind: FileKind| dir.files.iter().find(|f| f.kind == kind);
    let copy_file = |src: &Path, name: &str| -> Result<()> {
        let len = fs::metadata(src)
            .with_context(|| src.display().to_string())?
            .len();
        copy_ranges(src, &target.join(name), &[(0, len)]).map(|_| ())
    };
    // LogCleanerManager opens its OffsetCheckpointFile at start, creating it empty when missing;
    // it writes it after cleaning only.
    match input_file(FileKind::CleanerOffsetCheckpoint) {
        Some(f) => {
            copy_file(&f.path, "cleaner-offset-checkpoint")?;
            files.push(("cleaner-offset-checkpoint".into(), "copied".into()));
        }
        None => {
            write_new(&target.join("cleaner-offset-checkpoint"), b"")?;
            files.push(("cleaner-offset-checkpoint".into(), "created empty".into()));
        }
    }
    // LogManager.shutdown writes the marker with the broker epoch of the run; the input's is
    // the one of its last clean stop. Without one, -1: no registration known to have stopped
    // cleanly (the controller then counts the next start as after an unclean shutdown).
    match input_file(FileKind::CleanShutdown) {
        Some(f) => {
            copy_file(&f.path, ".kafka_cleanshutdown")?;
            files.push((".kafka_cleanshutdown".into(), "the input's".into()));
        }
        None => {
            write_new(
                &target.join(".kafka_cleanshutdown"),
                encode_clean_shutdown(-1).as_bytes(),
            )?;
            files.push((
                ".kafka_cleanshutdown".into(),
                "written, broker epoch -1".into(),
            ));
        }
    }
    // Everything else at the root is left as it is (meta.properties, bootstrap.checkpoint, files
    // Kafka does not know); the lock is removed at the stop, the checkpoints' `.tmp` files are
    // replaced by their next write.
    for f in &dir.files {
        let name = name_of(&f.path);
        let skip = matches!(
            f.kind,
            FileKind::Lock
                | FileKind::RecoveryPointCheckpoint
                | FileKind::LogStartOffsetCheckpoint
                | FileKind::ReplicationOffsetCheckpoint
                | FileKind::CleanerOffsetCheckpoint
                | FileKind::CleanShutdown
                | FileKind::IncompleteCopy
        ) || CHECKPOINTS
            .iter()
            .any(|c| name.strip_suffix(".tmp") == Some(*c));
        if skip || !f.path.is_file() {
            continue;
        }
        copy_file(&f.path, &name)?;
        files.push((name, "copied".into()));
    }
    Ok(Written {
        copies,
        files,
        runtime_high_watermarks,
    })
}
