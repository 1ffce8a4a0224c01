//! Kafka's compression codecs, decoded into a reusable buffer with a hard size cap.
//!
//! Kafka frames each codec in its own way: snappy uses snappy-java's "xerial" stream, lz4 uses
//! Kafka's LZ4 frame writer (with a deliberately wrong header checksum for magic 0), gzip may
//! hold several members, zstd several frames. The cap ([`DEFAULT_MAX_DECOMPRESSED`]) bounds the
//! memory a single hostile batch can claim; exceeding it is a decode error, not an allocation.

use std::io::Read;

use super::reader::{DecodeError, DecodeErrorKind};

/// Largest decompressed payload accepted for one batch or legacy wrapper: 128 MiB.
/// Kafka's default `message.max.bytes` is 1 MiB compressed; a 128x ratio covers real data.
pub const DEFAULT_MAX_DECOMPRESSED: usize = 128 << 20;

/// The codec ids of the attributes field (bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Codec {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
    /// Ids 5-7: Kafka throws "Unknown compression type id".
    Unknown(u8),
}

impl Codec {
    pub fn from_id(id: u8) -> Codec {
        match id & 0x07 {
            0 => Codec::None,
            1 => Codec::Gzip,
            2 => Codec::Snappy,
            3 => Codec::Lz4,
            4 => Codec::Zstd,
            other => Codec::Unknown(other),
        }
    }

    /// The name Kafka prints (`CompressionType.name`).
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Gzip => "gzip",
            Codec::Snappy => "snappy",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
            Codec::Unknown(5) => "unknown(5)",
            Codec::Unknown(6) => "unknown(6)",
            Codec::Unknown(_) => "unknown(7)",
        }
    }
}

/// Reusable decompression state: one output buffer and one zstd context per thread, so that
/// decoding many small batches does not allocate per batch.
pub struct Decompressor {
    pub max_output: usize,
    /// Inputs decompressed so far (`kseg grep`'s tests count them: a pruned batch never is).
    pub calls: u64,
    zstd: Option<zstd::stream::raw::Decoder<'static>>,
}

impl Default for Decompressor {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_DECOMPRESSED)
    }
}

impl Decompressor {
    pub fn new(max_output: usize) -> Self {
        Decompressor {
            max_output,
            calls: 0,
            zstd: None,
        }
    }

    /// Drops the zstd context (and its window buffer, as large as the largest frame's window);
    /// the next zstd batch makes a new one.
    pub fn release(&mut self) {
        self.zstd = None;
    }

    /// Decompresses `input` (the compressed records region) into `out`, replacing its contents.
    /// `magic` matters for lz4 (magic 0 frames carry a broken header checksum) and zstd (v2 only).
    /// Error positions are relative to the start of `input`.
    pub fn decompress(
        &mut self,
        codec: Codec,
        magic: i8,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        out.clear();
        self.calls += 1;
        match codec {
            Codec::None => {
                self.check_len(input.len(), 0)?;
                out.extend_from_slice(input);
                Ok(())
            }
            Codec::Gzip => gunzip(input, out, self.max_output),
            Codec::Snappy => unsnappy(input, out, self.max_output),
            Codec::Lz4 => unlz4(input, out, self.max_output, magic == 0),
            Codec::Zstd => {
                if magic < 2 {
                    return Err(DecodeError::invalid(
                        0,
                        "zstd compression is only valid with magic 2",
                    ));
                }
                self.unzstd(input, out)
            }
            Codec::Unknown(id) => Err(DecodeError::unsupported(
                0,
                format!("unknown compression type id {id}"),
            )),
        }
    }

    fn check_len(&self, len: usize, at: usize) -> Result<(), DecodeError> {
        if len > self.max_output {
            Err(cap_error(at, self.max_output))
        } else {
            Ok(())
        }
    }

