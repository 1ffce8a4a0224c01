//! `kseg export`: tables as analytical engines read a dataset — Parquet (arrow-rs), Arrow IPC
//! files or NDJSON, laid out Hive-style (`DIR/<table>/topic=T/partition=P/part-NNNNN.<ext>`)
//! with a `_kseg_export.json` manifest. Rows arrive decoded (the scan's records, the analysis'
//! transaction states and offset commits); nothing here decodes.
//!
//! Memory is bounded: rows are gathered in Arrow batches of at most `batch_rows` rows or
//! `row_group_bytes / 4` bytes of keys, values and headers, and a Parquet row group is closed
//! once its buffered size reaches `row_group_bytes`.

pub mod batches;
pub mod manifest;
mod ndjson;
pub mod offsets;
pub mod records;
mod sink;

pub use sink::{BatchesOut, OffsetsOut, RecordsOut};

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

/// The file format of every table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Parquet,
    /// Arrow IPC files (Feather v2).
    Arrow,
    Ndjson,
}

impl TableFormat {
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Parquet => "parquet",
            TableFormat::Arrow => "arrow",
            TableFormat::Ndjson => "ndjson",
        }
    }
}

/// The Parquet codec of the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageCodec {
    None,
    Snappy,
    Zstd,
}

impl PageCodec {
    pub fn name(self) -> &'static str {
        match self {
            PageCodec::None => "none",
            PageCodec::Snappy => "snappy",
            PageCodec::Zstd => "zstd",
        }
    }
}

#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub format: TableFormat,
    pub codec: PageCodec,
    /// Largest row group (Parquet) or record batch (Arrow IPC), in rows.
    pub batch_rows: usize,
    /// Largest row group, in buffered bytes: what bounds the memory of a Parquet file.
    pub row_group_bytes: usize,
}

impl WriteOptions {
    /// The bytes of keys, values and headers a builder gathers before handing a batch over.
    pub fn builder_bytes(&self) -> usize {
        (self.row_group_bytes / 4).clamp(1 << 20, 256 << 20)
    }
}

