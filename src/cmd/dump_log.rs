//! `kseg dump-log`: discover the inputs, scan every file, print it as text or NDJSON.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{json, Map, Value};

use super::parallel::{self, LazyPieces, Part, Received};
use super::{discover_inputs, Outcome, Reads};
use crate::analysis::dump::{DumpFeed, SeamHook};
use crate::analysis::gaps::OffsetGaps;
use crate::analysis::index_check::{last_offset_at, TimeIndexCheck};
use crate::analysis::severity::{log_damage, LogDamage, Nature, Severity};
use crate::cli::DumpLogArgs;
use crate::format::control::ControlRecord;
use crate::format::index::{OffsetIndex, SanityError, TimeIndex};
use crate::format::internal::InternalDecoder;
use crate::format::json_text::JsonValue;
use crate::format::log::{BatchInfo, LogEntry, LogRecord};
use crate::format::log::{ByteSource, RecordScratch};
use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::reader::DecodeResult;
use crate::format::text_files::{
    check_checkpoint, for_each_checkpoint_entry, parse_clean_shutdown, parse_partition_metadata,
    parse_properties, parse_quorum_state,
};
use crate::format::txn_index::parse_txn_index;
use crate::print::dump_json::JsonDump;
use crate::print::dump_text::{preallocated_note, TextDump, TextStyle};
use crate::print::progress::{self, Progress};
use crate::print::{self, DumpPrinter, DumpSummary, TextDeferred};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, PastCut, ScanOptions};
use crate::storage::discover::DataFile;
use crate::storage::layout::{base_offset_of, later_segment_exists, FileKind};
use crate::storage::source::{
    open_log, read_small, starts_with_a_batch, vanished, FileSource, VANISHED,
};

/// Index and snapshot files are read whole; a preallocated index is 10 MiB, so 1 GiB is
/// generous while still refusing absurd files.
const SMALL_FILE_LIMIT: u64 = 1 << 30;

