//! `kseg grep`: read the arguments into an [`analysis::grep::Filter`](Filter), discover the
//! inputs as dump-log does, and run a [`Search`] over each partition's segments with the one
//! scan loop, printing with [`GrepPrinter`]. Each partition's transactions are walked with it
//! ([`TxnView`]: the `.txnindex` aborts, and the open transactions when the filter needs them);
//! `--from-time`/`--from-offset` start each segment where its indexes allow, what a time seek
//! skips checked from the batch headers ([`seek_in_segment`]); `--key` searches every partition
//! unless `--partitioner` names the producer's partitioner (`place_key`); `--threads N`
//! searches the parts in parallel (`parallel`, as dump-log's), written in order. What the run
//! has to say besides its matches is gathered as typed notes (`Notes`, [`GrepNote`]) and said
//! once, at its end.
//!
//! Exit status as grep's: 0 something matched, 1 nothing matched, 2 trouble (a path that could
//! not be read, or data problems). `main` turns an [`Outcome`] into the exit code, so "nothing
//! matched" travels as [`Outcome::DataProblems`] (1) and trouble as [`Outcome::Failed`] (2).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::parallel::{self, LazyPieces, Part, Received};
use super::{discover_inputs, Outcome, Reads, TimeFlags};
use crate::analysis::grep::{
    key_placements, parse_hex, partition_count, placed_by_partitioner, placed_there,
    seek_in_segment, Filter, Glob, GrepNote, HeaderFilter, JsonField, KeyPlacement, Pattern, Place,
    Search, SearchStats, Seek, StaleTimeEntry,
};
use crate::analysis::partitioner::Partitioner;
use crate::analysis::topic_configs::partition_counts;
use crate::analysis::transactions::{open_transaction_starts, TxnState, TxnView};
use crate::cli::{GrepArgs, KeyPartitioner, RecordFilterArgs, TxnStateArg};
use crate::format::control::ControlRecord;
use crate::format::log::RecordScratch;
use crate::format::log::{BatchInfo, LogEntry, LogRecord};
use crate::format::reader::DecodeResult;
use crate::format::txn_index::{parse_txn_index, AbortedTxn};
use crate::print::grep::{GrepPrinter, GrepStyle, Mode};
use crate::print::progress::{self, Progress};
use crate::print::{report_error, write_stderr};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::{discover, DataSet, PartitionDir};
use crate::storage::layout::{base_offset_of, offset_file_name};
use crate::storage::layout::{parse_partition_dir, FileKind};
use crate::storage::source::read_small;
use crate::storage::source::{open_log, vanished, VANISHED};

/// The segments of one partition (or one file given outside a partition dir), in offset order.
pub(super) struct Group {
    pub(super) topic: Option<String>,
    pub(super) partition: Option<i32>,
    /// What stands for the partition when it has no name: the file's path.
    pub(super) name: String,
    pub(super) files: Vec<PathBuf>,
}

/// Whether a filter other than the value pattern was given: then a first argument naming an
/// existing file or dir is a PATH.
fn has_record_filter(a: &GrepArgs) -> bool {
    a.filter.key.is_some()
        || a.filter.key_hex.is_some()
        || a.filter.key_regex.is_some()
        || !a.filter.header.is_empty()
        || !a.filter.header_hex.is_empty()
        || !a.filter.json_field.is_empty()
        || !a.filter.topic.is_empty()
        || !a.filter.partition.is_empty()
        || a.filter.from_time.is_some()
        || a.filter.to_time.is_some()
        || a.filter.from_offset.is_some()
        || a.filter.to_offset.is_some()
        || a.filter.producer_id.is_some()
        || a.filter.producer_epoch.is_some()
        || a.filter.committed
        || !a.filter.txn_state.is_empty()
        || a.filter.control
        || a.filter.no_control
}

