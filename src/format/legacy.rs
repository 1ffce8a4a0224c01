//! Legacy message format, magic v0 and v1: CRC-32 messages and compressed wrapper messages.

use super::batch::{TimestampType, LOG_OVERHEAD};
use super::compression::Codec;
use super::reader::{DecodeError, DecodeErrorKind, DecodeResult, Reader};

/// crc + magic + attributes + key length + value length.
pub const V0_OVERHEAD: usize = 14;
/// V0 plus the 8-byte timestamp.
pub const V1_OVERHEAD: usize = 22;

/// One top-level or inner legacy message over borrowed bytes.
#[derive(Debug, Clone, Copy)]
pub struct LegacyMessage<'a> {
    pub offset: i64,
    pub message_size: i32,
    pub crc: u32,
    pub magic: i8,
    pub attributes: i8,
    /// Present for magic 1 only.
    pub timestamp: Option<i64>,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub bytes: &'a [u8],
}

impl<'a> LegacyMessage<'a> {
    /// Parses one complete entry (`12 + messageSize` bytes).
    pub fn parse(bytes: &'a [u8]) -> DecodeResult<LegacyMessage<'a>> {
        let mut r = Reader::new(bytes);
        let offset = r.i64("offset")?;
        let message_size = r.i32("messageSize")?;
        if message_size < V0_OVERHEAD as i32 {
            return Err(DecodeError::length(
                8,
                format!("message size {message_size} is below the minimum of {V0_OVERHEAD}"),
            ));
        }
        let total = LOG_OVERHEAD + message_size as usize;
        if total > bytes.len() {
            return Err(DecodeError::length(
                8,
                format!(
                    "message declares {total} bytes but {} are present",
                    bytes.len()
                ),
            ));
        }
        let bytes = &bytes[..total];
        let mut r = Reader::with_origin(&bytes[LOG_OVERHEAD..], LOG_OVERHEAD);
        let crc = r.u32("crc")?;
        let magic = r.i8("magic")?;
        let attributes = r.i8("attributes")?;
        let timestamp = if magic >= 1 {
            Some(r.i64("timestamp")?)
        } else {
            None
        };
        let key = int32_bytes(&mut r, "key")?;
        let value = int32_bytes(&mut r, "value")?;
        if !r.is_empty() {
            return Err(r.error(
                DecodeErrorKind::Trailing,
                format!(
                    "{} bytes left after the value of a legacy message",
                    r.remaining()
                ),
            ));
        }
        Ok(LegacyMessage {
            offset,
            message_size,
            crc,
            magic,
            attributes,
            timestamp,
            key,
            value,
            bytes,
        })
    }

    pub fn codec(&self) -> Codec {
        Codec::from_id((self.attributes & 0x07) as u8)
    }

    pub fn timestamp_type(&self) -> TimestampType {
        if self.magic == 0 {
            TimestampType::NoTimestampType
        } else if self.attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    pub fn timestamp_or_none(&self) -> i64 {
        self.timestamp.unwrap_or(-1)
    }

    pub fn computed_crc(&self) -> u32 {
        crc32fast::hash(&self.bytes[16..])
    }

    pub fn crc_valid(&self) -> bool {
        self.computed_crc() == self.crc
    }

    pub fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// An int32 length and that many bytes; any negative length is null, as `LegacyRecord` reads it.
fn int32_bytes<'a>(r: &mut Reader<'a>, what: &str) -> DecodeResult<Option<&'a [u8]>> {
    match r.i32(what)? {
        n if n < 0 => Ok(None),
        n => r.bytes(n as usize, what).map(Some),
    }
}

/// An inner message of a compressed wrapper, with Kafka's offset and timestamp rules applied.
#[derive(Debug, Clone, Copy)]
pub struct InnerMessage<'a> {
    pub message: LegacyMessage<'a>,
    pub offset: i64,
    pub timestamp: i64,
    pub timestamp_type: TimestampType,
}

