//! RecordBatch magic v2: the 61-byte header, CRC-32C validation and zero-copy record iteration.

use super::compression::Codec;
use super::reader::{DecodeError, DecodeResult, Reader};

/// Size of the v2 batch header up to and including the record count.
pub const V2_HEADER_SIZE: usize = 61;
/// Bytes before the length field ends: baseOffset (8) + batchLength (4).
pub const LOG_OVERHEAD: usize = 12;
/// The CRC-32C covers everything from the attributes field to the end of the batch.
pub const V2_CRC_START: usize = 21;
/// The smallest record: length, attributes, timestamp, offset, key and value lengths, header count.
pub const MIN_RECORD_SIZE: usize = 7;
/// Where the magic byte stands in every log entry (after baseOffset, length and the
/// partitionLeaderEpoch or v0/v1 CRC).
pub const MAGIC_OFFSET: usize = 16;
/// Where the v2 header's lastOffsetDelta stands (after magic, CRC and attributes).
pub const LAST_OFFSET_DELTA_OFFSET: usize = 23;
/// How many leading bytes of an entry [`entry_last_offset`] needs at most.
pub const LAST_OFFSET_PREFIX: usize = LAST_OFFSET_DELTA_OFFSET + 4;

/// The last offset of the log entry whose first bytes are `h`, from its header alone: base
/// offset plus lastOffsetDelta for magic 2, the entry's own offset for magic 0 and 1 (a
/// compressed wrapper carries its last inner offset). `None` when `h` is too short.
pub fn entry_last_offset(h: &[u8]) -> Option<i64> {
    let magic = *h.get(MAGIC_OFFSET)? as i8;
    let base = i64::from_be_bytes(h.get(0..8)?.try_into().ok()?);
    if magic < 2 {
        return Some(base);
    }
    let delta = h.get(LAST_OFFSET_DELTA_OFFSET..LAST_OFFSET_PREFIX)?;
    let delta = i32::from_be_bytes(delta.try_into().ok()?);
    Some(base.wrapping_add(delta as i64))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    NoTimestampType,
    CreateTime,
    LogAppendTime,
}

impl TimestampType {
    /// The name Kafka prints (`TimestampType.toString()`).
    pub fn name(self) -> &'static str {
        match self {
            TimestampType::NoTimestampType => "NoTimestampType",
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        }
    }
}

/// Every field of a v2 batch header, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchHeader {
    pub base_offset: i64,
    pub batch_length: i32,
    pub partition_leader_epoch: i32,
    pub magic: i8,
    pub crc: u32,
    pub attributes: i16,
    pub last_offset_delta: i32,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub records_count: i32,
}

impl BatchHeader {
    pub fn parse(data: &[u8]) -> DecodeResult<BatchHeader> {
        let mut r = Reader::new(data);
        Ok(BatchHeader {
            base_offset: r.i64("baseOffset")?,
            batch_length: r.i32("batchLength")?,
            partition_leader_epoch: r.i32("partitionLeaderEpoch")?,
            magic: r.i8("magic")?,
            crc: r.u32("crc")?,
            attributes: r.i16("attributes")?,
            last_offset_delta: r.i32("lastOffsetDelta")?,
            base_timestamp: r.i64("baseTimestamp")?,
            max_timestamp: r.i64("maxTimestamp")?,
            producer_id: r.i64("producerId")?,
            producer_epoch: r.i16("producerEpoch")?,
            base_sequence: r.i32("baseSequence")?,
            records_count: r.i32("recordsCount")?,
        })
    }

    pub fn codec(&self) -> Codec {
        // Kafka reads only the low byte of the attributes.
        Codec::from_id((self.attributes & 0x07) as u8)
    }
    pub fn timestamp_type(&self) -> TimestampType {
        if self.attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }
    pub fn is_transactional(&self) -> bool {
        self.attributes & 0x10 != 0
    }
    pub fn is_control(&self) -> bool {
        self.attributes & 0x20 != 0
    }
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        (self.attributes & 0x40 != 0).then_some(self.base_timestamp)
    }
    pub fn last_offset(&self) -> i64 {
        self.base_offset.wrapping_add(self.last_offset_delta as i64)
    }
    pub fn size(&self) -> usize {
        LOG_OVERHEAD + self.batch_length.max(0) as usize
    }
    pub fn last_sequence(&self) -> i32 {
        sequence_at(self.base_sequence, self.last_offset_delta)
    }
}

/// Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap at `i32::MAX` to 0.
pub fn sequence_at(base_sequence: i32, delta: i32) -> i32 {
    if base_sequence < 0 {
        return -1;
    }
    // Java int arithmetic: hostile deltas (negative, huge) wrap instead of overflowing.
    if base_sequence > i32::MAX.wrapping_sub(delta) {
        delta
            .wrapping_sub(i32::MAX.wrapping_sub(base_sequence))
            .wrapping_sub(1)
    } else {
        base_sequence.wrapping_add(delta)
    }
}

/// A whole v2 batch over borrowed bytes (`12 + batchLength` of them).
#[derive(Debug, Clone, Copy)]
pub struct RecordBatch<'a> {
    pub header: BatchHeader,
    pub bytes: &'a [u8],
}

impl<'a> RecordBatch<'a> {
    /// `bytes` must hold the complete batch; the framing walker guarantees that.
    pub fn parse(bytes: &'a [u8]) -> DecodeResult<RecordBatch<'a>> {
        let header = BatchHeader::parse(bytes)?;
        if header.batch_length < (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 {
            return Err(DecodeError::length(
                8,
                format!(
                    "batch length {} is below the v2 minimum of {}",
                    header.batch_length,
                    V2_HEADER_SIZE - LOG_OVERHEAD
                ),
            ));
        }
        if header.size() > bytes.len() {
            return Err(DecodeError::length(
                8,
                format!(
                    "batch declares {} bytes but {} are present",
                    header.size(),
                    bytes.len()
                ),
            ));
        }
        Ok(RecordBatch {
            header,
            bytes: &bytes[..header.size()],
        })
    }

    pub fn computed_crc(&self) -> u32 {
        crc32c::crc32c(&self.bytes[V2_CRC_START..])
    }

    pub fn crc_valid(&self) -> bool {
        self.computed_crc() == self.header.crc
    }

    /// The records region as stored: raw records, or the compressed stream when codec ≠ none.
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[V2_HEADER_SIZE..]
    }

    /// Iterates the records of `payload` — the stored payload for uncompressed batches, or the
    /// decompressed bytes otherwise. `payload_origin` is the file-relative position of payload
    /// byte 0 for error reporting (for decompressed data, the batch position).
    pub fn records<'p>(
        &self,
        payload: &'p [u8],
        payload_origin: usize,
    ) -> DecodeResult<Records<'p>> {
        let count = self.header.records_count;
        if count < 0 {
            return Err(DecodeError::length(
                57,
                format!("invalid negative record count {count}"),
            ));
        }
        // Each record takes at least 7 bytes, so a count the payload cannot hold is an error
        // before any work (and never an allocation) is done.
        if count as usize > payload.len() / MIN_RECORD_SIZE && count > 0 {
            return Err(DecodeError::length(
                57,
                format!(
                    "record count {count} cannot fit in {} bytes of records",
                    payload.len()
                ),
            ));
        }
        Ok(Records {
            reader: Reader::with_origin(payload, payload_origin),
            left: count,
            header: self.header,
        })
    }
}

/// One record of a v2 batch, borrowing its key, value and headers.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub offset: i64,
    pub timestamp: i64,
    pub attributes: i8,
    pub sequence: i32,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: Headers<'a>,
}

/// Headers kept as the record decoder validated them, so that printing them does not parse
/// them again; more are read again from the bytes (no allocation either way).
const INLINE_HEADERS: usize = 2;

/// The headers of a record (no allocation).
#[derive(Debug, Clone, Copy)]
pub struct Headers<'a> {
    pub count: usize,
    bytes: &'a [u8],
    origin: usize,
    /// The first `min(count, INLINE_HEADERS)` headers.
    inline: [Header<'a>; INLINE_HEADERS],
    /// Where the headers after the inline ones start in `bytes`.
    rest_at: usize,
}

impl<'a> Headers<'a> {
    pub fn empty() -> Self {
        Headers {
            count: 0,
            bytes: &[],
            origin: 0,
            inline: [Header::EMPTY; INLINE_HEADERS],
            rest_at: 0,
        }
    }

