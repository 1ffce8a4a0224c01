//! A line buffer for NDJSON without `core::fmt`: integers through `itoa`, strings escaped in one
//! pass into the reused buffer, bytes as hex through a lookup table or Base64 straight into it.
//! A printer appends its lines to its output buffer ([`super::LineOut`]) with these, and the
//! buffer goes to the writer in large pieces.
//!
//! The output is byte for byte what `serde_json` writes for the same values (its escapes:
//! `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as `\u00xx`).

use base64::Engine;
use serde_json::Value;

use kseg_escape::Encoding;

/// What each byte becomes inside a JSON string: 0 = itself, `u` = `\u00xx`, else `\<that>`.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Each byte's two lowercase hex digits.
static HEX_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX_DIGITS[i >> 4], HEX_DIGITS[i & 15]];
        i += 1;
    }
    t
};

/// Appends `bytes` as lowercase hex.
pub fn push_hex(buf: &mut Vec<u8>, bytes: &[u8]) {
    let start = buf.len();
    buf.resize(start + bytes.len() * 2, 0);
    for (pair, &b) in buf[start..].chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX_PAIRS[b as usize]);
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A mask whose lowest set bit (bit 7 of byte k) marks the first of the 8 bytes of `w` that
/// needs a look: a control character, `"`, `\\` or a byte at or above 0x80. The usual bit
/// tricks (a byte is zero, or below n, when subtracting borrows): exact for the lowest flagged
/// byte, bytes above it may be flagged falsely, which only costs a look.
#[inline]
fn look_mask(w: u64) -> u64 {
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * b'"' as u64);
    let quote = q.wrapping_sub(ONES) & !q;
    let s = w ^ (ONES * b'\\' as u64);
    let backslash = s.wrapping_sub(ONES) & !s;
    (below_space | quote | backslash | w) & HIGHS
}

/// Appends the JSON escape of `bytes` (no quotes). Returns whether every byte was ASCII.
///
/// Output goes in fixed 8-byte stores (a word is stored whole, then the length is cut back
/// when it holds a byte to escape) rather than one copy call per run between escapes: JSON
/// payloads are full of quotes, and short copy calls were most of the cost.
#[inline]
fn push_escaped(buf: &mut Vec<u8>, bytes: &[u8]) -> bool {
    buf.reserve(bytes.len() + 8);
    let mut ascii = true;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(word) = bytes.get(i..i + 8) {
            let word: [u8; 8] = word.try_into().expect("8 bytes");
            let m = look_mask(u64::from_le_bytes(word));
            let len = buf.len();
            buf.extend_from_slice(&word);
            if m == 0 {
                i += 8;
                continue;
            }
            // Keep the plain bytes before the first one that needs a look.
            let k = (m.trailing_zeros() / 8) as usize;
            buf.truncate(len + k);
            i += k;
        }
        let b = bytes[i];
        match ESCAPE[b as usize] {
            0 => {
                ascii &= b < 0x80;
                buf.push(b);
            }
            b'u' => {
                buf.extend_from_slice(b"\\u00");
                buf.extend_from_slice(&HEX_PAIRS[b as usize]);
            }
            e => buf.extend_from_slice(&[b'\\', e]),
        }
        i += 1;
    }
    ascii
}

/// Appends JSON to a printer's output buffer (see [`super::LineOut`]).
pub struct JsonLine<'b>(pub &'b mut Vec<u8>);

