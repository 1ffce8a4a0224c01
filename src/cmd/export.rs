//! `kseg export`: grep's filter ([`filter_of`]) over the inputs discovered as grep discovers
//! them, each partition's segments walked in order by the one scan loop with an
//! [`ExportWalk`] (grep's [`Search`] and its transaction walk, the batches beside it), rows
//! written by `print::export` as a Hive-style dataset with a manifest.
//!
//! Exit status as dump-log's: 0 everything read cleanly, 1 data problems (reported on stderr,
//! listed in the manifest, the rest exported), 2 trouble (an unreadable path).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::diff::node_id;
use super::grep::{filter_of, groups_of, indexed_aborts, select_partitions, Group};
use super::{discover_inputs, resolved_path, Outcome, Reads, TimeFlags};
use crate::analysis::export::{BatchRows, ExportWalk};
use crate::analysis::grep::{seek_in_segment, Filter, Glob, Search, SearchStats, Seek};
use crate::analysis::groups::{replay, CommitEvent, ReplayOptions};
use crate::analysis::transactions::{open_transaction_starts, TxnView};
use crate::cli::{ExportArgs, ExportCompression, ExportFormat, ExportTable, RecordFilterArgs};
use crate::format::log::RecordScratch;
use crate::print::export::manifest::{write_manifest, ManifestFacts, Source};
use crate::print::export::{
    BatchesOut, OffsetsOut, PageCodec, RecordsOut, TableFormat, WriteOptions,
};
use crate::print::progress::{self, Progress};
use crate::print::{report_error, write_stderr};
use crate::scan::{scan_log, ScanOptions};
use crate::storage::discover::{DataSet, PartitionDir};
use crate::storage::layout::base_offset_of;
use crate::storage::source::open_log;

