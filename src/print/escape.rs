//! Making untrusted bytes safe for a terminal, and encoding them losslessly for JSON.

use std::io::{self, Write};

use base64::Engine;

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

/// Writes `bytes` as text: valid UTF-8 as it is except dangerous characters, which become
/// `\u{...}` (or `\xNN` below 0x80), and invalid UTF-8 bytes, which become `\xNN`.
pub fn write_escaped(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    if bytes.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        return out.write_all(bytes);
    }
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                write_escaped_str(out, s)?;
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                write_escaped_str(out, std::str::from_utf8(good).expect("validated prefix"))?;
                let n = e.error_len().unwrap_or(bad.len());
                for b in &bad[..n] {
                    write!(out, "\\x{b:02x}")?;
                }
                rest = &bad[n..];
            }
        }
    }
    Ok(())
}

fn write_escaped_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if is_dangerous(c) {
            out.write_all(&s.as_bytes()[start..i])?;
            if (c as u32) < 0x80 {
                write!(out, "\\x{:02x}", c as u32)?;
            } else {
                write!(out, "\\u{{{:x}}}", c as u32)?;
            }
            start = i + c.len_utf8();
        }
    }
    out.write_all(&s.as_bytes()[start..])
}

/// How keys, values and header values appear in JSON (`--encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

/// Writes `bytes` (or `null`) as a JSON value under `encoding`, using `scratch` for hex/base64.
pub fn write_json_bytes(
    out: &mut impl Write,
    bytes: Option<&[u8]>,
    encoding: Encoding,
    scratch: &mut String,
) -> io::Result<()> {
    let Some(bytes) = bytes else {
        return out.write_all(b"null");
    };
    match encoding {
        Encoding::Auto => match std::str::from_utf8(bytes) {
            Ok(s) => write_json_str(out, s),
            Err(_) => {
                out.write_all(b"{\"base64\":\"")?;
                scratch.clear();
                base64::engine::general_purpose::STANDARD.encode_string(bytes, scratch);
                out.write_all(scratch.as_bytes())?;
                out.write_all(b"\"}")
            }
        },
        Encoding::Utf8 => write_json_str(out, &String::from_utf8_lossy(bytes)),
        Encoding::Hex => {
            scratch.clear();
            for b in bytes {
                use std::fmt::Write as _;
                let _ = write!(scratch, "{b:02x}");
            }
            out.write_all(b"\"")?;
            out.write_all(scratch.as_bytes())?;
            out.write_all(b"\"")
        }
        Encoding::Base64 => {
            scratch.clear();
            base64::engine::general_purpose::STANDARD.encode_string(bytes, scratch);
            out.write_all(b"\"")?;
            out.write_all(scratch.as_bytes())?;
            out.write_all(b"\"")
        }
    }
}

/// A JSON string literal with every required escape (no allocation).
pub fn write_json_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, s).map_err(io::Error::from)
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

    #[test]
    fn json_encodings() {
        let mut s = String::new();
        let mut out = Vec::new();
        write_json_bytes(&mut out, Some(&[0xff, 0x00]), Encoding::Auto, &mut s).unwrap();
        assert_eq!(out, br#"{"base64":"/wA="}"#);
        out.clear();
        write_json_bytes(&mut out, Some(b"hi\""), Encoding::Auto, &mut s).unwrap();
        assert_eq!(out, br#""hi\"""#);
        out.clear();
        write_json_bytes(&mut out, Some(&[0xab, 0x01]), Encoding::Hex, &mut s).unwrap();
        assert_eq!(out, br#""ab01""#);
        out.clear();
        write_json_bytes(&mut out, None, Encoding::Hex, &mut s).unwrap();
        assert_eq!(out, b"null");
    }

    proptest::proptest! {
        #[test]
        fn escaped_output_has_no_control_characters(bytes: Vec<u8>) {
            let s = esc(&bytes);
            proptest::prop_assert!(!s.chars().any(is_dangerous));
        }
    }
}
