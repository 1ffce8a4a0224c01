//! `kseg recover`: a repaired copy of one partition, the way Kafka's recovery would leave it.
//! The input is only read; everything is written under `--out`.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::Outcome;
use crate::analysis::load;
use crate::analysis::producer_load::{
    self, LoadParams, SegmentView, SnapshotFile, DEFAULT_PRODUCER_ID_EXPIRATION_MS,
};
use crate::analysis::recovery::{
    always_recovered, analyse_segment, epoch_cache_after_load, epoch_checkpoint_text,
    extend_rebuild, next_batch_throws, IndexRebuild, SalvageRun,
};
use crate::analysis::severity::Nature;
use crate::analysis::summary::{log_dir_facts, LogDirFacts};
use crate::analysis::topic_configs::{log_dir_configs, LogConfigs, TopicLogConfig};
use crate::analysis::verify::txn_index_fails_sanity;
use crate::cli::RecoverArgs;
use crate::format::log::{ByteSource, RecordScratch};
use crate::format::text_files::{for_each_checkpoint_entry, CheckpointEntry};
use crate::print::progress::{self, Progress};
use crate::print::words::{LoadWords, StaleWords};
use crate::storage::discover::{discover, DataFile, LogDir, PartitionDir, Siblings};

mod log_dir;
use crate::storage::layout::{base_offset_of, FileKind, PartitionState, INCOMPLETE_COPY_MARKER};
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
    // Past `ulimit -f` a write fails with EFBIG instead of the process dying of SIGXFSZ, so the
    // error path below removes the partial copy rather than leaving a truncated one.
    // SAFETY: setting a signal's disposition to ignore; no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let set = discover(std::slice::from_ref(&args.partition))?;
    let unreadable = super::report_unreadable(&set);
    if let Some(dir) = set.log_dirs.first() {
        return log_dir::run(&args, dir, unreadable);
    }
    let Some(part) = set.partitions.first().cloned() else {
        bail!(
            "{} is neither a partition directory (<topic>-<partition>) nor a log dir",
            args.partition.display()
        );
    };
    // LogManager.loadLogs loads a deleted topic's `-delete` dir only to delete it (after
    // file.delete.delay.ms), and a `-stray` one likewise: a copy under that name would be
    // deleted at Kafka's next start.
    if matches!(
        part.name.state,
        PartitionState::PendingDelete | PartitionState::Stray
    ) {
        bail!(
            "{} is a {} partition dir: Kafka's load deletes it (LogManager.loadLogs), so a copy \
             under its name would be deleted too. To keep its records, copy its segments into a \
             dir named {}-{} and recover that, or read them with dump-log",
            part.path.display(),
            if part.name.state == PartitionState::PendingDelete {
                "deleted topic's (-delete)"
            } else {
                "stray (-stray)"
            },
            part.name.topic,
            part.name.partition
        );
    }
    let input = fs::canonicalize(&part.path)?;
    // The copy keeps the partition dir's name under --out, so kseg and Kafka read it as the same
    // topic-partition (`--out restored` writes `restored/orders-0/`).
    let target = args.out.join(name_of(&part.path));
    prepare_target(&target, &input, "partition", Some(&args.out))?;
    let ctx = DirContext::of_parent(&part, args.ignore_clean_shutdown);
    let mut copy = match write_copy(&args, &part, &target, &ctx) {
        Ok(c) => c,
        Err(e) => {
            // No partial copy is left behind: the dir was new or empty.
            let _ = fs::remove_dir_all(&target);
            return Err(e);
        }
    };
    finish_copy(&target)?;
    // The report says what verify-index finds in the copy.
    let after_stop = crate::analysis::summary::Checkpoints {
        recovery_point: Some(copy.leo),
        log_start: Some(copy.log_start),
        high_watermark: None,
    };
    let key = (part.name.topic.clone(), part.name.partition);
    for e in verify_written(
        &target,
        &ctx.configs,
        args.index_interval_bytes,
        Some((key, after_stop)),
    )? {
        copy.note_verified(e);
    }
    // The log dir holding the partition: a root checkpoint file Kafka cannot read stops it
    // whatever this partition's files are.
    let dir_failure = ctx.facts.as_ref().and_then(|f| f.stopping_failure());
    let dir_failure_words = dir_failure.map(|d| {
        format!(
            "{}: {}",
            d.path.display(),
            crate::print::verify::CheckpointReadWords(d)
        )
    });
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        for r in &copy.report {
            let mut r = r.clone();
            r["type"] = "segment".into();
            serde_json::to_writer(&mut out, &r)?;
            writeln!(out)?;
        }
        let mut summary = copy.summary_json(args.salvage);
        summary["type"] = "summary".into();
        summary["out"] = target.display().to_string().into();
        summary["logDirFailure"] = dir_failure_words.clone().into();
        serde_json::to_writer(&mut out, &summary)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} of {} written to {}",
            if copy.still_damaged.is_empty() {
                "Repaired copy"
            } else {
                "Copy (still damaged, see the end)"
            },
            part.path.display(),
            target.display()
        )?;
        copy.write_text(&mut out, "")?;
        for d in &copy.still_damaged {
            writeln!(out, "still damaged: {d}")?;
        }
        if let Some(w) = &dir_failure_words {
            writeln!(
                out,
                "the log dir holding it: {}",
                crate::print::escape::escaped(w)
            )?;
        }
    }
    out.flush()?;
    // The repair was written: the damage it repaired is in the report, not in the exit code
    // (what could not be read below the given dir is). Damage the copy keeps is: exit 1.
    Ok(unreadable.worst(Outcome::of_findings(
        copy.still_damaged
            .iter()
            .map(|_| Nature::DamagedData.severity())
            .chain(dir_failure.map(|_| Nature::BrokerWillNotStart.severity())),
    )))
}

