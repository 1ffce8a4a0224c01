//! Acceptance test against the real-broker corpus (`../shared/corpus/real`).
//!
//! The expectations are not written down here. They are read at test time from
//! "Appendix A — inventory of every non-empty Kafka-format file" in
//! `CATALOG.md`, so the test follows the catalog. For every row of that table the
//! built `kseg` binary is run as
//!
//! ```text
//! kseg dump-log --deep-iteration --json <file>
//! ```
//!
//! and its NDJSON output is aggregated and compared with the row: batch count,
//! record count, offset range, magic mix, codec mix, transactional batches,
//! control record types, distinct producer ids, timestamp type, bad CRCs, file
//! size, exit code and `"error"` objects (torn tail for rows whose parse note
//! mentions truncation or trailing bytes: reported, exit 0 under the severity policy).
//!
//! Two more tests: the Redpanda data sets must be identified as Redpanda by
//! `kseg summary` and `kseg dump-log`, and `kseg dump-log --json` over every
//! Kafka data-set directory must not panic.
//!
//! Every test collects all mismatches and fails once at the end with a list.
//! If the corpus directory does not exist at all, the tests print a note and
//! pass without checking anything.

use crate::common;
use assert_cmd::Command;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/real");

/// Redpanda data sets: (top-level dir, data dir inside the corpus).
const REDPANDA_DATA_DIRS: &[(&str, &str)] = &[
    (
        "gildamariaperez__tareaModulo5",
        "gildamariaperez__tareaModulo5/redpanda-data",
    ),
    (
        "langley232__video_ingestion",
        "langley232__video_ingestion/redpanda/data",
    ),
];

/// Top-level dirs holding bytes captured from the wire, not broker log dirs.
const WIRE_CAPTURE_DIRS: &[&str] = &["segmentio__kafka-go", "tulios__kafkajs"];

/// Per-run limit. A run that hits it is killed and reported as a failure.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

// ---------------------------------------------------------------------------
// Corpus and catalog
// ---------------------------------------------------------------------------

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(CORPUS);
    if dir.is_dir() {
        Some(dir)
    } else {
        common::corpus_missing(&format!("the corpus acceptance test ({})", dir.display()));
        None
    }
}

fn read_catalog(corpus: &Path) -> String {
    let path = corpus.join("CATALOG.md");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("corpus exists but {} is unreadable: {e}", path.display()))
}

/// Splits a markdown table line `| a | b |` into trimmed cells.
fn table_cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

fn is_separator_row(cells: &[String]) -> bool {
    cells
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':' || ch == ' '))
}

/// Lines of the section whose `## ` heading starts with `heading_prefix`, up to
/// the next `## ` heading.
fn section<'a>(catalog: &'a str, heading_prefix: &str) -> Option<Vec<&'a str>> {
    let mut lines = catalog.lines();
    lines.by_ref().find(|l| l.starts_with(heading_prefix))?;
    Some(lines.take_while(|l| !l.starts_with("## ")).collect())
}

/// The first markdown table of a section: header cells and data rows (each
/// with its 1-based line number inside the section, for messages).
type Table = (Vec<String>, Vec<(usize, Vec<String>)>);

fn first_table(lines: &[&str]) -> Option<Table> {
    let start = lines.iter().position(|l| l.trim_start().starts_with('|'))?;
    let header = table_cells(lines[start]);
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if !line.trim_start().starts_with('|') {
            break; // the table ends at the first line that is not a table row
        }
        let cells = table_cells(line);
        if is_separator_row(&cells) {
            continue;
        }
        rows.push((i + 1, cells));
    }
    Some((header, rows))
}

/// "v1:7,v2:8" -> {v1: 7, v2: 8}; "", "-" -> {}.
fn parse_mix(s: &str) -> Result<BTreeMap<String, u64>, String> {
    let s = s.trim();
    let mut m = BTreeMap::new();
    if s.is_empty() || s == "-" {
        return Ok(m);
    }
    for item in s.split(',') {
        let (k, n) = item
            .trim()
            .rsplit_once(':')
            .ok_or_else(|| format!("bad mix item {item:?} in {s:?}"))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("bad count in {item:?} of {s:?}"))?;
        *m.entry(k.trim().to_string()).or_insert(0) += n;
    }
    Ok(m)
}

/// "0-28520" -> Some((0, 28520)); "None-None" -> None.
fn parse_offsets(s: &str) -> Result<Option<(i64, i64)>, String> {
    let s = s.trim();
    if s == "None-None" || s == "-" || s.is_empty() {
        return Ok(None);
    }
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| format!("bad offsets {s:?}"))?;
    let a = a.trim().parse().map_err(|_| format!("bad offsets {s:?}"))?;
    let b = b.trim().parse().map_err(|_| format!("bad offsets {s:?}"))?;
    Ok(Some((a, b)))
}