    fn unzstd(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        use zstd::stream::raw::{InBuffer, Operation, OutBuffer};
        if self.zstd.is_none() {
            let dec = zstd::stream::raw::Decoder::new()
                .map_err(|e| DecodeError::compression(0, format!("zstd: {e}")))?;
            self.zstd = Some(dec);
        }
        let dec = self.zstd.as_mut().expect("initialised above");
        dec.reinit()
            .map_err(|e| DecodeError::compression(0, format!("zstd: {e}")))?;
        let mut src = InBuffer::around(input);
        let mut chunk = [0u8; 32 * 1024];
        // `run` returns 0 once a frame is complete and fully flushed; a following frame (zstd
        // allows concatenation) starts automatically on the next call.
        let mut frame_done;
        loop {
            let mut dst = OutBuffer::around(&mut chunk[..]);
            let hint = dec
                .run(&mut src, &mut dst)
                .map_err(|e| DecodeError::compression(src.pos, format!("zstd: {e}")))?;
            let produced = dst.pos();
            if out.len() + produced > self.max_output {
                return Err(cap_error(src.pos, self.max_output));
            }
            out.extend_from_slice(&chunk[..produced]);
            frame_done = hint == 0;
            if src.pos >= input.len() && produced < chunk.len() {
                break;
            }
        }
        if !frame_done {
            return Err(DecodeError::compression(
                input.len(),
                "zstd: input ends inside a frame",
            ));
        }
        Ok(())
    }
}

fn cap_error(at: usize, cap: usize) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::OverCap,
        at,
        format!("decompressed size exceeds the {cap}-byte cap (--max-decompressed-bytes)"),
    )
}

/// Reads at most `cap + 1` bytes from `reader` into `out`, failing when the cap is exceeded.
fn read_capped(mut reader: impl Read, out: &mut Vec<u8>, cap: usize) -> std::io::Result<bool> {
    let room = cap.saturating_sub(out.len()) as u64 + 1;
    (&mut reader).take(room).read_to_end(out)?;
    Ok(out.len() <= cap)
}

/// gzip, accepting concatenated members and ignoring trailing non-gzip bytes as Java does.
fn gunzip(input: &[u8], out: &mut Vec<u8>, cap: usize) -> Result<(), DecodeError> {
    let mut rest = input;
    let mut first = true;
    while first || (rest.len() >= 2 && rest[0] == 0x1f && rest[1] == 0x8b) {
        first = false;
        let at = input.len() - rest.len();
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        let within = read_capped(&mut dec, out, cap)
            .map_err(|e| DecodeError::compression(at, format!("gzip: {e}")))?;
        if !within {
            return Err(cap_error(at, cap));
        }
        rest = dec.into_inner();
    }
    Ok(())
}

const XERIAL_MAGIC: &[u8; 8] = b"\x82SNAPPY\0";

/// Upper bounds on how much one input byte can expand, per codec (used to refuse impossible
/// declared sizes before allocating for them).
const SNAPPY_MAX_RATIO: usize = 22;
const LZ4_MAX_RATIO: usize = 256;

/// snappy-java's xerial stream (16-byte header, then `[u32 BE length][raw block]`...), or a
/// single raw snappy block when the header is absent (librdkafka writes raw blocks).
fn unsnappy(input: &[u8], out: &mut Vec<u8>, cap: usize) -> Result<(), DecodeError> {
    if !input.starts_with(XERIAL_MAGIC) {
        return snappy_block(input, 0, out, cap);
    }
    let mut pos = 0usize;
    while pos < input.len() {
        // A second stream header may follow when streams were concatenated.
        if input[pos..].starts_with(XERIAL_MAGIC) {
            if input.len() - pos < 16 {
                return Err(DecodeError::compression(
                    pos,
                    "snappy: truncated xerial header",
                ));
            }
            pos += 16;
            continue;
        }
        if input.len() - pos < 4 {
            return Err(DecodeError::compression(
                pos,
                "snappy: truncated xerial chunk length",
            ));
        }
        let len = u32::from_be_bytes(input[pos..pos + 4].try_into().expect("4 bytes")) as usize;
        pos += 4;
        if len > input.len() - pos {
            return Err(DecodeError::compression(
                pos - 4,
                format!(
                    "snappy: xerial chunk of {len} bytes but only {} left",
                    input.len() - pos
                ),
            ));
        }
        snappy_block(&input[pos..pos + len], pos, out, cap)?;
        pos += len;
    }
    Ok(())
}