/// The value pattern (if any), the paths, and the note saying a first argument was read as the
/// pattern while filters were given. The pattern is `-e`'s (or `--value-hex`: then every
/// argument is a path); else, of two or more arguments, the first — unless a filter is given
/// and it names an existing file or dir, when it is a path. An argument that could be a path is
/// never taken as a pattern without a word: without a filter, a first argument naming a file or
/// dir is refused (give the pattern with -e, or a filter).
fn pattern_and_paths(a: &GrepArgs) -> Result<(Option<String>, Vec<PathBuf>, Option<GrepNote>)> {
    let mut args = a.args.clone();
    if a.filter.regexp.is_some() || a.filter.value_hex.is_some() {
        return Ok((
            a.filter.regexp.clone(),
            args.into_iter().map(PathBuf::from).collect(),
            None,
        ));
    }
    let filtered = has_record_filter(a);
    let names_a_path = args
        .first()
        .is_some_and(|p| std::fs::symlink_metadata(p).is_ok());
    if filtered && (args.len() == 1 || names_a_path) {
        return Ok((None, args.into_iter().map(PathBuf::from).collect(), None));
    }
    if args.len() < 2 {
        bail!(
            "give a PATTERN and a PATH (or a filter such as --key, --header or --from-time, \
             and a PATH)"
        );
    }
    let first: OsString = args.remove(0);
    if names_a_path {
        bail!(
            "{first:?} names a file or dir: is it the PATTERN or a PATH?\n  give a pattern with \
             -e PATTERN; with a filter (--key, --header, ...) every argument is a PATH"
        );
    }
    let pattern = first
        .into_string()
        .map_err(|p| anyhow::anyhow!("the pattern {p:?} is not UTF-8"))?;
    let note = filtered.then(|| GrepNote::PatternNotAPath {
        pattern: pattern.clone(),
    });
    Ok((
        Some(pattern),
        args.into_iter().map(PathBuf::from).collect(),
        note,
    ))
}

/// `--key` or `--key-hex`: the key's bytes.
fn key_of(a: &RecordFilterArgs) -> Result<Option<Vec<u8>>> {
    Ok(match (&a.key, &a.key_hex) {
        (Some(k), _) => Some(k.as_bytes().to_vec()),
        (None, Some(h)) => Some(parse_hex(h).map_err(|e| anyhow::anyhow!("--key-hex: {e}"))?),
        (None, None) => None,
    })
}

