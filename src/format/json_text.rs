//! A JSON reader for the small JSON files of a data dir (`quorum-state`,
//! `.kafka_cleanshutdown`): a document's values in file order, every member kept, so that a
//! printer shows what the file holds, fields kseg does not know included.
//!
//! Values are read as `serde_json` reads them (which is what kseg's output was built on):
//! an integer without fraction or exponent is a `u64` when it is not negative and fits, an
//! `i64` when it is negative and fits (`-0` is the float `-0.0`), any other number a double
//! (out of range is an error); a repeated object key keeps its first place and takes the last
//! value; strings are unescaped (`\uXXXX` with surrogate pairs; a lone surrogate or a raw
//! control character is an error); nesting is bounded (128 levels); nothing may follow the
//! value but whitespace. Errors carry the byte position.

use super::reader::DecodeError;

/// One JSON value. Objects keep their members in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    /// A non-negative integer that fits 64 bits.
    UInt(u64),
    /// A negative integer that fits 64 bits.
    Int(i64),
    Float(f64),
    String(String),
    Array(Vec<JsonValue>),
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    /// An integer member's value, when it fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            JsonValue::UInt(n) => i64::try_from(n).ok(),
            JsonValue::Int(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Nesting deeper than this is refused (as `serde_json` does), so hostile input cannot exhaust
/// the stack.
const MAX_DEPTH: usize = 128;

/// Parses one JSON value, with only whitespace around it.
pub fn parse(text: &str) -> Result<JsonValue, DecodeError> {
    let mut p = Parser {
        b: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.at < p.b.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> DecodeError {
        let before = &self.b[..self.at.min(self.b.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
        DecodeError::text(
            self.at,
            format!("invalid JSON at line {line} column {column}: {what}"),
        )
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<(), DecodeError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn literal(&mut self, word: &[u8], v: JsonValue) -> Result<JsonValue, DecodeError> {
        if self.b[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(v)
        } else {
            Err(self.error("expected value"))
        }
    }

    fn value(&mut self) -> Result<JsonValue, DecodeError> {
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'n') => self.literal(b"null", JsonValue::Null),
            Some(b't') => self.literal(b"true", JsonValue::Bool(true)),
            Some(b'f') => self.literal(b"false", JsonValue::Bool(false)),
            Some(b'"') => self.string().map(JsonValue::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => self.nested(|p| {
                let mut items = Vec::new();
                if p.peek() == Some(b']') {
                    p.at += 1;
                    return Ok(JsonValue::Array(items));
                }
                loop {
                    p.skip_ws();
                    items.push(p.value()?);
                    p.skip_ws();
                    match p.peek() {
                        Some(b',') => p.at += 1,
                        Some(b']') => {
                            p.at += 1;
                            return Ok(JsonValue::Array(items));
                        }
                        _ => return Err(p.error("expected `,` or `]`")),
                    }
                }
            }),
            Some(b'{') => self.nested(|p| {
                let mut members: Vec<(String, JsonValue)> = Vec::new();
                if p.peek() == Some(b'}') {
                    p.at += 1;
                    return Ok(JsonValue::Object(members));
                }
                loop {
                    p.skip_ws();
                    if p.peek() != Some(b'"') {
                        return Err(p.error("key must be a string"));
                    }
                    let key = p.string()?;
                    p.skip_ws();
                    p.expect(b':', "expected `:`")?;
                    p.skip_ws();
                    let v = p.value()?;
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = v,
                        None => members.push((key, v)),
                    }
                    p.skip_ws();
                    match p.peek() {
                        Some(b',') => p.at += 1,
                        Some(b'}') => {
                            p.at += 1;
                            return Ok(JsonValue::Object(members));
                        }
                        _ => return Err(p.error("expected `,` or `}`")),
                    }
                }
            }),
            Some(_) => Err(self.error("expected value")),
        }
    }

    /// An array or object: the opening bracket, then `body` one level deeper.
    fn nested(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<JsonValue, DecodeError>,
    ) -> Result<JsonValue, DecodeError> {
        if self.depth == MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        self.depth += 1;
        self.at += 1;
        self.skip_ws();
        let v = body(self);
        self.depth -= 1;
        v
    }

    fn hex4(&mut self) -> Result<u32, DecodeError> {
        let digits = self
            .b
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .filter(|d| d.bytes().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("invalid escape"))?;
        let n = u32::from_str_radix(digits, 16).map_err(|_| self.error("invalid escape"))?;
        self.at += 4;
        Ok(n)
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        self.at += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The text is a `&str`, and the run stops at ASCII bytes only.
            out.push_str(std::str::from_utf8(&self.b[start..self.at]).unwrap_or_default());
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let e = self
                        .peek()
                        .ok_or_else(|| self.error("EOF while parsing a string"))?;
                    self.at += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return Err(self.error("invalid escape")),
                    }
                }
                Some(_) => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
            }
        }
    }

    /// The character of a `\uXXXX` escape (its `\u` read), a surrogate pair as one.
    fn unicode_escape(&mut self) -> Result<char, DecodeError> {
        let n = self.hex4()?;
        let code = match n {
            0xD800..=0xDBFF => {
                if !self.b[self.at..].starts_with(b"\\u") {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                0x10000 + ((n - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone trailing surrogate in hex escape")),
            n => n,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid unicode code point"))
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<JsonValue, DecodeError> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let int_start = self.at;
        match self.digits() {
            0 => return Err(self.error("invalid number")),
            n if n > 1 && self.b[int_start] == b'0' => {
                self.at = int_start + 1;
                return Err(self.error("invalid number"));
            }
            _ => {}
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        // ASCII only, checked above.
        let text = std::str::from_utf8(&self.b[start..self.at]).unwrap_or_default();
        if integer {
            let magnitude = &self.b[int_start..self.at];
            if let Ok(n) = std::str::from_utf8(magnitude)
                .unwrap_or_default()
                .parse::<u64>()
            {
                if !negative {
                    return Ok(JsonValue::UInt(n));
                }
                let neg = (n as i64).wrapping_neg();
                // As serde_json: `-0`, and what does not fit an i64, are floats.
                if neg < 0 {
                    return Ok(JsonValue::Int(neg));
                }
                return Ok(JsonValue::Float(-(n as f64)));
            }
        }
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(JsonValue::Float(x)),
            _ => Err(self.error("number out of range")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_serde_json_reads_them() {
        let v = parse(
            r#" {"a":1,"b":-2,"c":[true,false,null],"d":"x\"\u00e9\ud83d\ude00","a":3,"e":1.5,"f":-0,"g":18446744073709551615,"h":18446744073709551616,"i":{}} "#,
        )
        .unwrap();
        let JsonValue::Object(m) = v else {
            panic!("{v:?}")
        };
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
        assert_eq!(m[0].1, JsonValue::UInt(3));
        assert_eq!(m[1].1, JsonValue::Int(-2));
        assert_eq!(m[3].1.as_str(), Some("x\"é😀"));
        assert_eq!(m[4].1, JsonValue::Float(1.5));
        assert!(matches!(m[5].1, JsonValue::Float(x) if x == 0.0 && x.is_sign_negative()));
        assert_eq!(m[6].1, JsonValue::UInt(u64::MAX));
        assert_eq!(m[7].1, JsonValue::Float(18446744073709551616.0));
        assert_eq!(m[8].1, JsonValue::Object(vec![]));
    }

    #[test]
    fn malformed_json_is_an_error_with_its_position() {
        for (text, at) in [
            ("{", 1),
            ("{\"a\" 1}", 5),
            ("[1,]", 3),
            ("01", 1),
            ("1e400", 5),
            ("\"\\ud800\"", 7),
            ("\"a\u{1}\"", 2),
            ("{} x", 3),
            ("tru", 0),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.position, at, "{text:?}: {}", e.message);
            assert!(
                e.message.starts_with("invalid JSON at line 1 column "),
                "{}",
                e.message
            );
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(parse(&deep)
            .unwrap_err()
            .message
            .contains("recursion limit"));
        let ok = "[".repeat(128) + &"]".repeat(128);
        assert!(parse(&ok).is_ok());
    }
}