impl JsonLine<'_> {
    #[inline]
    pub fn raw(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }

    #[inline]
    pub fn int<I: itoa::Integer>(&mut self, v: I) {
        let mut b = itoa::Buffer::new();
        self.0.extend_from_slice(b.format(v).as_bytes());
    }

    /// An integer or `null`.
    #[inline]
    pub fn opt_int<I: itoa::Integer>(&mut self, v: Option<I>) {
        match v {
            Some(v) => self.int(v),
            None => self.raw(b"null"),
        }
    }

    #[inline]
    pub fn bool(&mut self, v: bool) {
        self.raw(if v { b"true" } else { b"false" });
    }

    /// A JSON string literal.
    #[inline]
    pub fn str(&mut self, s: &str) {
        self.0.push(b'"');
        push_escaped(self.0, s.as_bytes());
        self.0.push(b'"');
    }

    /// A JSON string literal of bytes known to be ASCII without escapes (names, enums).
    #[inline]
    pub fn plain(&mut self, s: &str) {
        self.0.push(b'"');
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(b'"');
    }

    /// Any JSON value, as `serde_json` writes it.
    pub fn value(&mut self, v: &Value) {
        serde_json::to_writer(&mut self.0, v).expect("a Value always serializes");
    }

    /// Standard Base64 with padding, no quotes.
    pub fn base64(&mut self, bytes: &[u8]) {
        let start = self.0.len();
        let n = base64::encoded_len(bytes.len(), true).expect("a record fits in memory");
        self.0.resize(start + n, 0);
        let written = base64::engine::general_purpose::STANDARD
            .encode_slice(bytes, &mut self.0[start..])
            .expect("sized by encoded_len");
        self.0.truncate(start + written);
    }

    /// A finite or non-finite double as `serde_json` writes a `Value` made from it: finite as a
    /// number (`1.0`, `1e16`), NaN and the infinities as the strings Jackson writes.
    pub fn float(&mut self, x: f64) {
        if x.is_finite() {
            let mut b = zmij::Buffer::new();
            self.raw(b.format_finite(x).as_bytes());
        } else if x.is_nan() {
            self.raw(b"\"NaN\"");
        } else if x > 0.0 {
            self.raw(b"\"Infinity\"");
        } else {
            self.raw(b"\"-Infinity\"");
        }
    }

    /// `bytes` (or `null`) as a JSON value under `encoding`.
    #[inline]
    pub fn bytes(&mut self, bytes: Option<&[u8]>, encoding: Encoding) {
        let Some(bytes) = bytes else {
            return self.raw(b"null");
        };
        match encoding {
            Encoding::Auto => {
                let mark = self.0.len();
                self.0.push(b'"');
                // One pass for ASCII; other bytes are validated once, after the escape.
                let ascii = push_escaped(self.0, bytes);
                if ascii || std::str::from_utf8(bytes).is_ok() {
                    self.0.push(b'"');
                } else {
                    self.0.truncate(mark);
                    self.raw(b"{\"base64\":\"");
                    self.base64(bytes);
                    self.raw(b"\"}");
                }
            }
            Encoding::Utf8 => {
                let s = String::from_utf8_lossy(bytes);
                self.str(&s);
            }
            Encoding::Hex => {
                self.0.push(b'"');
                push_hex(self.0, bytes);
                self.0.push(b'"');
            }
            Encoding::Base64 => {
                self.0.push(b'"');
                self.base64(bytes);
                self.0.push(b'"');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde_bytes(bytes: &[u8], encoding: Encoding) -> Vec<u8> {
        // The reference: what serde_json and the base64/hex crates produce.
        match encoding {
            Encoding::Auto => match std::str::from_utf8(bytes) {
                Ok(s) => serde_json::to_vec(s).unwrap(),
                Err(_) => format!(
                    "{{\"base64\":\"{}\"}}",
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                )
                .into_bytes(),
            },
            Encoding::Utf8 => serde_json::to_vec(&String::from_utf8_lossy(bytes)).unwrap(),
            Encoding::Hex => format!("\"{}\"", hex::encode(bytes)).into_bytes(),
            Encoding::Base64 => format!(
                "\"{}\"",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            )
            .into_bytes(),
        }
    }

    #[test]
    fn escapes_like_serde_json() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "\u{0}\u{1f}\u{7f}\t\n\r\u{8}\u{c}",
            "café \u{202e} 😀",
            "a longer plain string, then \"quotes\" and a\ttab after the eighth byte",
        ] {
            let mut v = Vec::new();
            JsonLine(&mut v).str(s);
            assert_eq!(v, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn integers_and_null() {
        let mut v = Vec::new();
        let mut l = JsonLine(&mut v);
        l.int(i64::MIN);
        l.raw(b",");
        l.opt_int::<i32>(None);
        l.raw(b",");
        l.int(u64::MAX);
        assert_eq!(v, b"-9223372036854775808,null,18446744073709551615");
    }

    proptest::proptest! {
        #[test]
        fn bytes_match_the_reference(bytes: Vec<u8>, text: String) {
            for enc in [Encoding::Auto, Encoding::Utf8, Encoding::Hex, Encoding::Base64] {
                for b in [&bytes[..], text.as_bytes()] {
                    let mut v = Vec::new();
                    JsonLine(&mut v).bytes(Some(b), enc);
                    proptest::prop_assert_eq!(&v, &serde_bytes(b, enc));
                }
            }
        }
    }
}
