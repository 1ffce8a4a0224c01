//! Appending to a partition log as Kafka's leader does (`UnifiedLog.append`, `LogValidator`):
//! client batches validated and sequence-checked, coordinator records and transaction markers
//! encoded by [`kseg_format::encode`]; offsets, leader epoch and (LogAppendTime) max timestamp
//! assigned in place; segments rolled before an append that would overflow them.

use std::io;

use kafka_protocol::ResponseError;

use super::scratch::with_scratch;
use super::segment::Segment;
use super::{AppendInfo, PartitionLog};
use crate::producer_state::ProducerBatch;
use crate::records::{marker_key, marker_value};
use crate::{BrokerError, BrokerResult};
use kseg_format::batch::{BatchHeader, RecordBatch, LOG_OVERHEAD, V2_CRC_START, V2_HEADER_SIZE};
use kseg_format::compression::Codec;
use kseg_format::encode::{encode_batch, NewBatch, NewRecord};
use kseg_format::log::{for_each_record, LogEntry, LogRecord};

/// The validated facts of a client batch.
struct Validated {
    header: BatchHeader,
    max_timestamp: i64,
}

impl PartitionLog {
    /// Validates, assigns offsets to and appends one produced batch (a Produce request's records
    /// for this partition).
    pub fn append_client(&mut self, mut data: Vec<u8>, now: i64) -> BrokerResult<AppendInfo> {
        let v = self.validate_client(&data, now)?;
        let h = v.header;
        let producer = (h.producer_id >= 0).then(|| producer_batch(&h));
        if let Some(p) = &producer {
            if let Some(dup) = self.producers.check(p)? {
                return Ok(AppendInfo {
                    base_offset: dup.first_offset(),
                    last_offset: dup.last_offset,
                    // UnifiedLog.append answers a duplicate with the stored batch's timestamp
                    // whatever the timestamp type: the append time, or the max CreateTime.
                    log_append_time: dup.timestamp,
                    duplicate: true,
                });
            }
        }
        let info = self.write_batch(&mut data, &h, v.max_timestamp, now)?;
        if let Some(p) = producer {
            // The written batch's max timestamp: the append time on LogAppendTime topics.
            let written = if info.log_append_time >= 0 {
                info.log_append_time
            } else {
                v.max_timestamp
            };
            self.producers
                .update(&p, info.base_offset, info.last_offset, written);
        }
        Ok(info)
    }