/// "" -> {} (no timestamp type: v0 messages or no batches); "create" -> {create}.
fn parse_ts_types(s: &str) -> BTreeSet<String> {
    s.split(',')
        .map(|t| t.trim())
        .filter(|t| !t.is_empty() && *t != "-")
        .map(str::to_string)
        .collect()
}

fn parse_u64(s: &str, what: &str) -> Result<u64, String> {
    s.trim()
        .replace(',', "")
        .parse()
        .map_err(|_| format!("bad {what} {s:?}"))
}

/// A parse note that says the file ends inside a batch/message.
fn note_means_torn_tail(note: &str) -> bool {
    let n = note.to_ascii_lowercase();
    n.contains("truncat") || n.contains("trailing")
}

#[derive(Debug)]
struct Expected {
    file: String,
    bytes: u64,
    batches: u64,
    records: u64,
    magic: BTreeMap<String, u64>,
    codec: BTreeMap<String, u64>,
    txn_batches: u64,
    control: BTreeMap<String, u64>,
    producer_ids: u64,
    offsets: Option<(i64, i64)>,
    ts_types: BTreeSet<String>,
    bad_crc: u64,
    parse_note: String,
    /// A torn tail or trailing bytes: an `error` object, but exit 0 (a file read alone is an
    /// active segment, whose torn tail Kafka's recovery truncates: not an error).
    torn_tail: bool,
    /// Records that cannot be decoded (an erratum): an `error` object and exit 1.
    undecodable: bool,
}

const APPENDIX_A: &str = "## Appendix A";