pub fn run(args: DumpLogArgs) -> Result<Outcome> {
    let mut paths = args.paths.clone();
    paths.extend(args.files.iter().cloned());
    if paths.is_empty() {
        anyhow::bail!("no input: give files, partition dirs or log dirs (or --files a,b)");
    }
    let times = super::TimeFlags::new(&args.tz)?;
    let from_time = times.read("--from-timestamp", args.from_timestamp.as_deref())?;
    let to_time = times.read("--to-timestamp", args.to_timestamp.as_deref())?;
    let (set, mut outcome) = discover_inputs(&paths, "dump-log", Reads::AnyKafkaFile)?;
    let stdout = io::stdout();
    let out = stdout.lock();
    let forced_decoder = if args.offsets_decoder {
        Some(InternalDecoder::Offsets)
    } else if args.transaction_log_decoder {
        Some(InternalDecoder::TransactionLog)
    } else if args.cluster_metadata_decoder {
        Some(InternalDecoder::ClusterMetadata)
    } else if args.share_group_state_decoder {
        Some(InternalDecoder::ShareGroupState)
    } else if args.remote_log_metadata_decoder {
        Some(InternalDecoder::RemoteLogMetadata)
    } else {
        None
    };
    let print_data = forced_decoder.is_some()
        || args.print_data_log
        || args.key_decoder_class.is_some()
        || args.value_decoder_class.is_some();
    let style = TextStyle {
        print_data,
        skip_record_metadata: args.skip_record_metadata,
        verify_only: args.verify_index_only,
    };
    let mut printer: Box<dyn DumpPrinter> = if args.json {
        Box::new(JsonDump::new(out, args.encoding.into()))
    } else {
        Box::new(TextDump::new(out, style))
    };
    let scan = ScanOptions {
        deep: args.deep_iteration || print_data,
        max_bytes: if args.max_bytes >= i32::MAX as u64 {
            u64::MAX
        } else {
            args.max_bytes
        },
        offsets: (
            args.from_offset.unwrap_or(i64::MIN),
            args.to_offset.unwrap_or(i64::MAX),
        ),
        timestamps: (from_time.unwrap_or(i64::MIN), to_time.unwrap_or(i64::MAX)),
        start_position: 0,
        check_crc: true,
        stop_at: None,
        past_cut: PastCut::GoOn,
    };
    // What discovery found unrecognised is named once here, never again as a dump error; a
    // file among them that starts with a batch is read as log data instead.
    let reported: HashSet<&Path> = set
        .unrecognised
        .iter()
        .filter(|u| !starts_with_a_batch(&u.path))
        .map(|u| u.path.as_path())
        .collect();
    let segments = log_segment_context(&set);
    let new_dumper = || Dumper {
        segments: &segments,
        reported: &reported,
        args: &args,
        scan: scan.clone(),
        scratch: RecordScratch::with_cap(args.read.max_decompressed_bytes),
        summary: DumpSummary::default(),
        budget: args.max_messages,
        forced_decoder,
        range: (0, None),
        last_offset: None,
        ran_past_cut: false,
        piece: None,
        open_log: None,
    };
    let mut dumper = new_dumper();
    for item in &set.unrecognised {
        if !reported.contains(item.path.as_path()) {
            continue;
        }
        printer.unrecognised(item)?;
        dumper.summary.unrecognised += 1;
        if item.foreign_layout.is_some() {
            outcome = outcome.worst(Outcome::DataProblems);
        }
    }
    // An offset or time range on a dir asks about records: only the .log segments that can hold
    // them are dumped (for a time range every .log: names say nothing about time), not every
    // index, snapshot and checkpoint of the dir, unless --all-files. Files named one by one are
    // dumped as asked.
    let offset_range = args.from_offset.is_some() || args.to_offset.is_some();
    let time_range = from_time.is_some() || to_time.is_some();
    let range = (offset_range || time_range) && !args.all_files;
    let (from, to) = scan.offsets;
    let mut files: Vec<&DataFile> = set.files.iter().collect();
    for dir in &set.log_dirs {
        if !range {
            files.extend(dir.files.iter());
        }
        for p in &dir.partitions {
            files.extend(dumped_files(&p.files, range, from, to));
        }
    }
    for p in &set.partitions {
        files.extend(dumped_files(&p.files, range, from, to));
    }
    // The dump streams to stdout: a bar only when stdout is not the terminal too.
    let progress = Progress::over_files(
        progress::wanted(true, true),
        files.iter().map(|f| f.path.as_path()),
    );
    let threads = args.threads.count();
    if threads > 1 {
        // A large `.log` is dumped in pieces only when nothing counts across them
        // (--max-messages and --max-bytes count from the file's start).
        // A later piece is rendered ahead only as far as its 8 MiB output queue holds: records
        // (~4 bytes out per byte in) need small pieces; headers alone fit in large ones, whose
        // cutting costs less.
        let piece_bytes = args
            .split_bytes
            .unwrap_or(if scan.deep { 2 << 20 } else { 32 << 20 });
        let split = (args.max_messages.is_none() && scan.max_bytes == u64::MAX)
            .then_some(piece_bytes.max(1));
        let files = &files;
        let plan = files.iter().enumerate().flat_map(move |(i, f)| {
            let large = split.filter(|&s| {
                effective(&f.kind).is_log_data()
                    && std::fs::metadata(&f.path).is_ok_and(|m| m.len() > s)
            });
            match large {
                Some(s) => Either::Pieces(LazyPieces::new(i, &f.path, s).mapped(args.read.mmap)),
                None => Either::Whole(std::iter::once(Part::whole(i))),
            }
        });
        // Each part on a worker, into a printer of the same kind; written here in order.
        let work = |kept: &mut Kept, part: &Part, out: parallel::Chunks<DumpNote>| {
            if part.is_void() {
                // Walked by an earlier piece that ran past its cut.
                return DumpNote::Done(Box::new(PartDone {
                    summary: DumpSummary::default(),
                    deferred: TextDeferred::default(),
                    last_offset: None,
                    ran_past_cut: false,
                    result: Ok(()),
                }));
            }
            let notes = out.notes();
            let mut printer: Box<dyn DumpPrinter> = if args.json {
                Box::new(JsonDump::handing_off(out, args.encoding.into()))
            } else {
                Box::new(TextDump::handing_off(out, style))
            };
            let file = files[part.file];
            let mut seam = |first| parallel::note(&notes, DumpNote::Seam(first));
            let mut d = new_dumper();
            d.scratch = std::mem::take(&mut kept.scratch);
            d.open_log = kept.open_log.take();
            d.piece = Some(part.clone());
            let mut result = d.dump_part(printer.as_mut(), file, part, &mut seam);
            kept.scratch = std::mem::take(&mut d.scratch);
            kept.open_log = d.open_log.take();
            if d.ran_past_cut {
                part.ran_past_cut();
            }
            if result.is_ok() {
                result = printer.flush_out().map_err(Into::into);
            }
            DumpNote::Done(Box::new(PartDone {
                summary: d.summary,
                deferred: printer.take_deferred(),
                last_offset: d.last_offset,
                ran_past_cut: d.ran_past_cut,
                result,
            }))
        };
        // The offset the file's records so far end at, for the seams between its pieces.
        let mut last_offset = -1i64;
        let init = || Kept {
            scratch: RecordScratch::with_cap(args.read.max_decompressed_bytes),
            open_log: None,
        };
        parallel::run(plan, threads, init, work, |part, received| {
            if part.is_void() {
                return Ok(());
            }
            match received {
                Received::Out(bytes) => printer.write_raw(bytes)?,
                Received::Err(line) => {
                    printer.flush_out()?;
                    print::write_stderr(&line);
                }
                Received::Note(DumpNote::Seam(first)) => {
                    // What one walk would have found on reaching this record.
                    if first != last_offset.wrapping_add(1) {
                        printer.resume_file(&files[part.file].path)?;
                        printer.gap(last_offset, first)?;
                    }
                }
                Received::Done(DumpNote::Done(done)) => {
                    let done = *done;
                    dumper.summary.add(&done.summary);
                    printer.add_deferred(done.deferred);
                    match done.last_offset {
                        Some(last) => last_offset = last,
                        // A first piece that read nothing: the file's name says where its
                        // records start.
                        None if part.first => {
                            last_offset = OffsetGaps::for_file(&files[part.file].path).last()
                        }
                        None => {}
                    }
                    if part.last || done.ran_past_cut {
                        progress.file_done(&files[part.file].path);
                    }
                    done.result?;
                }
                Received::Note(DumpNote::Done(_)) | Received::Done(DumpNote::Seam(_)) => {
                    unreachable!("a part's result comes last, its seams before")
                }
            }
            Ok(())
        })?;
    } else {
        for file in files {
            // --max-messages counts per file, as kafka-dump-log's only limit (--max-bytes) does.
            dumper.budget = args.max_messages;
            dumper.dump_file(printer.as_mut(), &file.path, &file.kind)?;
            progress.file_done(&file.path);
        }
    }
    progress.finish();
    printer.finish(&dumper.summary)?;
    // The one severity policy: a crash's torn or zero-filled active tail, which Kafka's next
    // load truncates, is not an error; damage Kafka keeps, and undecodable files, are.
    let summary = &dumper.summary;
    outcome = outcome.worst(Outcome::of_findings(
        summary.log_severity.into_iter().chain(
            (summary.errors > summary.log_problems).then_some(Nature::DamagedData.severity()),
        ),
    ));
    Ok(outcome)
}

