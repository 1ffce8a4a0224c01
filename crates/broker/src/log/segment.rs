//! One segment of a partition log: its `.log` file with the two indexes and the `.txnindex`,
//! created preallocated or opened trusting its indexes, appended to by Kafka's per-batch index
//! rule (`LogSegment.append`), sealed at roll and close, and walked batch header by header.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::index_writer::{OffsetIndexWriter, TimeIndexWriter};
use super::{open_rw, read_at, AbortedTxn, LogConfig};
use kseg_format::batch::{BatchHeader, LOG_OVERHEAD, V2_HEADER_SIZE};
use kseg_format::txn_index::{parse_txn_index, ABORTED_TXN_SIZE};
use kseg_storage::layout::offset_file_name;

/// Walks batch headers of a segment from a position, reading 64 KiB at a time.
pub(super) struct HeaderWalk<'f> {
    file: &'f File,
    end: u64,
    pos: u64,
    buf: Vec<u8>,
    buf_start: u64,
}

impl<'f> HeaderWalk<'f> {
    pub(super) fn new(file: &'f File, from: u64, end: u64) -> Self {
        HeaderWalk {
            file,
            end,
            pos: from,
            buf: Vec::new(),
            buf_start: from,
        }
    }

    /// The next (position, header) or None at the end or at a short/invalid frame.
    pub(super) fn next(&mut self) -> io::Result<Option<(u64, BatchHeader)>> {
        if self.pos + V2_HEADER_SIZE as u64 > self.end {
            return Ok(None);
        }
        let rel = self.pos.wrapping_sub(self.buf_start) as usize;
        if self.pos < self.buf_start || rel + V2_HEADER_SIZE > self.buf.len() {
            let want = (64 * 1024).min((self.end - self.pos) as usize);
            self.buf = read_at(self.file, self.pos, want)?;
            self.buf_start = self.pos;
        }
        let rel = (self.pos - self.buf_start) as usize;
        let Some(raw) = self.buf.get(rel..rel + V2_HEADER_SIZE) else {
            return Ok(None);
        };
        let Ok(h) = BatchHeader::parse(raw) else {
            return Ok(None);
        };
        if h.magic < 2 || h.batch_length < (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 {
            return Ok(None);
        }
        let at = self.pos;
        if at + h.size() as u64 > self.end {
            return Ok(None);
        }
        self.pos += h.size() as u64;
        Ok(Some((at, h)))
    }
}

pub(super) struct Segment {
    pub(super) base_offset: i64,
    pub(super) dir: PathBuf,
    pub(super) log: File,
    pub(super) size: u64,
    pub(super) next_offset: i64,
    pub(super) index: OffsetIndexWriter,
    pub(super) time_index: TimeIndexWriter,
    pub(super) txn_index: Option<File>,
    pub(super) txn_entries: usize,
    pub(super) bytes_since_last_index_entry: u64,
    pub(super) max_timestamp: i64,
    pub(super) max_timestamp_offset: i64,
    /// The first batch's max timestamp: what `segment.ms` counts from (Kafka's
    /// `rollingBasedTimestamp`).
    pub(super) rolling_base_timestamp: Option<i64>,
    /// When the segment was created here, for segments without timestamps.
    pub(super) created_ms: i64,
}

pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Segment {
    pub(super) fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(offset_file_name(self.base_offset, suffix))
    }

    pub(super) fn create(dir: &Path, base: i64, config: &LogConfig) -> io::Result<Segment> {
        let log = open_rw(&dir.join(offset_file_name(base, "log")), true)?;
        let index = OffsetIndexWriter::open(
            &dir.join(offset_file_name(base, "index")),
            base,
            config.segment_index_bytes,
            true,
        )?;
        // Sized as soon as it exists, as Kafka's index constructors do, so a crash leaves at
        // most one zero-length index beside an empty log.
        index.preallocate()?;
        let time_index = TimeIndexWriter::open(
            &dir.join(offset_file_name(base, "timeindex")),
            base,
            config.segment_index_bytes,
            true,
        )?;
        time_index.preallocate()?;
        Ok(Segment {
            base_offset: base,
            dir: dir.to_path_buf(),
            log,
            size: 0,
            next_offset: base,
            index,
            time_index,
            txn_index: None,
            txn_entries: 0,
            bytes_since_last_index_entry: 0,
            max_timestamp: -1,
            max_timestamp_offset: -1,
            rolling_base_timestamp: None,
            created_ms: now_ms(),
        })
    }

