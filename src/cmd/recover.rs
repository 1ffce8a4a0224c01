//! `kseg recover`: a repaired copy of one partition, the way Kafka's recovery would leave it.
//! The input is only read; everything is written under `--out`.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::Outcome;
use crate::analysis::load;
use crate::analysis::recovery::{analyse_segment, extend_rebuild, IndexRebuild, SalvageRun};
use crate::analysis::summary::log_dir_facts;
use crate::cli::RecoverArgs;
use crate::format::log::{ByteSource, RecordScratch};
use crate::format::text_files::{check_checkpoint, for_each_checkpoint_entry, CheckpointEntry};
use crate::format::txn_index::{parse_txn_index, ABORTED_TXN_SIZE};
use crate::print::progress::{self, Progress};
use crate::storage::discover::{discover, DataFile, LogDir, PartitionDir, Siblings};
use crate::storage::layout::{base_offset_of, FileKind};
use crate::storage::source::{read_small, FileSource};

/// Copies `ranges` (position, length) of `src` one after the other into `dst`.
fn copy_ranges(src: &Path, dst: &Path, ranges: &[(u64, u64)]) -> Result<u64> {
    let mut input = FileSource::open(src).with_context(|| src.display().to_string())?;
    let mut out = BufWriter::new(
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dst)
            .with_context(|| format!("creating {}", dst.display()))?,
    );
    let mut written = 0u64;
    for &(start, len) in ranges {
        let mut at = start;
        while at < start + len {
            let want = ((start + len - at) as usize).min(1 << 16);
            let chunk = input
                .read_at(at, want)
                .with_context(|| format!("{} at byte {at}", src.display()))?;
            if chunk.is_empty() {
                bail!("{} shrank while copying (at byte {at})", src.display());
            }
            out.write_all(chunk)
                .with_context(|| format!("writing {}", dst.display()))?;
            at += chunk.len() as u64;
            written += chunk.len() as u64;
        }
    }
    out.flush()
        .with_context(|| format!("writing {}", dst.display()))?;
    Ok(written)
}

/// `path` made absolute through its nearest existing ancestor (canonicalised), with the rest of
/// its components appended.
fn resolved_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut out = fs::canonicalize(existing)?;
    for name in rest.iter().rev() {
        out.push(name);
    }
    Ok(out)
}

fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(bytes)
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

pub fn run(args: RecoverArgs) -> Result<Outcome> {
    let set = discover(std::slice::from_ref(&args.partition))?;
    let unreadable = super::report_unreadable(&set);
    let Some(part) = set.partitions.first().cloned().or_else(|| {
        set.log_dirs
            .first()
            .and_then(|d: &LogDir| (d.partitions.len() == 1).then(|| d.partitions[0].clone()))
    }) else {
        bail!(
            "{} is not a partition directory (<topic>-<partition>)",
            args.partition.display()
        );
    };
    let input = fs::canonicalize(&part.path)?;
    // The copy keeps the partition dir's name under --out, so kseg and Kafka read it as the same
    // topic-partition (`--out restored` writes `restored/orders-0/`).
    let target = args.out.join(name_of(&part.path));
    // Resolve the copy's path through its nearest existing ancestor before creating anything, so
    // a path inside the input (existing or not, through symlinks or `..`) is refused.
    if resolved_path(&target)?.starts_with(&input) {
        bail!(
            "--out must not be inside the input partition {}",
            input.display()
        );
    }
    if target.exists() {
        if fs::read_dir(&target)?.next().is_some() {
            bail!(
                "{} exists and is not empty; kseg never overwrites",
                target.display()
            );
        }
        if fs::canonicalize(&target)?.starts_with(&input) {
            bail!("--out must not be inside the input partition");
        }
    }
    fs::create_dir_all(&target).with_context(|| format!("creating {}", target.display()))?;
    let copy = match write_copy(&args, &part, &target) {
        Ok(c) => c,
        Err(e) => {
            // No partial copy is left behind: the dir was new or empty.
            let _ = fs::remove_dir_all(&target);
            return Err(e);
        }
    };
    let Copy {
        report,
        damaged,
        clean,
        recovery_point,
        leo,
    } = copy;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        for r in &report {
            let mut r = r.clone();
            r["type"] = "segment".into();
            serde_json::to_writer(&mut out, &r)?;
            writeln!(out)?;
        }
        serde_json::to_writer(
            &mut out,
            &json!({"type": "summary", "out": target.display().to_string(), "damaged": damaged,
            "cleanShutdown": clean, "recoveryPoint": recovery_point, "logEndOffset": leo, "salvage": args.salvage}),
        )?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "Repaired copy of {} written to {}",
            part.path.display(),
            target.display()
        )?;
        writeln!(
            out,
            "{}; log end offset of the copy: {leo}",
            if clean {
                "clean shutdown: Kafka would not recover any segment".to_string()
            } else {
                format!("recovering from the segment holding recovery point {recovery_point}")
            }
        )?;
        for r in &report {
            writeln!(
                out,
                "  {}: {}{}",
                r["segment"].as_str().unwrap_or(""),
                r["action"].as_str().unwrap_or(""),
                r.get("reason")
                    .and_then(|v| v.as_str())
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            )?;
            if r["salvagedBatches"].as_u64().unwrap_or(0) > 0 {
                writeln!(
                    out,
                    "    salvaged {} valid batches after the damage: offsets {}",
                    r["salvagedBatches"],
                    r["salvagedOffsets"].as_str().unwrap_or("")
                )?;
            }
        }
    }
    out.flush()?;
    // The repair was written: the damage it repaired is in the report, not in the exit code
    // (what could not be read below the given dir is).
    Ok(unreadable)
}

