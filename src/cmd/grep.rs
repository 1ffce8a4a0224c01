//! `kseg grep`: read the arguments into an [`analysis::grep::Filter`](Filter), discover the
//! inputs as dump-log does, and run a [`Search`] over each partition's segments with the one
//! scan loop, printing with [`GrepPrinter`]. Each partition's transactions are walked with it
//! ([`TxnView`]: the `.txnindex` aborts, and the open transactions when the filter needs them);
//! `--from-time`/`--from-offset` start each segment where its indexes allow
//! ([`seek_in_segment`]); `--threads N` searches the parts in parallel
//! ([`parallel`](super::parallel), as dump-log's), written in order.
//!
//! Exit status as grep's: 0 something matched, 1 nothing matched, 2 trouble (a path that could
//! not be read, or data problems). `main` turns an [`Outcome`] into the exit code, so "nothing
//! matched" travels as [`Outcome::DataProblems`] (1) and trouble as [`Outcome::Failed`] (2).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::lookup::instant_refused;
use super::parallel::{self, LazyPieces, Part, Received};
use super::{discover_inputs, Outcome, Reads};
use crate::analysis::grep::{
    key_placements, seek_in_segment, Filter, Glob, HeaderFilter, JsonField, KeyPlacement, Pattern,
    Search, SearchStats, Seek,
};
use crate::analysis::topic_configs::partition_counts;
use crate::analysis::transactions::{open_transaction_starts, TxnState, TxnView};
use crate::cli::{GrepArgs, TxnStateArg};
use crate::format::control::ControlRecord;
use crate::format::log::RecordScratch;
use crate::format::log::{BatchInfo, LogEntry, LogRecord};
use crate::format::reader::DecodeResult;
use crate::format::txn_index::{parse_txn_index, AbortedTxn};
use crate::print::grep::{GrepPrinter, Mode};
use crate::print::progress::{self, Progress};
use crate::print::{report_error, write_stderr};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::{discover, DataSet, PartitionDir};
use crate::storage::layout::{base_offset_of, offset_file_name};
use crate::storage::layout::{parse_partition_dir, FileKind};
use crate::storage::source::open_log;
use crate::storage::source::read_small;
use crate::time::parse_instant;

/// The segments of one partition (or one file given outside a partition dir), in offset order.
struct Group {
    topic: Option<String>,
    partition: Option<i32>,
    /// What stands for the partition when it has no name: the file's path.
    name: String,
    files: Vec<PathBuf>,
}

/// Whether a filter other than the value pattern was given: then a single argument is a PATH.
fn has_record_filter(a: &GrepArgs) -> bool {
    a.key.is_some()
        || a.key_regex.is_some()
        || !a.header.is_empty()
        || !a.json_field.is_empty()
        || !a.topic.is_empty()
        || !a.partition.is_empty()
        || a.from_time.is_some()
        || a.to_time.is_some()
        || a.from_offset.is_some()
        || a.to_offset.is_some()
        || a.producer_id.is_some()
        || a.producer_epoch.is_some()
        || a.committed
        || !a.txn_state.is_empty()
        || a.control
        || a.no_control
}

/// The value pattern (if any) and the paths, from the positional arguments.
fn pattern_and_paths(a: &GrepArgs) -> Result<(Option<String>, Vec<PathBuf>)> {
    let mut args = a.args.clone();
    let pattern = if a.regexp.is_some() {
        a.regexp.clone()
    } else if args.len() == 1 && has_record_filter(a) {
        None
    } else if args.len() >= 2 {
        let p: OsString = args.remove(0);
        Some(
            p.into_string()
                .map_err(|p| anyhow::anyhow!("the pattern {p:?} is not UTF-8"))?,
        )
    } else {
        bail!(
            "give a PATTERN and a PATH (or a filter such as --key, --header or --from-time, \
             and a PATH)"
        );
    };
    Ok((pattern, args.into_iter().map(PathBuf::from).collect()))
}

/// A time flag's instant, with the zone rule lookup uses (shared by dump-log).
pub(super) fn time_arg(flag: &str, t: &Option<String>) -> Result<Option<i64>> {
    t.as_deref()
        .map(|t| parse_instant(t).map_err(|e| anyhow::anyhow!(instant_refused(flag, t.trim(), e))))
        .transpose()
}