/// Parses Appendix A of CATALOG.md. Columns are located by their header names,
/// so a reordering of the catalog's columns does not break the test.
fn parse_appendix_a(catalog: &str) -> Result<Vec<Expected>, String> {
    let lines = section(catalog, APPENDIX_A)
        .ok_or_else(|| format!("CATALOG.md has no section starting with {APPENDIX_A:?}"))?;
    let (header, rows) =
        first_table(&lines).ok_or("Appendix A of CATALOG.md contains no markdown table")?;
    let col = |name: &str| -> Result<usize, String> {
        header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("Appendix A table has no column {name:?}; header is {header:?}"))
    };
    let c_file = col("file")?;
    let c_bytes = col("bytes")?;
    let c_batches = col("batches")?;
    let c_records = col("records")?;
    let c_magic = col("magic")?;
    let c_codec = col("codec")?;
    let c_txn = col("txn batches")?;
    let c_control = col("control")?;
    let c_pids = col("producerIds")?;
    let c_offsets = col("offsets")?;
    let c_ts_type = col("ts type")?;
    let c_bad_crc = col("bad CRC")?;
    let c_note = col("parse note")?;

    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (line_no, cells) in rows {
        if cells.len() != header.len() {
            errors.push(format!(
                "Appendix A line {line_no}: {} cells, header has {}: {cells:?}",
                cells.len(),
                header.len()
            ));
            continue;
        }
        let file = cells[c_file].trim_matches('`').to_string();
        // The table is documented as Kafka-format only (Redpanda segments are in a
        // plain-text block in Appendix B). Skip defensively should a Redpanda
        // row ever be added to it.
        if REDPANDA_DATA_DIRS
            .iter()
            .any(|(_, d)| file.starts_with(&format!("{d}/")))
        {
            continue;
        }
        let row = (|| -> Result<Expected, String> {
            let note = cells[c_note].clone();
            Ok(Expected {
                bytes: parse_u64(&cells[c_bytes], "bytes")?,
                batches: parse_u64(&cells[c_batches], "batches")?,
                records: parse_u64(&cells[c_records], "records")?,
                magic: parse_mix(&cells[c_magic])?,
                codec: parse_mix(&cells[c_codec])?,
                txn_batches: parse_u64(&cells[c_txn], "txn batches")?,
                control: parse_mix(&cells[c_control])?,
                producer_ids: parse_u64(&cells[c_pids], "producerIds")?,
                offsets: parse_offsets(&cells[c_offsets])?,
                ts_types: {
                    // An empty "ts type" cell means "no timestamp type": the rows of
                    // magic v0 messages (and rows without any batch).
                    let t = parse_ts_types(&cells[c_ts_type]);
                    if t.is_empty() && parse_u64(&cells[c_batches], "batches")? > 0 {
                        BTreeSet::from([String::new()])
                    } else {
                        t
                    }
                },
                bad_crc: parse_u64(&cells[c_bad_crc], "bad CRC")?,
                torn_tail: note_means_torn_tail(&note),
                undecodable: false,
                parse_note: note,
                file: file.clone(),
            })
        })();
        match row {
            Ok(e) => out.push(e),
            Err(e) => errors.push(format!("Appendix A line {line_no} ({file}): {e}")),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if out.is_empty() {
        return Err("Appendix A table has no data rows".into());
    }
    Ok(out)
}

/// Top-level dirs that the catalog's "Summary of data sets" table marks as
/// Redpanda or wire capture (mode column). Empty if the table is not found.
fn non_kafka_dirs_from_summary(catalog: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(lines) = section(catalog, "## Summary of data sets") else {
        return out;
    };
    let Some((header, rows)) = first_table(&lines) else {
        return out;
    };
    let (Some(c_dir), Some(c_mode)) = (
        header.iter().position(|h| h == "dir"),
        header.iter().position(|h| h == "mode"),
    ) else {
        return out;
    };
    for (_, cells) in rows {
        let (Some(dir), Some(mode)) = (cells.get(c_dir), cells.get(c_mode)) else {
            continue;
        };
        let mode = mode.to_ascii_lowercase();
        if !(mode.contains("redpanda") || mode.contains("wire capture")) {
            continue;
        }
        // `dir` looks like "`segmentio__kafka-go` / `fixtures`": first backticked name.
        if let Some(name) = dir.split('`').nth(1) {
            out.insert(name.trim().to_string());
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Running kseg
// ---------------------------------------------------------------------------

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    /// A description of a panic or abnormal end, if any.
    fn abnormal_end(&self) -> Option<String> {
        if self.stderr.contains("panicked") {
            let line = self
                .stderr
                .lines()
                .find(|l| l.contains("panicked"))
                .unwrap_or_default();
            return Some(format!("panic (exit {:?}): {}", self.code, clip(line, 300)));
        }
        match self.code {
            Some(101) => Some(format!(
                "exit code 101 (panic); stderr: {}",
                clip(&self.stderr, 300)
            )),
            None => Some(format!(
                "no exit code: killed by a signal or by the {}s timeout (after {:.1}s)",
                RUN_TIMEOUT.as_secs(),
                self.elapsed.as_secs_f64()
            )),
            _ => None,
        }
    }
}

fn run_kseg(args: &[&std::ffi::OsStr]) -> Result<Run, String> {
    let mut cmd =
        Command::cargo_bin("kseg").map_err(|e| format!("cannot locate kseg binary: {e}"))?;
    cmd.args(args).timeout(RUN_TIMEOUT);
    let started = Instant::now();
    let out = cmd.output().map_err(|e| format!("cannot run kseg: {e}"))?;
    Ok(Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    })
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

// ---------------------------------------------------------------------------
// Aggregating dump-log NDJSON
// ---------------------------------------------------------------------------

#[derive(Default, Debug)]
struct Observed {
    batches: u64,
    records: u64,
    magic: BTreeMap<String, u64>,
    codec: BTreeMap<String, u64>,
    txn_batches: u64,
    control: BTreeMap<String, u64>,
    producer_ids: BTreeSet<i64>,
    min_offset: Option<i64>,
    max_offset: Option<i64>,
    ts_types: BTreeSet<String>,
    bad_crc: u64,
    errors: Vec<String>,
    summaries: u64,
    last_type: Option<String>,
    /// Contract violations in the stream itself (non-JSON lines, missing fields).
    problems: BTreeMap<String, (u64, String)>,
}

impl Observed {
    fn problem(&mut self, key: impl Into<String>, example: impl Into<String>) {
        let e = self
            .problems
            .entry(key.into())
            .or_insert((0, example.into()));
        e.0 += 1;
    }
}

/// Batch `timestampType` → the catalog's spelling ("" = no timestamp type).
fn catalog_ts_type(t: &str) -> String {
    match t {
        "CreateTime" => "create".into(),
        "LogAppendTime" => "log_append".into(),
        "NoTimestampType" => String::new(),
        other => format!("?{other}"),
    }
}

fn aggregate(stdout: &str) -> Observed {
    let mut o = Observed::default();
    for (i, line) in stdout.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                o.problem(
                    "stdout line is not JSON",
                    format!("line {}: {e}: {}", i + 1, clip(line, 120)),
                );
                continue;
            }
        };
        let Some(ty) = v.get("type").and_then(Value::as_str).map(str::to_string) else {
            o.problem("object without string \"type\"", clip(line, 120));
            continue;
        };
        match ty.as_str() {
            "batch" => aggregate_batch(&mut o, &v, line),
            "record" => aggregate_record(&mut o, &v, line),
            "error" => {
                let msg = v
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("<no message>");
                let pos = v
                    .get("position")
                    .map(|p| p.to_string())
                    .unwrap_or_else(|| "?".into());
                o.errors.push(format!("at {pos}: {msg}"));
            }
            "summary" => o.summaries += 1,
            _ => {}
        }
        o.last_type = Some(ty);
    }
    o
}