/// A table's columns as the writer tunes them: which are dictionary-encoded and which carry
/// statistics (min/max per page and row group, what engines prune with).
pub struct ColumnPlan {
    pub dictionary: &'static [&'static [&'static str]],
    pub statistics: &'static [&'static [&'static str]],
}

/// `name` as a Hive partition value: `FileUtils.escapePathName`'s characters as `%XX` (a Kafka
/// topic name never needs it; a partition dir made by hand might).
pub fn hive_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() || "\"#%'*/:=?\\\x7f{[]^".contains(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Hive's name for a null partition value (Spark and pyarrow read it as null).
pub const HIVE_NULL: &str = "__HIVE_DEFAULT_PARTITION__";

/// The directory of one topic-partition's files of `table`.
pub fn partition_dir(
    root: &Path,
    table: &str,
    topic: Option<&str>,
    partition: Option<i32>,
) -> PathBuf {
    let topic = topic.map_or_else(|| HIVE_NULL.to_string(), hive_escape);
    let partition = partition.map_or_else(|| HIVE_NULL.to_string(), |p| p.to_string());
    root.join(table)
        .join(format!("topic={topic}"))
        .join(format!("partition={partition}"))
}

/// What one written file holds.
#[derive(Debug, Clone)]
pub struct PartSummary {
    pub path: PathBuf,
    pub rows: u64,
    pub row_groups: u64,
    pub bytes: u64,
}

enum PartWriter {
    Parquet(Box<ArrowWriter<File>>),
    Arrow(Box<arrow_ipc::writer::FileWriter<BufWriter<File>>>),
    Ndjson(BufWriter<File>, Vec<u8>),
}

/// One file of a table being written: under a `.tmp` name that engines' globs skip, renamed
/// when complete, so an interrupted export leaves no truncated part that reads as whole.
pub struct PartFile {
    tmp: PathBuf,
    path: PathBuf,
    writer: PartWriter,
    rows: u64,
    batches: u64,
    row_group_bytes: usize,
}

fn to_io(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

impl PartFile {
    pub fn create(
        path: PathBuf,
        schema: &SchemaRef,
        plan: &ColumnPlan,
        opts: &WriteOptions,
    ) -> io::Result<PartFile> {
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let file = File::create_new(&tmp)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", tmp.display())))?;
        let writer = match opts.format {
            TableFormat::Parquet => PartWriter::Parquet(Box::new(
                ArrowWriter::try_new(file, schema.clone(), Some(parquet_properties(plan, opts)))
                    .map_err(to_io)?,
            )),
            TableFormat::Arrow => PartWriter::Arrow(Box::new(
                arrow_ipc::writer::FileWriter::try_new(BufWriter::new(file), schema)
                    .map_err(to_io)?,
            )),
            TableFormat::Ndjson => {
                PartWriter::Ndjson(BufWriter::with_capacity(1 << 20, file), Vec::new())
            }
        };
        Ok(PartFile {
            tmp,
            path,
            writer,
            rows: 0,
            batches: 0,
            row_group_bytes: opts.row_group_bytes,
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.rows += batch.num_rows() as u64;
        match &mut self.writer {
            PartWriter::Parquet(w) => {
                w.write(batch).map_err(to_io)?;
                // Pages buffered for the open row group: closing it here bounds the memory
                // whatever the row sizes (the row cap alone would not).
                if w.memory_size() >= self.row_group_bytes {
                    w.flush().map_err(to_io)?;
                }
            }
            PartWriter::Arrow(w) => {
                w.write(batch).map_err(to_io)?;
                self.batches += 1;
            }
            PartWriter::Ndjson(w, buf) => {
                ndjson::write_rows(batch, buf);
                w.write_all(buf)?;
                buf.clear();
            }
        }
        Ok(())
    }

    /// Completes the file and gives it its name.
    pub fn close(self) -> io::Result<PartSummary> {
        let row_groups = match self.writer {
            PartWriter::Parquet(w) => w.close().map_err(to_io)?.num_row_groups() as u64,
            PartWriter::Arrow(mut w) => {
                w.finish().map_err(to_io)?;
                w.into_inner().map_err(to_io)?.flush()?;
                self.batches
            }
            PartWriter::Ndjson(mut w, _) => {
                w.flush()?;
                0
            }
        };
        std::fs::rename(&self.tmp, &self.path)?;
        let bytes = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        Ok(PartSummary {
            path: self.path,
            rows: self.rows,
            row_groups,
            bytes,
        })
    }
}

fn parquet_properties(plan: &ColumnPlan, opts: &WriteOptions) -> WriterProperties {
    let codec = match opts.codec {
        PageCodec::None => Compression::UNCOMPRESSED,
        PageCodec::Snappy => Compression::SNAPPY,
        PageCodec::Zstd => Compression::ZSTD(ZstdLevel::try_new(1).expect("level 1 is valid")),
    };
    // Keys and values are neither dictionary-encoded (a hash table of every distinct value per
    // row group) nor given statistics (min/max of binary blobs prune nothing).
    let mut b = WriterProperties::builder()
        .set_created_by(format!("kseg {}", env!("CARGO_PKG_VERSION")))
        .set_compression(codec)
        .set_max_row_group_row_count(Some(opts.batch_rows.max(1)))
        .set_max_row_group_bytes(Some(opts.row_group_bytes.max(1)))
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None);
    let path = |p: &[&str]| ColumnPath::new(p.iter().map(|s| s.to_string()).collect());
    for p in plan.dictionary {
        b = b.set_column_dictionary_enabled(path(p), true);
    }
    for p in plan.statistics {
        b = b.set_column_statistics_enabled(path(p), EnabledStatistics::Page);
    }
    b.build()
}

/// The files of one table: one part per topic-partition and input (a partition met twice, a
/// `-future` replica beside its current one, gets the next number).
pub struct TableOut {
    pub table: &'static str,
    root: PathBuf,
    schema: SchemaRef,
    plan: ColumnPlan,
    opts: WriteOptions,
    next_part: HashMap<PathBuf, u32>,
    current: Option<PartFile>,
    pub written: Vec<PartSummary>,
}

impl TableOut {
    pub fn new(
        table: &'static str,
        root: &Path,
        schema: SchemaRef,
        plan: ColumnPlan,
        opts: &WriteOptions,
    ) -> TableOut {
        TableOut {
            table,
            root: root.to_path_buf(),
            schema,
            plan,
            opts: opts.clone(),
            next_part: HashMap::new(),
            current: None,
            written: Vec::new(),
        }
    }

    /// Writes `batch` into the part of `topic`/`partition`, opening it on the first rows.
    pub fn write(
        &mut self,
        topic: Option<&str>,
        partition: Option<i32>,
        batch: &RecordBatch,
    ) -> io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.current.is_none() {
            let dir = partition_dir(&self.root, self.table, topic, partition);
            std::fs::create_dir_all(&dir)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
            let n = self.next_part.entry(dir.clone()).or_insert(0);
            let name = format!("part-{:05}.{}", *n, self.opts.format.extension());
            *n += 1;
            self.current = Some(PartFile::create(
                dir.join(name),
                &self.schema,
                &self.plan,
                &self.opts,
            )?);
        }
        self.current.as_mut().expect("opened").write(batch)
    }

    /// Closes the open part (the topic-partition is done).
    pub fn close_part(&mut self) -> io::Result<()> {
        if let Some(p) = self.current.take() {
            self.written.push(p.close()?);
        }
        Ok(())
    }

    pub fn rows(&self) -> u64 {
        self.written.iter().map(|p| p.rows).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::records::{Place, RecordsBuilder};
    use super::*;
    use kseg_format::batch::{Headers, TimestampType};
    use kseg_format::compression::Codec;
    use kseg_format::log::{BatchInfo, LogRecord};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    #[test]
    fn hive_values_are_escaped_and_null_is_hives_default() {
        assert_eq!(hive_escape("orders.v2-eu_1"), "orders.v2-eu_1");
        assert_eq!(hive_escape("a/b=c%"), "a%2Fb%3Dc%25");
        let d = partition_dir(Path::new("/x"), "records", None, Some(3));
        assert_eq!(
            d,
            Path::new("/x/records/topic=__HIVE_DEFAULT_PARTITION__/partition=3")
        );
    }

    fn info() -> BatchInfo {
        BatchInfo {
            base_offset: 0,
            last_offset: 24,
            count: Some(25),
            magic: 2,
            codec: Codec::Zstd,
            timestamp_type: TimestampType::CreateTime,
            max_timestamp: 1_000,
            first_timestamp: 1_000,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            last_sequence: -1,
            partition_leader_epoch: 4,
            is_transactional: false,
            is_control: false,
            delete_horizon_ms: None,
            crc: 0,
            crc_valid: true,
            size: 100,
        }
    }

    /// 25 rows with a row-group cap of 10: three row groups, every row back as written, the
    /// timestamp in Spark's microseconds.
    #[test]
    fn parquet_row_groups_are_bounded_and_rows_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let opts = WriteOptions {
            format: TableFormat::Parquet,
            codec: PageCodec::Zstd,
            batch_rows: 10,
            row_group_bytes: 1 << 20,
        };
        let mut rows = RecordsBuilder::new(opts.batch_rows, opts.builder_bytes());
        let mut table = TableOut::new(
            "records",
            &dir,
            rows.schema(),
            ColumnPlan {
                dictionary: &[&["topic"]],
                statistics: &[&["offset"]],
            },
            &opts,
        );
        let place = Place {
            topic: Some("t".into()),
            partition: Some(0),
            broker: Some(1),
            segment: "s.log".into(),
        };
        let b = info();
        for offset in 0..25i64 {
            let value = offset.to_string();
            let r = LogRecord {
                offset,
                timestamp: 1_000 + offset,
                timestamp_type: TimestampType::CreateTime,
                key: None,
                value: Some(value.as_bytes()),
                headers: Headers::empty(),
                sequence: Some(offset as i32),
                legacy: None,
            };
            rows.push(&place, 0, &b, &r, None, None);
            if rows.is_full() {
                table.write(Some("t"), Some(0), &rows.finish()).unwrap();
            }
        }
        table.write(Some("t"), Some(0), &rows.finish()).unwrap();
        table.close_part().unwrap();
        let part = &table.written[0];
        assert_eq!((part.rows, part.row_groups), (25, 3));
        assert!(part
            .path
            .ends_with("records/topic=t/partition=0/part-00000.parquet"));
        let reader =
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&part.path).unwrap())
                .unwrap();
        let stats = reader
            .metadata()
            .row_group(0)
            .column(4)
            .statistics()
            .cloned();
        assert!(stats.is_some(), "offset carries statistics");
        let mut n = 0;
        for batch in reader.build().unwrap() {
            let batch = batch.unwrap();
            use arrow_array::cast::AsArray;
            use arrow_array::types::{Int64Type, TimestampMicrosecondType};
            use arrow_array::Array;
            let offsets = batch.column(4).as_primitive::<Int64Type>();
            let ts = batch.column(5).as_primitive::<TimestampMicrosecondType>();
            for i in 0..batch.num_rows() {
                assert_eq!(offsets.value(i), n);
                assert_eq!(ts.value(i), (1_000 + n) * 1_000);
                assert!(batch.column(7).is_null(i), "no headers: null");
                n += 1;
            }
        }
        assert_eq!(n, 25);
    }
}