    /// Appends records written by a coordinator (offset commits, group and transaction state) as
    /// one batch: CreateTime, uncompressed, base sequence 0, like Kafka's coordinator runtime.
    pub fn append_records(
        &mut self,
        records: &[NewRecord<'_>],
        producer: Option<(i64, i16)>,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let (producer_id, producer_epoch) = producer.unwrap_or((-1, -1));
        let batch = NewBatch {
            base_offset: 0,
            partition_leader_epoch: self.leader_epoch,
            codec: Codec::None,
            log_append_time: None,
            transactional: producer.is_some(),
            control: false,
            producer_id,
            producer_epoch,
            base_sequence: 0,
        };
        let mut data = Vec::new();
        encode_batch(&mut data, &batch, records, &mut Vec::new());
        let h = BatchHeader::parse(&data).map_err(|e| io::Error::other(e.message.to_string()))?;
        let max_ts = h.max_timestamp;
        let info = self.write_batch(&mut data, &h, max_ts, now)?;
        if producer.is_some() {
            let mut p = producer_batch(&h);
            // Coordinator writes carry no client sequence: keep the producer's sequence state.
            if let Some(e) = self.producers.entry(producer_id) {
                p.first_seq = e.last_seq();
                p.last_seq = e.last_seq();
            }
            self.producers
                .update(&p, info.base_offset, info.last_offset, max_ts);
        }
        Ok(info)
    }

    /// Appends a batch the broker writes itself, with the header `batch` gives (its offset and
    /// leader epoch assigned here): the KRaft metadata log's records and control records
    /// (producer id -1, base sequence -1, uncompressed).
    pub fn append_batch(
        &mut self,
        batch: &NewBatch,
        records: &[NewRecord<'_>],
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let batch = NewBatch {
            partition_leader_epoch: self.leader_epoch,
            ..*batch
        };
        let mut data = Vec::new();
        encode_batch(&mut data, &batch, records, &mut Vec::new());
        let h = BatchHeader::parse(&data).map_err(|e| io::Error::other(e.message.to_string()))?;
        let max_ts = h.max_timestamp;
        self.write_batch(&mut data, &h, max_ts, now)
    }

    /// Writes a COMMIT or ABORT marker for a producer's transaction; an abort also goes into the
    /// segment's `.txnindex`.
    pub fn append_marker(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
        commit: bool,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let key = marker_key(commit);
        let value = marker_value(coordinator_epoch);
        let record = NewRecord {
            timestamp: now,
            key: Some(&key),
            value: Some(&value),
            headers: &[],
        };
        let batch = NewBatch {
            base_offset: 0,
            partition_leader_epoch: self.leader_epoch,
            codec: Codec::None,
            log_append_time: None,
            transactional: true,
            control: true,
            producer_id,
            producer_epoch,
            base_sequence: -1,
        };
        let mut data = Vec::new();
        encode_batch(&mut data, &batch, &[record], &mut Vec::new());
        let h = BatchHeader::parse(&data).map_err(|e| io::Error::other(e.message.to_string()))?;
        let info = self.write_batch(&mut data, &h, now, now)?;
        if let Some(done) = self.producers.complete_txn(
            producer_id,
            producer_epoch,
            coordinator_epoch,
            info.base_offset,
            !commit,
            now,
        ) {
            if done.aborted {
                let last = self.segments.len() - 1;
                self.record_abort(last, &done)?;
            }
        }
        Ok(info)
    }

    fn validate_client(&mut self, data: &[u8], now: i64) -> BrokerResult<Validated> {
        let invalid = |m: String| BrokerError::new(ResponseError::InvalidRecord, m);
        if data.len() < V2_HEADER_SIZE {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                format!("{} bytes cannot hold a record batch", data.len()),
            ));
        }
        let h = BatchHeader::parse(data)
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if h.magic != 2 {
            return Err(invalid(format!(
                "produce requests must hold magic 2 batches, not magic {}",
                h.magic
            )));
        }
        if h.batch_length < (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 || h.size() > data.len() {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                "batch length does not match the records sent",
            ));
        }
        if h.size() < data.len() {
            return Err(invalid(
                "more than one batch for a partition in one request".into(),
            ));
        }
        if h.size() > self.config.max_message_bytes {
            return Err(BrokerError::new(
                ResponseError::MessageTooLarge,
                format!(
                    "batch of {} bytes is larger than max.message.bytes {}",
                    h.size(),
                    self.config.max_message_bytes
                ),
            ));
        }
        if h.size() as u64 > self.config.segment_bytes {
            return Err(BrokerError::new(
                ResponseError::RecordListTooLarge,
                format!("batch of {} bytes is larger than segment.bytes", h.size()),
            ));
        }
        let batch = RecordBatch::parse(data)
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if !batch.crc_valid() {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                "record batch fails its CRC-32C",
            ));
        }
        if h.base_offset != 0 {
            return Err(invalid(format!(
                "the base offset of a produced batch must be 0, not {}",
                h.base_offset
            )));
        }
        if h.is_control() {
            return Err(invalid("clients may not write control batches".into()));
        }
        if h.records_count <= 0 || h.last_offset_delta as i64 != h.records_count as i64 - 1 {
            return Err(invalid(format!(
                "record count {} does not match last offset delta {}",
                h.records_count, h.last_offset_delta
            )));
        }
        if h.producer_id >= 0 && h.base_sequence < 0 {
            return Err(invalid(
                "an idempotent batch must carry a base sequence".into(),
            ));
        }
        if h.is_transactional() && h.producer_id < 0 {
            return Err(invalid("a transactional batch needs a producer id".into()));
        }
        if self.config.log_append_time
            && h.timestamp_type() == kseg_format::batch::TimestampType::LogAppendTime
        {
            return Err(BrokerError::new(
                ResponseError::InvalidTimestamp,
                "producer should not set timestamp type to LogAppendTime",
            ));
        }
        let mut count = 0i64;
        let mut max_ts = -1i64;
        let mut bad_offset = None;
        let mut bad_ts = None;
        let limit = now.saturating_add(self.config.timestamp_after_max_ms);
        let log_append_time = self.config.log_append_time;
        let compact = self.config.compact;
        let mut keyless = false;
        let decoded = with_scratch(|scratch| {
            for_each_record(&LogEntry::V2(batch), scratch, |r: &LogRecord<'_>| {
                if r.offset != count && bad_offset.is_none() {
                    bad_offset = Some((count, r.offset));
                }
                if !log_append_time && r.timestamp > limit && bad_ts.is_none() {
                    bad_ts = Some(r.timestamp);
                }
                max_ts = max_ts.max(r.timestamp);
                keyless |= compact && r.key.is_none();
                count += 1;
            })
        });
        decoded
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if count != h.records_count as i64 {
            return Err(invalid(format!(
                "batch declares {} records but holds {count}",
                h.records_count
            )));
        }
        if let Some((want, got)) = bad_offset {
            return Err(invalid(format!(
                "record offset delta {got} where {want} was expected (only in-place appends are \
                 supported)"
            )));
        }
        if keyless {
            // LogValidator.validateKey.
            return Err(invalid(format!(
                "Compacted topic cannot accept message without key in topic partition {}-{}.",
                self.topic, self.partition
            )));
        }
        if let Some(ts) = bad_ts {
            return Err(BrokerError::new(
                ResponseError::InvalidTimestamp,
                format!(
                    "timestamp {ts} is more than message.timestamp.after.max.ms ahead of {now}"
                ),
            ));
        }
        Ok(Validated {
            header: h,
            max_timestamp: max_ts,
        })
    }

    /// Rolls if needed, assigns the offsets, leader epoch and max timestamp in place, writes the
    /// batch and updates the leader epoch cache.
    fn write_batch(
        &mut self,
        data: &mut [u8],
        h: &BatchHeader,
        record_max_ts: i64,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let base = self.log_end_offset();
        let last = base + h.last_offset_delta as i64;
        let (lat, max_ts) = if self.config.log_append_time {
            (true, now)
        } else {
            (false, record_max_ts)
        };
        self.maybe_roll(data.len() as u64, last, max_ts, now)?;
        data[0..8].copy_from_slice(&base.to_be_bytes());
        data[12..16].copy_from_slice(&self.leader_epoch.to_be_bytes());
        let stored_lat = h.attributes & 0x08 != 0;
        if stored_lat != lat || h.max_timestamp != max_ts {
            let attributes = if lat {
                h.attributes | 0x08
            } else {
                h.attributes & !0x08
            };
            data[21..23].copy_from_slice(&attributes.to_be_bytes());
            data[35..43].copy_from_slice(&max_ts.to_be_bytes());
            let crc = crc32c::crc32c(&data[V2_CRC_START..]);
            data[17..21].copy_from_slice(&crc.to_be_bytes());
        }
        let interval = self.config.index_interval_bytes;
        self.segments
            .last_mut()
            .expect("a log always has an active segment")
            .append(data, last, max_ts, interval)?;
        self.assign_epoch(self.leader_epoch, base)?;
        self.waiters.wake_all();
        Ok(AppendInfo {
            base_offset: base,
            last_offset: last,
            log_append_time: if lat { now } else { -1 },
            duplicate: false,
        })
    }

    fn maybe_roll(
        &mut self,
        append_size: u64,
        last_offset: i64,
        max_ts: i64,
        now: i64,
    ) -> io::Result<()> {
        let seg = self.segments.last().expect("active segment");
        // LogSegment.timeWaitedForRoll: from the first batch's timestamp, else from creation.
        let waited = match seg.rolling_base_timestamp {
            Some(first) if first >= 0 => max_ts.saturating_sub(first),
            _ => now.saturating_sub(seg.created_ms),
        };
        let roll = seg.size > 0
            && (seg.size > self.config.segment_bytes.saturating_sub(append_size)
                || waited > self.config.segment_ms
                || seg.index.is_full()
                || seg.time_index.is_full()
                || last_offset - seg.base_offset > i32::MAX as i64);
        if roll {
            self.roll()?;
        }
        Ok(())
    }

    /// Seals the active segment, starts a new one at the log end offset and takes a producer
    /// snapshot named by it, as `UnifiedLog.roll` does: the fsyncs of the sealed segments and of
    /// the snapshot, and the recovery point they move, are a background task ([`super::flush`]).
    pub fn roll(&mut self) -> io::Result<()> {
        let new_base = self.log_end_offset();
        let active = self.segments.last_mut().expect("active segment");
        if active.size == 0 {
            return Ok(());
        }
        active.seal()?;
        // LocalLog.flush(offset): every segment from the last flushed one up to the new base.
        let mut files = Vec::new();
        for seg in &self.segments {
            if seg.next_offset > self.flush_queued_upto {
                files.extend(seg.flush_handles()?);
            }
        }
        let seg = Segment::create(&self.dir, new_base, &self.config)?;
        self.segments.push(seg);
        let snapshot = self.write_snapshot_unsynced(new_base)?;
        self.flush_queued_upto = new_base;
        super::flush::schedule(super::flush::FlushJob {
            files,
            snapshot,
            upto: new_base,
            epochs: None,
            progress: self.flushes.clone(),
            name: format!("{}-{}", self.topic, self.partition),
        });
        Ok(())
    }

    /// Clean close: final time-index entry, trimmed indexes, a producer snapshot at the log end,
    /// everything flushed (the rolls' background flushes first).
    pub fn close(&mut self) -> io::Result<()> {
        self.flushes.wait_idle();
        let leo = self.log_end_offset();
        let unflushed = self.flushed_recovery_point();
        for seg in &mut self.segments {
            // A roll whose background flush failed left its segments unflushed: synced here.
            if seg.next_offset > unflushed && seg.next_offset <= self.flush_queued_upto {
                seg.sync()?;
            }
        }
        let active = self.segments.last_mut().expect("active segment");
        active.seal()?;
        active.sync()?;
        if let Some(f) = &active.txn_index {
            f.sync_data()?;
        }
        self.write_snapshot(leo)?;
        self.recovery_point = leo;
        Ok(())
    }
}

pub(super) fn producer_batch(h: &BatchHeader) -> ProducerBatch {
    ProducerBatch {
        producer_id: h.producer_id,
        epoch: h.producer_epoch,
        first_seq: h.base_sequence,
        last_seq: h.last_sequence(),
        transactional: h.is_transactional(),
    }
}
