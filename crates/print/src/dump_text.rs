//! `kafka-dump-log.sh` text output (Kafka 4.3+ layout), line for line.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::coordinator::write_decoded_text;
use super::{report_error, DumpPrinter, DumpSummary, LineOut, TextDeferred, TimeIndexProblem};
use kseg_analysis::dump::{DumpRecords, RecordView};
use kseg_escape::{escaped_path, push_escaped, write_escaped};
use kseg_format::control::ControlType;
use kseg_format::index::{OffsetEntry, SanityError, TimeEntry};
use kseg_format::log::BatchInfo;
use kseg_format::producer_snapshot::ProducerEntry;
use kseg_format::text_files::CheckpointEntry;
use kseg_format::txn_index::AbortedTxn;
use kseg_scan::LogProblem;
use kseg_storage::discover::Unrecognised;
use kseg_storage::layout::{base_offset_of, FileKind};

#[derive(Debug, Clone, Copy, Default)]
pub struct TextStyle {
    pub print_data: bool,
    pub skip_record_metadata: bool,
    pub verify_only: bool,
}

pub struct TextDump<W: Write> {
    out: LineOut<W>,
    style: TextStyle,
    file: PathBuf,
    /// Reported on stderr at the end; kseg's notes come after Kafka's lines about their file.
    deferred: TextDeferred,
    /// Index problems held so far for the current file (the cap is per file).
    file_problems: (PathBuf, usize),
    /// A decoded internal-topic key and value, rendered before they are escaped.
    decoded: Vec<u8>,
}

/// Index problems (mismatches, timestamp problems) held per file for the end of the output, as
/// Kafka lists them; those past this are counted, not held: a random 1 GiB `.timeindex` holds
/// ~89 M entries, each a problem.
pub const PROBLEMS_PER_FILE: usize = 10_000;

impl<W: Write> TextDump<W> {
    pub fn new(out: W, style: TextStyle) -> Self {
        Self::over(LineOut::new(out), style)
    }

    /// Over a writer that takes whole buffers ([`crate::TakesBuffers`]): the output is not
    /// copied a second time.
    pub fn handing_off(out: W, style: TextStyle) -> Self
    where
        W: crate::TakesBuffers,
    {
        Self::over(LineOut::handing_off(out), style)
    }

    fn over(out: LineOut<W>, style: TextStyle) -> Self {
        TextDump {
            out,
            style,
            file: PathBuf::new(),
            deferred: TextDeferred::default(),
            file_problems: (PathBuf::new(), 0),
            decoded: Vec::new(),
        }
    }

    /// Counts one index problem of the current file; true when it is past the cap (then it
    /// is only counted).
    fn over_problem_cap(&mut self) -> bool {
        if self.file_problems.0 != self.file {
            self.file_problems = (self.file.clone(), 0);
        }
        self.file_problems.1 += 1;
        if self.file_problems.1 <= PROBLEMS_PER_FILE {
            return false;
        }
        match self.deferred.unlisted.last_mut() {
            Some((f, n)) if *f == self.file => *n += 1,
            _ => self.deferred.unlisted.push((self.file.clone(), 1)),
        }
        true
    }

    /// The file the next lines are about.
    fn set_file(&mut self, file: &Path) -> io::Result<()> {
        self.file = file.to_path_buf();
        Ok(())
    }