/// The filter the arguments describe.
pub fn filter_of(a: &GrepArgs, pattern: Option<&str>) -> Result<Filter> {
    let value = pattern
        .map(|p| Pattern::new(p, a.fixed_strings))
        .transpose()
        .context("PATTERN")?;
    let key_regex = a
        .key_regex
        .as_deref()
        .map(regex::bytes::Regex::new)
        .transpose()
        .context("--key-regex")?;
    Ok(Filter {
        value,
        key: a.key.as_ref().map(|k| k.as_bytes().to_vec()),
        key_regex,
        headers: a.header.iter().map(|h| HeaderFilter::parse(h)).collect(),
        json_fields: a
            .json_field
            .iter()
            .map(|f| JsonField::parse(f))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!(e))?,
        from_time: time_arg("--from-time", &a.from_time)?,
        to_time: time_arg("--to-time", &a.to_time)?,
        from_offset: a.from_offset,
        to_offset: a.to_offset,
        producer_id: a.producer_id,
        producer_epoch: a.producer_epoch,
        control: match (a.control, a.no_control) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        txn_states: a
            .txn_state
            .iter()
            .map(|s| match s {
                TxnStateArg::Committed => TxnState::Committed,
                TxnStateArg::Aborted => TxnState::Aborted,
                TxnStateArg::Open => TxnState::Open,
                TxnStateArg::NonTransactional => TxnState::NonTransactional,
            })
            .collect(),
        committed: a.committed,
    })
}

/// The aborted transactions listed by the `.txnindex` beside each segment of `files` (what
/// Kafka's fetch reads); an unreadable or damaged index is reported and its whole entries kept.
fn indexed_aborts(files: &[PathBuf]) -> (Vec<AbortedTxn>, bool) {
    let mut out = Vec::new();
    let mut trouble = false;
    for f in files {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        let Some(base) = base_offset_of(&name) else {
            continue;
        };
        let index = f.with_file_name(offset_file_name(base, "txnindex"));
        if !index.is_file() {
            continue;
        }
        let bytes = match read_small(&index, 1 << 30) {
            Ok(b) => b,
            Err(e) => {
                report_error(&index, None, &format!("cannot read: {e}"));
                trouble = true;
                continue;
            }
        };
        let (entries, partial) = parse_txn_index(&bytes);
        for e in entries {
            match e {
                Ok(t) => out.push(t),
                Err(e) => {
                    report_error(&index, Some(e.position), &e.message);
                    trouble = true;
                }
            }
        }
        if let Some(at) = partial {
            report_error(
                &index,
                Some(at as u64),
                "a partial entry at the end (Kafka's reader ignores it)",
            );
            trouble = true;
        }
    }
    (out, trouble)
}

/// What one partition's transaction walk starts from: the `.txnindex` aborts, and the open
/// transactions when the filter needs them (a pass over the batch headers first).
struct TxnInputs {
    aborted: Vec<AbortedTxn>,
    open: Option<HashMap<i64, i64>>,
    error: Option<io::Error>,
    trouble: bool,
}

impl TxnInputs {
    fn of(filter: &Filter, g: &Group, scratch: &mut RecordScratch) -> TxnInputs {
        let (aborted, trouble) = indexed_aborts(&g.files);
        let (open, error) = if filter.needs_open_transactions() {
            match open_transaction_starts(g.files.iter().map(PathBuf::as_path), scratch) {
                Ok(o) => (Some(o), None),
                Err(e) => (Some(HashMap::new()), Some(e)),
            }
        } else {
            (None, None)
        };
        TxnInputs {
            aborted,
            open,
            error,
            trouble,
        }
    }

    fn view(&self) -> TxnView {
        TxnView::new(self.aborted.clone(), self.open.clone(), i64::MIN)
    }
}

/// The note `--committed` gives when an open transaction holds the last stable offset.
fn last_stable_note(view: &TxnView) -> Option<String> {
    let (producer, first) = view.first_open()?;
    Some(format!(
        "--committed: the transaction of producer {producer} from offset {first} has no COMMIT \
         or ABORT marker: the last stable offset is {first}, and a read_committed consumer is \
         given nothing at or after it (--txn-state open shows the open transactions)"
    ))
}

