//! `kseg grep --json-field PATH=VALUE`: whether a record value is a JSON document whose field at
//! PATH equals VALUE, as `jq -e 'getpath(PATH) == VALUE'` answers it — at any nesting depth and
//! for numbers beyond f64 (`1e400`), where a tree parser with a depth limit (serde_json stops at
//! 128) or with f64 numbers would miss them.
//!
//! The document is read once, without recursion and without building it: a stack of the open
//! containers (memory bounded by the document's size) follows PATH and keeps the span of the
//! last value found there (a repeated key's last value wins, as in jq). That value is then
//! compared with VALUE in a canonical form: numbers as exact decimals (`1` = `1.0` = `10e-1`;
//! jq 1.7 compares the literals it read exactly too), strings by their unescaped text, objects
//! with sorted keys. A number whose exponent does not fit 64 bits cannot be compared exactly:
//! such a document is [`JsonMatch::Uncomparable`], which the search counts and reports.

use memchr::memmem;

/// One segment of PATH: a name for objects, and an index for arrays when it is all digits.
#[derive(Debug, Clone)]
struct Segment {
    name: Vec<u8>,
    index: Option<usize>,
}

/// `--json-field PATH=VALUE`: the record value is a JSON document whose field at PATH (names
/// and array indexes separated by `.`) equals VALUE: a string field equal to VALUE's text, or
/// any field equal to VALUE read as JSON (numbers by value: `1` equals `1.0`).
#[derive(Debug, Clone)]
pub struct JsonField {
    pub path: Vec<String>,
    pub text: String,
    segments: Vec<Segment>,
    /// VALUE read as JSON, in canonical form (`None`: VALUE is not JSON, compared as text).
    canonical: Option<Vec<u8>>,
    /// `"name"` of the last path segment that is not an index: without a backslash in the
    /// value (no escaped key) it must appear as it is, or the field cannot be there.
    key: Option<memmem::Finder<'static>>,
}

/// What [`JsonField::test`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonMatch {
    Yes,
    /// Not JSON, no field at PATH, or another value there.
    No,
    /// The field is there but holds (or VALUE is) a number whose exponent does not fit 64 bits:
    /// no exact comparison.
    Uncomparable,
}

impl JsonField {
    /// `PATH=VALUE`, split at the first `=`.
    pub fn parse(spec: &str) -> Result<JsonField, String> {
        let Some((path, text)) = spec.split_once('=') else {
            return Err(format!("--json-field {spec:?}: give PATH=VALUE"));
        };
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return Err(format!(
                "--json-field {spec:?}: PATH is field names and array indexes separated by '.'"
            ));
        }
        let path: Vec<String> = path.split('.').map(str::to_string).collect();
        let segments = path
            .iter()
            .map(|p| Segment {
                name: p.as_bytes().to_vec(),
                index: p
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| p.parse().ok())
                    .flatten(),
            })
            .collect();
        let key = path
            .iter()
            .rev()
            .find(|p| !p.bytes().all(|b| b.is_ascii_digit()))
            .map(|p| memmem::Finder::new(format!("\"{p}\"").as_bytes()).into_owned());
        let canonical = match locate(text.as_bytes(), &[]) {
            Ok(Some((start, end))) => match canonical(&text.as_bytes()[start..end]) {
                Some(c) => Some(c),
                None => {
                    return Err(format!(
                        "--json-field {spec:?}: VALUE's number has an exponent beyond 64 bits"
                    ))
                }
            },
            _ => None,
        };
        Ok(JsonField {
            text: text.to_string(),
            path,
            segments,
            canonical,
            key,
        })
    }

    /// Whether `value` is a JSON document with the field.
    pub fn matches(&self, value: &[u8]) -> bool {
        self.test(value) == JsonMatch::Yes
    }

    /// Whether `value` is a JSON document with the field, or could not be compared.
    pub fn test(&self, value: &[u8]) -> JsonMatch {
        if let Some(k) = &self.key {
            if k.find(value).is_none() && memchr::memchr(b'\\', value).is_none() {
                return JsonMatch::No;
            }
        }
        let Ok(Some((start, end))) = locate(value, &self.segments) else {
            return JsonMatch::No;
        };
        let found = &value[start..end];
        if found[0] == b'"' {
            let mut text = Vec::new();
            unescape(&found[1..found.len() - 1], &mut text);
            if text == self.text.as_bytes() {
                return JsonMatch::Yes;
            }
        }
        let Some(want) = &self.canonical else {
            return JsonMatch::No;
        };
        match canonical(found) {
            Some(c) if c == *want => JsonMatch::Yes,
            Some(_) => JsonMatch::No,
            None => JsonMatch::Uncomparable,
        }
    }
}

