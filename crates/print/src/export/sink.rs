//! Where a search's matches and a walk's batches become rows: the records and batches tables of
//! one export, one topic-partition at a time.

use std::io;
use std::path::{Path, PathBuf};

use kseg_analysis::export::BatchRows;
use kseg_analysis::grep::MatchSink;
use kseg_analysis::groups::CommitEvent;
use kseg_analysis::transactions::TxnState;
use kseg_format::control::ControlRecord;
use kseg_format::log::{BatchInfo, LogRecord};
use kseg_format::reader::DecodeResult;
use kseg_scan::LogProblem;

use super::batches::{batches_plan, BatchesBuilder};
use super::offsets::{offsets_plan, OffsetsBuilder};
use super::records::{records_schema, Place, RecordsBuilder};
use super::{ColumnPlan, TableOut, WriteOptions};
use crate::report_error;

/// Damage met on the way, as the manifest lists it.
#[derive(Debug, Clone)]
pub struct Damage {
    pub file: PathBuf,
    pub position: u64,
    pub length: u64,
    /// dump-log's names: invalidBytes, trailingBytes, undecodableBatch, badChecksum.
    pub kind: &'static str,
    pub message: String,
}

/// The manifest lists this many damaged ranges; the rest are counted.
const DAMAGE_LISTED: usize = 10_000;

/// The records table of an export: a [`MatchSink`] for a search over each segment.
pub struct RecordsOut {
    table: TableOut,
    rows: RecordsBuilder,
    place: Place,
    file: PathBuf,
    pub damage: Vec<Damage>,
    pub damage_unlisted: u64,
    pub crc_errors: u64,
}

/// The records table's tuning: topic dictionary-encoded (one value per file), statistics on
/// what engines filter by.
fn records_plan() -> ColumnPlan {
    ColumnPlan {
        dictionary: &[
            &["topic"],
            &["kafka", "codec"],
            &["kafka", "transaction"],
            &["kafka", "controlType"],
            &["kafka", "segment"],
        ],
        statistics: &[
            &["topic"],
            &["partition"],
            &["offset"],
            &["timestamp"],
            &["timestampType"],
            &["kafka", "producerId"],
            &["kafka", "batchBaseOffset"],
            &["broker"],
        ],
    }
}

impl RecordsOut {
    pub fn new(root: &Path, opts: &WriteOptions) -> RecordsOut {
        RecordsOut {
            table: TableOut::new("records", root, records_schema(), records_plan(), opts),
            rows: RecordsBuilder::new(opts.batch_rows, opts.builder_bytes()),
            place: Place::default(),
            file: PathBuf::new(),
            damage: Vec::new(),
            damage_unlisted: 0,
            crc_errors: 0,
        }
    }

    /// The topic-partition whose rows come next (its broker from `meta.properties`).
    pub fn begin_partition(
        &mut self,
        topic: Option<&str>,
        partition: Option<i32>,
        broker: Option<i32>,
    ) {
        self.place.topic = topic.map(str::to_string);
        self.place.partition = partition;
        self.place.broker = broker;
    }

    /// The segment file the next rows come from.
    pub fn set_file(&mut self, file: &Path) {
        self.file = file.to_path_buf();
        self.place.segment = file.display().to_string();
    }

    fn flush_rows(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let batch = self.rows.finish();
        self.table
            .write(self.place.topic.as_deref(), self.place.partition, &batch)
    }

    /// The topic-partition is done: its part file is completed.
    pub fn end_partition(&mut self) -> io::Result<()> {
        self.flush_rows()?;
        self.table.close_part()
    }

    pub fn table(&self) -> &TableOut {
        &self.table
    }

    fn damaged(&mut self, d: Damage) {
        if self.damage.len() < DAMAGE_LISTED {
            self.damage.push(d);
        } else {
            self.damage_unlisted += 1;
        }
    }
}

impl MatchSink for RecordsOut {
    fn batch(&mut self, _: u64, _: &BatchInfo) -> io::Result<()> {
        Ok(())
    }

