//! `kseg dump-log --json`: NDJSON, one object per line, each with a `"type"`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::ndjson::JsonLine;
use super::LineOut;
use super::{report_error, DumpPrinter, DumpSummary, TimeIndexProblem};
use kseg_analysis::dump::{DumpRecords, RecordView};
use kseg_escape::Encoding;
use kseg_format::index::{OffsetEntry, TimeEntry};
use kseg_format::log::BatchInfo;
use kseg_format::producer_snapshot::ProducerEntry;
use kseg_format::text_files::CheckpointEntry;
use kseg_format::txn_index::AbortedTxn;
use kseg_scan::LogProblem;
use kseg_storage::discover::Unrecognised;
use kseg_storage::layout::FileKind;

pub struct JsonDump<W: Write> {
    out: LineOut<W>,
    encoding: Encoding,
    file: PathBuf,
    /// The `file` value, already JSON-escaped, so records do not re-escape it.
    file_json: Vec<u8>,
}

impl<W: Write> JsonDump<W> {
    pub fn new(out: W, encoding: Encoding) -> Self {
        Self::over(LineOut::new(out), encoding)
    }

    /// Over a writer that takes whole buffers ([`crate::TakesBuffers`]): the output is not
    /// copied a second time.
    pub fn handing_off(out: W, encoding: Encoding) -> Self
    where
        W: crate::TakesBuffers,
    {
        Self::over(LineOut::handing_off(out), encoding)
    }

    fn over(out: LineOut<W>, encoding: Encoding) -> Self {
        JsonDump {
            out,
            encoding,
            file: PathBuf::new(),
            file_json: b"\"\"".to_vec(),
        }
    }

    /// The output buffer, to append JSON to.
    #[inline]
    /// The file the next lines are about.
    fn set_file(&mut self, file: &Path) -> io::Result<()> {
        self.file = file.to_path_buf();
        self.file_json = serde_json::to_vec(&file.to_string_lossy()).map_err(io::Error::from)?;
        Ok(())
    }

    fn l(&mut self) -> JsonLine<'_> {
        JsonLine(&mut self.out.buf)
    }

    /// Starts the line `{"type":"<t>","file":<file>` — callers add fields, then [`Self::end`].
    #[inline]
    fn open(&mut self, t: &str) {
        let b = &mut self.out.buf;
        b.extend_from_slice(b"{\"type\":\"");
        b.extend_from_slice(t.as_bytes());
        b.extend_from_slice(b"\",\"file\":");
        b.extend_from_slice(&self.file_json);
    }

    /// Closes the object and the line.
    #[inline]
    fn end(&mut self) -> io::Result<()> {
        self.out.buf.extend_from_slice(b"}\n");
        self.out.line_done()
    }

    /// `,"<k>":` — `k` is one of this printer's field names (no escaping needed).
    #[inline]
    fn key(&mut self, k: &str) {
        self.l().raw(b",\"");
        self.l().raw(k.as_bytes());
        self.l().raw(b"\":");
    }

    fn value_line(&mut self, t: &str, fields: Value) -> io::Result<()> {
        self.open(t);
        if let Value::Object(map) = fields {
            for (k, v) in map {
                self.key(&k);
                self.l().value(&v);
            }
        }
        self.end()
    }
}

