//! `kseg dump-log --json`: NDJSON, one object per line, each with a `"type"`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::escape::{write_json_bytes, write_json_str, Encoding};
use super::{report_error, DumpPrinter, DumpSummary, TimeIndexProblem};
use crate::format::control::{decode_control, ControlType};
use crate::format::index::{OffsetEntry, TimeEntry};
use crate::format::internal::{decode_record, InternalDecoder};
use crate::format::log::{BatchInfo, LogEntry, LogRecord};
use crate::format::producer_snapshot::ProducerEntry;
use crate::format::text_files::CheckpointEntry;
use crate::format::txn_index::AbortedTxn;
use crate::scan::{Flow, LogProblem, LogSink};
use crate::storage::discover::Unrecognised;
use crate::storage::layout::FileKind;

pub struct JsonDump<W: Write> {
    out: W,
    encoding: Encoding,
    decoder: Option<InternalDecoder>,
    file: PathBuf,
    /// The `file` value, already JSON-escaped, so records do not re-escape it.
    file_json: Vec<u8>,
    scratch: String,
    last_offset: i64,
}

impl<W: Write> JsonDump<W> {
    pub fn new(out: W, encoding: Encoding) -> Self {
        JsonDump {
            out,
            encoding,
            decoder: None,
            file: PathBuf::new(),
            file_json: b"\"\"".to_vec(),
            scratch: String::new(),
            last_offset: -1,
        }
    }

    /// Writes `{"type":"<t>","file":<file>` — callers add fields and close the object.
    fn open(&mut self, t: &str) -> io::Result<()> {
        write!(self.out, "{{\"type\":\"{t}\",\"file\":")?;
        self.out.write_all(&self.file_json)
    }

    fn value_line(&mut self, t: &str, fields: Value) -> io::Result<()> {
        self.open(t)?;
        if let Value::Object(map) = fields {
            for (k, v) in map {
                write!(self.out, ",\"{k}\":")?;
                serde_json::to_writer(&mut self.out, &v).map_err(io::Error::from)?;
            }
        }
        self.out.write_all(b"}\n")
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
        FileKind::Unknown => "unknown",
    }
}

impl<W: Write> LogSink for JsonDump<W> {
    fn batch(&mut self, position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.open("batch")?;
        let count = match b.count {
            Some(c) => c.to_string(),
            None => "null".into(),
        };
        let horizon = match b.delete_horizon_ms {
            Some(h) => h.to_string(),
            None => "null".into(),
        };
        writeln!(
            self.out,
            ",\"position\":{position},\"baseOffset\":{},\"lastOffset\":{},\"count\":{count},\"magic\":{},\"compression\":\"{}\",\"timestampType\":\"{}\",\"maxTimestamp\":{},\"firstTimestamp\":{},\"producerId\":{},\"producerEpoch\":{},\"baseSequence\":{},\"lastSequence\":{},\"partitionLeaderEpoch\":{},\"isTransactional\":{},\"isControl\":{},\"deleteHorizonMs\":{horizon},\"crc\":{},\"crcValid\":{},\"size\":{}}}",
            b.base_offset,
            b.last_offset,
            b.magic,
            b.codec.name(),
            b.timestamp_type.name(),
            b.max_timestamp,
            b.first_timestamp,
            b.producer_id,
            b.producer_epoch,
            b.base_sequence,
            b.last_sequence,
            b.partition_leader_epoch,
            b.is_transactional,
            b.is_control,
            b.crc,
            b.crc_valid,
            b.size
        )?;
        Ok(Flow::Continue)
    }