fn snappy_block(block: &[u8], at: usize, out: &mut Vec<u8>, cap: usize) -> Result<(), DecodeError> {
    let len = snap::raw::decompress_len(block)
        .map_err(|e| DecodeError::compression(at, format!("snappy: {e}")))?;
    if out.len() + len > cap {
        return Err(cap_error(at, cap));
    }
    // No snappy element expands more than 64 bytes from 3 input bytes, so a block cannot honestly
    // declare more than ~22x its size: refuse before zero-filling the claimed length.
    if len > block.len().saturating_mul(SNAPPY_MAX_RATIO) + 64 {
        return Err(DecodeError::compression(
            at,
            format!(
                "snappy: a {}-byte block cannot decode to the {len} bytes it declares",
                block.len()
            ),
        ));
    }
    let start = out.len();
    out.resize(start + len, 0);
    snap::raw::Decoder::new()
        .decompress(block, &mut out[start..])
        .map_err(|e| DecodeError::compression(at, format!("snappy: {e}")))?;
    Ok(())
}

/// xxHash32 with seed 0, for LZ4 frame header and block checksums.
pub fn xxh32(data: &[u8], seed: u32) -> u32 {
    const P1: u32 = 2654435761;
    const P2: u32 = 2246822519;
    const P3: u32 = 3266489917;
    const P4: u32 = 668265263;
    const P5: u32 = 374761393;
    let round = |acc: u32, lane: u32| {
        acc.wrapping_add(lane.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    };
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut rest = data;
    let mut h: u32;
    if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 16 {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, word(&rest[i * 4..]));
            }
            rest = &rest[16..];
        }
        h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
    } else {
        h = seed.wrapping_add(P5);
    }
    h = h.wrapping_add(data.len() as u32);
    while rest.len() >= 4 {
        h = h
            .wrapping_add(word(rest).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
        rest = &rest[4..];
    }
    for &b in rest {
        h = h
            .wrapping_add((b as u32).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^= h >> 16;
    h
}

/// One LZ4 frame as Kafka's `Lz4BlockInputStream` reads it. Linked (dependent) blocks, which
/// Kafka rejects but liblz4-based clients may write, are decoded too.
fn unlz4(
    input: &[u8],
    out: &mut Vec<u8>,
    cap: usize,
    broken_header_checksum: bool,
) -> Result<(), DecodeError> {
    let err = |at: usize, msg: String| DecodeError::compression(at, format!("lz4: {msg}"));
    if input.len() < 7 {
        return Err(err(0, "frame shorter than its 7-byte header".into()));
    }
    if input[0..4] != [0x04, 0x22, 0x4d, 0x18] {
        return Err(err(
            0,
            format!("bad frame magic {}", hex::encode(&input[0..4])),
        ));
    }
    let flg = input[4];
    let bd = input[5];
    if flg >> 6 != 1 {
        return Err(err(4, format!("unsupported frame version {}", flg >> 6)));
    }
    if flg & 0x03 != 0 || bd & 0x8f != 0 {
        return Err(err(4, "reserved bits set in frame descriptor".into()));
    }
    let independent = flg & 0x20 != 0;
    let block_checksum = flg & 0x10 != 0;
    let content_size = flg & 0x08 != 0;
    let content_checksum = flg & 0x04 != 0;
    let max_block = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        other => return Err(err(5, format!("block size id {other} outside 4..7"))),
    };
    let descriptor_end = if content_size { 14 } else { 6 };
    if input.len() < descriptor_end + 1 {
        return Err(err(0, "truncated frame descriptor".into()));
    }
    let hc = input[descriptor_end];
    // Kafka wrote the checksum over magic+descriptor for magic 0 and skips the check there.
    if !broken_header_checksum {
        let expected = ((xxh32(&input[4..descriptor_end], 0) >> 8) & 0xff) as u8;
        if hc != expected {
            return Err(err(
                descriptor_end,
                format!("stream frame descriptor corrupted (header checksum {hc:#04x}, expected {expected:#04x})"),
            ));
        }
    }
    let mut pos = descriptor_end + 1;
    loop {
        if input.len() - pos < 4 {
            return Err(err(pos, "frame ends before its end mark".into()));
        }
        let word = u32::from_le_bytes(input[pos..pos + 4].try_into().expect("4 bytes"));
        pos += 4;
        if word == 0 {
            break;
        }
        let stored = word & 0x8000_0000 != 0;
        let size = (word & 0x7fff_ffff) as usize;
        if size > max_block {
            return Err(err(
                pos - 4,
                format!("block of {size} bytes exceeds the {max_block}-byte maximum"),
            ));
        }
        if size > input.len() - pos {
            return Err(err(
                pos - 4,
                format!("block of {size} bytes but only {} left", input.len() - pos),
            ));
        }
        let block = &input[pos..pos + size];
        pos += size;
        if block_checksum {
            if input.len() - pos < 4 {
                return Err(err(pos, "truncated block checksum".into()));
            }
            let want = u32::from_le_bytes(input[pos..pos + 4].try_into().expect("4 bytes"));
            if xxh32(block, 0) != want {
                return Err(err(pos, "block checksum mismatch".into()));
            }
            pos += 4;
        }
        if stored {
            if out.len() + size > cap {
                return Err(cap_error(pos, cap));
            }
            out.extend_from_slice(block);
            continue;
        }
        let start = out.len();
        // An LZ4 sequence expands at most ~255x, so size the output by the block, not by the
        // frame's maximum block size (which would zero-fill up to 4 MiB per tiny block).
        let possible = max_block.min(block.len().saturating_mul(LZ4_MAX_RATIO) + 64);
        let room = possible.min(cap - start);
        out.resize(start + room, 0);
        let written = if independent || start == 0 {
            lz4_flex::block::decompress_into(block, &mut out[start..])
        } else {
            let dict_start = start.saturating_sub(64 << 10);
            let (dict, dst) = out.split_at_mut(start);
            lz4_flex::block::decompress_into_with_dict(block, dst, &dict[dict_start..])
        };
        match written {
            Ok(n) => out.truncate(start + n),
            Err(e) => {
                out.truncate(start);
                if room < possible {
                    return Err(cap_error(pos - size, cap));
                }
                return Err(err(pos - size, format!("{e}")));
            }
        }
    }
    // A content checksum may follow; Kafka reads it without verifying, and so do we.
    let _ = content_checksum;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh32_known_values() {
        assert_eq!(xxh32(b"", 0), 0x02cc5d05);
        assert_eq!(xxh32(b"a", 0), 0x550d7456);
        assert_eq!(xxh32(b"abc", 0), 0x32d153ff);
        assert_eq!(
            xxh32(b"Nobody inspects the spammish repetition", 0),
            0xe2293b2f
        );
    }

    #[test]
    fn lz4_header_checksums_match_kafka() {
        // V11 of the format digest: correct HC 0x82, broken magic-0 HC 0x1A.
        assert_eq!((xxh32(&[0x60, 0x40], 0) >> 8) as u8, 0x82);
        assert_eq!(
            (xxh32(&[0x04, 0x22, 0x4d, 0x18, 0x60, 0x40], 0) >> 8) as u8,
            0x1a
        );
    }

    fn kafka_lz4_frame(payload: &[u8], hc: u8) -> Vec<u8> {
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, hc];
        let block = lz4_flex::block::compress(payload);
        f.extend_from_slice(&(block.len() as u32).to_le_bytes());
        f.extend_from_slice(&block);
        f.extend_from_slice(&0u32.to_le_bytes());
        f
    }

    #[test]
    fn lz4_frames_with_right_and_broken_header_checksums() {
        let payload = b"hello hello hello hello kafka".repeat(10);
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        d.decompress(Codec::Lz4, 2, &kafka_lz4_frame(&payload, 0x82), &mut out)
            .unwrap();
        assert_eq!(out, payload);
        d.decompress(Codec::Lz4, 0, &kafka_lz4_frame(&payload, 0x1a), &mut out)
            .unwrap();
        assert_eq!(out, payload);
        let e = d
            .decompress(Codec::Lz4, 1, &kafka_lz4_frame(&payload, 0x1a), &mut out)
            .unwrap_err();
        assert!(e.message.contains("descriptor corrupted"), "{e}");
    }

    #[test]
    fn snappy_xerial_and_raw() {
        let payload = b"snappy snappy snappy data".repeat(100);
        let block = snap::raw::Encoder::new().compress_vec(&payload).unwrap();
        let mut xerial = XERIAL_MAGIC.to_vec();
        xerial.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
        xerial.extend_from_slice(&(block.len() as u32).to_be_bytes());
        xerial.extend_from_slice(&block);
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        d.decompress(Codec::Snappy, 2, &xerial, &mut out).unwrap();
        assert_eq!(out, payload);
        d.decompress(Codec::Snappy, 2, &block, &mut out).unwrap();
        assert_eq!(out, payload);
    }

    #[test]
    fn snappy_claiming_huge_length_is_refused_without_allocating() {
        // uvarint 0xffffffff: a 4 GiB claim in five bytes.
        let bomb = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        let mut d = Decompressor::new(1 << 20);
        let mut out = Vec::new();
        let e = d.decompress(Codec::Snappy, 2, &bomb, &mut out).unwrap_err();
        assert!(e.message.contains("cap"), "{e}");
    }

    #[test]
    fn impossible_declared_sizes_are_refused_before_allocating() {
        // A 6-byte snappy block declaring ~120 MiB, under the default 128 MiB cap.
        let mut bomb = Vec::new();
        crate::format::reader::put_uvarint(&mut bomb, 120 << 20);
        bomb.push(0);
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        let e = d.decompress(Codec::Snappy, 2, &bomb, &mut out).unwrap_err();
        assert!(e.message.contains("cannot decode"), "{e}");
        assert!(out.capacity() < 1 << 20);
        // The most compressible LZ4 input still decodes (64 KiB of zeros, ~240x).
        let zeros = vec![0u8; 64 << 10];
        let frame = kafka_lz4_frame(&zeros, 0x82);
        d.decompress(Codec::Lz4, 2, &frame, &mut out).unwrap();
        assert_eq!(out, zeros);
    }

    #[test]
    fn gzip_multi_member_and_cap() {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let mut all = Vec::new();
        for part in [&b"first "[..], &b"second"[..]] {
            let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(part).unwrap();
            all.extend(enc.finish().unwrap());
        }
        all.extend_from_slice(b"junk");
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        d.decompress(Codec::Gzip, 2, &all, &mut out).unwrap();
        assert_eq!(out, b"first second");

        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&vec![0u8; 4 << 20]).unwrap();
        let bomb = enc.finish().unwrap();
        let mut small = Decompressor::new(1 << 20);
        let e = small
            .decompress(Codec::Gzip, 2, &bomb, &mut out)
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::OverCap, "{e}");
        assert!(out.capacity() < 8 << 20);
        // Damaged bytes are Compression, an unknown codec id Unsupported.
        let e = small
            .decompress(Codec::Gzip, 2, b"\x1f\x8bjunk", &mut out)
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Compression, "{e}");
        let e = small
            .decompress(Codec::Unknown(6), 2, b"x", &mut out)
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Unsupported, "{e}");
    }

    #[test]
    fn zstd_multiple_frames() {
        let mut all = zstd::bulk::compress(b"one ", 3).unwrap();
        all.extend(zstd::bulk::compress(b"two", 19).unwrap());
        let mut d = Decompressor::default();
        let mut out = Vec::new();
        d.decompress(Codec::Zstd, 2, &all, &mut out).unwrap();
        assert_eq!(out, b"one two");
        assert!(d.decompress(Codec::Zstd, 1, &all, &mut out).is_err());
        assert!(d
            .decompress(Codec::Zstd, 2, &all[..all.len() - 3], &mut out)
            .is_err());
    }

    proptest::proptest! {
        #[test]
        fn codecs_never_panic_on_garbage(data: Vec<u8>, codec in 0u8..8, magic in 0i8..3) {
            let mut d = Decompressor::new(1 << 20);
            let mut out = Vec::new();
            let _ = d.decompress(Codec::from_id(codec), magic, &data, &mut out);
            proptest::prop_assert!(out.len() <= (1 << 20) + (4 << 20));
        }
    }
}