fn kind_name(kind: &FileKind) -> &'static str {
    match kind {
        FileKind::Log => "log",
        FileKind::OffsetIndex => "offsetIndex",
        FileKind::TimeIndex => "timeIndex",
        FileKind::TxnIndex => "txnIndex",
        FileKind::ProducerSnapshot => "producerSnapshot",
        FileKind::KraftSnapshot { .. } => "kraftSnapshot",
        FileKind::BootstrapCheckpoint => "bootstrapCheckpoint",
        FileKind::LeaderEpochCheckpoint => "leaderEpochCheckpoint",
        FileKind::PartitionMetadata => "partitionMetadata",
        FileKind::RecoveryPointCheckpoint => "recoveryPointCheckpoint",
        FileKind::LogStartOffsetCheckpoint => "logStartOffsetCheckpoint",
        FileKind::ReplicationOffsetCheckpoint => "replicationOffsetCheckpoint",
        FileKind::CleanerOffsetCheckpoint => "cleanerOffsetCheckpoint",
        FileKind::MetaProperties => "metaProperties",
        FileKind::CleanShutdown => "cleanShutdown",
        FileKind::Lock => "lock",
        FileKind::QuorumState => "quorumState",
        FileKind::Deleted(_) => "deleted",
        FileKind::Cleaned(_) => "cleaned",
        FileKind::Swap(_) => "swap",
        FileKind::Temporary => "temporary",
        FileKind::IncompleteCopy => "incompleteCopy",
        FileKind::Unknown => "unknown",
    }
}

/// The members of a dump `"record"` object after `"file"` (`,"batchPosition":...` up to the
/// closing brace, not included), appended to `out`: the one record object, also `kseg grep
/// --json`'s.
pub fn write_record_fields(out: &mut Vec<u8>, encoding: Encoding, view: &RecordView<'_>) {
    let r = view.record;
    let l = &mut JsonLine(out);
    l.raw(b",\"batchPosition\":");
    l.int(view.batch_position);
    l.raw(b",\"offset\":");
    l.int(r.offset);
    l.raw(b",\"timestamp\":");
    l.int(r.timestamp);
    l.raw(b",\"timestampType\":");
    l.plain(r.timestamp_type.name());
    if let Some(seq) = r.sequence {
        l.raw(b",\"sequence\":");
        l.int(seq);
    }
    if let Some(c) = r.legacy {
        l.raw(b",\"crc\":");
        l.int(c.crc);
        l.raw(b",\"crcValid\":");
        l.bool(c.valid);
    }
    l.raw(b",\"key\":");
    l.bytes(r.key, encoding);
    l.raw(b",\"value\":");
    l.bytes(r.value, encoding);
    l.raw(b",\"headers\":[");
    for (i, h) in r.headers.iter().enumerate() {
        if i > 0 {
            l.raw(b",");
        }
        l.raw(b"{\"key\":");
        l.bytes(Some(h.key), Encoding::Auto);
        l.raw(b",\"value\":");
        l.bytes(h.value, encoding);
        l.raw(b"}");
    }
    l.raw(b"]");
    if let Some(d) = view.decoded {
        super::coordinator::write_decoded_json(l.0, d, r.offset, r.key, r.value);
    }
    if let Some(control) = view.control {
        let control = match control {
            Ok(c) => super::control::record_json(c),
            Err(e) => json!({"type": "INVALID", "error": e.message}),
        };
        l.raw(b",\"control\":");
        l.value(&control);
    }
}

/// The members of a dump `"batch"` object after `"file"`, appended to `out`: the one batch
/// object, also `kseg grep --json --print-batch`'s.
pub fn write_batch_fields(out: &mut Vec<u8>, position: u64, b: &BatchInfo) {
    let l = &mut JsonLine(out);
    l.raw(b",\"position\":");
    l.int(position);
    l.raw(b",\"baseOffset\":");
    l.int(b.base_offset);
    l.raw(b",\"lastOffset\":");
    l.int(b.last_offset);
    l.raw(b",\"count\":");
    l.opt_int(b.count);
    l.raw(b",\"magic\":");
    l.int(b.magic);
    l.raw(b",\"compression\":");
    l.plain(b.codec.name());
    l.raw(b",\"timestampType\":");
    l.plain(b.timestamp_type.name());
    l.raw(b",\"maxTimestamp\":");
    l.int(b.max_timestamp);
    l.raw(b",\"firstTimestamp\":");
    l.int(b.first_timestamp);
    l.raw(b",\"producerId\":");
    l.int(b.producer_id);
    l.raw(b",\"producerEpoch\":");
    l.int(b.producer_epoch);
    l.raw(b",\"baseSequence\":");
    l.int(b.base_sequence);
    l.raw(b",\"lastSequence\":");
    l.int(b.last_sequence);
    l.raw(b",\"partitionLeaderEpoch\":");
    l.int(b.partition_leader_epoch);
    l.raw(b",\"isTransactional\":");
    l.bool(b.is_transactional);
    l.raw(b",\"isControl\":");
    l.bool(b.is_control);
    l.raw(b",\"deleteHorizonMs\":");
    l.opt_int(b.delete_horizon_ms);
    l.raw(b",\"crc\":");
    l.int(b.crc);
    l.raw(b",\"crcValid\":");
    l.bool(b.crc_valid);
    l.raw(b",\"size\":");
    l.int(b.size);
}