/// What the index and the markers disagree on, once the partition was searched.
fn txn_index_notes<W: io::Write>(
    unindexed_aborts: &[(i64, i64)],
    mut unended: Vec<(i64, i64)>,
    printer: &mut GrepPrinter<W>,
) -> io::Result<()> {
    for &(offset, producer) in unindexed_aborts {
        printer.note(&format!(
            "the ABORT marker at offset {offset} (producer {producer}) ends a transaction no \
             .txnindex lists: Kafka's fetch gives its records to read_committed consumers, so \
             kseg does not count them aborted (a missing or stale .txnindex)"
        ))?;
    }
    unended.sort_by_key(|&(p, last)| (last, p));
    for (producer, last) in unended {
        printer.note(&format!(
            "a .txnindex lists an aborted transaction of producer {producer} ending at offset \
             {last}, but no ABORT marker of that producer is there: Kafka's consumer counts \
             that producer's transactional records aborted until one comes"
        ))?;
    }
    Ok(())
}

/// The partitions and files to search, in input order. In dirs, live `.log` segments; a file
/// given on its own is searched whatever its log-data kind (a `.deleted` segment, a snapshot).
fn groups_of(set: &DataSet) -> Vec<Group> {
    let mut out = Vec::new();
    for f in &set.files {
        let effective = match &f.kind {
            FileKind::Deleted(k) | FileKind::Cleaned(k) | FileKind::Swap(k) => k.as_ref(),
            k => k,
        };
        if !effective.is_log_data() {
            continue;
        }
        let name = f
            .path
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| parse_partition_dir(&n.to_string_lossy()));
        out.push(Group {
            topic: name.as_ref().map(|n| n.topic.clone()),
            partition: name.as_ref().map(|n| n.partition),
            name: f.path.display().to_string(),
            files: vec![f.path.clone()],
        });
    }
    for p in set.all_partitions() {
        out.push(Group {
            topic: Some(p.name.topic.clone()),
            partition: Some(p.name.partition),
            name: p.path.display().to_string(),
            files: p
                .files
                .iter()
                .filter(|f| f.kind == FileKind::Log)
                .map(|f| f.path.clone())
                .collect(),
        });
    }
    out
}

/// The partition counts the input's `__cluster_metadata` records: the log dirs' own, or (for
/// partition dirs given alone) the one beside them in their log dir.
fn recorded_partition_counts(set: &DataSet) -> HashMap<String, u32> {
    let mut counts = HashMap::new();
    let mut add = |m: &PartitionDir| {
        for (topic, n) in partition_counts(m) {
            let c = counts.entry(topic).or_insert(n);
            *c = (*c).max(n);
        }
    };
    let mut found = false;
    for m in set
        .all_partitions()
        .filter(|p| p.name.topic == "__cluster_metadata")
    {
        add(m);
        found = true;
    }
    if !found {
        let beside: BTreeSet<PathBuf> = set
            .partitions
            .iter()
            .filter_map(|p| Some(p.path.parent()?.join("__cluster_metadata-0")))
            .filter(|m| m.is_dir())
            .collect();
        for m in beside {
            if let Ok(found) = discover(std::slice::from_ref(&m)) {
                found.all_partitions().for_each(&mut add);
            }
        }
    }
    counts
}