/// The filter the arguments describe.
pub fn filter_of(a: &RecordFilterArgs, pattern: Option<&str>, times: &TimeFlags) -> Result<Filter> {
    let value = match &a.value_hex {
        Some(h) => Some(Pattern::fixed_bytes(
            &parse_hex(h).map_err(|e| anyhow::anyhow!("--value-hex: {e}"))?,
        )),
        None => pattern
            .map(|p| Pattern::new(p, a.fixed_strings))
            .transpose()
            .context("PATTERN")?,
    };
    let key_regex = a
        .key_regex
        .as_deref()
        .map(regex::bytes::Regex::new)
        .transpose()
        .context("--key-regex")?;
    let mut headers: Vec<HeaderFilter> = a.header.iter().map(|h| HeaderFilter::parse(h)).collect();
    for h in &a.header_hex {
        headers.push(HeaderFilter::parse_hex(h).map_err(anyhow::Error::msg)?);
    }
    Ok(Filter {
        value,
        key: key_of(a)?,
        key_regex,
        headers,
        json_fields: a
            .json_field
            .iter()
            .map(|f| JsonField::parse(f))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!(e))?,
        from_time: times.read("--from-time", a.from_time.as_deref())?,
        to_time: times.read("--to-time", a.to_time.as_deref())?,
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
pub(super) fn indexed_aborts(files: &[PathBuf]) -> (Vec<AbortedTxn>, bool) {
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

/// What the notes of a run gather from its partitions, said once at its end
/// ([`Notes::finish`]), each kind listing its partitions.
#[derive(Default)]
struct Notes {
    unindexed: Vec<(Place, i64, i64)>,
    unended: Vec<(Place, i64, i64)>,
    last_stable: Vec<(Place, i64, i64)>,
    /// `--key` found (without `--partitioner`): where, and what places it there.
    key_found: Vec<(String, i32, u32, Vec<Partitioner>)>,
    /// Any match at all where the key was placed by `--partitioner`.
    matched: bool,
}

impl Group {
    fn place(&self) -> Place {
        Place {
            topic: self.topic.clone(),
            partition: self.partition,
            name: self.name.clone(),
        }
    }
}

impl Notes {
    /// A partition's transaction findings, and its `--key` matches.
    fn partition_done(
        &mut self,
        g: &Group,
        matches: u64,
        unindexed: &[(i64, i64)],
        mut unended: Vec<(i64, i64)>,
        ctx: &Ctx<'_>,
    ) {
        let here = g.place();
        for &(offset, producer) in unindexed {
            self.unindexed.push((here.clone(), offset, producer));
        }
        unended.sort_by_key(|&(p, last)| (last, p));
        for (producer, last) in unended {
            self.unended.push((here.clone(), producer, last));
        }
        self.matched |= matches > 0;
        let (Some(key), Some(topic), Some(partition)) = (&ctx.filter.key, &g.topic, g.partition)
        else {
            return;
        };
        if matches == 0 || ctx.partitioner.is_some() || !placed_by_partitioner(topic) {
            return;
        }
        if let Some((n, _)) = partition_count(topic, ctx.args.partitions, &ctx.recorded) {
            let by = placed_there(key, partition, n);
            self.key_found.push((topic.clone(), partition, n, by));
        }
    }

    /// The notes of the run's end, in a fixed order: `stale`, the `.timeindex` entries the
    /// seeks found lying; `partitioner` and `pruned`, `--partitioner` and whether it left
    /// partitions out.
    fn finish<W: io::Write>(
        self,
        mut stale: Vec<(PathBuf, StaleTimeEntry)>,
        (partitioner, pruned): (Option<Partitioner>, bool),
        total: &SearchStats,
        printer: &mut GrepPrinter<W>,
    ) -> io::Result<()> {
        if !self.last_stable.is_empty() {
            printer.note(&GrepNote::LastStable(self.last_stable))?;
        }
        if !self.unindexed.is_empty() {
            printer.note(&GrepNote::UnindexedAborts(self.unindexed))?;
        }
        if !self.unended.is_empty() {
            printer.note(&GrepNote::UnendedIndexEntries(self.unended))?;
        }
        stale.sort_by(|a, b| a.0.cmp(&b.0));
        if !stale.is_empty() {
            printer.note(&GrepNote::StaleTimeIndex(stale))?;
        }
        if total.uncompared > 0 {
            printer.note(&GrepNote::Uncompared {
                records: total.uncompared,
            })?;
        }
        if !self.key_found.is_empty() {
            printer.note(&GrepNote::KeyFound {
                places: self.key_found,
            })?;
        }
        if let Some(partitioner) = partitioner {
            if !self.matched && pruned {
                printer.note(&GrepNote::PrunedNothingFound { partitioner })?;
            }
        }
        Ok(())
    }
}

/// The partitions and files to search, in input order. In dirs, live `.log` segments; a file
/// given on its own is searched whatever its log-data kind (a `.deleted` segment, a snapshot).
pub(super) fn groups_of(set: &DataSet) -> Vec<Group> {
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

/// `--partitioner`: the key's placement in each topic searched, said in one note (with one
/// for a `--partitions` that differs from `__cluster_metadata`), and only the partition it maps
/// to kept in `groups` (every partition of a topic whose count is not known, or where the
/// partitioner places the key at random). Whether anything was pruned.
fn place_key<W: io::Write>(
    args: &GrepArgs,
    key: &[u8],
    partitioner: Partitioner,
    recorded: &HashMap<String, u32>,
    groups: &mut Vec<Group>,
    printer: &mut GrepPrinter<W>,
) -> Result<bool> {
    let topics: BTreeSet<&str> = groups
        .iter()
        .filter(|g| g.partition.is_some())
        .filter_map(|g| g.topic.as_deref())
        .collect();
    let placements = key_placements(key, partitioner, topics, args.partitions, recorded);
    if let Some(given) = args.partitions {
        let differ: Vec<(String, u32)> = placements
            .iter()
            .filter_map(|p| Some((p.topic.clone(), *recorded.get(&p.topic)?)))
            .filter(|&(_, m)| m != given)
            .collect();
        if !differ.is_empty() {
            printer.note(&GrepNote::PartitionsDiffer {
                given,
                recorded: differ,
            })?;
        }
    }
    let held = |p: &KeyPlacement| {
        groups
            .iter()
            .any(|g| g.topic.as_deref() == Some(&p.topic) && g.partition == p.partition)
    };
    let topics: Vec<(KeyPlacement, bool)> = placements
        .iter()
        .map(|p| (p.clone(), p.partition.is_some() && held(p)))
        .collect();
    printer.note(&GrepNote::KeyPruned {
        partitioner,
        topics,
    })?;
    let before = groups.len();
    groups.retain(|g| {
        let placed = placements
            .iter()
            .find(|p| g.partition.is_some() && g.topic.as_deref() == Some(&p.topic));
        placed.is_none_or(|p| p.partition.is_none_or(|m| g.partition == Some(m)))
    });
    Ok(groups.len() < before)
}

/// `--topic` and `--partition`: the partitions kept (a file outside a partition dir has neither,
/// and is left out by either).
pub(super) fn select_partitions(args: &RecordFilterArgs, groups: &mut Vec<Group>) -> Result<()> {
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
    style: GrepStyle,
    mode: Mode,
    progress: &'a Progress,
    seeking: bool,
    /// `--partitioner`, and whether it left partitions out.
    partitioner: Option<Partitioner>,
    pruned: bool,
    /// The partition counts `__cluster_metadata` records.
    recorded: HashMap<String, u32>,
    /// `.timeindex` entries a seek found below the records they cover (the plan seeks on
    /// whichever thread pulls it).
    stale: std::sync::Mutex<Vec<(PathBuf, StaleTimeEntry)>>,
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
        let seek = seek_in_segment(&g.files[k], self.filter.from_time, self.filter.from_offset);
        if let Some(stale) = seek.stale {
            self.stale
                .lock()
                .expect("not poisoned")
                .push((g.files[k].clone(), stale));
        }
        Some(seek)
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
        // A piece reads the file opened when its pieces were planned (a live broker may have
        // deleted or renamed it since); one thread opens it here.
        let opened = match piece {
            Some(p) => p.open(file, self.args.read.mmap),
            None => open_log(file, self.args.read.mmap),
        };
        let result = opened.and_then(|mut src| {
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

/// What is printed after a partition was searched (`-c`'s count), and what its notes gather.
fn close_group<W: io::Write>(
    g: &Group,
    matches: u64,
    unindexed: &[(i64, i64)],
    unended: Vec<(i64, i64)>,
    ctx: &Ctx<'_>,
    notes: &mut Notes,
    printer: &mut GrepPrinter<W>,
) -> io::Result<()> {
    notes.partition_done(g, matches, unindexed, unended, ctx);
    if ctx.mode == Mode::Count {
        printer.count(matches)?;
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
#[allow(clippy::too_many_arguments)]
fn open_group<W: io::Write>(
    g: &Group,
    inputs: &TxnInputs,
    lines: &[String],
    filter: &Filter,
    notes: &mut Notes,
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
        if let Some((producer, first)) = inputs.view().first_open() {
            notes.last_stable.push((g.place(), producer, first));
        }
    }
    Ok(())
}

pub fn run(args: GrepArgs) -> Result<Outcome> {
    let (pattern, paths, pattern_note) = pattern_and_paths(&args)?;
    let times = TimeFlags::new(&args.filter.tz)?;
    let filter = filter_of(&args.filter, pattern.as_deref(), &times)?;
    let partitioner = args.partitioner.map(|p| match p {
        KeyPartitioner::Murmur2 => Partitioner::Murmur2,
        KeyPartitioner::Crc32 => Partitioner::Crc32,
        KeyPartitioner::Fnv1a => Partitioner::Fnv1a,
    });
    if partitioner.is_some() && filter.key.is_none() {
        bail!("--partitioner places a key: give --key or --key-hex");
    }
    let (set, mut outcome) = discover_inputs(&paths, "grep", Reads::LogData)?;
    let mut groups = groups_of(&set);
    select_partitions(&args.filter, &mut groups)?;
    let mode = if args.count {
        Mode::Count
    } else if args.files_with_matches {
        Mode::Files
    } else {
        Mode::Records
    };
    let style = GrepStyle {
        json: args.json,
        encoding: args.encoding.into(),
        mode,
        zone: times.shown_in(),
        include_zero: args.include_zero,
        annotate: true,
    };
    let stdout = io::stdout();
    let mut printer = GrepPrinter::new(stdout.lock(), &style);
    if let Some(note) = &pattern_note {
        printer.note(note)?;
    }
    // The counts only a key's notes and --partitioner need (a read of __cluster_metadata).
    let recorded = if filter.key.is_some() {
        recorded_partition_counts(&set)
    } else {
        HashMap::new()
    };
    let pruned = match (partitioner, &filter.key) {
        (Some(p), Some(key)) => place_key(&args, key, p, &recorded, &mut groups, &mut printer)?,
        _ => false,
    };
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
        style,
        mode,
        progress: &progress,
        seeking: !args.no_prune && (filter.from_time.is_some() || filter.from_offset.is_some()),
        partitioner,
        pruned,
        recorded,
        stale: Default::default(),
    };
    let mut total = SearchStats::default();
    let mut notes = Notes::default();
    // A match budget (-m, -l) runs through a partition's segments in order: one thread.
    let threads = args.threads.count();
    if threads > 1 && args.max_count.is_none() && mode != Mode::Files {
        search_parallel(
            &ctx,
            threads,
            &mut notes,
            &mut printer,
            &mut total,
            &mut outcome,
        )?;
    } else {
        search_in_order(&ctx, &mut notes, &mut printer, &mut total, &mut outcome)?;
    }
    let Ctx {
        stale,
        partitioner,
        pruned,
        ..
    } = ctx;
    progress.finish();
    let stale = stale.into_inner().expect("not poisoned");
    notes.finish(stale, (partitioner, pruned), &total, &mut printer)?;
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

/// A read error of a segment: stdout closing ends the run; a segment a live broker removed
/// since it was listed is noted (the dir moved on: not a failure, as dump-log says it);
/// anything else is reported.
fn read_failed(file: &Path, e: io::Error, outcome: &mut Outcome) -> Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Err(e.into());
    }
    if vanished(file, &e) {
        write_stderr(&format!("kseg: {}: {VANISHED}\n", file.display()));
        return Ok(());
    }
    report_error(file, None, &format!("cannot read: {e}"));
    *outcome = Outcome::Failed;
    Ok(())
}

/// One thread: partition after partition, segment after segment.
fn search_in_order<W: io::Write>(
    ctx: &Ctx<'_>,
    notes: &mut Notes,
    printer: &mut GrepPrinter<W>,
    total: &mut SearchStats,
    outcome: &mut Outcome,
) -> Result<()> {
    let mut scratch = RecordScratch::with_cap(ctx.args.read.max_decompressed_bytes);
    for g in ctx.groups {
        let (inputs, lines) = group_inputs(ctx.filter, g, &mut scratch);
        open_group(
            g, &inputs, &lines, ctx.filter, notes, printer, total, outcome,
        )?;
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
            notes,
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
                    let pieces = LazyPieces::from(self.file, path, seek.position, split)
                        .mapped(ctx.args.read.mmap);
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
    notes: &mut Notes,
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
                       notes: &mut Notes,
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
            close_group(g, c.matches, &c.unindexed, c.unended, ctx, notes, printer)?;
        }
        while next_group <= to && next_group < ctx.groups.len() {
            let gi = next_group;
            next_group += 1;
            let g = &ctx.groups[gi];
            let (inp, lines) = &inputs[gi];
            open_group(g, inp, lines, ctx.filter, notes, printer, total, outcome)?;
            if gi < to {
                close_group(g, 0, &[], Vec::new(), ctx, notes, printer)?;
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
            let mut p = GrepPrinter::new(out, &ctx.style);
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
            move_to(gp.group, &mut current, notes, printer, total, outcome)?;
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
    move_to(usize::MAX, &mut current, notes, printer, total, outcome)?;
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