/// Each `.log` of the partitions found: whether it is the partition's active segment, and
/// whether Kafka's next load recovers it (no clean-shutdown marker in its log dir, or the KRaft
/// metadata log; a partition dir given alone is read as after a crash).
fn log_segment_context(set: &crate::storage::discover::DataSet) -> HashMap<PathBuf, (bool, bool)> {
    let mut out = HashMap::new();
    let with_facts = set.log_dirs.iter().flat_map(|d| {
        let clean = crate::analysis::summary::log_dir_facts(d).clean_shutdown;
        d.partitions.iter().map(move |p| (p, clean))
    });
    for (p, clean) in with_facts.chain(set.partitions.iter().map(|p| (p, false))) {
        let recovered =
            !clean || crate::analysis::recovery::always_recovered(&p.name.topic, p.name.partition);
        let logs: Vec<&PathBuf> = p
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Log)
            .map(|f| &f.path)
            .collect();
        for (i, path) in logs.iter().enumerate() {
            out.insert((*path).clone(), (i + 1 == logs.len(), recovered));
        }
    }
    out
}

/// A partition dir's files to dump: all of them, or with an offset range `[from, to]` only the
/// `.log` segments that can hold an offset in it (a segment's offsets lie between its base
/// offset and the next segment's; the names say so without reading anything).
fn dumped_files(files: &[DataFile], range: bool, from: i64, to: i64) -> Vec<&DataFile> {
    if !range {
        return files.iter().collect();
    }
    let mut logs: Vec<(i64, &DataFile)> = files
        .iter()
        .filter(|f| f.kind == FileKind::Log)
        .map(|f| {
            let name = f.path.file_name().map(|n| n.to_string_lossy());
            let base = name.and_then(|n| base_offset_of(&n)).unwrap_or(i64::MIN);
            (base, f)
        })
        .collect();
    logs.sort_by_key(|(base, _)| *base);
    let mut out = Vec::new();
    for (i, (base, f)) in logs.iter().enumerate() {
        // Offsets below the next segment's base belong here (a segment whose name does not
        // parse is always kept).
        let next = logs.get(i + 1).map(|(b, _)| *b);
        let ends_before = next.is_some_and(|n| *base != i64::MIN && n <= from);
        if *base > to || ends_before {
            continue;
        }
        out.push(*f);
    }
    out
}

