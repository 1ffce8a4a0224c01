//! `kseg grep` output: one line per match, `topic-partition:offset`, the record's time (RFC 3339,
//! in UTC or the zone of `--tz`), then the record as dump-log prints it (its one record
//! formatter, [`write_record_line_with`], with keys, values and the headers' values, escaped as
//! dump-log escapes them); or with `--json` dump-log's record object ([`write_record_fields`])
//! with `topic`, `partition` and `time`. A record of an aborted transaction is marked:
//! ` (aborted)` after its offset, `"aborted":true` in JSON. Data problems go to stderr as
//! dump-log reports them; kseg's own notes ([`GrepNote`], worded here by [`note_text`]) go to
//! stderr wrapped to its terminal, or are `note` objects in JSON.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::dump_json::{write_batch_fields, write_record_fields};
use super::dump_text::{write_batch_line, write_record_line_with, TextStyle};
use super::ndjson::JsonLine;
use super::{report_error, LineOut};
use kseg_analysis::dump::RecordView;
use kseg_analysis::grep::{CountedBy, GrepNote, KeyPlacement, MatchSink, Place, SearchStats};
use kseg_analysis::partitioner::Partitioner;
use kseg_analysis::transactions::TxnState;
use kseg_escape::{push_escaped, Encoding};
use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::LogProblem;
use kseg_time::Zone;

/// What is printed per match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The record.
    Records,
    /// Nothing per match: a count per partition (`-c`).
    Count,
    /// Nothing per match: the segment file's path, once (`--files-with-matches`).
    Files,
}

/// How a search's output is asked for.
#[derive(Debug, Clone)]
pub struct GrepStyle {
    pub json: bool,
    pub encoding: Encoding,
    pub mode: Mode,
    /// The zone the records' times are shown in.
    pub zone: Zone,
    /// `-c`: also the partitions without a match.
    pub include_zero: bool,
    /// Text: the record's time and its headers' values on its line (grep's); without, the
    /// line is dump-log's alone (lookup's `--print-data-log`).
    pub annotate: bool,
}

impl GrepStyle {
    /// dump-log's record line and object, in UTC (lookup's `--print-data-log`).
    pub fn dump_log(json: bool) -> GrepStyle {
        GrepStyle {
            json,
            encoding: Encoding::Auto,
            mode: Mode::Records,
            zone: Zone::utc(),
            include_zero: false,
            annotate: false,
        }
    }
}

pub struct GrepPrinter<W: Write> {
    out: LineOut<W>,
    json: bool,
    encoding: Encoding,
    mode: Mode,
    zone: Zone,
    include_zero: bool,
    annotate: bool,
    /// The width notes are wrapped to on stderr (a terminal), read once.
    note_width: Option<usize>,
    /// Text: `topic-partition` escaped; JSON: `,"topic":...,"partition":...`.
    label: Vec<u8>,
    file: PathBuf,
    /// The `file` value, JSON-escaped.
    file_json: Vec<u8>,
    decoded: Vec<u8>,
}

/// How dump-log's record line is asked for: with keys and values, raw bytes.
const STYLE: TextStyle = TextStyle {
    print_data: true,
    skip_record_metadata: false,
    verify_only: false,
};

impl<W: Write> GrepPrinter<W> {
    pub fn new(out: W, style: &GrepStyle) -> Self {
        GrepPrinter {
            out: LineOut::new(out),
            json: style.json,
            encoding: style.encoding,
            mode: style.mode,
            zone: style.zone.clone(),
            include_zero: style.include_zero,
            annotate: style.annotate,
            note_width: if style.json {
                None
            } else {
                super::table::stderr_width()
            },
            label: Vec::new(),
            file: PathBuf::new(),
            file_json: b"\"\"".to_vec(),
            decoded: Vec::new(),
        }
    }