fn aggregate_batch(o: &mut Observed, v: &Value, line: &str) {
    o.batches += 1;
    match v.get("magic") {
        Some(Value::Number(n)) => *o.magic.entry(format!("v{n}")).or_insert(0) += 1,
        Some(Value::String(s)) if s.starts_with('v') => *o.magic.entry(s.clone()).or_insert(0) += 1,
        Some(Value::String(s)) => *o.magic.entry(format!("v{s}")).or_insert(0) += 1,
        _ => {
            *o.magic.entry("<missing>".into()).or_insert(0) += 1;
            o.problem("batch without \"magic\"", clip(line, 160));
        }
    }
    match v.get("compression").and_then(Value::as_str) {
        Some(c) => *o.codec.entry(c.to_string()).or_insert(0) += 1,
        None => {
            *o.codec.entry("<missing>".into()).or_insert(0) += 1;
            o.problem("batch without string \"compression\"", clip(line, 160));
        }
    }
    match v.get("isTransactional") {
        Some(Value::Bool(true)) => o.txn_batches += 1,
        Some(Value::Bool(false)) => {}
        _ => o.problem("batch without bool \"isTransactional\"", clip(line, 160)),
    }
    // Legacy v0/v1 entries have no producer id; accept null/absent as -1.
    match v.get("producerId") {
        Some(Value::Number(n)) => match n.as_i64() {
            Some(-1) => {}
            Some(pid) => {
                o.producer_ids.insert(pid);
            }
            None => o.problem("batch with non-integer \"producerId\"", clip(line, 160)),
        },
        None | Some(Value::Null) => {}
        _ => o.problem("batch with non-integer \"producerId\"", clip(line, 160)),
    }
    match v.get("timestampType").and_then(Value::as_str) {
        Some(t) => {
            o.ts_types.insert(catalog_ts_type(t));
        }
        None => {
            o.ts_types.insert("<missing>".into());
            o.problem("batch without string \"timestampType\"", clip(line, 160));
        }
    }
    match v.get("crcValid") {
        Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => o.bad_crc += 1,
        _ => o.problem("batch without bool \"crcValid\"", clip(line, 160)),
    }
}

fn aggregate_record(o: &mut Observed, v: &Value, line: &str) {
    o.records += 1;
    match v.get("offset").and_then(Value::as_i64) {
        Some(off) => {
            o.min_offset = Some(o.min_offset.map_or(off, |m| m.min(off)));
            o.max_offset = Some(o.max_offset.map_or(off, |m| m.max(off)));
        }
        None => o.problem("record without integer \"offset\"", clip(line, 160)),
    }
    match v.get("control") {
        None | Some(Value::Null) => {}
        Some(c) => match c.get("type").and_then(Value::as_str) {
            Some(t) => *o.control.entry(t.to_string()).or_insert(0) += 1,
            None => {
                *o.control.entry("<no type>".into()).or_insert(0) += 1;
                o.problem(
                    "record \"control\" without string \"type\"",
                    clip(line, 160),
                );
            }
        },
    }
}

// ---------------------------------------------------------------------------
// Mismatch reporting
// ---------------------------------------------------------------------------

struct Mismatch {
    file: String,
    field: String,
    expected: String,
    got: String,
}

#[derive(Default)]
struct Report {
    items: Vec<Mismatch>,
}

impl Report {
    fn push(&mut self, file: &str, field: &str, expected: impl ToString, got: impl ToString) {
        self.items.push(Mismatch {
            file: file.to_string(),
            field: field.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        });
    }

    fn check<T: PartialEq + std::fmt::Display>(
        &mut self,
        file: &str,
        field: &str,
        expected: T,
        got: T,
    ) {
        if expected != got {
            self.push(file, field, expected, got);
        }
    }