impl<W: Write> DumpRecords for JsonDump<W> {
    fn flush_out(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn batch(&mut self, position: u64, b: &BatchInfo) -> io::Result<()> {
        self.open("batch");
        write_batch_fields(&mut self.out.buf, position, b);
        self.end()
    }

    #[inline]
    fn record(&mut self, view: &RecordView<'_>) -> io::Result<()> {
        self.open("record");
        write_record_fields(&mut self.out.buf, self.encoding, view);
        self.end()
    }

    fn gap(&mut self, previous: i64, offset: i64) -> io::Result<()> {
        self.open("nonConsecutive");
        self.l().raw(b",\"previous\":");
        self.l().int(previous);
        self.l().raw(b",\"offset\":");
        self.l().int(offset);
        self.end()
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<()> {
        let kind = match p {
            LogProblem::Corrupt { .. } => "invalidBytes",
            LogProblem::Tail { .. } => "trailingBytes",
            LogProblem::BadEntry { .. } => "undecodableBatch",
        };
        let message = p.message();
        self.open("error");
        self.l().raw(b",\"position\":");
        self.l().int(p.position());
        self.l().raw(b",\"length\":");
        self.l().int(p.length());
        self.l().raw(b",\"kind\":");
        self.l().plain(kind);
        self.l().raw(b",\"message\":");
        self.l().str(&message);
        self.end()?;
        self.out.flush()?;
        report_error(&self.file, Some(p.position()), &message);
        Ok(())
    }
}

impl<W: Write> DumpPrinter for JsonDump<W> {
    fn begin_file(&mut self, file: &Path, kind: &FileKind) -> io::Result<()> {
        self.set_file(file)?;
        let mut fields = json!({"kind": kind_name(kind), "description": kind.describe()});
        if let FileKind::KraftSnapshot { end_offset, epoch } = kind {
            fields["snapshotEndOffset"] = (*end_offset).into();
            fields["snapshotEpoch"] = (*epoch).into();
        }
        self.value_line("file", fields)
    }

    fn index_entry(&mut self, e: &OffsetEntry) -> io::Result<()> {
        self.open("indexEntry");
        self.l().raw(b",\"offset\":");
        self.l().int(e.offset);
        self.l().raw(b",\"position\":");
        self.l().int(e.position);
        self.end()
    }

    fn time_index_entry(&mut self, e: &TimeEntry) -> io::Result<()> {
        self.open("timeIndexEntry");
        self.l().raw(b",\"timestamp\":");
        self.l().int(e.timestamp);
        self.l().raw(b",\"offset\":");
        self.l().int(e.offset);
        self.end()
    }

    fn index_empty(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn sanity_passed(&mut self) -> io::Result<()> {
        self.value_line("sanityCheck", json!({"passed": true}))
    }

    fn index_mismatch(&mut self, index_offset: i64, log_offset: i64) -> io::Result<()> {
        self.value_line(
            "indexMismatch",
            json!({"indexOffset": index_offset, "logOffset": log_offset}),
        )
    }

    fn note(&mut self, message: &str) -> io::Result<()> {
        self.value_line("note", json!({ "message": message }))
    }

    fn time_index_problem(&mut self, problem: TimeIndexProblem) -> io::Result<()> {
        match problem {
            TimeIndexProblem::Mismatch {
                index_timestamp,
                log_timestamp,
            } => self.value_line(
                "timeIndexMismatch",
                json!({"indexTimestamp": index_timestamp, "logTimestamp": log_timestamp}),
            ),
            TimeIndexProblem::OutOfOrder {
                index_timestamp,
                previous,
            } => self.value_line(
                "timeIndexOutOfOrder",
                json!({"indexTimestamp": index_timestamp, "previousTimestamp": previous}),
            ),
            TimeIndexProblem::NotFound {
                index_offset,
                found,
            } => self.value_line(
                "timeIndexOffsetNotFound",
                json!({"indexOffset": index_offset, "foundLogOffset": found}),
            ),
        }
    }

    fn aborted_txn(&mut self, t: &AbortedTxn) -> io::Result<()> {
        self.value_line(
            "abortedTxn",
            json!({"version": t.version, "producerId": t.producer_id, "firstOffset": t.first_offset,
                   "lastOffset": t.last_offset, "lastStableOffset": t.last_stable_offset}),
        )
    }

    fn producer_entry(&mut self, e: &ProducerEntry) -> io::Result<()> {
        let mut v = json!({"producerId": e.producer_id, "producerEpoch": e.epoch,
            "coordinatorEpoch": e.coordinator_epoch,
            "currentTxnFirstOffset": (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
            "lastTimestamp": e.timestamp});
        if e.has_batch_metadata() {
            v["firstSequence"] = e.first_sequence().into();
            v["lastSequence"] = e.last_sequence.into();
            v["lastOffset"] = e.last_offset.into();
            v["offsetDelta"] = e.offset_delta.into();
        }
        self.value_line("producerState", v)
    }

    fn checkpoint_entry(&mut self, e: &CheckpointEntry) -> io::Result<()> {
        let v = match e {
            CheckpointEntry::Partition {
                topic,
                partition,
                offset,
            } => {
                json!({"topic": topic, "partition": partition, "offset": offset})
            }
            CheckpointEntry::Epoch {
                epoch,
                start_offset,
            } => json!({"epoch": epoch, "startOffset": start_offset}),
        };
        self.value_line("checkpointEntry", v)
    }

    fn file_content(&mut self, content: &Value) -> io::Result<()> {
        self.value_line("fileContent", json!({ "content": content }))
    }

    fn file_error(&mut self, position: Option<u64>, message: &str) -> io::Result<()> {
        self.value_line(
            "error",
            json!({"position": position, "length": null, "message": message}),
        )?;
        self.out.flush()?;
        report_error(&self.file, position, message);
        Ok(())
    }

    fn unrecognised(&mut self, item: &Unrecognised) -> io::Result<()> {
        let file = item.path.to_string_lossy();
        let v = json!({"type": if item.foreign_layout.is_some() { "error" } else { "unrecognised" },
            "file": file, "position": null, "length": null, "layout": item.foreign_layout, "message": item.reason});
        self.l().value(&v);
        self.l().raw(b"\n");
        self.out.line_done()?;
        if item.foreign_layout.is_some() {
            self.out.flush()?;
            report_error(&item.path, None, &item.reason);
        }
        Ok(())
    }

    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_through(bytes)
    }

    fn resume_file(&mut self, file: &Path) -> io::Result<()> {
        self.set_file(file)
    }

    fn finish(&mut self, s: &DumpSummary) -> io::Result<()> {
        let v = json!({"type": "summary", "files": s.files, "batches": s.batches, "records": s.records,
            "errors": s.errors, "crcErrors": s.crc_errors, "invalidBytes": s.invalid_bytes,
            "unrecognised": s.unrecognised});
        self.l().value(&v);
        self.l().raw(b"\n");
        self.out.flush()
    }
}