/// verify-index's errors on the written copy: what the report must say the copy keeps, each
/// "FILE: words", and whether Kafka would refuse it. A log dir's copy is judged with its own
/// new files (marker, checkpoints); a partition's as the log dir's copy would hold it: the
/// input's topic configs, a clean-shutdown marker and `checkpoints` (its recovery point its
/// log end), as Kafka leaves them after its load and a clean stop.
fn verify_written(
    path: &Path,
    configs: &LogConfigs,
    index_interval: Option<u64>,
    checkpoints: Option<((String, i32), crate::analysis::summary::Checkpoints)>,
) -> Result<Vec<String>> {
    use crate::analysis::verify::{verify_log_dir, verify_partition, Severity, VerifyOptions};
    let set = discover(&[path.to_path_buf()])?;
    let opts = VerifyOptions {
        index_interval,
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut judge = |p: &PartitionDir, facts: &LogDirFacts| {
        let r = verify_partition(p, Some(facts), &opts);
        for f in r.findings.iter().filter(|f| f.severity == Severity::Error) {
            out.push(format!("{}: {}", f.file, crate::print::verify::message(f)));
        }
    };
    let mut dir_errors = Vec::new();
    for dir in &set.log_dirs {
        let facts = DirContext::of(Some(dir), false)
            .facts
            .expect("a log dir has its facts");
        verify_log_dir(&facts, &mut dir_errors);
        for p in &dir.partitions {
            judge(p, &facts);
        }
    }
    let alone = LogDirFacts {
        path: path.to_path_buf(),
        clean_shutdown: true,
        checkpoints: checkpoints.into_iter().collect(),
        log_configs: configs.clone(),
        compacted_topics: configs.compacted_topics(),
        ..Default::default()
    };
    for p in &set.partitions {
        judge(p, &alone);
    }
    out.extend(
        dir_errors
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}", f.file, crate::print::verify::message(f))),
    );
    Ok(out)
}