/// What a part's worker tells the writer ([`parallel::Piece::Note`], then its result).
enum DumpNote {
    /// The first record of a piece that starts mid-file: its offset.
    Seam(i64),
    Done(Box<PartDone>),
}

/// What a worker hands back after a part.
struct PartDone {
    summary: DumpSummary,
    deferred: TextDeferred,
    /// Where the part's records end ([`DumpFeed::last_offset`]).
    last_offset: Option<i64>,
    /// The piece's walk went on to the end of the file ([`Part::ran_past_cut`]).
    ran_past_cut: bool,
    result: Result<()>,
}

/// A file's parts: whole, or pieces cut as they are taken.
enum Either<'a> {
    Whole(std::iter::Once<Part>),
    Pieces(LazyPieces<'a>),
}

impl Iterator for Either<'_> {
    type Item = Part;
    fn next(&mut self) -> Option<Part> {
        match self {
            Either::Whole(one) => one.next(),
            Either::Pieces(pieces) => pieces.next(),
        }
    }
}

/// A file's kind, read through the `.deleted`/`.cleaned`/`.swap` suffixes.
fn effective(kind: &FileKind) -> &FileKind {
    match kind {
        FileKind::Deleted(inner) | FileKind::Cleaned(inner) | FileKind::Swap(inner) => {
            inner.as_ref()
        }
        other => other,
    }
}

struct Dumper<'a> {
    args: &'a DumpLogArgs,
    scan: ScanOptions,
    scratch: RecordScratch,
    summary: DumpSummary,
    /// Records (deep) or batches (shallow) still allowed by --max-messages in this file.
    budget: Option<u64>,
    forced_decoder: Option<InternalDecoder>,
    reported: &'a HashSet<&'a Path>,
    /// Each `.log` of a partition: (the partition's active segment, recovered at Kafka's next
    /// load), for grading its problems.
    segments: &'a HashMap<PathBuf, (bool, bool)>,
    /// The bytes of a log to dump: `start..end` (`None`: to its end); a piece of a large one
    /// with `--threads`.
    range: (u64, Option<u64>),
    /// Where the last log's records ended ([`DumpFeed::last_offset`]).
    last_offset: Option<i64>,
    /// The last piece's walk did not land on its end and went on to the end of the file.
    ran_past_cut: bool,
    /// The piece being dumped, with `--threads`.
    piece: Option<Part>,
    /// The last log read, kept open for its next piece (its read buffer reused).
    open_log: Option<(PathBuf, Box<dyn ByteSource>)>,
}

