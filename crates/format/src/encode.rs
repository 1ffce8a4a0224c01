//! Writing v2 record batches: the inverse of [`super::batch`], for fixtures, benchmarks, the
//! repair copy and the mini-broker. Pure: records in, bytes out.

use std::io::Write;

use super::compression::Codec;
use super::reader::{put_uvarint, put_varint, put_varlong};

/// One record to encode; `timestamp` is absolute.
#[derive(Debug, Clone, Copy)]
pub struct NewRecord<'a> {
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: &'a [(&'a [u8], Option<&'a [u8]>)],
}

/// Batch-level fields of a new batch.
#[derive(Debug, Clone, Copy)]
pub struct NewBatch {
    pub base_offset: i64,
    pub partition_leader_epoch: i32,
    pub codec: Codec,
    pub log_append_time: Option<i64>,
    pub transactional: bool,
    pub control: bool,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
}

impl Default for NewBatch {
    fn default() -> Self {
        NewBatch {
            base_offset: 0,
            partition_leader_epoch: 0,
            codec: Codec::None,
            log_append_time: None,
            transactional: false,
            control: false,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => put_varint(out, -1),
        Some(b) => {
            put_varint(out, b.len() as i32);
            out.extend_from_slice(b);
        }
    }
}

/// Appends one encoded batch to `out`. `scratch` is reused between calls.
pub fn encode_batch(
    out: &mut Vec<u8>,
    batch: &NewBatch,
    records: &[NewRecord<'_>],
    scratch: &mut Vec<u8>,
) {
    let base_ts = records.first().map_or(-1, |r| r.timestamp);
    let mut max_ts = records.iter().map(|r| r.timestamp).max().unwrap_or(-1);
    scratch.clear();
    let mut rec = Vec::with_capacity(64);
    for (i, r) in records.iter().enumerate() {
        rec.clear();
        rec.push(0);
        put_varlong(&mut rec, r.timestamp - base_ts);
        put_varint(&mut rec, i as i32);
        put_bytes(&mut rec, r.key);
        put_bytes(&mut rec, r.value);
        put_varint(&mut rec, r.headers.len() as i32);
        for (k, v) in r.headers {
            put_bytes(&mut rec, Some(k));
            put_bytes(&mut rec, *v);
        }
        put_varint(scratch, rec.len() as i32);
        scratch.extend_from_slice(&rec);
    }
    let payload = compress(batch.codec, scratch);
    let mut attributes: i16 = match batch.codec {
        Codec::None => 0,
        Codec::Gzip => 1,
        Codec::Snappy => 2,
        Codec::Lz4 => 3,
        Codec::Zstd => 4,
        Codec::Unknown(id) => id as i16,
    };
    if let Some(t) = batch.log_append_time {
        attributes |= 0x08;
        max_ts = t;
    }
    if batch.transactional {
        attributes |= 0x10;
    }
    if batch.control {
        attributes |= 0x20;
    }
    let start = out.len();
    out.extend_from_slice(&batch.base_offset.to_be_bytes());
    out.extend_from_slice(&((49 + payload.len()) as i32).to_be_bytes());
    out.extend_from_slice(&batch.partition_leader_epoch.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&attributes.to_be_bytes());
    out.extend_from_slice(&((records.len() as i32 - 1).max(0)).to_be_bytes());
    out.extend_from_slice(&base_ts.to_be_bytes());
    out.extend_from_slice(&max_ts.to_be_bytes());
    out.extend_from_slice(&batch.producer_id.to_be_bytes());
    out.extend_from_slice(&batch.producer_epoch.to_be_bytes());
    out.extend_from_slice(&batch.base_sequence.to_be_bytes());
    out.extend_from_slice(&(records.len() as i32).to_be_bytes());
    out.extend_from_slice(&payload);
    let crc = crc32c::crc32c(&out[start + 21..]);
    out[start + 17..start + 21].copy_from_slice(&crc.to_be_bytes());
}

/// The batch-level fields of a batch the log cleaner rebuilds (`MemoryRecords.
/// buildRetainedRecordsInto`): the original's, with the delete horizon when one is stamped.
#[derive(Debug, Clone, Copy)]
pub struct RebuiltBatch {
    pub base_offset: i64,
    /// The original's last offset, kept so that the producer's last sequence stays
    /// (`overrideLastOffset`).
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
    pub codec: Codec,
    /// LOG_APPEND_TIME batches keep the original max timestamp as their append time.
    pub log_append_time: Option<i64>,
    pub transactional: bool,
    pub control: bool,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    /// `deleteHorizonMs`: becomes the base timestamp, with attribute bit 6.
    pub delete_horizon: Option<i64>,
}

/// One record kept by the cleaner, at its own offset.
#[derive(Debug, Clone, Copy)]
pub struct KeptRecord<'a> {
    pub offset: i64,
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: crate::batch::Headers<'a>,
}

/// Appends a batch rebuilt from `records` as `MemoryRecordsBuilder` writes it (magic 2):
/// offset deltas from the base offset, timestamp deltas from the base timestamp (the delete
/// horizon when stamped, else the first record's), record attributes 0, the last offset delta
/// of the original. `scratch` is reused between calls.
pub fn encode_rebuilt_batch(
    out: &mut Vec<u8>,
    batch: &RebuiltBatch,
    records: &[KeptRecord<'_>],
    scratch: &mut Vec<u8>,
) {
    let base_ts = batch
        .delete_horizon
        .or(records.first().map(|r| r.timestamp))
        .unwrap_or(-1);
    let mut max_ts = records.iter().map(|r| r.timestamp).max().unwrap_or(-1);
    scratch.clear();
    let mut rec = Vec::with_capacity(64);
    for r in records {
        rec.clear();
        rec.push(0);
        put_varlong(&mut rec, r.timestamp.wrapping_sub(base_ts));
        put_varint(&mut rec, r.offset.wrapping_sub(batch.base_offset) as i32);
        put_bytes(&mut rec, r.key);
        put_bytes(&mut rec, r.value);
        put_varint(&mut rec, r.headers.count as i32);
        for h in r.headers.iter() {
            put_bytes(&mut rec, Some(h.key));
            put_bytes(&mut rec, h.value);
        }
        put_varint(scratch, rec.len() as i32);
        scratch.extend_from_slice(&rec);
    }
    let payload = compress(batch.codec, scratch);
    let mut attributes = codec_bits(batch.codec);
    if let Some(t) = batch.log_append_time {
        attributes |= 0x08;
        max_ts = t;
    }
    if batch.transactional {
        attributes |= 0x10;
    }
    if batch.control {
        attributes |= 0x20;
    }
    if batch.delete_horizon.is_some() {
        attributes |= 0x40;
    }
    let header = HeaderFields {
        base_offset: batch.base_offset,
        partition_leader_epoch: batch.partition_leader_epoch,
        attributes,
        last_offset_delta: batch.last_offset.wrapping_sub(batch.base_offset) as i32,
        base_timestamp: base_ts,
        max_timestamp: max_ts,
        producer_id: batch.producer_id,
        producer_epoch: batch.producer_epoch,
        base_sequence: batch.base_sequence,
        records: records.len() as i32,
    };
    write_v2(out, &header, &payload);
}

/// The 61-byte batch the cleaner keeps when every record goes but the batch must stay
/// (`DefaultRecordBatch.writeEmptyHeader`): no records, no compression, base and max timestamp
/// the original's max timestamp, its offsets, producer fields and flags.
#[derive(Debug, Clone, Copy)]
pub struct EmptyBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
    pub log_append_time: bool,
    pub max_timestamp: i64,
    pub transactional: bool,
    pub control: bool,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
}

/// The size of a v2 batch without records.
pub const EMPTY_BATCH_SIZE: usize = 61;

pub fn encode_empty_batch(out: &mut Vec<u8>, b: &EmptyBatch) {
    let mut attributes = 0i16;
    if b.log_append_time {
        attributes |= 0x08;
    }
    if b.transactional {
        attributes |= 0x10;
    }
    if b.control {
        attributes |= 0x20;
    }
    let header = HeaderFields {
        base_offset: b.base_offset,
        partition_leader_epoch: b.partition_leader_epoch,
        attributes,
        last_offset_delta: b.last_offset.wrapping_sub(b.base_offset) as i32,
        base_timestamp: b.max_timestamp,
        max_timestamp: b.max_timestamp,
        producer_id: b.producer_id,
        producer_epoch: b.producer_epoch,
        base_sequence: b.base_sequence,
        records: 0,
    };
    write_v2(out, &header, &[]);
}

fn codec_bits(codec: Codec) -> i16 {
    match codec {
        Codec::None => 0,
        Codec::Gzip => 1,
        Codec::Snappy => 2,
        Codec::Lz4 => 3,
        Codec::Zstd => 4,
        Codec::Unknown(id) => id as i16,
    }
}

struct HeaderFields {
    base_offset: i64,
    partition_leader_epoch: i32,
    attributes: i16,
    last_offset_delta: i32,
    base_timestamp: i64,
    max_timestamp: i64,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    records: i32,
}

/// The v2 header, the payload, and the CRC-32C from the attributes on.
fn write_v2(out: &mut Vec<u8>, h: &HeaderFields, payload: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&h.base_offset.to_be_bytes());
    out.extend_from_slice(&((49 + payload.len()) as i32).to_be_bytes());
    out.extend_from_slice(&h.partition_leader_epoch.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&h.attributes.to_be_bytes());
    out.extend_from_slice(&h.last_offset_delta.to_be_bytes());
    out.extend_from_slice(&h.base_timestamp.to_be_bytes());
    out.extend_from_slice(&h.max_timestamp.to_be_bytes());
    out.extend_from_slice(&h.producer_id.to_be_bytes());
    out.extend_from_slice(&h.producer_epoch.to_be_bytes());
    out.extend_from_slice(&h.base_sequence.to_be_bytes());
    out.extend_from_slice(&h.records.to_be_bytes());
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out[start + 21..]);
    out[start + 17..start + 21].copy_from_slice(&crc.to_be_bytes());
}

