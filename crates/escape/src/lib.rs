//! Making untrusted bytes safe for a terminal, and encoding them losslessly for JSON.

use std::io::{self, Write};

/// Characters that can move the cursor, hide text or reorder it on a terminal.
fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width and direction marks
            | '\u{2028}'..='\u{202E}' // separators and bidi embeddings/overrides
            | '\u{2060}'..='\u{2069}' // word joiner, invisible operators, bidi isolates
            | '\u{FEFF}'              // zero-width no-break space
            | '\u{E0000}'..='\u{E007F}') // tag characters
}

/// A path as a terminal may show it: [`write_escaped`] over its bytes (a directory named with
/// ESC, BEL or a newline must not reach the terminal raw).
pub fn escaped_path(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let _ = write_escaped(&mut out, path.as_os_str().as_bytes());
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` with [`write_escaped`] applied: one line, no control characters.
pub fn escaped(s: &str) -> String {
    let mut out = Vec::new();
    let _ = write_escaped(&mut out, s.as_bytes());
    String::from_utf8_lossy(&out).into_owned()
}

fn is_printable_ascii(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// Writes `bytes` as text: valid UTF-8 as it is except dangerous characters, which become
/// `\u{...}` (or `\xNN` below 0x80), and invalid UTF-8 bytes, which become `\xNN`.
pub fn write_escaped(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    if bytes.iter().all(|&b| is_printable_ascii(b)) {
        return out.write_all(bytes);
    }
    let mut v = Vec::with_capacity(bytes.len() + 16);
    push_escaped(&mut v, bytes);
    out.write_all(&v)
}

/// [`write_escaped`] appending to a buffer, without `core::fmt`.
pub fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    // Printable ASCII (the common case) is copied in runs.
    let run = bytes
        .iter()
        .position(|&b| !is_printable_ascii(b))
        .unwrap_or(bytes.len());
    out.extend_from_slice(&bytes[..run]);
    let mut rest = &bytes[run..];
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                push_escaped_str(out, s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                push_escaped_str(out, std::str::from_utf8(good).expect("validated prefix"));
                let n = e.error_len().unwrap_or(bad.len());
                for &b in &bad[..n] {
                    push_byte_escape(out, b);
                }
                rest = &bad[n..];
            }
        }
    }
}

/// `\xNN`, lowercase.
fn push_byte_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(&[b'\\', b'x', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
}

fn push_escaped_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if (c as u32) >= 0x20 && (c as u32) < 0x7f {
            continue;
        }
        if is_dangerous(c) {
            out.extend_from_slice(&s.as_bytes()[start..i]);
            let u = c as u32;
            if u < 0x80 {
                push_byte_escape(out, u as u8);
            } else {
                out.extend_from_slice(b"\\u{");
                let digits = (32 - u.leading_zeros()).div_ceil(4);
                for k in (0..digits).rev() {
                    out.push(HEX[((u >> (4 * k)) & 15) as usize]);
                }
                out.push(b'}');
            }
            start = i + c.len_utf8();
        }
    }
    out.extend_from_slice(&s.as_bytes()[start..]);
}

/// How keys, values and header values appear in JSON (`--encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// A JSON string when the bytes are valid UTF-8, else `{"base64":"..."}`: lossless.
    Auto,
    /// Always a string; invalid UTF-8 is replaced by U+FFFD (lossy).
    Utf8,
    /// Lowercase hex string.
    Hex,
    /// Standard Base64 with padding.
    Base64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(b: &[u8]) -> String {
        let mut v = Vec::new();
        write_escaped(&mut v, b).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn terminal_escapes() {
        assert_eq!(esc(b"plain"), "plain");
        assert_eq!(esc(b"a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(esc("x\u{202E}y".as_bytes()), "x\\u{202e}y");
        assert_eq!(esc(&[0x66, 0xff, 0x67]), "f\\xffg");
        assert_eq!(esc("café\n".as_bytes()), "café\\x0a");
    }

    /// The `core::fmt` version this replaced, kept as the reference.
    fn reference(bytes: &[u8]) -> String {
        fn str_ref(out: &mut String, s: &str) {
            for c in s.chars() {
                if is_dangerous(c) {
                    if (c as u32) < 0x80 {
                        out.push_str(&format!("\\x{:02x}", c as u32));
                    } else {
                        out.push_str(&format!("\\u{{{:x}}}", c as u32));
                    }
                } else {
                    out.push(c);
                }
            }
        }
        let mut out = String::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    str_ref(&mut out, s);
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    str_ref(&mut out, std::str::from_utf8(good).unwrap());
                    let n = e.error_len().unwrap_or(bad.len());
                    for b in &bad[..n] {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                    rest = &bad[n..];
                }
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn escaped_output_has_no_control_characters(bytes: Vec<u8>) {
            let s = esc(&bytes);
            proptest::prop_assert!(!s.chars().any(is_dangerous));
        }

        #[test]
        fn same_as_the_formatting_version(bytes: Vec<u8>, text: String) {
            proptest::prop_assert_eq!(esc(&bytes), reference(&bytes));
            proptest::prop_assert_eq!(esc(text.as_bytes()), reference(text.as_bytes()));
        }
    }
}