/// NEWDIR of a partition's copy: new, empty, or holding only partition dirs (earlier repairs
/// written beside this one). Anything else — a broker's log dir, a home or temp dir — is
/// refused: the repair must land where nothing else lives.
fn newdir_holds_only_partitions(out: &Path) -> Result<()> {
    if out.is_dir() {
        let other = fs::read_dir(out)?.filter_map(|e| e.ok()).find(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !(e.path().is_dir()
                && crate::storage::layout::parse_partition_dir(&name)
                    .is_some_and(|p| p.state == crate::storage::layout::PartitionState::Live))
        });
        if let Some(e) = other {
            bail!(
                "--out {} is not empty (it holds {}); give a new or empty directory (or one \
                 holding only other repaired partition dirs): kseg never writes among other files",
                out.display(),
                e.file_name().to_string_lossy()
            );
        }
    } else if out.exists() {
        bail!("--out {} exists and is not a directory", out.display());
    }
    Ok(())
}

/// Checks that `target` can take the copy of `input` (not inside it, new or empty; its parent
/// `newdir`, when given, holding only partition dirs) and creates it.
fn prepare_target(target: &Path, input: &Path, what: &str, newdir: Option<&Path>) -> Result<()> {
    // Resolve the copy's path through its nearest existing ancestor before creating anything, so
    // a path inside the input (existing or not, through symlinks or `..`) is refused.
    if super::resolved_path(target)?.starts_with(input) {
        bail!(
            "--out must not be inside the input {what} {}",
            input.display()
        );
    }
    if let Some(newdir) = newdir {
        newdir_holds_only_partitions(newdir)?;
    }
    if target.exists() {
        if fs::canonicalize(target)?.starts_with(input) {
            bail!("--out must not be inside the input {what}");
        }
        if target.join(INCOMPLETE_COPY_MARKER).is_file() {
            // A copy an earlier run did not finish: redone from the start.
            eprintln!(
                "kseg: {} is a copy an earlier kseg recover did not finish ({} is still there): removing it and writing it again",
                target.display(),
                INCOMPLETE_COPY_MARKER
            );
            fs::remove_dir_all(target)
                .with_context(|| format!("removing the incomplete copy {}", target.display()))?;
        } else if fs::read_dir(target)?.next().is_some() {
            bail!(
                "{} exists and is not empty; kseg never overwrites",
                target.display()
            );
        }
    }
    fs::create_dir_all(target).with_context(|| format!("creating {}", target.display()))?;
    // Written first, removed last (finish_copy): until then the dir says it is incomplete.
    write_new(
        &target.join(INCOMPLETE_COPY_MARKER),
        format!(
            "kseg recover of {} is writing this {what} copy. While this file exists the copy is \
             incomplete: do not start Kafka on it; rerun the same kseg recover command to redo it.\n",
            input.display()
        )
        .as_bytes(),
    )
    .with_context(|| format!("writing {}", target.join(INCOMPLETE_COPY_MARKER).display()))
}

/// The copy in `target` is whole: its incomplete-copy marker goes, last.
fn finish_copy(target: &Path) -> Result<()> {
    fs::remove_file(target.join(INCOMPLETE_COPY_MARKER))
        .with_context(|| format!("removing {}", target.join(INCOMPLETE_COPY_MARKER).display()))
}

impl Copy {
    /// Adds verify-index's error on the copy ("PATH: words") to what the copy keeps, unless
    /// the file is named there already (recover's own words for the same damage).
    fn note_verified(&mut self, error: String) {
        let file = error
            .split_once(": ")
            .map(|(path, _)| name_of(Path::new(path)))
            .unwrap_or_default();
        if file.is_empty()
            || !self
                .still_damaged
                .iter()
                .any(|d| d.starts_with(&format!("{file}:")))
        {
            self.still_damaged
                .push(format!("verify-index finds in the copy: {error}"));
        }
    }

    /// The segments Kafka counts as recovered: those LogSegment.recover runs on (the later
    /// unflushed segments LogLoader.recoverLog deletes after a truncation are not), two
    /// indexes each.
    fn recovered(&self) -> usize {
        self.report
            .iter()
            .filter(|r| r["action"] == "recovered" || r["action"] == "truncated")
            .count()
    }

    /// Whether the load dropped or moved anything: a segment truncated or deleted, a file
    /// cleaned up (a segment recovered whole is the same bytes).
    fn changed(&self) -> bool {
        self.report
            .iter()
            .any(|r| r["action"] != "copied" && r["action"] != "recovered")
    }