/// Not a JSON document.
#[derive(Debug)]
struct NotJson;

/// A container open while [`locate`] reads the document.
struct Open {
    array: bool,
    /// Its path is the first `depth` segments of PATH, and PATH goes on below it.
    on_path: bool,
    /// It is the value at PATH.
    here: bool,
    depth: usize,
    /// Arrays: the index of the next element.
    index: usize,
    /// Where it starts.
    start: usize,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting (after its `"`) at `i`, just past its closing quote.
fn string_end(b: &[u8], mut i: usize) -> Result<usize, NotJson> {
    loop {
        let at = i + memchr::memchr2(b'"', b'\\', &b[i..]).ok_or(NotJson)?;
        if b[i..at].iter().any(|&c| c < 0x20) {
            return Err(NotJson);
        }
        if b[at] == b'"' {
            return Ok(at + 1);
        }
        match b.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i = at + 2,
            Some(b'u') => {
                let hex = b.get(at + 2..at + 6).ok_or(NotJson)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(NotJson);
                }
                i = at + 6;
            }
            _ => return Err(NotJson),
        }
    }
}

/// The end of the number starting at `i` (JSON's grammar).
fn number_end(b: &[u8], mut i: usize) -> Result<usize, NotJson> {
    let digits = |b: &[u8], mut i: usize| {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - s)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i).0,
        _ => return Err(NotJson),
    }
    if b.get(i) == Some(&b'.') {
        let (j, n) = digits(b, i + 1);
        if n == 0 {
            return Err(NotJson);
        }
        i = j;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (j, n) = digits(b, i);
        if n == 0 {
            return Err(NotJson);
        }
        i = j;
    }
    Ok(i)
}

/// Reads the whole document `b` (exactly one JSON value, blanks around it) and returns the
/// span of the value at `path`: the last one when a key repeats on the way (jq's `getpath`).
/// `Ok(None)`: valid JSON without that field.
fn locate(b: &[u8], path: &[Segment]) -> Result<Option<(usize, usize)>, NotJson> {
    let mut stack: Vec<Open> = Vec::new();
    let mut found = None;
    let mut key = Vec::new();
    let mut i = skip_ws(b, 0);
    // Where the next value stands: on PATH's first `depth` segments, or off it.
    let (mut on_path, mut depth) = (true, 0usize);
    'value: loop {
        if on_path {
            // A later value at the same place (a repeated key) replaces what was found.
            found = None;
        }
        let start = i;
        let end = match b.get(i).ok_or(NotJson)? {
            b'{' | b'[' => {
                stack.push(Open {
                    array: b[i] == b'[',
                    on_path: on_path && depth < path.len(),
                    here: on_path && depth == path.len(),
                    depth,
                    index: 0,
                    start,
                });
                i = skip_ws(b, i + 1);
                let close = if b[start] == b'[' { b']' } else { b'}' };
                if b.get(i) == Some(&close) {
                    stack.pop();
                    i + 1
                } else {
                    let top = stack.last().expect("pushed");
                    if top.array {
                        (on_path, depth) = (
                            top.on_path && path[top.depth].index == Some(0),
                            top.depth + 1,
                        );
                    } else {
                        i = read_key(b, i, top, path, &mut key, &mut on_path)?;
                        depth = top.depth + 1;
                    }
                    continue 'value;
                }
            }
            b'"' => string_end(b, i + 1)?,
            b'-' | b'0'..=b'9' => number_end(b, i)?,
            b't' if b[i..].starts_with(b"true") => i + 4,
            b'f' if b[i..].starts_with(b"false") => i + 5,
            b'n' if b[i..].starts_with(b"null") => i + 4,
            _ => return Err(NotJson),
        };
        // A value ended at `end` (started at `start`, on PATH's first `depth` segments or not);
        // then every container it closes.
        let (mut start, mut end, mut here) = (start, end, on_path && depth == path.len());
        loop {
            if here {
                found = Some((start, end));
            }
            i = skip_ws(b, end);
            let Some(top) = stack.last_mut() else {
                return if i == b.len() {
                    Ok(found)
                } else {
                    Err(NotJson)
                };
            };
            let close = if top.array { b']' } else { b'}' };
            match b.get(i) {
                Some(b',') => {
                    i = skip_ws(b, i + 1);
                    if top.array {
                        top.index += 1;
                        on_path = top.on_path && path[top.depth].index == Some(top.index);
                    } else {
                        i = read_key(b, i, top, path, &mut key, &mut on_path)?;
                    }
                    depth = top.depth + 1;
                    continue 'value;
                }
                Some(&c) if c == close => {
                    let closed = stack.pop().expect("top");
                    (start, end, here) = (closed.start, i + 1, closed.here);
                }
                _ => return Err(NotJson),
            }
        }
    }
}