/// `--key`'s placement per topic searched, with a note for each; without `--all-partitions`
/// only the partition the key maps to stays in `groups`.
fn place_key<W: io::Write>(
    args: &GrepArgs,
    set: &DataSet,
    groups: &mut Vec<Group>,
    printer: &mut GrepPrinter<W>,
) -> Result<Vec<KeyPlacement>> {
    let Some(key) = &args.key else {
        return Ok(Vec::new());
    };
    let recorded = recorded_partition_counts(set);
    let topics: BTreeSet<&str> = groups
        .iter()
        .filter(|g| g.partition.is_some())
        .filter_map(|g| g.topic.as_deref())
        .collect();
    let placements = key_placements(key.as_bytes(), topics, args.partitions, &recorded);
    for p in &placements {
        let held = groups
            .iter()
            .any(|g| g.topic.as_deref() == Some(&p.topic) && g.partition == Some(p.partition));
        printer.set_partition(Some(&p.topic), Some(p.partition), &p.topic);
        if let (Some(n), Some(&m)) = (args.partitions, recorded.get(&p.topic)) {
            if n != m {
                printer.note(&format!(
                    "--partitions {n}, but __cluster_metadata records {m} partitions of {}; \
                     using {n}",
                    p.topic
                ))?;
            }
        }
        let mapped = format!(
            "--key maps to partition {} of {} (the default partitioner: murmur2 over {} \
             partitions, counted by {})",
            p.partition, p.topic, p.partitions, p.counted_by
        );
        let message = match (args.all_partitions, held) {
            (true, _) => format!("{mapped}; --all-partitions: every partition is searched"),
            (false, true) => format!(
                "{mapped}: only {}-{} is searched; --all-partitions searches the others too \
                 (records placed by a custom partitioner or an explicit partition)",
                p.topic, p.partition
            ),
            (false, false) => format!(
                "{mapped}, which is not in the input: nothing of {} is searched; \
                 --all-partitions searches the partitions given",
                p.topic
            ),
        };
        printer.note(&message)?;
    }
    if !args.all_partitions {
        groups.retain(|g| {
            let placed = placements
                .iter()
                .find(|p| g.partition.is_some() && g.topic.as_deref() == Some(&p.topic));
            placed.is_none_or(|p| g.partition == Some(p.partition))
        });
    }
    Ok(placements)
}

/// `--topic` and `--partition`: the partitions kept (a file outside a partition dir has neither,
/// and is left out by either).
fn select_partitions(args: &GrepArgs, groups: &mut Vec<Group>) -> Result<()> {
    let globs = args
        .topic
        .iter()
        .map(|g| Glob::new(g).with_context(|| format!("--topic {g:?}")))
        .collect::<Result<Vec<_>>>()?;
    groups.retain(|g| {
        (globs.is_empty()
            || g.topic
                .as_deref()
                .is_some_and(|t| globs.iter().any(|x| x.is_match(t))))
            && (args.partition.is_empty()
                || g.partition.is_some_and(|p| args.partition.contains(&p)))
    });
    Ok(())
}

/// What every partition's search shares.
struct Ctx<'a> {
    args: &'a GrepArgs,
    filter: &'a Filter,
    groups: &'a [Group],
    mode: Mode,
    progress: &'a Progress,
    seeking: bool,
}

impl Ctx<'_> {
    /// Where the search of segment `k` of `g` starts; `None` when `--from-offset` rules out all
    /// of it (the next segment starts at or below it).
    fn seek(&self, g: &Group, k: usize) -> Option<Seek> {
        if !self.seeking {
            return Some(Seek::default());
        }
        let next_base = g
            .files
            .get(k + 1)
            .and_then(|n| base_offset_of(&n.file_name().unwrap_or_default().to_string_lossy()));
        if self
            .filter
            .from_offset
            .is_some_and(|f| next_base.is_some_and(|n| n <= f))
        {
            return None;
        }
        Some(seek_in_segment(
            &g.files[k],
            self.filter.from_time,
            self.filter.from_offset,
        ))
    }

    /// Searches `[start, end)` of segment `k` of `g` into `printer` with `filter` (the
    /// command's, or a worker's clone of it): the stats (bytes read included) and a read error.
    #[allow(clippy::too_many_arguments)]
    fn search<W: io::Write>(
        &self,
        filter: &Filter,
        g: &Group,
        k: usize,
        part: (u64, Option<u64>, bool, bool),
        piece: Option<&Part>,
        budget: Option<u64>,
        txns: &mut TxnView,
        printer: &mut GrepPrinter<W>,
        scratch: &mut RecordScratch,
    ) -> (SearchStats, Option<io::Error>, bool) {
        let (start, end, first_piece, last_piece) = part;
        let file = &g.files[k];
        if let Err(e) = printer.set_file(file) {
            return (SearchStats::default(), Some(e), false);
        }
        let mut search = Search::new(filter, printer);
        search.txns = Some(txns);
        search.prune = !self.args.no_prune;
        search.print_batch = self.args.print_batch;
        search.budget = if self.mode == Mode::Files {
            Some(1)
        } else {
            budget
        };
        // The offset range is pruned by the search (counted with the rest), not by the scan.
        let opts = ScanOptions {
            deep: true,
            start_position: start,
            stop_at: end,
            ..ScanOptions::default()
        };
        if first_piece {
            // The part a seek skipped counts as read.
            self.progress.advance(start);
        }
        let mut moving = Moving {
            search: &mut search,
            progress: self.progress,
            reported: start,
            piece,
        };
        let mut ran_past_cut = false;
        let result = open_log(file, self.args.read.mmap).and_then(|mut src| {
            let scanned = scan_log(src.as_mut(), &opts, scratch, &mut moving)?;
            ran_past_cut = scanned.ran_past_cut;
            Ok(src.bytes_read().unwrap_or(0))
        });
        let reported = moving.reported;
        // A piece that fails to read ends its file, as one walk's failure does.
        let ran_past_cut = ran_past_cut || result.is_err();
        // A void piece's bytes were walked by the earlier piece that ran past its cut.
        if !piece.is_some_and(Part::is_void) {
            if last_piece || ran_past_cut {
                self.progress.file_done_after(file, reported);
            } else if let Some(end) = end {
                self.progress.advance(end.saturating_sub(reported));
            }
        }
        let mut stats = search.stats;
        stats.bytes_read += result.as_ref().map_or(0, |b| *b);
        (stats, result.err(), ran_past_cut)
    }
}

