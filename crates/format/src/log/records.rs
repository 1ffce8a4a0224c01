//! The records of an entry of any magic and codec, visited zero-copy over the entry's bytes or
//! the reused decompression buffer ([`RecordScratch`]).

use super::LogEntry;
use crate::batch::{Headers, RecordBatch, TimestampType, LOG_OVERHEAD, V2_HEADER_SIZE};
use crate::compression::{Codec, Decompressor};
use crate::legacy::{inner_messages, InnerMessages, LegacyMessage};
use crate::reader::DecodeError;

/// The legacy per-message checksum Kafka prints on record lines of v0/v1 data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyChecksum {
    pub crc: u32,
    pub valid: bool,
}

/// One record of any magic, borrowing from the entry or from the decompression buffer.
#[derive(Debug, Clone, Copy)]
pub struct LogRecord<'r> {
    pub offset: i64,
    pub timestamp: i64,
    pub timestamp_type: TimestampType,
    pub key: Option<&'r [u8]>,
    pub value: Option<&'r [u8]>,
    pub headers: Headers<'r>,
    /// v2 only.
    pub sequence: Option<i32>,
    /// v0/v1 only.
    pub legacy: Option<LegacyChecksum>,
}

/// Per-thread buffers for record decoding.
#[derive(Default)]
pub struct RecordScratch {
    pub decompressor: Decompressor,
    pub buffer: Vec<u8>,
    /// The legacy wrapper value whose decompression `buffer` holds (address and length).
    wrapper: Option<(usize, usize)>,
    /// Set by [`RecordScratch::reuse_wrapper`] for the next call of [`for_each_record`] only.
    reuse: bool,
}

impl RecordScratch {
    pub fn with_cap(max_decompressed: usize) -> Self {
        RecordScratch {
            decompressor: Decompressor::new(max_decompressed),
            ..Default::default()
        }
    }

    /// The next [`for_each_record`] visits the same entry as the last one: a legacy wrapper
    /// decompressed then is not decompressed again.
    pub fn reuse_wrapper(&mut self) {
        self.reuse = true;
    }
}

/// When records of an "uncompressed" batch fail to decode, say so if the payload starts with a
/// compression codec's magic: the attributes lie about the codec.
fn with_codec_hint(e: DecodeError, codec: Codec, payload: &[u8]) -> DecodeError {
    if codec != Codec::None {
        return e;
    }
    let looks_like = if payload.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        "zstd"
    } else if payload.starts_with(&[0x1f, 0x8b]) {
        "gzip"
    } else if payload.starts_with(b"\x82SNAPPY\0") {
        "snappy (xerial)"
    } else if payload.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        "lz4"
    } else {
        return e;
    };
    let message = format!(
        "{} (the records look {looks_like}-compressed although the attributes say none)",
        e.message
    );
    e.reworded(message)
}

/// The checked inner message set of a compressed legacy wrapper, decompressed into `scratch`
/// (or, with `reuse`, the decompression already there when it is this wrapper's).
fn wrapper_inner<'s>(
    message: &LegacyMessage<'_>,
    scratch: &'s mut RecordScratch,
    reuse: bool,
) -> Result<InnerMessages<'s>, DecodeError> {
    let value = message.value.ok_or_else(|| {
        DecodeError::invalid(LOG_OVERHEAD, "compressed wrapper message with a null value")
    })?;
    let key = Some((value.as_ptr() as usize, value.len()));
    if !(reuse && scratch.wrapper == key) {
        scratch.wrapper = None;
        scratch
            .decompressor
            .decompress(message.codec(), message.magic, value, &mut scratch.buffer)
            .map_err(|e| DecodeError::new(e.kind, LOG_OVERHEAD, format!("wrapper value: {}", e)))?;
        scratch.wrapper = key;
    }
    inner_messages(message, &scratch.buffer, 0).map_err(|e| {
        DecodeError::new(
            e.kind,
            LOG_OVERHEAD,
            format!("in decompressed wrapper: {e}"),
        )
    })
}

/// The record count and first offset of a compressed legacy wrapper, which live inside its
/// compressed value: decompresses it into `scratch` and checks its inner messages without
/// visiting them. A [`for_each_record`] on the same entry right after, with
/// [`RecordScratch::reuse_wrapper`], does not decompress it again.
pub fn legacy_wrapper_extent(
    message: &LegacyMessage<'_>,
    scratch: &mut RecordScratch,
) -> Result<(usize, i64), DecodeError> {
    scratch.reuse = false;
    let inner = wrapper_inner(message, scratch, false)?;
    Ok((inner.message_count(), inner.first_offset()))
}