    fn summary_json(&self, salvage: bool) -> serde_json::Value {
        let recovered = self.recovered();
        json!({"damaged": self.damaged,
            "cleanShutdown": self.clean, "recoveryPoint": self.recovery_point, "logEndOffset": self.leo,
            "logStartOffset": self.log_start, "salvage": salvage,
            "recoveredSegments": recovered, "rebuiltIndexes": 2 * recovered, "stillDamaged": self.still_damaged,
            "producerSnapshots": {"copied": self.snapshots_copied, "written": self.snapshots_written, "deleted": self.snapshots_deleted},
            "logConfig": self.log_config})
    }

    /// The report's lines after the first, each prefixed with `indent`.
    fn write_text(&self, out: &mut impl Write, indent: &str) -> io::Result<()> {
        let recovered = self.recovered();
        writeln!(
            out,
            "{indent}{}; {recovered} segment{} recovered, {} indexes rebuilt; log end offset of the copy: {}",
            if self.clean {
                "clean shutdown: Kafka recovers only segments missing their .index".to_string()
            } else {
                format!("recovering from the segment holding recovery point {}", self.recovery_point)
            },
            if recovered == 1 { "" } else { "s" },
            2 * recovered,
            self.leo
        )?;
        for r in &self.report {
            writeln!(
                out,
                "{indent}  {}: {}{}",
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
                    "{indent}    salvaged {} valid batches after the damage: offsets {}",
                    r["salvagedBatches"],
                    r["salvagedOffsets"].as_str().unwrap_or("")
                )?;
            }
        }
        let list = |v: &[i64]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            }
        };
        writeln!(
            out,
            "{indent}index.interval.bytes {} ({})",
            self.log_config.index_interval_bytes.value,
            crate::print::words::config_source(self.log_config.index_interval_bytes.source)
        )?;
        writeln!(
            out,
            "{indent}producer snapshots (as Kafka's load leaves them): copied {}; written {}; deleted {}",
            list(&self.snapshots_copied),
            list(&self.snapshots_written),
            list(&self.snapshots_deleted)
        )
    }
}

/// What [`write_copy`] did, for the report.
struct Copy {
    report: Vec<serde_json::Value>,
    damaged: bool,
    /// Damage the copy keeps (as Kafka would): the copy is not repaired.
    still_damaged: Vec<String>,
    clean: bool,
    recovery_point: i64,
    leo: i64,
    /// The producer snapshots of the copy: copied from the input, written as Kafka's load
    /// writes them; and the input's that the load deletes.
    snapshots_copied: Vec<i64>,
    snapshots_written: Vec<i64>,
    snapshots_deleted: Vec<i64>,
    /// The log configs the copy was made with.
    log_config: TopicLogConfig,
    /// The log start offset after the load, and the first segment's base offset.
    log_start: i64,
    first_segment_base: i64,
    /// The input's high watermark checkpoint.
    high_watermark: Option<i64>,
}

/// What decides a partition's load beside its own files: its log dir's marker and checkpoints,
/// and the topic configs `__cluster_metadata` records.
struct DirContext {
    facts: Option<LogDirFacts>,
    configs: LogConfigs,
}

impl DirContext {
    /// The context of a partition dir given alone: the log dir holding it, if it is one.
    fn of_parent(part: &PartitionDir, ignore_clean_shutdown: bool) -> DirContext {
        let parent = part
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let parent_set = discover(std::slice::from_ref(&parent)).ok();
        let dir = parent_set.as_ref().and_then(|s| s.log_dirs.first());
        DirContext::of(dir, ignore_clean_shutdown)
    }

    fn of(dir: Option<&LogDir>, ignore_clean_shutdown: bool) -> DirContext {
        let mut facts = dir.map(log_dir_facts);
        // The topic's log configs from the log dir's __cluster_metadata (else Kafka's defaults).
        let configs = dir.map(log_dir_configs).unwrap_or_default();
        if let Some(f) = &mut facts {
            f.log_configs = configs.clone();
            f.compacted_topics = configs.compacted_topics();
            f.clean_shutdown &= !ignore_clean_shutdown;
        }
        DirContext { facts, configs }
    }
}