    /// The partition searched next: its topic and number, or (a file outside a partition dir)
    /// none, when `name` (the file's path) stands for it.
    pub fn set_partition(&mut self, topic: Option<&str>, partition: Option<i32>, name: &str) {
        self.label.clear();
        if self.json {
            let l = &mut JsonLine(&mut self.label);
            l.raw(b",\"topic\":");
            match topic {
                Some(t) => l.str(t),
                None => l.raw(b"null"),
            }
            l.raw(b",\"partition\":");
            l.opt_int(partition);
        } else {
            match (topic, partition) {
                (Some(t), Some(p)) => {
                    push_escaped(&mut self.label, t.as_bytes());
                    self.label.push(b'-');
                    self.label
                        .extend_from_slice(itoa::Buffer::new().format(p).as_bytes());
                }
                _ => push_escaped(&mut self.label, name.as_bytes()),
            }
        }
    }

    /// The segment file searched next.
    pub fn set_file(&mut self, file: &Path) -> io::Result<()> {
        self.file = file.to_path_buf();
        self.file_json = serde_json::to_vec(&file.to_string_lossy()).map_err(io::Error::from)?;
        Ok(())
    }

    fn open(&mut self, t: &str) {
        let b = &mut self.out.buf;
        b.extend_from_slice(b"{\"type\":\"");
        b.extend_from_slice(t.as_bytes());
        b.extend_from_slice(b"\",\"file\":");
        b.extend_from_slice(&self.file_json);
        b.extend_from_slice(&self.label);
    }

    fn end_json(&mut self) -> io::Result<()> {
        self.out.buf.extend_from_slice(b"}\n");
        self.out.line_done()
    }

    /// `-c`: the matches of the partition just searched (none printed for 0 unless
    /// `--include-zero`, as ripgrep's `--count`).
    pub fn count(&mut self, n: u64) -> io::Result<()> {
        if n == 0 && !self.include_zero {
            return Ok(());
        }
        if self.json {
            let b = &mut self.out.buf;
            b.extend_from_slice(b"{\"type\":\"count\"");
            b.extend_from_slice(&self.label);
            let l = &mut JsonLine(b);
            l.raw(b",\"count\":");
            l.int(n);
            return self.end_json();
        }
        let b = &mut self.out.buf;
        b.extend_from_slice(&self.label);
        b.push(b':');
        b.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
        b.push(b'\n');
        self.out.line_done()
    }

    /// `--files-with-matches`: the current file holds a match.
    fn file_line(&mut self) -> io::Result<()> {
        if self.json {
            self.open("file");
            return self.end_json();
        }
        use std::os::unix::ffi::OsStrExt;
        push_escaped(&mut self.out.buf, self.file.as_os_str().as_bytes());
        self.out.buf.push(b'\n');
        self.out.line_done()
    }

    /// A note of kseg's own about the search: on stderr, wrapped to its terminal, in text; a
    /// `note` object (with its `kind`) in JSON.
    pub fn note(&mut self, note: &GrepNote) -> io::Result<()> {
        let message = note_text(note);
        if self.json {
            let b = &mut self.out.buf;
            b.extend_from_slice(b"{\"type\":\"note\",\"kind\":");
            JsonLine(b).str(note_kind(note));
            JsonLine(b).raw(b",\"message\":");
            JsonLine(b).str(&message);
            return self.end_json();
        }
        self.out.flush()?;
        let line = format!("kseg: note: {message}");
        super::write_stderr(&match self.note_width {
            Some(w) => super::table::wrapped(&line, w),
            None => line + "\n",
        });
        Ok(())
    }

    /// A line about the partition searched (lookup's): on stderr in text, a `note` object with
    /// the topic and partition in JSON.
    pub fn partition_note(&mut self, message: &str) -> io::Result<()> {
        if self.json {
            let b = &mut self.out.buf;
            b.extend_from_slice(b"{\"type\":\"note\"");
            b.extend_from_slice(&self.label);
            JsonLine(b).raw(b",\"message\":");
            JsonLine(b).str(message);
            return self.end_json();
        }
        self.out.flush()?;
        super::write_stderr(&format!("kseg: note: {message}\n"));
        Ok(())
    }