/// What a `--threads` worker keeps from part to part.
struct Kept {
    scratch: RecordScratch,
    open_log: Option<(PathBuf, Box<dyn ByteSource>)>,
}

/// Counts printed items against --max-messages and stops the scan when the budget is spent.
struct Budgeted<'p, S: LogSink> {
    inner: S,
    budget: &'p mut Option<u64>,
    deep: bool,
    /// The worst severity of the log's problems, and how they are graded: whether the file is
    /// its partition's active segment, and whether Kafka's next load recovers it.
    severity: &'p mut Option<Severity>,
    active: bool,
    recovered: bool,
    /// The piece being dumped: once an earlier piece walked past its cut (and so through this
    /// one), this one stops, its output dropped anyway.
    piece: Option<&'p Part>,
}

impl<S: LogSink> Budgeted<'_, S> {
    fn spend(&mut self) -> Flow {
        match self.budget {
            Some(0) => Flow::Stop,
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    Flow::Stop
                } else {
                    Flow::Continue
                }
            }
            None => Flow::Continue,
        }
    }
}

impl<S: LogSink> LogSink for Budgeted<'_, S> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, info: &BatchInfo) -> io::Result<Flow> {
        if *self.budget == Some(0) || self.piece.is_some_and(Part::is_void) {
            return Ok(Flow::Stop);
        }
        self.inner.batch(position, entry, info)?;
        Ok(if self.deep {
            Flow::Continue
        } else {
            self.spend()
        })
    }
    fn record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
    ) -> io::Result<Flow> {
        self.inner.record(position, info, record)?;
        Ok(self.spend())
    }
    fn control_record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
        control: &DecodeResult<ControlRecord>,
    ) -> io::Result<Flow> {
        self.inner.control_record(position, info, record, control)?;
        Ok(self.spend())
    }
    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        let nature = log_damage(LogDamage::of(problem), self.active, self.recovered);
        *self.severity = (*self.severity).max(Some(nature.severity()));
        self.inner.problem(problem)
    }
    fn filtered(&mut self, last_offset: i64) {
        self.inner.filtered(last_offset)
    }
}