    fn finish(self, what: &str, checked: usize) {
        if self.items.is_empty() {
            eprintln!("{what}: {checked} checked, no mismatches");
            return;
        }
        let files: BTreeSet<&str> = self.items.iter().map(|m| m.file.as_str()).collect();
        let mut msg = format!(
            "{what}: {} mismatches in {} of {checked} checked items\n",
            self.items.len(),
            files.len()
        );
        let mut last_file = "";
        for m in &self.items {
            if m.file != last_file {
                let _ = writeln!(msg, "\n  {}", m.file);
                last_file = &m.file;
            }
            let _ = writeln!(
                msg,
                "    {:<22} expected: {:<28} got: {}",
                m.field, m.expected, m.got
            );
        }
        panic!("{msg}");
    }
}

fn fmt_mix(m: &BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "-".into();
    }
    m.iter()
        .map(|(k, n)| format!("{k}:{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn fmt_offsets(o: Option<(i64, i64)>) -> String {
    match o {
        Some((a, b)) => format!("{a}-{b}"),
        None => "None-None".into(),
    }
}

fn fmt_ts_types(s: &BTreeSet<String>) -> String {
    if s.is_empty() {
        return "(none)".into();
    }
    s.iter()
        .map(|t| {
            if t.is_empty() {
                "(no timestamp type)".to_string()
            } else {
                t.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/// Every Kafka-format row of CATALOG.md Appendix A against
/// `kseg dump-log --deep-iteration --json <file>`.
#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn catalog_inventory_matches_dump_log() {
    let Some(corpus) = corpus_dir() else { return };
    let catalog = read_catalog(&corpus);
    let rows = match parse_appendix_a(&catalog) {
        Ok(rows) => rows,
        Err(e) => panic!("cannot parse Appendix A of CATALOG.md:\n{e}"),
    };
    eprintln!("Appendix A: {} Kafka-format rows", rows.len());

    let mut report = Report::default();
    let mut rows = rows;
    let mut applied = 0;
    for exp in &mut rows {
        applied += apply_errata(exp) as usize;
    }
    assert_eq!(
        applied,
        CATALOG_ERRATA.len(),
        "every erratum must match a catalog row"
    );
    for exp in &rows {
        check_row(&corpus, exp, &mut report);
    }
    report.finish(
        "corpus Appendix A vs kseg dump-log --deep-iteration --json",
        rows.len(),
    );
}

/// Rows of Appendix A that the catalog's throw-away parser got wrong, with the corrected values
/// and the evidence from the bytes (also in the closing note of the corpus issue). Everything
/// else in these rows is still checked against the catalog as written.
struct Erratum {
    file: &'static str,
    records: u64,
    offsets: Option<(i64, i64)>,
    /// The file is expected to produce an `error` object and exit 1.
    expects_error: bool,
    #[allow(dead_code)]
    evidence: &'static str,
}

const CATALOG_ERRATA: &[Erratum] = &[
    // Legacy gzip wrappers: the catalog counted each wrapper as one record at the wrapper's
    // offset; the wrappers hold several inner messages (contract: inner messages are records).
    Erratum { file: "segmentio__kafka-go/extracted-recordsets/v1-v1c-v2-v2c-v2b-v2b-v2b-v2bc-v1b-v1bc.records.bin", records: 20, offsets: Some((0, 19)), expects_error: false,
        evidence: "the last v1 gzip wrapper holds 2 inner messages" },
    Erratum { file: "segmentio__kafka-go/extracted-recordsets/v1c-v1-v1c.records.bin", records: 6, offsets: Some((0, 5)), expects_error: false,
        evidence: "first wrapper at offset 1 (00..01) is gzip (attributes 01) and inflates to 2 messages, relative offsets 0,1 -> absolute 0,1" },
    Erratum { file: "segmentio__kafka-go/extracted-recordsets/v1c-v1c.records.bin", records: 4, offsets: Some((0, 3)), expects_error: false,
        evidence: "first wrapper at offset 1 inflates to 2 inner messages (absolute 0,1)" },
    Erratum { file: "segmentio__kafka-go/extracted-recordsets/v2bc-v1-v1c.records.bin", records: 6, offsets: Some((0, 5)), expects_error: false,
        evidence: "the v1 gzip wrapper holds 2 inner messages" },
    Erratum { file: "segmentio__kafka-go/extracted-recordsets/v2bc-v1c.records.bin", records: 4, offsets: Some((0, 3)), expects_error: false,
        evidence: "the v1 gzip wrapper holds 2 inner messages" },
    Erratum { file: "tulios__kafkajs/extracted-recordsets/v1_response_gzip.records.bin", records: 3, offsets: Some((0, 2)), expects_error: false,
        evidence: "one v0 gzip wrapper at offset 2 whose value inflates to 3 messages with absolute offsets 0,1,2" },
    Erratum { file: "tulios__kafkajs/extracted-recordsets/v2_response_gzip.records.bin", records: 3, offsets: Some((0, 2)), expects_error: false,
        evidence: "xxd: 0000000000000002 ... magic 01 attributes 01 (gzip); inflates to relative offsets 0,1,2 -> 0..2" },
    Erratum { file: "tulios__kafkajs/extracted-recordsets/v3_response_gzip.records.bin", records: 3, offsets: Some((0, 2)), expects_error: false,
        evidence: "same layout as v2_response_gzip" },
    // Attributes say "none" but the records region starts 28 b5 2f fd (a zstd frame): the
    // catalog took the header's record count; the records cannot be decoded as stored.
    Erratum { file: "tulios__kafkajs/extracted-recordsets/recordBatch.v0_recordbatch_zstd.bin", records: 0, offsets: None, expects_error: true,
        evidence: "bytes 0x15-0x16 = 00 00 (codec none); byte 0x3d starts 28 b5 2f fd; read uncompressed, record 0 claims a 44-byte key in 20 bytes" },
];

fn apply_errata(exp: &mut Expected) -> bool {
    let Some(e) = CATALOG_ERRATA.iter().find(|e| e.file == exp.file) else {
        return false;
    };
    exp.records = e.records;
    exp.offsets = e.offsets;
    if e.expects_error {
        exp.undecodable = true;
    }
    true
}

fn check_row(corpus: &Path, exp: &Expected, r: &mut Report) {
    let f = exp.file.as_str();
    let path = corpus.join(f);
    match std::fs::metadata(&path) {
        Ok(md) if md.is_file() => r.check(f, "bytes (file size)", exp.bytes, md.len()),
        Ok(_) => {
            r.push(f, "file", "a regular file", "not a regular file");
            return;
        }
        Err(e) => {
            r.push(f, "file", "present in corpus", format!("missing: {e}"));
            return;
        }
    }

    let run = match run_kseg(&[
        "dump-log".as_ref(),
        "--deep-iteration".as_ref(),
        "--json".as_ref(),
        path.as_os_str(),
    ]) {
        Ok(run) => run,
        Err(e) => {
            r.push(f, "run", "kseg runs", e);
            return;
        }
    };
    eprintln!(
        "  {:>7.2}s exit {:?}  {f}",
        run.elapsed.as_secs_f64(),
        run.code
    );

    if let Some(why) = run.abnormal_end() {
        r.push(f, "panic/abnormal end", "none", why);
    }
    let expected_code = if exp.undecodable { 1 } else { 0 };
    if run.code != Some(expected_code) {
        let stderr = clip(run.stderr.lines().last().unwrap_or(""), 200);
        r.push(
            f,
            "exit code",
            expected_code,
            format!("{:?} (stderr last line: {stderr})", run.code),
        );
    }

    let o = aggregate(&run.stdout);
    for (what, (count, example)) in &o.problems {
        r.push(
            f,
            "NDJSON contract",
            "well-formed objects",
            format!("{count}× {what}, e.g. {example}"),
        );
    }

    if exp.torn_tail || exp.undecodable {
        if o.errors.is_empty() {
            r.push(
                f,
                "error objects",
                format!(">=1 (torn tail: {})", exp.parse_note),
                0,
            );
        }
    } else if !o.errors.is_empty() {
        r.push(
            f,
            "error objects",
            0,
            format!("{}: {}", o.errors.len(), clip(&o.errors[0], 200)),
        );
    }
    if o.summaries != 1 || o.last_type.as_deref() != Some("summary") {
        r.push(
            f,
            "summary object",
            "exactly one, last",
            format!(
                "{} summary objects, last object type {:?}",
                o.summaries, o.last_type
            ),
        );
    }

    r.check(f, "batches", exp.batches, o.batches);
    r.check(f, "records", exp.records, o.records);
    let got_offsets = match (o.min_offset, o.max_offset) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    r.check(
        f,
        "offsets (min-max)",
        fmt_offsets(exp.offsets),
        fmt_offsets(got_offsets),
    );
    r.check(f, "magic", fmt_mix(&exp.magic), fmt_mix(&o.magic));
    r.check(f, "codec", fmt_mix(&exp.codec), fmt_mix(&o.codec));
    r.check(f, "txn batches", exp.txn_batches, o.txn_batches);
    r.check(f, "control", fmt_mix(&exp.control), fmt_mix(&o.control));
    r.check(
        f,
        "distinct producerIds",
        exp.producer_ids,
        o.producer_ids.len() as u64,
    );
    r.check(
        f,
        "timestamp type",
        fmt_ts_types(&exp.ts_types),
        fmt_ts_types(&o.ts_types),
    );
    r.check(f, "bad CRC batches", exp.bad_crc, o.bad_crc);
}

/// The Redpanda data dirs must be recognised as Redpanda, not misread as Kafka.
#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn redpanda_data_sets_are_identified() {
    let Some(corpus) = corpus_dir() else { return };
    let mut report = Report::default();
    let mut checked = 0;
    for (_, rel) in REDPANDA_DATA_DIRS {
        let dir = corpus.join(rel);
        if !dir.is_dir() {
            report.push(rel, "directory", "present in corpus", "missing");
            continue;
        }
        for sub in ["summary", "dump-log"] {
            checked += 1;
            let label = format!("{rel} [kseg {sub} <dir> --json]");
            let run = match run_kseg(&[sub.as_ref(), dir.as_os_str(), "--json".as_ref()]) {
                Ok(run) => run,
                Err(e) => {
                    report.push(&label, "run", "kseg runs", e);
                    continue;
                }
            };
            eprintln!(
                "  {:>7.2}s exit {:?}  {label}",
                run.elapsed.as_secs_f64(),
                run.code
            );
            if let Some(why) = run.abnormal_end() {
                report.push(&label, "panic/abnormal end", "none", why);
            }
            let all = format!("{}\n{}", run.stdout, run.stderr);
            if !mentions_redpanda_outside_paths(&all) {
                report.push(
                    &label,
                    "mentions Redpanda",
                    "stdout+stderr has the word Redpanda (outside paths)",
                    format!(
                        "exit {:?}; stdout: {} | stderr: {}",
                        run.code,
                        clip(&run.stdout, 200),
                        clip(&run.stderr, 200)
                    ),
                );
            }
        }
    }
    report.finish("Redpanda data sets", checked);
}

/// Whether `text` contains the word "Redpanda" (any case) other than inside a
/// path. The data dirs themselves are named `redpanda-data` and `redpanda/data`,
/// so a plain substring test would pass on any output that echoes the path.
/// Words are runs of `[A-Za-z0-9_.-/]`; words with a `/` are paths and ignored.
fn mentions_redpanda_outside_paths(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_.-/".contains(c)))
        .filter(|w| !w.contains('/'))
        .any(|w| w.to_ascii_lowercase().contains("redpanda"))
}

/// `kseg dump-log --json <dir>` over every Kafka broker data set must not panic.
#[test]
#[ignore = "needs ../shared/corpus/real (the real-broker corpus beside the clone)"]
fn dump_log_over_kafka_data_set_dirs_does_not_panic() {
    let Some(corpus) = corpus_dir() else { return };
    let catalog = read_catalog(&corpus);
    let mut excluded: BTreeSet<String> = non_kafka_dirs_from_summary(&catalog);
    excluded.extend(REDPANDA_DATA_DIRS.iter().map(|(top, _)| top.to_string()));
    excluded.extend(WIRE_CAPTURE_DIRS.iter().map(|d| d.to_string()));

    let mut dirs: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", corpus.display()))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && !excluded.contains(name))
        .collect();
    dirs.sort();
    eprintln!("Kafka data-set dirs: {dirs:?} (excluded: {excluded:?})");

    let mut report = Report::default();
    if dirs.is_empty() {
        report.push(CORPUS, "Kafka data-set dirs", ">=1", 0);
    }
    for name in &dirs {
        let dir = corpus.join(name);
        let label = format!("{name}/ [kseg dump-log --json <dir>]");
        let run = match run_kseg(&["dump-log".as_ref(), "--json".as_ref(), dir.as_os_str()]) {
            Ok(run) => run,
            Err(e) => {
                report.push(&label, "run", "kseg runs", e);
                continue;
            }
        };
        eprintln!(
            "  {:>7.2}s exit {:?}  {label}",
            run.elapsed.as_secs_f64(),
            run.code
        );
        if let Some(why) = run.abnormal_end() {
            report.push(&label, "panic/abnormal end", "none", why);
        } else if !matches!(run.code, Some(0) | Some(1)) {
            report.push(
                &label,
                "exit code",
                "0 or 1",
                format!("{:?} (stderr: {})", run.code, clip(&run.stderr, 200)),
            );
        }
        let bad_lines = run
            .stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(|_| ()))
                    .is_none()
            })
            .count();
        if bad_lines > 0 {
            report.push(
                &label,
                "NDJSON contract",
                "every stdout line a JSON object with \"type\"",
                format!("{bad_lines} lines are not"),
            );
        }
    }
    report.finish("dump-log over Kafka data-set dirs", dirs.len());
}