    pub fn iter(&self) -> HeaderIter<'a> {
        HeaderIter {
            inline: self.inline,
            next_inline: 0,
            inline_count: self.count.min(INLINE_HEADERS),
            reader: Reader::with_origin(&self.bytes[self.rest_at..], self.origin + self.rest_at),
            left: self.count,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    pub key: &'a [u8],
    pub value: Option<&'a [u8]>,
}

impl Header<'_> {
    const EMPTY: Header<'static> = Header {
        key: &[],
        value: None,
    };
}

pub struct HeaderIter<'a> {
    inline: [Header<'a>; INLINE_HEADERS],
    next_inline: usize,
    inline_count: usize,
    reader: Reader<'a>,
    left: usize,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;
    fn next(&mut self) -> Option<Header<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.next_inline < self.inline_count {
            self.next_inline += 1;
            return Some(self.inline[self.next_inline - 1]);
        }
        // Already validated when the record was decoded.
        let key = self.reader.varint_bytes("header key").ok()??;
        let value = self.reader.varint_bytes("header value").ok()?;
        Some(Header { key, value })
    }
}

pub struct Records<'p> {
    reader: Reader<'p>,
    left: i32,
    header: BatchHeader,
}

impl<'p> Records<'p> {
    /// Bytes left after all declared records were read: Kafka rejects a batch with leftovers.
    pub fn trailing(&self) -> usize {
        if self.left == 0 {
            self.reader.remaining()
        } else {
            0
        }
    }
    pub fn position(&self) -> usize {
        self.reader.position()
    }

    fn decode_one(&mut self) -> DecodeResult<Record<'p>> {
        let r = &mut self.reader;
        let start = r.position();
        let length = r.varint("record length")?;
        if length < 0 || length as usize > r.remaining() {
            return Err(DecodeError::length(
                start,
                format!(
                    "record length {length} does not fit in the {} remaining bytes",
                    r.remaining()
                ),
            ));
        }
        let body_start = r.position();
        let mut body = Reader::with_origin(r.bytes(length as usize, "record")?, body_start);
        let attributes = body.i8("record attributes")?;
        let timestamp_delta = body.varlong("timestampDelta")?;
        let offset_delta = body.varint("offsetDelta")?;
        let key = body.varint_bytes("key")?;
        let value = body.varint_bytes("value")?;
        let count_at = body.position();
        let header_count = body.varint("header count")?;
        if header_count < 0 || header_count as usize > body.remaining() {
            return Err(DecodeError::length(
                count_at,
                format!(
                    "invalid header count {header_count} with {} bytes left",
                    body.remaining()
                ),
            ));
        }
        let headers_origin = body.position();
        let headers_bytes = body.rest();
        let mut inline = [Header::EMPTY; INLINE_HEADERS];
        let mut rest_at = 0;
        for i in 0..header_count as usize {
            let at = body.position();
            let key = match body.varint_bytes("header key")? {
                Some(k) => k,
                None => return Err(DecodeError::invalid(at, "null header key")),
            };
            let value = body.varint_bytes("header value")?;
            if let Some(slot) = inline.get_mut(i) {
                *slot = Header { key, value };
                rest_at = body.position() - headers_origin;
            }
        }
        if !body.is_empty() {
            return Err(DecodeError::trailing(
                body.position(),
                format!(
                    "invalid record size: {} bytes left after the last header",
                    body.remaining()
                ),
            ));
        }
        let h = &self.header;
        let timestamp = match h.timestamp_type() {
            TimestampType::LogAppendTime => h.max_timestamp,
            _ => h.base_timestamp.wrapping_add(timestamp_delta),
        };
        Ok(Record {
            offset: h.base_offset.wrapping_add(offset_delta as i64),
            timestamp,
            attributes,
            sequence: sequence_at(h.base_sequence, offset_delta),
            key,
            value,
            headers: Headers {
                count: header_count as usize,
                bytes: &headers_bytes[..headers_bytes.len() - body.remaining()],
                origin: headers_origin,
                inline,
                rest_at,
            },
        })
    }
}