/// Reads an object's `"key":` at `i` (its blanks included) and whether the value after it is
/// on PATH: the object is, and the key (unescaped) is PATH's next segment.
fn read_key(
    b: &[u8],
    i: usize,
    object: &Open,
    path: &[Segment],
    key: &mut Vec<u8>,
    on_path: &mut bool,
) -> Result<usize, NotJson> {
    if b.get(i) != Some(&b'"') {
        return Err(NotJson);
    }
    let end = string_end(b, i + 1)?;
    *on_path = object.on_path && {
        let raw = &b[i + 1..end - 1];
        let want = &path[object.depth].name;
        if memchr::memchr(b'\\', raw).is_none() {
            raw == want.as_slice()
        } else {
            key.clear();
            unescape(raw, key);
            key == want
        }
    };
    let colon = skip_ws(b, end);
    if b.get(colon) != Some(&b':') {
        return Err(NotJson);
    }
    Ok(skip_ws(b, colon + 1))
}

/// Appends the text of a JSON string's inside (`raw`, already checked) to `out`: escapes
/// decoded, a lone surrogate as U+FFFD (jq's reading).
fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    let hex4 = |h: &[u8]| {
        h.iter().fold(0u32, |n, &c| {
            n * 16 + (c as char).to_digit(16).expect("checked hex")
        })
    };
    let mut i = 0;
    while i < raw.len() {
        let Some(at) = memchr::memchr(b'\\', &raw[i..]).map(|a| i + a) else {
            out.extend_from_slice(&raw[i..]);
            return;
        };
        out.extend_from_slice(&raw[i..at]);
        let c = raw[at + 1];
        i = at + 2;
        let ch = match c {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(&raw[at + 2..at + 6]);
                i = at + 6;
                let pair = (0xD800..0xDC00).contains(&hi)
                    && raw.get(i) == Some(&b'\\')
                    && raw.get(i + 1) == Some(&b'u');
                let lo = if pair { hex4(&raw[i + 2..i + 6]) } else { 0 };
                if pair && (0xDC00..0xE000).contains(&lo) {
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        .unwrap_or('\u{FFFD}')
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            other => other as char,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
}

/// A number's exact value in one spelling: `0`, or the sign, the significant digits without
/// leading or trailing zeros, `e` and the exponent of the last digit (`-12e-3` for -0.0120).
/// `None` when the exponent does not fit 64 bits.
fn canonical_number(n: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let negative = n[0] == b'-';
    let n = if negative { &n[1..] } else { n };
    let mantissa_end = n
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .unwrap_or(n.len());
    let mut exponent: i64 = match n.get(mantissa_end + 1..) {
        Some(e) => {
            let text = std::str::from_utf8(e).ok()?;
            let text = text.strip_prefix('+').unwrap_or(text);
            // Leading zeros do not change the value (JSON allows them in an exponent).
            let (sign, digits) = match text.strip_prefix('-') {
                Some(d) => (-1, d),
                None => (1, text),
            };
            let digits = digits.trim_start_matches('0');
            if digits.is_empty() {
                0
            } else {
                sign * digits.parse::<i64>().ok()?
            }
        }
        None => 0,
    };
    let mantissa = &n[..mantissa_end];
    let (int, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &[][..]),
    };
    exponent = exponent.checked_sub(i64::try_from(frac.len()).ok()?)?;
    let digits: Vec<u8> = int.iter().chain(frac).copied().collect();
    let first = digits.iter().position(|&d| d != b'0');
    let Some(first) = first else {
        out.push(b'0');
        return Some(());
    };
    let last = digits
        .iter()
        .rposition(|&d| d != b'0')
        .expect("a non-zero digit");
    exponent = exponent.checked_add(i64::try_from(digits.len() - 1 - last).ok()?)?;
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[first..=last]);
    out.push(b'e');
    out.extend_from_slice(exponent.to_string().as_bytes());
    Some(())
}