/// What is printed after a partition was searched: the index notes, `-c`'s count, and a
/// `--key` match outside the partition the key maps to.
fn close_group<W: io::Write>(
    g: &Group,
    matches: u64,
    unindexed: &[(i64, i64)],
    unended: Vec<(i64, i64)>,
    ctx: &Ctx<'_>,
    placements: &[KeyPlacement],
    printer: &mut GrepPrinter<W>,
) -> io::Result<()> {
    txn_index_notes(unindexed, unended, printer)?;
    if ctx.mode == Mode::Count {
        printer.count(matches)?;
    }
    let misplaced = placements.iter().find(|p| {
        matches > 0 && g.topic.as_deref() == Some(&p.topic) && g.partition != Some(p.partition)
    });
    if let (Some(p), Some(here)) = (misplaced, g.partition) {
        printer.note(&format!(
            "--key found in {}-{here}, but the default partitioner maps it to partition {} \
             (murmur2 over {} partitions): a custom partitioner, an explicit partition or a \
             changed partition count placed it here",
            p.topic, p.partition, p.partitions
        ))?;
    }
    Ok(())
}

/// The transaction inputs of a partition, with the error lines reading them gave (printed
/// where the partition's output starts).
fn group_inputs(
    filter: &Filter,
    g: &Group,
    scratch: &mut RecordScratch,
) -> (TxnInputs, Vec<String>) {
    let lines = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let inputs = {
        let to = lines.clone();
        let _capture = crate::print::capture_errors(Box::new(move |l| to.borrow_mut().push(l)));
        let inputs = TxnInputs::of(filter, g, scratch);
        if let Some(e) = &inputs.error {
            report_error(Path::new(&g.name), None, &format!("cannot read: {e}"));
        }
        inputs
    };
    let lines = lines.borrow().clone();
    (inputs, lines)
}

/// Opens a partition's output: the partition, its error lines and the `--committed` note.
fn open_group<W: io::Write>(
    g: &Group,
    inputs: &TxnInputs,
    lines: &[String],
    filter: &Filter,
    printer: &mut GrepPrinter<W>,
    total: &mut SearchStats,
    outcome: &mut Outcome,
) -> io::Result<()> {
    printer.set_partition(g.topic.as_deref(), g.partition, &g.name);
    printer.flush()?;
    for l in lines {
        write_stderr(l);
    }
    if inputs.trouble {
        total.problems += 1;
    }
    if inputs.error.is_some() {
        *outcome = Outcome::Failed;
    }
    if filter.committed {
        if let Some(note) = last_stable_note(&inputs.view()) {
            printer.note(&note)?;
        }
    }
    Ok(())
}