impl<'p> Iterator for Records<'p> {
    type Item = DecodeResult<Record<'p>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.left <= 0 {
            return None;
        }
        self.left -= 1;
        let item = self.decode_one();
        if item.is_err() {
            self.left = 0;
        }
        Some(item)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub const V1_BATCH: &str = "0000000000000000000000400000000002db5e9cdd0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000011c000000066b65790a76616c756500";
    pub const V2_BATCH: &str = "000000000000000000000049000000000297f4442a0000000000010000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff000000021c000000046b31047631020268027810000a020104763200";

    #[test]
    fn last_offset_from_the_header_alone() {
        let v2 = hex::decode(V2_BATCH).unwrap();
        let b = RecordBatch::parse(&v2).unwrap();
        assert_eq!(
            entry_last_offset(&v2[..LAST_OFFSET_PREFIX]),
            Some(b.header.last_offset())
        );
        assert_eq!(entry_last_offset(&v2[..LAST_OFFSET_PREFIX - 1]), None);
        // A magic 1 message: offset 7, size, CRC, magic 1; its offset is its last offset.
        let mut v1 = 7i64.to_be_bytes().to_vec();
        v1.extend_from_slice(&[0, 0, 0, 30, 1, 2, 3, 4, 1]);
        assert_eq!(entry_last_offset(&v1), Some(7));
        assert_eq!(entry_last_offset(&v1[..MAGIC_OFFSET]), None);
    }

    #[test]
    fn digest_vector_v1_single_record() {
        let bytes = hex::decode(V1_BATCH).unwrap();
        let b = RecordBatch::parse(&bytes).unwrap();
        assert_eq!(b.header.crc, 0xDB5E9CDD);
        assert!(b.crc_valid());
        assert_eq!(b.header.size(), 76);
        let recs: Vec<_> = b.records(b.payload(), 61).unwrap().collect();
        assert_eq!(recs.len(), 1);
        let r = recs[0].as_ref().unwrap();
        assert_eq!(r.key, Some(&b"key"[..]));
        assert_eq!(r.value, Some(&b"value"[..]));
        assert_eq!(r.timestamp, 1_700_000_000_000);
    }

    #[test]
    fn digest_vector_v2_headers_and_null_key() {
        let bytes = hex::decode(V2_BATCH).unwrap();
        let b = RecordBatch::parse(&bytes).unwrap();
        assert!(b.crc_valid());
        let recs: Vec<_> = b
            .records(b.payload(), 61)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            recs[0].headers.iter().collect::<Vec<_>>(),
            vec![Header {
                key: b"h",
                value: Some(b"x")
            }]
        );
        assert_eq!(recs[1].key, None);
        assert_eq!(recs[1].offset, 1);
        assert_eq!(recs[1].timestamp, 1_700_000_000_005);
    }

    #[test]
    fn bit_flip_breaks_crc_but_not_parsing() {
        let mut bytes = hex::decode(V1_BATCH).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0x01;
        let b = RecordBatch::parse(&bytes).unwrap();
        assert!(!b.crc_valid());
    }

    #[test]
    fn hostile_record_count_is_rejected_up_front() {
        let mut bytes = hex::decode(V1_BATCH).unwrap();
        bytes[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
        let b = RecordBatch::parse(&bytes).unwrap();
        assert!(b.records(b.payload(), 61).is_err());
    }

    #[test]
    fn sequence_wraps_like_kafka() {
        assert_eq!(sequence_at(5, 5), 10);
        assert_eq!(sequence_at(i32::MAX, 1), 0);
        assert_eq!(sequence_at(i32::MAX - 5, 10), 4);
        assert_eq!(sequence_at(-1, 3), -1);
        // Found by fuzzing: a negative offset delta must not overflow.
        assert_eq!(sequence_at(5, -7), 2147483646);
        assert_eq!(sequence_at(0, i32::MIN), 0);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_payloads_never_panic(data: Vec<u8>, count in -2i32..1000) {
            let mut bytes = hex::decode(V1_BATCH).unwrap();
            bytes.truncate(61);
            bytes[57..61].copy_from_slice(&count.to_be_bytes());
            bytes.extend_from_slice(&data);
            let len = (bytes.len() - 12) as i32;
            bytes[8..12].copy_from_slice(&len.to_be_bytes());
            let b = RecordBatch::parse(&bytes).unwrap();
            if let Ok(records) = b.records(b.payload(), 61) {
                for r in records.flatten() {
                    for h in r.headers.iter() { let _ = h; }
                }
            }
        }
    }
}