/// What [`write_copy`] did, for the report.
struct Copy {
    report: Vec<serde_json::Value>,
    damaged: bool,
    clean: bool,
    recovery_point: i64,
    leo: i64,
}

/// Writes the repaired copy of `part` into `target` (created, empty).
fn write_copy(args: &RecoverArgs, part: &PartitionDir, target: &Path) -> Result<Copy> {
    // Kafka recovers from the recovery point on when there was no clean shutdown.
    let parent = part
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let parent_set = discover(std::slice::from_ref(&parent)).ok();
    let facts = parent_set
        .as_ref()
        .and_then(|s| s.log_dirs.first())
        .map(log_dir_facts);
    let clean = facts.as_ref().is_some_and(|f| f.clean_shutdown);
    let recovery_point = facts
        .as_ref()
        .and_then(|f| {
            f.checkpoints
                .get(&(part.name.topic.clone(), part.name.partition))
        })
        .and_then(|c| c.recovery_point)
        .unwrap_or(0);
    let mut scratch = RecordScratch::default();
    // Kafka's load first deletes leftovers and completes interrupted compactions or splits:
    // the copy starts from the files as it leaves them (a `.swap` file under its final name).
    let load = load::plan(&part.files, &mut scratch);
    let mut report: Vec<serde_json::Value> = load
        .actions
        .iter()
        .map(
            |a| json!({"segment": name_of(&a.path), "action": "load-cleanup", "reason": a.message}),
        )
        .collect();
    let segments: Vec<&DataFile> = load
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .collect();
    let bases: Vec<i64> = segments
        .iter()
        .map(|f| base_offset_of(&name_of(&f.path)).unwrap_or(0))
        .collect();
    let recover_from = bases
        .iter()
        .copied()
        .filter(|b| *b <= recovery_point)
        .max()
        .unwrap_or(i64::MIN);

    let siblings = Siblings::new(&load.files);
    let mut truncated = false;
    let mut log_end: Option<i64> = None;
    let mut damaged = false;
    let progress = Progress::over_files(
        progress::wanted(true, false),
        segments.iter().map(|s| s.path.as_path()),
    );
    for (seg, base) in segments.iter().zip(&bases) {
        // A swapped-in segment is written under its final name.
        let name = name_of(&seg.path).trim_end_matches(".swap").to_string();
        let stem = name.trim_end_matches(".log").to_string();
        let recovered = !clean && *base >= recover_from;
        // Without its .index, LogLoader.loadSegmentFiles recovers the segment itself (whatever
        // the shutdown); cut there, it makes recoverLog delete nothing after it.
        let load_recovered = siblings.get(*base, &FileKind::OffsetIndex).is_none();
        let plan = analyse_segment(&seg.path, *base, args.index_interval_bytes, &mut scratch)
            .with_context(|| seg.path.display().to_string())?;
        progress.file_done(&seg.path);
        if truncated && !args.salvage {
            report.push(json!({"segment": name, "action": "deleted",
                "reason": "a previous segment was truncated; Kafka deletes the later unflushed segments",
                "droppedBatches": plan.kept.batches + plan.salvage_batches(), "droppedBytes": plan.size}));
            continue;
        }
        if !recovered && !load_recovered {
            // Kafka uses this segment as it is: copy the log and its indexes unchanged.
            copy_ranges(&seg.path, &target.join(&name), &[(0, plan.size)])?;
            for (kind, ext) in [
                (FileKind::OffsetIndex, "index"),
                (FileKind::TimeIndex, "timeindex"),
                (FileKind::TxnIndex, "txnindex"),
            ] {
                if let Some(sib) = siblings.get(*base, &kind) {
                    let len = fs::metadata(&sib.path)
                        .with_context(|| sib.path.display().to_string())?
                        .len();
                    copy_ranges(
                        &sib.path,
                        &target.join(format!("{stem}.{ext}")),
                        &[(0, len)],
                    )?;
                }
            }
            if plan.truncate_at.is_some() {
                damaged = true;
            }
            log_end = plan
                .kept
                .last_offset
                .map(|l| l + 1)
                .or(log_end)
                .max(Some(*base));
            report.push(json!({"segment": name, "action": "copied",
                "reason": "below the recovery point (or clean shutdown): Kafka does not re-validate it",
                "batches": plan.kept.batches}));
            continue;
        }
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        if plan.kept.end > 0 {
            ranges.push((0, plan.kept.end));
        }
        let mut rebuild = Ok(plan.rebuild.clone());
        let mut last_offset = plan.kept.last_offset;
        let mut salvaged: &[SalvageRun] = &[];
        if plan.truncate_at.is_some() {
            truncated |= recovered && !load_recovered;
            damaged = true;
            if args.salvage {
                salvaged = &plan.salvage;
                for run in salvaged {
                    ranges.push((run.position, run.len));
                    // The copy's indexes cover the salvaged batches too: read them again.
                    if let Ok(r) = &mut rebuild {
                        if let Err(e) = extend_rebuild(&seg.path, run, r, &mut scratch)
                            .with_context(|| seg.path.display().to_string())?
                        {
                            rebuild = Err(e);
                        }
                    }
                    last_offset = Some(run.last_offset);
                }
            }
        }
        copy_ranges(&seg.path, &target.join(&name), &ranges)?;
        // Should salvaged batches make the rebuild fail, empty indexes are written (Kafka
        // rebuilds indexes it finds empty on a sealed segment's load).
        let (idx, tim) = rebuild.and_then(IndexRebuild::finish).unwrap_or_default();
        write_new(&target.join(format!("{stem}.index")), &idx)?;
        write_new(&target.join(format!("{stem}.timeindex")), &tim)?;
        let seg_end = last_offset.map(|l| l + 1).unwrap_or(*base);
        if let Some(txn) = siblings.get(*base, &FileKind::TxnIndex).map(|f| &f.path) {
            let bytes = read_small(txn, 1 << 30).with_context(|| txn.display().to_string())?;
            let (entries, _) = parse_txn_index(&bytes);
            let keep = entries
                .iter()
                .take_while(|e| e.as_ref().is_ok_and(|t| t.last_offset < seg_end))
                .count();
            write_new(
                &target.join(format!("{stem}.txnindex")),
                &bytes[..keep * ABORTED_TXN_SIZE],
            )?;
        }
        log_end = Some(log_end.map_or(seg_end, |e| e.max(seg_end)));
        let salvaged_batches: u64 = salvaged.iter().map(|r| r.batches).sum();
        report.push(json!({
            "segment": name, "action": if plan.truncate_at.is_some() { "truncated" } else { "recovered" },
            "truncatePosition": plan.truncate_at, "reason": plan.truncate_reason,
            "keptBatches": plan.kept.batches, "keptRecords": plan.kept.records,
            "salvagedBatches": salvaged_batches,
            "salvagedOffsets": salvaged.first().zip(salvaged.last()).map(|(a, z)| format!("{}..{}", a.base_offset, z.last_offset)),
            "droppedBytes": plan.size - ranges.iter().map(|r| r.1).sum::<u64>(),
            "droppedValidBatches": plan.salvage_batches() - salvaged_batches,
            "indexEntries": idx.len() / 8, "timeIndexEntries": tim.len() / 12,
        }));
    }
    progress.finish();
    // Per-partition files: snapshots at or below the log end, the epoch cache truncated to it.
    let leo = log_end.unwrap_or(0);
    for f in &load.files {
        let name = name_of(&f.path);
        match f.kind {
            FileKind::ProducerSnapshot if base_offset_of(&name).is_some_and(|o| o <= leo) => {
                copy_ranges(
                    &f.path,
                    &target.join(&name),
                    &[(0, fs::metadata(&f.path)?.len())],
                )?;
            }
            FileKind::PartitionMetadata => {
                copy_ranges(
                    &f.path,
                    &target.join(&name),
                    &[(0, fs::metadata(&f.path)?.len())],
                )?;
            }
            FileKind::LeaderEpochCheckpoint => {
                let bytes =
                    read_small(&f.path, 64 << 20).with_context(|| f.path.display().to_string())?;
                let text = match String::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                };
                // Streamed twice (count, then write) rather than collected: the copy costs the
                // file's text and the new body, nothing per entry.
                let keep = |start: i64| start < leo || leo == 0;
                if check_checkpoint(&text, true).is_ok() {
                    let mut kept = 0usize;
                    let _ = for_each_checkpoint_entry(&text, true, |e| {
                        if let CheckpointEntry::Epoch { start_offset, .. } = e {
                            kept += keep(start_offset) as usize;
                        }
                    });
                    let mut body = format!("0\n{kept}\n");
                    let _ = for_each_checkpoint_entry(&text, true, |e| {
                        if let CheckpointEntry::Epoch {
                            epoch,
                            start_offset,
                        } = e
                        {
                            if keep(start_offset) {
                                use std::fmt::Write as _;
                                let _ = writeln!(body, "{epoch} {start_offset}");
                            }
                        }
                    });
                    drop(text);
                    write_new(&target.join(&name), body.as_bytes())?;
                }
            }
            _ => {}
        }
    }
    Ok(Copy {
        report,
        damaged,
        clean,
        recovery_point,
        leo,
    })
}
