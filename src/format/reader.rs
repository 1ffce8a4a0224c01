//! A bounds-checked big-endian cursor over borrowed bytes, with Kafka's varint encodings.
//!
//! Every read returns a [`DecodeError`] carrying the byte position instead of panicking, so
//! hostile or torn input can never take the process down.

use std::borrow::Cow;
use std::fmt;

/// What kind of decoding failure: callers decide on this, never on the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ends before the value it holds (a short read, a torn write).
    Truncated,
    /// A length, size or count that is negative, below its minimum, or larger than the bytes
    /// present.
    Length,
    /// A varint or varlong longer than its type allows.
    Varint,
    /// A version, magic or codec this decoder does not read (probably a newer Kafka's).
    Unsupported,
    /// Compressed bytes the codec rejects.
    Compression,
    /// Compressed bytes that inflate past the decompression cap (`--max-decompressed-bytes`):
    /// a bomb, or a batch larger than the cap allows; the bytes themselves may be fine.
    OverCap,
    /// A field holding a value the format forbids (null where one is required, invalid UTF-8,
    /// a compressed message inside a compressed wrapper, offsets out of order).
    Invalid,
    /// Bytes left over after a value that should have used them all.
    Trailing,
    /// A text file (checkpoint, properties, JSON) that does not follow its format.
    Text,
}

/// A decoding failure at a byte position relative to the start of the decoded input: its kind
/// (what a caller branches on) and a message (what a person reads; the `Display`).
///
/// Callers that know where the input sits in a file shift the position with [`DecodeError::at`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub position: u64,
    pub kind: DecodeErrorKind,
    pub message: Cow<'static, str>,
}

impl DecodeError {
    pub fn new(
        kind: DecodeErrorKind,
        position: usize,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        DecodeError {
            position: position as u64,
            kind,
            message: message.into(),
        }
    }

    /// [`DecodeErrorKind::Truncated`] at `position`.
    pub fn truncated(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Truncated, position, message)
    }

    /// [`DecodeErrorKind::Length`] at `position`.
    pub fn length(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Length, position, message)
    }

    /// [`DecodeErrorKind::Unsupported`] at `position`.
    pub fn unsupported(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Unsupported, position, message)
    }

    /// [`DecodeErrorKind::Compression`] at `position`.
    pub fn compression(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Compression, position, message)
    }

    /// [`DecodeErrorKind::Invalid`] at `position`.
    pub fn invalid(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Invalid, position, message)
    }

    /// [`DecodeErrorKind::Trailing`] at `position`.
    pub fn trailing(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Trailing, position, message)
    }

    /// [`DecodeErrorKind::Text`] at `position`.
    pub fn text(position: usize, message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(DecodeErrorKind::Text, position, message)
    }

    /// Moves the error position by `base` bytes (the offset of the decoded slice in its file).
    pub fn at(mut self, base: u64) -> Self {
        self.position += base;
        self
    }

    /// The same kind and position with a new message (context added around the old one).
    pub fn reworded(self, message: impl Into<Cow<'static, str>>) -> Self {
        DecodeError {
            message: message.into(),
            ..self
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.position, self.message)
    }
}

impl std::error::Error for DecodeError {}

pub type DecodeResult<T> = Result<T, DecodeError>;

/// Cursor over a byte slice. `origin` is added to positions in errors so nested decoders
/// (a record inside a batch) report positions relative to the outer input.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    origin: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            origin: 0,
        }
    }

    pub fn with_origin(data: &'a [u8], origin: usize) -> Self {
        Reader {
            data,
            pos: 0,
            origin,
        }
    }

    /// Position of the next byte, counted from the origin.
    pub fn position(&self) -> usize {
        self.origin + self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// An error of `kind` at the cursor.
    pub fn error(
        &self,
        kind: DecodeErrorKind,
        message: impl Into<Cow<'static, str>>,
    ) -> DecodeError {
        DecodeError::new(kind, self.position(), message)
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, what: &str, needed: usize) -> DecodeError {
        self.error(
            DecodeErrorKind::Truncated,
            format!(
                "expected {needed} bytes of {what}, only {} left",
                self.remaining()
            ),
        )
    }

    #[inline]
    pub fn bytes(&mut self, len: usize, what: &str) -> DecodeResult<&'a [u8]> {
        if self.remaining() < len {
            return Err(self.truncated(what, len));
        }
        let out = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    pub fn skip(&mut self, len: usize, what: &str) -> DecodeResult<()> {
        self.bytes(len, what).map(|_| ())
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &str) -> DecodeResult<[u8; N]> {
        let b = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    #[inline]
    pub fn u8(&mut self, what: &str) -> DecodeResult<u8> {
        Ok(self.array::<1>(what)?[0])
    }
    #[inline]
    pub fn i8(&mut self, what: &str) -> DecodeResult<i8> {
        Ok(self.u8(what)? as i8)
    }
    pub fn i16(&mut self, what: &str) -> DecodeResult<i16> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    pub fn u16(&mut self, what: &str) -> DecodeResult<u16> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }
    pub fn i32(&mut self, what: &str) -> DecodeResult<i32> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }
    pub fn u32(&mut self, what: &str) -> DecodeResult<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }
    pub fn i64(&mut self, what: &str) -> DecodeResult<i64> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
    pub fn uuid(&mut self, what: &str) -> DecodeResult<[u8; 16]> {
        self.array(what)
    }

    /// Unsigned LEB128 limited to 5 bytes (Kafka's `readUnsignedVarint`).
    #[inline]
    pub fn uvarint(&mut self, what: &str) -> DecodeResult<u32> {
        // Most record fields (lengths, deltas, counts) fit in one byte.
        if let Some(&b) = self.data.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u32);
            }
        }
        self.uvarint_long(what)
    }

    fn uvarint_long(&mut self, what: &str) -> DecodeResult<u32> {
        let start = self.position();
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.u8(what)?;
            // Kafka drops the unused high bits of a fifth byte; so do we.
            value |= ((b & 0x7f) as u32) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::new(
            DecodeErrorKind::Varint,
            start,
            format!("{what}: varint longer than 5 bytes"),
        ))
    }

    /// Unsigned LEB128 limited to 10 bytes.
    #[inline]
    pub fn uvarlong(&mut self, what: &str) -> DecodeResult<u64> {
        if let Some(&b) = self.data.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u64);
            }
        }
        self.uvarlong_long(what)
    }

    fn uvarlong_long(&mut self, what: &str) -> DecodeResult<u64> {
        let start = self.position();
        let mut value: u64 = 0;
        for i in 0..10 {
            let b = self.u8(what)?;
            value |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::new(
            DecodeErrorKind::Varint,
            start,
            format!("{what}: varlong longer than 10 bytes"),
        ))
    }

    /// Zigzag-encoded signed varint (record fields).
    #[inline]
    pub fn varint(&mut self, what: &str) -> DecodeResult<i32> {
        let u = self.uvarint(what)?;
        Ok(((u >> 1) as i32) ^ -((u & 1) as i32))
    }

    /// Zigzag-encoded signed varlong (record timestamp delta).
    #[inline]
    pub fn varlong(&mut self, what: &str) -> DecodeResult<i64> {
        let u = self.uvarlong(what)?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    /// A zigzag length followed by that many bytes. Any negative length means null, as Kafka's
    /// `DefaultRecord.readFrom` reads keys, values and header values.
    #[inline]
    pub fn varint_bytes(&mut self, what: &str) -> DecodeResult<Option<&'a [u8]>> {
        let len = self.varint(what)?;
        if len < 0 {
            return Ok(None);
        }
        self.bytes(len as usize, what).map(Some)
    }
}