/// Decompresses a compressed v2 batch's records into `scratch.buffer` (or, with `reuse`,
/// keeps the decompression already there when it is this batch's).
fn decompress_v2(
    batch: &RecordBatch<'_>,
    scratch: &mut RecordScratch,
    reuse: bool,
) -> Result<(), DecodeError> {
    let payload = batch.payload();
    let key = Some((payload.as_ptr() as usize, payload.len()));
    if !(reuse && scratch.wrapper == key) {
        scratch.wrapper = None;
        scratch
            .decompressor
            .decompress(batch.header.codec(), 2, payload, &mut scratch.buffer)
            .map_err(|e| e.at(V2_HEADER_SIZE as u64))?;
        scratch.wrapper = key;
    }
    Ok(())
}

/// The record bytes of a v2 batch, every record a run of them (a key or a value is a run
/// inside its record): the payload, or its decompression into `scratch` when compressed. A
/// [`for_each_record`] on the same entry right after, with [`RecordScratch::reuse_wrapper`],
/// does not decompress it again. `None` for a legacy entry.
pub fn v2_record_bytes<'a>(
    entry: &'a LogEntry<'_>,
    scratch: &'a mut RecordScratch,
) -> Result<Option<&'a [u8]>, DecodeError> {
    let LogEntry::V2(batch) = entry else {
        return Ok(None);
    };
    if batch.header.codec() == Codec::None {
        return Ok(Some(batch.payload()));
    }
    scratch.reuse = false;
    decompress_v2(batch, scratch, false)?;
    Ok(Some(&scratch.buffer))
}

/// Calls `visit` for every record of `entry`, decompressing into `scratch` when needed. Records
/// decoded before an error are still visited; the error comes back with a position relative
/// to the start of the entry.
pub fn for_each_record<'e>(
    entry: &LogEntry<'e>,
    scratch: &mut RecordScratch,
    mut visit: impl FnMut(&LogRecord<'_>),
) -> Result<usize, DecodeError> {
    let mut seen = 0usize;
    let reuse = std::mem::take(&mut scratch.reuse);
    match entry {
        LogEntry::V2(batch) => {
            let codec = batch.header.codec();
            let payload: &[u8] = if codec == Codec::None {
                batch.payload()
            } else {
                decompress_v2(batch, scratch, reuse)?;
                &scratch.buffer
            };
            // Positions inside decompressed data cannot point into the file; use the payload start.
            let origin = if codec == Codec::None {
                V2_HEADER_SIZE
            } else {
                0
            };
            let mut records = batch
                .records(payload, origin)
                .map_err(|e| with_codec_hint(e, codec, payload))?;
            let ts_type = batch.header.timestamp_type();
            for record in records.by_ref() {
                let record = record.map_err(|e| {
                    if codec == Codec::None {
                        with_codec_hint(e, codec, payload)
                    } else {
                        DecodeError::new(
                            e.kind,
                            V2_HEADER_SIZE,
                            format!(
                                "in decompressed records at byte {}: {}",
                                e.position, e.message
                            ),
                        )
                    }
                })?;
                seen += 1;
                visit(&LogRecord {
                    offset: record.offset,
                    timestamp: record.timestamp,
                    timestamp_type: ts_type,
                    key: record.key,
                    value: record.value,
                    headers: record.headers,
                    sequence: Some(record.sequence),
                    legacy: None,
                });
            }
            let trailing = records.trailing();
            if trailing > 0 {
                return Err(DecodeError::trailing(
                    V2_HEADER_SIZE,
                    format!("incorrect declared batch size, {trailing} bytes of records still remaining"),
                ));
            }
        }
        LogEntry::Legacy(message) => {
            if message.codec() == Codec::None {
                seen += 1;
                visit(&LogRecord {
                    offset: message.offset,
                    timestamp: message.timestamp_or_none(),
                    timestamp_type: message.timestamp_type(),
                    key: message.key,
                    value: message.value,
                    headers: Headers::empty(),
                    sequence: None,
                    legacy: Some(LegacyChecksum {
                        crc: message.crc,
                        valid: message.crc_valid(),
                    }),
                });
                return Ok(seen);
            }
            let inner = wrapper_inner(message, scratch, reuse)?;
            for m in inner {
                seen += 1;
                visit(&LogRecord {
                    offset: m.offset,
                    timestamp: m.timestamp,
                    timestamp_type: m.timestamp_type,
                    key: m.message.key,
                    value: m.message.value,
                    headers: Headers::empty(),
                    sequence: None,
                    legacy: Some(LegacyChecksum {
                        crc: m.message.crc,
                        valid: m.message.crc_valid(),
                    }),
                });
            }
        }
    }
    Ok(seen)
}