/// The output dir, created: refused when it holds anything, or lies inside an input (the input
/// is never written) or an input inside it.
fn prepare_out(out: &Path, inputs: &[PathBuf]) -> Result<PathBuf> {
    let resolved = resolved_path(out).with_context(|| format!("{}", out.display()))?;
    for input in inputs {
        let Ok(input) = resolved_path(input) else {
            continue;
        };
        if resolved.starts_with(&input) || input.starts_with(&resolved) {
            bail!(
                "--out {} overlaps the input {}: kseg never writes where it reads",
                out.display(),
                input.display()
            );
        }
    }
    if out.exists() {
        let mut entries = std::fs::read_dir(out).with_context(|| format!("{}", out.display()))?;
        if entries.next().is_some() {
            bail!(
                "--out {} is not empty: kseg export writes a new dataset (give an empty or new dir)",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
    Ok(resolved)
}

/// The broker whose log dir holds `g`: `meta.properties` beside its partition dir (or beside the
/// partition dir of a file given on its own).
fn broker_of(g: &Group) -> Option<i32> {
    let first = g.files.first()?;
    let partition_dir = first.parent()?;
    node_id(partition_dir.parent()?).or_else(|| node_id(partition_dir))
}

/// The filter flags given, as the manifest lists them.
fn filter_words(a: &RecordFilterArgs) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |flag: &str, v: Option<String>| {
        if let Some(v) = v {
            out.push(if v.is_empty() {
                flag.to_string()
            } else {
                format!("{flag} {v}")
            });
        }
    };
    add("--regexp", a.regexp.clone());
    add("--fixed-strings", a.fixed_strings.then(String::new));
    add("--value-hex", a.value_hex.clone());
    add("--key", a.key.clone());
    add("--key-hex", a.key_hex.clone());
    add("--key-regex", a.key_regex.clone());
    for h in &a.header {
        add("--header", Some(h.clone()));
    }
    for h in &a.header_hex {
        add("--header-hex", Some(h.clone()));
    }
    for j in &a.json_field {
        add("--json-field", Some(j.clone()));
    }
    for t in &a.topic {
        add("--topic", Some(t.clone()));
    }
    for p in &a.partition {
        add("--partition", Some(p.to_string()));
    }
    add("--from-time", a.from_time.clone());
    add("--to-time", a.to_time.clone());
    add("--tz", a.tz.tz.clone());
    add("--from-offset", a.from_offset.map(|o| o.to_string()));
    add("--to-offset", a.to_offset.map(|o| o.to_string()));
    add("--producer-id", a.producer_id.map(|o| o.to_string()));
    add("--producer-epoch", a.producer_epoch.map(|o| o.to_string()));
    add("--committed", a.committed.then(String::new));
    for s in &a.txn_state {
        add("--txn-state", Some(format!("{s:?}").to_lowercase()));
    }
    add("--control", a.control.then(String::new));
    add("--no-control", a.no_control.then(String::new));
    out
}

/// Where the walk of segment `k` of `g` starts; `None` when `--from-offset` rules all of it out
/// (the next segment starts at or below it).
fn seek(filter: &Filter, g: &Group, k: usize) -> Option<Seek> {
    if filter.from_time.is_none() && filter.from_offset.is_none() {
        return Some(Seek::default());
    }
    let next_base = g
        .files
        .get(k + 1)
        .and_then(|n| base_offset_of(&n.file_name().unwrap_or_default().to_string_lossy()));
    if filter
        .from_offset
        .is_some_and(|f| next_base.is_some_and(|n| n <= f))
    {
        return None;
    }
    Some(seek_in_segment(
        &g.files[k],
        filter.from_time,
        filter.from_offset,
    ))
}

/// The offsets table: the `__consumer_offsets` partitions among the inputs replayed as
/// `kseg groups --history` replays them, each committed topic-partition's commits in log order,
/// kept by `--topic` and `--partition` (the committed ones). Whether some record could not be
/// decoded.
fn export_offsets(set: &DataSet, args: &ExportArgs, out: &mut OffsetsOut) -> Result<bool> {
    let coordinators: Vec<&PartitionDir> = set
        .all_partitions()
        .filter(|p| p.name.topic == "__consumer_offsets")
        .collect();
    if coordinators.is_empty() {
        return Ok(false);
    }
    let brokers: HashMap<i32, Option<i32>> = coordinators
        .iter()
        .map(|p| (p.name.partition, p.path.parent().and_then(node_id)))
        .collect();
    let opts = ReplayOptions {
        filter: &[],
        history: true,
        rebalances: None,
        mmap: args.read.mmap,
        parallel: false,
    };
    let (replay, _) = replay(&coordinators, &opts, &|_| {})?;
    let globs = args
        .filter
        .topic
        .iter()
        .map(|g| Glob::new(g).with_context(|| format!("--topic {g:?}")))
        .collect::<Result<Vec<_>>>()?;
    let mut events: Vec<&CommitEvent> = replay
        .history
        .iter()
        .filter(|e| globs.is_empty() || globs.iter().any(|g| g.is_match(&e.topic)))
        .filter(|e| {
            args.filter.partition.is_empty() || args.filter.partition.contains(&e.partition)
        })
        .collect();
    // Stable: each topic-partition's commits stay in log order.
    events.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
    for chunk in events.chunk_by(|a, b| a.topic == b.topic && a.partition == b.partition) {
        let first = chunk[0];
        out.write_partition(
            &first.topic,
            first.partition,
            chunk
                .iter()
                .map(|e| (*e, brokers.get(&e.coordinator_partition).copied().flatten())),
        )?;
    }
    if !replay.undecodable.is_empty() {
        write_stderr(&format!(
            "kseg: {} __consumer_offsets records or segments could not be read into the offsets \
             table (kseg groups names them)\n",
            replay.undecodable.len()
        ));
    }
    Ok(!replay.undecodable.is_empty())
}

pub fn run(args: ExportArgs) -> Result<Outcome> {
    let times = TimeFlags::new(&args.filter.tz)?;
    let filter = filter_of(&args.filter, args.filter.regexp.as_deref(), &times)?;
    let (set, mut outcome) = discover_inputs(&args.paths, "export", Reads::LogData)?;
    let mut groups = groups_of(&set);
    select_partitions(&args.filter, &mut groups)?;
    let root = prepare_out(&args.out, &args.paths)?;
    let opts = WriteOptions {
        format: match args.format {
            ExportFormat::Parquet => TableFormat::Parquet,
            ExportFormat::Arrow => TableFormat::Arrow,
            ExportFormat::Ndjson => TableFormat::Ndjson,
        },
        codec: match args.compression {
            ExportCompression::None => PageCodec::None,
            ExportCompression::Snappy => PageCodec::Snappy,
            ExportCompression::Zstd => PageCodec::Zstd,
        },
        batch_rows: args.row_group_rows.min(usize::MAX as u64) as usize,
        row_group_bytes: (args.row_group_mib << 20) as usize,
    };
    let mut records = RecordsOut::new(&root, &opts);
    let mut batches = args
        .tables
        .contains(&ExportTable::Batches)
        .then(|| BatchesOut::new(&root, &opts));
    let want_records = args.tables.contains(&ExportTable::Records);
    let progress = Progress::over_files(
        progress::wanted(true, false),
        groups
            .iter()
            .flat_map(|g| g.files.iter().map(PathBuf::as_path)),
    );
    let mut scratch = RecordScratch::with_cap(args.read.max_decompressed_bytes);
    let mut total = SearchStats::default();
    let mut sources = Vec::new();
    let mut segments = 0u64;
    for g in &groups {
        let broker = broker_of(g);
        sources.push(Source {
            path: PathBuf::from(&g.name),
            broker,
        });
        let (aborted, trouble) = indexed_aborts(&g.files);
        if trouble {
            outcome = outcome.worst(Outcome::DataProblems);
        }
        // Every record's transaction outcome is a column: the open transactions are always
        // found (a pass over the batch headers first).
        let open = match open_transaction_starts(g.files.iter().map(PathBuf::as_path), &mut scratch)
        {
            Ok(o) => Some(o),
            Err(e) => {
                report_error(Path::new(&g.name), None, &format!("cannot read: {e}"));
                outcome = Outcome::Failed;
                None
            }
        };
        let mut txns = TxnView::new(aborted, open, i64::MIN);
        records.begin_partition(g.topic.as_deref(), g.partition, broker);
        if let Some(b) = batches.as_mut() {
            b.begin_partition(g.topic.as_deref(), g.partition, broker);
        }
        for (k, file) in g.files.iter().enumerate() {
            let Some(seek) = seek(&filter, g, k) else {
                txns.resume();
                progress.file_done(file);
                continue;
            };
            if seek.position > 0 {
                txns.resume();
            }
            segments += 1;
            records.set_file(file);
            if let Some(b) = batches.as_mut() {
                b.set_file(file);
            }
            let mut search = Search::new(&filter, &mut records);
            search.txns = Some(&mut txns);
            search.prune = !args.no_prune;
            let mut walk = ExportWalk {
                search: &mut search,
                batches: batches.as_mut().map(|b| b as &mut dyn BatchRows),
            };
            // Only the batches table: no record is decoded.
            let scan = ScanOptions {
                deep: want_records,
                start_position: seek.position,
                ..ScanOptions::default()
            };
            let result = open_log(file, args.read.mmap)
                .and_then(|mut src| scan_log(src.as_mut(), &scan, &mut scratch, &mut walk));
            total.add(&search.stats);
            if let Err(e) = result {
                report_error(file, None, &format!("cannot read: {e}"));
                outcome = Outcome::Failed;
            }
            progress.file_done(file);
        }
        records.end_partition()?;
        if let Some(b) = batches.as_mut() {
            b.end_partition()?;
        }
    }
    progress.finish();
    let mut offsets = args
        .tables
        .contains(&ExportTable::Offsets)
        .then(|| OffsetsOut::new(&root, &opts));
    if let Some(o) = offsets.as_mut() {
        if export_offsets(&set, &args, o)? {
            outcome = outcome.worst(Outcome::DataProblems);
        }
    }
    if total.problems > 0 {
        outcome = outcome.worst(Outcome::DataProblems);
    }
    let mut tables = Vec::new();
    if want_records {
        tables.push(records.table());
    }
    if let Some(b) = &batches {
        tables.push(b.table());
    }
    if let Some(o) = &offsets {
        tables.push(o.table());
    }
    let filters = filter_words(&args.filter);
    let facts = ManifestFacts {
        sources: &sources,
        filters: &filters,
        options: &opts,
        partitions: groups.len() as u64,
        segments,
        batches_searched: total.batches_searched,
        batches_pruned: total.batches_pruned,
        records_searched: total.records_searched,
        damage: &records.damage,
        damage_unlisted: records.damage_unlisted,
        crc_errors: records.crc_errors,
        complete: outcome == Outcome::Clean,
    };
    write_manifest(&root, &facts, &tables)
        .with_context(|| format!("{}", root.join("_kseg_export.json").display()))?;
    let mut line = format!(
        "kseg: exported {} records",
        if want_records {
            records.table().rows()
        } else {
            0
        }
    );
    if let Some(b) = &batches {
        line.push_str(&format!(", {} batches", b.table().rows()));
    }
    if let Some(o) = &offsets {
        line.push_str(&format!(", {} offset commits", o.table().rows()));
    }
    line.push_str(&format!(
        " of {} partitions to {}",
        groups.len(),
        crate::print::escape::escaped_path(&args.out)
    ));
    let damaged = records.damage.len() as u64 + records.damage_unlisted;
    if damaged > 0 {
        line.push_str(&format!(
            " ({damaged} damaged ranges skipped or flagged: see _kseg_export.json)"
        ));
    }
    line.push('\n');
    write_stderr(&line);
    Ok(outcome)
}