/// A string's text, escaped one way only (`"` and `\`, and control characters).
fn canonical_string(raw: &[u8], out: &mut Vec<u8>) {
    let mut text = Vec::new();
    unescape(raw, &mut text);
    out.push(b'"');
    for &c in &text {
        match c {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', c]),
            c if c < 0x20 => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

/// One container being made canonical.
enum Building {
    /// `[` and the elements so far, comma-separated.
    Array(Vec<u8>),
    /// Members as (canonical key, canonical value), and the key of the member being read.
    Object(Vec<(Vec<u8>, Vec<u8>)>, Option<Vec<u8>>),
}

impl Building {
    /// The container's canonical text: an object's members by key, a repeated key's last.
    fn finish(self) -> Vec<u8> {
        match self {
            Building::Array(mut out) => {
                out.push(b']');
                out
            }
            Building::Object(mut members, _) => {
                // Stable: after the reverse, the last of a repeated key comes first and stays.
                members.reverse();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                members.dedup_by(|later, earlier| later.0 == earlier.0);
                let mut out = vec![b'{'];
                for (n, (k, val)) in members.into_iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&k);
                    out.push(b':');
                    out.extend_from_slice(&val);
                }
                out.push(b'}');
                out
            }
        }
    }
}

/// The canonical form of a valid JSON value `v` (as [`locate`] found it): two values jq calls
/// equal have the same form. Iterative, as deep as the value is. `None`: a number whose
/// exponent does not fit 64 bits.
fn canonical(v: &[u8]) -> Option<Vec<u8>> {
    let mut stack: Vec<Building> = Vec::new();
    let mut i = 0;
    loop {
        // At a value's start; in an object, at its member's key first.
        i = skip_ws(v, i);
        if let Some(Building::Object(_, pending)) = stack.last_mut() {
            let end = string_end(v, i + 1).ok()?;
            let mut k = Vec::new();
            canonical_string(&v[i + 1..end - 1], &mut k);
            *pending = Some(k);
            i = skip_ws(v, skip_ws(v, end) + 1);
        }
        let mut done = Vec::new();
        match v[i] {
            open @ (b'[' | b'{') => {
                let close = if open == b'[' { b']' } else { b'}' };
                i = skip_ws(v, i + 1);
                if v[i] == close {
                    done.extend_from_slice(&[open, close]);
                    i += 1;
                } else {
                    stack.push(if open == b'[' {
                        Building::Array(vec![b'['])
                    } else {
                        Building::Object(Vec::new(), None)
                    });
                    continue;
                }
            }
            b'"' => {
                let end = string_end(v, i + 1).ok()?;
                canonical_string(&v[i + 1..end - 1], &mut done);
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(v, i).ok()?;
                canonical_number(&v[i..end], &mut done)?;
                i = end;
            }
            c => {
                let len = if c == b'f' { 5 } else { 4 };
                done.extend_from_slice(&v[i..i + len]);
                i += len;
            }
        }
        // Hand the finished value to its container, and close every container ending after it.
        loop {
            match stack.last_mut() {
                None => return Some(done),
                Some(Building::Array(out)) => {
                    if out.len() > 1 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&done);
                }
                Some(Building::Object(members, pending)) => {
                    members.push((pending.take()?, std::mem::take(&mut done)));
                }
            }
            i = skip_ws(v, i);
            if v[i] == b',' {
                i += 1;
                break;
            }
            // `]` or `}`.
            i += 1;
            done = stack.pop()?.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(spec: &str, doc: &str) -> bool {
        JsonField::parse(spec).unwrap().matches(doc.as_bytes())
    }

    #[test]
    fn fields_by_name_and_index() {
        assert!(m("customer.id=4711", r#"{"customer":{"id":4711}}"#));
        assert!(m("customer.id=4711", r#"{"customer":{"id":"4711"}}"#));
        assert!(m("customer.id=4711", r#"{"customer":{"id":4.711e3}}"#));
        assert!(!m("customer.id=4711", r#"{"customer":{"id":47110}}"#));
        assert!(m(
            "items.1.sku=B-2",
            r#"{"items":[{"sku":"A"},{"sku":"B-2"}]}"#
        ));
        assert!(!m(
            "items.0.sku=B-2",
            r#"{"items":[{"sku":"A"},{"sku":"B-2"}]}"#
        ));
        assert!(m("ok=true", r#"{"ok":true}"#) && !m("ok=true", r#"{"ok":"yes"}"#));
        assert!(m(r#"s="quoted""#, r#"{"s":"quoted"}"#));
        assert!(m("id=1", r#"{"\u0069d":1}"#));
        assert!(!m("id=1", r#"{"id":1"#) && !m("id=1", "id=1"));
        assert!(
            !m("id=1", r#"{"id":1} x"#),
            "trailing bytes: not one JSON document"
        );
        assert!(JsonField::parse("id").is_err() && JsonField::parse("a..b=1").is_err());
    }

    #[test]
    fn structures_compare_as_jq_compares_them() {
        assert!(m(
            "a={\"y\":[1,2.0],\"x\":null}",
            r#"{"a":{"x":null,"y":[1.0,2]}}"#
        ));
        assert!(!m("a={\"y\":[2,1]}", r#"{"a":{"y":[1,2]}}"#));
        assert!(m("a=[]", r#"{"a":[ ]}"#) && m("a={}", r#"{"a":{ }}"#));
        assert!(!m("a=[]", r#"{"a":{}}"#));
        // A repeated key: the last wins, at every level.
        assert!(m("a=2", r#"{"a":1,"a":2}"#) && !m("a=1", r#"{"a":1,"a":2}"#));
        assert!(!m("a.b=1", r#"{"a":{"b":1},"a":{"c":2}}"#));
        assert!(m("a={\"k\":2}", r#"{"a":{"k":1,"k":2}}"#));
        // -0 is 0; escapes are their text; a lone surrogate reads as U+FFFD.
        assert!(m("n=0", r#"{"n":-0.0}"#));
        assert!(m("s=é\n", "{\"s\":\"\\u00e9\\n\"}"));
        assert!(m("s=😀", r#"{"s":"\ud83d\ude00"}"#));
        assert!(m("s=\u{FFFD}", r#"{"s":"\ud83d"}"#));
    }

    /// Issue 45: values nested 128 or more deep, and numbers beyond f64, are found.
    #[test]
    fn deep_documents_and_numbers_beyond_f64() {
        let deep =
            |n: usize, inner: &str| format!("{}{inner}{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        let path = |n: usize| vec!["a"; n].join(".");
        for n in [1, 127, 128, 129, 5000] {
            let doc = deep(n, "7");
            assert!(m(&format!("{}=7", path(n)), &doc), "{n}");
            assert!(!m(&format!("{}=8", path(n)), &doc), "{n}");
        }
        // Deep arrays, and a deep value compared whole.
        let arrays = format!("{{\"x\":{}1{}}}", "[".repeat(3000), "]".repeat(3000));
        assert!(m(&format!("x{}=1", ".0".repeat(3000)), &arrays));
        let inner = format!("{}1{}", "[".repeat(300), "]".repeat(300));
        assert!(m(&format!("x={inner}"), &format!("{{\"x\":{inner}}}")));
        // A million open brackets: read without recursion, not JSON (no close).
        assert!(!m("x=1", &"[".repeat(1_000_000)));
        for (value, doc) in [
            ("1e400", "1e400"),
            ("1e400", "10E399"),
            ("1e400", "1.0e+400"),
            ("-2.5e-400", "-0.25e-399"),
            (
                "123456789012345678901234567890",
                "1.2345678901234567890123456789e29",
            ),
        ] {
            assert!(
                m(&format!("n={value}"), &format!("{{\"n\":{doc}}}")),
                "{value} {doc}"
            );
        }
        assert!(!m("n=1e400", r#"{"n":1e401}"#));
        assert!(!m(
            "n=123456789012345678901234567890",
            r#"{"n":123456789012345678901234567891}"#
        ));
        // An exponent beyond 64 bits cannot be compared exactly: said, not a silent miss.
        let f = JsonField::parse("n=1").unwrap();
        assert_eq!(
            f.test(br#"{"n":1e99999999999999999999999}"#),
            JsonMatch::Uncomparable
        );
        assert_eq!(
            f.test(br#"{"m":1e99999999999999999999999,"n":1}"#),
            JsonMatch::Yes
        );
    }

    #[test]
    fn canonical_numbers() {
        let c = |n: &str| {
            let mut out = Vec::new();
            canonical_number(n.as_bytes(), &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(c("0"), "0");
        assert_eq!(c("-0.000e5"), "0");
        assert_eq!(c("100"), "1e2");
        assert_eq!(c("-0.0120"), "-12e-3");
        assert_eq!(c("1.5E+003"), "15e2");
        assert_eq!(c("1e-0005"), "1e-5");
    }

    proptest::proptest! {
        /// Hostile bytes (and valid documents cut or flipped anywhere) never panic; a document
        /// serde_json refuses is never a match.
        #[test]
        fn hostile_documents_never_panic(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            cut in 0usize..60,
            flip in (0usize..60, proptest::prelude::any::<u8>()),
        ) {
            let fields = ["a=1", "a.b=\"x\"", "0.a=[1,{}]", "a={\"b\":null}", "a=1e400"];
            let valid = br#"{"a":{"b":"x","c":[1,2.5e3,{"\u0041":true}]},"z":null}"#;
            let mut cut_doc = valid[..cut.min(valid.len())].to_vec();
            let mut flipped = valid.to_vec();
            let at = flip.0 % flipped.len();
            flipped[at] = flip.1;
            cut_doc.extend_from_slice(&bytes[..bytes.len().min(8)]);
            for spec in fields {
                let f = JsonField::parse(spec).unwrap();
                for doc in [&bytes[..], &cut_doc[..], &flipped[..]] {
                    let got = f.test(doc);
                    if serde_json::from_slice::<serde_json::Value>(doc).is_err()
                        && std::str::from_utf8(doc).is_ok()
                    {
                        prop_assert_ne!(got, JsonMatch::Yes, "{} {:?}", spec, doc);
                    }
                }
            }
        }

        /// Over documents serde_json reads, the field found is serde_json's (its depth limit
        /// is not reached here), and a value equals itself in any spelling serde gives it.
        #[test]
        fn agrees_with_serde_json_where_it_can_read(
            doc in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(r#"{"a":1}"#.to_string()),
                    "[a-c]{1,2}".prop_map(|k| format!(r#"{{"{k}":{{"a":[1,2.50,"x"]}}}}"#)),
                    (0i64..1000).prop_map(|n| format!(r#"{{"a":{n},"b":"{n}"}}"#)),
                ],
                1..4,
            ),
            pick in 0usize..3,
        ) {
            let text = format!("[{}]", doc.join(","));
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let i = pick % doc.len();
            if let Some(a) = v[i].get("a") {
                let spec = format!("{i}.a={}", serde_json::to_string(a).unwrap());
                prop_assert!(m(&spec, &text), "{} in {}", spec, text);
            }
        }
    }
}