/// `LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd`: after recovery, a log start offset
/// checkpoint beyond the log end deletes every segment (and clears the epoch cache and the
/// producer state), and the load opens an empty segment at the checkpoint's offset. Removes
/// the segments written to `target`, writes that empty one, and says so per segment; `true`
/// when it applied.
fn log_start_beyond_end(
    target: &Path,
    log_start: i64,
    log_end: &mut Option<i64>,
    views: &mut Vec<SegmentView>,
    report: &mut Vec<serde_json::Value>,
) -> Result<bool> {
    let Some(end) = *log_end else {
        return Ok(false);
    };
    if end >= log_start || views.iter().all(|v| v.deleted) {
        return Ok(false);
    }
    for v in views.iter_mut().filter(|v| !v.deleted) {
        let stem = format!("{:020}", v.base);
        for ext in ["log", "index", "timeindex", "txnindex"] {
            let f = target.join(format!("{stem}.{ext}"));
            if f.exists() {
                fs::remove_file(&f).with_context(|| f.display().to_string())?;
            }
        }
        // Whatever its recovery wrote (snapshots, a .txnindex) goes with it:
        // ProducerStateManager.truncateFullyAndStartAt deletes every snapshot.
        v.deleted = true;
        v.recovered = false;
        v.load_recovered = false;
        let reason = format!("the log start offset checkpoint ({log_start}) is beyond the log end ({end}): Kafka's load deletes every segment of the partition and starts it empty at {log_start}");
        let name = format!("{stem}.log");
        match report.iter_mut().find(|r| r["segment"] == name.as_str()) {
            Some(r) => {
                r["action"] = "deleted".into();
                r["reason"] = reason.into();
            }
            None => report.push(json!({"segment": name, "action": "deleted", "reason": reason})),
        }
    }
    let stem = format!("{log_start:020}");
    for ext in ["log", "index", "timeindex"] {
        write_new(&target.join(format!("{stem}.{ext}")), b"")?;
    }
    views.push(SegmentView {
        base: log_start,
        path: target.join(format!("{stem}.log")),
        len: 0,
        load_recovered: false,
        recovered: false,
        deleted: false,
        batches: None,
    });
    *log_end = Some(log_start);
    Ok(true)
}