    /// Opens an existing segment, trusting its indexes (what Kafka does after a clean shutdown).
    pub(super) fn open(dir: &Path, base: i64, config: &LogConfig) -> io::Result<Segment> {
        let log = open_rw(&dir.join(offset_file_name(base, "log")), false)?;
        let size = log.metadata()?.len();
        let index_path = dir.join(offset_file_name(base, "index"));
        let time_path = dir.join(offset_file_name(base, "timeindex"));
        let index = OffsetIndexWriter::open(&index_path, base, config.segment_index_bytes, false)?;
        let time_index =
            TimeIndexWriter::open(&time_path, base, config.segment_index_bytes, false)?;
        let txn_path = dir.join(offset_file_name(base, "txnindex"));
        let (txn_index, txn_entries) = if txn_path.exists() {
            let f = open_rw(&txn_path, false)?;
            let n = (f.metadata()?.len() as usize) / ABORTED_TXN_SIZE;
            (Some(f), n)
        } else {
            (None, 0)
        };
        let (max_timestamp, max_timestamp_offset) = time_index
            .last()
            .map_or((-1, -1), |e| (e.timestamp, e.offset));
        let mut seg = Segment {
            base_offset: base,
            dir: dir.to_path_buf(),
            log,
            size,
            next_offset: base,
            index,
            time_index,
            txn_index,
            txn_entries,
            bytes_since_last_index_entry: 0,
            max_timestamp,
            max_timestamp_offset,
            rolling_base_timestamp: None,
            created_ms: now_ms(),
        };
        // The first batch's max timestamp, from its header.
        let mut first = [0u8; 43];
        if size >= 61 && seg.log.read_exact_at(&mut first, 0).is_ok() {
            seg.rolling_base_timestamp = Some(i64::from_be_bytes(
                first[35..43].try_into().expect("8 bytes"),
            ));
        }
        // The next offset: walk from the last indexed batch to the end.
        let from = seg.index.last().map_or(0, |e| e.position as u64);
        let mut walk = HeaderWalk::new(&seg.log, from, size);
        while let Some((_, h)) = walk.next()? {
            seg.next_offset = h.last_offset() + 1;
        }
        Ok(seg)
    }

    /// Appends one batch at the end of the log and indexes it by Kafka's per-batch rule.
    pub(super) fn append(
        &mut self,
        bytes: &[u8],
        last_offset: i64,
        max_ts: i64,
        interval: u64,
    ) -> io::Result<()> {
        let position = self.size;
        if position == 0 {
            self.rolling_base_timestamp = Some(max_ts);
        }
        self.log.write_all_at(bytes, position)?;
        self.size += bytes.len() as u64;
        self.next_offset = last_offset + 1;
        if max_ts > self.max_timestamp {
            self.max_timestamp = max_ts;
            self.max_timestamp_offset = last_offset;
        }
        if self.bytes_since_last_index_entry > interval {
            self.index.append(last_offset, position as u32)?;
            self.time_index
                .maybe_append(self.max_timestamp, self.max_timestamp_offset)?;
            self.bytes_since_last_index_entry = 0;
        }
        self.bytes_since_last_index_entry += bytes.len() as u64;
        Ok(())
    }

    /// `onBecomeInactiveSegment` / close: final time-index entry, trim the indexes.
    pub(super) fn seal(&mut self) -> io::Result<()> {
        if self.max_timestamp_offset >= 0 {
            self.time_index
                .maybe_append(self.max_timestamp, self.max_timestamp_offset)?;
        }
        self.index.trim()?;
        self.time_index.trim()?;
        Ok(())
    }

    pub(super) fn sync(&self) -> io::Result<()> {
        self.log.sync_data()?;
        self.index.sync()?;
        self.time_index.sync()
    }

    /// Handles of the segment's files for a background flush (`LogSegment.flush`: log, offset
    /// and time indexes, transaction index).
    pub(super) fn flush_handles(&self) -> io::Result<Vec<File>> {
        let mut files = vec![
            self.log.try_clone()?,
            self.index.file().try_clone()?,
            self.time_index.file().try_clone()?,
        ];
        if let Some(f) = &self.txn_index {
            files.push(f.try_clone()?);
        }
        Ok(files)
    }

    pub(super) fn append_txn_index(&mut self, t: &AbortedTxn) -> io::Result<()> {
        if self.txn_index.is_none() {
            self.txn_index = Some(open_rw(&self.path("txnindex"), false)?);
            self.txn_entries = 0;
        }
        let entry = kseg_format::txn_index::AbortedTxn::new(
            t.producer_id,
            t.first_offset,
            t.last_offset,
            t.last_stable_offset,
        )
        .encode();
        let f = self.txn_index.as_ref().expect("opened above");
        f.write_all_at(&entry, (self.txn_entries * ABORTED_TXN_SIZE) as u64)?;
        self.txn_entries += 1;
        Ok(())
    }

    pub(super) fn read_txn_index(&self) -> Vec<AbortedTxn> {
        let Ok(bytes) = fs::read(self.path("txnindex")) else {
            return Vec::new();
        };
        parse_txn_index(&bytes)
            .0
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| AbortedTxn {
                producer_id: e.producer_id,
                first_offset: e.first_offset,
                last_offset: e.last_offset,
                last_stable_offset: e.last_stable_offset,
            })
            .collect()
    }

    /// The first batch whose last offset is ≥ target: (position, header).
    pub(super) fn translate(&self, target: i64) -> io::Result<Option<(u64, BatchHeader)>> {
        let from = self.index.lookup(target).position as u64;
        let mut walk = HeaderWalk::new(&self.log, from, self.size);
        while let Some((pos, h)) = walk.next()? {
            if h.last_offset() >= target {
                return Ok(Some((pos, h)));
            }
        }
        Ok(None)
    }

    pub(super) fn delete_files(&self) -> io::Result<()> {
        for suffix in ["log", "index", "timeindex", "txnindex"] {
            match fs::remove_file(self.path(suffix)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}