impl Dumper<'_> {
    fn dump_file(
        &mut self,
        printer: &mut dyn DumpPrinter,
        path: &Path,
        kind: &FileKind,
    ) -> Result<()> {
        let effective = effective(kind);
        let unknown = matches!(effective, FileKind::Unknown | FileKind::Temporary);
        if unknown && self.reported.contains(path) {
            return Ok(());
        }
        self.summary.files += 1;
        let reads_as_log = unknown && starts_with_a_batch(path);
        if reads_as_log {
            // A file named otherwise (a copied segment, a capture) whose first bytes frame a
            // batch with a valid checksum: read it as log data.
            printer.begin_file(path, &FileKind::Log)?;
            if let Err(e) = self.dump_content(printer, path, &FileKind::Log, None) {
                self.summary.errors += 1;
                printer.file_error(None, &format!("cannot read: {e:#}"))?;
            }
            return Ok(());
        }
        if unknown {
            // A file given directly (discovery reports those it finds in dirs).
            self.summary.errors += 1;
            printer.begin_file(path, kind)?;
            printer.file_error(
                None,
                &format!("{}: not a file kseg can decode", kind.describe()),
            )?;
            self.summary.unrecognised += 1;
            return Ok(());
        }
        printer.begin_file(path, kind)?;
        self.dump_reported(printer, path, effective, None)
    }

    /// One part of a file: all of it, or a piece of a large `.log` (the first with the file's
    /// header lines; the others go on where the one before ended, and tell `seam` where their
    /// records start).
    fn dump_part(
        &mut self,
        printer: &mut dyn DumpPrinter,
        file: &DataFile,
        part: &Part,
        seam: SeamHook<'_>,
    ) -> Result<()> {
        self.range = (part.start, part.end);
        if part.first {
            return self.dump_file(printer, &file.path, &file.kind);
        }
        printer.resume_file(&file.path)?;
        self.dump_reported(printer, &file.path, effective(&file.kind), Some(seam))
    }

    /// [`Self::dump_content`], a failure reported as the file's error.
    fn dump_reported(
        &mut self,
        printer: &mut dyn DumpPrinter,
        path: &Path,
        kind: &FileKind,
        seam: Option<SeamHook<'_>>,
    ) -> Result<()> {
        if let Err(e) = self.dump_content(printer, path, kind, seam) {
            if e.downcast_ref::<io::Error>()
                .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            {
                return Err(e);
            }
            if e.downcast_ref::<io::Error>()
                .is_some_and(|io| vanished(path, io))
            {
                printer.note(VANISHED)?;
                return Ok(());
            }
            self.summary.errors += 1;
            printer.file_error(None, &format!("cannot read: {e:#}"))?;
        }
        Ok(())
    }

    /// The forced decoder, or the one the partition dir's topic calls for (`--raw` disables it).
    fn decoder_for(&self, path: &Path, kind: &FileKind) -> Option<InternalDecoder> {
        if self.forced_decoder.is_some() {
            return self.forced_decoder;
        }
        if self.args.raw {
            return None;
        }
        if matches!(
            kind,
            FileKind::KraftSnapshot { .. } | FileKind::BootstrapCheckpoint
        ) {
            return Some(InternalDecoder::ClusterMetadata);
        }
        let dir = path.parent()?.file_name()?.to_string_lossy().into_owned();
        let partition = crate::storage::layout::parse_partition_dir(&dir)?;
        InternalDecoder::for_topic(&partition.topic)
    }

    fn dump_content(
        &mut self,
        printer: &mut dyn DumpPrinter,
        path: &Path,
        kind: &FileKind,
        seam: Option<SeamHook<'_>>,
    ) -> Result<()> {
        let base =
            base_offset_of(&path.file_name().unwrap_or_default().to_string_lossy()).unwrap_or(0);
        match kind {
            k if k.is_log_data() => {
                // A piece that fails to read ends its file, as one walk's failure does: the
                // pieces after it are void (else they would print what follows the failure).
                self.ran_past_cut = true;
                let mut src = match self.open_log.take() {
                    Some((open, src)) if open == path => src,
                    // A piece reads the file opened when its pieces were planned.
                    _ => match &self.piece {
                        Some(piece) => piece.open(path, self.args.read.mmap)?,
                        None => open_log(path, self.args.read.mmap)?,
                    },
                };
                let deep = self.scan.deep;
                // A file outside a partition dir is read as its own partition after a crash,
                // as verify-index reads it.
                let (active, recovered) = self.segments.get(path).copied().unwrap_or((true, true));
                // The decoder its partition dir (or its kind) calls for.
                let decoder = self.decoder_for(path, kind);
                let feed = match seam {
                    None => DumpFeed::new(printer, path, decoder),
                    Some(seam) => DumpFeed::mid_file(printer, decoder, seam),
                };
                let mut scan = self.scan.clone();
                // A piece's walk ends where the next piece's begins, if it lands there (else it
                // goes on to the end of the file, as one walk over the file does from here).
                scan.start_position = self.range.0;
                scan.stop_at = self.range.1;
                let mut sink = Budgeted {
                    inner: feed,
                    budget: &mut self.budget,
                    deep,
                    severity: &mut self.summary.log_severity,
                    active,
                    recovered,
                    piece: self.piece.as_ref(),
                };
                let stats = scan_log(src.as_mut(), &scan, &mut self.scratch, &mut sink)?;
                self.last_offset = sink.inner.last_offset();
                self.ran_past_cut = stats.ran_past_cut;
                if self.range.1.is_some() && !stats.ran_past_cut {
                    // More pieces of this log follow.
                    self.open_log = Some((path.to_path_buf(), src));
                }
                self.summary.batches += stats.batches;
                self.summary.records += stats.records;
                self.summary.errors += stats.problems;
                self.summary.log_problems += stats.problems;
                if stats.crc_errors > 0 {
                    let crc = log_damage(LogDamage::Crc, active, recovered).severity();
                    self.summary.log_severity = self.summary.log_severity.max(Some(crc));
                }
                self.summary.crc_errors += stats.crc_errors;
                self.summary.invalid_bytes += stats.invalid_bytes;
            }
            FileKind::OffsetIndex => {
                let bytes = read_small(path, SMALL_FILE_LIMIT)?;
                let index = OffsetIndex::new(base, &bytes);
                if index.layout.slots == 0 {
                    return Ok(printer.index_empty()?);
                }
                if self.args.index_sanity_check {
                    return self.sanity(printer, index.sanity_check(), false, path);
                }
                let log = path.with_extension("log");
                let mut log_src = FileSource::open(&log).ok();
                let mut padding_mismatch = false;
                for (slot, entry) in index.entries().enumerate() {
                    if let Some(src) = log_src.as_mut() {
                        let found = last_offset_at(src, entry.position as u64)?;
                        if found != Some(entry.offset) {
                            printer.index_mismatch(entry.offset, found.unwrap_or(-1))?;
                            padding_mismatch |= slot == 0 && index.layout.real_entries == 0;
                        }
                    }
                    printer.index_entry(&entry)?;
                }
                if padding_mismatch && index.layout.zero_tail {
                    printer.note(&preallocated_note(
                        &index.layout,
                        bytes.len(),
                        later_segment_exists(path),
                    ))?;
                }
                self.index_layout(printer, path, &index.layout, 8)?;
            }
            FileKind::TimeIndex => {
                let bytes = read_small(path, SMALL_FILE_LIMIT)?;
                let index = TimeIndex::new(base, &bytes);
                if self.args.index_sanity_check {
                    return self.sanity(printer, index.sanity_check(), true, path);
                }
                // Kafka's checks need the sibling log (and offset index, for the start position).
                let log = path.with_extension("log");
                let offsets = read_small(&path.with_extension("index"), SMALL_FILE_LIMIT).ok();
                let offset_index = offsets.as_deref().map(|b| OffsetIndex::new(base, b));
                let mut check = FileSource::open(&log)
                    .ok()
                    .map(|src| TimeIndexCheck::new(src, offset_index));
                for entry in index.entries() {
                    if let Some(check) = check.as_mut() {
                        check
                            .check(&entry, &mut self.scratch, |p| printer.time_index_problem(p))?;
                    }
                    printer.time_index_entry(&entry)?;
                }
                self.index_layout(printer, path, &index.layout, 12)?;
            }
            FileKind::TxnIndex => {
                let bytes = read_small(path, SMALL_FILE_LIMIT)?;
                let (entries, partial) = parse_txn_index(&bytes);
                for entry in entries {
                    match entry {
                        Ok(t) => printer.aborted_txn(&t)?,
                        Err(e) => {
                            self.summary.errors += 1;
                            printer.file_error(Some(e.position), &e.message)?;
                        }
                    }
                }
                if let Some(at) = partial {
                    self.summary.errors += 1;
                    printer.file_error(
                        Some(at as u64),
                        &format!(
                            "partial entry of {} bytes (entries are 34 bytes)",
                            bytes.len() - at
                        ),
                    )?;
                }
            }
            FileKind::ProducerSnapshot => {
                let bytes = read_small(path, SMALL_FILE_LIMIT)?;
                match parse_producer_snapshot(&bytes) {
                    Ok(s) => {
                        if !s.crc_valid {
                            self.summary.errors += 1;
                            printer.file_error(
                                Some(2),
                                &format!("snapshot CRC {} does not match its contents", s.crc),
                            )?;
                        }
                        for e in &s.entries {
                            printer.producer_entry(e)?;
                        }
                    }
                    Err(e) => {
                        self.summary.errors += 1;
                        printer.file_error(Some(e.position), &e.message)?;
                    }
                }
            }
            FileKind::LeaderEpochCheckpoint
            | FileKind::RecoveryPointCheckpoint
            | FileKind::LogStartOffsetCheckpoint
            | FileKind::ReplicationOffsetCheckpoint
            | FileKind::CleanerOffsetCheckpoint => {
                let text = read_text(path)?;
                let epochs = *kind == FileKind::LeaderEpochCheckpoint;
                // Checked whole, then printed entry by entry: nothing is kept per entry.
                match check_checkpoint(&text, epochs) {
                    Ok(_) => {
                        let mut result = Ok(());
                        let _ = for_each_checkpoint_entry(&text, epochs, |e| {
                            if result.is_ok() {
                                result = printer.checkpoint_entry(&e);
                            }
                        });
                        result?;
                    }
                    Err(e) => {
                        self.summary.errors += 1;
                        printer.file_error(Some(e.position), &e.message)?;
                    }
                }
            }
            FileKind::PartitionMetadata => match parse_partition_metadata(&read_text(path)?) {
                Ok(m) => {
                    printer.file_content(&json!({"version": m.version, "topic_id": m.topic_id}))?
                }
                Err(e) => {
                    self.summary.errors += 1;
                    printer.file_error(Some(e.position), &e.message)?;
                }
            },
            FileKind::MetaProperties => {
                let props: Map<String, Value> = parse_properties(&read_text(path)?)
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                printer.file_content(&Value::Object(props))?;
            }
            FileKind::CleanShutdown | FileKind::QuorumState => {
                let text = read_text(path)?;
                let members = if *kind == FileKind::CleanShutdown {
                    parse_clean_shutdown(&text).map(|c| c.members)
                } else {
                    parse_quorum_state(&text).map(|q| q.members)
                };
                match members {
                    Ok(members) => printer.file_content(&json_object(&members))?,
                    Err(e) => {
                        self.summary.errors += 1;
                        printer.file_error(Some(e.position), &e.message)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// An index's layout problem: a partial entry at the end of the active segment's index is
    /// one being written (a running broker appends entry by entry, and a copy taken meanwhile
    /// holds part of one), said as a note; anywhere else it is damage (Kafka's `sanityCheck`
    /// refuses the file).
    fn index_layout(
        &mut self,
        printer: &mut dyn DumpPrinter,
        path: &Path,
        layout: &crate::format::index::IndexLayout,
        entry_size: usize,
    ) -> Result<()> {
        let Some(e) = crate::format::index::describe_layout(layout, entry_size) else {
            return Ok(());
        };
        let active = self
            .segments
            .get(&path.with_extension("log"))
            .is_some_and(|&(active, _)| active);
        if active {
            printer.note(&crate::print::dump_text::partial_active_entry_note(
                layout.partial_bytes,
                entry_size,
            ))?;
        } else {
            self.summary.errors += 1;
            printer.file_error(Some(e.position), &e.message)?;
        }
        Ok(())
    }

    /// Kafka throws `CorruptIndexException` and stops the whole run; kseg reports the same
    /// message for the file and goes on with the next one.
    fn sanity(
        &mut self,
        printer: &mut dyn DumpPrinter,
        result: Result<(), SanityError>,
        time: bool,
        path: &Path,
    ) -> Result<()> {
        match result {
            Ok(()) => printer.sanity_passed()?,
            Err(e) => {
                self.summary.errors += 1;
                printer.file_error(
                    None,
                    &crate::print::dump_text::sanity_message(&e, time, path),
                )?;
            }
        }
        Ok(())
    }
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = read_small(path, 64 << 20)?;
    String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

/// A JSON file's members as the printers' JSON value, in file order.
fn json_object(members: &[(String, JsonValue)]) -> Value {
    Value::Object(
        members
            .iter()
            .map(|(k, v)| (k.clone(), json_value(v)))
            .collect(),
    )
}

fn json_value(v: &JsonValue) -> Value {
    match v {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::UInt(n) => Value::from(*n),
        JsonValue::Int(n) => Value::from(*n),
        // Finite: the reader refuses numbers out of range.
        JsonValue::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        JsonValue::String(s) => Value::String(s.clone()),
        JsonValue::Array(items) => Value::Array(items.iter().map(json_value).collect()),
        JsonValue::Object(members) => json_object(members),
    }
}