/// Compresses a records region the way Kafka's Java producer frames each codec.
pub fn compress(codec: Codec, raw: &[u8]) -> Vec<u8> {
    match codec {
        Codec::None | Codec::Unknown(_) => raw.to_vec(),
        Codec::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(raw).expect("writing to a Vec cannot fail");
            enc.finish().expect("writing to a Vec cannot fail")
        }
        Codec::Snappy => {
            // snappy-java's xerial stream: header, then [u32 BE length][raw block] per 32 KiB.
            let mut out = b"\x82SNAPPY\0\0\0\0\x01\0\0\0\x01".to_vec();
            let mut enc = snap::raw::Encoder::new();
            for chunk in raw.chunks(32 * 1024) {
                let block = enc
                    .compress_vec(chunk)
                    .expect("snappy input below its size limit");
                out.extend_from_slice(&(block.len() as u32).to_be_bytes());
                out.extend_from_slice(&block);
            }
            out
        }
        Codec::Lz4 => {
            // Kafka's frame: FLG 0x60 (independent blocks), BD 0x40 (64 KiB), HC 0x82.
            let mut out = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82];
            for chunk in raw.chunks(64 * 1024) {
                let block = lz4_flex::block::compress(chunk);
                if block.len() < chunk.len() {
                    out.extend_from_slice(&(block.len() as u32).to_le_bytes());
                    out.extend_from_slice(&block);
                } else {
                    out.extend_from_slice(&(chunk.len() as u32 | 0x8000_0000).to_le_bytes());
                    out.extend_from_slice(chunk);
                }
            }
            out.extend_from_slice(&0u32.to_le_bytes());
            out
        }
        Codec::Zstd => {
            zstd::bulk::compress(raw, 3).expect("zstd compression of an in-memory buffer")
        }
    }
}

