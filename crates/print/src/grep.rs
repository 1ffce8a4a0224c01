//! `kseg grep` output: one line per match, `topic-partition:offset` then the record as
//! dump-log prints it (its one record formatter, [`write_record_line`], with keys and values,
//! escaped as dump-log escapes them); or with `--json` dump-log's record object
//! ([`write_record_fields`]) with `topic` and `partition`. A record of an aborted transaction
//! is marked: ` (aborted)` after its offset, `"aborted":true` in JSON. Data problems go to stderr as
//! dump-log reports them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::dump_json::{write_batch_fields, write_record_fields};
use super::dump_text::{write_batch_line, write_record_line, TextStyle};
use super::ndjson::JsonLine;
use super::{report_error, LineOut};
use kseg_analysis::dump::RecordView;
use kseg_analysis::grep::{MatchSink, SearchStats};
use kseg_analysis::transactions::TxnState;
use kseg_escape::{push_escaped, Encoding};
use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::LogProblem;

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

pub struct GrepPrinter<W: Write> {
    out: LineOut<W>,
    json: bool,
    encoding: Encoding,
    mode: Mode,
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
    pub fn new(out: W, json: bool, encoding: Encoding, mode: Mode) -> Self {
        GrepPrinter {
            out: LineOut::new(out),
            json,
            encoding,
            mode,
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

    /// `-c`: the matches of the partition just searched.
    pub fn count(&mut self, n: u64) -> io::Result<()> {
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

    /// A line of kseg's own about the search (stderr in text, a `note` object in JSON).
    pub fn note(&mut self, message: &str) -> io::Result<()> {
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
        write_record_line(b, STYLE, &mut self.decoded, &view)?;
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