pub fn run(args: GrepArgs) -> Result<Outcome> {
    let (pattern, paths) = pattern_and_paths(&args)?;
    let filter = filter_of(&args, pattern.as_deref())?;
    let (set, mut outcome) = discover_inputs(&paths, "grep", Reads::LogData)?;
    let mut groups = groups_of(&set);
    select_partitions(&args, &mut groups)?;
    let mode = if args.count {
        Mode::Count
    } else if args.files_with_matches {
        Mode::Files
    } else {
        Mode::Records
    };
    let stdout = io::stdout();
    let mut printer = GrepPrinter::new(stdout.lock(), args.json, args.encoding.into(), mode);
    let placements = place_key(&args, &set, &mut groups, &mut printer)?;
    let progress = Progress::over_files(
        progress::wanted(true, true),
        groups
            .iter()
            .flat_map(|g| g.files.iter().map(PathBuf::as_path)),
    );
    let ctx = Ctx {
        args: &args,
        filter: &filter,
        groups: &groups,
        mode,
        progress: &progress,
        seeking: !args.no_prune && (filter.from_time.is_some() || filter.from_offset.is_some()),
    };
    let mut total = SearchStats::default();
    // A match budget (-m, -l) runs through a partition's segments in order: one thread.
    let threads = args.threads.count();
    if threads > 1 && args.max_count.is_none() && mode != Mode::Files {
        search_parallel(
            &ctx,
            threads,
            &placements,
            &mut printer,
            &mut total,
            &mut outcome,
        )?;
    } else {
        search_in_order(&ctx, &placements, &mut printer, &mut total, &mut outcome)?;
    }
    progress.finish();
    printer.finish(&total, args.stats)?;
    if total.problems > 0 {
        outcome = Outcome::Failed;
    }
    Ok(if outcome != Outcome::Clean {
        Outcome::Failed
    } else if total.matches > 0 {
        Outcome::Clean
    } else {
        Outcome::DataProblems
    })
}

/// A read error of a segment: stdout closing ends the run, anything else is reported.
fn read_failed(file: &Path, e: io::Error, outcome: &mut Outcome) -> Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Err(e.into());
    }
    report_error(file, None, &format!("cannot read: {e}"));
    *outcome = Outcome::Failed;
    Ok(())
}

/// One thread: partition after partition, segment after segment.
fn search_in_order<W: io::Write>(
    ctx: &Ctx<'_>,
    placements: &[KeyPlacement],
    printer: &mut GrepPrinter<W>,
    total: &mut SearchStats,
    outcome: &mut Outcome,
) -> Result<()> {
    let mut scratch = RecordScratch::with_cap(ctx.args.read.max_decompressed_bytes);
    for g in ctx.groups {
        let (inputs, lines) = group_inputs(ctx.filter, g, &mut scratch);
        open_group(g, &inputs, &lines, ctx.filter, printer, total, outcome)?;
        let mut txns = inputs.view();
        let mut matches = 0u64;
        let mut budget = ctx.args.max_count;
        for k in 0..g.files.len() {
            if budget == Some(0) {
                break;
            }
            let Some(seek) = ctx.seek(g, k) else {
                txns.resume();
                ctx.progress.file_done(&g.files[k]);
                continue;
            };
            if seek.position > 0 {
                txns.resume();
            }
            let (mut stats, error, _) = ctx.search(
                ctx.filter,
                g,
                k,
                (seek.position, None, true, true),
                None,
                budget,
                &mut txns,
                printer,
                &mut scratch,
            );
            stats.bytes_read += seek.index_bytes;
            if let Some(e) = error {
                read_failed(&g.files[k], e, outcome)?;
            }
            if let Some(b) = budget.as_mut() {
                *b = b.saturating_sub(stats.matches);
            }
            matches += stats.matches;
            total.add(&stats);
        }
        let unindexed = std::mem::take(&mut txns.unindexed_aborts);
        close_group(
            g,
            matches,
            &unindexed,
            txns.unended_index_entries(),
            ctx,
            placements,
            printer,
        )?;
    }
    Ok(())
}

/// One part of a parallel search: a segment, or a piece of one, of one partition.
#[derive(Debug, Clone)]
struct GrepPart {
    group: usize,
    part: Part,
    /// Index and frame-header bytes read to find the part (counted once, with the first piece).
    index_bytes: u64,
    /// Batches may have been skipped before it: the transaction walk starts afresh
    /// ([`TxnView::resume`]: the aborted transactions whose ABORT marker lies in or after the
    /// part, as a fetch from there sees them).
    resume: bool,
}