    /// Writes out what is buffered (a caller printing its own lines around the matches).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Output another printer rendered (a `--threads` worker's), after what is buffered.
    pub fn write_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_through(bytes)
    }

    /// The end: in JSON a `summary` object (with `stats`, the bytes read too), in text with
    /// `stats` the counts on stderr.
    pub fn finish(&mut self, s: &SearchStats, stats: bool) -> io::Result<()> {
        if self.json {
            let mut v = serde_json::json!({"type": "summary", "matches": s.matches,
                "batchesSearched": s.batches_searched, "batchesPruned": s.batches_pruned,
                "recordsSearched": s.records_searched, "problems": s.problems});
            if s.uncompared > 0 {
                v["uncompared"] = s.uncompared.into();
            }
            // How the search read (--threads reads pieces of a segment each on its own): asked
            // for, so that the summary is otherwise the same whatever the threads.
            if stats {
                v["bytesRead"] = s.bytes_read.into();
            }
            JsonLine(&mut self.out.buf).value(&v);
            self.out.buf.push(b'\n');
        }
        self.out.flush()?;
        if stats && !self.json {
            super::write_stderr(&format!(
                "{} matches; {} batches searched, {} pruned undecoded; {} records \
                 searched; {} problems; {} bytes read\n",
                s.matches,
                s.batches_searched,
                s.batches_pruned,
                s.records_searched,
                s.problems,
                s.bytes_read
            ));
        }
        Ok(())
    }
}

impl<W: Write> MatchSink for GrepPrinter<W> {
    fn batch(&mut self, position: u64, info: &BatchInfo) -> io::Result<()> {
        if self.mode != Mode::Records {
            return Ok(());
        }
        if self.json {
            self.open("batch");
            write_batch_fields(&mut self.out.buf, position, info);
            return self.end_json();
        }
        let b = &mut self.out.buf;
        b.extend_from_slice(&self.label);
        b.extend_from_slice(b": ");
        write_batch_line(b, position, info);
        b.push(b'\n');
        self.out.line_done()
    }

    fn record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        r: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
        state: Option<TxnState>,
    ) -> io::Result<()> {
        let aborted = state == Some(TxnState::Aborted);
        match self.mode {
            Mode::Count => return Ok(()),
            Mode::Files => return self.file_line(),
            Mode::Records => {}
        }
        let view = RecordView {
            batch_position: position,
            batch: info,
            record: r,
            control,
            decoded: None,
        };
        if self.json {
            self.open("record");
            write_record_fields(&mut self.out.buf, self.encoding, &view);
            if self.annotate {
                let b = &mut self.out.buf;
                b.extend_from_slice(b",\"time\":");
                let before = b.len();
                b.push(b'"');
                if r.timestamp != -1 && self.zone.push_rfc3339(b, r.timestamp) {
                    b.push(b'"');
                } else {
                    b.truncate(before);
                    b.extend_from_slice(b"null");
                }
            }
            if state.is_some() {
                self.out.buf.extend_from_slice(if aborted {
                    b",\"aborted\":true"
                } else {
                    b",\"aborted\":false"
                });
            }
            return self.end_json();
        }
        let b = &mut self.out.buf;
        b.extend_from_slice(&self.label);
        b.push(b':');
        b.extend_from_slice(itoa::Buffer::new().format(r.offset).as_bytes());
        if aborted {
            b.extend_from_slice(b" (aborted)");
        }
        b.push(b' ');
        if self.annotate {
            // NO_TIMESTAMP (-1: magic 0) has no time.
            if r.timestamp == -1 || !self.zone.push_rfc3339(b, r.timestamp) {
                b.push(b'-');
            }
            b.push(b' ');
        }
        write_record_line_with(b, STYLE, self.annotate, &mut self.decoded, &view)?;
        b.push(b'\n');
        self.out.line_done()
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<()> {
        self.out.flush()?;
        report_error(&self.file, Some(p.position()), &p.message());
        Ok(())
    }

    fn bad_checksum(&mut self, position: u64, info: &BatchInfo) -> io::Result<()> {
        self.out.flush()?;
        report_error(
            &self.file,
            Some(position),
            &format!(
                "batch CRC {} does not match its bytes (isvalid: false); its records are \
                 searched as they are",
                info.crc
            ),
        );
        Ok(())
    }
}

