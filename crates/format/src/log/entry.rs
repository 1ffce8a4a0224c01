//! [`LogEntry`]: one framed entry, a v2 batch or a legacy (v0/v1) message, and the batch-level
//! facts every magic has ([`BatchInfo`]).

use crate::batch::{RecordBatch, TimestampType};
use crate::compression::Codec;
use crate::legacy::LegacyMessage;
use crate::reader::DecodeError;

/// A framed entry: a v2 batch or a legacy (v0/v1) message.
#[derive(Debug, Clone, Copy)]
pub enum LogEntry<'a> {
    V2(RecordBatch<'a>),
    Legacy(LegacyMessage<'a>),
}

/// Batch-level facts common to every magic, as `kafka-dump-log` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    /// Record count: declared (v2), 1 for a plain legacy message, `None` for a legacy wrapper.
    pub count: Option<i32>,
    pub magic: i8,
    pub codec: Codec,
    pub timestamp_type: TimestampType,
    pub max_timestamp: i64,
    pub first_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub partition_leader_epoch: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub delete_horizon_ms: Option<i64>,
    pub crc: u32,
    pub crc_valid: bool,
    pub size: usize,
}

impl<'a> LogEntry<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<LogEntry<'a>, DecodeError> {
        if bytes.len() > 16 && (bytes[16] as i8) < 2 {
            LegacyMessage::parse(bytes).map(LogEntry::Legacy)
        } else {
            RecordBatch::parse(bytes).map(LogEntry::V2)
        }
    }

    pub fn info(&self) -> BatchInfo {
        self.info_with_crc(None)
    }

    /// Batch facts, reusing a checksum verdict already computed (`None`: compute it now).
    pub fn info_with_crc(&self, crc_valid: Option<bool>) -> BatchInfo {
        match self {
            LogEntry::V2(b) => {
                let h = &b.header;
                BatchInfo {
                    base_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    count: Some(h.records_count),
                    magic: h.magic,
                    codec: h.codec(),
                    timestamp_type: h.timestamp_type(),
                    max_timestamp: h.max_timestamp,
                    first_timestamp: h.base_timestamp,
                    producer_id: h.producer_id,
                    producer_epoch: h.producer_epoch,
                    base_sequence: h.base_sequence,
                    last_sequence: h.last_sequence(),
                    partition_leader_epoch: h.partition_leader_epoch,
                    is_transactional: h.is_transactional(),
                    is_control: h.is_control(),
                    delete_horizon_ms: h.delete_horizon_ms(),
                    crc: h.crc,
                    crc_valid: crc_valid.unwrap_or_else(|| b.crc_valid()),
                    size: b.bytes.len(),
                }
            }
            LogEntry::Legacy(m) => BatchInfo {
                base_offset: m.offset,
                last_offset: m.offset,
                count: (m.codec() == Codec::None).then_some(1),
                magic: m.magic,
                codec: m.codec(),
                timestamp_type: m.timestamp_type(),
                max_timestamp: m.timestamp_or_none(),
                first_timestamp: m.timestamp_or_none(),
                producer_id: -1,
                producer_epoch: -1,
                base_sequence: -1,
                last_sequence: -1,
                partition_leader_epoch: -1,
                is_transactional: false,
                is_control: false,
                delete_horizon_ms: None,
                crc: m.crc,
                crc_valid: crc_valid.unwrap_or_else(|| m.crc_valid()),
                size: m.size(),
            },
        }
    }
}