/// Appends the zigzag varint encoding of `v` (used by tests and writers).
pub fn put_varint(out: &mut Vec<u8>, v: i32) {
    put_uvarint(out, ((v << 1) ^ (v >> 31)) as u32);
}

pub fn put_varlong(out: &mut Vec<u8>, v: i64) {
    let mut u = ((v << 1) ^ (v >> 63)) as u64;
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

pub fn put_uvarint(out: &mut Vec<u8>, mut u: u32) {
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zig(bytes: &[u8]) -> DecodeResult<i32> {
        Reader::new(bytes).varint("v")
    }

    /// Callers branch on the kind; the message is for people and stays as it was.
    #[test]
    fn errors_carry_their_kind() {
        let e = zig(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Varint);
        let e = Reader::new(&[0, 1]).i32("offset").unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Truncated);
        assert_eq!(
            e.to_string(),
            "byte 0: expected 4 bytes of offset, only 2 left"
        );
        let e = e.at(100).reworded("in a record: more");
        assert_eq!((e.kind, e.position), (DecodeErrorKind::Truncated, 100));
        let e =
            crate::format::text_files::parse_checkpoint("0\n1\nnot a line\n", false).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Text, "{e}");
    }

    #[test]
    fn varint_vectors_from_kafka_byteutils_test() {
        assert_eq!(zig(&[0x00]), Ok(0));
        assert_eq!(zig(&[0x01]), Ok(-1));
        assert_eq!(zig(&[0x02]), Ok(1));
        assert_eq!(zig(&[0x7e]), Ok(63));
        assert_eq!(zig(&[0x7f]), Ok(-64));
        assert_eq!(zig(&[0x80, 0x01]), Ok(64));
        assert_eq!(zig(&[0xfe, 0x7f]), Ok(8191));
        assert_eq!(zig(&[0xff, 0x7f]), Ok(-8192));
        assert_eq!(zig(&[0xfe, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MAX));
        assert_eq!(zig(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MIN));
        assert!(zig(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).is_err());
        let long = |b: &[u8]| Reader::new(b).varlong("v");
        assert_eq!(
            long(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Ok(i64::MAX)
        );
        assert_eq!(
            long(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Ok(i64::MIN)
        );
        assert!(long(&[0xff; 11]).is_err());
        assert_eq!(
            Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f]).uvarint("u"),
            Ok(u32::MAX)
        );
    }

    #[test]
    fn any_negative_length_is_null_like_kafka() {
        // zigzag(-5) = 9, zigzag(-1) = 1
        assert_eq!(Reader::new(&[0x09]).varint_bytes("key"), Ok(None));
        assert_eq!(Reader::new(&[0x01]).varint_bytes("key"), Ok(None));
        assert_eq!(
            Reader::new(&[0x02, 0x61]).varint_bytes("key"),
            Ok(Some(&b"a"[..]))
        );
    }

    #[test]
    fn truncated_reads_are_errors_with_positions() {
        let mut r = Reader::with_origin(&[1, 2, 3], 100);
        assert_eq!(r.i16("a"), Ok(0x0102));
        let e = r.i32("b").unwrap_err();
        assert_eq!(e.position, 102);
    }

    proptest::proptest! {
        #[test]
        fn varint_roundtrip(v: i32) {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            proptest::prop_assert_eq!(Reader::new(&buf).varint("v"), Ok(v));
        }

        #[test]
        fn varlong_roundtrip(v: i64) {
            let mut buf = Vec::new();
            put_varlong(&mut buf, v);
            proptest::prop_assert_eq!(Reader::new(&buf).varlong("v"), Ok(v));
        }

        #[test]
        fn reader_never_panics(data: Vec<u8>) {
            let mut r = Reader::new(&data);
            let _ = r.varint("a");
            let _ = r.varint_bytes("b");
            let _ = r.i64("c");
        }
    }
}