/// Writes the repaired copy of `part` into `target` (created, empty).
fn write_copy(
    args: &RecoverArgs,
    part: &PartitionDir,
    target: &Path,
    ctx: &DirContext,
) -> Result<Copy> {
    let facts = ctx.facts.as_ref();
    let configs = &ctx.configs;
    let log_config = configs.for_topic(&part.name.topic, args.index_interval_bytes);
    let index_interval = log_config.index_interval_bytes.value;
    // Internal topics are compacted; others when the cluster metadata says so.
    let compacted =
        part.name.topic.starts_with("__") || configs.compacted_topics().contains(&part.name.topic);
    // KafkaRaftLog: the metadata log gets no clean-shutdown credit and recovery point 0.
    let raft = always_recovered(&part.name.topic, part.name.partition);
    let clean = !raft && facts.is_some_and(|f| f.clean_shutdown);
    let checkpoints = facts.filter(|_| !raft).and_then(|f| {
        f.checkpoints
            .get(&(part.name.topic.clone(), part.name.partition))
    });
    let recovery_point = checkpoints.and_then(|c| c.recovery_point).unwrap_or(0);
    let log_start = checkpoints.and_then(|c| c.log_start).unwrap_or(0);
    let high_watermark = checkpoints.and_then(|c| c.high_watermark);
    let mut assigned_epochs: Vec<(i32, i64)> = Vec::new();
    let mut scratch = RecordScratch::default();
    // Kafka's load first deletes leftovers and completes interrupted compactions or splits:
    // the copy starts from the files as it leaves them (a `.swap` file under its final name).
    let load = load::plan(&part.files, &mut scratch);
    let mut report: Vec<serde_json::Value> = load
        .actions
        .iter()
        .map(
            |a| json!({"segment": name_of(&a.path), "action": "load-cleanup", "reason": LoadWords(&a.reason).to_string()}),
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
    // The producer state recovery starts from (ProducerStateManager.truncateAndReload: the
    // latest readable snapshot at or below the first recovered segment), replayed through the
    // log for the .txnindex LogSegment.recover rebuilds.
    // LogLoader.loadSegmentFiles recovers a segment itself when its .index is missing (a lone
    // swapped-in log gets an empty one from the load: LoadPlan) or its .txnindex fails
    // TransactionIndex.sanityCheck.
    let load_recovered_at = |base: i64| -> bool {
        let no_index = !load.empty_index_created.contains(&base)
            && siblings.get(base, &FileKind::OffsetIndex).is_none();
        no_index
            || siblings.get(base, &FileKind::TxnIndex).is_some_and(|f| {
                read_small(&f.path, 1 << 30).is_ok_and(|b| txn_index_fails_sanity(&b, base))
            })
    };
    let mut truncated = false;
    // The segments as the load leaves them, for the producer state's replays.
    let mut views: Vec<SegmentView> = Vec::new();
    let mut log_end: Option<i64> = None;
    let mut damaged = false;
    let mut still_damaged: Vec<String> = Vec::new();
    let progress = Progress::over_files(
        progress::wanted(true, false),
        segments.iter().map(|s| s.path.as_path()),
    );
    for (seg, base) in segments.iter().zip(&bases) {
        // A swapped-in segment is written under its final name.
        let name = name_of(&seg.path).trim_end_matches(".swap").to_string();
        let stem = name.trim_end_matches(".log").to_string();
        let recovered = !clean && *base >= recover_from;
        // Recovered by loadSegmentFiles (whatever the shutdown), a segment is cut there: it makes
        // recoverLog delete nothing after it.
        let index_created = load.empty_index_created.contains(base);
        let load_recovered = load_recovered_at(*base);
        let plan = analyse_segment(&seg.path, *base, index_interval, &mut scratch)
            .with_context(|| seg.path.display().to_string())?;
        progress.file_done(&seg.path);
        if truncated && !args.salvage {
            views.push(SegmentView {
                base: *base,
                path: seg.path.clone(),
                len: plan.size,
                load_recovered,
                recovered: false,
                deleted: true,
                batches: None,
            });
            report.push(json!({"segment": name, "action": "deleted",
                "reason": "a previous segment was truncated; Kafka deletes the later unflushed segments",
                "droppedBatches": plan.kept.batches + plan.salvage_batches(), "droppedBytes": plan.size}));
            continue;
        }
        views.push(SegmentView {
            base: *base,
            path: target.join(&name),
            len: 0,
            load_recovered,
            recovered,
            deleted: false,
            batches: None,
        });
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
                } else if kind == FileKind::TimeIndex
                    || (kind == FileKind::OffsetIndex && index_created)
                {
                    // LogLoader.loadSegmentFiles creates a missing .timeindex empty
                    // (LogSegment.sanityCheck resizes it to 0) without reading the log; the
                    // swapped-in log's .index was created empty by the first pass.
                    write_new(&target.join(format!("{stem}.{ext}")), &[])?;
                }
            }
            if let Some(at) = plan.truncate_at {
                damaged = true;
                still_damaged.push(format!(
                    "{name}: {} (byte {at}) is kept, as Kafka keeps it: it does not recover this segment",
                    plan.truncate_reason
                        .as_ref()
                        .map_or("invalid bytes".into(), ToString::to_string)
                ));
            }
            // The active segment used unrecovered: LogLoader reads its end, and a size field
            // below 14 there throws (FileLogInputStream.nextBatch) — Kafka will not start.
            if Some(base) == bases.last() {
                if let Some(at) = plan.first_frame_problem {
                    let mut src = FileSource::open(&seg.path)
                        .with_context(|| seg.path.display().to_string())?;
                    let header = src.read_at(at, 17).unwrap_or_default().to_vec();
                    if let Some(size) = next_batch_throws(&header, at, plan.size) {
                        still_damaged.push(format!(
                            "{name}: the bytes at {at} declare a batch of {size} bytes: Kafka's load throws CorruptRecordException on this copy and the broker does not start (remove .kafka_cleanshutdown so that Kafka recovers the segment, or recover a copy without it)"
                        ));
                    }
                }
            }
            // LogSegment.readNextOffset frames batches without checking CRCs: a CRC-bad batch
            // copied here (Kafka keeps it too) counts towards the log end offset.
            log_end = plan
                .framed_last_offset
                .map(|l| l + 1)
                .or(log_end)
                .max(Some(*base));
            report.push(json!({"segment": name, "action": "copied",
                "reason": "below the recovery point (or clean shutdown): Kafka does not re-validate it",
                "batches": plan.kept.batches}));
            continue;
        }
        // LogSegment.recover assigns the epochs of the batches it keeps.
        assigned_epochs.extend_from_slice(&plan.epoch_starts);
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
        log_end = Some(log_end.map_or(seg_end, |e| e.max(seg_end)));
        let salvaged_batches: u64 = salvaged.iter().map(|r| r.batches).sum();
        report.push(json!({
            "segment": name, "action": if plan.truncate_at.is_some() { "truncated" } else { "recovered" },
            "truncatePosition": plan.truncate_at, "reason": plan.truncate_reason.as_ref().map(ToString::to_string),
            "keptBatches": plan.kept.batches, "keptRecords": plan.kept.records,
            "salvagedBatches": salvaged_batches,
            "salvagedOffsets": salvaged.first().zip(salvaged.last()).map(|(a, z)| format!("{}..{}", a.base_offset, z.last_offset)),
            "droppedBytes": plan.size - ranges.iter().map(|r| r.1).sum::<u64>(),
            "droppedValidBatches": plan.salvage_batches() - salvaged_batches,
            "indexEntries": idx.len() / 8, "timeIndexEntries": tim.len() / 12,
        }));
    }
    progress.finish();
    let wiped = log_start_beyond_end(target, log_start, &mut log_end, &mut views, &mut report)?;
    if wiped {
        assigned_epochs.clear();
        damaged = true;
    }
    // Per-partition files: snapshots at or below the log end, the epoch cache truncated to it.
    let leo = log_end.unwrap_or(0);
    // The copied segments' lengths, now written.
    for v in views.iter_mut().filter(|v| !v.deleted) {
        v.len = fs::metadata(&v.path)
            .with_context(|| v.path.display().to_string())?
            .len();
    }
    // ProducerStateManager through the load: the snapshots it keeps and writes, and the
    // .txnindex each recovered segment gets from that state (LogSegment.recover).
    let snapshot_files: Vec<(i64, PathBuf)> = load
        .files
        .iter()
        .filter(|f| f.kind == FileKind::ProducerSnapshot)
        .filter_map(|f| Some((base_offset_of(&name_of(&f.path))?, f.path.clone())))
        .collect();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let producers = producer_load::simulate(
        &views,
        &snapshot_files,
        &LoadParams {
            clean_shutdown: clean,
            log_start_checkpoint: log_start,
            log_end: leo,
            now_ms: Some(now_ms),
            expiration_ms: DEFAULT_PRODUCER_ID_EXPIRATION_MS,
            check_stale: !compacted,
        },
        &mut scratch,
    )
    .with_context(|| format!("replaying the producer state of {}", part.path.display()))?;
    for (base, entries) in &producers.txn_indexes {
        let stem = format!("{base:020}");
        // TransactionIndex opens its file lazily: it exists when it did or gets an entry.
        if !entries.is_empty() || siblings.get(*base, &FileKind::TxnIndex).is_some() {
            let bytes: Vec<u8> = entries.iter().flat_map(|e| e.encode()).collect();
            write_new(&target.join(format!("{stem}.txnindex")), &bytes)?;
        }
    }
    for (offset, file) in &producers.snapshots {
        let dst = target.join(format!("{offset:020}.snapshot"));
        match file {
            SnapshotFile::Input(src) => {
                copy_ranges(src, &dst, &[(0, fs::metadata(src)?.len())])?;
            }
            SnapshotFile::Written(bytes) => write_new(&dst, bytes)?,
        }
    }
    for stale in &producers.stale {
        damaged = true;
        still_damaged.push(format!(
            "{:020}.txnindex: {} (the copy has Kafka's entry; remove the stale snapshot from the input before Kafka starts and it rebuilds the state from the log instead)",
            stale.segment_base,
            StaleWords(stale)
        ));
    }
    // LogLoader.load: the log start offset is the checkpoint's, at least the first segment's
    // base (a load that leaves no segment creates an empty one at the checkpoint's).
    let first_segment_base = views
        .iter()
        .find(|v| !v.deleted)
        .map_or(log_start, |v| v.base);
    let mut epoch_file: Option<PathBuf> = None;
    for f in &load.files {
        let name = name_of(&f.path);
        match f.kind {
            // KafkaRaftLog.recoverSnapshots deletes the snapshots below the log start offset
            // (the first segment's base: the metadata log has no log start checkpoint).
            FileKind::KraftSnapshot { end_offset, .. } if end_offset < first_segment_base => {}
            // KafkaRaftLog keeps its other snapshots (`<end>-<epoch>.checkpoint`) and
            // `quorum-state` beside the metadata log; its load leaves them as they are.
            FileKind::PartitionMetadata
            | FileKind::QuorumState
            | FileKind::KraftSnapshot { .. } => {
                copy_ranges(
                    &f.path,
                    &target.join(&name),
                    &[(0, fs::metadata(&f.path)?.len())],
                )?;
            }
            FileKind::LeaderEpochCheckpoint => epoch_file = Some(f.path.clone()),
            _ => {}
        }
    }
    // LeaderEpochFileCache: the checkpoint (created empty when missing, by CheckpointFile), the
    // epochs the recovered segments assign, then LogLoader.load's truncations at both ends.
    let entries = match &epoch_file {
        None => Some(Vec::new()),
        Some(path) => {
            let bytes = read_small(path, 64 << 20).with_context(|| path.display().to_string())?;
            let text = String::from_utf8_lossy(&bytes);
            let mut entries = Vec::new();
            let parsed = text.trim().is_empty()
                || for_each_checkpoint_entry(&text, true, |e| {
                    if let CheckpointEntry::Epoch {
                        epoch,
                        start_offset,
                    } = e
                    {
                        entries.push((epoch, start_offset));
                    }
                })
                .is_ok();
            parsed.then_some(entries)
        }
    };
    // An unreadable checkpoint is left out (Kafka's load fails on it).
    if let Some(entries) = entries {
        let (after, changed) = if wiped {
            // deleteSegmentsIfLogStartGreaterThanLogEnd: leaderEpochCache.clearAndFlush().
            (Vec::new(), true)
        } else {
            epoch_cache_after_load(entries, &assigned_epochs, leo, log_start)
        };
        let dst = target.join("leader-epoch-checkpoint");
        match (&epoch_file, changed) {
            (_, true) => write_new(&dst, epoch_checkpoint_text(&after).as_bytes())?,
            (Some(src), false) => {
                copy_ranges(src, &dst, &[(0, fs::metadata(src)?.len())])?;
            }
            (None, false) => write_new(&dst, b"")?,
        }
    }
    let snapshots_copied = producers
        .snapshots
        .iter()
        .filter(|(_, f)| matches!(f, SnapshotFile::Input(_)))
        .map(|(o, _)| *o)
        .collect();
    let snapshots_written = producers
        .snapshots
        .iter()
        .filter(|(_, f)| matches!(f, SnapshotFile::Written(_)))
        .map(|(o, _)| *o)
        .collect();
    Ok(Copy {
        report,
        damaged,
        still_damaged,
        clean,
        recovery_point,
        leo,
        snapshots_copied,
        snapshots_written,
        snapshots_deleted: producers.deleted,
        log_config,
        log_start: log_start.max(first_segment_base),
        first_segment_base,
        high_watermark,
    })
}