    #[inline]
    fn record(
        &mut self,
        position: u64,
        info: &BatchInfo,
        record: &LogRecord<'_>,
        control: Option<&DecodeResult<ControlRecord>>,
        state: Option<TxnState>,
    ) -> io::Result<()> {
        self.rows
            .push(&self.place, position, info, record, control, state);
        if self.rows.is_full() {
            self.flush_rows()?;
        }
        Ok(())
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<()> {
        let kind = match p {
            LogProblem::Corrupt { .. } => "invalidBytes",
            LogProblem::Tail { .. } => "trailingBytes",
            LogProblem::BadEntry { .. } => "undecodableBatch",
        };
        let message = p.message();
        report_error(&self.file, Some(p.position()), &message);
        self.damaged(Damage {
            file: self.file.clone(),
            position: p.position(),
            length: p.length(),
            kind,
            message,
        });
        Ok(())
    }

    fn bad_checksum(&mut self, position: u64, info: &BatchInfo) -> io::Result<()> {
        let message = format!(
            "batch CRC {} does not match its bytes (isvalid: false); its records are exported \
             with kafka.crcValid false",
            info.crc
        );
        report_error(&self.file, Some(position), &message);
        self.crc_errors += 1;
        self.damaged(Damage {
            file: self.file.clone(),
            position,
            length: info.size as u64,
            kind: "badChecksum",
            message,
        });
        Ok(())
    }
}

/// The batches table of an export.
pub struct BatchesOut {
    table: TableOut,
    rows: BatchesBuilder,
    place: Place,
}

impl BatchesOut {
    pub fn new(root: &Path, opts: &WriteOptions) -> BatchesOut {
        let rows = BatchesBuilder::new(opts.batch_rows);
        BatchesOut {
            table: TableOut::new("batches", root, rows.schema(), batches_plan(), opts),
            rows,
            place: Place::default(),
        }
    }

    pub fn begin_partition(
        &mut self,
        topic: Option<&str>,
        partition: Option<i32>,
        broker: Option<i32>,
    ) {
        self.place.topic = topic.map(str::to_string);
        self.place.partition = partition;
        self.place.broker = broker;
    }

    pub fn set_file(&mut self, file: &Path) {
        self.place.segment = file.display().to_string();
    }

    fn flush_rows(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let batch = self.rows.finish();
        self.table
            .write(self.place.topic.as_deref(), self.place.partition, &batch)
    }

    pub fn end_partition(&mut self) -> io::Result<()> {
        self.flush_rows()?;
        self.table.close_part()
    }

    pub fn table(&self) -> &TableOut {
        &self.table
    }
}

impl BatchRows for BatchesOut {
    fn batch(
        &mut self,
        position: u64,
        info: &BatchInfo,
        state: Option<TxnState>,
    ) -> io::Result<()> {
        self.rows.push(&self.place, position, info, state);
        if self.rows.is_full() {
            self.flush_rows()?;
        }
        Ok(())
    }
}

/// The offsets table of an export.
pub struct OffsetsOut {
    table: TableOut,
    rows: OffsetsBuilder,
}

impl OffsetsOut {
    pub fn new(root: &Path, opts: &WriteOptions) -> OffsetsOut {
        let rows = OffsetsBuilder::new(opts.batch_rows);
        OffsetsOut {
            table: TableOut::new("offsets", root, rows.schema(), offsets_plan(), opts),
            rows,
        }
    }

    /// Writes the commits of one committed topic-partition (`events` all of it), in log order.
    pub fn write_partition<'e>(
        &mut self,
        topic: &str,
        partition: i32,
        events: impl IntoIterator<Item = (&'e CommitEvent, Option<i32>)>,
    ) -> io::Result<()> {
        for (e, broker) in events {
            self.rows.push(e, broker);
            if self.rows.is_full() {
                let batch = self.rows.finish();
                self.table.write(Some(topic), Some(partition), &batch)?;
            }
        }
        if !self.rows.is_empty() {
            let batch = self.rows.finish();
            self.table.write(Some(topic), Some(partition), &batch)?;
        }
        self.table.close_part()
    }

    pub fn table(&self) -> &TableOut {
        &self.table
    }
}