    fn record(&mut self, position: u64, b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if r.offset != self.last_offset.wrapping_add(1) {
            self.open("nonConsecutive")?;
            writeln!(
                self.out,
                ",\"previous\":{},\"offset\":{}}}",
                self.last_offset, r.offset
            )?;
        }
        self.last_offset = r.offset;
        self.open("record")?;
        write!(
            self.out,
            ",\"batchPosition\":{position},\"offset\":{},\"timestamp\":{},\"timestampType\":\"{}\"",
            r.offset,
            r.timestamp,
            r.timestamp_type.name()
        )?;
        if let Some(seq) = r.sequence {
            write!(self.out, ",\"sequence\":{seq}")?;
        }
        if let Some(l) = r.legacy {
            write!(self.out, ",\"crc\":{},\"crcValid\":{}", l.crc, l.valid)?;
        }
        self.out.write_all(b",\"key\":")?;
        write_json_bytes(&mut self.out, r.key, self.encoding, &mut self.scratch)?;
        self.out.write_all(b",\"value\":")?;
        write_json_bytes(&mut self.out, r.value, self.encoding, &mut self.scratch)?;
        self.out.write_all(b",\"headers\":[")?;
        for (i, h) in r.headers.iter().enumerate() {
            if i > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(b"{\"key\":")?;
            write_json_bytes(
                &mut self.out,
                Some(h.key),
                Encoding::Auto,
                &mut self.scratch,
            )?;
            self.out.write_all(b",\"value\":")?;
            write_json_bytes(&mut self.out, h.value, self.encoding, &mut self.scratch)?;
            self.out.write_all(b"}")?;
        }
        self.out.write_all(b"]")?;
        if let (Some(decoder), false) = (self.decoder, b.is_control) {
            let d = decode_record(decoder, r.offset, r.key, r.value);
            if let Some(k) = d.key_json {
                self.out.write_all(b",\"decodedKey\":")?;
                serde_json::to_writer(&mut self.out, &k).map_err(io::Error::from)?;
            }
            if let Some(v) = d.value_json {
                self.out.write_all(b",\"decodedValue\":")?;
                serde_json::to_writer(&mut self.out, &v).map_err(io::Error::from)?;
            }
        }
        if b.is_control {
            let control = match decode_control(r.key, r.value) {
                Ok(c) => {
                    let mut v = json!({"type": c.kind.name(), "typeId": c.type_id});
                    if let Some(e) = c.coordinator_epoch {
                        v["coordinatorEpoch"] = e.into();
                    }
                    if let Some(d) = c.data {
                        v["data"] = d;
                    }
                    if let ControlType::Unknown(_) = c.kind {
                        v["type"] = "UNKNOWN".into();
                    }
                    v
                }
                Err(e) => json!({"type": "INVALID", "error": e.message}),
            };
            self.out.write_all(b",\"control\":")?;
            serde_json::to_writer(&mut self.out, &control).map_err(io::Error::from)?;
        }
        self.out.write_all(b"}\n")?;
        Ok(Flow::Continue)
    }

    fn filtered(&mut self, last_offset: i64) {
        self.last_offset = last_offset;
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        let kind = match p {
            LogProblem::Corrupt { .. } => "invalidBytes",
            LogProblem::Tail { .. } => "trailingBytes",
            LogProblem::BadEntry { .. } => "undecodableBatch",
        };
        self.open("error")?;
        write!(
            self.out,
            ",\"position\":{},\"length\":{},\"kind\":\"{kind}\",\"message\":",
            p.position(),
            p.length()
        )?;
        write_json_str(&mut self.out, &p.message())?;
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        report_error(&self.file, Some(p.position()), &p.message());
        Ok(Flow::Continue)
    }
}

impl<W: Write> DumpPrinter for JsonDump<W> {
    fn set_decoder(&mut self, decoder: Option<InternalDecoder>) {
        self.decoder = decoder;
    }

    fn begin_file(&mut self, file: &Path, kind: &FileKind) -> io::Result<()> {
        self.file = file.to_path_buf();
        self.file_json = serde_json::to_vec(&file.to_string_lossy()).map_err(io::Error::from)?;
        // Like the text output: gaps are counted from the base offset in the file name.
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        self.last_offset = crate::storage::layout::base_offset_of(&name).unwrap_or(0) - 1;
        let mut fields = json!({"kind": kind_name(kind), "description": kind.describe()});
        if let FileKind::KraftSnapshot { end_offset, epoch } = kind {
            fields["snapshotEndOffset"] = (*end_offset).into();
            fields["snapshotEpoch"] = (*epoch).into();
        }
        self.value_line("file", fields)
    }

    fn index_entry(&mut self, e: &OffsetEntry) -> io::Result<()> {
        self.open("indexEntry")?;
        writeln!(
            self.out,
            ",\"offset\":{},\"position\":{}}}",
            e.offset, e.position
        )
    }

    fn time_index_entry(&mut self, e: &TimeEntry) -> io::Result<()> {
        self.open("timeIndexEntry")?;
        writeln!(
            self.out,
            ",\"timestamp\":{},\"offset\":{}}}",
            e.timestamp, e.offset
        )
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
        serde_json::to_writer(&mut self.out, &v).map_err(io::Error::from)?;
        self.out.write_all(b"\n")?;
        if item.foreign_layout.is_some() {
            self.out.flush()?;
            report_error(&item.path, None, &item.reason);
        }
        Ok(())
    }

    fn finish(&mut self, s: &DumpSummary) -> io::Result<()> {
        let v = json!({"type": "summary", "files": s.files, "batches": s.batches, "records": s.records,
            "errors": s.errors, "crcErrors": s.crc_errors, "invalidBytes": s.invalid_bytes,
            "unrecognised": s.unrecognised});
        serde_json::to_writer(&mut self.out, &v).map_err(io::Error::from)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}