/// The inner message set of a wrapper whose value was decompressed into `inner`, walked over
/// the borrowed bytes: [`inner_messages`] checks and counts the whole set once (Kafka rejects a
/// wrapper when any inner message is bad, and v1 offsets depend on the last one), then the
/// iterator yields the messages one by one without collecting them, so a wrapper of millions of
/// tiny messages costs no memory beyond its decompressed bytes.
///
/// v1 inner offsets are relative (0..n-1) and become `wrapper - lastInner + inner`, unless the
/// wrapper offset is 0 (some librdkafka versions), where they are taken as they are. A
/// LogAppendTime v1 wrapper overrides the inner timestamps.
#[derive(Debug, Clone)]
pub struct InnerMessages<'a> {
    inner: &'a [u8],
    pos: usize,
    count: usize,
    first_offset: i64,
    /// Added (wrapping) to each stored inner offset.
    delta: i64,
    /// The wrapper's timestamp type and timestamp when it overrides the inner ones (v1).
    wrapper_type: Option<TimestampType>,
    wrapper_timestamp: i64,
}

impl<'a> InnerMessages<'a> {
    /// Number of inner messages.
    pub fn message_count(&self) -> usize {
        self.count
    }

    /// Offset of the first inner message, with the wrapper's rules applied.
    pub fn first_offset(&self) -> i64 {
        self.first_offset
    }

    fn convert(&self, message: LegacyMessage<'a>) -> InnerMessage<'a> {
        let (timestamp, timestamp_type) = match self.wrapper_type {
            Some(TimestampType::LogAppendTime) => {
                (self.wrapper_timestamp, TimestampType::LogAppendTime)
            }
            Some(t) => (message.timestamp_or_none(), t),
            None => (message.timestamp_or_none(), message.timestamp_type()),
        };
        InnerMessage {
            message,
            offset: message.offset.wrapping_add(self.delta),
            timestamp,
            timestamp_type,
        }
    }
}

impl<'a> Iterator for InnerMessages<'a> {
    type Item = InnerMessage<'a>;

    fn next(&mut self) -> Option<InnerMessage<'a>> {
        if self.pos >= self.inner.len() {
            return None;
        }
        // Every message was parsed by `inner_messages` already; parsing the same bytes again
        // cannot fail, and would only end the walk if it did.
        let message = parse_inner(&self.inner[self.pos..], 0).ok()?;
        self.pos += message.size();
        Some(self.convert(message))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.count))
    }
}

/// One inner message at the start of `rest` (`at`: its position, for errors).
fn parse_inner(rest: &[u8], at: usize) -> DecodeResult<LegacyMessage<'_>> {
    if rest.len() < LOG_OVERHEAD + V0_OVERHEAD {
        return Err(DecodeError::trailing(
            at,
            format!("{} trailing bytes in the inner message set", rest.len()),
        ));
    }
    let size = i32::from_be_bytes(rest[8..12].try_into().expect("4 bytes"));
    if size < V0_OVERHEAD as i32 || LOG_OVERHEAD + size as usize > rest.len() {
        return Err(DecodeError::length(
            at + 8,
            format!(
                "inner message size {size} does not fit in {} bytes",
                rest.len()
            ),
        ));
    }
    let message =
        LegacyMessage::parse(&rest[..LOG_OVERHEAD + size as usize]).map_err(|e| e.at(at as u64))?;
    if message.codec() != Codec::None {
        return Err(DecodeError::invalid(
            at + 17,
            "inner messages must not be compressed",
        ));
    }
    Ok(message)
}