/// The `kind` of a note's JSON object.
pub fn note_kind(note: &GrepNote) -> &'static str {
    match note {
        GrepNote::PatternNotAPath { .. } => "patternNotAPath",
        GrepNote::KeyPruned { .. } => "keyPruned",
        GrepNote::PartitionsDiffer { .. } => "partitionsDiffer",
        GrepNote::PrunedNothingFound { .. } => "prunedNothingFound",
        GrepNote::KeyFound { .. } => "keyFound",
        GrepNote::UnindexedAborts(_) => "unindexedAborts",
        GrepNote::UnendedIndexEntries(_) => "unendedIndexEntries",
        GrepNote::LastStable(_) => "lastStable",
        GrepNote::StaleTimeIndex(_) => "staleTimeIndex",
        GrepNote::Uncompared { .. } => "uncompared",
    }
}

/// A partition's name as grep prints it (escaped: topic names and paths are untrusted).
fn place(p: &Place) -> String {
    let mut out = Vec::new();
    match (&p.topic, p.partition) {
        (Some(t), Some(n)) => {
            push_escaped(&mut out, t.as_bytes());
            out.push(b'-');
            out.extend_from_slice(n.to_string().as_bytes());
        }
        _ => push_escaped(&mut out, p.name.as_bytes()),
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn escaped(text: &str) -> String {
    let mut out = Vec::new();
    push_escaped(&mut out, text.as_bytes());
    String::from_utf8_lossy(&out).into_owned()
}

/// `crc32 (librdkafka's default: confluent-kafka, kcat)`.
fn partitioner_words(p: Partitioner) -> String {
    format!("{} ({})", p.name(), p.default_of())
}

/// "a, b and c".
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The sentence a note says (without `kseg: note: `).
pub fn note_text(note: &GrepNote) -> String {
    match note {
        GrepNote::PatternNotAPath { pattern } => format!(
            "\"{}\" is the value PATTERN, not a PATH: no file or dir has that name (-e PATTERN \
             gives a pattern without this note)",
            escaped(pattern)
        ),
        GrepNote::KeyPruned {
            partitioner,
            topics,
        } => key_pruned_text(*partitioner, topics),
        GrepNote::PartitionsDiffer { given, recorded } => {
            let each: Vec<String> = recorded
                .iter()
                .map(|(t, n)| format!("{} with {n}", escaped(t)))
                .collect();
            format!(
                "--partitions {given}, but __cluster_metadata records {} partitions; using \
                 {given}",
                listed(&each)
            )
        }
        GrepNote::PrunedNothingFound { partitioner } => format!(
            "nothing matched where {} maps the key. A record placed by another partitioner \
             (murmur2: the Java producer; crc32: librdkafka; fnv1a: sarama), an explicit \
             partition or an older partition count is in another partition: leave out \
             --partitioner to search every partition",
            partitioner.name()
        ),
        GrepNote::KeyFound { places } => {
            let each: Vec<String> = places
                .iter()
                .map(|(topic, partition, n, by)| {
                    let here = format!("{}-{partition}", escaped(topic));
                    if by.is_empty() {
                        format!(
                            "{here} (no built-in partitioner places it there over {n} \
                             partitions: an explicit partition, a custom partitioner or \
                             another partition count)"
                        )
                    } else {
                        let names: Vec<String> = by.iter().map(|p| partitioner_words(*p)).collect();
                        let verb = if names.len() == 1 { "places" } else { "place" };
                        format!(
                            "{here} (where {} {verb} it over {n} partitions)",
                            listed(&names)
                        )
                    }
                })
                .collect();
            format!("the key was found in {}", listed(&each))
        }
        GrepNote::UnindexedAborts(aborts) => {
            let each: Vec<String> = aborts
                .iter()
                .map(|(p, offset, producer)| {
                    format!("{} at offset {offset} (producer {producer})", place(p))
                })
                .collect();
            format!(
                "ABORT markers that no .txnindex lists: {}. Kafka's fetch gives their \
                 transactions' records to read_committed consumers, so kseg does not count \
                 them aborted (a missing or stale .txnindex)",
                listed(&each)
            )
        }
        GrepNote::UnendedIndexEntries(entries) => {
            let each: Vec<String> = entries
                .iter()
                .map(|(p, producer, last)| {
                    format!("{} producer {producer} (ending at offset {last})", place(p))
                })
                .collect();
            format!(
                ".txnindex entries of aborted transactions with no ABORT marker of their \
                 producer: {}. Kafka's consumer counts that producer's transactional records \
                 aborted until one comes",
                listed(&each)
            )
        }
        GrepNote::LastStable(open) => {
            let each: Vec<String> = open
                .iter()
                .map(|(p, producer, first)| {
                    format!("{} at offset {first} (producer {producer})", place(p))
                })
                .collect();
            format!(
                "--committed: transactions with no COMMIT or ABORT marker hold the last stable \
                 offset, and a read_committed consumer is given nothing at or after it: {} \
                 (--txn-state open shows the open transactions)",
                listed(&each)
            )
        }
        GrepNote::StaleTimeIndex(entries) => {
            let each: Vec<String> = entries
                .iter()
                .map(|(log, e)| {
                    let index = log.with_extension("timeindex");
                    format!(
                        "{} says no record up to offset {} is later than {}, but the batch at \
                         byte {} (offsets {}-{}) has maxTimestamp {}",
                        escaped(&index.display().to_string()),
                        e.offset,
                        e.timestamp,
                        e.batch_position,
                        e.base_offset,
                        e.last_offset,
                        e.max_timestamp
                    )
                })
                .collect();
            format!(
                "a .timeindex entry is below the records it covers, so --from-time did not \
                 skip by it (the search starts at the first batch that can match): {}",
                listed(&each)
            )
        }
        GrepNote::Uncompared { records } => format!(
            "--json-field: {records} record(s) matching every other filter hold a number whose \
             exponent does not fit 64 bits at the field, which cannot be compared exactly; \
             they are not counted as matches"
        ),
    }
}

fn key_pruned_text(partitioner: Partitioner, topics: &[(KeyPlacement, bool)]) -> String {
    let mut mapped = Vec::new();
    let mut absent = Vec::new();
    let mut random = Vec::new();
    let mut uncounted = Vec::new();
    let mut counted_by = None;
    for (p, held) in topics {
        let topic = escaped(&p.topic);
        match (p.count, p.partition) {
            (Some((n, by)), Some(partition)) => {
                counted_by = Some(by);
                let here = format!("{topic}-{partition} (of {n})");
                if *held {
                    mapped.push(here);
                } else {
                    absent.push(here);
                }
            }
            (Some(_), None) => random.push(topic),
            (None, _) => uncounted.push(topic),
        }
    }
    let mut text = format!("--partitioner {}", partitioner_words(partitioner));
    text += match counted_by {
        Some(CountedBy::Flag) => ", over --partitions",
        Some(CountedBy::Metadata) => ", over the partition counts of __cluster_metadata",
        None => "",
    };
    let mut parts = Vec::new();
    if !mapped.is_empty() {
        parts.push(format!("the key is searched only in {}", listed(&mapped)));
    }
    if !absent.is_empty() {
        parts.push(format!(
            "it maps to {}, not in the input: nothing of {} is searched",
            listed(&absent),
            if absent.len() == 1 {
                "that topic"
            } else {
                "those topics"
            }
        ));
    }
    if !random.is_empty() {
        parts.push(format!(
            "every partition of {} is searched ({} places an empty key at random)",
            listed(&random),
            partitioner.name()
        ));
    }
    if !uncounted.is_empty() {
        parts.push(format!(
            "every partition of {} is searched: the partition count is not known (no \
             __cluster_metadata here; give --partitions)",
            listed(&uncounted)
        ));
    }
    if parts.is_empty() {
        parts.push("no topic searched is placed by a producer's partitioner".into());
    }
    format!("{text}: {}", parts.join("; "))
}
