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