/// Checks the inner message set of a wrapper whose value was decompressed into `inner` and
/// returns the walk over it (see [`InnerMessages`]). `origin` positions errors.
pub fn inner_messages<'a>(
    wrapper: &LegacyMessage<'_>,
    inner: &'a [u8],
    origin: usize,
) -> DecodeResult<InnerMessages<'a>> {
    let mut pos = 0usize;
    let mut count = 0usize;
    let (mut first, mut last) = (0i64, 0i64);
    while pos < inner.len() {
        let message = parse_inner(&inner[pos..], origin + pos)?;
        if count == 0 {
            first = message.offset;
        }
        last = message.offset;
        count += 1;
        pos += message.size();
    }
    if count == 0 {
        return Err(DecodeError::invalid(
            origin,
            "compressed wrapper holds no messages",
        ));
    }
    let mut delta = 0i64;
    let mut wrapper_type = None;
    if wrapper.magic >= 1 {
        if wrapper.offset != 0 {
            if wrapper.offset < last {
                return Err(DecodeError::invalid(
                    origin,
                    format!(
                        "wrapper offset {} is below the last inner relative offset {last}",
                        wrapper.offset
                    ),
                ));
            }
            delta = wrapper.offset.wrapping_sub(last);
        }
        wrapper_type = Some(wrapper.timestamp_type());
    }
    Ok(InnerMessages {
        inner,
        pos: 0,
        count,
        first_offset: first.wrapping_add(delta),
        delta,
        wrapper_type,
        wrapper_timestamp: wrapper.timestamp_or_none(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const V4: &str =
        "00000000000000000000001ba584f50801000000018bcfe56800ffffffff0000000576616c7565";
    const V5: &str = "0000000000000000000000162356c1370000000000036b65790000000576616c7565";

    #[test]
    fn digest_vectors_v1_and_v0() {
        let v1 = hex::decode(V4).unwrap();
        let m = LegacyMessage::parse(&v1).unwrap();
        assert_eq!(m.magic, 1);
        assert!(m.crc_valid());
        assert_eq!(m.crc, 0xA584F508);
        assert_eq!(m.key, None);
        assert_eq!(m.value, Some(&b"value"[..]));
        assert_eq!(m.timestamp, Some(1_700_000_000_000));
        let v0 = hex::decode(V5).unwrap();
        let m = LegacyMessage::parse(&v0).unwrap();
        assert_eq!(m.timestamp_type(), TimestampType::NoTimestampType);
        assert!(m.crc_valid());
        assert_eq!(m.key, Some(&b"key"[..]));
    }

    fn v1_message(offset: i64, attributes: i8, ts: i64, value: &[u8]) -> Vec<u8> {
        let mut body = vec![1u8, attributes as u8];
        body.extend_from_slice(&ts.to_be_bytes());
        body.extend_from_slice(&(-1i32).to_be_bytes());
        body.extend_from_slice(&(value.len() as i32).to_be_bytes());
        body.extend_from_slice(value);
        let crc = crc32fast::hash(&body);
        let mut out = offset.to_be_bytes().to_vec();
        out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        out.extend_from_slice(&crc.to_be_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn v1_relative_inner_offsets_become_absolute() {
        let mut inner = v1_message(0, 0, 10, b"a");
        inner.extend(v1_message(1, 0, 20, b"b"));
        inner.extend(v1_message(2, 0, 15, b"c"));
        let wrapper_bytes = v1_message(102, 1, 20, b"ignored");
        let wrapper = LegacyMessage::parse(&wrapper_bytes).unwrap();
        let walk = inner_messages(&wrapper, &inner, 0).unwrap();
        assert_eq!((walk.message_count(), walk.first_offset()), (3, 100));
        let msgs: Vec<_> = walk.collect();
        let offsets: Vec<i64> = msgs.iter().map(|m| m.offset).collect();
        assert_eq!(offsets, vec![100, 101, 102]);
        assert_eq!(msgs[2].timestamp, 15);

        // LogAppendTime wrapper overrides inner timestamps.
        let lat = v1_message(102, 1 | 0x08, 99, b"x");
        let wrapper = LegacyMessage::parse(&lat).unwrap();
        let msgs: Vec<_> = inner_messages(&wrapper, &inner, 0).unwrap().collect();
        assert!(msgs.iter().all(|m| m.timestamp == 99));
        assert!(msgs
            .iter()
            .all(|m| m.timestamp_type == TimestampType::LogAppendTime));

        // Wrapper offset 0: inner offsets as they are.
        let zero = v1_message(0, 1, 20, b"x");
        let wrapper = LegacyMessage::parse(&zero).unwrap();
        let msgs: Vec<_> = inner_messages(&wrapper, &inner, 0).unwrap().collect();
        assert_eq!(msgs[2].offset, 2);
    }

    proptest::proptest! {
        #[test]
        fn garbage_never_panics(data: Vec<u8>) {
            if let Ok(m) = LegacyMessage::parse(&data) {
                if let Ok(walk) = inner_messages(&m, &data, 0) {
                    let n = walk.message_count();
                    let first = walk.first_offset();
                    let offsets: Vec<i64> = walk.map(|m| m.offset).collect();
                    proptest::prop_assert_eq!(offsets.len(), n);
                    proptest::prop_assert_eq!(offsets[0], first);
                }
            }
        }
    }
}