    fn file_name(&self) -> String {
        self.file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn optional_long(v: Option<i64>) -> String {
    match v {
        Some(x) => format!("OptionalLong[{x}]"),
        None => "OptionalLong.empty".into(),
    }
}

/// Appends an integer without `core::fmt`.
#[inline]
fn num<I: itoa::Integer>(buf: &mut Vec<u8>, v: I) {
    buf.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

#[inline]
fn boolean(buf: &mut Vec<u8>, v: bool) {
    buf.extend_from_slice(if v { b"true" } else { b"false" });
}

/// The text of one batch line of the dump (`baseOffset: ... isvalid: true`, without the
/// newline), appended to `o`: the one batch formatter, also `kseg grep --print-batch`'s.
pub fn write_batch_line(o: &mut Vec<u8>, position: u64, b: &BatchInfo) {
    if b.magic >= 2 {
        o.extend_from_slice(b"baseOffset: ");
        num(o, b.base_offset);
        o.extend_from_slice(b" lastOffset: ");
        num(o, b.last_offset);
        o.extend_from_slice(b" count: ");
        num(o, b.count.unwrap_or(0));
        o.extend_from_slice(b" baseSequence: ");
        num(o, b.base_sequence);
        o.extend_from_slice(b" lastSequence: ");
        num(o, b.last_sequence);
        o.extend_from_slice(b" producerId: ");
        num(o, b.producer_id);
        o.extend_from_slice(b" producerEpoch: ");
        num(o, b.producer_epoch);
        o.extend_from_slice(b" partitionLeaderEpoch: ");
        num(o, b.partition_leader_epoch);
        o.extend_from_slice(b" isTransactional: ");
        boolean(o, b.is_transactional);
        o.extend_from_slice(b" isControl: ");
        boolean(o, b.is_control);
        o.extend_from_slice(b" deleteHorizonMs: ");
        match b.delete_horizon_ms {
            Some(x) => {
                o.extend_from_slice(b"OptionalLong[");
                num(o, x);
                o.push(b']');
            }
            None => o.extend_from_slice(b"OptionalLong.empty"),
        }
    } else {
        o.extend_from_slice(b"offset: ");
        num(o, b.last_offset);
    }
    o.extend_from_slice(b" position: ");
    num(o, position);
    o.push(b' ');
    o.extend_from_slice(b.timestamp_type.name().as_bytes());
    o.extend_from_slice(b": ");
    num(o, b.max_timestamp);
    o.extend_from_slice(b" size: ");
    num(o, b.size);
    o.extend_from_slice(b" magic: ");
    num(o, b.magic);
    o.extend_from_slice(b" compresscodec: ");
    o.extend_from_slice(b.codec.name().as_bytes());
    o.extend_from_slice(b" crc: ");
    num(o, b.crc);
    o.extend_from_slice(b" isvalid: ");
    boolean(o, b.crc_valid);
}

/// The text of one record line of the dump (`| offset: ... payload: ...`, without the newline),
/// appended to `o`: the one record formatter, also `kseg grep`'s. `decoded` is scratch for an
/// internal topic's decoded key and value.
pub fn write_record_line(
    o: &mut Vec<u8>,
    style: TextStyle,
    decoded: &mut Vec<u8>,
    view: &RecordView<'_>,
) -> io::Result<()> {
    write_record_line_with(o, style, false, decoded, view)
}

/// [`write_record_line`]; with `header_values`, `headers: [name=value,...]` (escaped; a null
/// value as the name alone) in place of kafka-dump-log's `headerKeys: [name,...]` (grep's line).
pub fn write_record_line_with(
    o: &mut Vec<u8>,
    style: TextStyle,
    header_values: bool,
    decoded: &mut Vec<u8>,
    view: &RecordView<'_>,
) -> io::Result<()> {
    let (b, r) = (view.batch, view.record);
    if !style.skip_record_metadata {
        o.extend_from_slice(b"| offset: ");
        num(o, r.offset);
        o.push(b' ');
        o.extend_from_slice(b.timestamp_type.name().as_bytes());
        o.extend_from_slice(b": ");
        num(o, r.timestamp);
        o.extend_from_slice(b" keySize: ");
        num(o, r.key.map_or(-1, |k| k.len() as i64));
        o.extend_from_slice(b" valueSize: ");
        num(o, r.value.map_or(-1, |v| v.len() as i64));
        if b.magic >= 2 {
            o.extend_from_slice(b" sequence: ");
            num(o, r.sequence.unwrap_or(-1));
            o.extend_from_slice(if header_values {
                b" headers: ["
            } else {
                b" headerKeys: ["
            });
            for (i, h) in r.headers.iter().enumerate() {
                if i > 0 {
                    o.push(b',');
                }
                push_escaped(o, h.key);
                if let (true, Some(v)) = (header_values, h.value) {
                    o.push(b'=');
                    push_escaped(o, v);
                }
            }
            o.push(b']');
        }
        if let Some(l) = r.legacy {
            o.extend_from_slice(b" isValid: ");
            boolean(o, l.valid);
            o.extend_from_slice(b" crc: ");
            num(o, l.crc);
        }
        if b.is_control {
            // Rare (one per transaction or leader change): plain formatting is fine here.
            match view.control {
                None => {}
                Some(Ok(c)) => match c.kind {
                    ControlType::Abort | ControlType::Commit => write!(
                        o,
                        " endTxnMarker: {} coordinatorEpoch: {}",
                        c.kind.name(),
                        c.coordinator_epoch.unwrap_or(-1)
                    )?,
                    ControlType::LeaderChange => {
                        write!(o, " LeaderChange: {}", data_json(c.data.as_ref()))?
                    }
                    ControlType::SnapshotHeader => {
                        write!(o, " SnapshotHeader {}", data_json(c.data.as_ref()))?
                    }
                    ControlType::SnapshotFooter => {
                        write!(o, " SnapshotFooter {}", data_json(c.data.as_ref()))?
                    }
                    ControlType::KRaftVersion => {
                        write!(o, " KRaftVersion {}", data_json(c.data.as_ref()))?
                    }
                    ControlType::KRaftVoters => {
                        write!(o, " KRaftVoters {}", data_json(c.data.as_ref()))?
                    }
                    ControlType::Unknown(id) => write!(o, " controlType: UNKNOWN({id})")?,
                },
                Some(Err(e)) => write!(o, " controlType: INVALID ({})", e.message)?,
            }
        }
    }
    if style.print_data && !b.is_control {
        let mut prefix: &[u8] = if style.skip_record_metadata {
            b"| "
        } else {
            b" "
        };
        if let Some(d) = view.decoded {
            let text = &mut *decoded;
            let (k, v) = write_decoded_text(text, d, r.offset, r.key, r.value);
            if let Some(k) = k {
                o.extend_from_slice(prefix);
                o.extend_from_slice(b"key: ");
                push_escaped(o, &text[k]);
                prefix = b" ";
            }
            if let Some(v) = v {
                o.extend_from_slice(prefix);
                o.extend_from_slice(b"payload: ");
                push_escaped(o, &text[v]);
            }
        } else {
            if let Some(k) = r.key {
                o.extend_from_slice(prefix);
                o.extend_from_slice(b"key: ");
                push_escaped(o, k);
                prefix = b" ";
            }
            if let Some(v) = r.value {
                o.extend_from_slice(prefix);
                o.extend_from_slice(b"payload: ");
                push_escaped(o, v);
            }
        }
    }
    Ok(())
}

impl<W: Write> DumpRecords for TextDump<W> {
    fn flush_out(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn batch(&mut self, position: u64, b: &BatchInfo) -> io::Result<()> {
        let o = &mut self.out.buf;
        write_batch_line(o, position, b);
        o.push(b'\n');
        self.out.line_done()
    }

    #[inline]
    fn record(&mut self, view: &RecordView<'_>) -> io::Result<()> {
        let o = &mut self.out.buf;
        write_record_line(o, self.style, &mut self.decoded, view)?;
        o.push(b'\n');
        self.out.line_done()
    }

    /// Held for the end, as Kafka lists them (`Non-consecutive offsets in <file>`).
    fn gap(&mut self, previous: i64, offset: i64) -> io::Result<()> {
        let file = absolute(&self.file);
        match self.deferred.gaps.last_mut() {
            Some((f, m)) if *f == file => {
                m.insert(previous, offset);
            }
            _ => self
                .deferred
                .gaps
                .push((file, BTreeMap::from([(previous, offset)]))),
        }
        Ok(())
    }

    fn shows_payloads(&self) -> bool {
        self.style.print_data
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<()> {
        match p {
            LogProblem::Tail { length, .. } => writeln!(
                self.out,
                "Found {length} invalid bytes at the end of {}",
                self.file_name()
            )?,
            LogProblem::Corrupt {
                position, length, ..
            } => writeln!(
                self.out,
                "Found {length} invalid bytes at position {position} of {}",
                self.file_name()
            )?,
            LogProblem::BadEntry { .. } => {}
        }
        self.out.flush()?;
        report_error(&self.file, Some(p.position()), &p.message());
        Ok(())
    }
}

impl<W: Write> DumpPrinter for TextDump<W> {
    fn begin_file(&mut self, file: &Path, kind: &FileKind) -> io::Result<()> {
        self.set_file(file)?;
        writeln!(self.out, "Dumping {}", escaped_path(file))?;
        let name = self.file_name();
        match kind {
            FileKind::Log => {
                if let Some(base) = base_offset_of(&name) {
                    writeln!(self.out, "Log starting offset: {base}")?;
                }
            }
            FileKind::BootstrapCheckpoint => writeln!(self.out, "KRaft bootstrap snapshot")?,
            FileKind::KraftSnapshot { end_offset, epoch } => writeln!(
                self.out,
                "Snapshot end offset: {end_offset}, epoch: {epoch}"
            )?,
            FileKind::Deleted(_) | FileKind::Cleaned(_) | FileKind::Swap(_) => {
                writeln!(self.out, "Note: this is a {}", kind.describe())?
            }
            _ => {}
        }
        Ok(())
    }

    fn index_entry(&mut self, e: &OffsetEntry) -> io::Result<()> {
        if !self.style.verify_only {
            let o = &mut self.out.buf;
            o.extend_from_slice(b"offset: ");
            num(o, e.offset);
            o.extend_from_slice(b" position: ");
            num(o, e.position);
            o.push(b'\n');
            self.out.line_done()?;
        }
        Ok(())
    }

    fn time_index_entry(&mut self, e: &TimeEntry) -> io::Result<()> {
        if !self.style.verify_only {
            let o = &mut self.out.buf;
            o.extend_from_slice(b"timestamp: ");
            num(o, e.timestamp);
            o.extend_from_slice(b" offset: ");
            num(o, e.offset);
            o.push(b'\n');
            self.out.line_done()?;
        }
        Ok(())
    }

    fn index_empty(&mut self) -> io::Result<()> {
        writeln!(self.out, "{} is empty.", escaped_path(&self.file))
    }

    fn sanity_passed(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "{} passed sanity check.",
            escaped_path(&self.file)
        )
    }

    fn index_mismatch(&mut self, index_offset: i64, log_offset: i64) -> io::Result<()> {
        if self.over_problem_cap() {
            return Ok(());
        }
        let file = absolute(&self.file);
        match self.deferred.mismatches.last_mut() {
            Some((f, m)) if *f == file => {
                m.insert(std::cmp::Reverse(index_offset), log_offset);
            }
            _ => self.deferred.mismatches.push((
                file,
                BTreeMap::from([(std::cmp::Reverse(index_offset), log_offset)]),
            )),
        }
        Ok(())
    }

    fn note(&mut self, message: &str) -> io::Result<()> {
        self.deferred
            .notes
            .push((absolute(&self.file), message.to_string()));
        Ok(())
    }

    fn time_index_problem(&mut self, problem: TimeIndexProblem) -> io::Result<()> {
        if self.over_problem_cap() {
            return Ok(());
        }
        self.deferred
            .time_problems
            .push((absolute(&self.file), problem));
        Ok(())
    }

    fn aborted_txn(&mut self, t: &AbortedTxn) -> io::Result<()> {
        writeln!(
            self.out,
            "version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
            t.version, t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset
        )
    }

    fn producer_entry(&mut self, e: &ProducerEntry) -> io::Result<()> {
        write!(
            self.out,
            "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {}",
            e.producer_id,
            e.epoch,
            e.coordinator_epoch,
            optional_long((e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset)),
            e.timestamp
        )?;
        if e.has_batch_metadata() {
            write!(
                self.out,
                " firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                e.first_sequence(),
                e.last_sequence,
                e.last_offset,
                e.offset_delta,
                e.timestamp
            )?;
        }
        writeln!(self.out)
    }

    fn checkpoint_entry(&mut self, e: &CheckpointEntry) -> io::Result<()> {
        match e {
            CheckpointEntry::Partition {
                topic,
                partition,
                offset,
            } => {
                writeln!(
                    self.out,
                    "topic: {topic} partition: {partition} offset: {offset}"
                )
            }
            CheckpointEntry::Epoch {
                epoch,
                start_offset,
            } => {
                writeln!(self.out, "epoch: {epoch} startOffset: {start_offset}")
            }
        }
    }

    fn file_content(&mut self, content: &Value) -> io::Result<()> {
        if let Value::Object(map) = content {
            for (k, v) in map {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                write!(self.out, "{k}: ")?;
                write_escaped(&mut self.out, text.as_bytes())?;
                writeln!(self.out)?;
            }
        }
        Ok(())
    }

    fn file_error(&mut self, position: Option<u64>, message: &str) -> io::Result<()> {
        self.out.flush()?;
        report_error(&self.file, position, message);
        Ok(())
    }

    fn unrecognised(&mut self, item: &Unrecognised) -> io::Result<()> {
        self.out.flush()?;
        if item.foreign_layout.is_some() {
            report_error(&item.path, None, &item.reason);
        } else {
            eprintln!(
                "Ignoring unknown file {} ({})",
                escaped_path(&item.path),
                item.reason
            );
        }
        Ok(())
    }

    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_through(bytes)
    }

    fn resume_file(&mut self, file: &Path) -> io::Result<()> {
        self.set_file(file)
    }

    fn take_deferred(&mut self) -> TextDeferred {
        std::mem::take(&mut self.deferred)
    }

    fn add_deferred(&mut self, deferred: TextDeferred) {
        self.deferred.append(deferred);
    }

    fn finish(&mut self, _summary: &DumpSummary) -> io::Result<()> {
        self.out.flush()?;
        let stderr = io::stderr();
        let mut err = stderr.lock();
        for (file, n) in &self.deferred.unlisted {
            writeln!(
                err,
                "kseg: note: {}: {n} more index problems not listed (the first {PROBLEMS_PER_FILE} are)",
                escaped_path(file)
            )?;
        }
        for (file, m) in &self.deferred.mismatches {
            writeln!(err, "Mismatches in :{}", escaped_path(file))?;
            for (std::cmp::Reverse(index), log) in m {
                writeln!(err, "  Index offset: {index}, log offset: {log}")?;
            }
            for (_, note) in self.deferred.notes.iter().filter(|(f, _)| f == file) {
                writeln!(err, "kseg: note: {}: {note}", escaped_path(file))?;
            }
        }
        for (file, note) in &self.deferred.notes {
            if !self.deferred.mismatches.iter().any(|(f, _)| f == file) {
                writeln!(err, "kseg: note: {}: {note}", escaped_path(file))?;
            }
        }
        // Kafka's order: mismatches, then out-of-order timestamps, then offsets not found.
        let groups = |want: fn(&TimeIndexProblem) -> bool| {
            let mut out: Vec<(&PathBuf, Vec<TimeIndexProblem>)> = Vec::new();
            for (f, p) in self.deferred.time_problems.iter().filter(|(_, p)| want(p)) {
                match out.last_mut() {
                    Some((g, list)) if *g == f => list.push(*p),
                    _ => out.push((f, vec![*p])),
                }
            }
            out
        };
        for (file, list) in groups(|p| matches!(p, TimeIndexProblem::Mismatch { .. })) {
            writeln!(err, "Found timestamp mismatch in :{}", escaped_path(file))?;
            for p in list {
                if let TimeIndexProblem::Mismatch {
                    index_timestamp,
                    log_timestamp,
                } = p
                {
                    writeln!(
                        err,
                        "  Index timestamp: {index_timestamp}, log timestamp: {log_timestamp}"
                    )?;
                }
            }
        }
        for (file, list) in groups(|p| matches!(p, TimeIndexProblem::OutOfOrder { .. })) {
            writeln!(
                err,
                "Found out of order timestamp in :{}",
                escaped_path(file)
            )?;
            for p in list {
                if let TimeIndexProblem::OutOfOrder {
                    index_timestamp,
                    previous,
                } = p
                {
                    writeln!(err, "  Index timestamp: {index_timestamp}, Previously indexed timestamp: {previous}")?;
                }
            }
        }
        for (file, list) in groups(|p| matches!(p, TimeIndexProblem::NotFound { .. })) {
            writeln!(
                err,
                "The following indexed offsets are not found in :{}",
                escaped_path(file)
            )?;
            for p in list {
                if let TimeIndexProblem::NotFound {
                    index_offset,
                    found,
                } = p
                {
                    writeln!(
                        err,
                        "Indexed offset: {index_offset}, found log offset: {found}"
                    )?;
                }
            }
        }
        for (file, gaps) in &self.deferred.gaps {
            writeln!(err, "Non-consecutive offsets in {}", escaped_path(file))?;
            for (prev, next) in gaps {
                writeln!(err, "  {prev} is followed by {next}")?;
            }
        }
        Ok(())
    }
}

/// Kafka's `CorruptIndexException` message for an index failing `sanityCheck`, word for word
/// (`OffsetIndex`/`TimeIndex.sanityCheck`), with the file's absolute path as Java prints it.
pub fn sanity_message(e: &SanityError, time: bool, path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let abs = escaped_path(&abs);
    match (*e, time) {
        (SanityError::PartialEntry { length, entry_size }, false) => format!(
            "Index file {abs} is corrupt, found {length} bytes which is neither positive nor a multiple of {entry_size}"
        ),
        (SanityError::PartialEntry { length, entry_size }, true) => format!(
            "Time index file {abs} is corrupt, found {length} bytes which is neither positive nor a multiple of {entry_size}"
        ),
        (SanityError::LastOffsetBelowBase { last, base }, false) => format!(
            "Corrupt index found, index file {abs} has non-zero size but the last offset is {last} which is less than the base offset {base}"
        ),
        (SanityError::LastOffsetBelowBase { last, base }, true) => format!(
            "Corrupt time index found, time index file ({abs}) has non-zero size but the last offset is {last} which is less than the first offset {base}"
        ),
        (SanityError::LastTimestampBelowFirst { last, first }, _) => format!(
            "Corrupt time index found, time index file ({abs}) has non-zero size but the last timestamp is {last} which is less than the first timestamp {first}"
        ),
    }
}

/// What a zero-filled index with no entries is: Kafka's tool reads its first slot as an entry
/// (offset = base, position 0) and reports it as a mismatch; it is the preallocation of a segment
/// the broker has not closed, as `verify-index` reports it (`index-preallocated`).
pub fn preallocated_note(
    layout: &kseg_format::index::IndexLayout,
    len: usize,
    later_segment: bool,
) -> String {
    format!(
        "a preallocated {}index ({len} bytes, zero-filled, {} real entries): the mismatch at its \
         first slot is that zero padding, not an index entry{}",
        if later_segment { "" } else { "active " },
        layout.real_entries,
        if later_segment {
            " (the segment was not closed: Kafka trims the index when it rolls a segment)"
        } else {
            " (normal for the active segment of a running or crashed broker)"
        }
    )
}

/// A partial entry at the end of the active segment's index: one being appended when the file
/// was read (a live broker's), not damage.
pub fn partial_active_entry_note(partial_bytes: usize, entry_size: usize) -> String {
    format!(
        "{partial_bytes} bytes of a {entry_size}-byte entry at the end of the active segment's \
         index: an entry being written (normal while the broker runs; Kafka rebuilds or trims \
         the active segment's indexes when it next loads the log)"
    )
}

/// A control message's JSON for the text dump (`null` when there is none).
fn data_json(d: Option<&kseg_format::control::ControlData>) -> serde_json::Value {
    d.map_or(serde_json::Value::Null, super::control::data_json)
}