// ---------------------------------------------------------------------------
// Self-checks of the catalog parsing (run even without a binary that works)
// ---------------------------------------------------------------------------

#[test]
fn catalog_parsing_helpers() {
    assert_eq!(fmt_mix(&parse_mix("v1:7,v2:8").unwrap()), "v1:7,v2:8");
    assert_eq!(
        fmt_mix(&parse_mix("SNAPSHOT_FOOTER:1,SNAPSHOT_HEADER:1").unwrap()),
        "SNAPSHOT_FOOTER:1,SNAPSHOT_HEADER:1"
    );
    assert!(parse_mix("-").unwrap().is_empty());
    assert!(parse_mix("").unwrap().is_empty());
    assert!(parse_mix("v2").is_err());
    assert_eq!(parse_offsets("0-28520").unwrap(), Some((0, 28520)));
    assert_eq!(
        parse_offsets("15733908-15733910").unwrap(),
        Some((15733908, 15733910))
    );
    assert_eq!(parse_offsets("None-None").unwrap(), None);
    assert!(parse_ts_types("").is_empty());
    assert_eq!(
        parse_ts_types("log_append").into_iter().collect::<Vec<_>>(),
        ["log_append"]
    );
    assert!(note_means_torn_tail("trailing 9 bytes"));
    assert!(note_means_torn_tail(
        "truncated batch at 0 (len 1773, remain 1012)"
    ));
    assert!(!note_means_torn_tail("-"));
    assert_eq!(catalog_ts_type("NoTimestampType"), "");
    assert!(!mentions_redpanda_outside_paths(
        "{\"type\":\"batch\",\"file\":\"/c/x__y/redpanda-data/kafka/t/0_1/0-1-v1.log\"}\nkseg: /c/x/redpanda/data: error"
    ));
    assert!(mentions_redpanda_outside_paths(
        "{\"file\":\"/c/redpanda-data\",\"layout\":\"redpanda\"}"
    ));
    assert!(mentions_redpanda_outside_paths(
        "kseg: /c/redpanda/data: this is a Redpanda data directory"
    ));

    let md = "# t\n## Appendix A — x\ntext\n\n\
| file | bytes | batches | records | magic | codec | txn batches | control | producerIds | offsets | first..last ts (UTC) | ts type | bad CRC | parse note |\n\
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n\
| a/b.log | 10 | 3 | 5 | v2:3 | none:3 | 0 | SNAPSHOT_FOOTER:1,SNAPSHOT_HEADER:1 | 0 | 0-4 | x .. y | create | 0 | - |\n\
| a/c.bin | 1024 | 0 | 0 |  |  | 0 | - | 0 | None-None | - .. - |  | 0 | truncated batch at 0 |\n\
\n## Appendix B\n| not | this |\n";
    let rows = parse_appendix_a(md).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].file, "a/b.log");
    assert_eq!(rows[0].records, 5);
    assert_eq!(rows[0].control.len(), 2);
    assert!(!rows[0].torn_tail);
    assert!(rows[1].torn_tail);
    assert!(rows[1].magic.is_empty());
    assert!(rows[1].ts_types.is_empty());
    assert_eq!(fmt_ts_types(&rows[0].ts_types), "create");
    assert_eq!(rows[1].offsets, None);

    let agg = aggregate(
        "{\"type\":\"batch\",\"magic\":2,\"compression\":\"lz4\",\"isTransactional\":true,\"producerId\":7,\
\"timestampType\":\"LogAppendTime\",\"crcValid\":false}\n\
{\"type\":\"record\",\"offset\":4,\"control\":{\"type\":\"COMMIT\"}}\n\
{\"type\":\"batch\",\"magic\":1,\"compression\":\"none\",\"isTransactional\":false,\"producerId\":-1,\
\"timestampType\":\"CreateTime\",\"crcValid\":true}\n\
{\"type\":\"record\",\"offset\":2}\n{\"type\":\"summary\"}\n",
    );
    assert_eq!(agg.batches, 2);
    assert_eq!(agg.records, 2);
    assert_eq!(fmt_mix(&agg.magic), "v1:1,v2:1");
    assert_eq!(fmt_mix(&agg.codec), "lz4:1,none:1");
    assert_eq!(agg.txn_batches, 1);
    assert_eq!(fmt_mix(&agg.control), "COMMIT:1");
    assert_eq!(agg.producer_ids.len(), 1);
    assert_eq!((agg.min_offset, agg.max_offset), (Some(2), Some(4)));
    assert_eq!(fmt_ts_types(&agg.ts_types), "create,log_append");
    assert_eq!(agg.bad_crc, 1);
    assert_eq!(agg.summaries, 1);
    assert!(agg.problems.is_empty());
}