/// The parts of every partition's segments, in order, each segment sought (its index read) and
/// cut as the workers reach it: the cutting of a large segment overlaps the search of its first
/// pieces (cut up front, a walk of every frame header before any search began: a fifth of
/// `grep -F` over one 1 GiB segment).
struct GrepPlan<'c, 'a> {
    ctx: &'c Ctx<'a>,
    group: usize,
    /// The segment being cut, or the next one.
    file: usize,
    /// Its pieces, and the index bytes its seek read (counted with its first piece).
    pieces: Option<(LazyPieces<'c>, u64)>,
}

impl Iterator for GrepPlan<'_, '_> {
    type Item = GrepPart;

    fn next(&mut self) -> Option<GrepPart> {
        let ctx = self.ctx;
        loop {
            if let Some((pieces, seek_bytes)) = &mut self.pieces {
                let before = pieces.bytes_read();
                if let Some(part) = pieces.next() {
                    let cut_bytes = pieces.bytes_read() - before;
                    return Some(GrepPart {
                        group: self.group,
                        index_bytes: std::mem::take(seek_bytes) + cut_bytes,
                        // Batches were skipped before it: an earlier segment (searched as
                        // another part, or not at all), or this one's start.
                        resume: self.file > 0 || part.start > 0,
                        part,
                    });
                }
                self.pieces = None;
                self.file += 1;
                continue;
            }
            let g = ctx.groups.get(self.group)?;
            let Some(path) = g.files.get(self.file) else {
                self.group += 1;
                self.file = 0;
                continue;
            };
            match ctx.seek(g, self.file) {
                Some(seek) => {
                    let split = ctx.args.split_bytes.max(1);
                    let pieces = LazyPieces::from(self.file, path, seek.position, split);
                    self.pieces = Some((pieces, seek.index_bytes));
                }
                None => {
                    ctx.progress.file_done(path);
                    self.file += 1;
                }
            }
        }
    }
}

/// What a worker hands back after a part.
struct PartDone {
    stats: SearchStats,
    /// ABORT markers no index lists, and index entries no marker ended ([`TxnView`]).
    unindexed_aborts: Vec<(i64, i64)>,
    unended: Vec<(i64, i64)>,
    /// The segment could not be read.
    error: Option<io::Error>,
}

/// `--threads N`: the parts (segments, and pieces of large ones) on N workers, written in order.
fn search_parallel<W: io::Write>(
    ctx: &Ctx<'_>,
    threads: usize,
    placements: &[KeyPlacement],
    printer: &mut GrepPrinter<W>,
    total: &mut SearchStats,
    outcome: &mut Outcome,
) -> Result<()> {
    let mut scratch = RecordScratch::with_cap(ctx.args.read.max_decompressed_bytes);
    // Each partition's transaction inputs; its parts come from the plan as the workers pull it.
    let inputs: Vec<_> = ctx
        .groups
        .iter()
        .map(|g| group_inputs(ctx.filter, g, &mut scratch))
        .collect();
    let parts = GrepPlan {
        ctx,
        group: 0,
        file: 0,
        pieces: None,
    };
    // Per partition, as its parts come back.
    struct Open {
        group: usize,
        matches: u64,
        unindexed: Vec<(i64, i64)>,
        unended: Vec<(i64, i64)>,
    }
    let mut current: Option<Open> = None;
    let mut next_group = 0usize;
    // Closes the partition open now and opens (and closes) every one up to `to`.
    let mut move_to = |to: usize,
                       current: &mut Option<Open>,
                       printer: &mut GrepPrinter<W>,
                       total: &mut SearchStats,
                       outcome: &mut Outcome|
     -> io::Result<()> {
        if current.as_ref().is_some_and(|c| c.group == to) {
            return Ok(());
        }
        if let Some(c) = current.take() {
            let g = &ctx.groups[c.group];
            printer.set_partition(g.topic.as_deref(), g.partition, &g.name);
            close_group(
                g,
                c.matches,
                &c.unindexed,
                c.unended,
                ctx,
                placements,
                printer,
            )?;
        }
        while next_group <= to && next_group < ctx.groups.len() {
            let gi = next_group;
            next_group += 1;
            let g = &ctx.groups[gi];
            let (inp, lines) = &inputs[gi];
            open_group(g, inp, lines, ctx.filter, printer, total, outcome)?;
            if gi < to {
                close_group(g, 0, &[], Vec::new(), ctx, placements, printer)?;
            } else {
                *current = Some(Open {
                    group: gi,
                    matches: 0,
                    unindexed: Vec::new(),
                    unended: Vec::new(),
                });
            }
        }
        Ok(())
    };
    let args = ctx.args;
    parallel::run(
        parts,
        threads,
        // Each worker its own clone of the filter: a regex's clone has its own pool of search
        // caches, where one shared regex made every thread but its first take a lock per record
        // (two threads were 1.2x one on a key regex over one segment, and are 1.7x with clones).
        || {
            (
                RecordScratch::with_cap(args.read.max_decompressed_bytes),
                ctx.filter.clone(),
            )
        },
        |(scratch, filter), gp: &GrepPart, out| {
            if gp.part.is_void() {
                // Searched by an earlier piece that ran past its cut.
                return PartDone {
                    stats: SearchStats::default(),
                    unindexed_aborts: Vec::new(),
                    unended: Vec::new(),
                    error: None,
                };
            }
            let g = &ctx.groups[gp.group];
            let part = &gp.part;
            let mut txns = inputs[gp.group].0.view();
            if gp.resume {
                txns.resume();
            }
            let mut p = GrepPrinter::new(out, args.json, args.encoding.into(), ctx.mode);
            p.set_partition(g.topic.as_deref(), g.partition, &g.name);
            let (mut stats, error, ran_past_cut) = ctx.search(
                filter,
                g,
                part.file,
                (part.start, part.end, part.first, part.last),
                Some(part),
                None,
                &mut txns,
                &mut p,
                scratch,
            );
            stats.bytes_read += gp.index_bytes;
            if ran_past_cut {
                part.ran_past_cut();
            }
            let flushed = p.flush();
            PartDone {
                stats,
                unindexed_aborts: std::mem::take(&mut txns.unindexed_aborts),
                unended: txns.unended_index_entries(),
                error: error.or(flushed.err()),
            }
        },
        |gp, received| {
            if gp.part.is_void() {
                return Ok(());
            }
            move_to(gp.group, &mut current, printer, total, outcome)?;
            match received {
                Received::Out(bytes) => printer.write_through(bytes)?,
                Received::Err(line) => {
                    printer.flush()?;
                    write_stderr(&line);
                }
                Received::Note(_) => {}
                Received::Done(d) => {
                    if let Some(e) = d.error {
                        read_failed(&ctx.groups[gp.group].files[gp.part.file], e, outcome)?;
                    }
                    total.add(&d.stats);
                    let c = current.as_mut().expect("opened above");
                    c.matches += d.stats.matches;
                    c.unindexed.extend(d.unindexed_aborts);
                    c.unended.extend(d.unended);
                }
            }
            Ok(())
        },
    )?;
    move_to(usize::MAX, &mut current, printer, total, outcome)?;
    Ok(())
}

/// A search that moves the progress bar as it goes through a file (every 4 MiB), not only at
/// its end.
struct Moving<'s, 'a> {
    search: &'s mut Search<'a>,
    progress: &'s Progress,
    /// Byte position reported so far.
    reported: u64,
    /// The piece searched: once an earlier piece walked past its cut (and so through this
    /// one), this one stops, its output dropped anyway.
    piece: Option<&'s Part>,
}

/// How far into a file the bar is moved at a time.
const PROGRESS_STEP: u64 = 4 << 20;

impl LogSink for Moving<'_, '_> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        if self.piece.is_some_and(Part::is_void) {
            return Ok(Flow::Stop);
        }
        if position >= self.reported + PROGRESS_STEP {
            self.progress.advance(position - self.reported);
            self.reported = position;
        }
        self.search.batch(position, entry, info)
    }
    #[inline]
    fn records_may_match(&mut self, position: u64, info: &BatchInfo, records: &[u8]) -> bool {
        self.search.records_may_match(position, info, records)
    }
    #[inline]
    fn record(&mut self, position: u64, info: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        self.search.record(position, info, r)
    }
    fn control_record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.search.control_record(position, info, r, control)
    }
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        self.search.problem(problem)
    }
    fn batch_done(&mut self, position: u64, info: &BatchInfo) -> io::Result<Flow> {
        self.search.batch_done(position, info)
    }
    fn filtered(&mut self, last_offset: i64) {
        self.search.filtered(last_offset)
    }
}