/// Appends an unsigned varint (re-exported for writers of flexible protocol fields).
pub fn put_unsigned_varint(out: &mut Vec<u8>, v: u32) {
    put_uvarint(out, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{for_each_record, LogEntry, RecordScratch};

    type Seen = (i64, i64, Option<Vec<u8>>, Option<Vec<u8>>);

    fn decoded(bytes: &[u8], keep: impl Fn(i64) -> bool) -> Vec<Seen> {
        let entry = LogEntry::parse(bytes).unwrap();
        let mut seen = Vec::new();
        for_each_record(&entry, &mut RecordScratch::default(), |r| {
            if keep(r.offset) {
                seen.push((
                    r.offset,
                    r.timestamp,
                    r.key.map(<[u8]>::to_vec),
                    r.value.map(<[u8]>::to_vec),
                ));
            }
        })
        .unwrap();
        seen
    }

    #[test]
    fn rebuilt_batches_round_trip_with_horizon_and_last_offset() {
        // Records 100, 103 and 107 kept of a batch 100..=109 (103 a tombstone).
        let src: Vec<NewRecord> = (0..10)
            .map(|i| NewRecord {
                timestamp: 1_700_000_000_000 + i,
                key: Some(b"k"),
                value: if i == 3 {
                    None
                } else {
                    Some(b"value value value")
                },
                headers: &[(b"h", Some(b"v"))],
            })
            .collect();
        let keep = |o: i64| [100, 103, 107].contains(&o);
        for codec in [
            Codec::None,
            Codec::Gzip,
            Codec::Snappy,
            Codec::Lz4,
            Codec::Zstd,
        ] {
            let mut original = Vec::new();
            let nb = NewBatch {
                base_offset: 100,
                codec,
                producer_id: 7,
                producer_epoch: 2,
                base_sequence: 40,
                ..Default::default()
            };
            encode_batch(&mut original, &nb, &src, &mut Vec::new());
            let entry = LogEntry::parse(&original).unwrap();
            let mut scratch = RecordScratch::default();
            let payload = crate::log::v2_record_bytes(&entry, &mut scratch)
                .unwrap()
                .unwrap();
            let LogEntry::V2(b) = entry else { panic!("v2") };
            let origin = if codec == Codec::None { 61 } else { 0 };
            let kept: Vec<KeptRecord> = b
                .records(payload, origin)
                .unwrap()
                .map(|r| r.unwrap())
                .filter(|r| keep(r.offset))
                .map(|r| KeptRecord {
                    offset: r.offset,
                    timestamp: r.timestamp,
                    key: r.key,
                    value: r.value,
                    headers: r.headers,
                })
                .collect();
            let rb = RebuiltBatch {
                base_offset: 100,
                last_offset: 109,
                partition_leader_epoch: 0,
                codec,
                log_append_time: None,
                transactional: false,
                control: false,
                producer_id: 7,
                producer_epoch: 2,
                base_sequence: 40,
                delete_horizon: Some(1_800_000_000_000),
            };
            let mut rebuilt = Vec::new();
            encode_rebuilt_batch(&mut rebuilt, &rb, &kept, &mut Vec::new());
            let info = LogEntry::parse(&rebuilt).unwrap().info();
            assert!(info.crc_valid, "{codec:?}");
            assert_eq!(
                (info.base_offset, info.last_offset, info.count),
                (100, 109, Some(3))
            );
            assert_eq!(info.delete_horizon_ms, Some(1_800_000_000_000));
            assert_eq!(info.max_timestamp, 1_700_000_000_007);
            assert_eq!(
                (info.producer_id, info.base_sequence, info.codec),
                (7, 40, codec)
            );
            assert_eq!(
                decoded(&rebuilt, |_| true),
                decoded(&original, keep),
                "{codec:?}"
            );
        }
    }

    #[test]
    fn empty_batches_are_61_bytes_and_decode() {
        let mut out = Vec::new();
        encode_empty_batch(
            &mut out,
            &EmptyBatch {
                base_offset: 40,
                last_offset: 44,
                partition_leader_epoch: 3,
                log_append_time: false,
                max_timestamp: 1_700_000_000_000,
                transactional: true,
                control: false,
                producer_id: 9,
                producer_epoch: 1,
                base_sequence: 12,
            },
        );
        assert_eq!(out.len(), EMPTY_BATCH_SIZE);
        let info = LogEntry::parse(&out).unwrap().info();
        assert!(info.crc_valid);
        assert_eq!(
            (info.base_offset, info.last_offset, info.count),
            (40, 44, Some(0))
        );
        assert_eq!(
            (info.first_timestamp, info.max_timestamp),
            (1_700_000_000_000, 1_700_000_000_000)
        );
        assert!(info.is_transactional && !info.is_control);
        assert_eq!(info.last_sequence, 16);
    }

    #[test]
    fn every_codec_round_trips() {
        let headers: &[(&[u8], Option<&[u8]>)] = &[(b"h1", Some(b"v")), (b"h2", None)];
        let records: Vec<NewRecord> = (0..50)
            .map(|i| NewRecord {
                timestamp: 1_700_000_000_000 + i,
                key: if i % 7 == 0 { None } else { Some(b"key") },
                value: Some(b"some value that compresses well well well"),
                headers,
            })
            .collect();
        for codec in [
            Codec::None,
            Codec::Gzip,
            Codec::Snappy,
            Codec::Lz4,
            Codec::Zstd,
        ] {
            let mut out = Vec::new();
            let batch = NewBatch {
                base_offset: 100,
                codec,
                ..Default::default()
            };
            encode_batch(&mut out, &batch, &records, &mut Vec::new());
            let entry = LogEntry::parse(&out).unwrap();
            let info = entry.info();
            assert!(info.crc_valid, "{codec:?}");
            assert_eq!(info.codec, codec);
            assert_eq!(info.last_offset, 149);
            let mut scratch = RecordScratch::default();
            let mut seen = Vec::new();
            for_each_record(&entry, &mut scratch, |r| {
                seen.push((
                    r.offset,
                    r.timestamp,
                    r.key.map(|k| k.to_vec()),
                    r.headers.iter().count(),
                ))
            })
            .unwrap();
            assert_eq!(seen.len(), 50, "{codec:?}");
            assert_eq!(seen[7], (107, 1_700_000_000_007, None, 2));
        }
    }
}
